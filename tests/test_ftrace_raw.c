/*
 * test_ftrace_raw.c: reading the kernel's ring-buffer pages, made by hand
 * (tests/pagebuild.h): events/header_page's layout, the events' times
 * through deltas, time extends and absolute stamps, padding and
 * discarded events stepped over, events with a length word, the
 * lost-events flags and count, the blk tracer's entry; and pages that
 * are not laid out so, refused with the byte where they go wrong.
 */
#include "check.h"
#include "record/ftrace_raw.h"
#include "pagebuild.h"

#define T0	20188837832096ULL	/* a page time, as on Linux 6.18 */
#define BLK	14			/* the blk tracer's type there */

static struct ftrace_page_layout layout(void)
{
	struct ftrace_page_layout l;
	struct iow_error err = { "" };

	CHECK_EQ_INT(ftrace_page_layout_parse(PB_HEADER_PAGE, &l, &err), 0);
	return l;
}

/* Opens b's page; the events' times into times, their count. */
static int walk(const struct pagebuild *b, uint64_t *times, int max,
		struct ftrace_page *p)
{
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };
	struct ftrace_event ev;
	int n = 0, rc;

	CHECK_EQ_INT(ftrace_page_open(p, &l, b->page, sizeof(b->page), &err),
		     0);
	while ((rc = ftrace_page_next(p, &ev, &err)) > 0 && n < max)
		times[n++] = ev.time;
	CHECK_EQ_INT(rc, 0);
	return n;
}

static void test_header_page_gives_the_layout(void)
{
	struct ftrace_page_layout l = layout();

	CHECK_EQ_INT(l.time_offset, 0);
	CHECK_EQ_INT(l.commit_offset, 8);
	CHECK_EQ_INT(l.commit_size, 8);
	CHECK_EQ_INT(l.data_offset, 16);
}

static void test_a_32_bit_kernels_header_page(void)
{
	static const char text[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	struct ftrace_page_layout l;
	struct iow_error err = { "" };
	unsigned char page[64] = { 0 };
	uint32_t commit = 8 | PB_MISSED | PB_MISSED_STORED, count = 77;
	struct ftrace_page p;

	CHECK_EQ_INT(ftrace_page_layout_parse(text, &l, &err), 0);
	CHECK_EQ_INT(l.commit_size, 4);
	CHECK_EQ_INT(l.data_offset, 12);
	memcpy(page + 8, &commit, sizeof(commit));
	memcpy(page + 12 + 8, &count, sizeof(count));
	CHECK_EQ_INT(ftrace_page_open(&p, &l, page, sizeof(page), &err), 0);
	CHECK_EQ_INT(p.data_len, 8);
	CHECK(p.missed && p.missed_known);
	CHECK_EQ_INT(p.missed_count, 77);
}

static void test_header_page_without_a_commit_is_refused(void)
{
	static const char text[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	struct ftrace_page_layout l;
	struct iow_error err = { "" };

	CHECK_EQ_INT(ftrace_page_layout_parse(text, &l, &err), -1);
	CHECK(strstr(err.msg, "events/header_page") != NULL);
}

static void test_times_add_up_from_the_page_time(void)
{
	static const uint32_t word = 0;
	struct pagebuild b;
	struct ftrace_page p;
	uint64_t t[4];

	pb_init(&b, T0);
	pb_event(&b, 0, &word, 4, 0);
	pb_event(&b, 1000, &word, 4, 0);
	pb_event(&b, (1u << 27) - 1, &word, 4, 0);	/* the largest delta */
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(walk(&b, t, 4, &p), 3);
	CHECK_EQ_INT(t[0], T0);
	CHECK_EQ_INT(t[1], T0 + 1000);
	CHECK_EQ_INT(t[2], T0 + 1000 + (1u << 27) - 1);
	CHECK(!p.missed);
}

static void test_time_extend_carries_a_long_gap(void)
{
	static const uint32_t word = 0;
	uint64_t gap = 5000000000ULL;	/* 5 s: beyond 27 bits */
	struct pagebuild b;
	struct ftrace_page p;
	uint64_t t[3];

	pb_init(&b, T0);
	pb_event(&b, 7, &word, 4, 0);
	pb_time_extend(&b, gap);
	pb_event(&b, 0, &word, 4, 0);	/* the extend carries its delta */
	pb_event(&b, 3, &word, 4, 0);
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(walk(&b, t, 3, &p), 3);
	CHECK_EQ_INT(t[0], T0 + 7);
	CHECK_EQ_INT(t[1], T0 + 7 + gap);
	CHECK_EQ_INT(t[2], T0 + 7 + gap + 3);
}

static void test_absolute_stamp_sets_the_time(void)
{
	static const uint32_t word = 0;
	uint64_t abs = T0 + 123456789012ULL;
	struct pagebuild b;
	struct ftrace_page p;
	uint64_t t[2];

	pb_init(&b, T0);
	pb_event(&b, 10, &word, 4, 0);
	pb_time_stamp(&b, abs);
	pb_event(&b, 5, &word, 4, 0);
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(walk(&b, t, 2, &p), 2);
	CHECK_EQ_INT(t[1], abs + 5);
}

static void test_padding_and_discarded_events_are_stepped_over(void)
{
	static const uint32_t word = 0;
	struct pagebuild b;
	struct ftrace_page p;
	uint64_t t[3];

	pb_init(&b, T0);
	pb_event(&b, 100, &word, 4, 0);
	pb_discarded(&b, 50, 52);	/* its time is not the clock's */
	pb_event(&b, 20, &word, 4, 0);
	pb_header(&b, PB_TYPE_PADDING, 0);	/* the rest is empty */
	pb_event(&b, 20, &word, 4, 0);	/* never read */
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(walk(&b, t, 3, &p), 2);
	CHECK_EQ_INT(t[0], T0 + 100);
	CHECK_EQ_INT(t[1], T0 + 120);
}

static void test_length_word_event_keeps_its_data(void)
{
	unsigned char data[200], tail[4] = { 1, 2, 3, 4 };
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };
	struct ftrace_event ev;
	struct pagebuild b;
	struct ftrace_page p;

	memset(data, 0xab, sizeof(data));
	memcpy(data + sizeof(data) - 4, tail, 4);
	pb_init(&b, T0);
	pb_event(&b, 9, data, sizeof(data), 1);
	pb_event(&b, 1, tail, 4, 0);
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_page_open(&p, &l, b.page, sizeof(b.page), &err),
		     0);
	CHECK_EQ_INT(ftrace_page_next(&p, &ev, &err), 1);
	CHECK_EQ_INT(ev.len, sizeof(data));
	CHECK_EQ_INT(ev.time, T0 + 9);
	CHECK(!memcmp(ev.data, data, sizeof(data)));
	CHECK_EQ_INT(ftrace_page_next(&p, &ev, &err), 1);
	CHECK_EQ_INT(ev.len, 4);
	CHECK(!memcmp(ev.data, tail, 4));
	CHECK_EQ_INT(ftrace_page_next(&p, &ev, &err), 0);
}

static void test_missed_events_page_says_how_many(void)
{
	static const uint32_t word = 0;
	struct pagebuild b;
	struct ftrace_page p;
	uint64_t t[1];

	pb_init(&b, T0);
	pb_event(&b, 0, &word, 4, 0);
	pb_finish(&b, PB_MISSED | PB_MISSED_STORED, 4242);
	CHECK_EQ_INT(walk(&b, t, 1, &p), 1);
	CHECK(p.missed && p.missed_known);
	CHECK_EQ_INT(p.missed_count, 4242);
	CHECK_EQ_INT(p.data_len, 8);	/* the flags are not length */
}

static void test_missed_events_without_room_are_of_unknown_count(void)
{
	static const uint32_t word = 0;
	struct pagebuild b;
	struct ftrace_page p;
	uint64_t t[1];

	pb_init(&b, T0);
	pb_event(&b, 0, &word, 4, 0);
	pb_finish(&b, PB_MISSED, 0);
	CHECK_EQ_INT(walk(&b, t, 1, &p), 1);
	CHECK(p.missed && !p.missed_known);
	CHECK_EQ_INT(p.missed_count, 0);
}

static void test_commit_beyond_the_page_is_refused(void)
{
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };
	struct pagebuild b;
	struct ftrace_page p;

	pb_init(&b, T0);
	b.len = PB_PAGE_SIZE;	/* more than the 4080 bytes of data */
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_page_open(&p, &l, b.page, sizeof(b.page), &err),
		     -1);
	CHECK(strstr(err.msg, "commit says 4096 bytes of events, of 4080")
	      != NULL);
}

static void test_event_past_the_data_is_refused_with_its_byte(void)
{
	static const uint32_t word = 0;
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };
	struct ftrace_event ev;
	struct pagebuild b;
	struct ftrace_page p;

	pb_init(&b, T0);
	pb_event(&b, 0, &word, 4, 0);
	pb_header(&b, 12, 0);		/* 48 bytes said, none there */
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_page_open(&p, &l, b.page, sizeof(b.page), &err),
		     0);
	CHECK_EQ_INT(ftrace_page_next(&p, &ev, &err), 1);
	CHECK_EQ_INT(ftrace_page_next(&p, &ev, &err), -1);
	CHECK(strstr(err.msg, "the event at byte 24 of a page runs past its "
		     "12 bytes of data") != NULL);
}

static void test_blk_entry_becomes_a_v7_record(void)
{
	static const char pdu[8] = "1234567";
	struct blk_io_trace in = {
		.sector = 4096, .bytes = 8192, .pid = 31739,
		.action = BLK_TC_ACT(BLK_TC_READ) | BLK_TA_QUEUE,
		.device = 0x700000, .cpu = 5, .pdu_len = sizeof(pdu),
	}, out;
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };
	const unsigned char *payload;
	struct ftrace_event ev;
	struct pagebuild b;
	struct ftrace_page p;

	pb_init(&b, T0);
	pb_blk(&b, 11, BLK, &in, pdu, 0);
	pb_finish(&b, 0, 0);
	CHECK_EQ_INT(ftrace_page_open(&p, &l, b.page, sizeof(b.page), &err),
		     0);
	CHECK_EQ_INT(ftrace_page_next(&p, &ev, &err), 1);
	CHECK_EQ_INT(ftrace_event_type(&ev), BLK);
	CHECK_EQ_INT(ftrace_blk_entry(&ev, 1, &out, &payload, &err), 0);
	CHECK_EQ_INT(out.magic, BLK_IO_TRACE_MAGIC | 7);
	CHECK_EQ_INT(out.sequence, 0);
	CHECK_EQ_INT(out.time, T0 + 11);	/* the ring's, not the record's */
	CHECK_EQ_INT(out.cpu, 1);		/* the buffer's CPU */
	CHECK_EQ_INT(out.sector, 4096);
	CHECK_EQ_INT(out.bytes, 8192);
	CHECK_EQ_INT(out.action, in.action);
	CHECK_EQ_INT(out.pid, 31739);
	CHECK_EQ_INT(out.device, 0x700000);
	CHECK_EQ_INT(out.pdu_len, sizeof(pdu));
	CHECK(!memcmp(payload, pdu, sizeof(pdu)));
}

/* The page's first event, data as given. */
static void one_event(struct pagebuild *b, struct ftrace_event *ev,
		      const void *data, size_t len)
{
	struct ftrace_page_layout l = layout();
	struct iow_error err = { "" };
	static struct ftrace_page p;

	pb_init(b, T0);
	pb_event(b, 0, data, len, 0);
	pb_finish(b, 0, 0);
	CHECK_EQ_INT(ftrace_page_open(&p, &l, b->page, sizeof(b->page), &err),
		     0);
	CHECK_EQ_INT(ftrace_page_next(&p, ev, &err), 1);
}

/* A kernel with zoned-device blktrace writes struct blk_io_trace2 (the
 * uapi's layout): a zone reset's completion, its cgroup id after it. */
static void test_blk_entry_of_version_2_is_read_with_its_zone_bits(void)
{
	struct iow_error err = { "" };
	unsigned char v2[64 + 8] = { 0 };
	const unsigned char *payload;
	uint64_t sector = 524288, cgroup = 0x1234;
	uint64_t action = BLK_TA_COMPLETE |
			  BLK_TC_ACT(BLK_TC_COMPLETE | BLK_TC_WRITE) |
			  (uint64_t)BLK_TC2_ZONE_RESET << 32;
	uint32_t bytes = 256u << 20, pid = 77, device = 0x800010, cpu = 3;
	uint32_t action_hi = 0;
	uint16_t type = BLK, pdu_len = 8;
	struct blk_io_trace out;
	struct ftrace_event ev;
	struct pagebuild b;
	int version = 0;

	memcpy(v2, &type, sizeof(type));
	memcpy(v2 + 16, &sector, 8);
	memcpy(v2 + 24, &bytes, 4);
	memcpy(v2 + 28, &pid, 4);
	memcpy(v2 + 32, &action, 8);
	memcpy(v2 + 40, &device, 4);
	memcpy(v2 + 44, &cpu, 4);
	memcpy(v2 + 50, &pdu_len, 2);
	memcpy(v2 + 64, &cgroup, 8);
	one_event(&b, &ev, v2, sizeof(v2));
	CHECK_EQ_INT(ftrace_blk_entry_v(&ev, 1, &out, &action_hi, &version,
					&payload, &err), 0);
	CHECK_EQ_INT(version, BLK_IO_TRACE_VERSION8);
	CHECK_EQ_INT(action_hi, BLK_TC2_ZONE_RESET);
	CHECK_EQ_INT(out.action, (uint32_t)action);
	CHECK_EQ_INT(out.sector, sector);
	CHECK_EQ_INT(out.bytes, bytes);
	CHECK_EQ_INT(out.pid, pid);
	CHECK_EQ_INT(out.device, device);
	CHECK_EQ_INT(out.cpu, 1);	/* the page's CPU, as for v7 */
	CHECK_EQ_INT(out.pdu_len, 8);
	CHECK(!memcmp(payload, &cgroup, 8));
}

static void test_blk_entry_of_another_layout_is_refused(void)
{
	struct iow_error err = { "" };
	unsigned char odd[56] = { 0 };
	const unsigned char *payload;
	struct blk_io_trace out;
	struct ftrace_event ev;
	struct pagebuild b;
	uint16_t type = BLK;

	/* 56 bytes, pdu_len 0 at byte 46 and at 50: neither layout */
	memcpy(odd, &type, sizeof(type));
	one_event(&b, &ev, odd, sizeof(odd));
	CHECK_EQ_INT(ftrace_blk_entry(&ev, 0, &out, &payload, &err), -1);
	CHECK(strstr(err.msg, "a blk event of 56 bytes at byte 16 of a page: "
		     "neither the version-7 (48-byte) nor the version-2 "
		     "(64-byte) layout") != NULL);
}

int main(void)
{
	RUN_TEST(test_header_page_gives_the_layout);
	RUN_TEST(test_a_32_bit_kernels_header_page);
	RUN_TEST(test_header_page_without_a_commit_is_refused);
	RUN_TEST(test_times_add_up_from_the_page_time);
	RUN_TEST(test_time_extend_carries_a_long_gap);
	RUN_TEST(test_absolute_stamp_sets_the_time);
	RUN_TEST(test_padding_and_discarded_events_are_stepped_over);
	RUN_TEST(test_length_word_event_keeps_its_data);
	RUN_TEST(test_missed_events_page_says_how_many);
	RUN_TEST(test_missed_events_without_room_are_of_unknown_count);
	RUN_TEST(test_commit_beyond_the_page_is_refused);
	RUN_TEST(test_event_past_the_data_is_refused_with_its_byte);
	RUN_TEST(test_blk_entry_becomes_a_v7_record);
	RUN_TEST(test_blk_entry_of_version_2_is_read_with_its_zone_bits);
	RUN_TEST(test_blk_entry_of_another_layout_is_refused);
	return check_report();
}
