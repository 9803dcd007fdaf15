/*
 * live_view.h: the live view's full screen, drawn with plain ANSI escapes
 * on the alternate screen: per device its rates, latencies, queue depth,
 * totals and a minute of sparklines; the busiest processes; keys q (quit
 * and plot), p (pause), i/b/l (sort), ? (keys). The terminal is put back
 * by live_view_close, and at exit should a path miss it.
 */
#ifndef IOWATCHER_LIVE_VIEW_H
#define IOWATCHER_LIVE_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "base/error.h"

#define LIVE_VIEW_MIN_COLS	78
#define LIVE_VIEW_MIN_ROWS	14
#define LIVE_HISTORY		600	/* intervals the sparklines keep */

enum live_sort { LIVE_SORT_IOS, LIVE_SORT_BYTES, LIVE_SORT_LATENCY };

struct live_latency {
	uint64_t n;
	double mean_ns, p50_ns, p99_ns;
};

/* One device, in the last closed interval and since the start. */
struct live_device {
	uint32_t device;
	char name[64];
	uint64_t ios[N_OPS], bytes[N_OPS];
	struct live_latency d2c, q2c, flush_d2c;
	double depth;		/* requests in flight, time-weighted */
	/* judged in the interval, on the trace's evidence (analysis_holes.c):
	 * requests whose completion was lost (out of the depth from their
	 * issue, the interval's own part taken back) and completions whose
	 * issue was lost (counted, not timed) */
	uint64_t orphans, unmatched;
	/* in flight at the interval's end, not judged, but overtaken and
	 * out more than twice the longest the device paired
	 * (analysis_overdue): not in the interval's depth, so that a lost
	 * completion does not lift it until the trace's end judges */
	uint64_t overdue;
	uint64_t total_ios[N_OPS], total_bytes[N_OPS];
	/* per interval, the newest at history[(head - 1) % LIVE_HISTORY] */
	float mbps[LIVE_HISTORY], p99_us[LIVE_HISTORY];
};

/* A process (or tag) on a device, in the last closed interval. */
struct live_row {
	int32_t tag;
	long pid;		/* -1: tags are not processes */
	char name[48];
	uint32_t device;
	uint64_t ios, bytes;
	struct live_latency q2c;
};

/* The line of d's holes inferred in the interval into buf (the screen's,
 * the text lines' after a '#'): 0 when none. */
#define LIVE_HOLE_TEXT	256
int live_hole_text(const struct live_device *d, char *buf, size_t len);

/* What the view shows. */
struct live_figures {
	double interval_s;
	double start_s, end_s;		/* the last closed interval */
	uint64_t n_intervals;		/* closed so far */
	size_t history_len, history_head;
	struct live_device *devs;
	size_t n_devs;
	struct live_row *rows;
	size_t n_rows;
	enum live_sort sort;
	const char *tag_heading;	/* "PID" or "TAG" */
	const char *tracer;		/* "ftrace", "blktrace", or "" */
	const char *trace_path, *workload_output;
	const char *device_list;	/* "/dev/loop0 /dev/loop1" */
	uint64_t events, lost;		/* the recorder's */
	/* the trace's loss notes in the last closed interval: the events
	 * lost in windows that began there, and the windows' time in it
	 * (which its queue depth leaves out, as the summary's does) */
	uint64_t lost_in_interval;
	double lossy_s;
	/* the inferred loss windows (no note said them) the analysis added
	 * in the last closed interval: a->loss from holes_from, holes_to */
	size_t holes_from, holes_to;
	/* records that came after newer ones were analysed: a completion
	 * counted in the interval it came in, anything else left out */
	uint64_t late, late_in_interval;
	double elapsed_s;		/* wall clock since the start */
	int stdin_mode;
	/* the recording's account, once its notes came (at the stop):
	 * "the trace holds all 12,000 completions the kernel counted",
	 * per device when more than one; "" before */
	char account[512];
	/* until then: the completions the kernel made since the tracer
	 * attached (UINT64_MAX: not known) and those analysed so far */
	uint64_t kernel_completed, trace_completed;
	/* --flight: armed (records kept in memory, captures on triggers,
	 * key c), and the captures written so far */
	int flight_armed;
	unsigned captures;
	uint64_t flight_held_ns, flight_held_bytes;
};

struct live_view;

/* What the keys typed ask of the view's owner (live.c), which applies it:
 * quit (q), or the rows sorted another way (i, b, l; -1: as they are).
 * The view keeps its own keys (p pause, ? help) to itself. */
struct live_keys {
	int quit;
	int capture;		/* c: a flight capture asked for */
	int sort;		/* an enum live_sort, or -1 */
};

/* Takes over the terminal out is (keys from key_fd, -1: none). */
struct live_view *live_view_open(FILE *out, int key_fd,
				 struct iow_error *err);
/* The keys typed since the last call. */
void live_view_keys(struct live_view *v, struct live_keys *k);
/* Redraws what changed (a new interval, a second, the keys, the size). */
void live_view_draw(struct live_view *v, const struct live_figures *fig,
		    int new_interval);
void live_view_close(struct live_view *v);

#endif
