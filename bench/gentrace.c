/*
 * bench/gentrace.c: writes a synthetic but realistic blktrace trace,
 * one NAME.blktrace.N file per CPU exactly as blktrace lays them out, for
 * the benchmark and for tests that need traces of any size, record
 * version or byte order. A few processes do sequential and random reads
 * and writes on one or more devices; each I/O is Q G [Q M]... I D C with
 * log-normal device times. On request the trace gets what real
 * filesystems add: split bios (Q X... then G I D C per piece), cache
 * flushes and preflush+FUA writes as blk-mq traces them (D FN, C FN 0,
 * an empty C at the end) and large discards; --mix imitates a recorded
 * workload instead (fio's random reads inside the range of its sequential
 * writes, each request plugged and unplugged). Events are produced in time
 * order from a small heap of in-flight I/Os and appended to per-CPU
 * buffers, so memory stays flat whatever the trace size. The totals it
 * prints on stderr, by the classes of iowatcher(1)'s "HOW I/O IS COUNTED",
 * are an oracle independent of blkparse and of iowatcher's reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "base/error.h"

#define NSEC_PER_USEC		1000ull
#define NSEC_PER_MSEC		1000000ull
#define NSEC_PER_SEC		1000000000ull
#define BOOT_OFFSET_NS		(5000ull * NSEC_PER_SEC)
#define SECTOR_SIZE		512u
#define DEVICE_SECTORS		(1ull << 31)	/* 1 TiB per device */
#define DEVICE_TAGS		32u		/* requests a device accepts */
#define MAX_QUEUE_DEPTH		32u
#define COMM_LEN		16u		/* the kernel's TASK_COMM_LEN */
#define OUT_BUF_TOTAL		(4u << 20)	/* shared by all CPU buffers */
#define MAX_CPUS		1024u
#define MAX_DEVICES		256u
#define MAX_PIDS		4096u
#define MAX_RECORD		(BLK_IO_TRACE8_SIZE + COMM_LEN)
/* --splits: the largest request a device takes (max_sectors_kb 512) */
#define SPLIT_SECTORS		1024u
#define SPLIT_BYTES		(SPLIT_SECTORS * SECTOR_SIZE)
#define SPLIT_PDU_LEN		8u	/* big-endian u64: the remainder */
#define UNPLUG_PDU_LEN		8u	/* big-endian u64: requests unplugged */

/* --mix: a named workload in place of the template table's processes. */
enum gen_mix {
	MIX_NONE,
	MIX_RANDREAD_SEQWRITE,
};

struct gen_opts {
	const char *out_base;	/* DIR/NAME */
	uint64_t n_events;
	unsigned ncpus;
	uint64_t seed;
	unsigned ndevices;
	unsigned npids;
	int v8;
	int swap;
	int merges;
	int bimodal;
	int flushes;	/* cache flushes and preflush+FUA writes */
	int splits;	/* large bios split at SPLIT_BYTES */
	int discards;	/* large discards */
	enum gen_mix mix;
	int plugs;	/* P and U between G and I, as direct I/O has them */
};

/* xoshiro256**: fast, and the same stream for a seed on every machine. */
struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t result = rotl(r->s[1] * 5, 7) * 9;
	uint64_t t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return result;
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		r->s[i] = z ^ (z >> 31);
	}
}

/* Uniform in [0, 1). */
static double rng_unit(struct rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

static double rng_normal(struct rng *r)
{
	double u1 = 1.0 - rng_unit(r);	/* (0, 1]: log() stays finite */
	double u2 = rng_unit(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double rng_lognormal(struct rng *r, double median, double sigma)
{
	return median * exp(sigma * rng_normal(r));
}

/* Log-uniform between lo and hi: as many short waits as long ones. */
static double rng_log_uniform(struct rng *r, double lo, double hi)
{
	return lo * exp(rng_unit(r) * log(hi / lo));
}

static uint64_t rng_exp_ns(struct rng *r, double mean_ns)
{
	return (uint64_t)(-mean_ns * log(1.0 - rng_unit(r)));
}

/* ---- output: one buffered file per CPU ---- */

struct cpu_file {
	int fd;
	char *path;
	unsigned char *buf;
	size_t len;
	size_t cap;
	uint32_t sequence;	/* last sequence number written */
	uint64_t records;
};

struct trace_writer {
	struct cpu_file *cpus;
	unsigned ncpus;
	int v8;
	int swap;
};

/* One record before encoding; time is absolute nanoseconds. */
struct record {
	uint64_t time_ns;
	uint64_t sector;
	uint32_t bytes;
	uint32_t action;
	uint32_t pid;
	uint32_t device;
	uint32_t cpu;
	uint16_t pdu_len;
	const unsigned char *pdu;
	int pdu_is_u32s;	/* swap the payload as u32s (TIMESTAMP) */
};

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int cpu_file_flush(struct cpu_file *cf, struct iow_error *err)
{
	if (write_all(cf->fd, cf->buf, cf->len) < 0)
		return iow_fail(err, "%s: write: %s", cf->path,
				strerror(errno));
	cf->len = 0;
	return 0;
}

static void put16(unsigned char *p, uint16_t v, int swap)
{
	if (swap)
		v = __builtin_bswap16(v);
	memcpy(p, &v, sizeof(v));
}

static void put32(unsigned char *p, uint32_t v, int swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(unsigned char *p, uint64_t v, int swap)
{
	if (swap)
		v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

/* Encodes rec at p in the writer's version and byte order; returns size. */
static size_t encode_record(const struct trace_writer *w,
			    const struct record *rec, uint32_t sequence,
			    unsigned char *p)
{
	int sw = w->swap;
	size_t head;

	if (w->v8) {
		head = BLK_IO_TRACE8_SIZE;
		memset(p, 0, head);
		put32(p + 0, BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION8, sw);
		put32(p + 4, sequence, sw);
		put64(p + 8, rec->time_ns, sw);
		put64(p + 16, rec->sector, sw);
		put32(p + 24, rec->bytes, sw);
		put32(p + 28, rec->pid, sw);
		put64(p + 32, rec->action, sw);
		put32(p + 40, rec->device, sw);
		put32(p + 44, rec->cpu, sw);
		put16(p + 48, 0, sw);
		put16(p + 50, rec->pdu_len, sw);
	} else {
		head = BLK_IO_TRACE7_SIZE;
		put32(p + 0, BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7, sw);
		put32(p + 4, sequence, sw);
		put64(p + 8, rec->time_ns, sw);
		put64(p + 16, rec->sector, sw);
		put32(p + 24, rec->bytes, sw);
		put32(p + 28, rec->action, sw);
		put32(p + 32, rec->pid, sw);
		put32(p + 36, rec->device, sw);
		put32(p + 40, rec->cpu, sw);
		put16(p + 44, 0, sw);
		put16(p + 46, rec->pdu_len, sw);
	}
	if (rec->pdu_is_u32s) {
		for (unsigned i = 0; i + 4 <= rec->pdu_len; i += 4) {
			uint32_t v;

			memcpy(&v, rec->pdu + i, 4);
			put32(p + head + i, v, sw);
		}
	} else if (rec->pdu_len) {
		memcpy(p + head, rec->pdu, rec->pdu_len);
	}
	return head + rec->pdu_len;
}

/*
 * Appends rec to its CPU's file. Notes carry sequence 0 as the kernel
 * writes them; every other record takes the CPU's next sequence number.
 */
static int writer_put(struct trace_writer *w, const struct record *rec,
		      struct iow_error *err)
{
	struct cpu_file *cf = &w->cpus[rec->cpu];
	uint32_t sequence = 0;

	if (cf->cap - cf->len < MAX_RECORD && cpu_file_flush(cf, err) < 0)
		return -1;
	if (!blk_is_note(rec->action))
		sequence = ++cf->sequence;
	cf->len += encode_record(w, rec, sequence, cf->buf + cf->len);
	cf->records++;
	return 0;
}

/* Removes NAME.blktrace.N for N >= first so no stale CPU file lingers. */
static void remove_stale_cpu_files(const char *base, unsigned first)
{
	char path[4096];

	for (unsigned cpu = first; cpu < MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "%s.blktrace.%u", base, cpu);
		if (unlink(path) < 0 && errno == ENOENT)
			break;
	}
}

static int writer_open(struct trace_writer *w, const struct gen_opts *o,
		       struct iow_error *err)
{
	size_t cap = OUT_BUF_TOTAL / o->ncpus;

	if (cap < (64u << 10))
		cap = 64u << 10;
	w->ncpus = o->ncpus;
	w->v8 = o->v8;
	w->swap = o->swap;
	w->cpus = calloc(o->ncpus, sizeof(*w->cpus));
	if (!w->cpus)
		return iow_fail(err, "out of memory");
	for (unsigned i = 0; i < o->ncpus; i++)
		w->cpus[i].fd = -1;
	for (unsigned i = 0; i < o->ncpus; i++) {
		struct cpu_file *cf = &w->cpus[i];
		size_t plen = strlen(o->out_base) + 32;

		cf->path = malloc(plen);
		cf->buf = malloc(cap);
		if (!cf->path || !cf->buf)
			return iow_fail(err, "out of memory");
		cf->cap = cap;
		snprintf(cf->path, plen, "%s.blktrace.%u", o->out_base, i);
		cf->fd = open(cf->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (cf->fd < 0)
			return iow_fail(err, "%s: %s", cf->path,
					strerror(errno));
	}
	remove_stale_cpu_files(o->out_base, o->ncpus);
	return 0;
}

static int writer_flush(struct trace_writer *w, struct iow_error *err)
{
	for (unsigned i = 0; i < w->ncpus; i++)
		if (cpu_file_flush(&w->cpus[i], err) < 0)
			return -1;
	return 0;
}

/* Flushes and closes every file; reports the first failure. */
static int writer_close(struct trace_writer *w, struct iow_error *err)
{
	int ret = 0;

	if (!w->cpus)
		return 0;
	for (unsigned i = 0; i < w->ncpus; i++) {
		struct cpu_file *cf = &w->cpus[i];

		if (cf->fd >= 0) {
			if (ret == 0 && cpu_file_flush(cf, err) < 0)
				ret = -1;
			if (close(cf->fd) < 0 && ret == 0)
				ret = iow_fail(err, "%s: close: %s", cf->path,
					       strerror(errno));
		}
		free(cf->buf);
		free(cf->path);
	}
	free(w->cpus);
	w->cpus = NULL;
	return ret;
}

/* ---- the workload ---- */

enum io_pattern {
	PATTERN_SEQ_READ,
	PATTERN_SEQ_WRITE,
	PATTERN_RAND_READ,
	PATTERN_RAND_WRITE,
	PATTERN_RAND_RW,	/* 70% reads */
};

struct workload_template {
	const char *comm;
	enum io_pattern pattern;
	unsigned min_kib;
	unsigned max_kib;
	double think_us;	/* mean pause between a completion and a Q */
	int sync_writes;	/* writes carry the SYNC category ("WS") */
	int threaded;		/* submits from any CPU */
};

/*
 * Ordered so that with two devices each gets both reads and writes, both
 * sequential and random (process i runs on device i % ndevices).
 */
static const struct workload_template templates[] = {
	{ "postgres", PATTERN_RAND_RW, 8, 64, 80, 1, 1 },
	{ "tar", PATTERN_SEQ_READ, 64, 512, 40, 0, 0 },
	{ "dd", PATTERN_SEQ_WRITE, 256, 1024, 20, 0, 0 },
	{ "fio", PATTERN_RAND_READ, 4, 16, 5, 0, 1 },
	{ "jbd2/sda1-8", PATTERN_SEQ_WRITE, 4, 64, 150, 1, 0 },
	{ "mysqld", PATTERN_RAND_WRITE, 16, 16, 60, 1, 1 },
	{ "rsync", PATTERN_SEQ_READ, 128, 1024, 30, 0, 0 },
	{ "kworker/u8:2", PATTERN_RAND_WRITE, 4, 1024, 40, 0, 0 },
};
#define N_TEMPLATES (sizeof(templates) / sizeof(templates[0]))

/* A process of a --mix workload: what it does, at a fixed queue depth. */
struct mix_job {
	struct workload_template tmpl;
	unsigned depth;
};

/*
 * --mix randread-seqwrite, as bench/randread-seqwrite.fio records it on
 * a loop device: fio's random 4 KiB reads, 16 in flight, and its 128 KiB
 * direct (so SYNC) writes, 4 in flight, cycling through the same 256 MiB.
 * The pauses are fio's own time between a completion and the next
 * submission on a busy 2-CPU machine: the benchmark's recording there
 * (2026-11-23) did 33k reads and 14k writes a second, with about 7.5
 * requests in the device on average.
 */
static const struct mix_job randread_seqwrite_jobs[] = {
	{ { "fio", PATTERN_RAND_READ, 4, 4, 290, 0, 0 }, 16 },
	{ { "fio", PATTERN_SEQ_WRITE, 128, 128, 130, 1, 0 }, 4 },
};
/*
 * D2C of that loop device: reads p50 ~170 us, 13% of them in 4-8 us (a
 * worker already running copies them at once); writes p50 ~120 us.
 */
#define LOOP_READ_MEDIAN_US	165.0
#define LOOP_READ_FAST_US	5.5
#define LOOP_READ_FAST_SHARE	0.13
#define LOOP_WRITE_MEDIAN_US	120.0
#define LOOP_SIGMA		0.65
#define MIX_JOBS (sizeof(randread_seqwrite_jobs) / \
		  sizeof(randread_seqwrite_jobs[0]))
#define MIX_REGION_SECTORS	((256u << 20) / SECTOR_SIZE)

/* Completion classes, as iowatcher(1) names them. */
enum io_class { CLASS_READ, CLASS_WRITE, CLASS_DISCARD, CLASS_FLUSH,
		N_CLASSES };

/*
 * The oracle of one device: completions by class, and the latency sums
 * of its data bios (every merged bio and every split piece is one), in
 * integer nanoseconds so that means come out exact.
 */
struct class_totals {
	uint64_t ios[N_CLASSES];
	uint64_t bytes[N_CLASSES];
	uint64_t empty;		/* 0-byte completions that are not flushes */
	uint64_t bios;		/* data bios completed */
	uint64_t q2c_ns, d2c_ns, q2d_ns;
	uint64_t flush_d2c_ns;	/* flush requests, D FN to C FN */
};

/* I/O ids waiting, first come first served: a ring that grows. */
struct id_ring {
	uint32_t *ids;
	unsigned head, len, cap;
};

static int ring_push(struct id_ring *r, uint32_t id, struct iow_error *err)
{
	if (r->len == r->cap) {
		unsigned cap = r->cap ? r->cap * 2 : 64;
		uint32_t *w = malloc(cap * sizeof(*w));

		if (!w)
			return iow_fail(err, "out of memory");
		for (unsigned i = 0; i < r->len; i++)
			w[i] = r->ids[(r->head + i) % r->cap];
		free(r->ids);
		r->ids = w;
		r->head = 0;
		r->cap = cap;
	}
	r->ids[(r->head + r->len++) % r->cap] = id;
	return 0;
}

static uint32_t ring_pop(struct id_ring *r)
{
	uint32_t id = r->ids[r->head];

	r->head = (r->head + 1) % r->cap;
	r->len--;
	return id;
}

struct device {
	uint32_t dev;
	unsigned irq_cpu;	/* where a disk's completions land */
	int rotational;
	int loop_backed;	/* a --mix device: a loop device over RAM */
	uint64_t free_ns;	/* when its head or data channel frees */
	unsigned issued;	/* requests between D and C: queue depth */
	unsigned busy_tags;
	unsigned nprocs;
	/* I/Os waiting for a free tag, first come first served */
	struct id_ring waiting;
	uint64_t flush_done_ns;	/* last flush's completion: flushes are FIFO */
	/* the flush machinery has one flush in flight (block/blk-flush.c:
	 * "only one flush shall be in progress"): the others wait, first
	 * come first served (a ring) */
	int flush_busy;
	struct id_ring flush_waiting;
	struct class_totals totals;
};

struct process {
	uint32_t pid;
	char comm[COMM_LEN];
	const struct workload_template *tmpl;
	unsigned device;
	unsigned cpu;
	unsigned depth;		/* in-flight I/Os it keeps in this phase */
	unsigned fixed_depth;	/* a --mix job's: no phases (0: phases) */
	unsigned inflight;
	uint64_t phase_end_ns;
	uint64_t cursor;	/* next sector of a sequential stream */
};

/* What an I/O is; every kind but DATA needs an option to appear. */
enum io_kind {
	IO_DATA,
	IO_DISCARD,
	IO_PREFLUSH_FUA,	/* Q G, D FN C FN, D C of the data, C WS 0 */
	IO_EMPTY_FLUSH,		/* Q G (0 bytes), D FN C FN, C WS 0 */
};

enum io_stage {
	STAGE_QUEUE,
	STAGE_GETRQ,
	STAGE_MERGE_QUEUE,	/* Q of a bio that will back-merge */
	STAGE_BACKMERGE,
	STAGE_INSERT,
	STAGE_ISSUE,
	STAGE_COMPLETE,
	STAGE_SPLIT,		/* X: cut off the front piece */
	STAGE_FLUSH_ISSUE,	/* D FN */
	STAGE_FLUSH_COMPLETE,	/* C FN 0 */
	STAGE_EMPTY_COMPLETE,	/* C WS 0: the flush sequence ends */
	STAGE_PLUG,		/* P, with plugs: before the I */
	STAGE_UNPLUG,		/* U */
};

struct io {
	uint64_t queue_ns;
	uint64_t bio_queue_sum_ns;	/* its bios' Q times from trace start */
	uint64_t issue_ns;
	uint64_t sector;
	uint64_t bio_sector;	/* sector of the bio being queued/merged */
	uint32_t bio_bytes;
	uint32_t bytes;		/* request bytes: grows with each merge */
	uint32_t category;	/* direction and flags, without stage bits */
	unsigned proc;
	unsigned merges_left;
	unsigned merges_total;
	unsigned queue_cpu;	/* Q, G, M and I happen here */
	unsigned issue_cpu;
	unsigned complete_cpu;	/* of the data, for the empty C after it */
	enum io_kind kind;
	enum io_stage stage;
	int placed_at_queue;	/* a --mix job's: CPU (and a stream's
				 * sector) are its process's at its Q */
	uint32_t next_free;
};

struct heap_entry {
	uint64_t time_ns;
	uint64_t order;		/* tie-break: keeps runs deterministic */
	uint32_t io;
};

struct stats {
	uint64_t records;
	uint64_t notes;
	uint64_t completed[2];	/* [0] reads, [1] writes */
	uint64_t completed_kib[2];
	uint64_t queued[2];
	uint64_t merges[2];
	double d2c_sum_s;	/* per request */
	double q2c_sum_s;
	double bio_d2c_sum_s;	/* per queued bio, as btt counts */
	double bio_q2c_sum_s;
	uint64_t data_requests;	/* completed requests with data */
	uint64_t data_bios;	/* and the bios in them */
	uint64_t first_ns;
	uint64_t last_ns;
	unsigned max_depth;	/* deepest queue of any device */
};

struct generator {
	const struct gen_opts *opts;
	struct rng rng;
	struct trace_writer writer;
	struct device *devices;
	struct process *procs;
	struct io *ios;
	uint32_t nios;
	uint32_t free_io;
	struct heap_entry *heap;
	uint32_t heap_len;
	uint32_t heap_cap;
	uint64_t order;
	uint64_t committed;	/* records of every I/O started so far */
	/* Where data I/O goes: [first, end) sectors of its device. */
	uint64_t region_first;
	uint64_t region_end;
	struct stats stats;
};

#define NO_IO UINT32_MAX

static int heap_less(const struct heap_entry *a, const struct heap_entry *b)
{
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns;
	return a->order < b->order;
}

static int heap_push(struct generator *g, uint32_t io, uint64_t time_ns,
		     struct iow_error *err)
{
	struct heap_entry e = { time_ns, g->order++, io };
	uint32_t i;

	if (g->heap_len == g->heap_cap) {
		uint32_t cap = g->heap_cap ? g->heap_cap * 2 : 64;
		struct heap_entry *h = realloc(g->heap, cap * sizeof(*h));

		if (!h)
			return iow_fail(err, "out of memory");
		g->heap = h;
		g->heap_cap = cap;
	}
	i = g->heap_len++;
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!heap_less(&e, &g->heap[parent]))
			break;
		g->heap[i] = g->heap[parent];
		i = parent;
	}
	g->heap[i] = e;
	return 0;
}

static struct heap_entry heap_pop(struct generator *g)
{
	struct heap_entry top = g->heap[0];
	struct heap_entry last = g->heap[--g->heap_len];
	uint32_t i = 0;

	for (;;) {
		uint32_t child = 2 * i + 1;

		if (child >= g->heap_len)
			break;
		if (child + 1 < g->heap_len &&
		    heap_less(&g->heap[child + 1], &g->heap[child]))
			child++;
		if (!heap_less(&g->heap[child], &last))
			break;
		g->heap[i] = g->heap[child];
		i = child;
	}
	if (g->heap_len)
		g->heap[i] = last;
	return top;
}

static int io_alloc(struct generator *g, uint32_t *id, struct iow_error *err)
{
	if (g->free_io == NO_IO) {
		uint32_t n = g->nios ? g->nios * 2 : 64;
		struct io *ios = realloc(g->ios, n * sizeof(*ios));

		if (!ios)
			return iow_fail(err, "out of memory");
		for (uint32_t i = g->nios; i < n; i++)
			ios[i].next_free = i + 1 < n ? i + 1 : NO_IO;
		g->ios = ios;
		g->free_io = g->nios;
		g->nios = n;
	}
	*id = g->free_io;
	g->free_io = g->ios[*id].next_free;
	return 0;
}

static void io_free(struct generator *g, uint32_t id)
{
	g->ios[id].next_free = g->free_io;
	g->free_io = id;
}

static uint32_t make_dev(unsigned index)
{
	if (index < 16)
		return (8u << 20) | (index * 16);	/* sda, sdb, ... */
	return (259u << 20) | (index - 16);		/* nvme-like */
}

/* Writes rec, its action with every category bit, on io's device. */
static int emit_record(struct generator *g, const struct io *io,
		       struct record *rec, struct iow_error *err)
{
	rec->device = g->devices[g->procs[io->proc].device].dev;
	g->stats.records++;
	g->stats.last_ns = rec->time_ns;
	return writer_put(&g->writer, rec, err);
}

/* An event of io, with io's direction and flags among its categories. */
static int emit(struct generator *g, uint64_t time_ns, unsigned cpu,
		uint32_t action, const struct io *io, uint64_t sector,
		uint32_t bytes, uint32_t pid, struct iow_error *err)
{
	struct record rec = {
		.time_ns = time_ns,
		.sector = sector,
		.bytes = bytes,
		.action = action | BLK_TC_ACT(io->category),
		.pid = pid,
		.cpu = cpu,
	};

	return emit_record(g, io, &rec, err);
}

static unsigned io_size_bytes(struct generator *g,
			      const struct workload_template *t)
{
	unsigned min = t->min_kib / 4, max = t->max_kib / 4;	/* pages */
	unsigned pages;

	if (t->pattern == PATTERN_SEQ_READ || t->pattern == PATTERN_SEQ_WRITE) {
		/* Mostly full-size requests, some short tails. */
		if (rng_unit(&g->rng) < 0.7)
			pages = max;
		else
			pages = min + (unsigned)rng_below(&g->rng,
							  max - min + 1);
	} else {
		/* Powers of two, the small ones most often. */
		pages = min;
		while (pages * 2 <= max && rng_unit(&g->rng) < 0.35)
			pages *= 2;
	}
	return pages * 4096;
}

static int pattern_is_write(struct generator *g, enum io_pattern pattern)
{
	switch (pattern) {
	case PATTERN_SEQ_WRITE:
	case PATTERN_RAND_WRITE:
		return 1;
	case PATTERN_RAND_RW:
		return rng_unit(&g->rng) >= 0.7;
	default:
		return 0;
	}
}

/*
 * A data bio larger than a request may be is split, with --splits.
 * (Discards have limits of their own, far larger: they stay whole.)
 */
static int io_needs_split(const struct generator *g, const struct io *io)
{
	return g->opts->splits && io->kind == IO_DATA &&
	       io->bytes > SPLIT_BYTES;
}

/*
 * Records an I/O takes: Q G I D C plus Q M per merged bio; a split one
 * Q, then X and G I D C for each piece but the last, which has no X; a
 * flush sequence Q G D FN C FN [D C] C WS 0. With plugs every request
 * also has a P and a U before its I.
 */
static unsigned io_records(const struct generator *g, const struct io *io)
{
	unsigned per_request = g->opts->plugs ? 6 : 4;
	unsigned pieces;

	if (io->kind == IO_EMPTY_FLUSH)
		return 5;
	if (io->kind == IO_PREFLUSH_FUA)
		return 7;
	if (io_needs_split(g, io)) {
		pieces = (io->bytes + SPLIT_BYTES - 1) / SPLIT_BYTES;
		return 1 + (pieces - 1) + per_request * pieces;
	}
	return 1 + per_request + 2 * io->merges_left;
}

/*
 * --flushes: a writer that syncs (fsync, a journal commit) sends now and
 * then an empty cache flush or a preflush+FUA write; --discards: some
 * writes are discards. Draws nothing without those options, so that a
 * seed's default trace keeps its bytes.
 */
static enum io_kind choose_kind(struct generator *g,
				const struct workload_template *t, int write)
{
	if (!write)
		return IO_DATA;
	if (g->opts->flushes && t->sync_writes) {
		double u = rng_unit(&g->rng);

		if (u < 0.04)
			return IO_EMPTY_FLUSH;
		if (u < 0.10)
			return IO_PREFLUSH_FUA;
	}
	if (g->opts->discards && rng_unit(&g->rng) < 0.02)
		return IO_DISCARD;
	return IO_DATA;
}

/* 4 KiB pages, log-uniform in [lo, hi]: as many small ones as big. */
static uint32_t rng_pages_bytes(struct generator *g, unsigned lo, unsigned hi)
{
	return (uint32_t)rng_log_uniform(&g->rng, lo, hi + 0.999) * 4096;
}

/* Direction and flags of a new I/O, as the kernel's categories. */
static uint32_t io_category(enum io_kind kind, int write, int sync)
{
	switch (kind) {
	case IO_DISCARD:
		return BLK_TC_WRITE | BLK_TC_DISCARD;
	case IO_PREFLUSH_FUA:
		return BLK_TC_WRITE | BLK_TC_SYNC | BLK_TC_FLUSH | BLK_TC_FUA;
	case IO_EMPTY_FLUSH:
		return BLK_TC_WRITE | BLK_TC_SYNC | BLK_TC_FLUSH;
	case IO_DATA:
		break;
	}
	if (!write)
		return BLK_TC_READ;
	return sync ? BLK_TC_WRITE | BLK_TC_SYNC : BLK_TC_WRITE;
}

/* A discard's place: anywhere, 1 MiB aligned. */
static uint64_t discard_sector(struct generator *g, uint32_t bytes)
{
	uint64_t span = DEVICE_SECTORS - 2048 - bytes / SECTOR_SIZE;

	return rng_below(&g->rng, span / 2048) * 2048 + 2048;
}

/* Where p's sequential stream goes on, for bytes; wraps in the region. */
static uint64_t stream_next_sector(struct generator *g, struct process *p,
				   uint32_t bytes)
{
	uint64_t sector;

	if (p->cursor + bytes / SECTOR_SIZE >= g->region_end)
		p->cursor = g->region_first;
	sector = p->cursor;
	p->cursor += bytes / SECTOR_SIZE;
	return sector;
}

/* Starts one I/O of process p: its Q happens at time_ns. */
static int start_io(struct generator *g, unsigned proc, uint64_t time_ns,
		    struct iow_error *err)
{
	struct process *p = &g->procs[proc];
	const struct workload_template *t = p->tmpl;
	int seq = t->pattern == PATTERN_SEQ_READ ||
		  t->pattern == PATTERN_SEQ_WRITE;
	int write = pattern_is_write(g, t->pattern);
	uint32_t bytes = io_size_bytes(g, t);
	unsigned merges = 0;
	uint32_t id = NO_IO;
	enum io_kind kind;
	struct io *io;

	if (io_alloc(g, &id, err) < 0)
		return -1;
	io = &g->ios[id];
	kind = choose_kind(g, t, write);
	/* Streaming readers and writers send a big bio now and then. */
	if (kind == IO_DATA && seq && g->opts->splits &&
	    rng_unit(&g->rng) < 0.1)
		bytes = rng_pages_bytes(g, 256, 2048);		/* 1-8 MiB */
	if (kind == IO_DISCARD)
		bytes = rng_pages_bytes(g, 256, 16384);		/* 1-64 MiB */
	if (kind == IO_EMPTY_FLUSH)
		bytes = 0;
	/* A plugged sequential stream glues its next bios onto the request
	 * (never past a request's largest size when bios are split). */
	if (kind == IO_DATA && g->opts->merges && seq &&
	    !(g->opts->splits && bytes > SPLIT_BYTES) &&
	    rng_unit(&g->rng) < 0.3) {
		merges = 1 + (unsigned)rng_below(&g->rng, 3);
		if (bytes / 4096 < merges + 1)
			merges = bytes / 4096 - 1;
		bytes = bytes / (merges + 1) / 4096 * 4096 * (merges + 1);
	}
	io->placed_at_queue = p->fixed_depth != 0;
	if (kind == IO_EMPTY_FLUSH) {
		io->sector = 0;		/* an empty bio has no place */
	} else if (kind == IO_DISCARD) {
		io->sector = discard_sector(g, bytes);
	} else if (seq && p->fixed_depth) {
		io->sector = 0;		/* a fio job's: taken at its Q */
	} else if (seq) {
		io->sector = stream_next_sector(g, p, bytes);
	} else {
		io->sector = rng_below(&g->rng, (g->region_end -
						 g->region_first) / 8) * 8 +
			     g->region_first;
	}
	io->kind = kind;
	io->category = io_category(kind, write, t->sync_writes);
	io->proc = proc;
	io->merges_left = merges;
	io->merges_total = merges;
	io->bio_bytes = bytes / (merges + 1);
	io->bytes = io->bio_bytes;
	io->bio_sector = io->sector;
	io->stage = STAGE_QUEUE;
	io->queue_ns = time_ns;
	io->bio_queue_sum_ns = 0;
	/* A threaded server submits from whichever CPU its thread is on. */
	io->queue_cpu = p->cpu;
	if (t->threaded)
		io->queue_cpu = (unsigned)rng_below(&g->rng, g->opts->ncpus);
	io->issue_cpu = io->queue_cpu;
	io->complete_cpu = io->queue_cpu;
	p->inflight++;
	g->committed += io_records(g, io);
	return heap_push(g, id, time_ns, err);
}

/* A new phase: another queue depth, and now and then another CPU. */
static void process_new_phase(struct generator *g, struct process *p,
			      uint64_t now_ns)
{
	unsigned cap = MAX_QUEUE_DEPTH / g->devices[p->device].nprocs;
	int first = p->phase_end_ns == 0;

	/* A --mix job keeps its depth; the scheduler moves it now and then
	 * (a fio job did about twice a second on the recording). */
	if (p->fixed_depth) {
		p->depth = p->fixed_depth;
		if (!first)
			p->cpu = (unsigned)rng_below(&g->rng, g->opts->ncpus);
		p->phase_end_ns = now_ns + rng_exp_ns(&g->rng,
						      200.0 * NSEC_PER_MSEC);
		return;
	}
	if (cap < 1)
		cap = 1;
	p->depth = (unsigned)rng_log_uniform(&g->rng, 1.0, cap + 1.0);
	if (p->depth > cap)
		p->depth = cap;
	if (p->depth < 1)
		p->depth = 1;
	p->phase_end_ns = now_ns + (uint64_t)(rng_log_uniform(&g->rng,
			  200.0, 2000.0) * NSEC_PER_MSEC);
	/* The scheduler moves a process now and then, never at its start. */
	if (!first && g->opts->ncpus > 1 && rng_unit(&g->rng) < 0.1)
		p->cpu = (unsigned)rng_below(&g->rng, g->opts->ncpus);
}

/* Keeps p's depth of I/Os in flight until the trace has enough events. */
static int process_refill(struct generator *g, unsigned proc, uint64_t now_ns,
			  struct iow_error *err)
{
	struct process *p = &g->procs[proc];
	uint64_t t = now_ns;

	if (now_ns >= p->phase_end_ns)
		process_new_phase(g, p, now_ns);
	while (p->inflight < p->depth && g->committed < g->opts->n_events) {
		t += rng_exp_ns(&g->rng, p->tmpl->think_us * NSEC_PER_USEC);
		/* Now and then the process goes quiet for a while. */
		if (rng_unit(&g->rng) < 0.002)
			t += (uint64_t)(rng_log_uniform(&g->rng, 1.0, 50.0) *
					NSEC_PER_MSEC);
		if (start_io(g, proc, t, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * A loop device over a file in RAM, direct I/O: each request is a copy
 * done by a worker, nothing shared to queue on.
 */
static uint64_t loop_service_ns(struct generator *g, int write)
{
	double us;

	if (write)
		us = rng_lognormal(&g->rng, LOOP_WRITE_MEDIAN_US, LOOP_SIGMA);
	else if (rng_unit(&g->rng) < LOOP_READ_FAST_SHARE)
		us = rng_lognormal(&g->rng, LOOP_READ_FAST_US, 0.25);
	else
		us = rng_lognormal(&g->rng, LOOP_READ_MEDIAN_US, LOOP_SIGMA);
	if (us < 2)
		us = 2;
	if (us > 20000)
		us = 20000;
	return (uint64_t)(us * NSEC_PER_USEC);
}

/*
 * Device time. An SSD answers after a log-normal latency but moves data
 * through one channel at its bandwidth, so big requests queue behind each
 * other; a disk serves one request at a time (seek, then transfer), with
 * a deeper queue letting it pick shorter seeks. Latencies are clamped to
 * 50us..20ms before queueing; queueing inside the device adds to that.
 */
static uint64_t device_complete_ns(struct generator *g, struct device *d,
				   const struct io *io, uint64_t now_ns)
{
	const struct workload_template *t = g->procs[io->proc].tmpl;
	int seq = t->pattern == PATTERN_SEQ_READ ||
		  t->pattern == PATTERN_SEQ_WRITE;
	int write = (io->category & BLK_TC_WRITE) != 0;
	double median_us, sigma, mb_per_s, us;
	uint64_t service_ns, xfer_ns, start_ns, done_ns;

	if (d->loop_backed)
		return now_ns + loop_service_ns(g, write);
	if (d->rotational) {
		median_us = seq ? 120 : 4500 / (1.0 + 0.08 * d->busy_tags);
		sigma = seq ? 0.5 : 0.6;
		mb_per_s = 180;
	} else {
		median_us = write ? 40 : 90;
		sigma = 0.45;
		mb_per_s = 1500;
	}
	if (io->kind == IO_DISCARD) {
		/* Unmapping moves no data: far faster than writing it. */
		median_us = d->rotational ? 2000 : 300;
		mb_per_s *= 16;
	}
	if (g->opts->bimodal && rng_unit(&g->rng) < 0.1)
		median_us = 8000;	/* a slow mode: GC, cache miss */
	us = rng_lognormal(&g->rng, median_us, sigma);
	if (us < 50)
		us = 50;
	if (us > 20000)
		us = 20000;
	service_ns = (uint64_t)(us * NSEC_PER_USEC);
	/* bytes / (MB/s) = microseconds */
	xfer_ns = (uint64_t)(io->bytes / mb_per_s * NSEC_PER_USEC);
	if (d->rotational) {
		start_ns = now_ns > d->free_ns ? now_ns : d->free_ns;
		done_ns = start_ns + service_ns + xfer_ns;
	} else {
		start_ns = now_ns + service_ns;
		if (start_ns < d->free_ns)
			start_ns = d->free_ns;
		done_ns = start_ns + xfer_ns;
	}
	d->free_ns = done_ns;
	return done_ns;
}

static uint64_t small_delay_ns(struct generator *g, double lo_us,
			       double hi_us)
{
	return (uint64_t)((lo_us + rng_unit(&g->rng) * (hi_us - lo_us)) *
			  NSEC_PER_USEC);
}

/*
 * A cache flush takes a few hundred microseconds on an SSD, milliseconds
 * on a disk. The kernel keeps one flush in flight per queue, so they
 * complete in the order they were issued, never at the same instant.
 */
static uint64_t flush_complete_ns(struct generator *g, struct device *d,
				  uint64_t now_ns)
{
	double us = rng_lognormal(&g->rng, d->rotational ? 6000 : 400, 0.5);
	uint64_t done_ns;

	if (us < 50)
		us = 50;
	if (us > 50000)
		us = 50000;
	done_ns = now_ns + (uint64_t)(us * NSEC_PER_USEC);
	if (done_ns <= d->flush_done_ns)
		done_ns = d->flush_done_ns + NSEC_PER_USEC;
	d->flush_done_ns = done_ns;
	return done_ns;
}

/* Takes a tag for io and schedules its D, or parks it until one frees. */
static int device_dispatch(struct generator *g, uint32_t id, uint64_t now_ns,
			   struct iow_error *err)
{
	struct io *io = &g->ios[id];
	struct device *d = &g->devices[g->procs[io->proc].device];

	if (d->busy_tags >= DEVICE_TAGS) {
		return ring_push(&d->waiting, id, err);
	}
	d->busy_tags++;
	io->stage = STAGE_ISSUE;
	return heap_push(g, id, now_ns + small_delay_ns(g, 1, 20), err);
}

/*
 * Where a completion lands. A disk interrupts one CPU; an SSD with a
 * queue per CPU mostly completes where the request was submitted. Either
 * way some land elsewhere. The pid is whoever was running: often the
 * idle task.
 */
static unsigned completion_cpu(struct generator *g, const struct io *io,
			       uint32_t *pid)
{
	const struct process *p = &g->procs[io->proc];
	const struct device *d = &g->devices[p->device];
	unsigned cpu = d->irq_cpu;

	*pid = 0;
	if (!d->rotational)
		cpu = io->queue_cpu;
	/* The loop worker that finishes a request runs on any CPU. */
	if (d->loop_backed)
		cpu = (unsigned)rng_below(&g->rng, g->opts->ncpus);
	if (rng_unit(&g->rng) < 0.2)
		cpu = (unsigned)rng_below(&g->rng, g->opts->ncpus);
	if (cpu == io->queue_cpu && rng_unit(&g->rng) < 0.5)
		*pid = p->pid;
	return cpu;
}

static enum io_class data_class(const struct io *io)
{
	if (io->category & BLK_TC_DISCARD)
		return CLASS_DISCARD;
	if (io->category & BLK_TC_WRITE)
		return CLASS_WRITE;
	return CLASS_READ;
}

/*
 * Counts a data request completing at now_ns: as blkparse does (by
 * direction), per request and per bio as btt does, and in the oracle of
 * its class, where each of its bios is a latency sample: Q2C = C - Q,
 * D2C = C - D, Q2D = D - Q (the bios' Q times are summed from first_ns).
 */
static void account_data(struct generator *g, struct device *d,
			 const struct io *io, uint64_t now_ns)
{
	struct class_totals *ct = &d->totals;
	enum io_class class = data_class(io);
	int write = (io->category & BLK_TC_WRITE) != 0;
	uint64_t bios = io->merges_total + 1;
	uint64_t since_first = now_ns - g->stats.first_ns;
	uint64_t issue_since_first = io->issue_ns - g->stats.first_ns;

	g->stats.completed[write]++;
	g->stats.completed_kib[write] += io->bytes >> 10;
	g->stats.d2c_sum_s += (now_ns - io->issue_ns) / 1e9;
	g->stats.q2c_sum_s += (now_ns - io->queue_ns) / 1e9;
	/* btt counts D2C and Q2C once per queued bio, merged ones too. */
	g->stats.bio_d2c_sum_s += bios * ((now_ns - io->issue_ns) / 1e9);
	g->stats.bio_q2c_sum_s += (bios * (now_ns - g->stats.first_ns) -
				   io->bio_queue_sum_ns) / 1e9;
	g->stats.data_requests++;
	g->stats.data_bios += bios;
	ct->ios[class]++;
	ct->bytes[class] += io->bytes;
	ct->bios += bios;
	ct->q2c_ns += bios * since_first - io->bio_queue_sum_ns;
	ct->d2c_ns += bios * (now_ns - io->issue_ns);
	ct->q2d_ns += bios * issue_since_first - io->bio_queue_sum_ns;
}

/* A tag freed at now_ns goes to the oldest request waiting for one. */
static int wake_waiter(struct generator *g, struct device *d, unsigned cpu,
		       uint64_t now_ns, struct iow_error *err)
{
	uint32_t next;

	if (!d->waiting.len)
		return 0;
	next = ring_pop(&d->waiting);
	d->busy_tags++;
	g->ios[next].stage = STAGE_ISSUE;
	/* Dispatched from the completion path, on this CPU. */
	g->ios[next].issue_cpu = cpu;
	return heap_push(g, next, now_ns + small_delay_ns(g, 2, 10), err);
}

/* io is over: its process may start the next one. */
static int retire_io(struct generator *g, uint32_t id, uint64_t now_ns,
		     struct iow_error *err)
{
	unsigned proc = g->ios[id].proc;

	g->procs[proc].inflight--;
	io_free(g, id);
	return process_refill(g, proc, now_ns, err);
}

static int complete_io(struct generator *g, uint32_t id, uint64_t now_ns,
		       struct iow_error *err)
{
	struct io *io = &g->ios[id];
	unsigned proc = io->proc;
	struct process *p = &g->procs[proc];
	struct device *d = &g->devices[p->device];
	uint32_t pid;
	unsigned cpu = completion_cpu(g, io, &pid);

	/* The completion's bytes are the request's, merged bios included. */
	if (emit(g, now_ns, cpu, BLK_TA_COMPLETE |
		 BLK_TC_ACT(BLK_TC_COMPLETE | BLK_TC_FS), io, io->sector,
		 io->bytes, pid, err) < 0)
		return -1;
	account_data(g, d, io, now_ns);
	d->issued--;
	d->busy_tags--;
	if (io->kind == IO_PREFLUSH_FUA) {
		/* Its flush sequence ends just after, in the same path. */
		io->complete_cpu = cpu;
		io->stage = STAGE_EMPTY_COMPLETE;
		if (heap_push(g, id, now_ns + small_delay_ns(g, 0.1, 1),
			      err) < 0)
			return -1;
		return wake_waiter(g, d, cpu, now_ns, err);
	}
	p->inflight--;
	io_free(g, id);
	if (wake_waiter(g, d, cpu, now_ns, err) < 0)
		return -1;
	return process_refill(g, proc, now_ns, err);
}

/*
 * The flush machinery's own request: no sector, no bytes, the FLUSH
 * category and the read direction (REQ_OP_FLUSH), on io's device.
 */
static int emit_flush_request(struct generator *g, const struct io *io,
			      uint64_t now_ns, unsigned cpu, uint32_t code,
			      uint32_t category, uint32_t pid,
			      struct iow_error *err)
{
	struct record rec = {
		.time_ns = now_ns,
		.action = code | BLK_TC_ACT(category | BLK_TC_READ |
					    BLK_TC_FLUSH | BLK_TC_FS),
		.pid = pid,
		.cpu = cpu,
	};

	return emit_record(g, io, &rec, err);
}

/*
 * D FN. From here on the request's own flags lose PREFLUSH, as the
 * kernel clears it when the request enters the flush machinery: the data
 * D and C of a preflush+FUA write show WFS.
 */
static int step_flush_issue(struct generator *g, uint32_t id, uint64_t now_ns,
			    struct iow_error *err)
{
	struct io *io = &g->ios[id];
	struct device *d = &g->devices[g->procs[io->proc].device];

	if (d->flush_busy) {
		/* issued when the one in flight is done */
		return ring_push(&d->flush_waiting, id, err);
	}
	d->flush_busy = 1;
	if (emit_flush_request(g, io, now_ns, io->queue_cpu, BLK_TA_ISSUE,
			       BLK_TC_ISSUE, g->procs[io->proc].pid, err) < 0)
		return -1;
	io->category &= ~BLK_TC_FLUSH;
	io->issue_ns = now_ns;
	io->stage = STAGE_FLUSH_COMPLETE;
	if (++d->issued > g->stats.max_depth)
		g->stats.max_depth = d->issued;
	return heap_push(g, id, flush_complete_ns(g, d, now_ns), err);
}

/* C FN 0; then the data goes to the device, or an empty flush ends. */
static int step_flush_complete(struct generator *g, uint32_t id,
			       uint64_t now_ns, struct iow_error *err)
{
	struct io *io = &g->ios[id];
	struct device *d = &g->devices[g->procs[io->proc].device];
	uint32_t pid;
	unsigned cpu = completion_cpu(g, io, &pid);

	if (emit_flush_request(g, io, now_ns, cpu, BLK_TA_COMPLETE,
			       BLK_TC_COMPLETE, pid, err) < 0)
		return -1;
	g->stats.completed[0]++;	/* blkparse counts a flush as a read */
	d->totals.ios[CLASS_FLUSH]++;
	d->totals.flush_d2c_ns += now_ns - io->issue_ns;
	d->issued--;
	d->flush_busy = 0;
	/* the next flush waiting goes now */
	if (d->flush_waiting.len &&
	    heap_push(g, ring_pop(&d->flush_waiting),
		      now_ns + small_delay_ns(g, 1, 20), err) < 0)
		return -1;
	if (io->kind == IO_PREFLUSH_FUA) {
		io->issue_cpu = cpu;	/* requeued from the flush's end */
		return device_dispatch(g, id, now_ns, err);
	}
	io->complete_cpu = cpu;
	io->stage = STAGE_EMPTY_COMPLETE;
	return heap_push(g, id, now_ns + small_delay_ns(g, 0.1, 1), err);
}

/*
 * C WS 0: the original request of a flush sequence ends with nothing
 * left to transfer (its data, if any, completed before), at the sector
 * where it stopped.
 */
static int step_empty_complete(struct generator *g, uint32_t id,
			       uint64_t now_ns, struct iow_error *err)
{
	struct io *io = &g->ios[id];
	struct device *d = &g->devices[g->procs[io->proc].device];
	struct record rec = {
		.time_ns = now_ns,
		.sector = io->sector + io->bytes / SECTOR_SIZE,
		.action = BLK_TA_COMPLETE |
			  BLK_TC_ACT(BLK_TC_COMPLETE | BLK_TC_FS |
				     (io->category & ~(uint32_t)BLK_TC_FUA)),
		.cpu = io->complete_cpu,
	};
	int write = (io->category & BLK_TC_WRITE) != 0;

	if (emit_record(g, io, &rec, err) < 0)
		return -1;
	g->stats.completed[write]++;
	d->totals.empty++;
	return retire_io(g, id, now_ns, err);
}

/* Q, G or M of the bio being queued, on the submitting CPU. */
static int emit_bio(struct generator *g, const struct io *io, uint64_t now_ns,
		    uint32_t code, struct iow_error *err)
{
	return emit(g, now_ns, io->queue_cpu,
		    code | BLK_TC_ACT(BLK_TC_QUEUE), io, io->bio_sector,
		    io->bio_bytes, g->procs[io->proc].pid, err);
}

/* I or D of the whole request, merged bios included. */
static int emit_request(struct generator *g, const struct io *io,
			uint64_t now_ns, unsigned cpu, uint32_t code,
			uint32_t category, struct iow_error *err)
{
	return emit(g, now_ns, cpu, code | BLK_TC_ACT(category | BLK_TC_FS),
		    io, io->sector, io->bytes, g->procs[io->proc].pid, err);
}

/*
 * A fio job is one thread: it submits from the CPU it is on at the time
 * and takes a sequential offset as it submits, so its Qs stay on one CPU
 * between moves, and its stream's sectors go up even when the pauses
 * before them overlap.
 */
static void place_at_queue(struct generator *g, struct io *io)
{
	struct process *p = &g->procs[io->proc];

	io->placed_at_queue = 0;
	io->queue_cpu = io->issue_cpu = io->complete_cpu = p->cpu;
	if (io->kind == IO_DISCARD || io->kind == IO_EMPTY_FLUSH ||
	    (p->tmpl->pattern != PATTERN_SEQ_READ &&
	     p->tmpl->pattern != PATTERN_SEQ_WRITE))
		return;
	io->sector = stream_next_sector(g, p, io->bio_bytes *
					(io->merges_total + 1));
	io->bio_sector = io->sector;
}

static int step_queue(struct generator *g, uint32_t id, uint64_t now_ns,
		      struct iow_error *err)
{
	struct io *io = &g->ios[id];
	int write = (io->category & BLK_TC_WRITE) != 0;

	if (io->placed_at_queue)
		place_at_queue(g, io);
	if (emit_bio(g, io, now_ns, BLK_TA_QUEUE, err) < 0)
		return -1;
	g->stats.queued[write]++;
	io->bio_queue_sum_ns += now_ns - g->stats.first_ns;
	if (io->stage == STAGE_MERGE_QUEUE)
		io->stage = STAGE_BACKMERGE;
	else if (io_needs_split(g, io))
		io->stage = STAGE_SPLIT;
	else
		io->stage = STAGE_GETRQ;
	return heap_push(g, id, now_ns + small_delay_ns(g, 0.3, 2), err);
}

/*
 * X S / N: the front piece [S, N) of the bio waiting at S goes on as a
 * request of its own (G I D C), keeping the bio's Q time; the remainder
 * [N, end) waits at N and is cut again, or is the last piece.
 */
static int step_split(struct generator *g, uint32_t id, uint64_t now_ns,
		      struct iow_error *err)
{
	unsigned char pdu[SPLIT_PDU_LEN];
	uint32_t piece_id = NO_IO;
	struct io *io, *piece;
	uint64_t next_sector;
	struct record rec;

	if (io_alloc(g, &piece_id, err) < 0)
		return -1;
	io = &g->ios[id];	/* io_alloc may have moved it */
	next_sector = io->sector + SPLIT_SECTORS;
	for (unsigned i = 0; i < SPLIT_PDU_LEN; i++)
		pdu[i] = (unsigned char)(next_sector >> (56 - 8 * i));
	rec = (struct record){
		.time_ns = now_ns,
		.sector = io->sector,
		.bytes = SPLIT_BYTES,
		.action = BLK_TA_SPLIT | BLK_TC_ACT(io->category),
		.pid = g->procs[io->proc].pid,
		.cpu = io->queue_cpu,
		.pdu_len = SPLIT_PDU_LEN,
		.pdu = pdu,
	};
	if (emit_record(g, io, &rec, err) < 0)
		return -1;
	piece = &g->ios[piece_id];
	*piece = *io;
	piece->bytes = piece->bio_bytes = SPLIT_BYTES;
	piece->stage = STAGE_GETRQ;
	g->procs[io->proc].inflight++;
	io->sector = io->bio_sector = next_sector;
	io->bytes -= SPLIT_BYTES;
	io->bio_bytes = io->bytes;
	io->stage = io_needs_split(g, io) ? STAGE_SPLIT : STAGE_GETRQ;
	if (heap_push(g, piece_id, now_ns + small_delay_ns(g, 0.3, 2),
		      err) < 0)
		return -1;
	return heap_push(g, id, now_ns + small_delay_ns(g, 2, 6), err);
}

/* G for the first bio, M for each one glued on; then the next bio or I. */
static int step_getrq_or_merge(struct generator *g, uint32_t id,
			       uint64_t now_ns, struct iow_error *err)
{
	struct io *io = &g->ios[id];
	int write = (io->category & BLK_TC_WRITE) != 0;

	if (io->stage == STAGE_GETRQ) {
		if (emit_bio(g, io, now_ns, BLK_TA_GETRQ, err) < 0)
			return -1;
	} else {
		if (emit_bio(g, io, now_ns, BLK_TA_BACKMERGE, err) < 0)
			return -1;
		io->bytes += io->bio_bytes;
		io->merges_left--;
		g->stats.merges[write]++;
	}
	if (io->merges_left) {
		io->stage = STAGE_MERGE_QUEUE;
		io->bio_sector += io->bio_bytes / SECTOR_SIZE;
	} else if (io->kind == IO_PREFLUSH_FUA || io->kind == IO_EMPTY_FLUSH) {
		/* blk-mq hands it to the flush machinery: no I */
		io->stage = STAGE_FLUSH_ISSUE;
	} else {
		io->stage = g->opts->plugs ? STAGE_PLUG : STAGE_INSERT;
	}
	return heap_push(g, id, now_ns + small_delay_ns(g, 0.3, 3), err);
}

static int step_issue(struct generator *g, uint32_t id, uint64_t now_ns,
		      struct iow_error *err)
{
	struct io *io = &g->ios[id];
	struct device *d = &g->devices[g->procs[io->proc].device];

	if (emit_request(g, io, now_ns, io->issue_cpu, BLK_TA_ISSUE,
			 BLK_TC_ISSUE, err) < 0)
		return -1;
	io->issue_ns = now_ns;
	io->stage = STAGE_COMPLETE;
	if (++d->issued > g->stats.max_depth)
		g->stats.max_depth = d->issued;
	return heap_push(g, id, device_complete_ns(g, d, io, now_ns), err);
}

/*
 * P or U of io's request: the submitter's plug, with no sector, no bytes
 * and the read direction (the kernel traces it with op 0). A U says how
 * many requests it let go: one, as a direct I/O submitted alone does.
 */
static int step_plug(struct generator *g, uint32_t id, uint64_t now_ns,
		     struct iow_error *err)
{
	struct io *io = &g->ios[id];
	int unplug = io->stage == STAGE_UNPLUG;
	unsigned char pdu[UNPLUG_PDU_LEN] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	struct record rec = {
		.time_ns = now_ns,
		.action = (unplug ? BLK_TA_UNPLUG_IO : BLK_TA_PLUG) |
			  BLK_TC_ACT(BLK_TC_QUEUE | BLK_TC_READ),
		.pid = g->procs[io->proc].pid,
		.cpu = io->queue_cpu,
		.pdu_len = unplug ? UNPLUG_PDU_LEN : 0,
		.pdu = pdu,
	};

	if (emit_record(g, io, &rec, err) < 0)
		return -1;
	io->stage = unplug ? STAGE_INSERT : STAGE_UNPLUG;
	return heap_push(g, id, now_ns + small_delay_ns(g, 0.1, 0.5), err);
}

/* Emits io's event for its current stage and schedules the next one. */
static int step_io(struct generator *g, uint32_t id, uint64_t now_ns,
		   struct iow_error *err)
{
	struct io *io = &g->ios[id];

	switch (io->stage) {
	case STAGE_QUEUE:
	case STAGE_MERGE_QUEUE:
		return step_queue(g, id, now_ns, err);
	case STAGE_GETRQ:
	case STAGE_BACKMERGE:
		return step_getrq_or_merge(g, id, now_ns, err);
	case STAGE_INSERT:
		if (emit_request(g, io, now_ns, io->queue_cpu, BLK_TA_INSERT,
				 BLK_TC_QUEUE, err) < 0)
			return -1;
		return device_dispatch(g, id, now_ns, err);
	case STAGE_ISSUE:
		return step_issue(g, id, now_ns, err);
	case STAGE_COMPLETE:
		return complete_io(g, id, now_ns, err);
	case STAGE_SPLIT:
		return step_split(g, id, now_ns, err);
	case STAGE_FLUSH_ISSUE:
		return step_flush_issue(g, id, now_ns, err);
	case STAGE_FLUSH_COMPLETE:
		return step_flush_complete(g, id, now_ns, err);
	case STAGE_EMPTY_COMPLETE:
		return step_empty_complete(g, id, now_ns, err);
	case STAGE_PLUG:
	case STAGE_UNPLUG:
		return step_plug(g, id, now_ns, err);
	}
	return iow_fail(err, "internal: bad stage %d", (int)io->stage);
}

static int write_note(struct generator *g, unsigned cpu, uint64_t time_ns,
		      uint32_t code, uint32_t pid, const void *pdu,
		      uint16_t len, int pdu_is_u32s, struct iow_error *err)
{
	struct record rec = {
		.time_ns = time_ns,
		.action = code | BLK_TC_ACT(BLK_TC_NOTIFY),
		.pid = pid,
		.device = g->devices[0].dev,
		.cpu = cpu,
		.pdu_len = len,
		.pdu = pdu,
		.pdu_is_u32s = pdu_is_u32s,
	};

	g->stats.records++;
	g->stats.notes++;
	return writer_put(&g->writer, &rec, err);
}

/*
 * The trace opens as blktrace's does: a TIMESTAMP note (wall clock at
 * start), then the name of every process, on every CPU file.
 */
static int write_notes(struct generator *g, uint64_t start_ns,
		       struct iow_error *err)
{
	uint32_t wall[2] = { 1700000000u + (uint32_t)(g->opts->seed % 86400),
			     123456789u };
	char comm[COMM_LEN];

	if (write_note(g, 0, start_ns, BLK_TN_TIMESTAMP, 0, wall,
		       sizeof(wall), 1, err) < 0)
		return -1;
	for (unsigned cpu = 0; cpu < g->opts->ncpus; cpu++) {
		memset(comm, 0, sizeof(comm));
		snprintf(comm, sizeof(comm), "swapper/%hu",
			 (unsigned short)cpu);
		if (write_note(g, cpu, start_ns, BLK_TN_PROCESS, 0, comm,
			       COMM_LEN, 0, err) < 0)
			return -1;
		for (unsigned i = 0; i < g->opts->npids; i++) {
			if (write_note(g, cpu, start_ns, BLK_TN_PROCESS,
				       g->procs[i].pid, g->procs[i].comm,
				       COMM_LEN, 0, err) < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * A --mix workload: its jobs replace the table's processes (parse_args
 * made npids the number of jobs, on one device), each starting on a CPU
 * of its own, all in the first MIX_REGION_SECTORS of the device, as
 * fio's jobs with one size share one region.
 */
static void mix_setup(struct generator *g, const struct mix_job *jobs)
{
	/* One past: a stream wraps before it would reach region_end, and
	 * the writes cover all of it, up to its last sector. */
	g->region_first = 0;
	g->region_end = MIX_REGION_SECTORS + 1;
	g->devices[0].loop_backed = 1;
	for (unsigned i = 0; i < g->opts->npids; i++) {
		struct process *p = &g->procs[i];

		p->tmpl = &jobs[i].tmpl;
		p->fixed_depth = jobs[i].depth;
		snprintf(p->comm, sizeof(p->comm), "%s", p->tmpl->comm);
		p->cpu = i % g->opts->ncpus;
		p->cursor = g->region_first;
	}
}

static int generator_init(struct generator *g, const struct gen_opts *o,
			  struct iow_error *err)
{
	memset(g, 0, sizeof(*g));
	g->opts = o;
	g->free_io = NO_IO;
	rng_seed(&g->rng, o->seed);
	g->devices = calloc(o->ndevices, sizeof(*g->devices));
	g->procs = calloc(o->npids, sizeof(*g->procs));
	if (!g->devices || !g->procs)
		return iow_fail(err, "out of memory");
	for (unsigned i = 0; i < o->ndevices; i++) {
		struct device *d = &g->devices[i];

		d->dev = make_dev(i);
		d->irq_cpu = i % o->ncpus;
		d->rotational = i % 2;
	}
	for (unsigned i = 0; i < o->npids; i++) {
		struct process *p = &g->procs[i];

		p->tmpl = &templates[i % N_TEMPLATES];
		p->pid = 1200 + 97 * i + (uint32_t)rng_below(&g->rng, 50);
		if (i < N_TEMPLATES)
			snprintf(p->comm, sizeof(p->comm), "%s",
				 p->tmpl->comm);
		else
			snprintf(p->comm, sizeof(p->comm), "%.8s-%hu",
				 p->tmpl->comm,
				 (unsigned short)(i / N_TEMPLATES));
		p->device = i % o->ndevices;
		/* Spread each device's processes over the CPUs. */
		p->cpu = (i + i / o->ndevices) % o->ncpus;
		p->cursor = rng_below(&g->rng, DEVICE_SECTORS / 2 / 2048) *
			    2048 + 2048;
		g->devices[p->device].nprocs++;
	}
	g->region_first = 2048;
	g->region_end = DEVICE_SECTORS;
	if (o->mix == MIX_RANDREAD_SEQWRITE)
		mix_setup(g, randread_seqwrite_jobs);
	return writer_open(&g->writer, o, err);
}

static void generator_free(struct generator *g)
{
	if (g->devices)
		for (unsigned i = 0; i < g->opts->ndevices; i++) {
			free(g->devices[i].waiting.ids);
			free(g->devices[i].flush_waiting.ids);
		}
	free(g->devices);
	free(g->procs);
	free(g->ios);
	free(g->heap);
}

static int generate(struct generator *g, struct iow_error *err)
{
	uint64_t start_ns = BOOT_OFFSET_NS + (g->opts->seed % 1000) *
			    NSEC_PER_MSEC;

	g->stats.first_ns = start_ns;
	if (write_notes(g, start_ns, err) < 0)
		return -1;
	g->committed = g->stats.records;
	for (unsigned i = 0; i < g->opts->npids; i++) {
		g->procs[i].phase_end_ns = 0;
		if (process_refill(g, i, start_ns + 1000 + 1000 * i, err) < 0)
			return -1;
	}
	while (g->heap_len) {
		struct heap_entry e = heap_pop(g);

		if (step_io(g, e.io, e.time_ns, err) < 0)
			return -1;
	}
	return writer_flush(&g->writer, err);
}

static double mean_us(uint64_t sum_ns, uint64_t n)
{
	return n ? (double)sum_ns / (double)n / 1e3 : 0.0;
}

/*
 * The oracle of one device (or "all"), one class a line, as iowatcher's
 * JSON has them: ios and bytes per class, flushes with their mean D2C,
 * empty completions, and the data bios with their mean latencies.
 */
static void print_totals(const char *name, const struct class_totals *ct,
			 FILE *out)
{
	static const char *const class_names[] = { "read", "write",
						   "discard" };

	for (int c = CLASS_READ; c <= CLASS_DISCARD; c++)
		fprintf(out, "gentrace: device %s %s ios %" PRIu64 " bytes %"
			PRIu64 "\n", name, class_names[c], ct->ios[c],
			ct->bytes[c]);
	fprintf(out, "gentrace: device %s flush ios %" PRIu64
		" d2c mean %.3f us\n", name, ct->ios[CLASS_FLUSH],
		mean_us(ct->flush_d2c_ns, ct->ios[CLASS_FLUSH]));
	fprintf(out, "gentrace: device %s empty completions %" PRIu64 "\n",
		name, ct->empty);
	fprintf(out, "gentrace: device %s data bios %" PRIu64 " q2c mean "
		"%.3f us d2c mean %.3f us q2d mean %.3f us\n", name, ct->bios,
		mean_us(ct->q2c_ns, ct->bios), mean_us(ct->d2c_ns, ct->bios),
		mean_us(ct->q2d_ns, ct->bios));
}

static void add_totals(struct class_totals *sum, const struct class_totals *ct)
{
	for (int c = 0; c < N_CLASSES; c++) {
		sum->ios[c] += ct->ios[c];
		sum->bytes[c] += ct->bytes[c];
	}
	sum->empty += ct->empty;
	sum->bios += ct->bios;
	sum->q2c_ns += ct->q2c_ns;
	sum->d2c_ns += ct->d2c_ns;
	sum->q2d_ns += ct->q2d_ns;
	sum->flush_d2c_ns += ct->flush_d2c_ns;
}

static void print_device_totals(const struct generator *g, FILE *out)
{
	struct class_totals all = { .empty = 0 };
	char name[32];

	for (unsigned i = 0; i < g->opts->ndevices; i++) {
		const struct device *d = &g->devices[i];

		snprintf(name, sizeof(name), "%u,%u", blk_dev_major(d->dev),
			 blk_dev_minor(d->dev));
		print_totals(name, &d->totals, out);
		add_totals(&all, &d->totals);
	}
	print_totals("all", &all, out);
}

static void print_summary(const struct generator *g, FILE *out)
{
	const struct stats *s = &g->stats;
	uint64_t done = s->data_requests;
	uint64_t bios = s->data_bios;

	fprintf(out, "gentrace: %s.blktrace.0..%u: %" PRIu64 " events "
		"(%" PRIu64 " notes), v%d%s, seed %" PRIu64 "\n",
		g->opts->out_base, g->opts->ncpus - 1, s->records, s->notes,
		g->opts->v8 ? 8 : 7, g->opts->swap ? " byte-swapped" : "",
		g->opts->seed);
	for (unsigned i = 0; i < g->writer.ncpus; i++)
		fprintf(out, "gentrace: cpu %u events %" PRIu64 "\n", i,
			g->writer.cpus[i].records);
	/* Every C by its direction bit, as blkparse's Completed rows:
	 * flushes as reads, discards and empty completions as writes. */
	fprintf(out, "gentrace: reads completed %" PRIu64 " kib %" PRIu64
		"\n", s->completed[0], s->completed_kib[0]);
	fprintf(out, "gentrace: writes completed %" PRIu64 " kib %" PRIu64
		"\n", s->completed[1], s->completed_kib[1]);
	fprintf(out, "gentrace: reads queued %" PRIu64 " merges %" PRIu64
		"\n", s->queued[0], s->merges[0]);
	fprintf(out, "gentrace: writes queued %" PRIu64 " merges %" PRIu64
		"\n", s->queued[1], s->merges[1]);
	/* Data requests and bios only; btt agrees where nothing is split. */
	fprintf(out, "gentrace: per request d2c avg %.9f s q2c avg %.9f s\n",
		done ? s->d2c_sum_s / done : 0.0,
		done ? s->q2c_sum_s / done : 0.0);
	fprintf(out, "gentrace: per bio (btt) d2c avg %.9f s q2c avg %.9f s"
		" n %" PRIu64 "\n", bios ? s->bio_d2c_sum_s / bios : 0.0,
		bios ? s->bio_q2c_sum_s / bios : 0.0, bios);
	fprintf(out, "gentrace: duration %.6f s devices %u pids %u "
		"max depth %u\n", (s->last_ns - s->first_ns) / 1e9,
		g->opts->ndevices, g->opts->npids, s->max_depth);
	print_device_totals(g, out);
}

static void usage(FILE *out)
{
	fprintf(out,
"usage: gentrace -o DIR/NAME -n EVENTS [options]\n"
"Writes a synthetic blktrace trace: DIR/NAME.blktrace.0 .. CPUS-1.\n"
"  -o, --output DIR/NAME  where to write (DIR must exist)\n"
"  -n, --events N         stop starting I/Os once N records are planned\n"
"                         (the total overshoots by less than one I/O)\n"
"  -c, --cpus N           per-CPU files to write (default 2)\n"
"  -s, --seed N           random seed; same seed, same bytes (default 1)\n"
"      --devices N        devices 8,0 8,16 ... (default 2)\n"
"      --pids N           processes doing I/O (default 4)\n"
"      --merges           sequential streams back-merge bios (M events)\n"
"      --bimodal          10%% of device times from a slow 8 ms mode\n"
"      --flushes          syncing writers send cache flushes (Q FWS 0) and\n"
"                         preflush+FUA writes: D FN, C FN 0, then the\n"
"                         data's D and C, and an empty completion C WS 0\n"
"      --splits           some sequential bios of 1-8 MiB; bios over\n"
"                         512 KiB are split (X) into pieces of that size\n"
"      --discards         2%% of writes are discards of 1-64 MiB\n"
"      --mix randread-seqwrite  instead of the mixed processes, fio's\n"
"                         random 4 KiB reads (16 in flight) inside the\n"
"                         256 MiB its sequential 128 KiB writes (4 in\n"
"                         flight) cycle through, on one device, each\n"
"                         request plugged and unplugged (Q G P U I D C)\n"
"      --v8               version 8 records (64 bytes)\n"
"      --swap             the other byte order\n"
"  -h, --help             this text\n"
"Totals (events per CPU, reads/writes completed and KiB as blkparse counts\n"
"them, D2C/Q2C averages as btt does, and per device and for 'all' the\n"
"classes of completion with the data bios' exact mean latencies) go to\n"
"stderr, one 'gentrace: ...' line each.\n");
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || x < min || x > max || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

enum { OPT_V8 = 256, OPT_SWAP, OPT_DEVICES, OPT_PIDS, OPT_MERGES,
       OPT_BIMODAL, OPT_FLUSHES, OPT_SPLITS, OPT_DISCARDS, OPT_MIX };

/* --mix NAME: the workload's processes on one device, requests plugged. */
static int set_mix(struct gen_opts *o, const char *name, struct iow_error *err)
{
	if (strcmp(name, "randread-seqwrite") != 0)
		return iow_fail(err, "--mix %s: want randread-seqwrite", name);
	o->mix = MIX_RANDREAD_SEQWRITE;
	o->npids = MIX_JOBS;
	o->ndevices = 1;
	o->plugs = 1;
	return 0;
}

static int parse_args(int argc, char **argv, struct gen_opts *o,
		      struct iow_error *err)
{
	static const struct option long_opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "events", required_argument, NULL, 'n' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "devices", required_argument, NULL, OPT_DEVICES },
		{ "pids", required_argument, NULL, OPT_PIDS },
		{ "merges", no_argument, NULL, OPT_MERGES },
		{ "bimodal", no_argument, NULL, OPT_BIMODAL },
		{ "flushes", no_argument, NULL, OPT_FLUSHES },
		{ "splits", no_argument, NULL, OPT_SPLITS },
		{ "discards", no_argument, NULL, OPT_DISCARDS },
		{ "mix", required_argument, NULL, OPT_MIX },
		{ "v8", no_argument, NULL, OPT_V8 },
		{ "swap", no_argument, NULL, OPT_SWAP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int fixed_procs = 0;	/* --devices or --pids given */
	uint64_t v;
	int c;

	*o = (struct gen_opts){ .n_events = 0, .ncpus = 2, .seed = 1,
				.ndevices = 2, .npids = 4 };
	while ((c = getopt_long(argc, argv, "o:n:c:s:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out_base = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, 1, UINT64_MAX / 2, &o->n_events))
				return iow_fail(err, "-n %s: want a positive "
						"number", optarg);
			break;
		case 'c':
			if (parse_u64(optarg, 1, MAX_CPUS, &v))
				return iow_fail(err, "-c %s: want 1..%u",
						optarg, MAX_CPUS);
			o->ncpus = (unsigned)v;
			break;
		case 's':
			if (parse_u64(optarg, 0, UINT64_MAX, &o->seed))
				return iow_fail(err, "-s %s: want a number",
						optarg);
			break;
		case OPT_DEVICES:
			if (parse_u64(optarg, 1, MAX_DEVICES, &v))
				return iow_fail(err, "--devices %s: want "
						"1..%u", optarg, MAX_DEVICES);
			o->ndevices = (unsigned)v;
			fixed_procs = 1;
			break;
		case OPT_PIDS:
			if (parse_u64(optarg, 1, MAX_PIDS, &v))
				return iow_fail(err, "--pids %s: want 1..%u",
						optarg, MAX_PIDS);
			o->npids = (unsigned)v;
			fixed_procs = 1;
			break;
		case OPT_MERGES:
			o->merges = 1;
			break;
		case OPT_BIMODAL:
			o->bimodal = 1;
			break;
		case OPT_FLUSHES:
			o->flushes = 1;
			break;
		case OPT_SPLITS:
			o->splits = 1;
			break;
		case OPT_DISCARDS:
			o->discards = 1;
			break;
		case OPT_MIX:
			if (set_mix(o, optarg, err) < 0)
				return -1;
			break;
		case OPT_V8:
			o->v8 = 1;
			break;
		case OPT_SWAP:
			o->swap = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return iow_fail(err, "unknown option (see --help)");
		}
	}
	if (optind < argc)
		return iow_fail(err, "unexpected argument '%s'", argv[optind]);
	if (!o->out_base || !o->n_events)
		return iow_fail(err, "-o DIR/NAME and -n EVENTS are required "
				"(see --help)");
	if (o->mix != MIX_NONE && fixed_procs)
		return iow_fail(err, "--mix brings its own processes and "
				"device: drop --devices and --pids");
	return 0;
}

int main(int argc, char **argv)
{
	struct gen_opts opts;
	struct generator gen;
	struct iow_error err = { "" };
	int ret;

	if (parse_args(argc, argv, &opts, &err) < 0) {
		fprintf(stderr, "gentrace: %s\n", err.msg);
		return 2;
	}
	ret = generator_init(&gen, &opts, &err);
	if (ret == 0)
		ret = generate(&gen, &err);
	if (ret == 0)
		print_summary(&gen, stderr);
	if (writer_close(&gen.writer, ret == 0 ? &err : NULL) < 0)
		ret = -1;
	generator_free(&gen);
	if (ret < 0) {
		fprintf(stderr, "gentrace: %s\n", err.msg);
		return 1;
	}
	return 0;
}
