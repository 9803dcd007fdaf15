/*
 * test_lossnote.c: the loss note's text, written and read back: known
 * and unknown counts, the largest numbers, and everything that is not a
 * loss note refused.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "lossnote.h"

static void test_round_trip_with_a_count(void)
{
	struct loss_note n = { 3189547, 1, 1, 166286000000123ull,
			       166286500000000ull }, back;
	char buf[128];
	size_t len = lossnote_format(buf, sizeof(buf), &n);

	CHECK(!strcmp(buf, "lost 3189547 events on cpu 1, from 166286000000123 to 166286500000000 ns"));
	CHECK(len == strlen(buf));
	CHECK(lossnote_parse(buf, sizeof(buf), &back) == 0);
	CHECK(back.count == n.count && back.count_known && back.cpu == 1 &&
	      back.from_ns == n.from_ns && back.to_ns == n.to_ns);
}

static void test_round_trip_with_no_count(void)
{
	struct loss_note n = { 0, 0, 7, 0, UINT64_MAX }, back;
	char buf[128];

	lossnote_format(buf, sizeof(buf), &n);
	CHECK(!strcmp(buf, "lost an unknown number of events on cpu 7, from 0 to 18446744073709551615 ns"));
	CHECK(lossnote_parse(buf, strlen(buf), &back) == 0);
	CHECK(!back.count_known && back.cpu == 7 && back.from_ns == 0 &&
	      back.to_ns == UINT64_MAX);
}

static void test_other_text_is_no_loss_note(void)
{
	static const char *const bad[] = {
		"",
		"lost",
		"hello",
		"lost 12 events on cpu 1, from 5 to 4 ns",	/* backwards */
		"lost 12 events on cpu 1, from 5 to 6 ns!",
		"lost 12 events on cpu 1, from 5 to 6",
		"lost -1 events on cpu 1, from 5 to 6 ns",
		"lost 18446744073709551616 events on cpu 1, from 5 to 6 ns",
		"lost 1 events on cpu 4294967296, from 5 to 6 ns",
		"lost 1 events on cpu , from 5 to 6 ns",
	};
	struct loss_note n;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(lossnote_parse(bad[i], strlen(bad[i]), &n) < 0);
}

static void test_payload_bounds_are_kept(void)
{
	const char text[] = "lost 5 events on cpu 0, from 1 to 2 ns";
	struct loss_note n;

	/* cut short: the payload's length rules, not a NUL */
	CHECK(lossnote_parse(text, sizeof(text) - 4, &n) < 0);
	/* a NUL inside the payload ends the text */
	CHECK(lossnote_parse(text, sizeof(text), &n) == 0);
}

int main(void)
{
	RUN_TEST(test_round_trip_with_a_count);
	RUN_TEST(test_round_trip_with_no_count);
	RUN_TEST(test_other_text_is_no_loss_note);
	RUN_TEST(test_payload_bounds_are_kept);
	return check_report();
}
