/*
 * causefile.h: who and what caused each I/O, as a recorder that can see
 * it (the BPF recorder) keeps it beside the trace: for every QUEUE record
 * of CPU N's trace file NAME.blktrace.N, a record in NAME.cause.N, in the
 * same order (the task that queued the bio, the process that dirtied the
 * pages of a writeback, the cgroup, the file whose pages it carries, the
 * kernel and user stacks); and one dictionary, NAME.cause, of the names
 * those records point to (task names, cgroup paths, file paths, stack
 * frames). A recorder that sees less (ftrace: the cgroup ids the kernel
 * puts in its records) keeps what it sees and says in the dictionary what
 * it could not. A trace without them (blktrace) reads as before.
 *
 * NAME.cause.N: a 16-byte header ("IOWCAUS1", the record size, 0x01020304
 * in the writer's byte order), then struct cause_rec records (72 bytes;
 * those of recordings before the generation, 64, are read too).
 * NAME.cause: text lines of tab-separated fields, the first
 * "iowatcher causes 1":
 *   task TID TGID COMM           a task's name when it was seen
 *   cgroups KIND ROOT            where the cgroup ids are directories:
 *                                the io controller's hierarchy, KIND
 *                                "v1 blkio" or "v2" (before any cgroup)
 *   cgroup ID PATH               a cgroup's path under the cgroup root
 *   cgroup2 ID PATH              a task's cgroup v2 group (kept where the
 *                                io controller's hierarchy is v1's)
 *   file DEV INO KIND PATH       KIND: file, metadata, journal, swap, device;
 *                                INO "INO:GEN" with the inode's
 *                                generation where the recorder had it;
 *                                PATH its name when its I/O was seen,
 *                                "PATH (deleted)" if it went since
 *   kstack ID FRAME;FRAME;...    a kernel stack, outermost frame first
 *   ustack ID FRAME;FRAME;...    a user stack, the same way
 *   note TEXT                    what the recorder could not record
 *   unrecorded PART TEXT         PART (files, stacks) was not recorded at
 *                                all, and why: --by file and stack say so
 * Tabs, newlines and backslashes in a name are written \t, \n and \\.
 */
#ifndef IOWATCHER_CAUSEFILE_H
#define IOWATCHER_CAUSEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "event.h"

/* What a bio's pages are, where it is not one file's data. */
enum cause_flag {
	CAUSE_WRITEBACK = 1u << 0,	/* written back: owner_* dirtied it */
	CAUSE_DIRECT = 1u << 1,		/* direct I/O: the file of the call */
	CAUSE_METADATA = 1u << 2,	/* the device's own pages: metadata */
	CAUSE_JOURNAL = 1u << 3,	/* ... written by the journal */
	CAUSE_SWAP = 1u << 4,		/* swap */
};

struct cause_rec {
	uint32_t sequence;	/* the QUEUE record's, in its CPU's file */
	uint32_t device;	/* and its device */
	uint32_t pid, tgid;	/* the task that queued the bio */
	uint32_t owner_pid, owner_tgid;	/* who dirtied a writeback's pages */
	uint64_t cgroup;	/* cgroup id, 0: none */
	uint64_t ino;		/* the file whose pages these are, 0: none */
	uint32_t ino_dev;	/* its file system (dev_t, as in records) */
	int32_t kstack, ustack;	/* stack ids in the dictionary, -1: none */
	uint32_t flags;		/* enum cause_flag */
	/* the task's cgroup v2 group (the dirtier's for a writeback), 0:
	 * not kept (the io controller's hierarchy is v2's: cgroup is it) */
	uint64_t cgroup2;
	/* the inode's generation: which of the files given its number */
	uint32_t ino_gen;
	uint32_t reserved;
};

#define CAUSE_FILE_MAGIC	"IOWCAUS1"
#define CAUSE_REC_SIZE		72
#define CAUSE_REC_SIZE_64	64	/* before ino_gen */

enum cause_file_kind { FILE_KIND_FILE, FILE_KIND_METADATA,
		       FILE_KIND_JOURNAL, FILE_KIND_SWAP, FILE_KIND_DEVICE,
		       N_FILE_KINDS };

/* ---- writing (a recorder) ---- */

struct cause_writer;

struct cause_writer *cause_writer_open(const char *dir, const char *name,
				       struct iow_error *err);
/* The cause of the QUEUE record cpu's file got last. */
int cause_write(struct cause_writer *w, unsigned cpu,
		const struct cause_rec *r, struct iow_error *err);
int cause_write_task(struct cause_writer *w, uint32_t tid, uint32_t tgid,
		     const char *comm, struct iow_error *err);
int cause_write_cgroup(struct cause_writer *w, uint64_t id, const char *path,
		       struct iow_error *err);
int cause_write_cgroup2(struct cause_writer *w, uint64_t id, const char *path,
			struct iow_error *err);
/* Where the cgroup ids are directories: root, of v1's blkio (v1) or v2. */
int cause_write_cgroup_root(struct cause_writer *w, const char *root, int v1,
			    struct iow_error *err);
int cause_write_file(struct cause_writer *w, uint32_t dev, uint64_t ino,
		     uint32_t gen, enum cause_file_kind kind, const char *path,
		     struct iow_error *err);
/* frames[0] the outermost */
int cause_write_stack(struct cause_writer *w, int user, int32_t id,
		      const char *const *frames, size_t n,
		      struct iow_error *err);
int cause_write_note(struct cause_writer *w, const char *text,
		     struct iow_error *err);
/* What the recorder does not see at all: the files or the stacks. */
enum cause_part { CAUSE_PART_FILES, CAUSE_PART_STACKS, N_CAUSE_PARTS };
int cause_write_unrecorded(struct cause_writer *w, enum cause_part part,
			   const char *why, struct iow_error *err);
/* Flushes and closes it all, frees w whatever the result. */
int cause_writer_close(struct cause_writer *w, struct iow_error *err);
/* Tells r (a live reader: the live view's) all that w is told, as it is
 * told: the records and the dictionary's lines. */
struct cause_reader;
void cause_writer_mirror(struct cause_writer *w, struct cause_reader *r);

/* ---- reading ---- */


/*
 * The causes kept beside the per-CPU set base (DIR/NAME): NULL and no
 * error when there are none; NULL with err when they are damaged.
 */
struct cause_reader *cause_reader_open(const char *base,
				       struct iow_error *err);
/*
 * The cause of QUEUE event ev (host order, cpu and sequence as in its
 * file), or NULL when none was kept (lost with events, or never). Called
 * for the QUEUE events in trace order; the record stays valid until the
 * next call for that CPU.
 */
const struct cause_rec *cause_reader_match(struct cause_reader *r,
					   const struct io_event *ev);
/*
 * A reader of no files, for the live view: told the records and the
 * names as a recorder writes them (cause_writer_mirror), each record
 * before its QUEUE event is matched.
 */
struct cause_reader *cause_reader_live(void);
/* Whether r has causes: any file's, or a live reader's pushed ones. */
int cause_reader_kept(const struct cause_reader *r);
const char *cause_task_name(const struct cause_reader *r, uint32_t tid);
const char *cause_cgroup_path(const struct cause_reader *r, uint64_t id);
/* A cgroup v2 group's path (a record's cgroup2), or NULL. */
const char *cause_cgroup2_path(const struct cause_reader *r, uint64_t id);
/* Where the cgroups' paths are from (the io controller's hierarchy's
 * mount; *v1: v1's blkio, else v2), or NULL when the recorder did not
 * say (an older one). */
const char *cause_cgroup_root(const struct cause_reader *r, int *v1);
/* The file's path and kind, or NULL when not named. */
const char *cause_file_path(const struct cause_reader *r, uint32_t dev,
			    uint64_t ino, uint32_t gen,
			    enum cause_file_kind *kind);
/* "outer;...;inner", or NULL. */
const char *cause_stack(const struct cause_reader *r, int user, int32_t id);
/* The dictionary's notes ("user stacks need frame pointers"), joined. */
const char *cause_notes(const struct cause_reader *r);
/* Why part was not recorded at all ("unrecorded" lines), or NULL. */
const char *cause_unrecorded(const struct cause_reader *r,
			     enum cause_part part);
/* A warning (records that matched no QUEUE event), or NULL. */
const char *cause_reader_warning(const struct cause_reader *r);
void cause_reader_close(struct cause_reader *r);

#endif
