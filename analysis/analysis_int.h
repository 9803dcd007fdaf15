/*
 * analysis_int.h: what the pieces of the analysis share (analysis.c and
 * analysis_*.c): its private state, and the functions one piece defines
 * and another calls. The stages after the analysis read analysis.h.
 */
#ifndef IOWATCHER_ANALYSIS_INT_H
#define IOWATCHER_ANALYSIS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "ioset.h"
#include "base/u64map.h"
#include "reader/account.h"
#include "reader/blktrace.h"

#define FIRST_BIN_NS		1000000ull	/* bins start 1 ms wide */

enum bio_stage { BIO_QUEUED, BIO_ISSUED };

struct bio_state {
	uint64_t q_ns, d_ns;
	uint32_t bytes;
	int32_t tag;
	uint32_t cause;		/* its QUEUE event's (cause.h), 0: none */
	uint8_t stage;
	uint8_t split_rest;	/* a split's remainder not yet in a request */
	uint8_t preflush;	/* queued with a preflush (F): a flush is
				 * issued after its Q and done before its D */
};

/* Flush requests issued and not completed, oldest first (a ring). */
struct flush_fifo {
	uint64_t *d_ns;
	int32_t *tag;
	uint32_t *pid;	/* the task its D ran in: no Q names one */
	uint16_t *cpu;	/* its D's (CPUs past 65535: 65535) */
	size_t head, len, cap;
};

struct request_state {
	uint64_t d_ns;
	uint32_t bytes;
	int32_t tag;
	uint32_t device_slot;
	uint8_t issued;		/* 0 after a requeue, until its next D */
	uint8_t has_bios;	/* some bio queued in the trace went in it */
	uint16_t cpu;		/* of its D (CPUs past 65535: 65535) */
	/* an older request at its sector paired in its place (a pairing
	 * with another candidate): the issue of the first of that chain,
	 * from which its sector has had one in flight; else 0 */
	uint64_t chain_ns;
};

/* A request in flight when a loss window began, and when that was. */
/* A request (or flush) a loss forgot: in the depth from d_ns to
 * until_ns (analysis_loss.c). */
struct forgotten {
	uint64_t d_ns, until_ns;
	uint32_t device_slot;
	int32_t tag;
	int flush;
};

struct analysis_private {
	struct ioset bios, requests;
	size_t bios_after_sweep, requests_after_sweep;
	struct tag_index_entry *tag_index;
	size_t tag_index_cap;
	size_t last_device;
	const struct analysis_hub *hub;	/* analysis.c's helpers */
	/* Whether the trace has had a split (X) or a requeue (R): until
	 * then no bio waits as a split's rest and every request in flight
	 * is issued, and the lookups for them are skipped. */
	int any_split, any_requeue;
	/* cfg.cause_ledger: (device, cause, op) -> ledger index */
	struct u64map ledger_index;
	uint64_t rows_told;	/* cfg.on_row: rows so far */
	int32_t completion_tag;	/* the tag the last completion counted in */
	int pair_ambiguous;	/* request_for's last had two candidates */
	/* A flush completion's timing, held (analysis->flush_held) until
	 * the next event that could tell it was not the paired flush's
	 * (analysis.c, flush_held_settle): applied then in the same place
	 * of the events' order, or taken back */
	struct flush_held {
		struct io_event ev;	/* the completion (no payload) */
		uint64_t d_ns;		/* the flush it was paired with */
		size_t slot, bin;
		uint32_t issuer_pid;
		int32_t tag;
		int alone, counted;
	} flush_held;
	/* the last loss notes read: a recorder writes one per traced
	 * device, and a loss is counted once */
	struct lossnote recent_notes[16];
	size_t n_recent_notes;
	/* cfg.missing_completions: the requests a loss window forgot, any
	 * of which may be one whose completion went unseen before it */
	struct forgotten *forgotten;
	size_t n_forgotten, cap_forgotten;
};

/* analysis.c's helpers its parts call, through the table it sets up
 * (struct analysis_hub, analysis_hub.h): calls run one way, from the hub
 * to its parts (tests/t_calls.sh). */
struct analysis_hub {
	void (*bare_row)(struct analysis *a, const struct io_event *ev,
		int counted, uint64_t rows_before);
	int (*count_completion)(struct analysis *a, struct device_stats *d,
		const struct io_event *ev, int op, int32_t tag, size_t bin);
	void (*depth_change)(struct analysis *a, struct device_stats *d,
		uint64_t t, int delta);
	struct device_stats *(*device_get)(struct analysis *a, uint32_t device,
		size_t *slot);
	int (*device_wanted)(const struct analysis *a, uint32_t device);
	void (*map_issue_or_queue)(struct analysis *a, size_t slot,
		const struct io_event *ev);
	void (*tag_depth_change)(struct analysis *a, int32_t tag, uint64_t t,
		int delta);
	int (*flush_held_apply)(struct analysis *a);
	long (*tag_index_find)(const struct analysis_private *p, int32_t id);
};

static inline struct analysis_private *priv(const struct analysis *a)
{
	return a->private;
}

static inline int analysis_has_category(const struct io_event *ev,
					uint32_t cat)
{
	return (ev->action & BLK_TC_ACT(cat)) != 0;
}

/* The op of a data bio or request: the key that keeps overlapping reads,
 * writes, discards and write-zeroes of one sector apart. */
static inline int analysis_data_op(const struct io_event *ev)
{
	if (analysis_has_category(ev, BLK_TC_DISCARD))
		return OP_DISCARD;
	if (ev->action_hi & BLK_TC2_WRITE_ZEROES)
		return OP_WRITE_ZEROES;
	return blk_is_write(ev->action) ? OP_WRITE : OP_READ;
}

static inline int direction(const struct io_event *ev)
{
	return blk_is_write(ev->action) ? DIR_WRITE : DIR_READ;
}

/*
 * The class a completion counts in (io-accounting.md): a zone command
 * (management, or an append: a write), a flush, an empty completion
 * (-1, not an I/O), or the op of its data.
 */
static inline int completion_op(const struct io_event *ev)
{
	if (ev->action_hi & BLK_TC2_ZONE_MGMT)
		return OP_ZONE;
	if (ev->action_hi & BLK_TC2_ZONE_APPEND)
		return OP_WRITE;
	if (!ev->bytes)
		return analysis_has_category(ev, BLK_TC_FLUSH) ? OP_FLUSH : -1;
	return analysis_data_op(ev);
}

/* An empty completion; at sector 0 a write that never had data (a
 * preflush alone), which the kernel counts as a write (account.h). */
static inline void count_empty(struct device_stats *d,
			       const struct io_event *ev)
{
	d->empty_completions++;
	if (acct_class(ev->action, 0, ev->sector) == ACCT_WRITE)
		d->dataless_writes++;
}

/* analysis_bins.c; what every event asks of the bins is inline */
void coarsen(struct analysis *a);
size_t bin_for_slow(struct analysis *a, uint64_t t);

static inline int in_time_range(const struct analysis *a, uint64_t t)
{
	return !a->cfg.has_time_range ||
	       (t >= a->cfg.time_min_ns && t < a->cfg.time_max_ns);
}

static inline uint32_t *lat_hist_at(const struct analysis *a, size_t bin,
				    int op)
{
	return a->lat_hist[op] + bin * LAT_BIN_BUCKETS;
}

static inline uint32_t *size_hist_at(const struct analysis *a, size_t bin,
				     int op)
{
	return a->size_hist[op] + bin * SIZE_BUCKETS;
}

/* The bin of an event at t: events come in time order, so most fall in
 * the bin of the last; else the bins are found or grown (and merged). */
static inline size_t bin_for(struct analysis *a, uint64_t t)
{
	if (t >= a->cached_bin_start && t - a->cached_bin_start <
	    a->bin_width_ns && a->cached_bin < a->n_bins)
		return a->cached_bin;
	return bin_for_slow(a, t);
}

/*
 * The bin holding t (at or after the bins' origin), and in *end where
 * that bin's part of [t, to) ends (t < to; a bin's end may lie beyond
 * 2^64 ns): every walk over the bins of a stretch of time steps so.
 */
static inline size_t bin_part(const struct analysis *a, uint64_t t,
			      uint64_t to, uint64_t *end)
{
	size_t bin = (size_t)((t - a->bin_origin_ns) / a->bin_width_ns);
	uint64_t left = a->bin_width_ns - (t - a->bin_origin_ns -
					   bin * a->bin_width_ns);

	*end = to - t > left ? t + left : to;
	return bin;
}

/* analysis_holes.c */
/* completions a device pairs before anything is inferred on it */
#define HOLE_MIN_PAIRED	8
/* at the trace's end, on a device with fewer: a request out twice the
 * longest of these, with one issued after it completed (the discard
 * sample, one CPU's completions of fstrim's lost: 5 paired) */
#define HOLE_MIN_PAIRED_END	4
/* The trace's bound on a device: the longest request it paired with no
 * other candidate (at least 1 us). */
static inline uint64_t hole_bound(const struct device_stats *d)
{
	return d->max_lat_ns > 1000 ? d->max_lat_ns : 1000;
}
void hole_paired(struct device_stats *d, uint64_t d_ns, uint64_t now,
	int alone);
/* stretches that drained before a device's queue bound is trusted */
#define HOLE_MIN_DRAINS	8
int hole_flush_issued(struct analysis *a, struct device_stats *d,
	const struct io_event *ev);
void hole_chain(struct analysis *a, const struct request_state *req,
	const struct io_event *ev, int op);
void hole_flush_paired(struct device_stats *d, uint64_t lat, int alone);
int hole_unmatched(struct analysis *a, struct device_stats *d,
	const struct io_event *ev);
struct request_state *hole_superseded(struct analysis *a,
	struct device_stats *d, const struct io_event *ev, int op);
void holes_finish(struct analysis *a);
int hole_flush_superseded(struct analysis *a, struct device_stats *d,
	uint64_t now);
int hole_preflush_lost(struct analysis *a, struct device_stats *d,
	uint64_t q_ns, uint64_t now);
int hole_flush_shifted(struct analysis *a, struct device_stats *d,
	uint64_t d_ns, int32_t tag, const struct io_event *c, int counted);

/* analysis_loss.c */
int account_note(struct analysis *a, const struct io_event *ev,
	struct iow_error *err);
int add_io_in_loss(struct analysis *a, const struct io_event *ev, int counted,
	struct iow_error *err);
void loss_finish(struct analysis *a);
int loss_note(struct analysis *a, const struct io_event *ev,
	struct iow_error *err);
void unseen_off_depth(struct analysis *a);

/* analysis_end.c */
void analysis_device_free(struct device_stats *d);

/* analysis_shared.c: a leaf the parts share */
int loss_window_append(struct analysis *a, const struct loss_window *w);
double depth_remove(struct analysis *a, uint64_t from, uint64_t to,
	char *sink, size_t stride, char *sink2, size_t stride2);

#endif
