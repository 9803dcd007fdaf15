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
#include "options.h"
#include "record/record.h"
#include "live_view.h"

#define LIVE_REORDER_MS		50
#define LIVE_IDLE_MS		500
#define LIVE_FILES_LAG_MS	2000

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

/*
 * -d: trace the devices while the workload runs (watched, with --live),
 * then read what was recorded as -t DIR/NAME: o->trace_args[0] becomes
 * that path (in path, path_len). Tracing failures end the run, and so
 * does a workload that fails (misplaced: an option of iowatcher's the
 * workload's command line took, for its message, or NULL).
 */
int live_record(struct options *o, const char *misplaced,
		struct record_result *res, struct iow_error *err, char *path,
		size_t path_len);
/*
 * -t - --live: each event is watched too (live may be NULL: nothing to
 * do); 1 when q asks to stop reading (what was read is then drawn), -1
 * on an error.
 */
int live_watch_event(struct live *live, const struct io_event *ev,
		     struct iow_error *err);
static inline int live_watch(struct live *live, const struct io_event *ev,
			     struct iow_error *err)
{
	return live ? live_watch_event(live, ev, err) : 0;
}

#endif
