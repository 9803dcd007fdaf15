/*
 * live.h: the live view (--live). While a recording runs, the records the
 * recorder writes are analysed as they come, by the same analysis as the
 * pictures, and every interval's figures are shown: full-screen in the
 * terminal (live_view.c), or printed as a text line per device or a JSON
 * object per interval. A dump read from stdin (-t -) can be watched too.
 *
 * Interval k covers [k S, (k+1) S) counted from the trace's first event,
 * as -x counts: its figures are those --summary=json -x kS:(k+1)S gives
 * for the recorded trace (the last one ends at the last event).
 *
 * The recorder hands records over per CPU in time order, the CPUs
 * interleaved only roughly. They wait in a queue per CPU and are merged
 * as the trace reader merges the per-CPU files (oldest first, the lower
 * CPU first at equal times) once no CPU can still bring an older one.
 * The bpf and ftrace recorders read each CPU's buffer in turn and say at
 * each tick up to when every CPU's records are in (complete_ns): merged
 * that far. blktrace's files, read as they grow, each grow in steps of
 * their own: there, up to the oldest of the CPUs' newest records, or
 * when later, LIVE_FILES_LAG_MS before now. A recorder that says neither:
 * LIVE_REORDER_MS (or twice what came late since) behind the newest
 * record, or, after a tick with no record at all, LIVE_IDLE_MS behind the
 * clock. A record that comes late all the same is counted (late).
 */
#ifndef IOWATCHER_LIVE_H
#define IOWATCHER_LIVE_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "reader/blktrace.h"
#include "base/error.h"
#include "event.h"
#include "record/record.h"

#define LIVE_REORDER_MS		50
#define LIVE_IDLE_MS		500
#define LIVE_FILES_LAG_MS	2000
#define LIVE_HISTORY		600	/* intervals the sparklines keep */

enum live_mode { LIVE_OFF, LIVE_SCREEN, LIVE_TEXT, LIVE_JSON };
enum live_sort { LIVE_SORT_IOS, LIVE_SORT_BYTES, LIVE_SORT_LATENCY };

struct live_opts {
	enum live_mode mode;
	double interval_s;
	const char *const *device_paths;	/* names for the devices */
	size_t n_devices;
	const char *trace_path;		/* DIR/NAME of the recording, or "-" */
	const char *workload_output;	/* where -p's output goes, or NULL */
	int by;			/* --by (enum cause_by): the rows' */
	int tagger;			/* -T: tags by pid here all the same */
	FILE *out;			/* text and JSON lines; the screen */
	int key_fd;			/* keys, for the screen; -1: none */
	int own_key_fd;			/* closed with the view */
};

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
};

struct live;
struct options;

struct live *live_open(const struct live_opts *o, struct iow_error *err);
/*
 * live_open as the command line asks: recording to trace_path (the
 * workload's output in workload_output), or reading stdin when the
 * options name no device; keys from stdin, or /dev/tty when stdin is
 * the trace.
 */
struct live *live_start(const struct options *o, const char *trace_path,
			const char *workload_output, struct iow_error *err);
/* The recorder's tap, with l as its ctx. */
void live_tap(struct live *l, struct record_tap *tap);
/* An event of a time-ordered stream (-t -), times from its first. */
int live_event(struct live *l, const struct io_event *ev,
	       struct iow_error *err);
/* Keys and the screen: 1 when the user asked to quit. */
int live_poll(struct live *l);
/* Every record analysed, the last interval closed and shown. */
int live_finish(struct live *l, struct iow_error *err);
/* Restores the terminal (on every path) and frees l. */
void live_close(struct live *l);

/* For the view. */
const struct live_figures *live_figures(struct live *l);
void live_sort(struct live *l, enum live_sort sort);

#endif
