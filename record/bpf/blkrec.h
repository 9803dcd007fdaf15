/*
 * bpf/blkrec.h: what the BPF recorder's kernel side (blkrec.bpf.c) and
 * its user side (rec_bpf.c) share: the records on the ring buffers, the
 * traced devices and the per-CPU counts of lost events.
 *
 * A record on a ring is a version-7 blktrace record (48 bytes, host
 * order, sequence 0) and its payload: an I/O event, a PROCESS note, or,
 * with BLKREC_LOSS_MAGIC, a loss record: sector = events lost on that CPU
 * since the last record before them, time = the first record reserved
 * after them, an 8-byte payload = that last record's time (0: none).
 * With BLKREC_CAUSE_MAGIC, a QUEUE record (no payload) followed by its
 * cause, struct blkrec_cause: one sample, so that the cause stays with
 * its record through the user side's sort. With BLKREC_NAME_MAGIC, a
 * file's name as it is unlinked, struct blkrec_name (no payload,
 * device the file system's s_dev): the trace does not get it, the
 * dictionary does, so that a file deleted before the recording ends is
 * still named.
 */
#ifndef IOWATCHER_BPF_BLKREC_H
#define IOWATCHER_BPF_BLKREC_H

#include <linux/types.h>

#define BLKREC_MAX_DEVS		16
#define BLKREC_LOSS_MAGIC	0x4c4f5353u	/* "LOSS" */
#define BLKREC_CAUSE_MAGIC	0x43415553u	/* "CAUS" */
#define BLKREC_NAME_MAGIC	0x4e414d45u	/* "NAME" */
#define BLKREC_COMM_LEN		16

/* What the programs record beside the trace (cause_opts, set before
 * the load). */
#define BLKREC_CAUSES		(1u << 0)	/* task, cgroup, file */
#define BLKREC_KSTACKS		(1u << 1)	/* and the kernel stack */
#define BLKREC_USTACKS		(1u << 2)	/* and the user stack */

/* What a bio's first page is. */
enum blkrec_kind {
	BLKREC_NONE,		/* no page or no owner (kernel buffers) */
	BLKREC_FILE,		/* a file's page cache, or its direct I/O */
	BLKREC_METADATA,	/* the block device's own page cache */
	BLKREC_JOURNAL,		/* ... written by jbd2, or jbd2's buffers */
	BLKREC_SWAP,		/* swap cache */
	BLKREC_DEVICE,		/* the device itself, no file system on it */
};

/* A bio's flags, as causefile.h's enum cause_flag (rec_causes.c
 * checks they agree). */
#define BLKREC_WRITEBACK	(1u << 0)
#define BLKREC_DIRECT		(1u << 1)

/* Who and what queued a bio (after a BLKREC_CAUSE_MAGIC record). */
struct blkrec_cause {
	__u32 pid, tgid;		/* the task queuing it */
	__u32 owner_pid, owner_tgid;	/* who dirtied a writeback's pages */
	__u64 cgroup;			/* the bio's blkcg, as its kn->id */
	/* the task's cgroup v2 group (the dirtier's for a writeback), which
	 * is not the bio's where the io controller is bound to v1 */
	__u64 cgroup2;
	__u64 ino;			/* the inode of the first page */
	__u32 ino_dev;			/* its super block's s_dev */
	__u32 ino_gen;			/* its i_generation: one file of
					 * those its number was given to */
	__s32 kstack, ustack;		/* stack map ids, < 0: none */
	__u8 kind;			/* enum blkrec_kind */
	__u8 flags;			/* BLKREC_WRITEBACK, BLKREC_DIRECT */
	__u8 pad[2];
	char owner_comm[BLKREC_COMM_LEN];
};

/* The process that last dirtied an inode's pages (by inode address). */
struct blkrec_dirtier {
	__u32 pid, tgid;
	char comm[BLKREC_COMM_LEN];
	__u64 cgroup2;
};

#define BLKREC_NAME_BYTES	1024	/* a path's components, as kept */
#define BLKREC_NAME_DEPTH	24	/* components walked up at most */

/* A file being unlinked (after a BLKREC_NAME_MAGIC record): its path
 * from its file system's root, names[] holding the components, the
 * file's own first, each ending in a NUL. */
struct blkrec_name {
	__u64 ino;
	__u32 gen;		/* its i_generation */
	__u32 nlink;		/* its links left: 0, the file went */
	__u16 depth;		/* components in names */
	__u8 whole;		/* they reach the file system's root */
	__u8 pad;
	char names[BLKREC_NAME_BYTES];
};

/* The file a task's direct I/O is on, between its begin and its bios'
 * submission. */
struct blkrec_dio {
	__u64 iocb;			/* the call it belongs to */
	__u64 ino;
	__u32 dev;
	__u32 gen;
};

#define BLKREC_STACK_DEPTH	64	/* frames kept per stack */

/* A traced device: events of disk (MAJ << 20 | MIN of the whole disk)
 * at sectors start_lba..end_lba are written as device dev. */
struct blkrec_dev {
	__u32 disk;
	__u32 dev;
	__u64 start_lba;
	__u64 end_lba;
};

/* Per CPU, in a one-entry per-CPU array the user side reads. */
struct blkrec_cpu {
	__u64 last_ok_ns;	/* the newest record reserved */
	__u64 pending;		/* lost since, not yet on the ring */
	__u64 t0_ns;		/* last_ok_ns when the pending ones began */
	__u64 first_fail_ns;	/* the first of the pending ones */
	__u64 last_fail_ns;	/* the newest failed reservation */
	__u64 lost_total;	/* every event lost on this CPU */
	__u64 records;		/* records reserved, for wake-up pacing */
	/* requests issued, requeued, wholly completed (of traced devices):
	 * what the kernel completed without running our program shows in
	 * them (rec_bpf.c) */
	__u64 issued, requeued, completed;
	__u64 data_completions;	/* tests: for IOWATCHER_BPF_UNSEEN */
};

/*
 * --flight's single-I/O triggers, evaluated by the programs: each
 * request's queue and issue times are kept by device and sector (as the
 * user side matches them), and at its completion its d2c, q2c and q2d
 * are compared with each trigger's threshold. One past it goes on the
 * fire ring as a struct blkrec_fire, waking the reader at once (but
 * inside the after part of the last fire, whose capture it joins).
 */
#define BLKREC_MAX_TRIGGERS	16
#define BLKREC_REQS		65536	/* requests between queue and
					 * completion kept (LRU) */
/*
 * A request issued has a driver tag, unique in its hardware queue until
 * it completes: its issue time is kept in an array slot by device
 * entry, hardware queue and tag (a store and a load, where the LRU
 * hash's insert and delete cost about 1.1 us of the programs' time per
 * I/O, bench/README.md). Requests beyond these bounds use the hash.
 */
#define BLKREC_TAG_HW		64	/* hardware queues per device */
#define BLKREC_TAGS		1024	/* tags per hardware queue */

enum blkrec_metric { BLKREC_D2C, BLKREC_Q2C, BLKREC_Q2D };

struct blkrec_trigger {
	__u64 threshold_ns;
	__u32 dev;		/* 0: any */
	__u8 metric;		/* enum blkrec_metric */
	__u8 cls;		/* 0 any, 1 read, 2 write */
	__u8 index;		/* the user side's trigger */
	__u8 pad;
};

struct blkrec_req_key {
	__u64 sector;
	__u32 dev;
	__u32 pad;
};

struct blkrec_req {
	__u64 q_ns, d_ns;
};

/* A tag's slot: the request holding it (its address), and its times. */
struct blkrec_tag_slot {
	__u64 rq;
	__u64 q_ns, d_ns;
};

struct blkrec_fire {
	__u64 complete_ns;	/* the completion's record's time */
	__u64 sector;
	__u64 value_ns;		/* its d2c, q2c or q2d */
	__u32 dev;
	__u32 bytes;
	__u32 action;
	__u8 trigger;		/* its index */
	__u8 woke;		/* submitted with a wake-up */
	__u8 pad[2];
};

/* The fire ring's counts (one entry): fires that found it full. */
struct blkrec_fires {
	__u64 quiet_until_ns;	/* fires before it join the last */
	__u64 dropped;
};

#endif
