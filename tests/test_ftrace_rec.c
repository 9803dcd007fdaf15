/*
 * test_ftrace_rec.c: turning the ftrace 'blk' tracer's binary trace_pipe
 * into blktrace's per-CPU files. tests/data/trace_pipe-loop0.bin is the
 * raw pipe of Linux 6.18 while `dd` wrote 3 x 4 KiB on CPU 0 and read
 * 2 x 8 KiB on CPU 1 (loop0, mq-deadline): 35 records, pids 14286 (dd),
 * 14 (ksoftirqd/0, the completions) and 14287 (dd); CPU 0 has 23 of them.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blktrace.h"
#include "check.h"
#include "ftrace_rec.h"
#include "lossnote.h"

#define PIPE_DUMP	"tests/data/trace_pipe-loop0.bin"
#define DUMP_RECORDS	35
#define FIRST_RECORD	64	/* prefix + 48, no payload */

struct bytes {
	unsigned char *p;
	size_t len;
};

static char dir[64];

static struct bytes slurp(const char *path)
{
	struct bytes b = { NULL, 0 };
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		return b;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	b.p = malloc(size > 0 ? (size_t)size : 1);
	if (b.p && size > 0 && fread(b.p, (size_t)size, 1, f) == 1)
		b.len = (size_t)size;
	fclose(f);
	return b;
}

static struct bytes cpu_file(const char *name, unsigned cpu)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s.blktrace.%u", dir, name, cpu);
	return slurp(path);
}

static int name_every_pid(void *ctx, uint32_t pid, char *comm, size_t size)
{
	(void)ctx;
	snprintf(comm, size, "p%u", pid);
	return 0;
}

static int know_no_pid(void *ctx, uint32_t pid, char *comm, size_t size)
{
	(void)ctx;
	(void)pid;
	(void)comm;
	(void)size;
	return -1;
}

/* Converts data as fed in chunks of chunk bytes; returns the stats. */
static struct ftrace_conv_stats convert(const char *name, unsigned n_cpus,
					const struct bytes *data, size_t chunk,
					ftrace_comm_fn comm)
{
	struct ftrace_conv_stats st = { 0 };
	struct iow_error err = { "" };
	struct ftrace_conv *c;
	size_t pos, n;

	c = ftrace_conv_open(dir, name, n_cpus, comm, NULL, &err);
	CHECK(c != NULL);
	if (!c)
		return st;
	for (pos = 0; pos < data->len; pos += n) {
		n = data->len - pos < chunk ? data->len - pos : chunk;
		CHECK_EQ_INT(ftrace_conv_feed(c, data->p + pos, n, &err), 0);
	}
	CHECK_EQ_INT(ftrace_conv_close(c, &st, &err), 0);
	return st;
}

struct file_facts {
	unsigned ios, notes, bad_sequence, bad_cpu, time_backwards;
	unsigned note_not_before_its_event;
};

static struct file_facts read_facts(const struct bytes *b, unsigned cpu)
{
	struct file_facts f = { 0 };
	struct blk_io_trace t, next;
	uint64_t last_time = 0;
	size_t pos;

	for (pos = 0; pos + sizeof(t) <= b->len;
	     pos += sizeof(t) + t.pdu_len) {
		memcpy(&t, b->p + pos, sizeof(t));
		f.bad_cpu += t.cpu != cpu;
		f.time_backwards += t.time < last_time;
		last_time = t.time;
		if (!blk_is_note(t.action)) {
			f.bad_sequence += t.sequence != ++f.ios;
			continue;
		}
		f.notes++;
		if (pos + sizeof(t) + t.pdu_len + sizeof(next) > b->len)
			continue;
		memcpy(&next, b->p + pos + sizeof(t) + t.pdu_len,
		       sizeof(next));
		f.note_not_before_its_event += next.pid != t.pid ||
					       next.time != t.time;
	}
	return f;
}

static void test_real_pipe_splits_into_cpu_files_with_sequences(void)
{
	struct bytes dump = slurp(PIPE_DUMP), f0, f1;
	struct ftrace_conv_stats st;
	struct file_facts a, b;

	st = convert("split", 2, &dump, dump.len, name_every_pid);
	CHECK_EQ_INT(st.events, DUMP_RECORDS);
	CHECK_EQ_INT(st.notes, 3);
	CHECK_EQ_INT(st.lost + st.bytes_skipped + st.bytes_truncated, 0);
	f0 = cpu_file("split", 0);
	f1 = cpu_file("split", 1);
	a = read_facts(&f0, 0);
	b = read_facts(&f1, 1);
	CHECK_EQ_INT(a.ios, 23);
	CHECK_EQ_INT(b.ios, 12);
	CHECK_EQ_INT(a.notes, 2);	/* dd 14286 and ksoftirqd 14 */
	CHECK_EQ_INT(b.notes, 1);	/* dd 14287 */
	CHECK_EQ_INT(a.bad_sequence + b.bad_sequence, 0);
	CHECK_EQ_INT(a.bad_cpu + b.bad_cpu, 0);
	CHECK_EQ_INT(a.time_backwards + b.time_backwards, 0);
	free(dump.p);
	free(f0.p);
	free(f1.p);
}

static void test_process_note_comes_at_its_pids_first_event(void)
{
	struct bytes dump = slurp(PIPE_DUMP), f0;
	struct blk_io_trace t;
	struct file_facts a;

	convert("notes", 2, &dump, dump.len, name_every_pid);
	f0 = cpu_file("notes", 0);
	a = read_facts(&f0, 0);
	CHECK_EQ_INT(a.note_not_before_its_event, 0);
	/* the first record is dd's PROCESS note, its name NUL-terminated */
	if (f0.len >= sizeof(t) + 7) {
		memcpy(&t, f0.p, sizeof(t));
		CHECK_EQ_INT(t.action, BLK_TC_ACT(BLK_TC_NOTIFY) |
			     BLK_TN_PROCESS);
		CHECK_EQ_INT(t.pid, 14286);
		CHECK_EQ_INT(t.pdu_len, 7);
		CHECK(!memcmp(f0.p + sizeof(t), "p14286", 7));
	}
	free(dump.p);
	free(f0.p);
}

static void test_any_split_of_the_stream_gives_the_same_files(void)
{
	struct bytes dump = slurp(PIPE_DUMP), whole, bytewise;
	unsigned cpu;

	convert("whole", 2, &dump, dump.len, name_every_pid);
	convert("bytewise", 2, &dump, 1, name_every_pid);
	for (cpu = 0; cpu < 2; cpu++) {
		whole = cpu_file("whole", cpu);
		bytewise = cpu_file("bytewise", cpu);
		CHECK(whole.len > 0);
		CHECK_EQ_INT(bytewise.len, whole.len);
		CHECK(whole.len == bytewise.len &&
		      !memcmp(whole.p, bytewise.p, whole.len));
		free(whole.p);
		free(bytewise.p);
	}
	free(dump.p);
}

/* dump with text inserted after its first record */
static struct bytes with_insert(const struct bytes *dump, const void *text,
				size_t len)
{
	struct bytes b = { malloc(dump->len + len), dump->len + len };

	memcpy(b.p, dump->p, FIRST_RECORD);
	memcpy(b.p + FIRST_RECORD, text, len);
	memcpy(b.p + FIRST_RECORD + len, dump->p + FIRST_RECORD,
	       dump->len - FIRST_RECORD);
	return b;
}

static void test_lost_events_line_is_counted_and_stepped_over(void)
{
	static const char lost[] = "CPU:1 [LOST 5 EVENTS]\n";
	struct bytes dump = slurp(PIPE_DUMP);
	struct bytes b = with_insert(&dump, lost, sizeof(lost) - 1);
	struct ftrace_conv_stats st = convert("lost", 2, &b, 7,
					      name_every_pid);

	CHECK_EQ_INT(st.events, DUMP_RECORDS);
	CHECK_EQ_INT(st.lost, 5);
	CHECK_EQ_INT(st.bytes_skipped, 0);
	free(dump.p);
	free(b.p);
}

/* The loss note in cpu's file: 1 if found, its neighbours' times. */
static int find_loss_note(const struct bytes *b, struct lossnote *n,
			  uint64_t *before, uint64_t *after, unsigned *count)
{
	struct blk_io_trace t;
	size_t pos;
	int found = 0;

	*before = *after = 0;
	*count = 0;
	for (pos = 0; pos + sizeof(t) <= b->len;
	     pos += sizeof(t) + t.pdu_len) {
		memcpy(&t, b->p + pos, sizeof(t));
		if (lossnote_parse(t.action, b->p + pos + sizeof(t),
				   t.pdu_len, n)) {
			(*count)++;
			found = 1;
			continue;
		}
		if (!found)
			*before = t.time;
		else if (!*after)
			*after = t.time;
	}
	return found;
}

static void test_lost_line_becomes_a_loss_note_before_the_next_record(void)
{
	static const char lost[] = "CPU:1 [LOST 5 EVENTS]\n";
	struct bytes dump = slurp(PIPE_DUMP);
	struct bytes b = with_insert(&dump, lost, sizeof(lost) - 1), f1;
	struct ftrace_conv_stats st = convert("lostnote", 2, &b, 7,
					      name_every_pid);
	struct file_facts facts;
	uint64_t before, after;
	struct lossnote n;
	unsigned count;

	f1 = cpu_file("lostnote", 1);
	CHECK(find_loss_note(&f1, &n, &before, &after, &count));
	CHECK_EQ_INT(count, 1);
	CHECK(n.count_known && n.count == 5 && n.cpu == 1);
	CHECK_EQ_INT(n.t0_ns, before);
	CHECK_EQ_INT(n.t1_ns, after);
	CHECK(after > 0);
	facts = read_facts(&f1, 1);
	CHECK_EQ_INT(facts.time_backwards, 0);
	CHECK_EQ_INT(facts.bad_sequence, 0);
	CHECK_EQ_INT(st.loss_windows, 1);
	free(f1.p);
	free(dump.p);
	free(b.p);
}

static void test_lost_line_without_a_count_is_an_unknown_loss(void)
{
	static const char lost[] = "CPU:0 [LOST EVENTS]\n";
	struct bytes dump = slurp(PIPE_DUMP);
	struct bytes b = with_insert(&dump, lost, sizeof(lost) - 1), f0;
	struct ftrace_conv_stats st = convert("lostunknown", 2, &b, b.len,
					      name_every_pid);
	uint64_t before, after;
	struct lossnote n;
	unsigned count;

	f0 = cpu_file("lostunknown", 0);
	CHECK(find_loss_note(&f0, &n, &before, &after, &count));
	CHECK(!n.count_known && n.cpu == 0);
	CHECK(st.lost_unknown);
	CHECK_EQ_INT(st.lost, 0);
	free(f0.p);
	free(dump.p);
	free(b.p);
}

static void test_other_events_bare_prefix_is_skipped(void)
{
	struct bytes dump = slurp(PIPE_DUMP);
	/* what another enabled ftrace event gives in 'bin': a prefix only */
	struct bytes b = with_insert(&dump, dump.p, FTRACE_PIPE_PREFIX_SIZE);
	struct ftrace_conv_stats st = convert("foreign", 2, &b, b.len,
					      name_every_pid);

	CHECK_EQ_INT(st.events, DUMP_RECORDS);
	CHECK_EQ_INT(st.bytes_skipped, FTRACE_PIPE_PREFIX_SIZE);
	free(dump.p);
	free(b.p);
}

static void test_truncated_tail_keeps_earlier_records(void)
{
	struct bytes dump = slurp(PIPE_DUMP);
	struct ftrace_conv_stats st;

	dump.len -= 10;
	st = convert("tail", 2, &dump, dump.len, name_every_pid);
	CHECK_EQ_INT(st.events, DUMP_RECORDS - 1);
	CHECK_EQ_INT(st.bytes_truncated, 64 - 10);
	free(dump.p);
}

static void test_every_configured_cpu_gets_a_file(void)
{
	struct bytes dump = slurp(PIPE_DUMP), f3;
	char path[128];
	struct stat st;

	convert("four", 4, &dump, dump.len, name_every_pid);
	/* blkparse stops at the first missing NAME.blktrace.N */
	snprintf(path, sizeof(path), "%s/four.blktrace.2", dir);
	CHECK_EQ_INT(stat(path, &st), 0);
	f3 = cpu_file("four", 3);
	CHECK_EQ_INT(f3.len, 0);
	free(dump.p);
	free(f3.p);
}

static void test_higher_cpu_opens_the_files_below_it(void)
{
	struct bytes dump = slurp(PIPE_DUMP), f5;
	int32_t cpu = 5;
	char path[128];
	struct stat st;

	memcpy(dump.p + 4, &cpu, sizeof(cpu));	/* first record's prefix */
	convert("high", 1, &dump, dump.len, name_every_pid);
	snprintf(path, sizeof(path), "%s/high.blktrace.4", dir);
	CHECK_EQ_INT(stat(path, &st), 0);
	f5 = cpu_file("high", 5);
	CHECK_EQ_INT(read_facts(&f5, 5).ios, 1);
	CHECK_EQ_INT(read_facts(&f5, 5).bad_cpu, 0);
	free(dump.p);
	free(f5.p);
}

static void test_unknown_pid_gets_no_note(void)
{
	struct bytes dump = slurp(PIPE_DUMP);
	struct ftrace_conv_stats st = convert("anon", 2, &dump, dump.len,
					      know_no_pid);

	CHECK_EQ_INT(st.events, DUMP_RECORDS);
	CHECK_EQ_INT(st.notes, 0);
	free(dump.p);
}

static void test_timestamp_note_carries_the_wall_clock(void)
{
	struct timespec wall = { .tv_sec = 1795000000, .tv_nsec = 123456789 };
	struct iow_error err = { "" };
	struct ftrace_conv *c;
	struct blk_io_trace t;
	uint32_t words[2];
	struct bytes f0;

	c = ftrace_conv_open(dir, "stamp", 1, name_every_pid, NULL, &err);
	if (!c) {
		CHECK(0);
		return;
	}
	CHECK_EQ_INT(ftrace_conv_timestamp(c, 0x700000, 42, &wall, &err), 0);
	CHECK_EQ_INT(ftrace_conv_close(c, NULL, &err), 0);
	f0 = cpu_file("stamp", 0);
	CHECK_EQ_INT(f0.len, sizeof(t) + sizeof(words));
	if (f0.len == sizeof(t) + sizeof(words)) {
		memcpy(&t, f0.p, sizeof(t));
		memcpy(words, f0.p + sizeof(t), sizeof(words));
		CHECK_EQ_INT(t.magic, BLK_IO_TRACE_MAGIC | 7);
		CHECK_EQ_INT(t.action, BLK_TC_ACT(BLK_TC_NOTIFY) |
			     BLK_TN_TIMESTAMP);
		CHECK_EQ_INT(t.time, 42);
		CHECK_EQ_INT(t.device, 0x700000);
		CHECK_EQ_INT(words[0], 1795000000u);
		CHECK_EQ_INT(words[1], 123456789u);
	}
	free(f0.p);
}

static void test_unwritable_directory_is_one_line(void)
{
	struct iow_error err = { "" };

	CHECK(ftrace_conv_open("/nonexistent", "x", 2, name_every_pid, NULL,
			       &err) == NULL);
	CHECK(strstr(err.msg, "cannot create /nonexistent/x.blktrace.0: "
		      "No such file") != NULL);
}

static void test_comm_lookup_names_the_idle_task_and_ourselves(void)
{
	char comm[64];

	CHECK_EQ_INT(ftrace_comm_lookup(NULL, 0, comm, sizeof(comm)), 0);
	CHECK(!strcmp(comm, "swapper"));
	CHECK_EQ_INT(ftrace_comm_lookup(NULL, (uint32_t)getpid(), comm,
					sizeof(comm)), 0);
	CHECK(!strcmp(comm, "test_ftrace_rec"));
}

int main(void)
{
	char cmd[128];
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/test_ftrace_rec.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	RUN_TEST(test_real_pipe_splits_into_cpu_files_with_sequences);
	RUN_TEST(test_process_note_comes_at_its_pids_first_event);
	RUN_TEST(test_any_split_of_the_stream_gives_the_same_files);
	RUN_TEST(test_lost_events_line_is_counted_and_stepped_over);
	RUN_TEST(test_lost_line_becomes_a_loss_note_before_the_next_record);
	RUN_TEST(test_lost_line_without_a_count_is_an_unknown_loss);
	RUN_TEST(test_other_events_bare_prefix_is_skipped);
	RUN_TEST(test_truncated_tail_keeps_earlier_records);
	RUN_TEST(test_every_configured_cpu_gets_a_file);
	RUN_TEST(test_higher_cpu_opens_the_files_below_it);
	RUN_TEST(test_unknown_pid_gets_no_note);
	RUN_TEST(test_timestamp_note_carries_the_wall_clock);
	RUN_TEST(test_unwritable_directory_is_one_line);
	RUN_TEST(test_comm_lookup_names_the_idle_task_and_ourselves);
	rc = check_report();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		rc = 1;
	return rc;
}
