/*
 * cause.h: the stage between the reader and the taggers that knows who
 * and what caused each I/O. Every QUEUE event gets a cause, interned in
 * the table (ev->cause): what the recorder kept beside the trace
 * (causefile.h: the task, the process that dirtied a writeback's pages,
 * the cgroup, the file, the stacks), or, for a trace without it, what its
 * own records say (the queuing pid, a cgroup id in a version-8 record).
 * Names come from the recorder's dictionary and the trace's PROCESS
 * notes. The taggers (--by), the per-I/O log (--events) and the cause
 * pictures read the table.
 */
#ifndef IOWATCHER_CAUSE_H
#define IOWATCHER_CAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "reader/causefile.h"
#include "base/error.h"
#include "event.h"

/* One cause, as the table keeps it (no padding: it is compared whole). */
struct cause {
	uint64_t cgroup;	/* 0: none known */
	uint64_t cgroup2;	/* the task's v2 group where cgroup is v1's */
	uint64_t ino;		/* 0: no file known */
	uint32_t ino_dev;
	uint32_t ino_gen;	/* which file given that number */
	uint32_t reserved;	/* 0 (no padding: compared whole) */
	uint32_t pid, tgid;	/* the task that queued the bio */
	uint32_t owner_pid, owner_tgid;	/* a writeback's dirtier, or 0 */
	uint32_t flags;		/* enum cause_flag */
	int32_t kstack, ustack;	/* -1: none */
};

struct cause_table;

/* Whether the recorder kept causes beside the per-CPU set base. */
int cause_files_beside(const char *base);
/* base: the per-CPU set's DIR/NAME, or NULL (a dump, stdin): then only
 * the trace's own records speak. NULL with err on a damaged cause file. */
struct cause_table *cause_table_open(const char *base, struct iow_error *err);
void cause_table_free(struct cause_table *t);
/* The live view's: told the causes as the recorder writes them, through
 * its reader (a recorder's cause_writer_mirror). */
struct cause_table *cause_table_live(struct iow_error *err);
struct cause_reader *cause_table_reader(struct cause_table *t);
/* Whether the recorder kept causes beside the trace (live: has told
 * any so far). */
int cause_table_recorded(const struct cause_table *t);
/* Whether it kept part (files, stacks) too: the recorder kept causes
 * and its dictionary does not say it could not see part (ftrace's). */
int cause_table_kept(const struct cause_table *t, enum cause_part part);
/* Why the recorder did not record part at all, or NULL. */
const char *cause_table_unrecorded(const struct cause_table *t,
				   enum cause_part part);
/* The recorder's notes on what it could not record, or NULL. */
const char *cause_table_notes(const struct cause_table *t);
const char *cause_table_warning(const struct cause_table *t);

/*
 * Causes are interned for every QUEUE where the recorder kept them; for a
 * trace without them only when asked (the per-I/O log's pid column):
 * otherwise the taggers read the event itself and the table keeps names.
 */
void cause_table_intern_plain(struct cause_table *t);
/* Learns names from PROCESS notes; gives a QUEUE event its cause. */
int cause_table_event(struct cause_table *t, struct io_event *ev,
		      struct iow_error *err);

/* Cause id (1 up), or NULL for 0 or an unknown id. */
const struct cause *cause_get(const struct cause_table *t, uint32_t id);
/* The pid to credit: the dirtier of a writeback, else the queuing task. */
uint32_t cause_credited_pid(const struct cause *c);
/* A task's name (the recorder's, else a PROCESS note's), or NULL. */
const char *cause_comm(const struct cause_table *t, uint32_t pid);
/* The file's path, or what its pages are ("[metadata]", "[journal]",
 * "[swap]", "[no file]"), into buf. */
const char *cause_file_label(const struct cause_table *t, const struct cause *c,
			     char *buf, size_t len);
/* The cgroup's path, "cgroup ID" where unnamed, "[no cgroup]"; where
 * the io controller's is v1's, the task's v2 group after it, "PATH (v2
 * PATH2)". */
const char *cause_cgroup_label(const struct cause_table *t,
			       const struct cause *c, char *buf, size_t len);
/* The kernel stack, outermost frame first, joined by ';', or NULL. */
/* Which hierarchy the cgroup paths are of, in words, into buf; NULL
 * when the recorder did not say. */
const char *cause_table_cgroup_source(const struct cause_table *t, char *buf,
				      size_t len);
/* Whether the frame f[0, len) is one of the outer frames every kernel
 * stack shares (ret_from_fork, kthread, entry_SYSCALL_64...), which name
 * no path: tags, flame graphs and comparisons start below them. */
int cause_generic_frame(const char *f, size_t len);
/* A stack as a name: its first four frames past the generic outer ones
 * ("wb_workfn > wb_writeback > do_writepages > ext4_writepages"), the
 * path that queued it (the whole stack is in the flame graph); the
 * stack as it is where every frame is generic. */
void cause_stack_label(const char *stack, char *buf, size_t len);
const char *cause_kstack(const struct cause_table *t, const struct cause *c);

#endif
