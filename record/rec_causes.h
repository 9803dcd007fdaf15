/*
 * rec_causes.h: the causes a recorder saw (the BPF recorder's whole; the
 * ftrace recorder's cgroup ids, unrecorded set), kept beside the trace
 * (causefile.h): each QUEUE record's cause, as its program sent it with
 * the record (bpf/blkrec.h), goes to NAME.cause.N of the record's CPU
 * right after the record goes to NAME.blktrace.N, so that the two files
 * keep one order; its stacks are named as they first come (kernel
 * functions from /proc/kallsyms, user ones from the process's maps and
 * ELF symbols), identical names made one; tasks as their names come
 * (PROCESS notes, a writeback's dirtier), cgroups while they exist,
 * after each batch (the io controller's hierarchy said first, and where
 * it is v1's, the tasks' cgroup v2 groups too); files are looked for by
 * file handle as they first come, and their unlinks (the BPF recorder's
 * unlink records) keep the names of those deleted before the end; at the
 * end, the tasks not named yet (from /proc), the files as they were seen
 * ("PATH (deleted)" where they went), the rest by walking the mounted
 * file systems, and what could not be recorded, in the dictionary
 * NAME.cause. With a live view (mirror), all of it is told to the view's
 * reader too, and a record's names are written with its cause, files'
 * among them, for the view tags the record when it first sees it.
 */
#ifndef IOWATCHER_REC_CAUSES_H
#define IOWATCHER_REC_CAUSES_H

#include <stddef.h>
#include <stdint.h>

#include "reader/blktrace.h"
#include "base/error.h"

struct blkrec_cause;
struct blkrec_name;
struct cause_reader;

/* A stack of the programs' maps: its frames' addresses, innermost
 * first, into ips; how many, or -1 when it is not there. */
typedef int (*rec_stack_fn)(void *ctx, int user, int32_t id, uint64_t *ips,
			    size_t max);

struct rec_causes_env {
	const char *dir, *name;		/* DIR/NAME.cause, .cause.N */
	unsigned what;			/* BLKREC_CAUSES, _KSTACKS, _USTACKS */
	rec_stack_fn read_stack;
	void *stack_ctx;
	/* where names are found: "/proc" and "/proc/kallsyms" but in tests */
	const char *proc, *kallsyms, *mountinfo;
	long file_walk_ms;		/* the longest the file walk takes */
	/* the live view's reader, told all that is written as it is
	 * written (causefile.h's cause_writer_mirror), or NULL */
	struct cause_reader *mirror;
	/* the recorder sees no files and no stacks, and this says why (the
	 * dictionary's "unrecorded" lines, written first), or NULL */
	const char *unrecorded;
};

struct rec_causes;

struct rec_causes *rec_causes_open(const struct rec_causes_env *env,
				   struct iow_error *err);
/* The cause of QUEUE record t (as written: cpu, device and sequence). */
int rec_causes_put(struct rec_causes *rc, const struct blk_io_trace *t,
		   const struct blkrec_cause *c, struct iow_error *err);
/* An unlink record (t: its header, device the file system's) and its
 * name: the file's name if it was being recorded. */
int rec_causes_unlinked(struct rec_causes *rc, const struct blk_io_trace *t,
			const struct blkrec_name *n, struct iow_error *err);
/* A PROCESS note's name for pid. */
int rec_causes_process(struct rec_causes *rc, uint32_t pid, const char *comm,
		       size_t len);
/* A note in the dictionary: what the recorder could not record. */
int rec_causes_note(struct rec_causes *rc, const char *text,
		    struct iow_error *err);
/* After a batch: writes the names learnt in it (tasks, and cgroups
 * looked for while they exist). */
int rec_causes_pump(struct rec_causes *rc, struct iow_error *err);
/* Names the rest and closes the files; frees rc whatever the result
 * (ok 0: an error is being reported, write no more). */
int rec_causes_close(struct rec_causes *rc, int ok, struct iow_error *err);

/* How many of a kernel stack's frames names[0..n), innermost first, are
 * the tracing's own (the program, its helper, the tracepoint's glue):
 * those before the first named frame that is none of them. */
size_t rec_causes_tracing_frames(const char *const *names, size_t n);

#endif
