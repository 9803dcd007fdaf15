/*
 * analysis.h: one streaming pass over a trace's events, turning them into
 * per-device statistics and per-trace time series. Memory is bounded by
 * the I/Os in flight, the number of bins and the offset-map cells, never
 * by the trace's length: bins start 1 ms wide and are merged (x2, x5,
 * x2, x5 ... so widths stay 1-2-5 round) whenever the trace outgrows
 * ANALYSIS_MAX_BINS of them.
 *
 * What is counted follows the man page's "HOW I/O IS COUNTED": every completion is a read, a write, a discard, a
 * flush or an empty completion (not an I/O); latency is per data bio: a
 * bio is queued (Q), may be split (X) into pieces that each go on alone,
 * is dispatched in the request that covers it (D, the last after a
 * requeue) and completes when a completion (C) covers its end. Flush
 * requests pair first in, first out and have a latency of their own.
 * Requests and bios are looked up by device, op and start sector, so a
 * read inside an in-flight write is another I/O.
 *
 * Where the recorder lost events (a loss note, lossnote.h), nothing in
 * flight can be trusted: at the window's start every bio and request in
 * flight is forgotten (counted as lost in flight, never timed), and until
 * its end completions are counted but nothing is timed and no depth is
 * added; the window's time is left out of the queue depth's mean. So a
 * loss never shows as latency or queue depth, only as windows.
 */
#ifndef IOWATCHER_ANALYSIS_H
#define IOWATCHER_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "reader/account.h"
#include "base/error.h"
#include "event.h"
#include "histogram.h"
#include "iomap.h"

/* Direction of a queued, merged or issued bio: its WRITE bit, as blkparse. */
enum io_dir { DIR_READ = 0, DIR_WRITE = 1, N_DIRS = 2 };
/* What a completion counts as: the kernel's REQ_OP_*. Read and write come
 * first and keep the numbers of their directions. */
enum io_op {
	OP_READ = 0, OP_WRITE = 1, OP_DISCARD = 2, OP_FLUSH = 3,
	OP_ZONE = 4,		/* zone reset, reset all, finish, open, close */
	OP_WRITE_ZEROES = 5,
	N_OPS
};
#define N_DATA_OPS	3	/* read, write, discard: ops with bytes */

#define ANALYSIS_MAX_BINS	1024	/* automatic width keeps bins below */
#define ANALYSIS_MAX_FIXED_BINS	8192	/* --bin-ms may ask for up to this */
#define LAT_BIN_BITS		3	/* per-bin latency histograms */
#define LAT_BIN_MAX_BITS	40	/* up to 2^40 ns, about 18 minutes */
#define LAT_BIN_BUCKETS		((LAT_BIN_MAX_BITS - LAT_BIN_BITS + 1) << LAT_BIN_BITS)
#define LAT_SUM_BITS		7	/* whole-trace latency histograms */
#define LAT_SUM_MAX_BITS	44
#define LAT_SUM_BUCKETS		((LAT_SUM_MAX_BITS - LAT_SUM_BITS + 1) << LAT_SUM_BITS)
#define SIZE_BITS		2	/* request sizes in bytes */
#define SIZE_MAX_BITS		32
#define SIZE_BUCKETS		((SIZE_MAX_BITS - SIZE_BITS + 1) << SIZE_BITS)

/*
 * One thing the analysis counted, handed to cfg.on_sample as it is
 * counted, for a caller that keeps figures of its own time slices (the
 * live view): every completion (ANALYSIS_COMPLETION, with its class and
 * bytes) and every latency sample, with the latencies it has: a data bio
 * D2C and Q2C, a request queued before the trace D2C only, a bio of a
 * bio-based device Q2C only, a flush request D2C (op OP_FLUSH). Values
 * are as the summary's histograms take them; time_ns is the completion's.
 */
#define ANALYSIS_COMPLETION	1u
#define ANALYSIS_D2C		2u
#define ANALYSIS_Q2C		4u

struct analysis_sample {
	unsigned what;		/* ANALYSIS_COMPLETION, or D2C and/or Q2C */
	int op;			/* enum io_op */
	uint32_t device;
	int32_t tag;
	uint64_t time_ns;
	uint32_t bytes;		/* a completion's */
	uint64_t d2c_ns, q2c_ns;
};

struct analysis;

/*
 * One row of the per-I/O log (--events), handed to cfg.on_row in the
 * order of completion: a timed bio (its three latencies), or a
 * completion that timed none (a flush, a request queued before the
 * trace: its D2C; in a loss window: none). Rows of one I/O share io,
 * its completion's event number: they number the summary's I/Os, and
 * the rows' latencies are the summary's samples.
 */
#define ANALYSIS_HAS_Q2D	1u
#define ANALYSIS_HAS_D2C	2u
#define ANALYSIS_HAS_Q2C	4u

struct analysis_row {
	uint64_t time_ns;	/* the completion's */
	uint64_t io;		/* the completion's event number */
	uint64_t sector;
	uint32_t device, bytes;
	int op;			/* enum io_op */
	unsigned has;		/* ANALYSIS_HAS_* */
	uint64_t q2d_ns, d2c_ns, q2c_ns;
	uint32_t cause;		/* the bio's (ev->cause at its QUEUE), 0 */
	int32_t tag;
	/* a flush (no QUEUE, no cause): the pid its D was traced in, the
	 * task that issued it (blkparse's on that line); else 0 */
	uint32_t issuer_pid;
};

/*
 * What the bios of one cause on one device did, by class: the cause
 * pictures and the stacks summary read these (cfg.cause_ledger). The
 * Q2C histogram (LAT_BIN_BUCKETS, within 1/8 of a power of two) gives
 * a file its p99.
 */
struct cause_sums {
	uint32_t device;
	uint32_t cause;
	int op;
	uint64_t bytes, bios;
	double q2c_sum_ns;
	uint32_t *q2c_hist;
};

struct analysis_config {
	uint64_t bin_width_ns;	/* 0: chosen from the trace's duration */
	int has_time_range;	/* -x: count only events in [min, max) */
	uint64_t time_min_ns, time_max_ns;
	int has_offset_range;	/* -y: count only I/O in [min, max) bytes */
	uint64_t offset_min, offset_max;
	unsigned iomap_action;	/* action code the I/O map plots (Q, D, C) */
	/* Statistics only (--summary without graphs): no I/O map and no
	 * per-bin histograms, which only pictures and CSV read. */
	int stats_only;
	/* --device: only these devices (kernel dev_t); none: all. */
	const uint32_t *only_devices;
	size_t n_only_devices;
	/* --per-device: also an analysis of each device alone */
	int per_device;
	/* optional: told of every completion and latency sample counted */
	void (*on_sample)(void *ctx, const struct analysis_sample *s);
	void *sample_ctx;
	/* optional: the per-I/O log's rows (struct analysis_row) */
	void (*on_row)(void *ctx, const struct analysis_row *r);
	void *row_ctx;
	/*
	 * optional: told of each request in flight a recorded loss made
	 * the analysis forget (analysis_loss.c), which was in the queue
	 * depth from its issue to the loss: an output drawing the depth
	 * request by request (Perfetto) counts it as the summary does.
	 */
	void (*on_forget)(void *ctx, uint32_t device, uint64_t d_ns,
			  uint64_t until_ns);
	void *forget_ctx;
	/*
	 * optional: told when a device's depth area over [from, to) is
	 * taken back (a request judged lost, analysis_holes.c: out of the
	 * depth from its issue; completions the kernel made unseen), so a
	 * view that already summed that time (--live) can take it back.
	 */
	void (*on_depth_removed)(void *ctx, uint32_t device, uint64_t from_ns,
				 uint64_t to_ns);
	void *depth_ctx;
	/* keep per (device, cause, class) sums of the timed bios */
	int cause_ledger;
	/*
	 * The trace says the kernel completed requests without the recorder
	 * seeing it (feed_unlocated_losses): a completion then pairs with
	 * the newest request it covers, not the oldest, so that one whose
	 * completion was never seen is never taken for a later one's (the
	 * oldest-first rule would time every later I/O of that sector from
	 * the one before it).
	 */
	int missing_completions;
	/*
	 * The report's detail: bins start first_bin_ns wide instead of
	 * 1 ms, and widen only past max_bins instead of ANALYSIS_MAX_BINS;
	 * analysis_coarsen then widens them, step by step, to what they
	 * would have been (0, 0: as usual; --bin-ms overrides both).
	 */
	uint64_t first_bin_ns;
	size_t max_bins;
	/* no per-bin size histograms: nothing drawn reads them (a report
	 * without the size graph, whose fine bins would hold 16 MB) */
	int no_size_bins;
	/* optional: told of every I/O the I/O map counts, with its device's
	 * slot in the analysis and its tag's (-1: untagged); not parts' */
	void (*on_map)(void *ctx, const struct analysis *a, size_t slot,
		       const struct io_event *ev, long tag_slot);
	void *map_ctx;
};

/* A distribution of latencies in ns (one metric, whole trace). */
struct latency_summary {
	uint64_t n;
	double sum_ns;
	uint64_t max_ns;
	uint64_t *hist;		/* LAT_SUM_BUCKETS, NULL until first value */
	uint64_t *hist_op[N_OPS];
	/* each class's alone: the summary has a row per class */
	uint64_t n_op[N_OPS];
	double sum_op_ns[N_OPS];
	uint64_t max_op_ns[N_OPS];
};

/*
 * One latency of ns into a count, sum and maximum, clamped as the
 * whole-trace histograms take it; returns its bucket among
 * LAT_SUM_BUCKETS (for the analysis's summaries and the live view's).
 */
static inline size_t latency_count(uint64_t *n, double *sum_ns,
				   uint64_t *max_ns, uint64_t ns)
{
	if (ns >= 1ull << LAT_SUM_MAX_BITS)
		ns = (1ull << LAT_SUM_MAX_BITS) - 1;
	++*n;
	*sum_ns += (double)ns;
	if (ns > *max_ns)
		*max_ns = ns;
	return hist_index(ns, LAT_SUM_BITS);
}

/*
 * Where events were lost, from the trace's start: a window of one CPU's
 * loss note, or of several that overlap (merged as they come).
 */
struct loss_window {
	uint64_t from_ns, to_ns;
	uint64_t events;	/* the known counts, added up */
	uint64_t cpu_mask;	/* CPUs 0-62; bit 63: CPU 63 and above */
	int count_unknown;	/* a note said "an unknown number" */
	int noted_late;		/* the note came after events it touched */
	/* the CPUs whose files end early here (feed_cuts): lost from
	 * there to the trace's end (bits as cpu_mask) */
	uint64_t ended_cpu_mask;
	/* Inferred (analysis_holes.c), not recorded: no note said it, the
	 * trace's own evidence did. Of one device; its requests judged
	 * lost (HOLE_ORPHANS) or its completions of requests never issued
	 * (HOLE_UNMATCHED); cpu_mask then the CPUs that carried them. Its
	 * time stays in the queue depth's mean (only the lost requests
	 * leave it), so lossy_ns counts recorded windows alone. */
	int inferred;
	int hole_kind;		/* HOLE_* */
	uint32_t device;
	uint64_t requests;
};

#define HOLE_ORPHANS	1	/* requests whose completion was lost */
#define HOLE_UNMATCHED	2	/* completions whose issue was lost */

struct device_span {
	uint32_t device;
	uint64_t first_ns, last_ns;
	/* a merge's (merge.c): the time of the span in loss windows, as
	 * the summaries said it, where the windows are not the device's */
	uint64_t lossy_ns;
	int lossy_known;
};

struct device_stats {
	uint32_t device;
	uint64_t ios[N_OPS], bytes[N_OPS];	/* completions by class */
	uint64_t empty_completions;	/* 0-byte, not flush: not I/Os */
	uint64_t dataless_writes;	/* of those, writes without data
					 * (sector 0: a preflush alone) */
	uint64_t queued[N_DIRS], issued[N_DIRS], merges[N_DIRS];
	/* Data bios (read, write, discard); Q2C and Q2D over the same
	 * bios, D2C also once per request queued before the trace. */
	struct latency_summary d2c, q2c, q2d;
	struct latency_summary flush_d2c;	/* flush requests */
	double depth_area_ns;	/* integral of requests in flight over time */
	uint64_t seeks;
	/* requests and bios in flight at a loss: their end is unknown */
	uint64_t lost_in_flight;
	/* requests taken as those whose completions the kernel made unseen
	 * (the longest in flight at the end), out of the depth */
	uint64_t unseen_completions;
	/* Inferred holes (analysis_holes.c): requests judged lost, on the
	 * trace's evidence, out of latency and depth from their issue;
	 * completions of requests never issued (counted, not timed) */
	uint64_t orphan_requests;
	uint64_t unmatched_completions;
	/* the kernel's counts over the recording, as its note says */
	struct acctnote account;
	int has_account;
	double *depth_bins;	/* this device's depth area per bin */
	uint32_t *seek_bins;	/* and its seeks */
	int has_io;		/* saw Q, D or C (not only remaps) */
	/* internal */
	uint32_t in_flight;
	uint32_t requests[N_OPS];	/* data requests in flight, by op */
	uint64_t depth_since_ns;
	/* requests a loss note past the last record forgot: their time
	 * from that record to the note is the depth's only once a later
	 * record shows the trace went on (analysis_loss.c) */
	uint32_t tail_n;
	uint64_t tail_from_ns, tail_to_ns;
	uint64_t next_sector;	/* where the last issued request ended */
	int has_last_issue;
	struct flush_fifo *flushes;	/* flush requests issued, in order */
	/* the trace's own bound (analysis_holes.c): the longest a request
	 * it paired with no other candidate took (D2C; bio-based, Q2C),
	 * how many it paired, the
	 * latest issue of one that completed */
	uint64_t max_lat_ns, paired, last_done_d_ns;
	/* [0] requests, [1] flushes paired with no other candidate (an
	 * ambiguous pairing may be one a lost completion shifted): their
	 * latencies' histogram (LAT_BIN_BUCKETS each), count, and p99 as
	 * of usual_at */
	uint32_t *usual_hist;
	uint64_t usual_n[2], usual_ns[2], usual_at[2];
	uint64_t flush_max_ns;	/* the longest of those flushes */
	uint64_t flush_min_ns;	/* and the shortest (not 0) */
	uint64_t flush_done_d_ns;	/* the issue of the last flush paired */
	/* flushes issued with no other flush in flight; set when a flush
	 * completion found none in flight (its flushes do overlap) */
	uint32_t flush_serial;
	uint8_t flush_overlaps;
	/* the last flush completion found two or more waiting */
	uint32_t flush_run;
	/* the queue's bound the trace shows (analysis_holes.c): the most
	 * requests in flight in a stretch that ended with none (every
	 * request of it completed: nothing lost in it), over how many such
	 * stretches; the most since the last */
	uint32_t q_bound, q_epoch_max, q_drains;
	size_t hole_win[3];	/* 1 + index in a->loss of its last window
				 * of each HOLE_* kind, until loss_finish */
	int saw_issue;
	int saw_queue;	/* a data bio's Q: its requests' Qs are traced */
	/* flush sequences open (a write queued with a preflush or FUA,
	 * whose empty completion ends it, at its sector or, its data
	 * done, just past it): their sectors and ends, the last 16; how
	 * many ended as seen (analysis.c, flush_end_unseen) */
	uint64_t seq_open[16], seq_end[16];
	uint32_t n_seq_open, seq_next, seq_ends;
	/* the last write issued whose bio was never queued (a sequence's
	 * data step, its Q lost): its sector, its end, when */
	uint64_t unq_sector, unq_end, unq_ns;
};

/* One time bin of the trace's series; all devices together. */
struct bin {
	uint64_t bytes[N_OPS];
	uint32_t ios[N_OPS];
	uint64_t d2c_sum_ns[N_OPS], q2c_sum_ns[N_OPS], q2d_sum_ns[N_OPS];
	uint32_t lat_n[N_OPS];		/* bios with all three latencies */
	uint32_t d2c_n[N_OPS];
	uint64_t d2c_max_ns[N_OPS];
	double depth_area_ns;
	uint32_t seeks;
	uint64_t lossy_ns;	/* of the bin, in loss windows (at finish) */
};

/* Completions, D2C of data bios, requests in flight and seeks per tag,
 * per bin. */
struct tag_bin {
	uint64_t bytes[N_OPS];
	uint32_t ios[N_OPS];
	uint32_t d2c_n, seeks;
	uint64_t d2c_sum_ns, d2c_max_ns;
	double depth_area_ns;
};

/* A tag's flush requests in one bin: their D2C, which is theirs alone,
 * never mixed into the tag's data latency. */
struct tag_flush_bin {
	uint32_t n;
	uint64_t sum_ns, max_ns;
};

struct tag_stats {
	int32_t id;		/* IO_EVENT_NO_TAG for the untagged class */
	char *label;
	uint64_t ios[N_OPS], bytes[N_OPS];
	struct tag_bin *bins;	/* n_bins of the analysis */
	struct latency_summary d2c;	/* data bios, whole trace */
	/* per bin, its D2C histogram (LAT_BIN_BUCKETS), made at the bin's
	 * first sample: a tag's bins are mostly empty */
	uint32_t **lat_bins;
	/* per bin, made at the tag's first flush: most tags have none */
	struct tag_flush_bin *flush_bins;
	/* internal: requests of this tag in flight, on every device */
	uint32_t in_flight;
	uint64_t depth_since_ns;
};

struct analysis {
	struct analysis_config cfg;
	/* any of --device, --per-device, a time or an offset range: decided
	 * at analysis_init, so analysis_add tests them once when none is */
	int filtered;
	uint64_t n_events;		/* in the -x/-y window, not notes */
	uint64_t n_events_all;		/* the whole trace's, not notes */
	uint64_t n_notes;
	/* devices --device left out (the first few): what to name when
	 * none of the trace's is the one given */
	uint32_t other_devices[8];
	size_t n_other_devices;
	/* each device's first and last event (not notes), from genesis:
	 * its own span, which its rates and depth are over */
	struct device_span *spans;
	size_t n_spans, cap_spans, last_span;
	uint64_t first_ns, last_ns;	/* of the events seen, from genesis */
	uint64_t bin_width_ns;
	uint64_t bin_origin_ns;		/* time of bin 0's start */
	size_t n_bins, cap_bins;
	struct bin *bins;
	/* Per op, [bin][LAT_BIN_BUCKETS] of D2C and [bin][SIZE_BUCKETS]
	 * of sizes, each allocated at its op's first completion. */
	uint32_t *lat_hist[N_OPS];
	size_t hist_mapped[N_OPS];	/* bins mapped ahead (analysis.c) */
	uint32_t *size_hist[N_OPS];
	unsigned next_coarsen;	/* 2 or 5 */
	size_t cached_bin;	/* bin_for's last answer, and its start */
	uint64_t cached_bin_start;
	struct device_stats *devices;
	size_t n_devices;
	struct iomap *iomaps;	/* one per device, same order */
	/* The I/O map's columns: their own width, from MAP_FIRST_WIDTH_NS
	 * up (2x, 5x) to keep under IOMAP_COLS, so a short trace is mapped
	 * finer than its bins. */
	uint64_t map_width_ns;
	size_t map_cols;	/* columns up to the last mapped I/O */
	unsigned map_next_coarsen;
	size_t cached_col;	/* map_col_for's last answer, and its start */
	uint64_t cached_col_start;
	struct tag_stats *tags;
	size_t n_tags;
	int tagging;		/* tags are in use: untagged is a class */
	/* --per-device: each device's own analysis, fed its events */
	struct analysis *parts;
	size_t n_parts;
	uint32_t part_device;	/* the device a part is of */
	/* cfg.cause_ledger: the sums per (device, cause, class) */
	struct cause_sums *ledger;
	size_t n_ledger, cap_ledger;
	/* loss windows, in time order, and how far the current reaches */
	struct loss_window *loss;
	size_t n_loss, cap_loss;
	uint64_t lost_events;		/* the notes' known counts */
	/* of which the kernel lost where the recorder could not tell (a
	 * note with no start: completions it never saw), no window */
	uint64_t lost_unlocated;
	uint64_t lossy_ns;		/* the windows' time (at finish) */
	/* records the reader dropped as exact repeats (its note) */
	uint64_t duplicate_records;
	int in_loss;
	/* a flush completion's timing is held (analysis.c, flush_hold):
	 * here, where every event looks, not behind private */
	int flush_held;
	/* the last event of the devices --device leaves out: the trace
	 * went on, and the holes' end rules age requests against it */
	uint64_t other_last_ns;
	uint64_t loss_until_ns;
	void *private;		/* in-flight maps and indexes */
	int finished;
	char warning[IOW_ERROR_LEN];
};

int analysis_init(struct analysis *a, const struct analysis_config *cfg,
		  struct iow_error *err);
int analysis_add(struct analysis *a, const struct io_event *ev,
		 struct iow_error *err);
/* Close the books at the last event: depth up to the end, final widths. */
void analysis_finish(struct analysis *a);
/*
 * Times past this are damage, not a clock (146 years of one that starts
 * at boot): analysis_add refuses an event there.
 */
#define ANALYSIS_TIME_LIMIT_NS	(1ull << 62)
/* How long after the trace's last event a loss window may end (events
 * lost to the end of a recording, none recorded after them): this, or
 * ten times the trace's length where that is more. */
#define ANALYSIS_LOSS_PAST_END_NS	1000000000ull
/*
 * After analysis_finish: -1 (err naming the trace, name) where a loss
 * window ends further after the trace's last event than
 * ANALYSIS_LOSS_PAST_END_NS and ten times the trace's length, or before
 * it begins: a damaged trace's, whose lossy time and
 * losses would be made up.
 */
int analysis_check_loss(const struct analysis *a, const char *name,
			struct iow_error *err);
/*
 * After analysis_finish: widens the bins one step of their ladder (x2,
 * then x5, so widths stay 1 and 2 x 10^k), parts alike, as the analysis
 * does when a trace outgrows them. A report reads the bins at every
 * step from cfg.first_bin_ns up, while analysis_bins_usual says no.
 */
void analysis_coarsen(struct analysis *a);
/* Whether the bins are as wide as without cfg.first_bin_ns and
 * cfg.max_bins: at least 1 ms, and at most ANALYSIS_MAX_BINS of them
 * (with --bin-ms: always). */
int analysis_bins_usual(const struct analysis *a);
/*
 * The steps analysis_coarsen would take from the bins as they are to
 * the usual ones: width[k] and n_bins[k] for k = 0 (as they are) up to
 * the return value - 1 (usual), at most max of them.
 */
size_t analysis_coarsen_plan(const struct analysis *a, uint64_t *width,
			     size_t *n_bins, size_t max);
void analysis_free(struct analysis *a);

/* Name a tag (labels may come before or after its first I/O). */
int analysis_set_tag_label(struct analysis *a, int32_t tag, const char *label,
			   struct iow_error *err);
/* Turn on tagging: untagged I/O becomes a class of its own. */
void analysis_enable_tags(struct analysis *a);
/*
 * While the trace streams (the live view): a device's requests in flight
 * at t that look lost as the trace stands, not judged (the rules judge
 * at the trace's end, ACCOUNTING.md): a request issued after each has
 * completed, and each has been out more than twice the longest request
 * the device paired, once it paired 8; none while the stretch since its
 * queue last drained held no more than its queue's bound (ACCOUNTING.md). How many, and their time
 * in flight within [from, t).
 */
size_t analysis_overdue(struct analysis *a, uint32_t device, uint64_t from,
			uint64_t t, double *area_ns);
/* With cfg.per_device, the analysis of device alone, or NULL. */
const struct analysis *analysis_device_part(const struct analysis *a,
					    uint32_t device);

/* ---- reading the results ---- */

double analysis_duration_s(const struct analysis *a);
/*
 * The time the series can speak for: the duration less the loss
 * windows' (in -x's window), in seconds; the mean queue depth is the
 * depth's area over it.
 */
double analysis_clean_s(const struct analysis *a);
/*
 * A device's own span, from its first event to its last (within -x's
 * window), and that less the loss windows in it: its rates and mean
 * depth are over these, never over the time other devices were traced.
 */
double analysis_device_span_s(const struct analysis *a, uint32_t device);
double analysis_device_clean_s(const struct analysis *a, uint32_t device);
/* Where that span is, in seconds from the trace's start (or -x's). */
void analysis_device_bounds_s(const struct analysis *a, uint32_t device,
			      double *first_s, double *last_s);
/* Seconds of bin i within loss windows (0 without loss). */
double analysis_bin_lossy_s(const struct analysis *a, size_t i);
/* Start of bin i in seconds from the trace's first event. */
double analysis_bin_start_s(const struct analysis *a, size_t i);
/* Seconds bin i covers: its width, less for the trace's last bin. */
double analysis_bin_span_s(const struct analysis *a, size_t i);
/* Bin i's D2C histogram of op (LAT_BIN_BUCKETS), or NULL. */
const uint32_t *analysis_bin_lat_hist(const struct analysis *a, size_t i,
				      int op);
/* Bin i's D2C histogram of tag slot s (LAT_BIN_BUCKETS), or NULL. */
const uint32_t *analysis_tag_lat_hist(const struct analysis *a, size_t s,
				      size_t i);
/* D2C quantile q of bin i (op, or -1 for the data ops) in ns; 0 if empty. */
double analysis_bin_latency_q(const struct analysis *a, size_t i, int op,
			      double q);
/*
 * Request size quantile q of bin i (op, or -1 for the data ops), in
 * bytes: the lower bound of its bucket, exact for powers of two and
 * within 25% below for other sizes.
 */
double analysis_bin_size_q(const struct analysis *a, size_t i, int op,
			   double q);
/* The label of tag id (as analysis_set_tag_label gave it), or NULL. */
const char *analysis_tag_label(const struct analysis *a, int32_t id);
/* A tag's I/Os and bytes, every class of completion together. */
uint64_t analysis_tag_ios(const struct tag_stats *t);
uint64_t analysis_tag_bytes(const struct tag_stats *t);
/*
 * The tags with I/O, ranked as the summary lists them and the graphs'
 * legends keep the top ones: most bytes first (a writer of 4 MiB before
 * a thread of flushes, which carry none), then most I/Os, then the
 * first seen. Their slots in a->tags go into slots (room for
 * a->n_tags); returns how many; -1 when out of memory.
 */
long analysis_rank_tags(const struct analysis *a, size_t *slots);
/* Completions (I/Os) of op in the whole trace, all devices. */
uint64_t analysis_op_ios(const struct analysis *a, int op);
/* Devices with I/O (Q, D or C) in the trace. */
size_t analysis_io_devices(const struct analysis *a);
double latency_mean_ns(const struct latency_summary *l);
/* op -1: every op the summary holds. */
double latency_quantile_ns(const struct latency_summary *l, int op, double q);
/* latency_quantile_ns of k quantiles q (ascending) into out, at once. */
void latency_quantiles_ns(const struct latency_summary *l, int op,
			  const double *q, size_t k, double *out);
/* One class's count, mean and maximum (op -1: every op's). */
uint64_t latency_op_n(const struct latency_summary *l, int op);
double latency_op_mean_ns(const struct latency_summary *l, int op);
uint64_t latency_op_max_ns(const struct latency_summary *l, int op);
/* The name of an op as the summary and legends write it. */
const char *io_op_name(int op);

/* The I/O maps' columns in use, and where column col starts. */
size_t analysis_map_cols(const struct analysis *a);
double analysis_map_col_start_s(const struct analysis *a, size_t col);
/* Offset range of row r of device d's map, in bytes. */
void analysis_map_row_bytes(const struct analysis *a, size_t d, unsigned row,
			    uint64_t *lo, uint64_t *hi);

/*
 * The device's completeness account (account.h): the kernel's counts its
 * note gave (d->has_account) against the trace's completions, the loss
 * windows' events among what may explain a difference.
 */
void analysis_account(const struct analysis *a, const struct device_stats *d,
		      struct account *acc);
/* The trace's completions by the kernel's classes: its reads, writes
 * (and writes without data), discards and flushes. */
void analysis_account_counts(const struct device_stats *d,
			     uint64_t trace[N_ACCT]);

struct options;
/*
 * A window (-x, -y, --device) that holds no event: -x beyond the trace
 * (NAME) or a --device it does not have is an error (-1, said in err: a
 * summary of nothing would read as a quiet disk); an idle stretch inside
 * the trace, or -y that holds no I/O, is 1 with what to say (once) in
 * buf; 0 when there is nothing to say.
 */
int analysis_window_empty(const struct analysis *a, const struct options *o,
			  const char *name, char *buf, size_t size,
			  struct iow_error *err);

#endif
