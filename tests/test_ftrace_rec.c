/*
 * test_ftrace_rec.c: turning the ftrace 'blk' tracer's ring-buffer pages,
 * read per CPU from trace_pipe_raw, into blktrace's per-CPU files.
 * tests/data/trace_pipe_raw-loop0.cpu0 and .cpu1 are a page each of
 * Linux 6.18 (trace_clock mono) while dd wrote 2 x 4 KiB and then read
 * 8 KiB on loop0, three times, 0.3 s and 0.2 s apart (time extends in
 * both pages): 54 records, 4 on CPU 0 (ksoftirqd/0, pid 14) and 50 on
 * CPU 1 (the dd processes and ksoftirqd/1, 7 pids). The times expected
 * are those the kernel's own merged 'trace' file gave the same events.
 * Hand-made pages (tests/pagebuild.h) add losses, other events and the
 * cgroup ids of the blk_cgroup option.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "record/bpf/blkrec.h"
#include "reader/causefile.h"
#include "check.h"
#include "record/ftrace_rec.h"
#include "reader/lossnote.h"
#include "pagebuild.h"

#define RAW_PAGE(cpu)	"tests/data/trace_pipe_raw-loop0.cpu" #cpu
#define BLK		14	/* the blk tracer's type on that kernel */
#define CPU0_RECORDS	4
#define CPU1_RECORDS	50
#define CPU1_FIRST_NS	21676637408560ULL	/* as the merged trace said */
#define CPU1_LAST_NS	21677974271819ULL
#define CPU0_LAST_NS	21677974343575ULL

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

static struct ftrace_page_layout layout(void)
{
	struct ftrace_page_layout l;
	struct iow_error err = { "" };

	CHECK_EQ_INT(ftrace_page_layout_parse(PB_HEADER_PAGE, &l, &err), 0);
	return l;
}

static struct ftrace_conv *open_conv(const char *name, unsigned n_cpus,
				     ftrace_comm_fn comm)
{
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };
	struct ftrace_conv *c;

	c = ftrace_conv_open(dir, name, n_cpus, &l, BLK, comm, NULL, &err);
	CHECK(c != NULL);
	return c;
}

static int feed_file(struct ftrace_conv *c, unsigned cpu, const char *path)
{
	struct iow_error err = { "" };
	struct bytes b = slurp(path);
	int rc;

	CHECK_EQ_INT(b.len, PB_PAGE_SIZE);
	rc = ftrace_conv_page(c, cpu, b.p, b.len, &err);
	CHECK_EQ_INT(rc, 0);
	free(b.p);
	return rc;
}

static struct ftrace_conv_stats close_conv(struct ftrace_conv *c)
{
	struct ftrace_conv_stats st = { 0 };
	struct iow_error err = { "" };

	CHECK_EQ_INT(ftrace_conv_close(c, &st, &err), 0);
	return st;
}

/* Both real pages, each of its CPU. */
static struct ftrace_conv_stats convert_real(const char *name,
					     unsigned n_cpus,
					     ftrace_comm_fn comm)
{
	struct ftrace_conv *c = open_conv(name, n_cpus, comm);
	struct ftrace_conv_stats st = { 0 };

	if (!c)
		return st;
	feed_file(c, 0, RAW_PAGE(0));
	feed_file(c, 1, RAW_PAGE(1));
	return close_conv(c);
}

struct file_facts {
	unsigned ios, notes, bad_sequence, bad_cpu, time_backwards;
	unsigned end_marks;	/* not in notes */
	int ends_marked;	/* the last record is the end mark */
	unsigned note_not_before_its_event;
	uint64_t first_io_ns, last_io_ns;
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
			f.bad_sequence += t.magic != (BLK_IO_TRACE_MAGIC | 7);
			if (!f.first_io_ns)
				f.first_io_ns = t.time;
			f.last_io_ns = t.time;
			continue;
		}
		if (lossnote_is_end_mark(t.action, b->p + pos + sizeof(t),
					 t.pdu_len)) {
			f.end_marks++;
			f.ends_marked = pos + sizeof(t) + t.pdu_len == b->len;
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

static void test_real_pages_split_into_cpu_files_with_sequences(void)
{
	struct ftrace_conv_stats st;
	struct file_facts a, b;
	struct bytes f0, f1;

	st = convert_real("split", 2, name_every_pid);
	CHECK_EQ_INT(st.events, CPU0_RECORDS + CPU1_RECORDS);
	CHECK_EQ_INT(st.notes, 1 + 7);
	CHECK_EQ_INT(st.lost + st.loss_windows + st.bytes_skipped, 0);
	f0 = cpu_file("split", 0);
	f1 = cpu_file("split", 1);
	a = read_facts(&f0, 0);
	b = read_facts(&f1, 1);
	CHECK_EQ_INT(a.ios, CPU0_RECORDS);
	CHECK_EQ_INT(b.ios, CPU1_RECORDS);
	CHECK_EQ_INT(a.notes, 1);	/* ksoftirqd/0 */
	CHECK_EQ_INT(b.notes, 7);
	/* each file ends with its end mark, at the same time */
	CHECK(a.end_marks == 1 && a.ends_marked);
	CHECK(b.end_marks == 1 && b.ends_marked);
	CHECK_EQ_INT(a.bad_sequence + b.bad_sequence, 0);
	CHECK_EQ_INT(a.bad_cpu + b.bad_cpu, 0);
	CHECK_EQ_INT(a.time_backwards + b.time_backwards, 0);
	free(f0.p);
	free(f1.p);
}

static void test_times_are_the_kernels_across_time_extends(void)
{
	struct bytes f0, f1;
	struct file_facts a, b;

	convert_real("times", 2, name_every_pid);
	f0 = cpu_file("times", 0);
	f1 = cpu_file("times", 1);
	a = read_facts(&f0, 0);
	b = read_facts(&f1, 1);
	CHECK_EQ_INT(b.first_io_ns, CPU1_FIRST_NS);
	CHECK_EQ_INT(b.last_io_ns, CPU1_LAST_NS);
	CHECK_EQ_INT(a.last_io_ns, CPU0_LAST_NS);
	free(f0.p);
	free(f1.p);
}

static void test_process_note_comes_at_its_pids_first_event(void)
{
	struct blk_io_trace t;
	struct file_facts b;
	struct bytes f1;

	convert_real("notes", 2, name_every_pid);
	f1 = cpu_file("notes", 1);
	b = read_facts(&f1, 1);
	CHECK_EQ_INT(b.note_not_before_its_event, 0);
	/* the first record is dd's PROCESS note, its name NUL-terminated */
	if (f1.len >= sizeof(t) + 7) {
		memcpy(&t, f1.p, sizeof(t));
		CHECK_EQ_INT(t.action, BLK_TC_ACT(BLK_TC_NOTIFY) |
			     BLK_TN_PROCESS);
		CHECK_EQ_INT(t.pid, 31739);
		CHECK_EQ_INT(t.pdu_len, 7);
		CHECK(!memcmp(f1.p + sizeof(t), "p31739", 7));
	}
	free(f1.p);
}

/* A page of cpu at time, with an I/O record of pid after delta. */
static void one_record_page(struct pagebuild *b, uint64_t time,
			    uint32_t delta, uint32_t pid)
{
	struct blk_io_trace t = {
		.sector = 8, .bytes = 4096, .pid = pid, .device = 0x700000,
		.action = BLK_TC_ACT(BLK_TC_READ) | BLK_TA_QUEUE,
	};

	pb_init(b, time);
	pb_blk(b, delta, BLK, &t, "", 0);
}

/* The loss note in a file: 1 if found, its neighbours' times. */
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

static void test_missed_events_page_becomes_a_loss_note_at_its_time(void)
{
	struct ftrace_conv *c = open_conv("lost", 2, name_every_pid);
	uint64_t page_ns = CPU1_LAST_NS + 1000000, before, after;
	struct iow_error err = { "" };
	struct ftrace_conv_stats st;
	struct file_facts facts;
	struct pagebuild b;
	struct lossnote n;
	unsigned count;
	struct bytes f1;

	if (!c)
		return;
	feed_file(c, 1, RAW_PAGE(1));
	one_record_page(&b, page_ns, 250, 31739);
	pb_finish(&b, PB_MISSED | PB_MISSED_STORED, 5000);
	CHECK_EQ_INT(ftrace_conv_page(c, 1, b.page, sizeof(b.page), &err), 0);
	st = close_conv(c);
	CHECK_EQ_INT(st.lost, 5000);
	CHECK_EQ_INT(st.loss_windows, 1);
	CHECK(!st.lost_unknown);
	f1 = cpu_file("lost", 1);
	CHECK(find_loss_note(&f1, &n, &before, &after, &count));
	CHECK_EQ_INT(count, 1);
	CHECK(n.count_known && n.count == 5000 && n.cpu == 1);
	CHECK_EQ_INT(n.t0_ns, CPU1_LAST_NS);	/* the CPU's last record */
	CHECK_EQ_INT(n.t1_ns, page_ns);		/* the page's time */
	CHECK_EQ_INT(before, CPU1_LAST_NS);
	CHECK_EQ_INT(after, page_ns + 250);
	facts = read_facts(&f1, 1);
	CHECK_EQ_INT(facts.time_backwards, 0);
	CHECK_EQ_INT(facts.bad_sequence, 0);
	CHECK_EQ_INT(facts.ios, CPU1_RECORDS + 1);
	free(f1.p);
}

static void test_loss_note_goes_to_every_traced_device(void)
{
	struct ftrace_conv *c = open_conv("lostdevs", 1, name_every_pid);
	static const uint32_t devices[] = { 0x700000, 0x800010 };
	struct iow_error err = { "" };
	struct ftrace_conv_stats st;
	uint64_t before, after;
	struct pagebuild b;
	struct lossnote n;
	unsigned count;
	struct bytes f0;

	if (!c)
		return;
	CHECK_EQ_INT(ftrace_conv_set_devices(c, devices, 2, &err), 0);
	one_record_page(&b, 5000, 0, 31739);
	pb_finish(&b, PB_MISSED | PB_MISSED_STORED, 3);
	CHECK_EQ_INT(ftrace_conv_page(c, 0, b.page, sizeof(b.page), &err), 0);
	st = close_conv(c);
	CHECK_EQ_INT(st.loss_windows, 1);	/* one window, two notes */
	CHECK_EQ_INT(st.lost, 3);
	f0 = cpu_file("lostdevs", 0);
	CHECK(find_loss_note(&f0, &n, &before, &after, &count));
	CHECK_EQ_INT(count, 2);
	CHECK_EQ_INT(n.t0_ns, 0);	/* nothing on that CPU before */
	CHECK_EQ_INT(n.t1_ns, 5000);
	free(f0.p);
}

static void test_missed_events_without_a_count_are_an_unknown_loss(void)
{
	struct ftrace_conv *c = open_conv("lostunknown", 2, name_every_pid);
	struct iow_error err = { "" };
	struct ftrace_conv_stats st;
	uint64_t before, after;
	struct pagebuild b;
	struct lossnote n;
	unsigned count;
	struct bytes f0;

	if (!c)
		return;
	feed_file(c, 0, RAW_PAGE(0));
	one_record_page(&b, CPU0_LAST_NS + 10, 0, 14);
	pb_finish(&b, PB_MISSED, 0);
	CHECK_EQ_INT(ftrace_conv_page(c, 0, b.page, sizeof(b.page), &err), 0);
	st = close_conv(c);
	f0 = cpu_file("lostunknown", 0);
	CHECK(find_loss_note(&f0, &n, &before, &after, &count));
	CHECK(!n.count_known && n.cpu == 0);
	CHECK_EQ_INT(n.t0_ns, CPU0_LAST_NS);
	CHECK(st.lost_unknown);
	CHECK_EQ_INT(st.lost, 0);
	free(f0.p);
}

static void test_other_events_are_stepped_over(void)
{
	struct ftrace_conv *c = open_conv("foreign", 1, name_every_pid);
	static const unsigned char print[20] = { 5, 0 };	/* type 5 */
	struct iow_error err = { "" };
	struct ftrace_conv_stats st;
	struct pagebuild b;

	if (!c)
		return;
	one_record_page(&b, 1000, 0, 31739);
	pb_event(&b, 10, print, sizeof(print), 0);
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_conv_page(c, 0, b.page, sizeof(b.page), &err), 0);
	st = close_conv(c);
	CHECK_EQ_INT(st.events, 1);
	CHECK_EQ_INT(st.bytes_skipped, sizeof(print));
}

/* A QUEUE (with the cgroup flag and id cgroup when cgroup is not 0),
 * then an ISSUE with the flag, whose payload is the id alone. */
static void cgroup_records(struct pagebuild *b, uint32_t pid,
			   uint64_t cgroup)
{
	struct blk_io_trace t = {
		.sector = 8, .bytes = 4096, .pid = pid, .device = 0x700000,
		.action = BLK_TC_ACT(BLK_TC_WRITE) | BLK_TA_QUEUE,
	};

	if (cgroup) {
		t.action |= BLK_TA_CGROUP;
		t.pdu_len = sizeof(cgroup);
	}
	pb_blk(b, 10, BLK, &t, &cgroup, 0);
	t.action = BLK_TC_ACT(BLK_TC_WRITE) | BLK_TA_ISSUE | BLK_TA_CGROUP;
	t.pdu_len = sizeof(cgroup);
	pb_blk(b, 10, BLK, &t, &cgroup, 0);
}

/* Converts page with causes kept as NAME.cause*; the reader of them. */
static struct cause_reader *convert_with_causes(const char *name,
						struct pagebuild *b)
{
	struct ftrace_conv *c = open_conv(name, 1, name_every_pid);
	struct rec_causes_env env = {
		.dir = dir, .name = name, .what = BLKREC_CAUSES,
		.unrecorded = FTRACE_UNRECORDED,
	};
	struct iow_error err = { "" };
	char base[128];

	if (!c)
		return NULL;
	CHECK_EQ_INT(ftrace_conv_keep_causes(c, &env, &err), 0);
	CHECK_EQ_INT(ftrace_conv_page(c, 0, b->page, sizeof(b->page), &err),
		     0);
	close_conv(c);
	snprintf(base, sizeof(base), "%s/%s", dir, name);
	return cause_reader_open(base, &err);
}

/* The I/O records of a file: each action and payload length. */
static size_t io_records(const struct bytes *f, struct blk_io_trace *out,
			 size_t max)
{
	struct blk_io_trace t;
	size_t pos, n = 0;

	for (pos = 0; pos + sizeof(t) <= f->len;
	     pos += sizeof(t) + t.pdu_len) {
		memcpy(&t, f->p + pos, sizeof(t));
		if (!blk_is_note(t.action) && n < max)
			out[n++] = t;
	}
	return n;
}

static void test_cgroup_id_becomes_a_plain_record_and_its_cause(void)
{
	struct blk_io_trace recs[4];
	struct cause_reader *r;
	const struct cause_rec *cause;
	struct io_event ev = { .cpu = 0, .device = 0x700000, .sequence = 1 };
	struct pagebuild b;
	struct bytes f;

	pb_init(&b, 1000);
	cgroup_records(&b, 4242, 401);
	pb_finish(&b, 0, 0);
	r = convert_with_causes("cgroup", &b);
	CHECK(r != NULL);
	f = cpu_file("cgroup", 0);
	/* as blkparse reads them: no flag, no id in the payload */
	CHECK_EQ_INT(io_records(&f, recs, 4), 2);
	CHECK_EQ_INT(recs[0].action, BLK_TC_ACT(BLK_TC_WRITE) | BLK_TA_QUEUE);
	CHECK_EQ_INT(recs[0].pdu_len, 0);
	CHECK_EQ_INT(recs[1].action, BLK_TC_ACT(BLK_TC_WRITE) | BLK_TA_ISSUE);
	CHECK_EQ_INT(recs[1].pdu_len, 0);
	free(f.p);
	if (!r)
		return;
	/* the QUEUE's cause: its task and cgroup, nothing else */
	cause = cause_reader_match(r, &ev);
	CHECK(cause && cause->cgroup == 401 && cause->pid == 4242 &&
	      cause->ino == 0 && cause->kstack == -1 && cause->ustack == -1);
	CHECK(cause_unrecorded(r, CAUSE_PART_FILES) != NULL);
	CHECK(cause_unrecorded(r, CAUSE_PART_STACKS) != NULL);
	CHECK(!strcmp(cause_task_name(r, 4242), "p4242"));
	cause_reader_close(r);
}

static void test_record_without_the_flag_has_no_cgroup(void)
{
	struct io_event ev = { .cpu = 0, .device = 0x700000, .sequence = 1 };
	const struct cause_rec *cause;
	struct blk_io_trace recs[4];
	struct cause_reader *r;
	struct pagebuild b;
	struct bytes f;

	pb_init(&b, 1000);
	cgroup_records(&b, 4243, 0);
	pb_finish(&b, 0, 0);
	r = convert_with_causes("nocgroup", &b);
	CHECK(r != NULL);
	f = cpu_file("nocgroup", 0);
	CHECK_EQ_INT(io_records(&f, recs, 4), 2);
	CHECK_EQ_INT(recs[0].pdu_len, 0);
	free(f.p);
	if (!r)
		return;
	cause = cause_reader_match(r, &ev);
	CHECK(cause && cause->cgroup == 0 && cause->pid == 4243);
	cause_reader_close(r);
}

/* The flag with less than the id's 8 bytes: no id, the payload kept. */
static void test_cgroup_flag_without_room_for_the_id_drops_it(void)
{
	struct io_event ev = { .cpu = 0, .device = 0x700000, .sequence = 1 };
	struct blk_io_trace t = {
		.sector = 8, .bytes = 4096, .pid = 7, .device = 0x700000,
		.action = BLK_TC_ACT(BLK_TC_WRITE) | BLK_TA_QUEUE |
			  BLK_TA_CGROUP,
		.pdu_len = 4,
	};
	const struct cause_rec *cause;
	struct blk_io_trace recs[2];
	struct cause_reader *r;
	struct pagebuild b;
	struct bytes f;

	pb_init(&b, 1000);
	pb_blk(&b, 10, BLK, &t, "abcd", 0);
	pb_finish(&b, 0, 0);
	r = convert_with_causes("cut", &b);
	f = cpu_file("cut", 0);
	CHECK_EQ_INT(io_records(&f, recs, 2), 1);
	CHECK_EQ_INT(recs[0].action, BLK_TC_ACT(BLK_TC_WRITE) | BLK_TA_QUEUE);
	CHECK_EQ_INT(recs[0].pdu_len, 4);
	free(f.p);
	CHECK(r != NULL);
	if (!r)
		return;
	cause = cause_reader_match(r, &ev);
	CHECK(cause && cause->cgroup == 0);
	CHECK(cause_notes(r) &&
	      strstr(cause_notes(r), "1 records had the cgroup flag with no room for the id"));
	cause_reader_close(r);
}

/* Without causes kept, the id is still taken off the record. */
static void test_cgroup_flag_is_taken_off_without_causes(void)
{
	struct ftrace_conv *c = open_conv("plaincg", 1, name_every_pid);
	struct iow_error err = { "" };
	struct blk_io_trace recs[4];
	struct pagebuild b;
	struct bytes f;

	if (!c)
		return;
	pb_init(&b, 1000);
	cgroup_records(&b, 4244, 401);
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_conv_page(c, 0, b.page, sizeof(b.page), &err), 0);
	close_conv(c);
	f = cpu_file("plaincg", 0);
	CHECK_EQ_INT(io_records(&f, recs, 4), 2);
	CHECK_EQ_INT(recs[0].action, BLK_TC_ACT(BLK_TC_WRITE) | BLK_TA_QUEUE);
	CHECK_EQ_INT(recs[1].pdu_len, 0);
	free(f.p);
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/plaincg.cause", dir);
		CHECK(access(path, F_OK) != 0);
	}
}

static void test_bad_page_is_one_line_naming_its_cpu(void)
{
	struct ftrace_conv *c = open_conv("bad", 2, name_every_pid);
	struct iow_error err = { "" };
	struct pagebuild b;

	if (!c)
		return;
	one_record_page(&b, 1000, 0, 31739);
	pb_header(&b, 12, 0);		/* a record said, not there */
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_conv_page(c, 1, b.page, sizeof(b.page), &err), -1);
	CHECK(strstr(err.msg, "per_cpu/cpu1/trace_pipe_raw: the event at "
		     "byte 68 of a page runs past its 56 bytes") != NULL);
	CHECK(!strchr(err.msg, '\n'));
	close_conv(c);
}

static void test_every_configured_cpu_gets_a_file(void)
{
	char path[128];
	struct stat st;
	struct bytes f3;

	convert_real("four", 4, name_every_pid);
	/* blkparse stops at the first missing NAME.blktrace.N */
	snprintf(path, sizeof(path), "%s/four.blktrace.2", dir);
	CHECK_EQ_INT(stat(path, &st), 0);
	/* an idle CPU's file holds its end mark alone */
	f3 = cpu_file("four", 3);
	CHECK_EQ_INT(read_facts(&f3, 3).ios + read_facts(&f3, 3).notes, 0);
	CHECK(read_facts(&f3, 3).end_marks == 1 &&
	      read_facts(&f3, 3).ends_marked);
	free(f3.p);
}

static void test_higher_cpu_opens_the_files_below_it(void)
{
	struct ftrace_conv *c = open_conv("high", 1, name_every_pid);
	char path[128];
	struct stat st;
	struct bytes f5;

	if (!c)
		return;
	feed_file(c, 5, RAW_PAGE(0));
	close_conv(c);
	snprintf(path, sizeof(path), "%s/high.blktrace.4", dir);
	CHECK_EQ_INT(stat(path, &st), 0);
	f5 = cpu_file("high", 5);
	CHECK_EQ_INT(read_facts(&f5, 5).ios, CPU0_RECORDS);
	CHECK_EQ_INT(read_facts(&f5, 5).bad_cpu, 0);
	free(f5.p);
}

static void test_unknown_pid_gets_no_note(void)
{
	struct ftrace_conv_stats st = convert_real("anon", 2, know_no_pid);

	CHECK_EQ_INT(st.events, CPU0_RECORDS + CPU1_RECORDS);
	CHECK_EQ_INT(st.notes, 0);
}

static void test_timestamp_note_carries_the_wall_clock(void)
{
	struct timespec wall = { .tv_sec = 1795000000, .tv_nsec = 123456789 };
	struct iow_error err = { "" };
	struct ftrace_conv *c;
	struct blk_io_trace t;
	uint32_t words[2];
	struct bytes f0;

	c = open_conv("stamp", 1, name_every_pid);
	if (!c)
		return;
	CHECK_EQ_INT(ftrace_conv_timestamp(c, 0x700000, 42, &wall, &err), 0);
	CHECK_EQ_INT(ftrace_conv_close(c, NULL, &err), 0);
	f0 = cpu_file("stamp", 0);
	/* the note, then the end mark */
	CHECK(read_facts(&f0, 0).notes == 1 && read_facts(&f0, 0).ends_marked);
	if (f0.len > sizeof(t) + sizeof(words)) {
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

/* The blk tracer's entry on a kernel with zoned-device blktrace: the
 * uapi's struct blk_io_trace2, its first bytes the trace_entry. */
static void pb_blk2(struct pagebuild *b, uint32_t delta, uint32_t pid,
		    uint64_t sector, uint32_t bytes, uint64_t action)
{
	unsigned char e[64] = { 0 };
	uint32_t device = 0x800010;
	uint16_t type = BLK;

	memcpy(e, &type, sizeof(type));
	memcpy(e + 4, &pid, 4);			/* trace_entry's pid */
	memcpy(e + 16, &sector, 8);
	memcpy(e + 24, &bytes, 4);
	memcpy(e + 28, &pid, 4);
	memcpy(e + 32, &action, 8);
	memcpy(e + 40, &device, 4);
	pb_event(b, delta, e, sizeof(e), 0);
}

/* A version-8 file's records: how many, and the nth's action. */
static size_t v8_records(const struct bytes *f, size_t nth,
			 uint64_t *action, uint32_t *bytes)
{
	size_t at = 0, n = 0;

	while (at + 64 <= f->len) {
		uint32_t magic;
		uint16_t pdu_len;

		memcpy(&magic, f->p + at, 4);
		memcpy(&pdu_len, f->p + at + 50, 2);
		if (magic != (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION8))
			return 0;
		if (n == nth) {
			memcpy(action, f->p + at + 32, 8);
			memcpy(bytes, f->p + at + 24, 4);
		}
		n++;
		at += 64 + pdu_len;
	}
	return at == f->len ? n : 0;
}

/* A zone reset's issue and completion of a 256 MiB zone, as a kernel
 * with zoned-device blktrace's blk tracer writes them: the files are
 * version 8 (from the timestamp note, which waited for the first
 * entry), the zone category in the action's upper half kept. */
static void test_version_2_entries_make_version_8_files(void)
{
	struct timespec wall = { .tv_sec = 1795000000, .tv_nsec = 1 };
	uint64_t reset = (uint64_t)BLK_TC2_ZONE_RESET << 32 |
			 BLK_TC_ACT(BLK_TC_WRITE);
	struct ftrace_conv_stats st = { 0 };
	struct iow_error err = { "" };
	struct ftrace_conv *c;
	struct pagebuild b;
	uint64_t action = 0;
	uint32_t bytes = 0;
	struct bytes f0;

	c = open_conv("zoned", 1, name_every_pid);
	if (!c)
		return;
	CHECK_EQ_INT(ftrace_conv_timestamp(c, 0x800010, 42, &wall, &err), 0);
	pb_init(&b, 1000000);
	pb_blk2(&b, 10, 77, 524288, 256u << 20, reset | BLK_TA_ISSUE |
		BLK_TC_ACT(BLK_TC_ISSUE));
	pb_blk2(&b, 1000, 77, 524288, 256u << 20, reset | BLK_TA_COMPLETE |
		BLK_TC_ACT(BLK_TC_COMPLETE));
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_conv_page(c, 0, b.page, sizeof(b.page), &err), 0);
	CHECK_EQ_INT(ftrace_conv_close(c, &st, &err), 0);
	CHECK(st.version8);
	CHECK_EQ_INT(st.events, 2);
	f0 = cpu_file("zoned", 0);
	/* the timestamp, the process note, D, C, the end mark */
	CHECK_EQ_INT(v8_records(&f0, 0, &action, &bytes), 5);
	CHECK_EQ_INT(action, BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_TIMESTAMP);
	v8_records(&f0, 3, &action, &bytes);
	CHECK_EQ_INT(action, reset | BLK_TA_COMPLETE |
		     BLK_TC_ACT(BLK_TC_COMPLETE));
	CHECK_EQ_INT(bytes, 256u << 20);
	free(f0.p);
}

static void test_unwritable_directory_is_one_line(void)
{
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };

	CHECK(ftrace_conv_open("/nonexistent", "x", 2, &l, BLK,
			       name_every_pid, NULL, &err) == NULL);
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
	RUN_TEST(test_real_pages_split_into_cpu_files_with_sequences);
	RUN_TEST(test_times_are_the_kernels_across_time_extends);
	RUN_TEST(test_process_note_comes_at_its_pids_first_event);
	RUN_TEST(test_missed_events_page_becomes_a_loss_note_at_its_time);
	RUN_TEST(test_loss_note_goes_to_every_traced_device);
	RUN_TEST(test_missed_events_without_a_count_are_an_unknown_loss);
	RUN_TEST(test_other_events_are_stepped_over);
	RUN_TEST(test_cgroup_id_becomes_a_plain_record_and_its_cause);
	RUN_TEST(test_record_without_the_flag_has_no_cgroup);
	RUN_TEST(test_cgroup_flag_without_room_for_the_id_drops_it);
	RUN_TEST(test_cgroup_flag_is_taken_off_without_causes);
	RUN_TEST(test_bad_page_is_one_line_naming_its_cpu);
	RUN_TEST(test_every_configured_cpu_gets_a_file);
	RUN_TEST(test_higher_cpu_opens_the_files_below_it);
	RUN_TEST(test_unknown_pid_gets_no_note);
	RUN_TEST(test_timestamp_note_carries_the_wall_clock);
	RUN_TEST(test_version_2_entries_make_version_8_files);
	RUN_TEST(test_unwritable_directory_is_one_line);
	RUN_TEST(test_comm_lookup_names_the_idle_task_and_ourselves);
	rc = check_report();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		rc = 1;
	return rc;
}
