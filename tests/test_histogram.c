/* test_histogram.c: bucket bounds and the quantile error bound. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "analysis/histogram.h"

static void test_small_values_are_exact(void)
{
	uint64_t v;

	for (v = 0; v < 128; v++) {
		size_t i = hist_index(v, 7);

		CHECK_EQ_INT(hist_bucket_low(i, 7), v);
		CHECK_EQ_INT(hist_bucket_high(i, 7), v + 1);
	}
}

static void test_buckets_are_contiguous_and_hold_their_values(void)
{
	unsigned bits;

	for (bits = 2; bits <= 7; bits++) {
		size_t n = hist_n_buckets(bits, 40), i;

		for (i = 0; i + 1 < n; i++)
			CHECK_EQ_INT(hist_bucket_high(i, bits),
				     hist_bucket_low(i + 1, bits));
		for (i = 0; i < 2000; i++) {
			uint64_t v = (uint64_t)(exp((double)i / 2000 * 27));
			size_t k = hist_index(v, bits);

			CHECK(hist_bucket_low(k, bits) <= v &&
			      v < hist_bucket_high(k, bits));
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Quantiles of 100k log-uniform values stay within 1/2^(bits+1). */
static void test_quantile_error_is_within_bound(void)
{
	static uint64_t values[100000];
	static uint64_t counts[8192];
	static const double qs[] = { 0.01, 0.5, 0.9, 0.99, 0.999, 1.0 };
	unsigned bits = 7;
	size_t n = sizeof(values) / sizeof(values[0]), i;

	srand(42);
	for (i = 0; i < n; i++) {
		values[i] = (uint64_t)exp(log(1000.0) + (double)rand() /
					  RAND_MAX * log(1e7));
		counts[hist_index(values[i], bits)]++;
	}
	qsort(values, n, sizeof(values[0]), cmp_u64);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		size_t rank = (size_t)ceil(qs[i] * (double)n);
		double exact = (double)values[rank - 1];
		double est = hist_quantile64(counts, hist_n_buckets(bits, 44),
					     bits, qs[i]);

		CHECK(fabs(est - exact) / exact <= 1.0 / (1 << (bits + 1)));
	}
}

static void test_empty_histogram_gives_zero(void)
{
	uint32_t counts[64] = { 0 };

	CHECK_EQ_INT(hist_quantile(counts, 64, 3, 0.5), 0);
}

int main(void)
{
	RUN_TEST(test_small_values_are_exact);
	RUN_TEST(test_buckets_are_contiguous_and_hold_their_values);
	RUN_TEST(test_quantile_error_is_within_bound);
	RUN_TEST(test_empty_histogram_gives_zero);
	return check_report();
}
