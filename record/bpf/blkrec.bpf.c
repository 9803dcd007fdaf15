// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/blkrec.bpf.c: the BPF recorder's kernel side. One program per
 * block tracepoint the kernel's blktrace listens to, each writing the
 * record blktrace would (the same action code, categories, sector,
 * bytes, pid, error and payload) on this CPU's ring buffer, for the
 * traced devices only. No wake-up per record: user space reads on a
 * timer, and is woken early only when a ring fills past wake_bytes.
 * A failed reservation is counted per CPU, and the count goes on the
 * ring as a loss record as soon as one can be reserved again.
 *
 * Only the few kernel fields used are declared here, with
 * preserve_access_index: libbpf relocates them against the running
 * kernel's BTF at load (CO-RE), so the build needs no vmlinux.h.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "blkrec.h"

#define CORE __attribute__((preserve_access_index))

struct gendisk {
	int major;
	int first_minor;
} CORE;

struct request_queue {
	struct gendisk *disk;
} CORE;

struct address_space;

struct block_device {
	__u32 bd_dev;
	struct gendisk *bd_disk;
	struct address_space *bd_mapping;
	void *bd_holder;
} CORE;

struct super_block {
	__u32 s_dev;
	struct block_device *s_bdev;
} CORE;

struct inode {
	unsigned short i_mode;
	struct super_block *i_sb;
	unsigned long i_ino;
	unsigned int i_nlink;
	__u32 i_generation;
} CORE;

struct qstr {
	const unsigned char *name;
} CORE;

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
	struct inode *d_inode;
} CORE;

struct address_space {
	struct inode *host;
} CORE;

/* struct page's flags are its first word in every kernel (a struct of
 * one word since 6.18): read as such, not relocated. */
struct page {
	unsigned long compound_head;	/* bit 0: a tail page, the rest the
					 * head's address */
	struct address_space *mapping;
} CORE;

struct bio_vec {
	struct page *bv_page;
} CORE;

struct kernfs_node {
	__u64 id;
} CORE;

struct cgroup {
	struct kernfs_node *kn;
} CORE;

struct cgroup_subsys_state {
	struct cgroup *cgroup;
} CORE;

struct blkcg {
	struct cgroup_subsys_state css;
} CORE;

struct blkcg_gq {
	struct blkcg *blkcg;
} CORE;

struct css_set {
	struct cgroup_subsys_state *subsys[16];
} CORE;

struct task_struct {
	struct css_set *cgroups;
} CORE;

struct file {
	struct inode *f_inode;
} CORE;

struct kiocb {
	struct file *ki_filp;
} CORE;

struct bvec_iter {
	__u64 bi_sector;
	unsigned int bi_size;
	unsigned int bi_idx;
} CORE;

struct bio {
	struct block_device *bi_bdev;
	__u32 bi_opf;
	__u8 bi_status;
	struct bvec_iter bi_iter;
	struct blkcg_gq *bi_blkg;
	unsigned short bi_vcnt;
	struct bio_vec *bi_io_vec;
} CORE;

struct blk_mq_hw_ctx {
	unsigned int queue_num;
} CORE;

struct request {
	struct request_queue *q;
	struct blk_mq_hw_ctx *mq_hctx;
	int tag;
	__u32 cmd_flags;
	unsigned int __data_len;
	__u64 __sector;
} CORE;

/* Their values differ between kernels: relocated at load. */
enum pageflags {
	PG_swapcache = 10,
	PG_swapbacked = 17,
};

enum cgroup_subsys_id {
	io_cgrp_id = 3,
};

/* The zone operations' numbers moved between kernels (6.18: open 11,
 * reset 17; earlier: open 10, reset 13): relocated from the running
 * kernel's BTF, as the flags are. */
enum req_op {
	REQ_OP_ZONE_APPEND = 7,
	REQ_OP_WRITE_ZEROES = 9,
	REQ_OP_ZONE_OPEN = 11,
	REQ_OP_ZONE_CLOSE = 13,
	REQ_OP_ZONE_FINISH = 15,
	REQ_OP_ZONE_RESET = 17,
	REQ_OP_ZONE_RESET_ALL = 19,
};

enum req_flag_bits {
	__REQ_SYNC = 11,
	__REQ_META = 12,
	__REQ_FUA = 17,
	__REQ_PREFLUSH = 18,
	__REQ_RAHEAD = 19,
};

/* uapi linux/blktrace_api.h: an action is its code and the category
 * the kernel files it under (BLK_TA_QUEUE = __BLK_TA_QUEUE |
 * BLK_TC_ACT(BLK_TC_QUEUE), ...) */
#define TA_QUEUE	(1 | TC_ACT(TC_QUEUE))
#define TA_BACKMERGE	(2 | TC_ACT(TC_QUEUE))
#define TA_FRONTMERGE	(3 | TC_ACT(TC_QUEUE))
#define TA_GETRQ	(4 | TC_ACT(TC_QUEUE))
#define TA_REQUEUE	(6 | TC_ACT(TC_REQUEUE))
#define TA_ISSUE	(7 | TC_ACT(TC_ISSUE))
#define TA_COMPLETE	(8 | TC_ACT(TC_COMPLETE))
#define TA_PLUG		(9 | TC_ACT(TC_QUEUE))
#define TA_UNPLUG_IO	(10 | TC_ACT(TC_QUEUE))
#define TA_UNPLUG_TIMER	(11 | TC_ACT(TC_QUEUE))
#define TA_INSERT	(12 | TC_ACT(TC_QUEUE))
#define TA_SPLIT	13
#define TA_REMAP	(15 | TC_ACT(TC_QUEUE))
#define TC_ACT(c)	((__u32)(c) << 16)
#define TC_READ		(1 << 0)
#define TC_WRITE	(1 << 1)
#define TC_FLUSH	(1 << 2)
#define TC_SYNC		(1 << 3)
#define TC_QUEUE	(1 << 4)
#define TC_REQUEUE	(1 << 5)
#define TC_ISSUE	(1 << 6)
#define TC_COMPLETE	(1 << 7)
#define TC_FS		(1 << 8)
#define TC_PC		(1 << 9)
#define TC_NOTIFY	(1 << 10)
#define TC_AHEAD	(1 << 11)
#define TC_META		(1 << 12)
#define TC_DISCARD	(1 << 13)
#define TC_FUA		(1 << 15)
#define TN_PROCESS	0
#define V7_MAGIC	0x65617407u

/* linux/blk_types.h: stable values */
#define REQ_OP_MASK		0xff
#define REQ_OP_FLUSH		2
#define REQ_OP_DISCARD		3
#define REQ_OP_SECURE_ERASE	5
#define REQ_OP_DRV_IN		34
#define REQ_OP_DRV_OUT		35

struct trace {
	__u32 magic;
	__u32 sequence;
	__u64 time;
	__u64 sector;
	__u32 bytes;
	__u32 action;
	__u32 pid;
	__u32 device;
	__u32 cpu;
	__u16 error;
	__u16 pdu_len;
};

struct trace_pdu8 {
	struct trace t;
	__u64 pdu;
};

struct trace_pdu16 {
	struct trace t;
	__u8 pdu[16];
};

struct remap_pdu {
	__u32 device_from;
	__u32 device_to;
	__u64 sector_from;
};

/* Set by the user side before the load. */
const volatile struct blkrec_dev devs[BLKREC_MAX_DEVS];
const volatile __u32 n_devs;
const volatile __u64 wake_bytes;
const volatile __u32 cause_opts;	/* BLKREC_CAUSES, ... */
/* Tests: every Nth request's completion goes unseen, as the kernel
 * sometimes makes one without running the program (0: none). */
const volatile __u32 unseen_every;
/* --flight's single-I/O triggers (blkrec.h), and the after part of a
 * capture (fires inside it join it without a wake-up) */
const volatile struct blkrec_trigger triggers[BLKREC_MAX_TRIGGERS];
const volatile __u32 n_triggers;
const volatile __u32 triggers_need_queue;	/* a q2c or q2d among them */
const volatile __u64 after_ns;

struct ring_template {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);	/* the user side sizes them */
};

/* One ring per CPU (no lock shared between CPUs); sized at load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ring_template);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkrec_cpu);
} cpu_state SEC(".maps");

/* A bit per pid: its PROCESS note is written (sized to pid_max). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pids_seen SEC(".maps");

/* Stacks by id (the user side sizes them; one entry when not kept). */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, BLKREC_STACK_DEPTH * sizeof(__u64));
} kstacks SEC(".maps"), ustacks SEC(".maps");

/* Who last dirtied an inode's pages, for its writeback's cause. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct blkrec_dirtier);
} dirtiers SEC(".maps");

/* The file of a task's direct I/O, by thread id. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct blkrec_dio);
} dios SEC(".maps");

static __always_inline __u32 disk_devt(struct gendisk *disk)
{
	return (__u32)disk->major << 20 | (__u32)disk->first_minor;
}

/* The traced device for an event on disk at sector, as blktrace's
 * act_log_check filters a partition: -1 when not traced. */
static __always_inline int find_dev_at(__u32 disk, __u64 sector, __u32 *dev,
				       __u32 *entry)
{
	int i;

	for (i = 0; i < BLKREC_MAX_DEVS; i++) {
		if (i >= n_devs)
			return -1;
		if (devs[i].disk != disk)
			continue;
		if (sector && (sector < devs[i].start_lba ||
			       sector > devs[i].end_lba))
			continue;
		*dev = devs[i].dev;
		*entry = (__u32)i;
		return 0;
	}
	return -1;
}

static __always_inline int find_dev(__u32 disk, __u64 sector, __u32 *dev)
{
	__u32 entry;

	return find_dev_at(disk, sector, dev, &entry);
}

#define FLAG_TO_TC(opf, bit, tc) \
	((opf) & (1u << bpf_core_enum_value(enum req_flag_bits, bit)) ? \
	 TC_ACT(tc) : 0)

/* The categories __blk_add_trace derives from the operation and flags. */
static __always_inline __u32 categories(__u32 opf)
{
	__u32 op = opf & REQ_OP_MASK;
	__u32 what = TC_ACT(op & 1 ? TC_WRITE : TC_READ);

	what |= FLAG_TO_TC(opf, __REQ_SYNC, TC_SYNC);
	what |= FLAG_TO_TC(opf, __REQ_RAHEAD, TC_AHEAD);
	what |= FLAG_TO_TC(opf, __REQ_META, TC_META);
	what |= FLAG_TO_TC(opf, __REQ_PREFLUSH, TC_FLUSH);
	what |= FLAG_TO_TC(opf, __REQ_FUA, TC_FUA);
	if (op == REQ_OP_DISCARD || op == REQ_OP_SECURE_ERASE)
		what |= TC_ACT(TC_DISCARD);
	if (op == REQ_OP_FLUSH)
		what |= TC_ACT(TC_FLUSH);
	return what;
}

#define OP_IS(op, name) \
	(bpf_core_enum_value_exists(enum req_op, name) && \
	 (op) == bpf_core_enum_value(enum req_op, name))

/*
 * The version-2 categories (bits 32-38 of the kernel's 64-bit action,
 * here as its upper half: BLK_TC2_* of blktrace.h) zoned-device blktrace
 * derives from the operation: zone append, reset, reset all, finish,
 * open, close, write-zeroes. A record carries them in its sequence
 * field, which user space numbers anew (rec_out), as it takes them out.
 */
static __always_inline __u32 zone_categories(__u32 opf)
{
	__u32 op = opf & REQ_OP_MASK;

	if (OP_IS(op, REQ_OP_ZONE_APPEND))
		return 1 << 0;
	if (OP_IS(op, REQ_OP_ZONE_RESET))
		return 1 << 1;
	if (OP_IS(op, REQ_OP_ZONE_RESET_ALL))
		return 1 << 2;
	if (OP_IS(op, REQ_OP_ZONE_FINISH))
		return 1 << 3;
	if (OP_IS(op, REQ_OP_ZONE_OPEN))
		return 1 << 4;
	if (OP_IS(op, REQ_OP_ZONE_CLOSE))
		return 1 << 5;
	if (OP_IS(op, REQ_OP_WRITE_ZEROES))
		return 1 << 6;
	return 0;
}

/* blk_status_to_errno(), as the u16 blktrace stores. */
static __always_inline __u16 status_error(__u8 status)
{
	static const __u8 errnos[] = {
		0, 95, 110, 28, 67, 121, 52, 61, 84, 12, 5, 78, 11, 16, 109,
		75, 19, 62, 5, 22,
	};
	__u32 i = status;

	if (!status)
		return 0;
	if (i >= sizeof(errnos))
		return (__u16)-5;
	return (__u16)-(int)errnos[i];
}

struct emit_ctx {
	void *ring;
	struct blkrec_cpu *st;
	__u32 cpu;
	__u32 pid;
};

static __always_inline int emit_ctx_init(struct emit_ctx *e)
{
	__u32 zero = 0;

	e->cpu = bpf_get_smp_processor_id();
	e->ring = bpf_map_lookup_elem(&rings, &e->cpu);
	e->st = bpf_map_lookup_elem(&cpu_state, &zero);
	e->pid = (__u32)bpf_get_current_pid_tgid();
	return e->ring && e->st ? 0 : -1;
}

static __always_inline void count_loss(struct blkrec_cpu *st)
{
	__u64 now = bpf_ktime_get_ns();

	if (!st->pending) {
		st->t0_ns = st->last_ok_ns;
		st->first_fail_ns = now;
	}
	st->pending++;
	st->lost_total++;
	st->last_fail_ns = now;
}

/* Wakes the reader only when the ring fills past wake_bytes, checked
 * every 64 records. */
static __always_inline __u64 wake_flag(struct emit_ctx *e)
{
	if ((++e->st->records & 63) ||
	    bpf_ringbuf_query(e->ring, BPF_RB_AVAIL_DATA) < wake_bytes)
		return BPF_RB_NO_WAKEUP;
	return BPF_RB_FORCE_WAKEUP;
}

/* The header's common part; the time is taken after the reservation,
 * so that a CPU's records on its ring are in time order but for those
 * of a nested interrupt, which the reader sorts within a batch. */
static __always_inline void fill(struct emit_ctx *e, struct trace *t,
				 __u32 magic, __u32 dev, __u64 sector,
				 __u32 bytes, __u32 action, __u16 error,
				 __u16 pdu_len)
{
	t->magic = magic;
	t->sequence = 0;
	t->time = bpf_ktime_get_ns();
	t->sector = sector;
	t->bytes = bytes;
	t->action = action;
	t->pid = e->pid;
	t->device = dev;
	t->cpu = e->cpu;
	t->error = error;
	t->pdu_len = pdu_len;
	e->st->last_ok_ns = t->time;
}

/* The events lost since the last record, now that there is room. */
static __always_inline void flush_loss(struct emit_ctx *e)
{
	struct trace_pdu8 *r;
	__u64 n = e->st->pending;

	if (!n)
		return;
	r = bpf_ringbuf_reserve(e->ring, sizeof(*r), 0);
	if (!r)
		return;
	fill(e, &r->t, BLKREC_LOSS_MAGIC, 0, n, 0, 0, 0, sizeof(r->pdu));
	r->t.pid = 0;
	r->pdu = e->st->t0_ns;
	e->st->pending -= n;
	bpf_ringbuf_submit(r, wake_flag(e));
}

/* A PROCESS note at a pid's first event, as blktrace writes. */
static __always_inline void process_note(struct emit_ctx *e, __u32 dev)
{
	__u32 word = e->pid / 64;
	__u64 bit = 1ull << (e->pid & 63), *seen;
	struct trace_pdu16 *r;

	seen = bpf_map_lookup_elem(&pids_seen, &word);
	if (!seen || (*seen & bit))
		return;
	r = bpf_ringbuf_reserve(e->ring, sizeof(*r), 0);
	if (!r) {
		count_loss(e->st);
		return;
	}
	*seen |= bit;
	fill(e, &r->t, V7_MAGIC, dev, 0, 0, TC_ACT(TC_NOTIFY) | TN_PROCESS,
	     0, sizeof(r->pdu));
	bpf_get_current_comm(r->pdu, sizeof(r->pdu));
	bpf_ringbuf_submit(r, wake_flag(e));
}

static __always_inline int prologue(struct emit_ctx *e, __u32 dev)
{
	if (emit_ctx_init(e))
		return -1;
	flush_loss(e);
	process_note(e, dev);
	return 0;
}

/* A record, its version-2 categories (zone_categories) in sequence:
 * its time (the clock's now where there was no room for it). */
static __always_inline __u64 trace_event_zoned(__u32 dev, __u64 sector,
					       __u32 bytes, __u32 action,
					       __u16 error, __u32 zone)
{
	struct emit_ctx e;
	struct trace *t;
	__u64 now;

	if (prologue(&e, dev))
		return bpf_ktime_get_ns();
	t = bpf_ringbuf_reserve(e.ring, sizeof(*t), 0);
	if (!t) {
		count_loss(e.st);
		return bpf_ktime_get_ns();
	}
	fill(&e, t, V7_MAGIC, dev, sector, bytes, action, error, 0);
	t->sequence = zone;
	now = t->time;
	bpf_ringbuf_submit(t, wake_flag(&e));
	return now;
}

static __always_inline void trace_event(__u32 dev, __u64 sector,
					__u32 bytes, __u32 action,
					__u16 error)
{
	trace_event_zoned(dev, sector, bytes, action, error, 0);
}

static __always_inline void trace_event_pdu8(__u32 dev, __u64 sector,
					     __u32 bytes, __u32 action,
					     __u16 error, __u64 pdu)
{
	struct emit_ctx e;
	struct trace_pdu8 *r;

	if (prologue(&e, dev))
		return;
	r = bpf_ringbuf_reserve(e.ring, sizeof(*r), 0);
	if (!r) {
		count_loss(e.st);
		return;
	}
	fill(&e, &r->t, V7_MAGIC, dev, sector, bytes, action, error,
	     sizeof(r->pdu));
	r->pdu = pdu;
	bpf_ringbuf_submit(r, wake_flag(&e));
}

static __always_inline void trace_remap(__u32 dev, __u64 sector,
					__u32 bytes, __u32 action,
					__u16 error, __u32 from_dev,
					__u32 to_dev, __u64 from_sector)
{
	struct emit_ctx e;
	struct trace_pdu16 *r;
	struct remap_pdu *p;

	if (prologue(&e, dev))
		return;
	r = bpf_ringbuf_reserve(e.ring, sizeof(*r), 0);
	if (!r) {
		count_loss(e.st);
		return;
	}
	fill(&e, &r->t, V7_MAGIC, dev, sector, bytes, action, error,
	     sizeof(r->pdu));
	p = (struct remap_pdu *)r->pdu;
	p->device_from = bpf_htonl(from_dev);
	p->device_to = bpf_htonl(to_dev);
	p->sector_from = bpf_cpu_to_be64(from_sector);
	bpf_ringbuf_submit(r, wake_flag(&e));
}

/* ---- the triggers (blkrec.h) ---- */

#include "blkrec_triggers.bpf.h"

/* ---- requests: blk_add_trace_rq ---- */

static __always_inline int rq_is_passthrough(__u32 opf)
{
	__u32 op = opf & REQ_OP_MASK;

	return op == REQ_OP_DRV_IN || op == REQ_OP_DRV_OUT;
}

/* Requests issued, requeued and completed, for the completions the
 * kernel makes without running our program. An empty completion (a read
 * or write of no bytes left: the end of a flush sequence whose data
 * completed earlier) ends no issued request: counted, it would hide as
 * many unseen ones. */
static __always_inline void count_request(__u32 what, __u32 bytes,
					  __u32 rq_bytes, __u32 opf)
{
	__u32 zero = 0;
	struct blkrec_cpu *st = bpf_map_lookup_elem(&cpu_state, &zero);

	if (!st)
		return;
	if (what == TA_ISSUE)
		st->issued++;
	else if (what == TA_REQUEUE)
		st->requeued++;
	else if (what == TA_COMPLETE && bytes >= rq_bytes &&
		 (rq_bytes || (opf & REQ_OP_MASK) > 1))
		st->completed++;
}

static __always_inline void trace_rq(struct request *rq, __u32 bytes,
				     __u32 what, __u8 status)
{
	__u32 opf = rq->cmd_flags, dev, action, entry;
	__u64 sector = rq->__sector, now;

	if (rq_is_passthrough(opf) || sector == (__u64)-1)
		sector = 0;
	if (find_dev_at(disk_devt(rq->q->disk), sector, &dev, &entry))
		return;
	count_request(what, bytes, rq->__data_len, opf);
	action = what | TC_ACT(rq_is_passthrough(opf) ? TC_PC : TC_FS) |
		 categories(opf);
	now = trace_event_zoned(dev, sector, bytes, action,
				status_error(status), zone_categories(opf));
	if (what == TA_ISSUE)
		kt_issue(rq, entry, dev, sector, now);
	else if (what == TA_REQUEUE)
		kt_requeue(rq, entry, dev, sector);
	else if (what == TA_COMPLETE)
		kt_complete(rq, entry, dev, sector, bytes, action, now);
	else if (what == TA_BACKMERGE)
		kt_merge(dev, sector);
}

SEC("tp_btf/block_rq_insert")
int rq_insert(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];

	trace_rq(rq, rq->__data_len, TA_INSERT, 0);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int rq_issue(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];

	trace_rq(rq, rq->__data_len, TA_ISSUE, 0);
	return 0;
}

SEC("tp_btf/block_rq_merge")
int rq_merge(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];

	trace_rq(rq, rq->__data_len, TA_BACKMERGE, 0);
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int rq_requeue(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];

	trace_rq(rq, rq->__data_len, TA_REQUEUE, 0);
	return 0;
}

/* For tests: whether to act as if the kernel had not run us on this
 * completion of a request's data. */
static __always_inline int test_unseen(struct request *rq, __u32 bytes)
{
	__u32 zero = 0;
	struct blkrec_cpu *st;

	if (!unseen_every || !rq->__data_len || bytes < rq->__data_len)
		return 0;
	st = bpf_map_lookup_elem(&cpu_state, &zero);
	return st && ++st->data_completions % unseen_every == 0;
}

SEC("tp_btf/block_rq_complete")
int rq_complete(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];

	if (test_unseen(rq, (__u32)ctx[2]))
		return 0;
	trace_rq(rq, (__u32)ctx[2], TA_COMPLETE, (__u8)ctx[1]);
	return 0;
}

/* ---- bios: blk_add_trace_bio ---- */

static __always_inline void trace_bio_on(struct gendisk *disk,
					 struct bio *bio, __u32 what,
					 __u16 error)
{
	__u64 sector = bio->bi_iter.bi_sector;
	__u32 opf = bio->bi_opf, dev;
	__u64 now;

	if (find_dev(disk_devt(disk), sector, &dev))
		return;
	now = trace_event_zoned(dev, sector, bio->bi_iter.bi_size,
				what | categories(opf), error,
				zone_categories(opf));
	if (what == TA_QUEUE)
		kt_queue(dev, sector, now);
	else if (what == TA_BACKMERGE)
		kt_merge(dev, sector);
}

static __always_inline void trace_bio(struct bio *bio, __u32 what)
{
	trace_bio_on(bio->bi_bdev->bd_disk, bio, what, 0);
}

SEC("tp_btf/block_bio_complete")
int bio_complete(__u64 *ctx)
{
	struct request_queue *q = (void *)ctx[0];
	struct bio *bio = (void *)ctx[1];

	trace_bio_on(q->disk, bio, TA_COMPLETE, status_error(bio->bi_status));
	return 0;
}

SEC("tp_btf/block_bio_backmerge")
int bio_backmerge(__u64 *ctx)
{
	trace_bio((void *)ctx[0], TA_BACKMERGE);
	return 0;
}

SEC("tp_btf/block_bio_frontmerge")
int bio_frontmerge(__u64 *ctx)
{
	trace_bio((void *)ctx[0], TA_FRONTMERGE);
	return 0;
}

/* ---- the cause of a queued bio ---- */

#define S_IFMT		0170000
#define S_IFBLK		0060000
#define MAPPING_FLAGS	3ul	/* anon, KSM, movable: no file's */

struct queue_cause {
	struct trace t;
	struct blkrec_cause c;
};

/* The cgroup whose bio this is: its blkcg's, else the task's in the io
 * controller's hierarchy (the same one, be it cgroup2 or v1's blkio). */
static __always_inline __u64 bio_cgroup(struct bio *bio)
{
	int io = bpf_core_enum_value(enum cgroup_subsys_id, io_cgrp_id);
	struct blkcg_gq *blkg = bio->bi_blkg;
	struct task_struct *task;
	struct cgroup_subsys_state *css;

	if (blkg)
		return blkg->blkcg->css.cgroup->kn->id;
	task = (struct task_struct *)bpf_get_current_task();
	if (io < 0 || io >= 16)
		return 0;
	css = BPF_CORE_READ(task, cgroups, subsys[io]);
	return css ? BPF_CORE_READ(css, cgroup, kn, id) : 0;
}

static __always_inline int is_jbd2(void)
{
	char comm[8];

	bpf_get_current_comm(comm, sizeof(comm));
	return comm[0] == 'j' && comm[1] == 'b' && comm[2] == 'd' &&
	       comm[3] == '2' && comm[4] == '/';
}

/* Pointers read from a page are read in one of two ways, the QUEUE
 * program being built twice (bio_queue, bio_queue_helper; the user side
 * loads one): typed (bpf_rdonly_cast, Linux 6.2 on), by plain loads the
 * verifier makes fault-safe; else untyped, a helper call per field. */
static __always_inline void set_inode(struct blkrec_cause *c,
				      struct inode *inode, const int typed)
{
	if (typed) {
		c->ino = inode->i_ino;
		c->ino_dev = inode->i_sb->s_dev;
		c->ino_gen = inode->i_generation;
	} else {
		c->ino = BPF_CORE_READ(inode, i_ino);
		c->ino_dev = BPF_CORE_READ(inode, i_sb, s_dev);
		c->ino_gen = BPF_CORE_READ(inode, i_generation);
	}
}

/* A page of a file's page cache: the file, and whoever dirtied it when
 * it is written back. */
static __always_inline void file_page(struct blkrec_cause *c,
				      struct inode *host, __u32 opf,
				      const int typed)
{
	__u64 key = (__u64)host;
	struct blkrec_dirtier *d;

	c->kind = BLKREC_FILE;
	set_inode(c, host, typed);
	if (!(opf & 1))
		return;
	c->flags |= BLKREC_WRITEBACK;
	d = bpf_map_lookup_elem(&dirtiers, &key);
	if (!d)
		return;
	c->owner_pid = d->pid;
	c->owner_tgid = d->tgid;
	c->cgroup2 = d->cgroup2;
	__builtin_memcpy(c->owner_comm, d->comm, sizeof(c->owner_comm));
}

/* A page with no file's mapping: swap, a direct I/O's user memory (the
 * file of the call, else the device itself), jbd2's own buffers. */
static __always_inline void unmapped_page(struct blkrec_cause *c,
					  struct bio *bio, struct page *head,
					  unsigned long mapping)
{
	__u32 tid = c->pid;
	unsigned long flags = 0;
	struct address_space *bdev_mapping;
	struct blkrec_dio *dio;

	bpf_probe_read_kernel(&flags, sizeof(flags), head);
	if ((flags >> bpf_core_enum_value(enum pageflags, PG_swapcache) & 1) &&
	    (flags >> bpf_core_enum_value(enum pageflags, PG_swapbacked) & 1)) {
		c->kind = BLKREC_SWAP;
		return;
	}
	dio = bpf_map_lookup_elem(&dios, &tid);
	if (dio) {
		c->kind = BLKREC_FILE;
		c->flags |= BLKREC_DIRECT;
		c->ino = dio->ino;
		c->ino_dev = dio->dev;
		c->ino_gen = dio->gen;
		return;
	}
	if (!(mapping & 1)) {
		/* kernel memory: jbd2's own buffers, or nobody's */
		if (is_jbd2())
			c->kind = BLKREC_JOURNAL;
		return;
	}
	/* user memory, no file system's call: the device opened raw */
	c->kind = BLKREC_DEVICE;
	c->flags |= BLKREC_DIRECT;
	bdev_mapping = bio->bi_bdev->bd_mapping;
	if (bdev_mapping)
		set_inode(c, bdev_mapping->host, 1);	/* from the bio: typed */
}

/* Linux 6.2 on; weak, for the helper program is loaded where it is not */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* The first page's folio (its head page). The vector is indexed at run
 * time, which the verifier allows a typed pointer only through
 * bpf_rdonly_cast. The page's compound_head (and mapping, below) are
 * read by a helper either way: they sit in unions whose first members
 * the verifier takes them for (lru's pointers). */
static __always_inline struct page *first_page(struct bio *bio,
					       const int typed)
{
	struct bio_vec *vec = bio->bi_io_vec;
	unsigned int idx = bio->bi_iter.bi_idx;
	struct page *page = NULL;
	unsigned long head;

	if (!vec || !bio->bi_vcnt || !bio->bi_iter.bi_size)
		return NULL;	/* a flush, a discard */
	if (typed) {
		vec = bpf_rdonly_cast((char *)vec +
				      idx * bpf_core_type_size(struct bio_vec),
				      bpf_core_type_id_kernel(struct bio_vec));
		page = vec->bv_page;
	} else {
		bpf_probe_read_kernel(&page, sizeof(page),
				      (char *)BPF_CORE_READ(bio, bi_io_vec) +
				      idx * bpf_core_type_size(struct bio_vec) +
				      bpf_core_field_offset(struct bio_vec, bv_page));
	}
	if (!page)
		return NULL;
	head = BPF_CORE_READ(page, compound_head);
	if (!(head & 1))
		return page;
	if (!typed)
		return (struct page *)(head - 1);
	return bpf_rdonly_cast((void *)(head - 1),
			       bpf_core_type_id_kernel(struct page));
}

static __always_inline void page_cause(struct blkrec_cause *c,
				       struct bio *bio, const int typed)
{
	struct page *head = first_page(bio, typed);
	unsigned long mapping;
	struct inode *host;
	unsigned short mode;

	if (!head)
		return;
	mapping = (unsigned long)BPF_CORE_READ(head, mapping);
	if (!mapping || (mapping & MAPPING_FLAGS)) {
		unmapped_page(c, bio, head, mapping);
		return;
	}
	if (typed) {
		host = ((struct address_space *)bpf_rdonly_cast(
				(void *)mapping,
				bpf_core_type_id_kernel(struct address_space)))->host;
		if (!host)
			return;
		mode = host->i_mode;
	} else {
		host = BPF_CORE_READ((struct address_space *)mapping, host);
		if (!host)
			return;
		mode = BPF_CORE_READ(host, i_mode);
	}
	if ((mode & S_IFMT) != S_IFBLK) {
		file_page(c, host, bio->bi_opf, typed);
		return;
	}
	/* the block device's own cache: a file system's metadata, or the
	 * device written through its page cache when nothing holds it */
	if (is_jbd2()) {
		c->kind = BLKREC_JOURNAL;
	} else if (bio->bi_bdev->bd_holder) {
		c->kind = BLKREC_METADATA;
	} else {
		c->kind = BLKREC_DEVICE;
		set_inode(c, host, typed);
	}
}

static __always_inline void fill_cause(void *ctx, struct blkrec_cause *c,
				       struct bio *bio, const int typed)
{
	__u64 id = bpf_get_current_pid_tgid();

	__builtin_memset(c, 0, sizeof(*c));
	c->pid = (__u32)id;
	c->tgid = id >> 32;
	c->kstack = c->ustack = -1;
	c->cgroup = bio_cgroup(bio);
	c->cgroup2 = bpf_get_current_cgroup_id();
	page_cause(c, bio, typed);
	if (cause_opts & BLKREC_KSTACKS)
		c->kstack = bpf_get_stackid(ctx, &kstacks, 0);
	if (cause_opts & BLKREC_USTACKS)
		c->ustack = bpf_get_stackid(ctx, &ustacks, BPF_F_USER_STACK);
}

/* A QUEUE record and its cause, in one sample. */
static __always_inline void trace_queue_cause(void *ctx, struct bio *bio,
					      const int typed)
{
	__u64 sector = bio->bi_iter.bi_sector;
	struct queue_cause *r;
	struct emit_ctx e;
	__u32 dev;

	if (find_dev(disk_devt(bio->bi_bdev->bd_disk), sector, &dev))
		return;
	if (prologue(&e, dev))
		return;
	r = bpf_ringbuf_reserve(e.ring, sizeof(*r), 0);
	if (!r) {
		count_loss(e.st);
		return;
	}
	fill(&e, &r->t, BLKREC_CAUSE_MAGIC, dev, sector,
	     bio->bi_iter.bi_size, TA_QUEUE | categories(bio->bi_opf), 0, 0);
	r->t.sequence = zone_categories(bio->bi_opf);
	fill_cause(ctx, &r->c, bio, typed);
	bpf_ringbuf_submit(r, wake_flag(&e));
}

static __always_inline void queue_event(__u64 *ctx, const int typed)
{
	if (cause_opts & BLKREC_CAUSES)
		trace_queue_cause(ctx, (void *)ctx[0], typed);
	else
		trace_bio((void *)ctx[0], TA_QUEUE);
}

/* The user side loads one of the two: bio_queue where the kernel has
 * bpf_rdonly_cast, else bio_queue_helper. */
SEC("tp_btf/block_bio_queue")
int bio_queue(__u64 *ctx)
{
	queue_event(ctx, 1);
	return 0;
}

SEC("tp_btf/block_bio_queue")
int bio_queue_helper(__u64 *ctx)
{
	queue_event(ctx, 0);
	return 0;
}

/* ---- who dirtied a file, which file a direct I/O is on ---- */

/* Only the traced devices' files are kept. */
static __always_inline int traced_sb(struct super_block *sb)
{
	struct block_device *bdev = sb->s_bdev;
	__u32 disk, i;

	if (!bdev)
		return 0;
	disk = disk_devt(bdev->bd_disk);
	for (i = 0; i < BLKREC_MAX_DEVS; i++) {
		if (i >= n_devs)
			return 0;
		if (devs[i].disk == disk)
			return 1;
	}
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int dirty_folio(__u64 *ctx)
{
	struct address_space *mapping = (void *)ctx[1];
	__u64 id = bpf_get_current_pid_tgid(), key;
	struct blkrec_dirtier d, *old;
	struct inode *host;

	if (!mapping || !(host = mapping->host) || !traced_sb(host->i_sb))
		return 0;
	key = (__u64)host;
	old = bpf_map_lookup_elem(&dirtiers, &key);
	if (old && old->pid == (__u32)id)
		return 0;	/* the usual case: costs a lookup only */
	d.pid = (__u32)id;
	d.tgid = id >> 32;
	d.cgroup2 = bpf_get_current_cgroup_id();
	bpf_get_current_comm(d.comm, sizeof(d.comm));
	bpf_map_update_elem(&dirtiers, &key, &d, BPF_ANY);
	return 0;
}

SEC("tp_btf/iomap_dio_rw_begin")
int dio_begin(__u64 *ctx)
{
	struct kiocb *iocb = (void *)ctx[0];
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct inode *inode = iocb->ki_filp->f_inode;
	struct blkrec_dio d = { .iocb = (__u64)iocb };

	if (!inode || !traced_sb(inode->i_sb))
		return 0;
	d.ino = inode->i_ino;
	d.dev = inode->i_sb->s_dev;
	d.gen = inode->i_generation;
	bpf_map_update_elem(&dios, &tid, &d, BPF_ANY);
	return 0;
}

/* An asynchronous call has queued its bios. */
SEC("tp_btf/iomap_dio_rw_queued")
int dio_queued(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&dios, &tid);
	return 0;
}

/* A call is done (this may run in another task, at an asynchronous
 * call's completion: only the call's own entry goes). */
SEC("tp_btf/iomap_dio_complete")
int dio_complete(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct blkrec_dio *d = bpf_map_lookup_elem(&dios, &tid);

	if (d && d->iocb == ctx[0])
		bpf_map_delete_elem(&dios, &tid);
	return 0;
}

/* ---- a file's name as it is unlinked ---- */

struct name_rec {
	struct trace t;
	struct blkrec_name n;
};

/* The path's components, the file's first, up to its file system's
 * root (or as many as fit). */
static __always_inline void dentry_names(struct blkrec_name *n,
					 struct dentry *d)
{
	struct dentry *parent;
	__u32 off = 0;
	long len;
	int i;

	for (i = 0; i < BLKREC_NAME_DEPTH; i++) {
		parent = d->d_parent;
		if (!parent || parent == d) {
			n->whole = 1;
			return;
		}
		if (off > BLKREC_NAME_BYTES - 256)
			return;
		len = bpf_probe_read_kernel_str(
			&n->names[off & (BLKREC_NAME_BYTES - 1)], 256,
			d->d_name.name);
		if (len <= 0)
			return;
		off += (__u32)len;
		n->depth++;
		d = parent;
	}
}

/* A file unlinked on a traced file system: one deleted before the
 * recording ends, which no walk at the end can find, is named by it.
 * ext4's tracepoint, after the unlink (its result, the links left):
 * function entries (fentry, BPF LSM) would see every file system, but
 * need the kernel's trampolines, which lockdown and some sandboxes
 * refuse (the whole recorder with them). A record of its own, outside
 * the trace's order: it takes no part in the ring's loss accounting,
 * and is dropped when the ring is full. */
SEC("tp_btf/ext4_unlink_exit")
int unlink_name(__u64 *ctx)
{
	struct dentry *dentry = (void *)ctx[0];
	struct inode *inode = dentry->d_inode;
	struct emit_ctx e;
	struct name_rec *r;

	if ((int)ctx[1] || !inode || !traced_sb(inode->i_sb) ||
	    emit_ctx_init(&e))
		return 0;
	r = bpf_ringbuf_reserve(e.ring, sizeof(*r), 0);
	if (!r)
		return 0;
	__builtin_memset(&r->t, 0, sizeof(r->t));
	r->t.magic = BLKREC_NAME_MAGIC;
	r->t.time = bpf_ktime_get_ns();
	r->t.pid = e.pid;
	r->t.device = inode->i_sb->s_dev;
	r->t.cpu = e.cpu;
	r->n.ino = inode->i_ino;
	r->n.gen = inode->i_generation;
	r->n.nlink = inode->i_nlink;
	r->n.depth = 0;
	r->n.whole = 0;
	dentry_names(&r->n, dentry);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/block_getrq")
int getrq(__u64 *ctx)
{
	trace_bio((void *)ctx[0], TA_GETRQ);
	return 0;
}

/* ---- plugs, splits and remaps ---- */

SEC("tp_btf/block_plug")
int plug(__u64 *ctx)
{
	struct request_queue *q = (void *)ctx[0];
	__u32 dev;

	if (find_dev(disk_devt(q->disk), 0, &dev))
		return 0;
	trace_event(dev, 0, 0, TA_PLUG | categories(0), 0);
	return 0;
}

SEC("tp_btf/block_unplug")
int unplug(__u64 *ctx)
{
	struct request_queue *q = (void *)ctx[0];
	__u32 depth = (__u32)ctx[1], dev;
	__u32 what = (__u8)ctx[2] ? TA_UNPLUG_IO : TA_UNPLUG_TIMER;

	if (find_dev(disk_devt(q->disk), 0, &dev))
		return 0;
	trace_event_pdu8(dev, 0, 0, what | categories(0), 0,
			 bpf_cpu_to_be64((__u64)depth));
	return 0;
}

SEC("tp_btf/block_split")
int split(__u64 *ctx)
{
	struct bio *bio = (void *)ctx[0];
	__u32 new_sector = (__u32)ctx[1], dev;
	__u64 sector = bio->bi_iter.bi_sector;

	if (find_dev(disk_devt(bio->bi_bdev->bd_disk), sector, &dev))
		return 0;
	trace_event_pdu8(dev, sector, bio->bi_iter.bi_size,
			 TA_SPLIT | categories(bio->bi_opf),
			 status_error(bio->bi_status),
			 bpf_cpu_to_be64((__u64)new_sector));
	return 0;
}

SEC("tp_btf/block_bio_remap")
int bio_remap(__u64 *ctx)
{
	struct bio *bio = (void *)ctx[0];
	__u32 from_dev = (__u32)ctx[1], dev;
	__u64 from = ctx[2], sector = bio->bi_iter.bi_sector;

	if (find_dev(disk_devt(bio->bi_bdev->bd_disk), sector, &dev))
		return 0;
	trace_remap(dev, sector, bio->bi_iter.bi_size,
		    TA_REMAP | categories(bio->bi_opf),
		    status_error(bio->bi_status), from_dev,
		    bio->bi_bdev->bd_dev, from);
	return 0;
}

SEC("tp_btf/block_rq_remap")
int rq_remap(__u64 *ctx)
{
	struct request *rq = (void *)ctx[0];
	__u32 from_dev = (__u32)ctx[1], dev;
	__u64 from = ctx[2], sector = rq->__sector;
	__u32 disk = disk_devt(rq->q->disk);

	if (find_dev(disk, sector, &dev))
		return 0;
	trace_remap(dev, sector, rq->__data_len,
		    TA_REMAP | categories(rq->cmd_flags), 0, from_dev, disk,
		    from);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
