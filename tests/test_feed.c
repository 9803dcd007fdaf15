/* test_feed.c: the trace reader on constructed traces. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "blkparse_feed.h"
#include "check.h"
#include "reader/feed_pipe.h"
#include "reader/lossnote.h"
#include "tracebuild.h"

static char dir[64];

static char *path_in(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static const struct rec basic[] = {
	{ .t = 1000, .sector = 8, .bytes = 4096, .action = ACT(BLK_TA_QUEUE, BLK_TC_QUEUE | W), .pid = 7, .dev = DEV(8, 0), .cpu = 0 },
	{ .t = 1500, .sector = 8, .bytes = 4096, .action = ACT(BLK_TA_ISSUE, BLK_TC_ISSUE | W), .pid = 7, .dev = DEV(8, 0), .cpu = 0 },
	{ .t = 9000, .sector = 8, .bytes = 4096, .action = ACT(BLK_TA_COMPLETE, BLK_TC_COMPLETE | W), .pid = 0, .dev = DEV(8, 0), .cpu = 0 },
};

/* One event: a batch of one (1, 0 at the end, -1 on an error). */
static int next_one(struct feed *f, struct io_event *ev, struct iow_error *err)
{
	long n = feed_next_batch(f, ev, 1, SIZE_MAX, err);

	return n < 0 ? -1 : n > 0;
}

/* Read every event of the trace at arg; returns count, -1 on error. */
static long read_all(const char *arg, struct io_event *out, size_t max,
		     struct iow_error *err, char *warning)
{
	struct trace_list list = { NULL, 0 };
	struct io_event ev;
	struct feed *f;
	long n = 0;
	int r;

	if (feed_find_traces(arg, &list, err) < 0)
		return -1;
	f = feed_open(&list.items[0], err);
	if (!f) {
		trace_list_free(&list);
		return -1;
	}
	while ((r = next_one(f, &ev, err)) > 0) {
		if ((size_t)n < max)
			out[n] = ev;
		n++;
	}
	if (warning)
		snprintf(warning, IOW_ERROR_LEN, "%s",
			 feed_warning(f) ? feed_warning(f) : "");
	feed_close(f);
	trace_list_free(&list);
	return r < 0 ? -1 : n;
}

/* src's bytes gzip-compressed into dst. */
static void gzip_file(const char *src, const char *dst)
{
	FILE *in = fopen(src, "rb");
	gzFile out = gzopen(dst, "wb");
	char buf[65536];
	size_t n;

	CHECK(in && out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		CHECK(gzwrite(out, buf, (unsigned)n) == (int)n);
	fclose(in);
	gzclose(out);
}

static void check_basic(const struct io_event *ev)
{
	CHECK_EQ_INT(ev[0].time_ns, 0);
	CHECK_EQ_INT(ev[1].time_ns, 500);
	CHECK_EQ_INT(ev[2].time_ns, 8000);
	CHECK_EQ_INT(ev[1].sector, 8);
	CHECK_EQ_INT(ev[1].bytes, 4096);
	CHECK_EQ_INT(blk_action_code(ev[1].action), BLK_TA_ISSUE);
	CHECK(blk_is_write(ev[1].action));
	CHECK_EQ_INT(ev[0].pid, 7);
	CHECK_EQ_INT(ev[0].device, DEV(8, 0));
	CHECK_EQ_INT(ev[2].index, 2);
	/* the third record's fields are where each version puts them: the
	 * records' sizes (48 bytes, 64 with version 8) were right */
}

static void test_v7_records_decode(void)
{
	struct io_event ev[8];
	struct iow_error err;

	CHECK(tb_file(path_in("v7.dump"), 7, 0, basic, 3) == 0);
	CHECK_EQ_INT(read_all(path_in("v7.dump"), ev, 8, &err, NULL), 3);
	check_basic(ev);
}

static void test_v8_records_decode_with_zone_bits_set(void)
{
	struct rec r[3];
	struct io_event ev[8];
	struct iow_error err;

	memcpy(r, basic, sizeof(r));
	r[1].zone = 1 << 1;	/* ZONE_APPEND */
	CHECK(tb_file(path_in("v8.dump"), 8, 0, r, 3) == 0);
	CHECK_EQ_INT(read_all(path_in("v8.dump"), ev, 8, &err, NULL), 3);
	check_basic(ev);
	/* the zone categories (bits 32-63, read by no statistic) leave
	 * the action's code and categories as they are */
	CHECK_EQ_INT(ev[1].action, basic[1].action);
	CHECK_EQ_INT(blk_action_code(ev[1].action), BLK_TA_ISSUE);
	CHECK(blk_is_write(ev[1].action));
}

static void test_byte_swapped_traces_read_the_same(void)
{
	struct io_event ev[8];
	struct iow_error err;

	CHECK(tb_file(path_in("sw7.dump"), 7, 1, basic, 3) == 0);
	CHECK_EQ_INT(read_all(path_in("sw7.dump"), ev, 8, &err, NULL), 3);
	check_basic(ev);
	CHECK(tb_file(path_in("sw8.dump"), 8, 1, basic, 3) == 0);
	CHECK_EQ_INT(read_all(path_in("sw8.dump"), ev, 8, &err, NULL), 3);
	check_basic(ev);
}

static void test_percpu_files_merge_by_time(void)
{
	struct rec cpu0[3], cpu1[3];
	struct io_event ev[8];
	struct iow_error err;
	int i;

	for (i = 0; i < 3; i++) {
		cpu0[i] = basic[0];
		cpu0[i].t = 100 + 20 * i;	/* 100 120 140 */
		cpu0[i].sector = i;
		cpu1[i] = basic[0];
		cpu1[i].t = 110 + 20 * i;	/* 110 130 150 */
		cpu1[i].sector = 10 + i;
		cpu1[i].cpu = 1;
	}
	CHECK(tb_file(path_in("m.blktrace.0"), 7, 0, cpu0, 3) == 0);
	CHECK(tb_file(path_in("m.blktrace.1"), 7, 0, cpu1, 3) == 0);
	CHECK_EQ_INT(read_all(path_in("m"), ev, 8, &err, NULL), 6);
	for (i = 0; i < 6; i++)
		CHECK_EQ_INT(ev[i].time_ns, 10 * i);
	CHECK_EQ_INT(ev[1].cpu, 1);
	/* Naming one CPU's file reads the whole set. */
	CHECK_EQ_INT(read_all(path_in("m.blktrace.1"), ev, 8, &err, NULL), 6);
}

static void test_time_zero_is_first_event_not_a_note(void)
{
	static const char comm[] = "fio";
	struct rec r[4];
	struct io_event ev[8];
	struct iow_error err;

	r[0] = basic[0];
	r[0].t = 500;
	r[0].action = BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY);
	r[0].pdu = comm;
	r[0].pdu_len = sizeof(comm);
	memcpy(r + 1, basic, sizeof(basic));
	CHECK(tb_file(path_in("note.dump"), 7, 0, r, 4) == 0);
	CHECK_EQ_INT(read_all(path_in("note.dump"), ev, 8, &err, NULL), 4);
	CHECK_EQ_INT(ev[0].time_ns, 0);
	CHECK_EQ_INT(ev[1].time_ns, 0);
	CHECK_EQ_INT(ev[2].time_ns, 500);
	CHECK_EQ_INT(ev[0].pdu_len, sizeof(comm));
}

static void test_time_going_backwards_lands_at_zero(void)
{
	struct rec r[3];
	struct io_event ev[8];
	struct iow_error err;

	memcpy(r, basic, sizeof(r));
	r[1].t = 10;	/* before the first event's 1000 */
	CHECK(tb_file(path_in("back.dump"), 7, 0, r, 3) == 0);
	CHECK_EQ_INT(read_all(path_in("back.dump"), ev, 8, &err, NULL), 3);
	CHECK_EQ_INT(ev[1].time_ns, 0);
	CHECK_EQ_INT(ev[2].time_ns, 8000);
}

static void truncate_file(const char *path, off_t len)
{
	CHECK(truncate(path, len) == 0);
}

static void test_truncated_tail_keeps_earlier_events(void)
{
	struct io_event ev[8];
	struct iow_error err;
	char warning[IOW_ERROR_LEN];

	CHECK(tb_file(path_in("trunc.dump"), 7, 0, basic, 3) == 0);
	truncate_file(path_in("trunc.dump"), 48 * 2 + 20);
	CHECK_EQ_INT(read_all(path_in("trunc.dump"), ev, 8, &err, warning), 2);
	CHECK(strstr(warning, "truncated") != NULL);
	CHECK(strstr(warning, "byte 96") != NULL);
}

/*
 * A set of two CPUs' files: cpu 0 queues every 1 ms from 1 to 10 ms,
 * cpu 1 every 1 ms from 1.5 to 99.5 ms (the set's end).
 */
static void write_two_cpus(const char *base)
{
	struct rec cpu0[10], cpu1[99];
	char path[300];
	int i;

	for (i = 0; i < 10; i++) {
		cpu0[i] = basic[0];
		cpu0[i].t = 1000000 + 1000000ull * i;
		cpu0[i].sector = 8 * i;
	}
	for (i = 0; i < 99; i++) {
		cpu1[i] = basic[0];
		cpu1[i].t = 1500000 + 1000000ull * i;
		cpu1[i].sector = 1000 + 8 * i;
		cpu1[i].cpu = 1;
	}
	snprintf(path, sizeof(path), "%s.blktrace.0", base);
	CHECK(tb_file(path, 7, 0, cpu0, 10) == 0);
	snprintf(path, sizeof(path), "%s.blktrace.1", base);
	CHECK(tb_file(path, 7, 0, cpu1, 99) == 0);
}

/*
 * The events of the set at base into ev, the index of its loss note
 * (-1: none) and the note; the reader's warning. Returns the count.
 */
static long read_with_note(const char *base, struct io_event *ev, size_t max,
			   char *warning, long *note_at, struct lossnote *n)
{
	struct trace_list list = { NULL, 0 };
	struct iow_error err;
	struct io_event e;
	struct feed *f;
	long count = 0;
	int r;

	*note_at = -1;
	CHECK(feed_find_traces(base, &list, &err) == 0);
	f = feed_open(&list.items[0], &err);
	CHECK(f != NULL);
	if (!f)
		return -1;
	while ((r = next_one(f, &e, &err)) > 0) {
		/* its text lives until the next batch */
		if (lossnote_parse(e.action, e.pdu, e.pdu_len, n) ==
		    LOSSNOTE_FILE_END) {
			CHECK(*note_at < 0);
			*note_at = count;
		}
		if ((size_t)count < max)
			ev[count] = e;
		count++;
	}
	CHECK_EQ_INT(r, 0);
	snprintf(warning, IOW_ERROR_LEN, "%s",
		 feed_warning(f) ? feed_warning(f) : "");
	feed_close(f);
	trace_list_free(&list);
	return count;
}

static void test_cpu_file_cut_in_a_record_is_a_located_loss(void)
{
	struct io_event ev[128];
	struct lossnote n;
	char warning[IOW_ERROR_LEN];
	long note_at, count;

	write_two_cpus(path_in("cut"));
	/* inside cpu 0's sixth record: its first five are whole */
	truncate_file(path_in("cut.blktrace.0"), 48 * 5 + 20);
	count = read_with_note(path_in("cut"), ev, 128, warning, &note_at, &n);
	CHECK_EQ_INT(count, 5 + 99 + 1);
	/* after cpu 0's fifth record (5 ms), before cpu 1's at 5.5 ms */
	CHECK_EQ_INT(note_at, 9);
	CHECK_EQ_INT(ev[note_at].time_ns, 4000000);
	CHECK_EQ_INT(ev[note_at].cpu, 0);
	CHECK_EQ_INT(ev[note_at + 1].time_ns, 4500000);
	CHECK(n.cpu == 0 && n.t0_ns == 5000000 && n.t1_ns == 99500000);
	/* the cut says it: no "truncated last record" besides */
	CHECK_EQ_INT(warning[0], '\0');
}

static void test_cpu_file_cut_in_a_payload_is_a_loss_too(void)
{
	static const char comm[] = "abcdefgh";
	struct io_event ev[128];
	struct lossnote n;
	char warning[IOW_ERROR_LEN];
	long note_at;
	struct rec r[3];
	int i;

	write_two_cpus(path_in("pdu"));
	for (i = 0; i < 3; i++) {
		r[i] = basic[0];
		r[i].t = 1000000 + 1000000ull * i;
		r[i].action = BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY);
		r[i].pdu = comm;
		r[i].pdu_len = sizeof(comm);
	}
	r[0].action = basic[0].action;
	r[0].pdu_len = 0;
	CHECK(tb_file(path_in("pdu.blktrace.0"), 7, 0, r, 3) == 0);
	truncate_file(path_in("pdu.blktrace.0"), 48 + 48 + 9 + 48 + 4);
	CHECK_EQ_INT(read_with_note(path_in("pdu"), ev, 128, warning,
				    &note_at, &n), 2 + 99 + 1);
	CHECK(note_at >= 0 && n.t0_ns == 2000000);
}

static void test_cpu_file_ending_with_the_others_is_no_loss(void)
{
	struct io_event ev[128];
	struct lossnote n;
	char warning[IOW_ERROR_LEN];
	long note_at;
	struct rec cpu0[99];
	int i;

	/* cpu 0 goes on to 99 ms: its last record cut is the trace's end */
	write_two_cpus(path_in("end"));
	for (i = 0; i < 99; i++) {
		cpu0[i] = basic[0];
		cpu0[i].t = 1000000 + 1000000ull * i;
	}
	CHECK(tb_file(path_in("end.blktrace.0"), 7, 0, cpu0, 99) == 0);
	truncate_file(path_in("end.blktrace.0"), 48 * 98 + 20);
	CHECK_EQ_INT(read_with_note(path_in("end"), ev, 128, warning,
				    &note_at, &n), 98 + 99);
	CHECK_EQ_INT(note_at, -1);
	CHECK(strstr(warning, "truncated last record") != NULL);
}

static void test_cpu_file_ending_at_a_record_end_is_whole(void)
{
	struct io_event ev[128];
	struct lossnote n;
	char warning[IOW_ERROR_LEN];
	long note_at;

	/* a CPU with nothing more to record: nothing says it was cut */
	write_two_cpus(path_in("whole"));
	CHECK_EQ_INT(read_with_note(path_in("whole"), ev, 128, warning,
				    &note_at, &n), 10 + 99);
	CHECK_EQ_INT(note_at, -1);
}

/* The recorders' end mark appended to path, at time t. */
static void append_end_mark(const char *path, unsigned cpu, uint64_t t)
{
	char text[LOSSNOTE_TEXT_MAX];
	struct rec r = { .t = t, .action = LOSSNOTE_ACTION, .cpu = cpu,
			 .dev = DEV(8, 0), .pdu = text };
	FILE *f = fopen(path, "ab");

	r.pdu_len = lossnote_format_end_mark(cpu, t, text);
	CHECK(f != NULL);
	if (!f)
		return;
	tb_write(f, 7, 0, 0, &r);
	fclose(f);
}

static void test_marked_set_file_cut_at_a_record_end_is_a_loss(void)
{
	struct io_event ev[128];
	struct lossnote n;
	char warning[IOW_ERROR_LEN];
	long note_at;

	/* cpu 1's file marked whole at 99.5 ms; cpu 0's mark cut off */
	write_two_cpus(path_in("mark"));
	append_end_mark(path_in("mark.blktrace.0"), 0, 99500000);
	append_end_mark(path_in("mark.blktrace.1"), 1, 99500000);
	truncate_file(path_in("mark.blktrace.0"), 48 * 5);
	CHECK_EQ_INT(read_with_note(path_in("mark"), ev, 128, warning,
				    &note_at, &n), 5 + 99 + 1 + 1);
	CHECK_EQ_INT(note_at, 9);
	CHECK(n.cpu == 0 && n.t0_ns == 5000000 && n.t1_ns == 99500000);
	/* marked whole, the same set is no loss */
	write_two_cpus(path_in("mark"));
	append_end_mark(path_in("mark.blktrace.0"), 0, 99500000);
	append_end_mark(path_in("mark.blktrace.1"), 1, 99500000);
	CHECK_EQ_INT(read_with_note(path_in("mark"), ev, 128, warning,
				    &note_at, &n), 10 + 99 + 2);
	CHECK_EQ_INT(note_at, -1);
}

static void test_compressed_cpu_file_cut_short_is_a_loss_not_an_error(void)
{
	struct io_event ev[128];
	struct lossnote n;
	char warning[IOW_ERROR_LEN];
	long note_at, count;
	struct stat st;

	write_two_cpus(path_in("gzcut"));
	gzip_file(path_in("gzcut.blktrace.0"), path_in("gzcut.blktrace.0.gz"));
	CHECK(unlink(path_in("gzcut.blktrace.0")) == 0);
	CHECK(stat(path_in("gzcut.blktrace.0.gz"), &st) == 0);
	/* no gzip trailer: the data is cut short */
	truncate_file(path_in("gzcut.blktrace.0.gz"), st.st_size - 8);
	count = read_with_note(path_in("gzcut"), ev, 128, warning, &note_at,
			       &n);
	CHECK(count > 99 && count <= 10 + 99 + 1);
	CHECK(note_at >= 0 && n.cpu == 0 && n.t1_ns == 99500000);
}

static void test_payload_past_end_is_error_with_offset(void)
{
	static const char comm[] = "abcdefgh";
	struct rec r[2];
	struct io_event ev[8];
	struct iow_error err;

	r[0] = basic[0];
	r[1] = basic[1];
	r[1].action = BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY);
	r[1].pdu = comm;
	r[1].pdu_len = sizeof(comm);
	CHECK(tb_file(path_in("pdu.dump"), 7, 0, r, 2) == 0);
	truncate_file(path_in("pdu.dump"), 48 + 48 + 4);
	CHECK_EQ_INT(read_all(path_in("pdu.dump"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "pdu.dump") != NULL);
	CHECK(strstr(err.msg, "byte 48") != NULL);
	CHECK(strstr(err.msg, "payload") != NULL);
}

static void test_bad_magic_is_error_naming_file(void)
{
	struct io_event ev[8];
	struct iow_error err;
	FILE *f = fopen(path_in("text.dump"), "w");

	fputs("this is not a trace at all, just some text\n", f);
	fclose(f);
	CHECK_EQ_INT(read_all(path_in("text.dump"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "text.dump: text, not a blktrace trace (give blktrace's NAME.blktrace.N files or a blkparse -d dump)") !=
	      NULL);
}

/* What a file that is not a trace looks like, where that is cheap to
 * tell: said with what to give instead; unknown bytes keep the magic. */
static void test_not_a_trace_says_what_it_looks_like(void)
{
	static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
	static const char blkparse[] =
		"  8,0    1        1     0.000000000  1234  Q   W 123 + 8 [dd]\n";
	unsigned char noise[64];
	struct io_event ev[8];
	struct iow_error err;
	FILE *f;
	size_t i;

	f = fopen(path_in("out.png"), "wb");
	fwrite(png, 1, sizeof(png) - 1, f);
	fclose(f);
	CHECK_EQ_INT(read_all(path_in("out.png"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "out.png: a PNG image, not a blktrace trace (give blktrace's NAME.blktrace.N files or a blkparse -d dump)") != NULL);
	f = fopen(path_in("sda.txt"), "w");
	fputs(blkparse, f);
	fclose(f);
	gzip_file(path_in("sda.txt"), path_in("sda.txt.gz"));
	CHECK_EQ_INT(read_all(path_in("sda.txt.gz"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "sda.txt.gz: blkparse's text output, compressed with gzip, not a blktrace trace (give blktrace's files NAME.blktrace.N, or a dump made with blkparse -i NAME -d NAME.dump)") != NULL);
	for (i = 0; i < sizeof(noise); i++)
		noise[i] = (unsigned char)(i * 131 + 7);
	f = fopen(path_in("noise"), "wb");
	fwrite(noise, 1, sizeof(noise), f);
	fclose(f);
	CHECK_EQ_INT(read_all(path_in("noise"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "noise: byte 0: not a blktrace record (magic 0x") != NULL);
}

/* blkparse's text in the middle of a dump (blkparse -d - without -o
 * writes both to its standard output) says so. */
static void test_blkparse_text_inside_a_dump_says_so(void)
{
	struct io_event ev[8];
	struct iow_error err;
	FILE *f = fopen(path_in("mixed.dump"), "wb");

	tb_write(f, 7, 0, 0, &basic[0]);
	fputs("  8,0    1        1     0.000000000  1234  Q   W 8 + 8 [dd]\n", f);
	fclose(f);
	CHECK_EQ_INT(read_all(path_in("mixed.dump"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "mixed.dump: byte 48: blkparse's text output inside the trace (") != NULL);
	CHECK(strstr(err.msg, "-o /dev/null") != NULL);
}

/*
 * A dump as blkparse -d - writes it: an "Input file ... added" line for
 * each per-CPU file it opens, between the notes it copies meanwhile.
 * where: the lines go before records where[0] and where[1].
 */
static void write_lined_dump(const char *path, const char *kind,
			     const int *where)
{
	static const char comm[] = "fio";
	FILE *f = fopen(path, kind);
	struct rec r[5];
	int i, k = 0;

	r[0] = basic[0];
	r[0].action = BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY);
	r[0].pdu = comm;
	r[0].pdu_len = sizeof(comm);
	r[1] = r[0];
	r[1].cpu = 1;
	memcpy(r + 2, basic, sizeof(basic));
	for (i = 0; i < 5; i++) {
		if (k < 2 && where[k] == i)
			fprintf(f, "Input file dir/sda.blktrace.%d added\n", k++);
		tb_write(f, 7, 0, (uint32_t)i, &r[i]);
	}
	fclose(f);
}

static void test_blkparse_input_lines_before_events_are_skipped(void)
{
	static const int at_notes[] = { 0, 1 }, both_first[] = { 0, 0 };
	struct io_event ev[8];
	struct iow_error err;

	write_lined_dump(path_in("lines.dump"), "wb", at_notes);
	CHECK_EQ_INT(read_all(path_in("lines.dump"), ev, 8, &err, NULL), 5);
	CHECK_EQ_INT(ev[1].cpu, 1);
	CHECK_EQ_INT(ev[3].time_ns, 500);
	CHECK_EQ_INT(ev[4].time_ns, 8000);
	write_lined_dump(path_in("lines2.dump"), "wb", both_first);
	CHECK_EQ_INT(read_all(path_in("lines2.dump"), ev, 8, &err, NULL), 5);
	CHECK_EQ_INT(ev[4].time_ns, 8000);
}

static void test_blkparse_input_line_after_an_event_is_an_error(void)
{
	static const int late[] = { 0, 3 };
	struct io_event ev[8];
	struct iow_error err;

	/* after the first event (the records' third): the first line's
	 * 36 bytes, 2 notes of 52 and the event's 48 */
	write_lined_dump(path_in("late.dump"), "wb", late);
	CHECK_EQ_INT(read_all(path_in("late.dump"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "late.dump: byte 188: bad record magic") != NULL);
}

static void test_blkparse_input_line_in_a_cpu_file_is_an_error(void)
{
	static const int first[] = { 0, 9 };
	struct io_event ev[8];
	struct iow_error err;

	/* blktrace writes per-CPU files, not blkparse */
	write_lined_dump(path_in("lined.blktrace.0"), "wb", first);
	CHECK_EQ_INT(read_all(path_in("lined"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "lined.blktrace.0: byte 0:") != NULL);
}

static void test_blkparse_input_line_cut_short_is_an_error(void)
{
	static const char *const bad[] = {
		"Input file sda.blktrace.0 added",	/* no newline */
		"Input file sda.blktrace.0 adde\n",
		"Input file  added\n",			/* no name */
		"Input files sda.blktrace.0 added\n",
		"Input",
	};
	struct io_event ev[8];
	struct iow_error err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path_in("cut.dump"), "wb");

		fputs(bad[i], f);
		if (i < 4)
			tb_write(f, 7, 0, 0, &basic[0]);
		fclose(f);
		CHECK_EQ_INT(read_all(path_in("cut.dump"), ev, 8, &err, NULL),
			     -1);
		CHECK(strstr(err.msg, "cut.dump") != NULL);
	}
}

static void test_corrupt_record_in_middle_is_error(void)
{
	struct io_event ev[8];
	struct iow_error err;
	FILE *f;

	CHECK(tb_file(path_in("corrupt.dump"), 7, 0, basic, 3) == 0);
	f = fopen(path_in("corrupt.dump"), "r+b");
	fseek(f, 96, SEEK_SET);
	fputc(0x13, f);
	fclose(f);
	CHECK_EQ_INT(read_all(path_in("corrupt.dump"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "byte 96") != NULL);
}

static void test_unknown_version_is_error(void)
{
	struct io_event ev[8];
	struct iow_error err;
	FILE *f = fopen(path_in("v9.dump"), "wb");
	uint32_t magic = BLK_IO_TRACE_MAGIC | 9;
	char zero[60] = { 0 };

	fwrite(&magic, 4, 1, f);
	fwrite(zero, 1, sizeof(zero), f);
	fclose(f);
	CHECK_EQ_INT(read_all(path_in("v9.dump"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "unknown record version 9") != NULL);
}

static void test_empty_trace_is_error(void)
{
	struct io_event ev[8];
	struct iow_error err;
	FILE *f = fopen(path_in("empty.dump"), "wb");

	fclose(f);
	CHECK_EQ_INT(read_all(path_in("empty.dump"), ev, 8, &err, NULL), -1);
	CHECK(strstr(err.msg, "empty trace") != NULL);
}

static void test_missing_path_is_error(void)
{
	struct trace_list list = { NULL, 0 };
	struct iow_error err;

	CHECK(feed_find_traces(path_in("nothing-here"), &list, &err) < 0);
	CHECK(strstr(err.msg, "no such file") != NULL);
	trace_list_free(&list);
}

static void test_directory_finds_sets_and_dumps(void)
{
	struct trace_list list = { NULL, 0 };
	struct iow_error err;
	char sub[300];
	FILE *f;

	snprintf(sub, sizeof(sub), "%s/dir", dir);
	mkdir(sub, 0755);
	CHECK(tb_file(path_in("dir/a.blktrace.0"), 7, 0, basic, 3) == 0);
	CHECK(tb_file(path_in("dir/a.blktrace.1"), 7, 0, basic, 3) == 0);
	CHECK(tb_file(path_in("dir/b.dump"), 7, 0, basic, 3) == 0);
	f = fopen(path_in("dir/README"), "w");
	fputs("notes\n", f);
	fclose(f);
	CHECK(feed_find_traces(sub, &list, &err) == 0);
	CHECK_EQ_INT(list.n, 2);
	if (list.n == 2) {
		CHECK_EQ_INT(list.items[0].kind, TRACE_PERCPU);
		CHECK_EQ_INT(list.items[0].n_paths, 2);
		CHECK(!strcmp(list.items[0].label, "a"));
		CHECK(list.items[0].input == &input_kinds[INPUT_PERCPU]);
		CHECK_EQ_INT(list.items[1].kind, TRACE_DUMP);
		CHECK(list.items[1].input == &input_kinds[INPUT_DUMP]);
	}
	trace_list_free(&list);
}

static void test_directory_without_trace_is_error(void)
{
	struct trace_list list = { NULL, 0 };
	struct iow_error err;
	char sub[300];
	FILE *f;
	int i;

	snprintf(sub, sizeof(sub), "%s/nodata", dir);
	mkdir(sub, 0755);
	CHECK(feed_find_traces(sub, &list, &err) < 0);
	CHECK(strstr(err.msg, "holds no blktrace trace (no files in it;") !=
	      NULL);
	trace_list_free(&list);
	/* what the files seemed to be, the first three, and how many more */
	for (i = 0; i < 5; i++) {
		char name[32];

		snprintf(name, sizeof(name), "nodata/%d.txt", i);
		f = fopen(path_in(name), "w");
		fputs("  8,0    1        1     0.000000000  1234  Q   W 8 + 8 [dd]\n",
		      f);
		fclose(f);
	}
	CHECK(feed_find_traces(sub, &list, &err) < 0);
	CHECK(strstr(err.msg, "holds no blktrace trace (0.txt: blkparse's text output; 1.txt: blkparse's text output; 2.txt: blkparse's text output; and 2 other files; give blktrace's files NAME.blktrace.N, or a dump made with blkparse -i NAME -d NAME.dump)") != NULL);
	trace_list_free(&list);
}

static void test_remap_payload_decodes_big_endian(void)
{
	unsigned char pdu[16];
	struct io_event ev = { 0 };
	uint32_t from, to;
	uint64_t sector;
	uint32_t be_from = __builtin_bswap32(DEV(253, 0));
	uint32_t be_to = __builtin_bswap32(DEV(8, 2));
	uint64_t be_sector = __builtin_bswap64(20481880);

	memcpy(pdu, &be_from, 4);
	memcpy(pdu + 4, &be_to, 4);
	memcpy(pdu + 8, &be_sector, 8);
	ev.pdu = pdu;
	ev.pdu_len = 16;
	ev.action = ACT(BLK_TA_REMAP, BLK_TC_QUEUE);
	CHECK(feed_decode_remap(&ev, &from, &to, &sector) == 0);
	CHECK_EQ_INT(from, DEV(253, 0));
	CHECK_EQ_INT(to, DEV(8, 2));
	CHECK_EQ_INT(sector, 20481880);
	ev.pdu_len = 8;
	CHECK(feed_decode_remap(&ev, &from, &to, &sector) < 0);
}

static void test_cgroup_id_is_skipped_in_notes(void)
{
	unsigned char pdu[8 + 4] = { 1, 2, 3, 4, 5, 6, 7, 8, 'f', 'i', 'o', 0 };
	struct io_event ev = { 0 };
	const char *text;

	ev.pdu = pdu;
	ev.pdu_len = sizeof(pdu);
	ev.action = BLK_TN_PROCESS | BLK_TA_CGROUP |
		    BLK_TC_ACT(BLK_TC_NOTIFY);
	CHECK_EQ_INT(feed_note_text(&ev, &text), 3);
	CHECK(!strncmp(text, "fio", 3));
}

/*
 * Batches hand out the very events batches of one do, in order, through
 * three per-CPU files whose buffers are filled again many times, with
 * payloads of every size up to 60,000 bytes; a batch's payloads stay
 * within its room and unchanged until the next call.
 */
static void test_batches_give_what_feed_next_gives(void)
{
	static const size_t maxes[] = { 1, 2, 7, 64, 4096 };
	static const size_t rooms[] = { 65535, 70000, 200000, SIZE_MAX };
	static unsigned char big[60000];
	struct trace_list list = { NULL, 0 };
	struct io_event one, batch[4096];
	struct iow_error err;
	size_t m, k, i;
	int cpu, j;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + 3);
	for (cpu = 0; cpu < 3; cpu++) {
		char name[64];
		FILE *out;

		snprintf(name, sizeof(name), "batch.blktrace.%d", cpu);
		out = fopen(path_in(name), "wb");
		CHECK(out != NULL);
		for (j = 0; j < 20000; j++) {
			struct rec r = basic[j % 3];

			/* times interleave, with runs on one CPU */
			r.t = 1000 + (uint64_t)j * 30 + (uint64_t)cpu *
			      (j % 50 < 25 ? 7 : 400);
			r.sector = (uint64_t)j;
			r.cpu = (uint32_t)cpu;
			if ((j + cpu) % 5 == 0) {
				r.action = BLK_TN_PROCESS |
					   BLK_TC_ACT(BLK_TC_NOTIFY);
				r.pdu = big + j % 100;
				r.pdu_len = (uint16_t)(j % 97 == 0 ?
						       50000 + j % 9000 :
						       1 + j % 300);
			}
			tb_write(out, 8, cpu == 1, (uint32_t)j, &r);
		}
		fclose(out);
	}
	CHECK(feed_find_traces(path_in("batch"), &list, &err) == 0);
	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++)
		for (k = 0; k < sizeof(rooms) / sizeof(rooms[0]); k++) {
			struct feed *f1 = feed_open(&list.items[0], &err);
			struct feed *f2 = feed_open(&list.items[0], &err);
			long n, total = 0, diff = 0, over = 0;

			CHECK(f1 && f2);
			while ((n = feed_next_batch(f2, batch, maxes[m],
						    rooms[k], &err)) > 0) {
				size_t used = 0;

				if ((size_t)n > maxes[m])
					over++;
				for (i = 0; i < (size_t)n; i++) {
					used += batch[i].pdu_len;
					if (next_one(f1, &one, &err) != 1 ||
					    one.index != batch[i].index ||
					    one.time_ns != batch[i].time_ns ||
					    one.sector != batch[i].sector ||
					    one.cpu != batch[i].cpu ||
					    one.pdu_len != batch[i].pdu_len)
						diff++;
				}
				/* payloads checked after the whole batch */
				for (i = 0; i < (size_t)n; i++)
					if (batch[i].pdu_len &&
					    memcmp(batch[i].pdu,
						   big + batch[i].sector % 100,
						   batch[i].pdu_len))
						diff++;
				if (used > rooms[k])
					over++;
				total += n;
			}
			CHECK_EQ_INT(n, 0);
			CHECK_EQ_INT(next_one(f1, &one, &err), 0);
			CHECK_EQ_INT(total, 60000);
			CHECK_EQ_INT(diff, 0);
			CHECK_EQ_INT(over, 0);
			feed_close(f1);
			feed_close(f2);
		}
	trace_list_free(&list);
}

/* The reader thread hands over exactly what a batch of one gives. */
static void test_reader_thread_gives_the_same_events(void)
{
	static const char comm[] = "some-process-name";
	struct trace_list list = { NULL, 0 };
	struct io_event a, *b;
	struct iow_error err;
	struct feed *f1, *f2;
	struct feed_pipe *p;
	FILE *out = fopen(path_in("pipe.dump"), "wb");
	long n = 0, diff = 0;
	size_t nb, j;
	int r1, r2, i;

	/* 30000 records, every 7th a note with a payload: several blocks */
	for (i = 0; i < 30000; i++) {
		struct rec r = basic[i % 3];

		r.t = 1000 + (uint64_t)i * 10;
		r.sector = (uint64_t)i;
		if (i % 7 == 0) {
			r.action = BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY);
			r.pdu = comm;
			r.pdu_len = (uint16_t)(1 + i % sizeof(comm));
		}
		tb_write(out, 7, 0, (uint32_t)i, &r);
	}
	fclose(out);
	CHECK(feed_find_traces(path_in("pipe.dump"), &list, &err) == 0);
	f1 = feed_open(&list.items[0], &err);
	f2 = feed_open(&list.items[0], &err);
	p = feed_start_pipe(f2, 1, &err);
	CHECK(f1 && f2 && p);
	for (;;) {
		r2 = feed_pipe_next(p, &b, &nb, &err);
		for (j = 0; r2 > 0 && j < nb; j++) {
			r1 = next_one(f1, &a, &err);
			if (r1 != 1) {
				diff++;
				break;
			}
			n++;
			if (a.time_ns != b[j].time_ns ||
			    a.sector != b[j].sector ||
			    a.action != b[j].action ||
			    a.index != b[j].index ||
			    a.pdu_len != b[j].pdu_len ||
			    (a.pdu_len &&
			     memcmp(a.pdu, b[j].pdu, a.pdu_len)))
				diff++;
		}
		if (r2 <= 0) {
			r1 = next_one(f1, &a, &err);
			if (r1 != r2)
				diff++;
			break;
		}
	}
	CHECK_EQ_INT(n, 30000);
	CHECK_EQ_INT(diff, 0);
	feed_pipe_stop(p);
	feed_close(f1);
	feed_close(f2);
	trace_list_free(&list);
}

/* The threads this process runs now. */
static int threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Reads 400,000 events (past the probe) through a pipe started with
 * cpu_to_spare; returns the most threads seen while reading, checking
 * every 16th batch.
 */
static int most_threads_reading(int cpu_to_spare, long *n_read)
{
	struct trace_list list = { NULL, 0 };
	struct iow_error err;
	struct io_event *ev;
	struct feed *f;
	struct feed_pipe *p;
	size_t n;
	long batches = 0;
	int most = 0, r;

	CHECK(feed_find_traces(path_in("long.dump"), &list, &err) == 0);
	f = feed_open(&list.items[0], &err);
	p = feed_start_pipe(f, cpu_to_spare, &err);
	CHECK(f && p);
	*n_read = 0;
	while ((r = feed_pipe_next(p, &ev, &n, &err)) > 0) {
		*n_read += (long)n;
		if (batches++ % 16 == 0 && threads_now() > most)
			most = threads_now();
	}
	CHECK_EQ_INT(r, 0);
	feed_pipe_stop(p);
	feed_close(f);
	trace_list_free(&list);
	return most;
}

/* No CPU to spare (a tagger works beside, on two): no reader thread,
 * even where the probe would keep one; IOWATCHER_READER still rules. */
static void test_no_cpu_to_spare_reads_in_the_callers_thread(void)
{
	FILE *out = fopen(path_in("long.dump"), "wb");
	long n;
	int i;

	for (i = 0; i < 400000; i++) {
		struct rec r = basic[i % 3];

		r.t = 1000 + (uint64_t)i * 10;
		tb_write(out, 7, 0, (uint32_t)i, &r);
	}
	fclose(out);
	setenv("IOWATCHER_READER", "keep", 1);
	CHECK_EQ_INT(most_threads_reading(1, &n), 2);
	CHECK_EQ_INT(n, 400000);
	unsetenv("IOWATCHER_READER");
	CHECK_EQ_INT(most_threads_reading(0, &n), 1);
	CHECK_EQ_INT(n, 400000);
	setenv("IOWATCHER_READER", "thread", 1);
	CHECK_EQ_INT(most_threads_reading(0, &n), 2);
	unsetenv("IOWATCHER_READER");
	unlink(path_in("long.dump"));
}

/* Reads path through a pipe: the most threads seen, the events read. */
static int most_threads_reading_path(const char *path, int cpu_to_spare,
				     long *n_read)
{
	struct trace_list list = { NULL, 0 };
	struct iow_error err;
	struct io_event *ev;
	struct feed *f;
	struct feed_pipe *p;
	size_t n;
	int most = 0, r;

	CHECK(feed_find_traces(path, &list, &err) == 0);
	f = feed_open(&list.items[0], &err);
	p = feed_start_pipe(f, cpu_to_spare, &err);
	CHECK(f && p);
	*n_read = 0;
	while ((r = feed_pipe_next(p, &ev, &n, &err)) > 0) {
		*n_read += (long)n;
		if (threads_now() > most)
			most = threads_now();
	}
	CHECK_EQ_INT(r, 0);
	feed_pipe_stop(p);
	feed_close(f);
	trace_list_free(&list);
	return most;
}

/* Decompressing is done in the reader thread, beside the analysis:
 * also where files would be read in the caller's. */
static void test_compressed_trace_is_read_in_the_reader_thread(void)
{
	long n;

	gzip_file(path_in("pipe.dump"), path_in("pipe.dump.gz"));
	CHECK_EQ_INT(most_threads_reading_path(path_in("pipe.dump.gz"), 0, &n),
		     2);
	CHECK_EQ_INT(n, 30000);
	setenv("IOWATCHER_READER", "caller", 1);
	CHECK_EQ_INT(most_threads_reading_path(path_in("pipe.dump.gz"), 1, &n),
		     2);
	CHECK_EQ_INT(n, 30000);
	/* the same trace, plain, is read in the caller's thread */
	CHECK_EQ_INT(most_threads_reading_path(path_in("pipe.dump"), 1, &n), 1);
	unsetenv("IOWATCHER_READER");
}

/*
 * Compressed per-CPU files are a set as plain ones are, found by the
 * base name, by one of them, and in a directory; a CPU whose file is
 * there plain and compressed (gzip -k) reads the plain one; a compressed
 * dump's label drops the suffix.
 */
static void test_compressed_sets_and_dumps_are_found(void)
{
	struct trace_list list = { NULL, 0 };
	struct io_event ev[8];
	struct iow_error err;
	char sub[300];

	snprintf(sub, sizeof(sub), "%s/zdir", dir);
	mkdir(sub, 0755);
	CHECK(tb_file(path_in("zdir/z.blktrace.0"), 7, 0, basic, 3) == 0);
	CHECK(tb_file(path_in("zdir/z.blktrace.1"), 7, 0, basic, 3) == 0);
	gzip_file(path_in("zdir/z.blktrace.0"), path_in("zdir/z.blktrace.0.gz"));
	gzip_file(path_in("zdir/z.blktrace.1"), path_in("zdir/z.blktrace.1.gz"));
	unlink(path_in("zdir/z.blktrace.1"));
	CHECK(feed_find_traces(path_in("zdir/z"), &list, &err) == 0);
	CHECK_EQ_INT(list.n, 1);
	if (list.n == 1) {
		CHECK_EQ_INT(list.items[0].n_paths, 2);
		CHECK(!strcmp(list.items[0].label, "z"));
		CHECK(strstr(list.items[0].paths[0], "z.blktrace.0") &&
		      !strstr(list.items[0].paths[0], ".gz"));
		CHECK(strstr(list.items[0].paths[1], "z.blktrace.1.gz") !=
		      NULL);
	}
	trace_list_free(&list);
	CHECK_EQ_INT(read_all(path_in("zdir/z.blktrace.1.gz"), ev, 8, &err,
			      NULL), 6);
	CHECK(tb_file(path_in("zdir/d.dump"), 7, 0, basic, 3) == 0);
	gzip_file(path_in("zdir/d.dump"), path_in("zdir/d.dump.gz"));
	unlink(path_in("zdir/d.dump"));
	CHECK(feed_find_traces(sub, &list, &err) == 0);
	CHECK_EQ_INT(list.n, 2);
	if (list.n == 2) {
		CHECK(!strcmp(list.items[0].label, "d.dump"));
		CHECK_EQ_INT(list.items[0].kind, TRACE_DUMP);
		CHECK(!strcmp(list.items[1].label, "z"));
		CHECK_EQ_INT(list.items[1].n_paths, 2);
	}
	trace_list_free(&list);
	CHECK_EQ_INT(read_all(path_in("zdir/d.dump.gz"), ev, 8, &err, NULL), 3);
	check_basic(ev);
}

/* Stopping mid-trace (an error downstream) neither hangs nor leaks. */
static void test_reader_thread_stops_mid_trace(void)
{
	struct trace_list list = { NULL, 0 };
	struct iow_error err;
	struct io_event *ev;
	struct feed *f;
	struct feed_pipe *p;
	size_t n;

	CHECK(feed_find_traces(path_in("pipe.dump"), &list, &err) == 0);
	f = feed_open(&list.items[0], &err);
	p = feed_start_pipe(f, 1, &err);
	CHECK(feed_pipe_next(p, &ev, &n, &err) == 1);
	feed_pipe_stop(p);
	feed_close(f);
	trace_list_free(&list);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/iow-feed-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	RUN_TEST(test_v7_records_decode);
	RUN_TEST(test_v8_records_decode_with_zone_bits_set);
	RUN_TEST(test_byte_swapped_traces_read_the_same);
	RUN_TEST(test_percpu_files_merge_by_time);
	RUN_TEST(test_batches_give_what_feed_next_gives);
	RUN_TEST(test_time_zero_is_first_event_not_a_note);
	RUN_TEST(test_time_going_backwards_lands_at_zero);
	RUN_TEST(test_truncated_tail_keeps_earlier_events);
	RUN_TEST(test_payload_past_end_is_error_with_offset);
	RUN_TEST(test_cpu_file_cut_in_a_record_is_a_located_loss);
	RUN_TEST(test_cpu_file_cut_in_a_payload_is_a_loss_too);
	RUN_TEST(test_cpu_file_ending_with_the_others_is_no_loss);
	RUN_TEST(test_cpu_file_ending_at_a_record_end_is_whole);
	RUN_TEST(test_compressed_cpu_file_cut_short_is_a_loss_not_an_error);
	RUN_TEST(test_marked_set_file_cut_at_a_record_end_is_a_loss);
	RUN_TEST(test_bad_magic_is_error_naming_file);
	RUN_TEST(test_not_a_trace_says_what_it_looks_like);
	RUN_TEST(test_blkparse_text_inside_a_dump_says_so);
	RUN_TEST(test_corrupt_record_in_middle_is_error);
	RUN_TEST(test_blkparse_input_lines_before_events_are_skipped);
	RUN_TEST(test_blkparse_input_line_after_an_event_is_an_error);
	RUN_TEST(test_blkparse_input_line_in_a_cpu_file_is_an_error);
	RUN_TEST(test_blkparse_input_line_cut_short_is_an_error);
	RUN_TEST(test_unknown_version_is_error);
	RUN_TEST(test_empty_trace_is_error);
	RUN_TEST(test_missing_path_is_error);
	RUN_TEST(test_directory_finds_sets_and_dumps);
	RUN_TEST(test_directory_without_trace_is_error);
	RUN_TEST(test_remap_payload_decodes_big_endian);
	RUN_TEST(test_cgroup_id_is_skipped_in_notes);
	RUN_TEST(test_reader_thread_gives_the_same_events);
	RUN_TEST(test_reader_thread_stops_mid_trace);
	RUN_TEST(test_compressed_trace_is_read_in_the_reader_thread);
	RUN_TEST(test_compressed_sets_and_dumps_are_found);
	RUN_TEST(test_no_cpu_to_spare_reads_in_the_callers_thread);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	return check_report();
}
