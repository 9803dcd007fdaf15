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

double hist_quantile(const uint32_t *counts, size_t n, unsigned bits, double q)
{
	uint64_t total = 0, seen = 0, rank;
	size_t i;

	for (i = 0; i < n; i++)
		total += counts[i];
	if (!total)
		return 0;
	rank = rank_of(q, total);
	for (i = 0; i < n; i++) {
		seen += counts[i];
		if (seen >= rank)
			return bucket_mid(i, bits);
	}
	return bucket_mid(n - 1, bits);
}

size_t hist_quantile_bucket(const uint32_t *counts, size_t n, double q)
{
	uint64_t total = 0, seen = 0, rank;
	size_t i;

	for (i = 0; i < n; i++)
		total += counts[i];
	if (!total)
		return n;
	rank = rank_of(q, total);
	for (i = 0; i < n; i++) {
		seen += counts[i];
		if (seen >= rank)
			return i;
	}
	return n - 1;
}

double hist_quantile64(const uint64_t *counts, size_t n, unsigned bits,
		       double q)
{
	uint64_t total = 0, seen = 0, rank;
	size_t i;

	for (i = 0; i < n; i++)
		total += counts[i];
	if (!total)
		return 0;
	rank = rank_of(q, total);
	for (i = 0; i < n; i++) {
		seen += counts[i];
		if (seen >= rank)
			return bucket_mid(i, bits);
	}
	return bucket_mid(n - 1, bits);
}
