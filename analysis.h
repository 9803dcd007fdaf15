/*
 * analysis.h: one streaming pass over a trace's events, turning them into
 * per-device statistics and per-trace time series. Memory is bounded by
 * the I/Os in flight, the number of bins and the offset-map cells, never
 * by the trace's length: bins start 1 ms wide and are merged (x2, x5,
 * x2, x5 ... so widths stay 1-2-5 round) whenever the trace outgrows
 * ANALYSIS_MAX_BINS of them.
 *
 * Latency is matched per bio as btt does: a bio is queued (Q), dispatched
 * as part of the request that covers it (D) and completed with that
 * request (C); a bio merged into a request takes the request's D and C.
 */
#ifndef IOWATCHER_ANALYSIS_H
#define IOWATCHER_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "event.h"
#include "iomap.h"

enum io_dir { DIR_READ = 0, DIR_WRITE = 1, N_DIRS = 2 };

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
};

/* A distribution of latencies in ns (one metric, whole trace). */
struct latency_summary {
	uint64_t n;
	double sum_ns;
	uint64_t max_ns;
	uint64_t *hist;		/* LAT_SUM_BUCKETS, NULL until first value */
	uint64_t *hist_dir[N_DIRS];
};

struct device_stats {
	uint32_t device;
	uint64_t ios[N_DIRS], bytes[N_DIRS];	/* completions */
	uint64_t queued[N_DIRS], issued[N_DIRS], merges[N_DIRS];
	struct latency_summary d2c, q2c, q2d;
	double depth_area_ns;	/* integral of requests in flight over time */
	uint64_t seeks;
	int has_io;		/* saw Q, D or C (not only remaps) */
	/* internal */
	uint32_t in_flight;
	uint64_t depth_since_ns;
	uint64_t next_sector;	/* where the last issued request ended */
	int has_last_issue;
};

/* One time bin of the trace's series; all devices together. */
struct bin {
	uint64_t bytes[N_DIRS];
	uint32_t ios[N_DIRS];
	uint64_t d2c_sum_ns[N_DIRS], q2c_sum_ns[N_DIRS], q2d_sum_ns[N_DIRS];
	uint32_t lat_n[N_DIRS];		/* bios with all three latencies */
	uint32_t d2c_n[N_DIRS];
	uint64_t d2c_max_ns[N_DIRS];
	double depth_area_ns;
	uint32_t seeks;
};

/* Completions per tag, per bin. */
struct tag_bin {
	uint64_t bytes[N_DIRS];
	uint32_t ios[N_DIRS];
};

struct tag_stats {
	int32_t id;		/* IO_EVENT_NO_TAG for the untagged class */
	char *label;
	uint64_t ios[N_DIRS], bytes[N_DIRS];
	struct tag_bin *bins;	/* n_bins of the analysis */
};

struct analysis {
	struct analysis_config cfg;
	uint64_t n_events;		/* not counting notes, as blkparse */
	uint64_t n_notes;
	uint64_t first_ns, last_ns;	/* of the events seen, from genesis */
	uint64_t bin_width_ns;
	uint64_t bin_origin_ns;		/* time of bin 0's start */
	size_t n_bins, cap_bins;
	struct bin *bins;
	uint32_t *lat_hist;	/* [bin][dir][LAT_BIN_BUCKETS], lazily */
	uint32_t *size_hist;	/* [bin][dir][SIZE_BUCKETS], lazily */
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
	struct tag_stats *tags;
	size_t n_tags;
	int tagging;		/* tags are in use: untagged is a class */
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
void analysis_free(struct analysis *a);

/* Name a tag (labels may come before or after its first I/O). */
int analysis_set_tag_label(struct analysis *a, int32_t tag, const char *label,
			   struct iow_error *err);
/* Turn on tagging: untagged I/O becomes a class of its own. */
void analysis_enable_tags(struct analysis *a);

/* ---- reading the results ---- */

double analysis_duration_s(const struct analysis *a);
/* Start of bin i in seconds from the trace's first event. */
double analysis_bin_start_s(const struct analysis *a, size_t i);
/* Seconds bin i covers: its width, less for the trace's last bin. */
double analysis_bin_span_s(const struct analysis *a, size_t i);
/* Bin i's D2C histogram of direction dir (LAT_BIN_BUCKETS), or NULL. */
const uint32_t *analysis_bin_lat_hist(const struct analysis *a, size_t i,
				      int dir);
/* Latency quantile q of bin i (dir, or -1 for both) in ns; 0 if empty. */
double analysis_bin_latency_q(const struct analysis *a, size_t i, int dir,
			      double q);
/*
 * Request size quantile q of bin i (dir, or -1 for both), in bytes: the
 * lower bound of its bucket, exact for powers of two and within 25% below
 * for other sizes.
 */
double analysis_bin_size_q(const struct analysis *a, size_t i, int dir,
			   double q);
double latency_mean_ns(const struct latency_summary *l);
/* dir -1: both directions. */
double latency_quantile_ns(const struct latency_summary *l, int dir, double q);

/* The I/O maps' columns in use, and where column col starts. */
size_t analysis_map_cols(const struct analysis *a);
double analysis_map_col_start_s(const struct analysis *a, size_t col);
/* Offset range of row r of device d's map, in bytes. */
void analysis_map_row_bytes(const struct analysis *a, size_t d, unsigned row,
			    uint64_t *lo, uint64_t *hi);

#endif
