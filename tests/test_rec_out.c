/*
 * test_rec_out.c: a CPU's file stays in time order with its loss notes:
 * a note whose window began before a record the file already holds (a
 * record reserved before an interrupt's failed reservation, timed after
 * it) goes at that record's time, its text keeping the window; a note
 * of a later window goes at its start; the loss is counted once. Every
 * file ends with the end mark, at the newest time of any.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "reader/lossnote.h"
#include "record/rec_out.h"

/* The records of a file: times, and whether each is a note. */
static size_t read_times(const char *path, uint64_t *times, int *note,
			 size_t max)
{
	unsigned char buf[4096];
	FILE *f = fopen(path, "rb");
	size_t len, pos = 0, n = 0;

	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (pos + sizeof(struct blk_io_trace) <= len && n < max) {
		struct blk_io_trace t;

		memcpy(&t, buf + pos, sizeof(t));
		times[n] = t.time;
		note[n++] = blk_is_note(t.action);
		pos += sizeof(t) + t.pdu_len;
	}
	return n;
}

static void put_io(struct rec_out *o, uint64_t time, struct iow_error *err)
{
	struct blk_io_trace t;

	memset(&t, 0, sizeof(t));
	t.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7;
	t.time = time;
	t.action = BLK_TA_QUEUE;
	t.device = 7 << 20;
	t.bytes = 4096;
	CHECK_EQ_INT(rec_out_put(o, &t, NULL, err), 0);
}

static void test_notes_keep_the_file_in_time_order(void)
{
	char dir[] = "/tmp/test_rec_out.XXXXXX", path[64];
	struct iow_error err = { "" };
	uint32_t dev = 7 << 20;
	struct lossnote early = { 5, 1, 0, 150, 400 };	/* began at 150 */
	struct lossnote later = { 2, 1, 0, 900, 950 };
	struct rec_out_stats st;
	struct rec_out *o;
	uint64_t times[8];
	int note[8];
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	o = rec_out_open(dir, "t", 1, &err);
	CHECK(o != NULL);
	if (!o)
		return;
	put_io(o, 100, &err);
	put_io(o, 200, &err);	/* reserved before the failure at 150 */
	CHECK_EQ_INT(rec_out_loss(o, &early, &dev, 1, &err), 0);
	put_io(o, 500, &err);
	CHECK_EQ_INT(rec_out_loss(o, &later, &dev, 1, &err), 0);
	rec_out_stats(o, &st);
	CHECK_EQ_INT(rec_out_close(o, &err), 0);
	CHECK_EQ_INT(st.lost, 7);
	CHECK_EQ_INT(st.loss_windows, 2);
	snprintf(path, sizeof(path), "%s/t.blktrace.0", dir);
	n = read_times(path, times, note, 8);
	CHECK_EQ_INT(n, 5);
	CHECK(n == 5 && note[2] && times[2] == 200);	/* at the record */
	CHECK(n == 5 && note[4] && times[4] == 900);	/* at its start */
	CHECK(n == 5 && times[0] <= times[1] && times[1] <= times[2] &&
	      times[2] <= times[3] && times[3] <= times[4]);
	unlink(path);
	rmdir(dir);
}

static void test_every_file_ends_with_the_end_mark(void)
{
	char dir[] = "/tmp/test_rec_out.XXXXXX", path[64];
	struct iow_error err = { "" };
	struct blk_io_trace t;
	unsigned char buf[512];
	struct rec_out *o;
	size_t len;
	FILE *f;
	int cpu;

	CHECK(mkdtemp(dir) != NULL);
	o = rec_out_open(dir, "m", 2, &err);
	CHECK(o != NULL);
	if (!o)
		return;
	put_io(o, 100, &err);	/* cpu 0; cpu 1 has nothing */
	put_io(o, 300, &err);
	CHECK_EQ_INT(rec_out_end(o, 7 << 20, &err), 0);
	CHECK_EQ_INT(rec_out_close(o, &err), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/m.blktrace.%d", dir, cpu);
		f = fopen(path, "rb");
		CHECK(f != NULL);
		len = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		CHECK(len >= sizeof(t));
		if (len < sizeof(t))
			continue;
		/* the last record: cpu 1's only one */
		memcpy(&t, buf + (cpu ? 0 : 2 * sizeof(t)), sizeof(t));
		CHECK(lossnote_is_end_mark(t.action,
					   buf + (cpu ? 0 : 2 * sizeof(t)) +
					   sizeof(t), t.pdu_len));
		CHECK_EQ_INT(t.time, 300);
		CHECK_EQ_INT(t.cpu, cpu);
		CHECK_EQ_INT(len, (cpu ? 0 : 2 * sizeof(t)) + sizeof(t) +
				  t.pdu_len);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	RUN_TEST(test_notes_keep_the_file_in_time_order);
	RUN_TEST(test_every_file_ends_with_the_end_mark);
	return check_report();
}
