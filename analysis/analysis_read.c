/*
 * analysis_read.c: reading a finished analysis: durations, bins, their
 * histograms and quantiles, tags ranked, classes named, the I/O map's
 * columns, a device's own part, and how the bins would coarsen.
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
#include "options.h"

/* ---- reading ---- */

double analysis_duration_s(const struct analysis *a)
{
	uint64_t start = a->first_ns, end = a->last_ns;

	if (a->cfg.has_time_range) {
		start = a->cfg.time_min_ns;
		if (end > a->cfg.time_max_ns)
			end = a->cfg.time_max_ns;
	}
	return end > start ? (double)(end - start) / 1e9 : 0;
}

double analysis_clean_s(const struct analysis *a)
{
	double d = analysis_duration_s(a), lossy = (double)a->lossy_ns / 1e9;

	return d > lossy ? d - lossy : 0;
}

/*
 * A device's own span: from its first event to its last (within -x's
 * window), not the trace's: a device busy for 9 ms of a 0.384 s trace of
 * two is busy for 9 ms. The trace's duration where the device is unknown.
 */
static const struct device_span *device_span_ns(const struct analysis *a,
						uint32_t device,
						uint64_t *start, uint64_t *end)
{
	const struct device_span *sp = NULL;
	size_t i;

	*start = a->first_ns;
	*end = a->last_ns;
	for (i = 0; i < a->n_spans; i++)
		if (a->spans[i].device == device) {
			sp = &a->spans[i];
			*start = sp->first_ns;
			*end = sp->last_ns;
			break;
		}
	if (a->cfg.has_time_range) {
		if (*start < a->cfg.time_min_ns)
			*start = a->cfg.time_min_ns;
		if (*end > a->cfg.time_max_ns)
			*end = a->cfg.time_max_ns;
	}
	return sp;
}

void analysis_device_bounds_s(const struct analysis *a, uint32_t device,
			      double *first_s, double *last_s)
{
	uint64_t start, end, origin = a->cfg.has_time_range ?
					      a->cfg.time_min_ns : a->first_ns;

	device_span_ns(a, device, &start, &end);
	*first_s = start > origin ? (double)(start - origin) / 1e9 : 0;
	*last_s = end > origin ? (double)(end - origin) / 1e9 : 0;
}

double analysis_device_span_s(const struct analysis *a, uint32_t device)
{
	uint64_t start, end;

	device_span_ns(a, device, &start, &end);
	return end > start ? (double)(end - start) / 1e9 : 0;
}

double analysis_device_clean_s(const struct analysis *a, uint32_t device)
{
	uint64_t start, end, lossy = 0;
	const struct device_span *sp = device_span_ns(a, device, &start, &end);
	size_t i;

	if (end <= start)
		return 0;
	if (sp && sp->lossy_known)
		return sp->lossy_ns < end - start ?
		       (double)(end - start - sp->lossy_ns) / 1e9 : 0;
	/* the loss windows (merged, apart) where they meet the span; not
	 * the inferred ones, whose time stays in the depth's mean (only
	 * their lost requests left the depth), as in analysis_clean_s */
	for (i = 0; i < a->n_loss; i++) {
		uint64_t from = a->loss[i].from_ns > start ? a->loss[i].from_ns
							    : start;
		uint64_t to = a->loss[i].to_ns < end ? a->loss[i].to_ns : end;

		if (to > from && !a->loss[i].inferred)
			lossy += to - from;
	}
	return lossy < end - start ? (double)(end - start - lossy) / 1e9 : 0;
}

double analysis_bin_lossy_s(const struct analysis *a, size_t i)
{
	return i < a->n_bins ? (double)a->bins[i].lossy_ns / 1e9 : 0;
}

double analysis_bin_start_s(const struct analysis *a, size_t i)
{
	return (double)(a->bin_origin_ns + i * a->bin_width_ns) / 1e9;
}

double analysis_bin_span_s(const struct analysis *a, size_t i)
{
	double width = (double)a->bin_width_ns / 1e9;
	double end = (double)a->last_ns / 1e9, start, span;

	if (a->cfg.has_time_range && a->last_ns > a->cfg.time_max_ns)
		end = (double)a->cfg.time_max_ns / 1e9;
	if (i + 1 < a->n_bins)
		return width;
	/*
	 * The last bin is cut short by the trace's end: dividing by its real
	 * span avoids a false drop to zero. A floor of a quarter width keeps
	 * one completion a few microseconds before the end from reading as
	 * an absurd rate. A lone bin's span is the whole trace, however
	 * short against the width (--bin-ms longer than the trace): the
	 * floor there would divide the rates.
	 */
	start = analysis_bin_start_s(a, i);
	span = end - start;
	if (span > width)
		span = width;
	if (i > 0 && span < width / 4)
		span = width / 4;
	if (!(span > 0))
		span = width;
	return span;
}

const uint32_t *analysis_tag_lat_hist(const struct analysis *a, size_t s,
				      size_t i)
{
	const struct tag_stats *t = &a->tags[s];

	return t->lat_bins && i < a->n_bins ? t->lat_bins[i] : NULL;
}

const uint32_t *analysis_bin_lat_hist(const struct analysis *a, size_t i,
				      int op)
{
	if (!a->lat_hist[op] || i >= a->n_bins)
		return NULL;
	return lat_hist_at(a, i, op);
}

double analysis_bin_latency_q(const struct analysis *a, size_t i, int op,
			      double q)
{
	uint32_t sum[LAT_BIN_BUCKETS];
	const uint32_t *h;
	double v, max = 0;
	size_t k;
	int o;

	if (i >= a->n_bins)
		return 0;
	if (op >= 0) {
		if (!(h = analysis_bin_lat_hist(a, i, op)))
			return 0;
		v = hist_quantile(h, LAT_BIN_BUCKETS, LAT_BIN_BITS, q);
		max = (double)a->bins[i].d2c_max_ns[op];
	} else {
		memset(sum, 0, sizeof(sum));
		for (o = 0; o < N_DATA_OPS; o++) {
			if (!(h = analysis_bin_lat_hist(a, i, o)))
				continue;
			for (k = 0; k < LAT_BIN_BUCKETS; k++)
				sum[k] += h[k];
			if ((double)a->bins[i].d2c_max_ns[o] > max)
				max = (double)a->bins[i].d2c_max_ns[o];
		}
		v = hist_quantile(sum, LAT_BIN_BUCKETS, LAT_BIN_BITS, q);
	}
	/* a bucket's midpoint may lie above the largest value seen */
	return v > max ? max : v;
}

double analysis_bin_size_q(const struct analysis *a, size_t i, int op,
			   double q)
{
	uint32_t sum[SIZE_BUCKETS];
	const uint32_t *h = NULL;
	size_t k;
	int o;

	if (i >= a->n_bins)
		return 0;
	if (op >= 0) {
		if (!a->size_hist[op])
			return 0;
		h = size_hist_at(a, i, op);
	} else {
		memset(sum, 0, sizeof(sum));
		for (o = 0; o < N_DATA_OPS; o++) {
			if (!a->size_hist[o])
				continue;
			for (k = 0; k < SIZE_BUCKETS; k++)
				sum[k] += size_hist_at(a, i, o)[k];
		}
		h = sum;
	}
	k = hist_quantile_bucket(h, SIZE_BUCKETS, q);
	return k < SIZE_BUCKETS ? (double)hist_bucket_low(k, SIZE_BITS) : 0;
}

static uint64_t sum_ops(const uint64_t v[N_OPS])
{
	uint64_t n = 0;
	int op;

	for (op = 0; op < N_OPS; op++)
		n += v[op];
	return n;
}

uint64_t analysis_tag_ios(const struct tag_stats *t)
{
	return sum_ops(t->ios);
}

uint64_t analysis_tag_bytes(const struct tag_stats *t)
{
	return sum_ops(t->bytes);
}

struct tag_rank {
	size_t slot;
	uint64_t bytes, ios;
};

static int cmp_tag_rank(const void *pa, const void *pb)
{
	const struct tag_rank *a = pa, *b = pb;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->ios != b->ios)
		return a->ios < b->ios ? 1 : -1;
	return (a->slot > b->slot) - (a->slot < b->slot);
}

long analysis_rank_tags(const struct analysis *a, size_t *slots)
{
	struct tag_rank *rank = malloc((a->n_tags + 1) * sizeof(*rank));
	size_t i, n = 0;

	if (!rank)
		return -1;
	for (i = 0; i < a->n_tags; i++) {
		uint64_t ios = analysis_tag_ios(&a->tags[i]);

		if (!ios)
			continue;
		rank[n].slot = i;
		rank[n].ios = ios;
		rank[n++].bytes = analysis_tag_bytes(&a->tags[i]);
	}
	qsort(rank, n, sizeof(*rank), cmp_tag_rank);
	for (i = 0; i < n; i++)
		slots[i] = rank[i].slot;
	free(rank);
	return (long)n;
}

uint64_t analysis_op_ios(const struct analysis *a, int op)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < a->n_devices; i++)
		n += a->devices[i].ios[op];
	return n;
}

size_t analysis_io_devices(const struct analysis *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->n_devices; i++)
		n += a->devices[i].has_io != 0;
	return n;
}

const char *io_op_name(int op)
{
	static const char *const names[N_OPS] = {
		"read", "write", "discard", "flush", "zone-mgmt", "write-zeroes"
	};

	return op >= 0 && op < N_OPS ? names[op] : "?";
}

double latency_mean_ns(const struct latency_summary *l)
{
	return l->n ? l->sum_ns / (double)l->n : 0;
}

double latency_quantile_ns(const struct latency_summary *l, int op, double q)
{
	const uint64_t *h = op < 0 ? l->hist : l->hist_op[op];
	double v, max = (double)latency_op_max_ns(l, op);

	if (!h)
		return 0;
	v = hist_quantile64(h, LAT_SUM_BUCKETS, LAT_SUM_BITS, q);
	/* a bucket's midpoint may lie above the largest value seen */
	return v > max ? max : v;
}

void latency_quantiles_ns(const struct latency_summary *l, int op,
			  const double *q, size_t k, double *out)
{
	const uint64_t *h = op < 0 ? l->hist : l->hist_op[op];
	double max = (double)latency_op_max_ns(l, op);
	size_t i;

	if (!h) {
		for (i = 0; i < k; i++)
			out[i] = 0;
		return;
	}
	hist_quantiles64(h, LAT_SUM_BUCKETS, LAT_SUM_BITS, q, k, out);
	for (i = 0; i < k; i++)
		if (out[i] > max)
			out[i] = max;
}

uint64_t latency_op_n(const struct latency_summary *l, int op)
{
	return op < 0 ? l->n : l->n_op[op];
}

double latency_op_mean_ns(const struct latency_summary *l, int op)
{
	uint64_t n = latency_op_n(l, op);

	return n ? (op < 0 ? l->sum_ns : l->sum_op_ns[op]) / (double)n : 0;
}

uint64_t latency_op_max_ns(const struct latency_summary *l, int op)
{
	return op < 0 ? l->max_ns : l->max_op_ns[op];
}

int analysis_window_empty(const struct analysis *a, const struct options *o,
			  const char *name, char *buf, size_t size,
			  struct iow_error *err)
{
	double first = a->n_events_all ? (double)a->first_ns / 1e9 : 0;
	double last = (double)a->last_ns / 1e9;
	char devs[128] = "", one[24];
	size_t i;

	/* --compare says it of the trace it cannot compare, as an error */
	if (a->n_events || o->compare ||
	    (!o->has_x_range && !o->has_y_range && !o->n_only_devices))
		return 0;
	if (!a->n_events_all && o->n_only_devices) {
		for (i = 0; i < a->n_other_devices; i++) {
			snprintf(one, sizeof(one), "%s%u,%u", i ? " " : "",
				 blk_dev_major(a->other_devices[i]),
				 blk_dev_minor(a->other_devices[i]));
			strncat(devs, one, sizeof(devs) - strlen(devs) - 1);
		}
		if (!a->n_other_devices)
			return iow_fail(err, "%s: no event on the --device given: the trace has no I/O event at all",
					name);
		return iow_fail(err, "%s: no event on the --device given: the trace's device%s %s (%s)",
				name, a->n_other_devices > 1 ? "s are" : " is",
				devs, a->n_other_devices > 1 ?
				"give -d one of them, or several -d" :
				"give -d that one, or no -d");
	}
	/* beyond the trace: an error; an idle stretch inside it is an
	 * answer (no I/O then), said once */
	if (o->has_x_range && (o->x_min_s >= last || o->x_max_s <= first))
		return iow_fail(err, "%s: no event in -x %g:%g: the trace runs from %.3f to %.3f s (give -x a range inside it)",
				name, o->x_min_s, o->x_max_s, first, last);
	if (o->has_x_range)
		snprintf(buf, size, "no event in -x %g:%g, an idle stretch of the trace (it runs from %.3f to %.3f s)",
			 o->x_min_s, o->x_max_s, first, last);
	else
		snprintf(buf, size, "no I/O in -y %g:%g MiB", o->y_min_mib,
			 o->y_max_mib);
	return 1;
}

size_t analysis_map_cols(const struct analysis *a)
{
	return a->map_cols;
}

double analysis_map_col_start_s(const struct analysis *a, size_t col)
{
	return (double)(a->bin_origin_ns + col * a->map_width_ns) / 1e9;
}

void analysis_map_row_bytes(const struct analysis *a, size_t d, unsigned row,
			    uint64_t *lo, uint64_t *hi)
{
	iomap_row_bytes(&a->iomaps[d], row, lo, hi);
}

const struct analysis *analysis_device_part(const struct analysis *a,
					    uint32_t device)
{
	size_t i;

	for (i = 0; i < a->n_parts; i++)
		if (a->parts[i].part_device == device)
			return &a->parts[i];
	return NULL;
}

static int bins_usual(const struct analysis *a, uint64_t width, size_t n)
{
	return a->cfg.bin_width_ns || (width >= FIRST_BIN_NS &&
				       n <= ANALYSIS_MAX_BINS);
}

int analysis_bins_usual(const struct analysis *a)
{
	return bins_usual(a, a->bin_width_ns, a->n_bins);
}

size_t analysis_coarsen_plan(const struct analysis *a, uint64_t *width,
			     size_t *n_bins, size_t max)
{
	uint64_t w = a->bin_width_ns;
	size_t n = a->n_bins ? a->n_bins : 1, k = 0;
	unsigned f = a->next_coarsen;

	if (!max)
		return 0;
	for (;;) {
		width[k] = w;
		n_bins[k] = n;
		if (++k == max || bins_usual(a, w, n))
			return k;
		n = (n + f - 1) / f;
		w *= f;
		f = f == 2 ? 5 : 2;
	}
}

/* ---- while the trace streams ---- */

struct overdue_arg {
	uint32_t slot;
	uint64_t last_done, age, from, t;
	size_t n;
	double area_ns;
};

static int overdue_one(void *value, void *arg)
{
	const struct request_state *req = value;
	struct overdue_arg *x = arg;

	if (req->device_slot != x->slot || !req->issued ||
	    req->d_ns >= x->last_done || x->t <= req->d_ns ||
	    x->t - req->d_ns <= x->age)
		return 1;
	x->n++;
	x->area_ns += (double)(x->t - (req->d_ns > x->from ? req->d_ns
							    : x->from));
	return 1;
}

size_t analysis_overdue(struct analysis *a, uint32_t device, uint64_t from,
			uint64_t t, double *area_ns)
{
	struct overdue_arg x = { 0 };
	size_t i;

	*area_ns = 0;
	for (i = 0; i < a->n_devices; i++)
		if (a->devices[i].device == device)
			break;
	if (i == a->n_devices || a->devices[i].paired < HOLE_MIN_PAIRED ||
	    !a->devices[i].in_flight)
		return 0;
	/* a stretch (since the queue last drained) that never held more
	 * than the most the device held in stretches that drained shows
	 * nothing missing: a slow request is only slow */
	if (a->devices[i].q_drains >= HOLE_MIN_DRAINS &&
	    a->devices[i].q_epoch_max <= a->devices[i].q_bound)
		return 0;
	x.slot = (uint32_t)i;
	x.last_done = a->devices[i].last_done_d_ns;
	x.age = 2 * hole_bound(&a->devices[i]);
	x.from = from;
	x.t = t;
	ioset_filter(&priv(a)->requests, overdue_one, &x);
	*area_ns = x.area_ns;
	return x.n;
}
