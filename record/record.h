/*
 * record.h: recording a block trace while a workload runs. record_run()
 * traces the given block devices (with BPF programs on the block
 * tracepoints, Debian's blktrace, or the kernel's ftrace 'blk' tracer:
 * recorder.h, which also holds what a watcher is told) and leaves blktrace's own per-CPU files
 * DIR/NAME.blktrace.<cpu> behind, where the kernel lost events a loss
 * note (lossnote.h) in the CPU's file, optionally with `mpstat -P ALL 1`
 * output in DIR/NAME.mpstat.
 */
#ifndef IOWATCHER_RECORD_H
#define IOWATCHER_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "reader/account.h"
#include "base/error.h"
#include "flight.h"
#include "recorder.h"

struct record_opts {
	const char *const *devices;	/* "/dev/loop0", ... */
	size_t n_devices;
	const char *dir;		/* output directory; NULL = "." */
	const char *name;		/* files NAME.blktrace.<cpu> */
	/* workload argv, or NULL: record until SIGINT or SIGTERM */
	char *const *prog_argv;
	enum record_tracer tracer;
	unsigned auto_skips;		/* 1 << tracer: auto tries not these */
	int with_mpstat;		/* also write DIR/NAME.mpstat */
	size_t buffer_kb;		/* trace buffer per CPU; 0: default */
	unsigned causes;		/* enum record_causes; 0: none */
	const struct record_tap *tap;	/* or NULL */
	/* the workload's stdout and stderr go to this file (its stdin is
	 * /dev/null); NULL: they are ours */
	const char *workload_output;
	/* --flight (flight.h): records kept in memory, captures written
	 * on triggers and SIGUSR1; NULL: a whole recording */
	const struct flight_opts *flight;
};

/* The most devices a recording accounts for (the BPF recorder's). */
#define RECORD_ACCOUNT_MAX	16

/* A traced device's completeness account (account.h). */
struct record_account {
	uint32_t device;
	int counted;		/* the kernel's counts were read */
	int noted;		/* and its note is in the trace */
	struct acctnote note;	/* the kernel's side */
	uint64_t trace[N_ACCT];	/* the completions written */
};

struct record_result {
	enum record_tracer used;	/* the one that recorded */
	int workload_status;		/* raw wait status; 0 without one */
	int workload_started;		/* 0: none, or stopped before it */
	int stop_signal;		/* SIGINT/SIGTERM/SIGHUP that ended it */
	uint64_t events_written;	/* I/O records, notes not counted */
	uint64_t events_lost;		/* in loss notes of a known count */
	uint64_t loss_windows;		/* loss notes, per CPU and window */
	int lost_unknown;		/* a loss of unknown size too */
	uint64_t bytes_skipped;		/* input that was no record */
	size_t buffer_kb;		/* per CPU, as used; 0: not known */
	unsigned n_files;		/* NAME.blktrace.0 to n_files - 1 */
	unsigned causes;		/* what was kept beside (enum
					 * record_causes), 0: none */
	double cpu_user_s, cpu_sys_s;	/* the recorder's own, not the
					 * workload's */
	int mpstat_missing;		/* no mpstat on PATH: no NAME.mpstat */
	long reclaimed_pid;		/* a killed recording's tracing
					 * state put back first (-1: of
					 * unknown pid), or 0 */
	/* why the tracers before it were not used (RECORD_AUTO), or "" */
	char fallback_reason[512];
	/* per device, in the order of record_opts' devices */
	struct record_account account[RECORD_ACCOUNT_MAX];
	size_t n_account;
	uint64_t lost_unlocated;	/* of events_lost, in no window (the
					 * BPF recorder's unseen completions
					 * and missed runs) */
	struct flight_result flight;	/* with --flight */
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

/* "bpf", "blktrace", "ftrace" or "auto". */
const char *record_tracer_name(enum record_tracer tracer);

/* The trace buffer per CPU when none is asked for: 16 MiB (the two-job
 * benchmark's rate for 0.1 s), less on machines of many CPUs so that
 * all of them take at most 512 MiB. */
size_t record_default_buffer_kb(void);

/*
 * A workload that fails (not stopped by the user) has traced its
 * failure, not the work: -1 with err saying so (misplaced: an option
 * of iowatcher's the workload's command line took, or NULL), and that
 * what was recorded in PATH.blktrace.* is kept. 0 otherwise.
 */
int record_check_workload(const struct record_result *res, int had_workload,
			  const char *misplaced, const char *path,
			  struct iow_error *err);
/*
 * The end of a recording in one line on standard error: what (events,
 * devices, tracer and why not the ones before it), where (the files,
 * the buffer, the CPU it took), what was lost, or that nothing was, and
 * the account of the completions the kernel counted.
 */
void record_print_result(const char *const *devices, size_t n_devices,
			 const struct record_result *res, const char *path);

#endif
