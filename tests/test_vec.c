/*
 * test_vec.c: the growable array starts at its first capacity and
 * doubles, keeps its items as it moves, does not move while they fit,
 * grows straight to a need past the doubling, and fails on a size that
 * cannot be held, leaving the array and its capacity as they were.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "check.h"

static void test_starts_at_first_then_doubles_keeping_items(void)
{
	uint32_t *v = NULL, *more;
	size_t cap = 0, n, bad = 0;

	for (n = 0; n < 1000; n++) {
		more = vec_grow(v, &cap, n + 1, sizeof(*v), 16);
		CHECK(more != NULL);
		if (!more)
			break;
		v = more;
		v[n] = (uint32_t)(n * 2654435761u);
		if (n == 0)
			CHECK_EQ_INT(cap, 16);
		if (n == 16)
			CHECK_EQ_INT(cap, 32);
	}
	CHECK_EQ_INT(cap, 1024);
	for (n = 0; n < 1000; n++)
		bad += v[n] != (uint32_t)(n * 2654435761u);
	CHECK_EQ_INT(bad, 0);
	free(v);
}

static void test_fits_without_moving(void)
{
	size_t cap = 0;
	char *v = vec_grow(NULL, &cap, 10, 1, 64);

	CHECK(v != NULL);
	CHECK(vec_grow(v, &cap, 64, 1, 64) == v);
	CHECK_EQ_INT(cap, 64);
	free(v);
}

static void test_big_need_is_met_at_once(void)
{
	size_t cap = 0;
	double *v = vec_grow(NULL, &cap, 1000, sizeof(*v), 8);

	/* 8 doubled to the first power past 1000 */
	CHECK(v != NULL);
	CHECK_EQ_INT(cap, 1024);
	free(v);
}

static void test_impossible_size_fails_unchanged(void)
{
	size_t cap = 0;
	uint64_t *v = vec_grow(NULL, &cap, 4, sizeof(*v), 4);

	CHECK(v != NULL);
	v[0] = 42;
	CHECK(vec_grow(v, &cap, SIZE_MAX / 4, sizeof(*v), 4) == NULL);
	CHECK(vec_grow(v, &cap, SIZE_MAX, sizeof(*v), 4) == NULL);
	CHECK_EQ_INT(cap, 4);
	CHECK(v[0] == 42);
	free(v);
}

int main(void)
{
	RUN_TEST(test_starts_at_first_then_doubles_keeping_items);
	RUN_TEST(test_fits_without_moving);
	RUN_TEST(test_big_need_is_met_at_once);
	RUN_TEST(test_impossible_size_fails_unchanged);
	return check_report();
}
