// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/blkrec_triggers.bpf.h: the --flight single-I/O triggers
 * (blkrec.h) on the kernel's side, included by blkrec.bpf.c where they
 * are used (not a header of its own: it needs that file's kernel
 * declarations, its TC_* and the settings triggers[], n_triggers,
 * triggers_need_queue and after_ns). A request's queue and issue times
 * are kept by its tag (tag_slots) or, without one, by device and sector
 * (reqs); at its completion its d2c, q2c and q2d are held against each
 * trigger, and each one passed goes on the fires ring (kt_fire), the
 * first of a capture's waking the reader.
 *
 * Its maps come after all of blkrec.bpf.c's, in the order they always
 * had, so that the object and its skeleton are those of one file.
 */
#ifndef BLKREC_TRIGGERS_BPF_H
#define BLKREC_TRIGGERS_BPF_H

/* The requests between queue and completion, for the triggers (the
 * user side sizes it: one entry without triggers). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct blkrec_req_key);
	__type(value, struct blkrec_req);
} reqs SEC(".maps");

/* The requests issued, by device entry, hardware queue and tag, for
 * the triggers (blkrec.h; the user side sizes it: one entry without
 * triggers). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkrec_tag_slot);
} tag_slots SEC(".maps");

/* The triggers' fires (struct blkrec_fire), read as soon as one
 * comes. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 18);
} fires SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkrec_fires);
} fire_state SEC(".maps");

/* A bio queued: its request's queue time. */
static __always_inline void kt_queue(__u32 dev, __u64 sector, __u64 now)
{
	struct blkrec_req_key k = { .sector = sector, .dev = dev };
	struct blkrec_req r = { .q_ns = now };

	if (!n_triggers || !triggers_need_queue)
		return;
	bpf_map_update_elem(&reqs, &k, &r, BPF_ANY);
}

/* A bio merged into a request queued before: not one of its own. */
static __always_inline void kt_merge(__u32 dev, __u64 sector)
{
	struct blkrec_req_key k = { .sector = sector, .dev = dev };
	struct blkrec_req *r;

	if (!n_triggers || !triggers_need_queue)
		return;
	r = bpf_map_lookup_elem(&reqs, &k);
	if (r && !r->d_ns)
		bpf_map_delete_elem(&reqs, &k);
}

/* The request's tag slot, or NULL: beyond the array's bounds, or a
 * request without a driver tag (the hash keeps those). */
static __always_inline struct blkrec_tag_slot *
kt_slot(struct request *rq, __u32 entry)
{
	struct blk_mq_hw_ctx *hctx = rq->mq_hctx;
	int tag = rq->tag;
	__u32 hw, i;

	if (!hctx || tag < 0 || tag >= BLKREC_TAGS)
		return NULL;
	hw = hctx->queue_num;
	if (hw >= BLKREC_TAG_HW || entry >= BLKREC_MAX_DEVS)
		return NULL;
	i = (entry * BLKREC_TAG_HW + hw) * BLKREC_TAGS + (__u32)tag;
	return bpf_map_lookup_elem(&tag_slots, &i);
}

static __always_inline void kt_issue(struct request *rq, __u32 entry,
				     __u32 dev, __u64 sector, __u64 now)
{
	struct blkrec_req_key k = { .sector = sector, .dev = dev };
	struct blkrec_req *r, n = { 0, now };
	struct blkrec_tag_slot *t;

	if (!n_triggers)
		return;
	t = kt_slot(rq, entry);
	if (t) {
		t->q_ns = 0;
		/* its bio's queue time, kept by sector only for q2c/q2d */
		if (triggers_need_queue) {
			r = bpf_map_lookup_elem(&reqs, &k);
			if (r) {
				t->q_ns = r->q_ns;
				bpf_map_delete_elem(&reqs, &k);
			}
		}
		t->d_ns = now;
		t->rq = (__u64)rq;
		return;
	}
	r = bpf_map_lookup_elem(&reqs, &k);
	if (r)
		r->d_ns = now;
	else
		bpf_map_update_elem(&reqs, &k, &n, BPF_ANY);
}

static __always_inline void kt_requeue(struct request *rq, __u32 entry,
				       __u32 dev, __u64 sector)
{
	struct blkrec_req_key k = { .sector = sector, .dev = dev };
	struct blkrec_req *r, n;
	struct blkrec_tag_slot *t;

	if (!n_triggers)
		return;
	t = kt_slot(rq, entry);
	if (t && t->rq == (__u64)rq) {
		/* its tag is given back: its queue time waits by sector
		 * for the issue again */
		t->rq = 0;
		if (triggers_need_queue && t->q_ns) {
			n.q_ns = t->q_ns;
			n.d_ns = 0;
			bpf_map_update_elem(&reqs, &k, &n, BPF_ANY);
		}
		return;
	}
	r = bpf_map_lookup_elem(&reqs, &k);
	if (r)
		r->d_ns = 0;
}

static __always_inline void kt_fire(__u32 dev, __u64 sector, __u32 bytes,
				    __u32 action, __u64 now, __u64 value,
				    __u32 index)
{
	struct blkrec_fires *st;
	struct blkrec_fire *f;
	__u32 zero = 0;
	__u64 wake = BPF_RB_NO_WAKEUP;

	st = bpf_map_lookup_elem(&fire_state, &zero);
	if (!st)
		return;
	f = bpf_ringbuf_reserve(&fires, sizeof(*f), 0);
	if (!f) {
		__sync_fetch_and_add(&st->dropped, 1);
		return;
	}
	f->complete_ns = now;
	f->sector = sector;
	f->value_ns = value;
	f->dev = dev;
	f->bytes = bytes;
	f->action = action;
	f->trigger = (__u8)index;
	f->woke = 0;
	f->pad[0] = f->pad[1] = 0;
	/* the first fire wakes the reader; those in its capture's after
	 * part join it, read at the next drain */
	if (now >= st->quiet_until_ns) {
		st->quiet_until_ns = now + after_ns;
		wake = BPF_RB_FORCE_WAKEUP;
		f->woke = 1;
	}
	bpf_ringbuf_submit(f, wake);
}

/* A request completed: its times against each trigger. */
static __always_inline void kt_complete(struct request *rq, __u32 entry,
					__u32 dev, __u64 sector,
					__u32 bytes, __u32 action, __u64 now)
{
	struct blkrec_req_key k = { .sector = sector, .dev = dev };
	__u64 v[3] = { ~0ull, ~0ull, ~0ull };
	__u32 cls = action & TC_ACT(TC_WRITE) ? 2 :
		    action & TC_ACT(TC_READ) ? 1 : 0;
	struct blkrec_tag_slot *t;
	struct blkrec_req *r;
	__u64 q, d;
	int i;

	if (!n_triggers)
		return;
	t = kt_slot(rq, entry);
	if (t) {
		/* issued before the programs ran, or its issue not seen:
		 * no time of its own */
		if (t->rq != (__u64)rq)
			return;
		q = t->q_ns;
		d = t->d_ns;
		t->rq = 0;
	} else {
		r = bpf_map_lookup_elem(&reqs, &k);
		if (!r)
			return;
		q = r->q_ns;
		d = r->d_ns;
		bpf_map_delete_elem(&reqs, &k);
	}
	/* two requests of one sector at once: not its own */
	if (now < q || now < d)
		return;
	if (d)
		v[BLKREC_D2C] = now - d;
	if (q)
		v[BLKREC_Q2C] = now - q;
	if (q && d)
		v[BLKREC_Q2D] = d - q;
	for (i = 0; i < BLKREC_MAX_TRIGGERS; i++) {
		__u64 x;
		__u32 m;

		if (i >= n_triggers)
			break;
		if ((triggers[i].dev && triggers[i].dev != dev) ||
		    (triggers[i].cls && triggers[i].cls != cls))
			continue;
		m = triggers[i].metric;
		if (m > BLKREC_Q2D)
			continue;
		x = v[m];
		if (x == ~0ull || x <= triggers[i].threshold_ns)
			continue;
		kt_fire(dev, sector, bytes, action, now, x,
			triggers[i].index);
	}
}

#endif
