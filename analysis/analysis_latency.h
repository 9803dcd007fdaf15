/*
 * analysis_latency.h: what a completed I/O adds to the latency
 * statistics (analysis.c's, included by it alone, after its declaration
 * of tag_slot): the device's, the bins' and the tags' D2C, Q2C and Q2D
 * sums and histograms, the cause ledger, and what cfg.on_sample and
 * cfg.on_row are told. Every completion calls them: they are static
 * here, not inline, so that they stay in analysis.c's translation unit
 * and compile as they did when they were written there (the same code
 * inlined in the same places; -Wunused-function warns where another file
 * includes this).
 */
#ifndef IOWATCHER_ANALYSIS_LATENCY_H
#define IOWATCHER_ANALYSIS_LATENCY_H

#include <stdint.h>
#include <stdlib.h>

#include "analysis.h"
#include "base/bigmem.h"
#include "base/u64map.h"
#include "histogram.h"
#include "analysis_int.h"

/* Tells cfg.on_sample, if any, what was just counted. */
static void tell_sample(const struct analysis *a, unsigned what, int op,
			uint32_t device, int32_t tag, uint64_t t,
			uint32_t bytes, uint64_t d2c, uint64_t q2c)
{
	struct analysis_sample s = { what, op, device, tag, t, bytes, d2c,
				     q2c };

	if (a->cfg.on_sample)
		a->cfg.on_sample(a->cfg.sample_ctx, &s);
}

static int latency_add(struct latency_summary *l, int op, uint64_t ns)
{
	size_t k;

	if (!l->hist && !(l->hist = calloc(LAT_SUM_BUCKETS, sizeof(*l->hist))))
		return -1;
	if (!l->hist_op[op] &&
	    !(l->hist_op[op] = calloc(LAT_SUM_BUCKETS, sizeof(*l->hist))))
		return -1;
	k = latency_count(&l->n, &l->sum_ns, &l->max_ns, ns);
	latency_count(&l->n_op[op], &l->sum_op_ns[op], &l->max_op_ns[op], ns);
	l->hist[k]++;
	l->hist_op[op][k]++;
	return 0;
}

/* Bins whose histograms' pages are mapped at once (bigmem.h). */
#define HIST_MAP_BINS	64

/* op's per-bin histograms, there and mapped up to bin. */
static int bin_hist_ready(struct analysis *a, int op, size_t bin)
{
	size_t from;

	if (!a->lat_hist[op])
		a->lat_hist[op] = bigmem_lazy_calloc(a->cap_bins *
						     LAT_BIN_BUCKETS *
						     sizeof(uint32_t));
	if (!a->size_hist[op] && !a->cfg.no_size_bins)
		a->size_hist[op] = bigmem_lazy_calloc(a->cap_bins *
						      SIZE_BUCKETS *
						      sizeof(uint32_t));
	if (!a->lat_hist[op] || (!a->size_hist[op] && !a->cfg.no_size_bins))
		return -1;
	if (bin < a->hist_mapped[op])
		return 0;
	from = bin / HIST_MAP_BINS * HIST_MAP_BINS;
	if (from < a->hist_mapped[op])
		from = a->hist_mapped[op];
	a->hist_mapped[op] = from + HIST_MAP_BINS;
	if (a->hist_mapped[op] > a->cap_bins)
		a->hist_mapped[op] = a->cap_bins;
	bigmem_prefault(a->lat_hist[op], from * LAT_BIN_BUCKETS *
			sizeof(uint32_t), (a->hist_mapped[op] - from) *
			LAT_BIN_BUCKETS * sizeof(uint32_t));
	if (a->size_hist[op])
		bigmem_prefault(a->size_hist[op], from * SIZE_BUCKETS *
				sizeof(uint32_t), (a->hist_mapped[op] - from) *
				SIZE_BUCKETS * sizeof(uint32_t));
	return 0;
}

/* One D2C sample of op into its bin (all latency series read these). */
static void bin_add_d2c(struct analysis *a, size_t bin, int op, uint64_t d2c)
{
	struct bin *b = &a->bins[bin];

	b->d2c_sum_ns[op] += d2c;
	b->d2c_n[op]++;
	if (d2c > b->d2c_max_ns[op])
		b->d2c_max_ns[op] = d2c;
	if (a->cfg.stats_only)
		return;
	if (d2c >= 1ull << LAT_BIN_MAX_BITS)
		d2c = (1ull << LAT_BIN_MAX_BITS) - 1;
	lat_hist_at(a, bin, op)[hist_index(d2c, LAT_BIN_BITS)]++;
}

/* A D2C sample of a data bio or request of tag, in its tag's series. */
static int tag_add_d2c(struct analysis *a, int32_t tag, size_t bin, int op,
		       uint64_t d2c)
{
	struct tag_stats *t;
	struct tag_bin *b;
	long s;

	if (!a->tagging && tag == IO_EVENT_NO_TAG)
		return 0;
	if ((s = tag_slot(a, tag)) < 0)
		return -1;
	t = &a->tags[s];
	b = &t->bins[bin];
	if (latency_add(&t->d2c, op, d2c) < 0)
		return -1;
	b->d2c_n++;
	b->d2c_sum_ns += d2c;
	if (d2c > b->d2c_max_ns)
		b->d2c_max_ns = d2c;
	if (a->cfg.stats_only)
		return 0;
	if (!t->lat_bins &&
	    !(t->lat_bins = calloc(a->cap_bins, sizeof(*t->lat_bins))))
		return -1;
	if (!t->lat_bins[bin] &&
	    !(t->lat_bins[bin] = calloc(LAT_BIN_BUCKETS, sizeof(uint32_t))))
		return -1;
	if (d2c >= 1ull << LAT_BIN_MAX_BITS)
		d2c = (1ull << LAT_BIN_MAX_BITS) - 1;
	t->lat_bins[bin][hist_index(d2c, LAT_BIN_BITS)]++;
	return 0;
}

/* A flush request's D2C in its tag's series, apart from data latency. */
static int tag_add_flush_d2c(struct analysis *a, int32_t tag, size_t bin,
			     uint64_t d2c)
{
	struct tag_flush_bin *b;
	long s;

	if (a->cfg.stats_only || (!a->tagging && tag == IO_EVENT_NO_TAG))
		return 0;
	if ((s = tag_slot(a, tag)) < 0)
		return -1;
	if (!a->tags[s].flush_bins &&
	    !(a->tags[s].flush_bins = calloc(a->cap_bins,
					     sizeof(struct tag_flush_bin))))
		return -1;
	b = &a->tags[s].flush_bins[bin];
	b->n++;
	b->sum_ns += d2c;
	if (d2c > b->max_ns)
		b->max_ns = d2c;
	return 0;
}

/* The ledger's sums of (device, cause, op), made at their first bio. */
static struct cause_sums *ledger_entry(struct analysis *a, uint32_t device,
				       uint32_t cause, int op)
{
	struct analysis_private *p = priv(a);
	uint64_t key = (uint64_t)device << 34 | (uint64_t)cause << 2 |
		       (uint64_t)op;
	struct cause_sums *e;
	uint32_t idx;

	if (u64map_get(&p->ledger_index, key, &idx))
		return &a->ledger[idx];
	if (a->n_ledger == a->cap_ledger) {
		struct cause_sums *more = vec_grow(a->ledger, &a->cap_ledger,
						   a->n_ledger + 1,
						   sizeof(*more), 64);

		if (!more)
			return NULL;
		a->ledger = more;
	}
	e = &a->ledger[a->n_ledger];
	memset(e, 0, sizeof(*e));
	e->device = device;
	e->cause = cause;
	e->op = op;
	if (!(e->q2c_hist = calloc(LAT_BIN_BUCKETS, sizeof(*e->q2c_hist))) ||
	    u64map_put(&p->ledger_index, key, (uint32_t)a->n_ledger) < 0) {
		free(e->q2c_hist);
		return NULL;
	}
	return &a->ledger[a->n_ledger++];
}

static int ledger_add(struct analysis *a, uint32_t device, uint32_t cause,
		      int op, uint32_t bytes, uint64_t q2c)
{
	struct cause_sums *e = ledger_entry(a, device, cause, op);

	if (!e)
		return -1;
	e->bytes += bytes;
	e->bios++;
	e->q2c_sum_ns += (double)q2c;
	if (q2c >= 1ull << LAT_BIN_MAX_BITS)
		q2c = (1ull << LAT_BIN_MAX_BITS) - 1;
	e->q2c_hist[hist_index(q2c, LAT_BIN_BITS)]++;
	return 0;
}

/* A row of the per-I/O log, if anyone reads it. */
static void tell_row(const struct analysis *a, const struct io_event *c,
		     uint64_t sector, uint32_t bytes, int op, unsigned has,
		     uint64_t q2d, uint64_t d2c, uint64_t q2c, uint32_t cause,
		     int32_t tag)
{
	struct analysis_row r = { c->time_ns, c->index, sector, c->device,
				  bytes, op, has, q2d, d2c, q2c, cause, tag, 0 };

	if (!a->cfg.on_row)
		return;
	a->cfg.on_row(a->cfg.row_ctx, &r);
	priv(a)->rows_told++;
}

/* A flush's row: no Q, so no cause; the task it was issued in instead. */
static void tell_flush_row(const struct analysis *a, const struct io_event *c,
			   uint64_t d2c, int32_t tag, uint32_t issuer_pid)
{
	struct analysis_row r = { c->time_ns, c->index, c->sector, c->device,
				  0, OP_FLUSH, ANALYSIS_HAS_D2C, 0, d2c, 0, 0,
				  tag, issuer_pid };

	if (!a->cfg.on_row)
		return;
	a->cfg.on_row(a->cfg.row_ctx, &r);
	priv(a)->rows_told++;
}

/*
 * A completed data bio (at sector) queued at q, issued at dt and
 * completed by the event c. The three latencies add up (Q2C = Q2D +
 * D2C) even where per-CPU clocks put a D before its Q: times are taken
 * as q <= d <= c.
 */
static int account_bio(struct analysis *a, struct device_stats *d,
		       size_t bin, int op, int32_t tag,
		       const struct bio_state *bio, uint64_t sector,
		       const struct io_event *ev)
{
	struct bin *b = &a->bins[bin];
	uint64_t q = bio->q_ns, dt = bio->d_ns, c = ev->time_ns;
	uint64_t c_ns = c;

	if (dt < q)
		dt = q;
	if (c < dt)
		c = dt;
	tell_row(a, ev, sector, bio->bytes, op, ANALYSIS_HAS_Q2D |
		 ANALYSIS_HAS_D2C | ANALYSIS_HAS_Q2C, dt - q, c - dt, c - q,
		 bio->cause, tag);
	if (a->cfg.cause_ledger &&
	    ledger_add(a, d->device, bio->cause, op, bio->bytes, c - q) < 0)
		return -1;
	tell_sample(a, ANALYSIS_D2C | ANALYSIS_Q2C, op, d->device, tag, c_ns,
		    0, c - dt, c - q);
	if (latency_add(&d->d2c, op, c - dt) < 0 ||
	    latency_add(&d->q2c, op, c - q) < 0 ||
	    latency_add(&d->q2d, op, dt - q) < 0)
		return -1;
	bin_add_d2c(a, bin, op, c - dt);
	b->q2c_sum_ns[op] += c - q;
	b->q2d_sum_ns[op] += dt - q;
	b->lat_n[op]++;
	return tag_add_d2c(a, tag, bin, op, c - dt);
}

#endif
