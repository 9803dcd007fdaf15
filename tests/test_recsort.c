/*
 * test_recsort.c: a CPU's batch of records comes out in time order: one
 * in order stays as it is, an interrupt's records that came before the
 * one they cut into move ahead of it, equal times keep their order, and
 * a batch in reverse order is sorted all the same.
 */
#include <stdint.h>

#include "check.h"
#include "record/recsort.h"

static int in_order(const struct rec_time *e, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (e[i].time < e[i - 1].time)
			return 0;
	return 1;
}

static void test_sorted_batch_stays_as_it_is(void)
{
	struct rec_time e[] = { { 1, 0 }, { 2, 48 }, { 5, 96 }, { 9, 144 } };

	rec_time_sort(e, 4);
	CHECK(e[0].offset == 0 && e[1].offset == 48 && e[2].offset == 96 &&
	      e[3].offset == 144);
}

static void test_nested_records_move_before_the_one_they_cut_into(void)
{
	/* the record reserved at 10 took its time at 40, after two taken
	 * in an interrupt (20, 30) that came in between */
	struct rec_time e[] = { { 5, 0 }, { 40, 48 }, { 20, 96 }, { 30, 144 },
				{ 50, 192 } };

	rec_time_sort(e, 5);
	CHECK(in_order(e, 5));
	CHECK(e[1].offset == 96 && e[2].offset == 144 && e[3].offset == 48);
}

static void test_equal_times_keep_their_order(void)
{
	struct rec_time e[] = { { 7, 0 }, { 7, 1 }, { 3, 2 }, { 7, 3 } };

	rec_time_sort(e, 4);
	CHECK(e[0].offset == 2 && e[1].offset == 0 && e[2].offset == 1 &&
	      e[3].offset == 3);
}

static void test_reversed_batch_is_sorted(void)
{
	struct rec_time e[100];
	size_t i;

	for (i = 0; i < 100; i++)
		e[i] = (struct rec_time){ 1000 - i, i };
	rec_time_sort(e, 100);
	CHECK(in_order(e, 100));
	CHECK(e[0].offset == 99 && e[99].offset == 0);
	rec_time_sort(e, 0);
	rec_time_sort(e, 1);
}

int main(void)
{
	RUN_TEST(test_sorted_batch_stays_as_it_is);
	RUN_TEST(test_nested_records_move_before_the_one_they_cut_into);
	RUN_TEST(test_equal_times_keep_their_order);
	RUN_TEST(test_reversed_batch_is_sorted);
	return check_report();
}
