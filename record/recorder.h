/*
 * recorder.h: a way of tracing, as record.c's session sees it. Each
 * recorder (rec_bpf.c, rec_blktrace.c, ftrace_rec.c) fills one struct
 * record_ops in its own file; the session starts the first that works
 * (record.c's list, in order of measured cost) and never asks which one
 * runs. Here too what a recorder is handed and tells: which tracer, what
 * causes to keep, and the watcher's tap (record.h, the session's door,
 * sits above it; tracefs.h, the kernel's files, below).
 */
#ifndef IOWATCHER_RECORDER_H
#define IOWATCHER_RECORDER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/error.h"
#include "reader/blktrace.h"
#include "rec_account.h"
#include "tracefs.h"

enum record_tracer { RECORD_AUTO, RECORD_BLKTRACE, RECORD_FTRACE, RECORD_BPF };

/*
 * What a recorder that can see it keeps of each I/O's cause, beside the
 * trace (causefile.h; the BPF recorder only): the task, cgroup and file,
 * the kernel stack, the user stack.
 */
enum record_causes {
	RECORD_CAUSES = 1u << 0,
	RECORD_KSTACKS = 1u << 1,
	RECORD_USTACKS = 1u << 2,
};

/* How far a recording has got, for a watcher's tick. */
struct record_progress {
	enum record_tracer tracer;	/* the one in use */
	uint64_t events;		/* I/O records written so far */
	uint64_t lost;			/* the kernel's lost events so far */
	/* every record older than this (the tracer's clock, CLOCK_MONOTONIC)
	 * has been handed to record(): 0 when the tracer cannot tell */
	uint64_t complete_ns;
	/* the requests the kernel completed on the traced devices since
	 * the tracer attached (their stat files), UINT64_MAX: not known */
	uint64_t kernel_completed;
	/* --flight: armed (records kept in memory, not written), and the
	 * captures written so far, the span and memory the records hold */
	int flight_armed;
	unsigned captures;
	uint64_t flight_held_ns, flight_held_bytes;
};

/*
 * Watching a recording as it goes (the live view). record() is told of
 * every record written to the per-CPU files (notes too), host order,
 * cpu and sequence set: each CPU's in time order, the CPUs interleaved
 * only roughly by time. tick() comes after every pump of the tracer
 * (about every 100 ms) and once the tracer is stopped; a tick returning
 * non-zero ends the recording as a SIGINT would.
 */
struct cause_reader;
struct flight_opts;
struct flight_result;

struct record_tap {
	void (*record)(void *ctx, const struct blk_io_trace *t,
		       const void *pdu);
	/* record() with the action's bits 32-63 (a version-8 recording's
	 * zone categories), told in its place where the recorder knows
	 * them (bpf, ftrace); or NULL */
	void (*record_hi)(void *ctx, const struct blk_io_trace *t,
			  uint32_t action_hi, const void *pdu);
	int (*tick)(void *ctx, const struct record_progress *p);
	void *ctx;
	/* told the causes a recorder keeps, as it writes them, or NULL */
	struct cause_reader *causes;
};

/* What the session hands a recorder to start. */
struct recorder_env {
	const struct tracefs *tfs;
	struct record_device *devs;
	size_t n_devs;
	const char *dir, *name;		/* DIR/NAME.blktrace.<cpu> */
	size_t buffer_kb;		/* per CPU; 0: the recorder's own */
	unsigned causes;		/* enum record_causes, to keep */
	const struct record_tap *tap;	/* or NULL */
	/* set once a stop signal came (children see it too) */
	const volatile sig_atomic_t *stopping;
	/* n_devs of them, devices set: the kernel's counts, read around
	 * the tracer's attach and detach (rec_account.h), and the note
	 * written; a recorder that reads none has no account */
	struct rec_account *account;
	/* --flight: keep the records in memory and write captures
	 * (flight.h), or NULL; the BPF recorder only */
	const struct flight_opts *flight;
	struct flight_result *flight_res;	/* filled at the stop */
	/* a count of the captures asked for by signal (SIGUSR1) */
	const volatile sig_atomic_t *fire_requests;
};

/* How far a recording got; at the stop, what it came to. */
struct recorder_stats {
	uint64_t events;	/* I/O records written */
	uint64_t lost;		/* events lost, where counted */
	uint64_t loss_windows;	/* loss notes (per CPU and window) */
	int lost_unknown;	/* some loss of unknown size */
	uint64_t bytes_skipped;	/* input that was no record */
	size_t buffer_kb;	/* per CPU, as used (0: not known) */
	unsigned n_files;	/* NAME.blktrace.0 to n_files - 1 */
	unsigned causes;	/* what it kept beside (record_causes) */
	uint64_t complete_ns;	/* as record_progress's; 0: not known */
	uint64_t lost_unlocated;	/* of lost, in no window */
	unsigned captures;	/* --flight: captures written so far */
	uint64_t flight_held_ns;	/* --flight: the span held */
	uint64_t flight_held_bytes;	/* ... in memory held */
};

struct record_ops {
	enum record_tracer tracer;
	const char *name;
	/* Starts tracing env's devices: the recorder's own state, or NULL
	 * with err saying why it cannot. */
	void *(*start)(const struct recorder_env *env, struct iow_error *err);
	/* Waits up to timeout_ms for trace data and writes what came. */
	int (*pump)(void *state, int timeout_ms, struct iow_error *err);
	void (*progress)(void *state, struct recorder_stats *st);
	/* Stops, writes the rest, puts back what it changed, frees state. */
	int (*stop)(void *state, struct recorder_stats *st,
		    struct iow_error *err);
};

/*
 * For a recorder about to read every CPU's buffer to its end: what its
 * complete_ns will be once it has. A record takes its time before it is
 * committed, and a read stops at one not yet committed, so the records
 * of the last RECORD_COMMIT_SLACK_MS may come in the next read.
 */
#define RECORD_COMMIT_SLACK_MS	1
static inline uint64_t recorder_complete_before(void)
{
	return clock_now_ns() - RECORD_COMMIT_SLACK_MS * 1000000ull;
}

extern const struct record_ops record_bpf_ops;
extern const struct record_ops record_blktrace_ops;
extern const struct record_ops record_ftrace_ops;

#endif
