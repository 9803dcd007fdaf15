/*
 * blocktp.h: the kernel's block tracepoints (block:block_rq_issue and the
 * rest) as the blktrace records the kernel's blktrace would have written
 * for them (version 7, this machine's byte order), for the inputs that
 * hold tracepoints rather than records: perf script's text (perftext.c)
 * and trace-cmd's trace.dat (tracedat.c). One table says what each
 * tracepoint is to blktrace, one parser reads rwbs, and one writer turns
 * an event's fields into records: a PROCESS note where a task's name is
 * first seen on a device, the event's record, and a loss note per device
 * where the input says events were lost.
 */
#ifndef IOWATCHER_BLOCKTP_H
#define IOWATCHER_BLOCKTP_H

#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include "base/bytebuf.h"
#include "base/error.h"
#include "base/u64map.h"
#include "bytesrc.h"

/* The shapes of the tracepoints' fields (their print formats). */
enum blocktp_shape {
	BLOCKTP_BIO,		/* "%d,%d %s %llu + %u [%s]" */
	BLOCKTP_BIO_DONE,	/* "%d,%d %s %llu + %u [%d]": the error */
	BLOCKTP_RQ,		/* "%d,%d %s %u (%s) %llu + %u [prio] [%s]" */
	BLOCKTP_RQ_DONE,	/* "%d,%d %s (%s) %llu + %u [prio] [%d]" */
	BLOCKTP_SPLIT,		/* "%d,%d %s %llu / %llu [%s]" */
	BLOCKTP_REMAP,		/* "%d,%d %s %llu + %u <- (%d,%d) %llu[ %u]" */
	BLOCKTP_SKIP,		/* read by no statistic */
};

struct blocktp_event {
	const char *name;	/* "block_rq_issue", without "block:" */
	enum blocktp_shape shape;
	uint32_t action;	/* blktrace's action and category */
};

/* The block event named name[0, len) ("block_rq_issue"), or NULL. */
const struct blocktp_event *blocktp_find(const char *name, size_t len);

/*
 * rwbs (the kernel's blk_fill_rwbs: "WS", "FWFS", "D", "N") at *s, after
 * blanks, as blktrace's categories into *what; *s moves past it. -1 when
 * it is not one.
 */
int blocktp_rwbs(const char **s, uint32_t *what);

/* One event's fields, whichever shape. */
struct blocktp_fields {
	uint32_t dev, what;	/* blktrace's device; rwbs's categories */
	uint64_t sector, nr_sector, rest_sector;
	uint64_t bytes;
	int has_bytes, passthrough;
	uint16_t error;
	uint32_t from_dev;
	uint64_t from_sector;
};

/* Who and when: the task the event ran in, its CPU and time. */
struct blocktp_task {
	uint64_t time_ns;
	uint32_t pid, cpu;
	const char *comm;	/* not NUL-terminated: comm_len bytes */
	size_t comm_len;
};

/* The records made so far, and what the writer remembers. */
struct blocktp_out {
	struct bytebuf out;
	size_t out_start;	/* out[out_start, len) not yet taken */
	uint32_t sequence;
	uint64_t block_events;	/* block events seen, skipped ones too */
	struct u64map comms;	/* (pid, device): a hash of the name noted */
	uint64_t *cpu_last_ns;	/* per CPU, its last event's time */
	size_t n_cpus;
	uint32_t *devices;	/* seen, for the loss notes */
	size_t n_devices;
};

/* CPU numbers a trace may name: 0 to BLOCKTP_CPU_LIMIT - 1 (Linux's
 * NR_CPUS is at most 8192; one more power of two of room). */
#define BLOCKTP_CPU_LIMIT	65536
/* Times a trace may carry: below 2^62 ns (146 years of a clock that
 * starts at boot); above, a time is damage, not a clock. */
#define BLOCKTP_TIME_LIMIT_NS	(1ull << 62)

/* An event of any kind on cpu at time_ns: a loss there starts here.
 * 0, or -1 out of memory. */
int blocktp_see_cpu(struct blocktp_out *o, uint32_t cpu, uint64_t time_ns);
/* The records of one block event (none for a SKIP one): 0, or -1 out of
 * memory. */
int blocktp_emit(struct blocktp_out *o, const struct blocktp_event *be,
		 const struct blocktp_fields *f,
		 const struct blocktp_task *task);
/* count events lost on cpu (count_known 0: how many unknown) before
 * time_ns, since that CPU's last event: a loss note per device seen.
 * 0, or -1 out of memory. */
int blocktp_lost(struct blocktp_out *o, uint32_t cpu, uint64_t time_ns,
		 uint64_t count, int count_known);
/*
 * count records the reader dropped as exact repeats (the same CPU, time,
 * task, event and fields twice), said once at time_ns: a MESSAGE note
 * "iowatcher: N duplicate records ignored" on the first device seen
 * (analysis.h: duplicate_records). 0, or -1 out of memory.
 */
int blocktp_duplicates(struct blocktp_out *o, uint64_t time_ns,
		       uint64_t count);
#define BLOCKTP_DUP_LEAD	"iowatcher: "
#define BLOCKTP_DUP_TAIL	" duplicate records ignored"
/* The records made and not taken yet: how many bytes. */
size_t blocktp_pending(const struct blocktp_out *o);
/* Up to len of those bytes into buf: how many. */
size_t blocktp_take(struct blocktp_out *o, unsigned char *buf, size_t len);
void blocktp_out_free(struct blocktp_out *o);

/*
 * An input of tracepoints, read as the records it stands for (one file
 * each, one row of the feed's table, chosen by the data's first bytes):
 * perftext.c, tracedat.c.
 */
struct blocktp_input {
	/* whether p[0, len), the data's start, is this input's */
	int (*looks)(const unsigned char *p, size_t len);
	/* src's data from here on, first[0, n) already taken from it;
	 * path names it in messages. NULL with err on an error. */
	void *(*open)(struct byte_source *src, const unsigned char *first,
		      size_t n, const char *path, struct iow_error *err);
	/* up to len bytes of records: how many, 0 at the end, -1 on an
	 * error */
	ssize_t (*read)(void *input, unsigned char *buf, size_t len,
			struct iow_error *err);
	void (*free)(void *input);
};

extern const struct blocktp_input perftext_input;
extern const struct blocktp_input tracedat_input;

#endif
