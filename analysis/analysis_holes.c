/*
 * analysis_holes.c: holes no note tells of, inferred from the trace's own
 * evidence (analysis/ACCOUNTING.md, "Inferred holes"). Each device keeps
 * its own bound: the longest a request it paired took (D2C; Q2C on a
 * bio-based device). The rules, all in the one streaming pass:
 *
 *  - superseded: a completion finds two or more requests in flight at
 *    its sector and the oldest has been out more than twice the bound:
 *    that one's completion was lost; the completion is the newer one's;
 *  - orphan at the end: a request still in flight when the trace ends,
 *    out more than twice the bound, never completed (its completion was
 *    lost); on a device that paired only a few (HOLE_MIN_PAIRED_END),
 *    also only where a request issued after it completed;
 *  - serial flushes: on a device that sends its flushes one at a time,
 *    a completion finding two waiting is the newest's (the older one
 *    lost its completion, and the rules above or the end take it);
 *  - the queue's bound: more requests in flight than the device held in
 *    any stretch that drained: the oldest overtaken one is lost (and a
 *    chain of pairings a lost completion shifted leaves the depth from
 *    its first issue);
 *  - unmatched: a completion with nothing in flight to pair (or, on a
 *    device whose requests are issued, only bios never issued) more than
 *    twice the bound after the trace's start: its issue was lost. It is
 *    counted (bytes, IOPS), never timed;
 *  - a flush's own evidence (the kernel's flush machinery: one flush in
 *    flight per hardware queue, a preflushed write issued only when a
 *    flush issued after its Q is done): hole_flush_issued,
 *    hole_preflush_lost; and a flush pairing analysis.c held until the
 *    next event, taken back by an unseen sequence's step
 *    (hole_flush_shifted).
 *
 * Nothing is inferred before a device has paired HOLE_MIN_PAIRED
 * completions (no bound yet), but the orphans at the end above. A
 * request judged lost leaves latency and queue depth from its issue (the
 * earliest the hole can be: its depth is taken back), and becomes an
 * inferred loss window on its device, as do the unmatched completions:
 * a->loss, the windows every output reads.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base/vec.h"
#include "histogram.h"
#include "ioset.h"
#include "reader/lossnote.h"
#include "analysis_hub.h"

/* flushes issued one at a time before a device counts as serial */
#define HOLE_MIN_SERIAL	4
/* a flush issued within this of an older one on its CPU is not
 * evidence that the older one was done (hole_flush_issued) */
#define FLUSH_SKEW_NS	10000ull
/* windows of one device and rule closer than this are one */
#define HOLE_GAP_NS	50000000ull

/* The p99 of the unambiguous pairings of kind k (0 requests, 1
 * flushes), recomputed every 256 of them; fallback below 64. */
static uint64_t usual_of(struct device_stats *d, int k, uint64_t fallback)
{
	if (d->usual_n[k] < 64 || !d->usual_hist)
		return fallback;
	if (!d->usual_at[k] || d->usual_n[k] - d->usual_at[k] >= 256) {
		d->usual_ns[k] = (uint64_t)hist_quantile(
			d->usual_hist + k * LAT_BIN_BUCKETS, LAT_BIN_BUCKETS,
			LAT_BIN_BITS, 0.99);
		d->usual_at[k] = d->usual_n[k];
	}
	return d->usual_ns[k] > 1000 ? d->usual_ns[k] : 1000;
}

/* The device's usual latency: the p99 of the requests it paired with
 * no other candidate (a pairing a lost completion shifted never counts);
 * the bound until it has 64. */
static uint64_t hole_usual(struct device_stats *d)
{
	return usual_of(d, 0, hole_bound(d));
}

/* A flush's: the same of its flushes, or their maximum. */
static uint64_t flush_usual(struct device_stats *d)
{
	uint64_t max = d->flush_max_ns > 1000 ? d->flush_max_ns : 1000;

	return usual_of(d, 1, max);
}

static void usual_add(struct device_stats *d, int k, uint64_t lat)
{
	if (!d->usual_hist &&
	    !(d->usual_hist = calloc(2 * LAT_BIN_BUCKETS, sizeof(uint32_t))))
		return;	/* the fallback then stands */
	if (lat >= 1ull << LAT_BIN_MAX_BITS)
		lat = (1ull << LAT_BIN_MAX_BITS) - 1;
	d->usual_hist[k * LAT_BIN_BUCKETS + hist_index(lat, LAT_BIN_BITS)]++;
	d->usual_n[k]++;
}

void hole_flush_paired(struct device_stats *d, uint64_t lat, int alone)
{
	if (!alone)
		return;
	usual_add(d, 1, lat);
	if (lat > d->flush_max_ns)
		d->flush_max_ns = lat;
	if (lat && (!d->flush_min_ns || lat < d->flush_min_ns))
		d->flush_min_ns = lat;
}

/* A request (issued at d_ns) completed at now: the bound grows. */
void hole_paired(struct device_stats *d, uint64_t d_ns, uint64_t now,
		 int alone)
{
	uint64_t lat = now > d_ns ? now - d_ns : 0;

	d->paired++;
	if (d_ns > d->last_done_d_ns)
		d->last_done_d_ns = d_ns;
	/* a pairing with another candidate may be one a lost completion
	 * shifted: it feeds neither bound */
	if (!alone)
		return;
	usual_add(d, 0, lat);
	if (lat > d->max_lat_ns)
		d->max_lat_ns = lat;
}

static uint64_t cpu_bit(uint32_t cpu)
{
	return 1ull << (cpu < 63 ? cpu : 63);
}

/*
 * An inferred window [from, to) of device slot's rule kind: joined to
 * the last of its kind when they meet or lie within HOLE_GAP_NS.
 */
static int hole_window(struct analysis *a, size_t slot, int kind,
		       uint64_t from, uint64_t to, uint64_t cpus)
{
	struct device_stats *d = &a->devices[slot];
	size_t *last = &d->hole_win[kind];
	struct loss_window w = { 0 };

	if (*last && *last <= a->n_loss) {
		struct loss_window *l = &a->loss[*last - 1];

		if (from <= l->to_ns + HOLE_GAP_NS && to + HOLE_GAP_NS >=
		    l->from_ns) {
			if (from < l->from_ns)
				l->from_ns = from;
			if (to > l->to_ns)
				l->to_ns = to;
			l->requests++;
			l->cpu_mask |= cpus;
			return 0;
		}
	}
	w.from_ns = from;
	w.to_ns = to;
	w.count_unknown = 1;
	w.cpu_mask = cpus;
	w.inferred = 1;
	w.hole_kind = kind;
	w.device = d->device;
	w.requests = 1;
	if (loss_window_append(a, &w) < 0)
		return -1;
	*last = a->n_loss;
	return 0;
}

/* Takes the request at req (issued, in flight) off the books at now:
 * out of the depth from its issue, its bios forgotten, never timed. */
static int orphan(struct analysis *a, struct device_stats *d, size_t slot,
		  struct request_state *req, uint64_t now, int remove)
{
	struct analysis_private *p = priv(a);
	const struct ioset_key *k = ioset_key_of(&p->requests, req);
	struct request_state r = *req;
	uint64_t pos = k->sector, end = k->sector + req->bytes / 512;
	/* a chain's: from its first's issue (hole_chain) */
	uint64_t from = r.chain_ns && r.chain_ns < r.d_ns ? r.chain_ns
							   : r.d_ns;
	int op = (int)k->used - 1;
	long s;

	depth_change(a, d, now, -1);
	d->depth_area_ns -= depth_remove(a, from, now,
					 (char *)d->depth_bins, sizeof(double),
					 (char *)&a->bins[0].depth_area_ns,
					 sizeof(struct bin));
	if (a->tagging || r.tag != IO_EVENT_NO_TAG) {
		tag_depth_change(a, r.tag, now, -1);
		if ((s = tag_index_find(p, r.tag)) >= 0)
			depth_remove(a, from, now,
				     (char *)&a->tags[s].bins[0].depth_area_ns,
				     sizeof(struct tag_bin), NULL, 0);
	}
	d->orphan_requests++;
	if (remove) {
		d->requests[op]--;
		ioset_remove(&p->requests, req);
		while (pos < end) {
			struct bio_state *bio, *b;

			bio = NULL;
			for (b = ioset_find(&p->bios, d->device, op, pos); b;
			     b = ioset_next(&p->bios, b))
				if (b->stage == BIO_ISSUED && b->d_ns == r.d_ns)
					bio = b;
			if (!bio || bio->bytes < 512)
				break;
			pos += bio->bytes / 512;
			ioset_remove(&p->bios, bio);
		}
	}
	return hole_window(a, slot, HOLE_ORPHANS, from,
			   r.d_ns + hole_bound(d), cpu_bit(r.cpu));
}

/*
 * More than twice the requests in flight the device held in any stretch
 * that drained (its queue's bound, trusted after HOLE_MIN_DRAINS of
 * them; a stretch may outgrow the ones before it a little, in an intact
 * trace: overlap-fio's at 0.043 s), and req overtaken (a request issued
 * after it completed): one in flight is not, and req, the oldest at a
 * sector where another waits, is the one (overlap-fio, completions
 * lost: each sector's later completions paired 12-16 ms back, out less
 * than twice the usual).
 */
static int over_bound(const struct device_stats *d,
		      const struct request_state *req)
{
	return d->q_drains >= HOLE_MIN_DRAINS && d->q_bound &&
	       d->in_flight > 2 * d->q_bound &&
	       req->d_ns < d->last_done_d_ns;
}

/*
 * The request a completion at ev pairs with when two or more wait at its
 * sector: the oldest, unless it has been out more than twice the
 * device's bound; then its completion was lost (the newer one's came):
 * it is taken off the books, and the next is tried.
 */
struct request_state *hole_superseded(struct analysis *a,
				      struct device_stats *d,
				      const struct io_event *ev, int op)
{
	struct analysis_private *p = priv(a);
	size_t slot = (size_t)(d - a->devices);

	for (;;) {
		struct request_state *req, *oldest = NULL;
		size_t n = 0;

		for (req = ioset_find(&p->requests, ev->device, op,
				      ev->sector); req;
		     req = ioset_next(&p->requests, req))
			if (req->issued && req->bytes >= ev->bytes) {
				if (!oldest || req->d_ns < oldest->d_ns)
					oldest = req;
				n++;
			}
		if (n < 2 || d->paired < HOLE_MIN_PAIRED ||
		    ev->time_ns <= oldest->d_ns ||
		    (ev->time_ns - oldest->d_ns <= 2 * hole_usual(d) &&
		     !over_bound(d, oldest)))
			return oldest;
		if (orphan(a, d, slot, oldest, ev->time_ns, 1) < 0)
			return NULL;
	}
}

/*
 * A completion paired with req while another request waits at its
 * sector: if req's own completion was lost, the pairing is shifted, and
 * the one left waiting is the one whose completion came. The oldest
 * left at the sector keeps the issue of the chain's first, so that a
 * later finding (the queue's bound at the end) takes the chain's whole time out of the
 * depth: one request too many was in flight at the sector all along.
 */
void hole_chain(struct analysis *a, const struct request_state *req,
		const struct io_event *ev, int op)
{
	struct analysis_private *p = priv(a);
	struct request_state *r, *next = NULL;
	uint64_t from = req->chain_ns ? req->chain_ns : req->d_ns;

	for (r = ioset_find(&p->requests, ev->device, op, ev->sector); r;
	     r = ioset_next(&p->requests, r))
		if (r != req && r->issued && r->bytes >= ev->bytes &&
		    (!next || r->d_ns < next->d_ns))
			next = r;
	if (next && (!next->chain_ns || from < next->chain_ns))
		next->chain_ns = from;
}

struct excess_arg {
	struct device_stats *d;
	uint32_t slot;
	uint64_t now, from;
	struct request_state *oldest;
};

static int find_overtaken(void *value, void *arg)
{
	struct excess_arg *x = arg;
	struct request_state *req = value;

	uint64_t from = req->chain_ns ? req->chain_ns : req->d_ns;

	if (req->device_slot == x->slot && req->issued &&
	    req->d_ns < x->d->last_done_d_ns && x->now > from &&
	    (!x->oldest || from < x->from))
		x->oldest = req, x->from = from;
	return 1;
}

/* The n oldest requests of d that later ones overtook, lost (fewer
 * where fewer were overtaken). */
static int take_overtaken(struct analysis *a, struct device_stats *d,
			  uint64_t now, uint64_t n)
{
	struct analysis_private *p = priv(a);
	size_t slot = (size_t)(d - a->devices);
	struct excess_arg x = { d, (uint32_t)slot, now, 0, NULL };

	for (; n > 0; n--) {
		x.oldest = NULL;
		ioset_filter(&p->requests, find_overtaken, &x);
		if (!x.oldest)
			return 0;
		if (orphan(a, d, slot, x.oldest, now, 1) < 0)
			return -1;
	}
	return 0;
}

/*
 * More requests in flight than the device ever held in a stretch that
 * drained (every request of it completed, so none of it was lost: the
 * queue's bound the trace shows, over HOLE_MIN_DRAINS stretches) at the
 * trace's end: the oldest requests that later ones overtook, whatever
 * their age, lost their completions, one per excess request (nothing
 * more will complete). At the end only, after a recorder's note of
 * completions it did not see has taken its requests (analysis.c).
 */
static int excess(struct analysis *a, struct device_stats *d, uint64_t now)
{
	if (d->paired < HOLE_MIN_PAIRED || d->q_drains < HOLE_MIN_DRAINS ||
	    d->in_flight <= d->q_bound)
		return 0;
	return take_overtaken(a, d, now, d->in_flight - d->q_bound);
}

struct issued_arg {
	uint32_t slot;
	uint64_t n;
};

static int count_issued(void *value, void *arg)
{
	const struct request_state *req = value;
	struct issued_arg *c = arg;

	if (req->device_slot == c->slot && req->issued)
		c->n++;
	return 1;
}

/*
 * The kernel's own count at a recording's end (its account note,
 * reader/account.h): as tracing ended no more requests were in flight
 * than the kernel had in flight when it read them after, plus those it
 * completed as tracing ended (read before the detach and after). More
 * left in flight in the trace lost their completions: the oldest that
 * later requests overtook, whatever their age, one per request over
 * (a BPF recording of fio, every completion of its last 3% dropped: 60
 * torn, 52 of them old enough for the rules above, 60 so).
 */
static int beyond_account(struct analysis *a, struct device_stats *d,
			  uint64_t now)
{
	struct analysis_private *p = priv(a);
	struct issued_arg c = { (uint32_t)(d - a->devices), 0 };
	uint64_t limit;

	if (!d->has_account || d->paired < HOLE_MIN_PAIRED)
		return 0;
	limit = d->account.inflight_end + d->account.at_edges;
	ioset_filter(&p->requests, count_issued, &c);
	return c.n > limit ? take_overtaken(a, d, now, c.n - limit) : 0;
}

/* A completion with no issue traced for it (counted, not timed). */
int hole_unmatched(struct analysis *a, struct device_stats *d,
		   const struct io_event *ev)
{
	uint64_t bound = hole_bound(d);

	size_t i;

	if (in_time_range(a, ev->time_ns))
		d->unmatched_completions++;
	/* a request issued before the trace may end in its first moments */
	if (d->paired < HOLE_MIN_PAIRED ||
	    ev->time_ns <= a->first_ns + 2 * bound)
		return 0;
	/* nor is it news where the recorder said it lost events at times
	 * unknown, or just after a recorded loss: they say it */
	if (a->lost_unlocated)
		return 0;
	/* nor is it news just after a recorded loss: that window says it */
	for (i = a->n_loss; i-- > 0;)
		if (!a->loss[i].inferred &&
		    a->loss[i].from_ns <= ev->time_ns &&
		    (a->loss[i].to_ns >= ev->time_ns ||
		     ev->time_ns - a->loss[i].to_ns <= 2 * bound))
			return 0;
	return hole_window(a, (size_t)(d - a->devices), HOLE_UNMATCHED,
			   ev->time_ns - bound, ev->time_ns,
			   cpu_bit(ev->cpu));
}

struct orphan_arg {
	struct analysis *a;
	struct request_state **reqs;
	size_t n, cap;
	uint64_t any_bound;	/* the longest of the devices with a bound */
};

static int collect_orphan(void *value, void *arg)
{
	struct orphan_arg *o = arg;
	struct request_state *req = value;
	struct device_stats *d = &o->a->devices[req->device_slot];

	/* against the trace's end, other devices' records too (--device
	 * leaves them out of last_ns: perf's text of fio on 7,0, the
	 * completions of its last 6 I/Os lost, 254,0's records 107 ms
	 * after) */
	uint64_t end = o->a->other_last_ns > o->a->last_ns ?
		       o->a->other_last_ns : o->a->last_ns;
	uint64_t age = end > req->d_ns ? end - req->d_ns : 0;

	/* a device that completed (next to) nothing: out twice the longest
	 * any other took */
	if (req->issued && d->paired < HOLE_MIN_PAIRED && o->any_bound &&
	    age > 2 * o->any_bound && o->n < o->cap) {
		o->reqs[o->n++] = req;
		return 1;
	}
	/* a device that paired a few (HOLE_MIN_PAIRED_END or more):
	 * out twice the longest it took (and any other device with a
	 * bound) while a request issued after it completed */
	if (req->issued && d->paired >= HOLE_MIN_PAIRED_END &&
	    d->paired < HOLE_MIN_PAIRED && d->last_done_d_ns > req->d_ns &&
	    age > 2 * hole_bound(d) && age > 2 * o->any_bound &&
	    o->n < o->cap) {
		o->reqs[o->n++] = req;
		return 1;
	}
	/* out twice the longest the device took; or twice its usual
	 * while a request issued after it completed */
	if (req->issued && d->paired >= HOLE_MIN_PAIRED && o->n < o->cap &&
	    (age > 2 * hole_bound(d) ||
	     (d->last_done_d_ns > req->d_ns &&
	      age > 2 * hole_usual(d))))
		o->reqs[o->n++] = req;
	return 1;
}

/* The flush k-th oldest in flight, lost: out of the depth from its
 * issue. */
static int flush_orphan_at(struct analysis *a, struct device_stats *d,
			   size_t k, uint64_t now, uint64_t from)
{
	struct flush_fifo *f = d->flushes;
	size_t at = (f->head + k) % f->cap, i;
	uint64_t d_ns = from && from < f->d_ns[at] ? from : f->d_ns[at];
	int32_t tag = f->tag[at];
	long s;

	/* the ones after it move up a place */
	for (i = k; i + 1 < f->len; i++) {
		size_t to = (f->head + i) % f->cap,
		       next = (f->head + i + 1) % f->cap;

		f->d_ns[to] = f->d_ns[next];
		f->tag[to] = f->tag[next];
		f->pid[to] = f->pid[next];
		f->cpu[to] = f->cpu[next];
	}
	f->len--;
	depth_change(a, d, now, -1);
	d->depth_area_ns -= depth_remove(a, d_ns, now, (char *)d->depth_bins,
					 sizeof(double),
					 (char *)&a->bins[0].depth_area_ns,
					 sizeof(struct bin));
	if (a->tagging || tag != IO_EVENT_NO_TAG) {
		tag_depth_change(a, tag, now, -1);
		if ((s = tag_index_find(priv(a), tag)) >= 0)
			depth_remove(a, d_ns, now,
				     (char *)&a->tags[s].bins[0].depth_area_ns,
				     sizeof(struct tag_bin), NULL, 0);
	}
	d->orphan_requests++;
	return hole_window(a, (size_t)(d - a->devices), HOLE_ORPHANS, d_ns,
			   d_ns + flush_usual(d), 0);
}

/*
 * A flush completion c, paired with the flush issued at d_ns, was
 * another's (analysis.c, flush_step_unseen): that flush lost its
 * completion, out of the depth from its issue to c (where its pairing
 * took it out); c is a completion whose issue was lost: counted, not
 * timed.
 */
int hole_flush_shifted(struct analysis *a, struct device_stats *d,
		       uint64_t d_ns, int32_t tag, const struct io_event *c,
		       int counted)
{
	size_t slot = (size_t)(d - a->devices);
	long s;

	d->depth_area_ns -= depth_remove(a, d_ns, c->time_ns,
					 (char *)d->depth_bins, sizeof(double),
					 (char *)&a->bins[0].depth_area_ns,
					 sizeof(struct bin));
	if (a->tagging || tag != IO_EVENT_NO_TAG) {
		if ((s = tag_index_find(priv(a), tag)) >= 0)
			depth_remove(a, d_ns, c->time_ns,
				     (char *)&a->tags[s].bins[0].depth_area_ns,
				     sizeof(struct tag_bin), NULL, 0);
	}
	/* both records lost lie between the paired flush's issue and c:
	 * its completion after the one, the other's issue before the
	 * other (ext4-fsync, every record of 0.393-0.469 s gone: that
	 * whole silence shaded, not its two ends) */
	d->orphan_requests++;
	if (hole_window(a, slot, HOLE_ORPHANS, d_ns, c->time_ns, 0) < 0)
		return -1;
	if (counted)
		d->unmatched_completions++;
	return hole_window(a, slot, HOLE_UNMATCHED, d_ns, c->time_ns,
			   cpu_bit(c->cpu));
}

/*
 * A write queued with a preflush (its Q's F) is issued at now: the
 * kernel's flush machinery issued a flush after its Q (the one before
 * served the sequences already waiting) and issued the data only when
 * that flush was done. The oldest flush issued after q_ns, while none
 * issued after q_ns was paired, is still in flight: its completion was
 * lost, before now (ext4-fsync, every completion of 0.017-0.065 s
 * gone: 7 flushes in flight and the first completion after paired with
 * the oldest, 50 ms for 1 ms, before the device had timed enough
 * flushes for the rules at their completions).
 */
int hole_preflush_lost(struct analysis *a, struct device_stats *d,
		       uint64_t q_ns, uint64_t now)
{
	struct flush_fifo *f = d->flushes;
	size_t k;

	if (a->lost_unlocated || d->flush_done_d_ns > q_ns)
		return 0;
	for (k = 0; k < f->len; k++) {
		uint64_t t = f->d_ns[(f->head + k) % f->cap];

		if (t > q_ns && t < now)
			return flush_orphan_at(a, d, k, now, 0);
	}
	return 0;
}

/*
 * A flush issued: one at a time, or while another is in flight. The
 * kernel's flush machinery has one flush in flight per hardware queue
 * (block/blk-flush.c: "only one flush shall be in progress"), and a
 * CPU's requests go through one hardware queue: a flush issued on a CPU
 * while an older one issued on that CPU waits means the older one was
 * done, its completion lost (ext4-fsync, every completion of
 * 0.004-0.067 s gone: each sequence's last flush left in flight, and
 * the first completion after paired with the oldest, 59 ms for 1 ms).
 * Not where the device's flushes were seen to overlap, nor where the
 * older one was issued less than FLUSH_SKEW_NS before (per-CPU clocks
 * may put a D just before the completion it followed; a flush, its
 * completion's handling and the next one's dispatch take longer).
 */
int hole_flush_issued(struct analysis *a, struct device_stats *d,
		      const struct io_event *ev)
{
	struct flush_fifo *f = d->flushes;
	uint16_t cpu = (uint16_t)(ev->cpu < 65535 ? ev->cpu : 65535);
	size_t k;

	if (!f || !f->len) {
		d->flush_serial++;
		return 0;
	}
	if (a->lost_unlocated || d->flush_overlaps)
		return 0;
	for (k = f->len; k-- > 0;) {
		size_t at = (f->head + k) % f->cap;

		if (f->cpu[at] == cpu &&
		    ev->time_ns > f->d_ns[at] + FLUSH_SKEW_NS)
			return flush_orphan_at(a, d, k, ev->time_ns, 0);
	}
	return 0;
}

/*
 * Flushes pair first in, first out: at a flush's completion, while two
 * or more wait, the oldest's completion was lost when it has been out
 * more than twice the usual flush (with fewer than HOLE_MIN_PAIRED
 * flushes timed: twice the longest the device took, flush or request).
 * On a device that sends its flushes one at a time (HOLE_MIN_SERIAL of
 * them each issued with none in flight, no flush completion ever with
 * none in flight, and never two waiting at a completion and then one
 * at the next), only one can be in flight: a completion that finds two
 * or more, the second issued at least the shortest flush the device
 * took after the oldest (which could have completed before it), is the
 * newest's (returns 1: pair the newest), and the older
 * ones wait until the rule above or the end takes them. Where the
 * device's flushes did overlap, the two swap their times and nothing
 * is inferred; the queue back to one waiting tells it, and the device
 * is not serial from then on.
 */
int hole_flush_superseded(struct analysis *a, struct device_stats *d,
			  uint64_t now)
{
	struct flush_fifo *f = d->flushes;
	uint64_t usual = 0;

	if (!f || f->len < 2) {
		/* two were in flight, and the queue drained as it would:
		 * the device's flushes do overlap */
		if (d->flush_run && f && f->len == 1)
			d->flush_overlaps = 1;
		d->flush_run = 0;
		return 0;
	}
	d->flush_run = 1;
	/* the usual flush; with few flushes timed, the longest the device
	 * took, flush or request */
	if (d->flush_d2c.n >= HOLE_MIN_PAIRED)
		usual = flush_usual(d);
	else if (d->paired >= HOLE_MIN_PAIRED)
		usual = hole_bound(d) > d->flush_max_ns ? hole_bound(d)
							: d->flush_max_ns;
	while (f->len >= 2 && now > f->d_ns[f->head] && usual &&
	       now - f->d_ns[f->head] > 2 * usual)
		if (flush_orphan_at(a, d, 0, now, 0) < 0)
			return -1;
	/* the newest only when the oldest could have completed before the
	 * next was issued (they were apart at least the shortest flush the
	 * device took): else the two truly overlapped */
	return f->len >= 2 && d->flush_serial >= HOLE_MIN_SERIAL &&
	       !d->flush_overlaps && d->flush_min_ns &&
	       f->d_ns[(f->head + 1) % f->cap] - f->d_ns[f->head] >=
		       d->flush_min_ns;
}

/* At the end: a flush out twice the longest the device took, flush or
 * request (a device with few flushes has its requests' bound). */
static void flushes_finish(struct analysis *a, struct device_stats *d)
{
	struct flush_fifo *f = d->flushes;
	uint64_t bound = d->flush_max_ns;

	if (d->paired >= HOLE_MIN_PAIRED && hole_bound(d) > bound)
		bound = hole_bound(d);
	if (bound < 1000)
		bound = 1000;
	if (d->flush_d2c.n < HOLE_MIN_PAIRED && d->paired < HOLE_MIN_PAIRED)
		return;
	while (f && f->len && a->last_ns > f->d_ns[f->head] &&
	       a->last_ns - f->d_ns[f->head] > 2 * bound)
		if (flush_orphan_at(a, d, 0, a->last_ns, 0) < 0)
			return;
}

static int cmp_req_d_ns(const void *pa, const void *pb)
{
	const struct request_state *a = *(struct request_state *const *)pa;
	const struct request_state *b = *(struct request_state *const *)pb;

	return (a->d_ns > b->d_ns) - (a->d_ns < b->d_ns);
}

/*
 * At the end (depth closed at the last event): the requests still in
 * flight, out more than twice their device's bound, never completed.
 * Not where the recorder said it lost completions at times unknown
 * (unseen_off_depth takes those).
 */
void holes_finish(struct analysis *a)
{
	struct analysis_private *p = priv(a);
	struct orphan_arg o = { a, NULL, 0, 0, 0 };
	size_t i;

	if (a->lost_unlocated) {
		/* the recorder said it lost events at times it could not
		 * tell: its note speaks for them (a note read late leaves
		 * the windows inferred before it out; the counts stay) */
		size_t n = 0;

		for (i = 0; i < a->n_loss; i++)
			if (!a->loss[i].inferred)
				a->loss[n++] = a->loss[i];
		a->n_loss = n;
		return;
	}
	for (i = 0; i < a->n_devices; i++) {
		flushes_finish(a, &a->devices[i]);
		if (beyond_account(a, &a->devices[i], a->last_ns) < 0 ||
		    excess(a, &a->devices[i], a->last_ns) < 0)
			return;
	}
	if (!p->requests.len)
		return;
	for (i = 0; i < a->n_devices; i++)
		if (a->devices[i].paired >= HOLE_MIN_PAIRED &&
		    hole_bound(&a->devices[i]) > o.any_bound)
			o.any_bound = hole_bound(&a->devices[i]);
	o.cap = p->requests.len;
	o.reqs = malloc(o.cap * sizeof(*o.reqs));
	if (!o.reqs)
		return;	/* they then stay in the depth, as before */
	ioset_filter(&p->requests, collect_orphan, &o);
	qsort(o.reqs, o.n, sizeof(*o.reqs), cmp_req_d_ns);
	for (i = 0; i < o.n; i++) {
		struct request_state *req = o.reqs[i];

		if (orphan(a, &a->devices[req->device_slot],
			   req->device_slot, req, a->last_ns, 0) < 0)
			break;
	}
	free(o.reqs);
}
