/*
 * recorder.h: a way of tracing, as record.c's session sees it. Each
 * recorder (rec_bpf.c, rec_blktrace.c, ftrace_rec.c) fills one struct
 * record_ops in its own file; the session starts the first that works
 * (record.c's list, in order of measured cost) and never asks which one
 * runs.
 */
#ifndef IOWATCHER_RECORDER_H
#define IOWATCHER_RECORDER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "ftrace_rec.h"
#include "rec_account.h"
#include "record.h"

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
uint64_t recorder_complete_before(void);

extern const struct record_ops record_bpf_ops;
extern const struct record_ops record_blktrace_ops;
extern const struct record_ops record_ftrace_ops;

#endif
