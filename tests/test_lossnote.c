/*
 * test_lossnote.c: the loss note's text round-trips through the parser
 * (a known count and an unknown one, the largest numbers), its record
 * header is a version-7 MESSAGE note at T1 on the CPU; anything not
 * written by the formatter to the byte is not a loss note.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "reader/lossnote.h"

static void test_known_count_round_trips(void)
{
	struct lossnote n = { 3189547, 1, 1, 1000000000ull, 1000500000ull };
	struct lossnote back;
	char text[LOSSNOTE_TEXT_MAX];
	uint16_t len = lossnote_format(&n, text);

	CHECK(!strcmp(text, "lost 3189547 events on cpu 1, from 1000000000 to 1000500000 ns"));
	CHECK_EQ_INT(len, strlen(text) + 1);
	CHECK(lossnote_parse(LOSSNOTE_ACTION, text, len, &back) == 1);
	CHECK(back.count_known == 1 && back.count == 3189547 &&
	      back.cpu == 1 && back.t0_ns == 1000000000ull &&
	      back.t1_ns == 1000500000ull);
}

static void test_unknown_count_round_trips(void)
{
	struct lossnote n = { 0, 0, 7, 0, 42 }, back;
	char text[LOSSNOTE_TEXT_MAX];
	uint16_t len = lossnote_format(&n, text);

	CHECK(!strcmp(text, "lost an unknown number of events on cpu 7, from 0 to 42 ns"));
	CHECK(lossnote_parse(LOSSNOTE_ACTION, text, len, &back) == 1);
	CHECK(!back.count_known && back.count == 0 && back.cpu == 7 &&
	      back.t0_ns == 0 && back.t1_ns == 42);
}

static void test_file_end_note_round_trips_as_its_own_kind(void)
{
	struct lossnote n = { 0, 0, 3, 5000, 900000 }, back;
	char text[LOSSNOTE_TEXT_MAX];
	uint16_t len = lossnote_format_file_end(&n, text);

	CHECK(!strcmp(text, "file of cpu 3 ends early, from 5000 to 900000 ns"));
	CHECK(lossnote_parse(LOSSNOTE_ACTION, text, len, &back) ==
	      LOSSNOTE_FILE_END);
	CHECK(!back.count_known && back.cpu == 3 && back.t0_ns == 5000 &&
	      back.t1_ns == 900000);
	/* a word off is no note */
	CHECK(lossnote_parse(LOSSNOTE_ACTION, "file of cpu 3 ends, from 5 to 9 ns",
			     35, &back) == 0);
}

static void test_end_mark_is_no_loss_note(void)
{
	char text[LOSSNOTE_TEXT_MAX];
	struct lossnote back;
	uint16_t len = lossnote_format_end_mark(2, 123456, text);

	CHECK(!strcmp(text, "end of cpu 2's file at 123456 ns"));
	CHECK(lossnote_is_end_mark(LOSSNOTE_ACTION, text, len));
	CHECK(lossnote_parse(LOSSNOTE_ACTION, text, len, &back) == 0);
	CHECK(!lossnote_is_end_mark(LOSSNOTE_ACTION, "end of cpu 2's file", 20));
}

static void test_largest_numbers_fit(void)
{
	struct lossnote n = { UINT64_MAX, 1, UINT32_MAX, UINT64_MAX,
			      UINT64_MAX }, back;
	char text[LOSSNOTE_TEXT_MAX];
	uint16_t len = lossnote_format(&n, text);

	CHECK(len <= LOSSNOTE_TEXT_MAX);
	CHECK(lossnote_parse(LOSSNOTE_ACTION, text, len, &back) == 1);
	CHECK(back.count == UINT64_MAX && back.cpu == UINT32_MAX &&
	      back.t0_ns == UINT64_MAX && back.t1_ns == UINT64_MAX);
}

/* At T0, where the window opens (read before what the loss touched);
 * at T1 where T0 is unknown. */
static void test_header_is_a_message_note_at_t0(void)
{
	struct lossnote n = { 5, 1, 1, 10, 20 };
	struct blk_io_trace t;

	lossnote_header(&n, 7 << 20 | 3, 40, &t);
	CHECK(t.magic == (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7));
	CHECK(t.action == (BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE));
	CHECK(t.time == 10 && t.cpu == 1 && t.pid == 0 &&
	      t.device == (7u << 20 | 3) && t.pdu_len == 40 &&
	      t.bytes == 0 && t.sector == 0);
	n.t0_ns = 0;
	lossnote_header(&n, 7 << 20 | 3, 40, &t);
	CHECK(t.time == 20);
}

static int parses(const char *text, size_t len)
{
	struct lossnote n;

	return lossnote_parse(LOSSNOTE_ACTION, text, len, &n);
}

#define PARSES(s) parses(s, sizeof(s))

static void test_garbage_is_not_a_loss_note(void)
{
	struct lossnote n = { 0 };
	const char ok[] = "lost 1 events on cpu 0, from 0 to 1 ns";

	CHECK(PARSES(ok) == 1);
	/* another note kind, or a PROCESS note that happens to say so */
	CHECK(lossnote_parse(BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_PROCESS, ok,
			     sizeof(ok), &n) == 0);
	CHECK(lossnote_parse(LOSSNOTE_ACTION, NULL, 0, &n) == 0);
	/* not NUL-terminated within the payload */
	CHECK(parses(ok, sizeof(ok) - 1) == 0);
	CHECK(PARSES("") == 0);
	CHECK(PARSES("hello") == 0);
	CHECK(PARSES("lost 1 events on cpu 0, from 0 to 1 ns.") == 0);
	CHECK(PARSES("lost 1 events on cpu 0, from 0 to 1") == 0);
	CHECK(PARSES("lost -1 events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost +1 events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost  1 events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost 01 events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost 1 events on cpu x, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost 1 events on cpu 4294967296, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost 18446744073709551616 events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost some events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("Lost 1 events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("lost an unknown number of events on cpu 0, from 0 to ns") == 0);
}

int main(void)
{
	RUN_TEST(test_known_count_round_trips);
	RUN_TEST(test_unknown_count_round_trips);
	RUN_TEST(test_file_end_note_round_trips_as_its_own_kind);
	RUN_TEST(test_end_mark_is_no_loss_note);
	RUN_TEST(test_largest_numbers_fit);
	RUN_TEST(test_header_is_a_message_note_at_t0);
	RUN_TEST(test_garbage_is_not_a_loss_note);
	return check_report();
}
