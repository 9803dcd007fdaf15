/*
 * histogram.h: log-linear histograms of non-negative integers (latencies
 * in ns, sizes in bytes). Values below 2^bits are exact; above, each power
 * of two is cut into 2^bits equal buckets, so a bucket's width is at most
 * 1/2^bits of its lower bound. Reporting a bucket's midpoint bounds the
 * relative error of any quantile by 1/2^(bits+1): 0.39% at bits = 7, the
 * summary's resolution; 6.25% at bits = 3, the per-bin resolution.
 */
#ifndef IOWATCHER_HISTOGRAM_H
#define IOWATCHER_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/* Buckets needed for values below 2^max_bits at this resolution. */
static inline size_t hist_n_buckets(unsigned bits, unsigned max_bits)
{
	return (size_t)(max_bits - bits + 1) << bits;
}

static inline size_t hist_index(uint64_t v, unsigned bits)
{
	uint64_t sub = 1ull << bits;
	unsigned e;

	if (v < sub)
		return (size_t)v;
	e = 63 - __builtin_clzll(v) - bits;
	return (size_t)(((uint64_t)(e + 1) << bits) + (v >> e) - sub);
}

/* Smallest value in bucket idx, and one past the largest. */
uint64_t hist_bucket_low(size_t idx, unsigned bits);
uint64_t hist_bucket_high(size_t idx, unsigned bits);

/*
 * Quantile q (0..1) of the counts: the midpoint of the bucket holding the
 * ceil(q * total)-th smallest value (exact for the small exact buckets).
 * 0 when total is 0.
 */
double hist_quantile(const uint32_t *counts, size_t n, unsigned bits, double q);
/*
 * The bucket holding the quantile, for data whose common values sit on
 * bucket lower bounds (request sizes: powers of two are exact there).
 * n when total is 0.
 */
size_t hist_quantile_bucket(const uint32_t *counts, size_t n, double q);
double hist_quantile64(const uint64_t *counts, size_t n, unsigned bits,
		       double q);
/* hist_quantile64 of each of k quantiles q (ascending) into out, in two
 * scans of counts instead of two each. */
void hist_quantiles64(const uint64_t *counts, size_t n, unsigned bits,
		      const double *q, size_t k, double *out);

#endif
