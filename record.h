/*
 * record.h: recording a block trace while a workload runs. record_run()
 * traces the given block devices (with Debian's blktrace, or where its
 * relay files are refused, with the kernel's ftrace 'blk' tracer) and
 * leaves blktrace's own per-CPU files DIR/NAME.blktrace.<cpu> behind,
 * optionally with `mpstat -P ALL 1` output in DIR/NAME.mpstat.
 */
#ifndef IOWATCHER_RECORD_H
#define IOWATCHER_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "blktrace.h"
#include "error.h"

enum record_tracer { RECORD_AUTO, RECORD_BLKTRACE, RECORD_FTRACE };

/* How far a recording has got, for a watcher's tick. */
struct record_progress {
	enum record_tracer tracer;	/* the one in use */
	uint64_t events;		/* I/O records written so far */
	uint64_t lost;			/* the kernel's lost events so far */
};

/*
 * Watching a recording as it goes (the live view). record() is told of
 * every record written to the per-CPU files (notes too), host order,
 * cpu and sequence set: each CPU's in time order, the CPUs interleaved
 * only roughly by time. tick() comes after every pump of the tracer
 * (about every 100 ms) and once the tracer is stopped; a tick returning
 * non-zero ends the recording as a SIGINT would.
 */
struct record_tap {
	void (*record)(void *ctx, const struct blk_io_trace *t,
		       const void *pdu);
	int (*tick)(void *ctx, const struct record_progress *p);
	void *ctx;
};

struct record_opts {
	const char *const *devices;	/* "/dev/loop0", ... */
	size_t n_devices;
	const char *dir;		/* output directory; NULL = "." */
	const char *name;		/* files NAME.blktrace.<cpu> */
	/* workload argv, or NULL: record until SIGINT or SIGTERM */
	char *const *prog_argv;
	enum record_tracer tracer;
	int with_mpstat;		/* also write DIR/NAME.mpstat */
	size_t buffer_kb;		/* trace buffer per CPU; 0 = leave */
	const struct record_tap *tap;	/* or NULL */
	/* the workload's stdout and stderr go to this file (its stdin is
	 * /dev/null); NULL: they are ours */
	const char *workload_output;
};

struct record_result {
	enum record_tracer used;	/* RECORD_BLKTRACE or RECORD_FTRACE */
	int workload_status;		/* raw wait status; 0 without one */
	int stop_signal;		/* SIGINT/SIGTERM/SIGHUP that ended it */
	uint64_t events_written;	/* I/O records, notes not counted */
	uint64_t events_lost;		/* the kernel's "[LOST n EVENTS]" */
	uint64_t bytes_skipped;		/* unreadable trace_pipe bytes */
	/* why blktrace was not used when RECORD_AUTO fell back, or "" */
	char fallback_reason[256];
};

/*
 * Traces o->devices until the workload exits or a SIGINT, SIGTERM or
 * SIGHUP comes, and restores the kernel's tracing state on every path.
 * The workload runs in a process group of its own: a stop signal is
 * passed on to the whole group (SIGKILL after 5 s). Needs root. Returns
 * 0 with res filled (also when stopped by a signal), or -1 with err.
 */
int record_run(const struct record_opts *o, struct record_result *res,
	       struct iow_error *err);

/* "blktrace", "ftrace" or "auto". */
const char *record_tracer_name(enum record_tracer tracer);

#endif
