/* histogram.c: bucket bounds and quantiles of log-linear histograms. */
#include <math.h>

#include "histogram.h"

uint64_t hist_bucket_low(size_t idx, unsigned bits)
{
	uint64_t sub = 1ull << bits;
	unsigned e;

	if (idx < sub)
		return idx;
	e = (unsigned)(idx >> bits) - 1;
	return ((idx & (sub - 1)) + sub) << e;
}

uint64_t hist_bucket_high(size_t idx, unsigned bits)
{
	uint64_t sub = 1ull << bits;

	if (idx < sub)
		return idx + 1;
	return hist_bucket_low(idx, bits) + (1ull << ((idx >> bits) - 1));
}

static double bucket_mid(size_t idx, unsigned bits)
{
	uint64_t lo = hist_bucket_low(idx, bits);
	uint64_t hi = hist_bucket_high(idx, bits);

	if (hi - lo == 1)
		return (double)lo;
	return ((double)lo + (double)(hi - 1)) / 2.0;
}

static uint64_t rank_of(double q, uint64_t total)
{
	double r = ceil(q * (double)total);

	if (r < 1)
		r = 1;
	if (r > (double)total)
		r = (double)total;
	return (uint64_t)r;
}

static uint64_t count_at(const void *counts, int wide, size_t i)
{
	return wide ? ((const uint64_t *)counts)[i] :
		      ((const uint32_t *)counts)[i];
}

/* The bucket holding the ceil(q * total)-th smallest value; n if empty. */
static size_t rank_bucket(const void *counts, int wide, size_t n, double q)
{
	uint64_t total = 0, seen = 0, rank;
	size_t i;

	for (i = 0; i < n; i++)
		total += count_at(counts, wide, i);
	if (!total)
		return n;
	rank = rank_of(q, total);
	for (i = 0; i < n; i++) {
		seen += count_at(counts, wide, i);
		if (seen >= rank)
			return i;
	}
	return n - 1;
}

double hist_quantile(const uint32_t *counts, size_t n, unsigned bits, double q)
{
	size_t k = rank_bucket(counts, 0, n, q);

	return k < n ? bucket_mid(k, bits) : 0;
}

size_t hist_quantile_bucket(const uint32_t *counts, size_t n, double q)
{
	return rank_bucket(counts, 0, n, q);
}

double hist_quantile64(const uint64_t *counts, size_t n, unsigned bits,
		       double q)
{
	size_t k = rank_bucket(counts, 1, n, q);

	return k < n ? bucket_mid(k, bits) : 0;
}

void hist_quantiles64(const uint64_t *counts, size_t n, unsigned bits,
		      const double *q, size_t k, double *out)
{
	uint64_t total = 0, seen = 0;
	size_t i = 0, j;

	for (j = 0; j < n; j++)
		total += counts[j];
	for (j = 0; j < k; j++) {
		uint64_t rank;

		if (!total) {
			out[j] = 0;
			continue;
		}
		/* rank_bucket's bucket: the first whose running count
		 * reaches the rank (the ranks ascend with q) */
		rank = rank_of(q[j], total);
		while (i < n && seen + counts[i] < rank)
			seen += counts[i++];
		out[j] = bucket_mid(i < n ? i : n - 1, bits);
	}
}
