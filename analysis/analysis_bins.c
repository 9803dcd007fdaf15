/*
 * analysis_bins.c: the time bins: the bin an event falls in, and bins
 * merged (x2, x5, ...) as the trace outgrows them, with their histograms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "base/bigmem.h"
#include "reader/blktrace.h"
#include "blkparse_feed.h"
#include "histogram.h"
#include "ioset.h"
#include "reader/account.h"
#include "reader/lossnote.h"
#include "base/u64map.h"
#include "analysis_int.h"

/* ---- time bins ---- */

static void merge_bin(struct bin *dst, const struct bin *src)
{
	int d;

	for (d = 0; d < N_OPS; d++) {
		dst->bytes[d] += src->bytes[d];
		dst->ios[d] += src->ios[d];
		dst->d2c_sum_ns[d] += src->d2c_sum_ns[d];
		dst->q2c_sum_ns[d] += src->q2c_sum_ns[d];
		dst->q2d_sum_ns[d] += src->q2d_sum_ns[d];
		dst->lat_n[d] += src->lat_n[d];
		dst->d2c_n[d] += src->d2c_n[d];
		if (src->d2c_max_ns[d] > dst->d2c_max_ns[d])
			dst->d2c_max_ns[d] = src->d2c_max_ns[d];
	}
	dst->depth_area_ns += src->depth_area_ns;
	dst->seeks += src->seeks;
	dst->lossy_ns += src->lossy_ns;
}

/* Merge runs of f bins, each per_bin u32 counts, in place. */
static void coarsen_u32(uint32_t *v, size_t n_old, size_t per_bin,
			unsigned f)
{
	size_t n_new = (n_old + f - 1) / f, i, j, k;

	for (i = 0; i < n_new; i++) {
		uint32_t *dst = v + i * per_bin;

		if (i)
			memcpy(dst, v + i * f * per_bin,
			       per_bin * sizeof(*v));
		for (j = i * f + 1; j < (i + 1) * f && j < n_old; j++) {
			const uint32_t *src = v + j * per_bin;

			for (k = 0; k < per_bin; k++)
				dst[k] += src[k];
		}
	}
	memset(v + n_new * per_bin, 0,
	       (n_old - n_new) * per_bin * sizeof(*v));
}

/* Merge runs of f bins of a tag's flush latencies, in place. */
static void coarsen_tag_flushes(struct tag_flush_bin *b, size_t n_old,
				unsigned f)
{
	size_t n_new = (n_old + f - 1) / f, i, j;

	if (!b)
		return;
	for (i = 0; i < n_new; i++) {
		struct tag_flush_bin acc = b[i * f];

		for (j = i * f + 1; j < (i + 1) * f && j < n_old; j++) {
			acc.n += b[j].n;
			acc.sum_ns += b[j].sum_ns;
			if (b[j].max_ns > acc.max_ns)
				acc.max_ns = b[j].max_ns;
		}
		b[i] = acc;
	}
	memset(b + n_new, 0, (n_old - n_new) * sizeof(*b));
}

/* Merge runs of f bins of a tag's sparse histograms, in place. */
static void coarsen_tag_hists(uint32_t **h, size_t n_old, unsigned f)
{
	size_t n_new = (n_old + f - 1) / f, i, j, k;

	if (!h)
		return;
	for (i = 0; i < n_new; i++) {
		uint32_t *acc = h[i * f];

		for (j = i * f + 1; j < (i + 1) * f && j < n_old; j++) {
			if (!h[j])
				continue;
			if (!acc) {
				acc = h[j];
			} else {
				for (k = 0; k < LAT_BIN_BUCKETS; k++)
					acc[k] += h[j][k];
				free(h[j]);
			}
			h[j] = NULL;
		}
		h[i * f] = NULL;
		h[i] = acc;
	}
}

void coarsen(struct analysis *a)
{
	unsigned f = a->next_coarsen;
	size_t n_new = (a->n_bins + f - 1) / f, i, j, t;

	for (i = 0; i < n_new; i++) {
		struct bin acc = a->bins[i * f];

		for (j = i * f + 1; j < (i + 1) * f && j < a->n_bins; j++)
			merge_bin(&acc, &a->bins[j]);
		a->bins[i] = acc;
	}
	memset(a->bins + n_new, 0, (a->n_bins - n_new) * sizeof(*a->bins));
	for (j = 0; j < N_OPS; j++) {
		if (a->lat_hist[j])
			coarsen_u32(a->lat_hist[j], a->n_bins, LAT_BIN_BUCKETS,
				    f);
		if (a->size_hist[j])
			coarsen_u32(a->size_hist[j], a->n_bins, SIZE_BUCKETS, f);
	}
	for (t = 0; t < a->n_devices; t++) {
		struct device_stats *d = &a->devices[t];

		coarsen_u32(d->seek_bins, a->n_bins, 1, f);
		for (i = 0; i < n_new; i++) {
			double acc = d->depth_bins[i * f];

			for (j = i * f + 1; j < (i + 1) * f && j < a->n_bins;
			     j++)
				acc += d->depth_bins[j];
			d->depth_bins[i] = acc;
		}
		for (i = n_new; i < a->n_bins; i++)
			d->depth_bins[i] = 0;
	}
	for (t = 0; t < a->n_tags; t++) {
		struct tag_bin *b = a->tags[t].bins;

		for (i = 0; i < n_new; i++) {
			struct tag_bin acc = b[i * f];
			int d;

			for (j = i * f + 1; j < (i + 1) * f && j < a->n_bins;
			     j++)
			{
				for (d = 0; d < N_OPS; d++) {
					acc.bytes[d] += b[j].bytes[d];
					acc.ios[d] += b[j].ios[d];
				}
				acc.d2c_n += b[j].d2c_n;
				acc.seeks += b[j].seeks;
				acc.d2c_sum_ns += b[j].d2c_sum_ns;
				if (b[j].d2c_max_ns > acc.d2c_max_ns)
					acc.d2c_max_ns = b[j].d2c_max_ns;
				acc.depth_area_ns += b[j].depth_area_ns;
			}
			b[i] = acc;
		}
		memset(b + n_new, 0, (a->n_bins - n_new) * sizeof(*b));
		coarsen_tag_hists(a->tags[t].lat_bins, a->n_bins, f);
		coarsen_tag_flushes(a->tags[t].flush_bins, a->n_bins, f);
	}
	a->n_bins = n_new;
	a->bin_width_ns *= f;
	a->cached_bin_start = UINT64_MAX;	/* bins moved */
	a->next_coarsen = f == 2 ? 5 : 2;
}

/* Index of the bin holding t (t >= origin), making room for it. */
size_t bin_for_slow(struct analysis *a, uint64_t t)
{
	size_t limit = a->cap_bins;
	uint64_t idx;

	idx = (t - a->bin_origin_ns) / a->bin_width_ns;
	while (idx >= limit) {
		if (a->cfg.bin_width_ns && !a->warning[0])
			snprintf(a->warning, sizeof(a->warning),
				 "--bin-ms gives more than %d bins; bins widened",
				 ANALYSIS_MAX_FIXED_BINS);
		if (a->n_bins == 0)
			a->n_bins = 1;
		coarsen(a);
		idx = (t - a->bin_origin_ns) / a->bin_width_ns;
	}
	if (idx >= a->n_bins)
		a->n_bins = idx + 1;
	a->cached_bin = (size_t)idx;
	a->cached_bin_start = a->bin_origin_ns + idx * a->bin_width_ns;
	return (size_t)idx;
}
