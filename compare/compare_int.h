/*
 * compare_int.h: what the files of --compare share (compare.c collects
 * and pairs, compare_boot.c bootstraps the per-class table,
 * compare_split.c splits the change among strata, compare_print.c
 * writes it). Not for other stages: compare.h is the door.
 */
#ifndef IOWATCHER_COMPARE_INT_H
#define IOWATCHER_COMPARE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "tag/cause.h"
#include "base/error.h"
#include "base/outkind.h"
#include "plot.h"

#define CMP_WINDOWS		40	/* time windows over the shorter trace */
#define CMP_MAX_WINDOWS		1000	/* per trace, the longer one */
#define CMP_MIN_WINDOWS		8	/* windows with I/O a verdict needs */
#define CMP_MIN_IOS		30	/* I/Os a count or mean needs */
#define CMP_RESAMPLES		1000
#define CMP_SEED		29u	/* fixed: the same input, the same CIs */
#define CMP_HIST_BITS		5	/* 1/32 of an octave: quantiles to 1.6% */
#define CMP_HIST_MAX_BITS	44
#define CMP_OFFSET_CELLS	128	/* offset bands before merging */
#define CMP_MAX_BANDS		16	/* offset bands and windows after it */
#define CMP_MAX_VALUES		24	/* values a stratum names, the rest one */

/* The latencies kept per I/O; LAT is Q2C, or D2C where only it is known
 * (a flush, a request queued before the trace): the latency-seconds. */
enum cmp_metric { CM_D2C, CM_Q2C, CM_Q2D, CM_LAT, N_CMP_METRICS };
#define N_HIST_METRICS	3	/* D2C, Q2C, Q2D get quantiles */

/* One row of the analysis (a timed bio, or a completion timing none). */
struct cmp_io {
	uint64_t time_ns, sector;
	uint32_t device, bytes, cause;
	float lat_ns[N_CMP_METRICS];
	uint8_t op, has;	/* has: bit m for metric m */
	uint8_t first;		/* its completion's first row: one I/O */
};

struct compare_side {
	struct cmp_io *ios;	/* a mapping of map_bytes (compare.c) */
	size_t n, cap;
	size_t map_bytes, mapped;	/* mapped: bytes mapped ahead */
	uint64_t last_io;
	int any;
	int oom;
	void (*next_row)(void *ctx, const struct analysis_row *r);
	void *next_ctx;
};

/* One trace as compared. */
struct cmp_trace {
	const char *label, *source;
	const struct compare_side *side;
	const struct cause_table *causes;
	const struct analysis *analysis;
	uint64_t origin_ns;	/* -x's start, else the first event */
	double span_s;		/* to -x's end or the last event */
	size_t n_windows;
	int32_t *group;		/* per I/O: its pair's group base, -1 */
	uint8_t *extra;		/* per I/O: of work the other lacks */
	uint32_t *window;	/* per I/O */
};

/* The measures of the per-class table, in its order. */
enum cmp_measure {
	MS_IOS, MS_BYTES, MS_TPUT, MS_IOPS, MS_DEPTH,
	MS_LAT_MEAN, MS_LAT_SUM,
	MS_D2C_MEAN, MS_D2C_P50, MS_D2C_P90, MS_D2C_P99, MS_D2C_P999,
	MS_Q2C_MEAN, MS_Q2C_P50, MS_Q2C_P90, MS_Q2C_P99, MS_Q2C_P999,
	MS_Q2D_MEAN, MS_Q2D_P50, MS_Q2D_P90, MS_Q2D_P99, MS_Q2D_P999,
	N_MEASURES
};

struct cmp_result {
	double a, b, diff, lo, hi;
	uint64_t n_a, n_b;	/* the I/Os or samples it stands on */
	uint64_t needs;		/* the I/Os a verdict needs (each side) */
	size_t windows_a, windows_b;	/* windows holding them */
	int enough;		/* enough I/Os and windows for a verdict */
	int sign;		/* significant: 1 B higher, -1 lower, 0 not */
	/* how sign was decided: the interval's side of 0 alone (raw),
	 * the bootstrap's two-sided p, its Benjamini-Hochberg adjusted q
	 * across the table, and whether a discovery was too small to be
	 * called (CMP_SMALL_*) */
	int raw_sign;
	double p, q;
	double resolution;	/* a quantile's: the histogram's step, us */
	int small;
};

#define CMP_FDR			0.05	/* false discoveries across a table */
enum { CMP_SMALL_NONE, CMP_SMALL_MIN_CHANGE, CMP_SMALL_RESOLUTION };

/* A group of the table: one pair's class, or (the last) everything. */
struct cmp_group {
	size_t pair;
	int op;			/* enum io_op; -1: all paired devices */
	struct cmp_result r[N_MEASURES];
};

/* One stratum value's part of the change, split into mix and rate. */
struct cmp_value {
	char *label;
	double n[2], t_s[2];	/* timed I/Os and their latency, s */
	double mix_s, rate_s;	/* parts of the change in latency-s */
	double mean_mix_s, mean_rate_s;	/* parts of the change in mean */
	int has_sectors, has_time;
	uint64_t lo_sector, hi_sector;
	double start_s, end_s;
	size_t pair;		/* offset bands: the pair */
	/* the work: bytes (of them written) and the first and last
	 * I/O's time, per trace */
	double bytes[2], wbytes[2];
	uint64_t first_ns[2], last_ns[2];
	uint64_t size_lo, size_hi;	/* size: the bytes it holds */
	int has_size;
};

struct cmp_stratum {
	const char *name;	/* class, size, offset, ... */
	struct cmp_value *values;
	size_t n;
};

struct cmp_contributor {
	const struct cmp_stratum *stratum;
	const struct cmp_value *value;
	int rate;		/* 0: mix */
	double part_s, mean_part_s, share, coverage;
	double mean_share;	/* of the change in the mean latency */
	int whole;		/* nearly all of a trace's I/O: ranked last */
};

/* What the two runs did: the same work, more, less, or different. */
enum cmp_work { WORK_SAME, WORK_MORE, WORK_LESS, WORK_DIFFERENT };

struct compare {
	struct cmp_trace t[2];
	double min_change;	/* --min-change, a fraction of A's value */
	size_t n_tests;		/* the table's family (Benjamini-Hochberg) */
	int points_only;	/* the table's point values, no intervals */
	uint32_t (*pairs)[2];
	size_t n_pairs;
	uint64_t window_ns;
	struct cmp_group *groups;	/* n_pairs * N_OPS + 1 */
	size_t n_groups;
	int paired_draws;	/* both traces have as many windows */
	/* the split */
	double total_s[2], timed[2];
	struct cmp_stratum *strata;
	size_t n_strata;
	struct cmp_contributor *contrib;
	size_t n_contrib;
	size_t headline;	/* the contributor that explains the mean */
	/* the work one run did and the other did not (or far less of) */
	enum cmp_work work;
	struct cmp_contributor *work_contrib;
	size_t n_work;
	double work_s[2];	/* those I/Os' latency-seconds per trace */
	double bytes[2];	/* each trace's timed I/Os' bytes */
	int has_matched;	/* matched: the work both did */
	struct cmp_group matched;
};

struct options;
struct trace_result;
/* compare.c: c set up for a against b (paired, windowed, placed); -1
 * with err. cmp_free frees what it and the rest made. */
int cmp_setup(struct compare *c, const struct options *o,
	      struct trace_result *a, struct trace_result *b,
	      struct compare_side *sa, struct compare_side *sb,
	      struct iow_error *err);
void cmp_free(struct compare *c);
const char *cmp_op_name(int op);
void cmp_device_name(uint32_t dev, char *buf, size_t len);

/* compare_boot.c: the table's groups, point values and intervals. */
int cmp_table(struct compare *c);
/* the histogram's step at us microseconds, in us; whether measure m is
 * a quantile */
double cmp_step_us(double us);
int cmp_is_quantile(int m);
/* Benjamini-Hochberg at CMP_FDR over fam[0 .. n) (each with p): fam
 * sorted by p, each q set; how many of the first are rejected */
int cmp_bh(struct cmp_result **fam, size_t n, int *rejected);
void cmp_call(struct cmp_result *r, double min_change);
/* compare_split.c: the strata and the ranked contributors. */
int cmp_split(struct compare *c);
void cmp_split_free(struct compare *c);
/* one trace's timed I/Os and bytes per process, comm and cgroup label
 * (c a run against itself, after cmp_table), to fn; -1 out of memory */
int cmp_run_work(struct compare *c,
		 void (*fn)(void *ctx, const char *stratum, const char *label,
			    double n, double bytes),
		 void *ctx);
/* compare_draw.c: the pictures, into path (-o). */
int cmp_draw(const struct compare *c, const char *path, enum plot_format fmt,
	     int width, int height, const char *title_line,
	     struct iow_error *err);
/* compare_flame.c: the differential flame graph, where both traces
 * have kernel stacks (cmp_has_stacks); -1 out of memory. */
struct plot_page;
int cmp_has_stacks(const struct compare *c);
int cmp_flame_panel(struct plot_page *page, struct plot_rect r,
		    const struct compare *c);
/* compare_print.c */
void cmp_headline(const struct compare *c, char *buf, size_t len);
/* "same", "more", "less", "different" */
const char *cmp_work_word(const struct compare *c);
const char *cmp_measure_text(int m);
/* v of measure m in its unit (sign: a difference, with + or -) */
const char *cmp_format(double v, int m, int sign, char *buf, size_t len);
const char *cmp_format_us(double us, char *buf, size_t len);
size_t cmp_grouped_rows(const struct compare *c, size_t from, size_t to,
			size_t *rows);
const char *cmp_share_text(double share, char *buf, size_t len);
/* "slower", "no significant difference", "too few I/Os (needs N)" ... */
const char *cmp_result_word(const struct cmp_result *r, int m, char *buf,
			    size_t len);
/* compare_html.c: -o FILE.html, the report of both traces with the
 * comparison as its section. */
struct options;
struct trace_result;
int cmp_write_report(const struct compare *c, const struct options *o,
		     struct trace_result *traces, const char *title_line,
		     struct iow_error *err);
void cmp_print_text(FILE *out, const struct compare *c);
void cmp_print_json(FILE *out, const struct compare *c);
/* A result's estimate as JSON members: "A_KEY": a, "B_KEY": b, "diff",
 * "ci": [lo, hi] (no braces: the caller's object holds them). */
void cmp_json_estimate(FILE *out, const struct cmp_result *r,
		       const char *a_key, const char *b_key);
void cmp_json_result(FILE *out, const struct cmp_result *r, int m);
int cmp_measure_unit(int m);
const char *cmp_measure_json(int m);

#endif
