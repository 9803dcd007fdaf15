/*
 * ftrace_rec.h: the ftrace recorder's kernel side (recorder.h's
 * record_ftrace_ops). Switching the ftrace 'blk' tracer on and restoring
 * what was there before (tracefs.h finds its files), and turning its
 * ring-buffer pages, read per CPU from trace_pipe_raw, into the per-CPU
 * files blktrace itself would have written; with causes, each QUEUE's
 * cgroup id beside them (rec_causes.h).
 */
#ifndef IOWATCHER_FTRACE_REC_H
#define IOWATCHER_FTRACE_REC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "reader/blktrace.h"
#include "reader/recnote.h"
#include "base/error.h"
#include "ftrace_raw.h"
#include "rec_causes.h"
#include "tracefs.h"

/* Why the ftrace recorder's causes have no files and no stacks (the
 * dictionary's "unrecorded" lines). */
#define FTRACE_UNRECORDED \
	"the ftrace recorder keeps only what the kernel's blk records carry, the task and the cgroup: record with --tracer bpf for them"

/* Looks up a process name for a pid; 0 when found. */
typedef int (*ftrace_comm_fn)(void *ctx, uint32_t pid, char *comm,
			      size_t size);
/* The default: /proc/PID/comm, then tracefs' saved_cmdlines (ctx is the
 * struct tracefs). */
int ftrace_comm_lookup(void *ctx, uint32_t pid, char *comm, size_t size);

struct ftrace_conv_stats {
	uint64_t events;	/* I/O records written */
	uint64_t notes;		/* PROCESS, TIMESTAMP and loss notes */
	uint64_t lost;		/* overwritten, as the pages counted them */
	uint64_t loss_windows;	/* pages after a loss (loss notes) */
	int lost_unknown;	/* a page with no room for the count */
	unsigned n_files;	/* NAME.blktrace.0 to n_files - 1 */
	uint64_t bytes_skipped;	/* other ftrace events' */
	int causes_kept;	/* NAME.cause* written */
	int version8;		/* the files are version 8 (the kernel's
				 * blk tracer wrote version-2 entries) */
	uint64_t zone_bits_cut;	/* version-2 entries' zone categories with
				 * no room: files settled as version 7 by a
				 * loss before any entry */
};

/* Ring-buffer pages in, DIR/NAME.blktrace.<cpu> files out. */
struct ftrace_conv;

/*
 * Told of every record as it is written (notes too), in host order with
 * its cpu and sequence set, and its payload: the live view's input.
 */
typedef void (*ftrace_tap_fn)(void *ctx, const struct blk_io_trace *t,
			      const void *pdu);

/* The pages are laid out as layout says; the blk tracer's events are of
 * type blk_type, others are stepped over. */
struct ftrace_conv *ftrace_conv_open(const char *dir, const char *name,
				     unsigned n_cpus,
				     const struct ftrace_page_layout *layout,
				     uint16_t blk_type, ftrace_comm_fn comm,
				     void *comm_ctx, struct iow_error *err);
/* A TIMESTAMP note for device: the wall clock at trace time mono_ns. */
int ftrace_conv_timestamp(struct ftrace_conv *c, uint32_t device,
			  uint64_t mono_ns, const struct timespec *wall,
			  struct iow_error *err);
/* The recording's notes of host, devices and clock (rec_out_facts):
 * before the first record, after the version is settled. */
int ftrace_conv_facts(struct ftrace_conv *c,
		      const struct recnote_clock *clock,
		      const struct record_device *devs, size_t n_devs,
		      struct iow_error *err);
void ftrace_conv_set_tap(struct ftrace_conv *c, ftrace_tap_fn tap,
			 void *ctx);
/*
 * The devices whose loss notes a page's lost events become (one note
 * each, lossnote.h, in the CPU's file before the page's records);
 * without them, device 0.
 */
int ftrace_conv_set_devices(struct ftrace_conv *c, const uint32_t *devices,
			    size_t n, struct iow_error *err);
/* What was converted so far. */
void ftrace_conv_stats(const struct ftrace_conv *c,
		       struct ftrace_conv_stats *st);
/*
 * A page of size bytes as cpu's trace_pipe_raw gave it, pages of a CPU
 * in the order read. Fails (one line naming the CPU and the byte) on a
 * page that is not laid out as the kernel's.
 */
int ftrace_conv_page(struct ftrace_conv *c, unsigned cpu, const void *page,
		     size_t size, struct iow_error *err);
/*
 * Keeps each QUEUE record's cause from now on (env's files, through
 * rec_causes): the task the record names and the cgroup id the kernel
 * put in it, the flag and the id taken off the record either way.
 */
int ftrace_conv_keep_causes(struct ftrace_conv *c,
			    const struct rec_causes_env *env,
			    struct iow_error *err);
/* A note in the causes' dictionary (none kept: nothing). */
int ftrace_conv_note(struct ftrace_conv *c, const char *text,
		     struct iow_error *err);
/* After a batch of pages: names the tasks and cgroups seen in it. */
int ftrace_conv_pump_causes(struct ftrace_conv *c, struct iow_error *err);
/* Flushes and closes the files (the causes' too, named) and frees c,
 * whatever the result. */
int ftrace_conv_close(struct ftrace_conv *c, struct ftrace_conv_stats *st,
		      struct iow_error *err);

/* The running 'blk' tracer with the state it must put back. */
struct ftrace_rec;

/* Keeping causes: the tracer's blk_cgroup option on, the live view's
 * reader told them (or NULL). */
struct ftrace_causes {
	struct cause_reader *mirror;
};

struct rec_account;

/* causes: NULL keeps none (blk_cgroup off); account: n_devs of them,
 * the kernel's counts read as the devices' tracing goes on and off and
 * their notes written at the stop (rec_account.h), or NULL */
struct ftrace_rec *ftrace_rec_start(const struct tracefs *t,
				    struct record_device *devs,
				    size_t n_devs, const char *dir,
				    const char *name, size_t buffer_kb,
				    const struct ftrace_causes *causes,
				    struct rec_account *account,
				    struct iow_error *err);
/* The converter, to tap it or ask how far it got. */
struct ftrace_conv *ftrace_rec_conv(struct ftrace_rec *r);
/* Waits up to timeout_ms for trace data and writes what came. */
int ftrace_rec_pump(struct ftrace_rec *r, int timeout_ms,
		    struct iow_error *err);
/* Stops the devices, drains the pages, restores everything, frees r. */
int ftrace_rec_stop(struct ftrace_rec *r, struct ftrace_conv_stats *st,
		    struct iow_error *err);

#endif
