/*
 * test_causefile.c: the causes kept beside a trace, written and read
 * back: records matched to their QUEUE events CPU by CPU (also past
 * records whose QUEUE was lost), the dictionary's names with their
 * escapes, what the recorder says it never saw, the other byte order, damaged files refused in one line, and
 * the live view's reader told what a writer writes as it writes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/causefile.h"
#include "check.h"

static char dir[] = "/tmp/test_causefile.XXXXXX";

static struct cause_rec rec(uint32_t dev, uint32_t seq, uint32_t pid,
			    uint64_t ino)
{
	struct cause_rec r;

	memset(&r, 0, sizeof(r));
	r.device = dev;
	r.sequence = seq;
	r.pid = r.tgid = pid;
	r.ino = ino;
	r.ino_dev = 7;
	r.kstack = r.ustack = -1;
	return r;
}

static struct io_event queue_ev(uint32_t cpu, uint32_t dev, uint32_t seq)
{
	struct io_event e;

	memset(&e, 0, sizeof(e));
	e.cpu = cpu;
	e.device = dev;
	e.sequence = seq;
	return e;
}

static void write_set(const char *name)
{
	struct iow_error err;
	struct cause_writer *w = cause_writer_open(dir, name, &err);
	const char *frames[] = { "entry_SYSCALL_64", "ksys_write",
				 "submit_bio" };
	struct cause_rec r;

	CHECK(w != NULL);
	if (!w)
		return;
	r = rec(1, 10, 100, 12);
	CHECK(cause_write(w, 0, &r, &err) == 0);
	r = rec(1, 11, 100, 12);
	CHECK(cause_write(w, 0, &r, &err) == 0);
	r = rec(2, 3, 200, 0);	/* another device on cpu 0 */
	CHECK(cause_write(w, 0, &r, &err) == 0);
	r = rec(1, 5, 300, 13);
	r.flags = CAUSE_WRITEBACK;
	r.owner_pid = r.owner_tgid = 400;
	r.kstack = 7;
	CHECK(cause_write(w, 1, &r, &err) == 0);
	CHECK(cause_write_task(w, 100, 100, "dd", &err) == 0);
	CHECK(cause_write_task(w, 400, 400, "a\ttab\nand\\", &err) == 0);
	CHECK(cause_write_cgroup(w, 99, "/system.slice/x.service", &err) == 0);
	CHECK(cause_write_file(w, 7, 12, 0, FILE_KIND_FILE, "/mnt/a", &err) == 0);
	CHECK(cause_write_file(w, 7, 1, 0, FILE_KIND_JOURNAL, "[journal]", &err) == 0);
	CHECK(cause_write_stack(w, 0, 7, frames, 3, &err) == 0);
	CHECK(cause_write_note(w, "user stacks need frame pointers", &err) == 0);
	CHECK(cause_write_unrecorded(w, CAUSE_PART_STACKS, "not\there", &err) == 0);
	CHECK(cause_writer_close(w, &err) == 0);
}

static void test_records_match_their_queue_events(void)
{
	char base[128];
	struct iow_error err = { "" };
	struct cause_reader *r;
	const struct cause_rec *c;
	struct io_event e;

	write_set("t");
	snprintf(base, sizeof(base), "%s/t", dir);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	/* the QUEUE of seq 10 was lost: its cause is passed over */
	e = queue_ev(0, 1, 11);
	c = cause_reader_match(r, &e);
	CHECK(c && c->pid == 100 && c->ino == 12);
	e = queue_ev(1, 1, 5);
	c = cause_reader_match(r, &e);
	CHECK(c && c->flags == CAUSE_WRITEBACK && c->owner_pid == 400 &&
	      c->kstack == 7);
	/* a QUEUE with no cause kept */
	e = queue_ev(1, 1, 6);
	CHECK(cause_reader_match(r, &e) == NULL);
	e = queue_ev(0, 2, 3);
	c = cause_reader_match(r, &e);
	CHECK(c && c->pid == 200);
	e = queue_ev(5, 1, 1);	/* a CPU with no file */
	CHECK(cause_reader_match(r, &e) == NULL);
	CHECK(cause_reader_warning(r) &&
	      strstr(cause_reader_warning(r), "1 causes matched no QUEUE"));
	CHECK(!strcmp(cause_task_name(r, 100), "dd"));
	CHECK(!strcmp(cause_task_name(r, 400), "a\ttab\nand\\"));
	CHECK(cause_task_name(r, 101) == NULL);
	CHECK(!strcmp(cause_cgroup_path(r, 99), "/system.slice/x.service"));
	{
		enum cause_file_kind k = FILE_KIND_DEVICE;

		CHECK(!strcmp(cause_file_path(r, 7, 12, 0, &k), "/mnt/a") &&
		      k == FILE_KIND_FILE);
		CHECK(!strcmp(cause_file_path(r, 7, 1, 0, &k), "[journal]") &&
		      k == FILE_KIND_JOURNAL);
		CHECK(cause_file_path(r, 8, 12, 0, &k) == NULL);
	}
	CHECK(!strcmp(cause_stack(r, 0, 7),
		      "entry_SYSCALL_64;ksys_write;submit_bio"));
	CHECK(cause_stack(r, 1, 7) == NULL);
	CHECK(!strcmp(cause_notes(r), "user stacks need frame pointers"));
	/* what the recorder never saw: said apart from the notes */
	CHECK(cause_unrecorded(r, CAUSE_PART_STACKS) &&
	      !strcmp(cause_unrecorded(r, CAUSE_PART_STACKS), "not\there"));
	CHECK(cause_unrecorded(r, CAUSE_PART_FILES) == NULL);
	cause_reader_close(r);
}

/* The live view's reader: told what a writer writes, as it writes it. */
static void test_a_live_reader_mirrors_the_writer(void)
{
	struct iow_error err = { "" };
	struct cause_reader *r = cause_reader_live();
	struct cause_writer *w = cause_writer_open(dir, "live", &err);
	const char *frames[] = { "wb_workfn", "submit_bio" };
	const struct cause_rec *c;
	struct cause_rec x;
	struct io_event e;
	unsigned i;

	CHECK(r && w && !cause_reader_kept(r));
	if (!r || !w)
		return;
	cause_writer_mirror(w, r);
	/* more than the queue holds at first, on two CPUs */
	for (i = 0; i < 600; i++) {
		x = rec(1, i, 100 + i, i % 7);
		CHECK(cause_write(w, i % 2, &x, &err) == 0);
	}
	CHECK(cause_reader_kept(r));
	CHECK(cause_write_stack(w, 0, 3, frames, 2, &err) == 0);
	CHECK(cause_write_task(w, 105, 105, "dd\tx", &err) == 0);
	CHECK(cause_write_cgroup(w, 9, "/a.slice", &err) == 0);
	e = queue_ev(1, 1, 5);
	c = cause_reader_match(r, &e);
	CHECK(c && c->pid == 105 && c->ino == 5);
	e = queue_ev(0, 1, 0);
	c = cause_reader_match(r, &e);
	CHECK(c && c->pid == 100);
	/* taken as pushed: one pushed later is matched too */
	e = queue_ev(0, 1, 598);
	c = cause_reader_match(r, &e);
	CHECK(c && c->pid == 698);
	e = queue_ev(0, 1, 600);
	CHECK(cause_reader_match(r, &e) == NULL);
	x = rec(1, 600, 7, 0);
	CHECK(cause_write(w, 0, &x, &err) == 0);
	c = cause_reader_match(r, &e);
	CHECK(c && c->pid == 7);
	CHECK(!strcmp(cause_stack(r, 0, 3), "wb_workfn;submit_bio"));
	CHECK(!strcmp(cause_task_name(r, 105), "dd\tx"));
	CHECK(!strcmp(cause_cgroup_path(r, 9), "/a.slice"));
	CHECK(cause_writer_close(w, &err) == 0);
	cause_reader_close(r);
}

static void test_no_causes_is_no_error(void)
{
	char base[128];
	struct iow_error err = { "" };

	snprintf(base, sizeof(base), "%s/none", dir);
	CHECK(cause_reader_open(base, &err) == NULL);
	CHECK(err.msg[0] == '\0');
}

/* A file written on a machine of the other byte order reads the same;
 * its records of 64 bytes, as before the inode's generation. */
static void test_other_byte_order(void)
{
	char base[128], path[160];
	struct iow_error err = { "" };
	struct cause_reader *r;
	const struct cause_rec *c;
	struct io_event e = queue_ev(0, 0x00700001, 42);
	unsigned char buf[16 + 64];
	uint32_t v;
	FILE *f;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, CAUSE_FILE_MAGIC, 8);
	v = __builtin_bswap32(CAUSE_REC_SIZE_64);	/* before ino_gen */
	memcpy(buf + 8, &v, 4);
	v = __builtin_bswap32(0x01020304u);
	memcpy(buf + 12, &v, 4);
	v = __builtin_bswap32(42);
	memcpy(buf + 16, &v, 4);		/* sequence */
	v = __builtin_bswap32(0x00700001);
	memcpy(buf + 20, &v, 4);		/* device */
	v = __builtin_bswap32(1234);
	memcpy(buf + 24, &v, 4);		/* pid */
	snprintf(base, sizeof(base), "%s/be", dir);
	snprintf(path, sizeof(path), "%s.cause.0", base);
	f = fopen(path, "w");
	fwrite(buf, sizeof(buf), 1, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s.cause", base);
	f = fopen(path, "w");
	fputs("iowatcher causes 1\n", f);
	fclose(f);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	c = r ? cause_reader_match(r, &e) : NULL;
	CHECK(c && c->pid == 1234);
	cause_reader_close(r);
}

static void test_damaged_files_are_one_error(void)
{
	char base[128], path[160];
	struct iow_error err = { "" };
	FILE *f;

	snprintf(base, sizeof(base), "%s/bad", dir);
	snprintf(path, sizeof(path), "%s.cause.0", base);
	f = fopen(path, "w");
	fputs("not a cause file at all", f);
	fclose(f);
	CHECK(cause_reader_open(base, &err) == NULL);
	CHECK(strstr(err.msg, "bad.cause.0: not a cause file") != NULL);
	/* a good record file, but its dictionary missing */
	write_set("nodict");
	snprintf(path, sizeof(path), "%s/nodict.cause", dir);
	unlink(path);
	snprintf(base, sizeof(base), "%s/nodict", dir);
	err.msg[0] = '\0';
	CHECK(cause_reader_open(base, &err) == NULL);
	CHECK(strstr(err.msg, "nodict.cause: No such file") != NULL);
}

int main(void)
{
	char cmd[160];
	int rc;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_records_match_their_queue_events);
	RUN_TEST(test_no_causes_is_no_error);
	RUN_TEST(test_other_byte_order);
	RUN_TEST(test_damaged_files_are_one_error);
	RUN_TEST(test_a_live_reader_mirrors_the_writer);
	rc = check_report();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		rc = 1;
	return rc;
}
