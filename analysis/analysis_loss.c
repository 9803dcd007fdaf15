/*
 * analysis_loss.c: where the recorder lost events: loss windows (notes,
 * files cut short), what was in flight forgotten, completions the kernel
 * made unseen taken off the depth, and the kernel's own counts (account
 * notes) beside the trace's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "base/bigmem.h"
#include "base/vec.h"
#include "reader/blktrace.h"
#include "reader/blocktp.h"
#include "blkparse_feed.h"
#include "histogram.h"
#include "ioset.h"
#include "reader/account.h"
#include "reader/lossnote.h"
#include "base/u64map.h"
#include "analysis_hub.h"

/* ---- loss ---- */

static int forget_bio(void *value, void *arg)
{
	struct analysis *a = arg;
	const struct ioset_key *k = ioset_key_of(&priv(a)->bios, value);
	const struct bio_state *bio = value;
	size_t i;

	/* a bio still waiting was lost in flight; an issued one is its
	 * request's */
	for (i = 0; bio->stage == BIO_QUEUED && i < a->n_devices; i++)
		if (a->devices[i].device == k->device)
			a->devices[i].lost_in_flight++;
	return 0;
}

/* One request's depth over [from, to) leaves its device's area, the
 * bins and its tag's (depth_remove, as the holes' rules take a lost
 * request's out). */
static void depth_off(struct analysis *a, uint32_t slot, int32_t tag,
		      uint64_t from, uint64_t to)
{
	struct device_stats *d = &a->devices[slot];
	long s;

	if (from >= to)
		return;
	d->depth_area_ns -= depth_remove(a, from, to, (char *)d->depth_bins,
					 sizeof(double),
					 (char *)&a->bins[0].depth_area_ns,
					 sizeof(struct bin));
	if (d->depth_area_ns < 0)
		d->depth_area_ns = 0;
	if ((a->tagging || tag != IO_EVENT_NO_TAG) &&
	    (s = tag_index_find(priv(a), tag)) >= 0)
		depth_remove(a, from, to,
			     (char *)&a->tags[s].bins[0].depth_area_ns,
			     sizeof(struct tag_bin), NULL, 0);
}

/*
 * A request in flight at a loss whose window starts at now is in the
 * depth from its issue to now, no further: a note read late (perf's LOST
 * line comes after the records it covers, so the depth was integrated
 * past now, to the device's last change: its tag's likewise) takes what
 * it added since back. Kept in the list of forgotten requests (a later
 * note may be read later still: forgotten_cut).
 */
static int forget_one(struct analysis *a, uint32_t slot, int32_t tag,
		      uint64_t d_ns, uint64_t now, int flush)
{
	struct analysis_private *p = priv(a);
	struct device_stats *d = &a->devices[slot];
	uint64_t cut = d_ns > now ? d_ns : now;
	long s;

	depth_off(a, slot, IO_EVENT_NO_TAG, cut, d->depth_since_ns);
	if ((a->tagging || tag != IO_EVENT_NO_TAG) &&
	    (s = tag_index_find(p, tag)) >= 0 &&
	    cut < a->tags[s].depth_since_ns)
		depth_remove(a, cut, a->tags[s].depth_since_ns,
			     (char *)&a->tags[s].bins[0].depth_area_ns,
			     sizeof(struct tag_bin), NULL, 0);
	/* none of its depth is left to take back or tell: kept only for
	 * the unseen completions (unseen_off_depth) */
	if (d_ns > now && !a->cfg.missing_completions)
		return 0;
	if (p->n_forgotten == p->cap_forgotten) {
		struct forgotten *more = vec_grow(p->forgotten,
						  &p->cap_forgotten,
						  p->n_forgotten + 1,
						  sizeof(*more), 64);

		if (!more)
			return -1;
		p->forgotten = more;
	}
	p->forgotten[p->n_forgotten++] = (struct forgotten){
		d_ns, now, slot, tag, flush };
	return 0;
}

/*
 * A note read late, its window starting at now: the requests earlier
 * notes forgot after now (at a later window's start, read first) were in
 * the depth to then; from now they leave it too. The list's depth ends
 * rise with it (each note cuts those past its start to it), so the walk
 * from its end stops at the first that ends by now.
 */
static void forgotten_cut(struct analysis *a, uint64_t now)
{
	struct analysis_private *p = priv(a);
	size_t i;

	for (i = p->n_forgotten; i-- > 0;) {
		struct forgotten *f = &p->forgotten[i];
		uint64_t cut = f->d_ns > now ? f->d_ns : now;

		if (f->until_ns <= f->d_ns)
			continue;	/* nothing of it in the depth */
		if (f->until_ns <= now)
			break;
		depth_off(a, f->device_slot, f->tag, cut, f->until_ns);
		f->until_ns = cut;
	}
}

struct forget_arg {
	struct analysis *a;
	uint64_t now;
	int failed;
};

static int forget_request(void *value, void *arg)
{
	struct forget_arg *f = arg;
	const struct request_state *req = value;

	if (!req->issued || req->device_slot >= f->a->n_devices)
		return 0;
	if (forget_one(f->a, req->device_slot, req->tag, req->d_ns, f->now,
		       0) < 0)
		f->failed = 1;
	return 0;
}

/* The flushes in flight at a loss: off the depth from now (forget_one). */
static int forget_flushes(struct analysis *a, size_t slot, uint64_t now)
{
	const struct flush_fifo *q = a->devices[slot].flushes;
	size_t i, k;
	int rc = 0;

	for (i = 0; i < q->len; i++) {
		k = (q->head + i) % q->cap;
		if (forget_one(a, (uint32_t)slot, q->tag[k], q->d_ns[k], now,
			       1) < 0)
			rc = -1;
	}
	return rc;
}

/* The end: each request a loss forgot, in the depth from its issue to
 * where the last note read placed its end, to cfg.on_forget (the whole
 * analysis tells, not its --per-device parts). */
static void forgotten_tell(struct analysis *a)
{
	const struct analysis_private *p = priv(a);
	size_t i;

	for (i = 0; a->cfg.on_forget && !a->part_device &&
		    i < p->n_forgotten; i++) {
		const struct forgotten *f = &p->forgotten[i];

		if (f->device_slot < a->n_devices)
			a->cfg.on_forget(a->cfg.forget_ctx,
					 a->devices[f->device_slot].device,
					 f->d_ns, f->until_ns);
	}
}

/*
 * Nothing in flight at now can be trusted after a loss: its completion
 * (or its issue) may be among the lost events. The depth is closed at
 * now and every bio, request and flush in flight forgotten: counted as
 * lost in flight, never timed, never left to inflate the depth.
 */
static int forget_in_flight(struct analysis *a, uint64_t now)
{
	struct analysis_private *p = priv(a);
	struct forget_arg f = { a, now, 0 };
	size_t i;

	for (i = 0; i < a->n_devices; i++) {
		struct device_stats *d = &a->devices[i];

		/* a note past the last record (perf's LOST after the last
		 * block line): what was in flight is the depth's to the
		 * note if a record comes after it, else only to that
		 * record (loss_tail_off, at the end) */
		if (!d->tail_n && now > a->last_ns && d->in_flight &&
		    a->n_events_all) {
			d->tail_n = d->in_flight;
			d->tail_from_ns = a->last_ns;
			d->tail_to_ns = now;
		}
		depth_change(a, d, now, 0);
		d->lost_in_flight += d->in_flight;
		d->in_flight = 0;
		memset(d->requests, 0, sizeof(d->requests));
		if (d->flushes) {
			if (forget_flushes(a, i, now) < 0)
				f.failed = 1;
			d->flushes->len = 0;
		}
		d->has_last_issue = 0;	/* a seek across it is unknown */
	}
	for (i = 0; i < a->n_tags; i++) {
		tag_depth_change(a, a->tags[i].id, now, 0);
		a->tags[i].in_flight = 0;
	}
	ioset_filter(&p->bios, forget_bio, a);
	ioset_filter(&p->requests, forget_request, &f);
	p->bios_after_sweep = p->requests_after_sweep = 0;
	return f.failed ? -1 : 0;
}

/* A loss window into the list: merged with the last where they meet. */
static int loss_window_add(struct analysis *a, const struct loss_window *wn)
{
	struct loss_window *last = a->n_loss ? &a->loss[a->n_loss - 1] : NULL;
	struct loss_window copy = *wn;
	const struct loss_window *w = &copy;

	/* with -x, a loss's events count in the window where it began, so
	 * that -x halves add up to the whole (both counted it: "LOST 2"
	 * merged where the whole lost 1); its time is shaded in both */
	if (!in_time_range(a, copy.from_ns))
		copy.events = 0;
	a->lost_events += w->events;
	if (last && !last->inferred && w->from_ns <= last->to_ns &&
	    w->to_ns >= last->from_ns) {
		if (w->from_ns < last->from_ns)
			last->from_ns = w->from_ns;
		if (w->to_ns > last->to_ns)
			last->to_ns = w->to_ns;
		last->events += w->events;
		last->cpu_mask |= w->cpu_mask;
		last->count_unknown |= w->count_unknown;
		last->noted_late |= w->noted_late;
		last->ended_cpu_mask |= w->ended_cpu_mask;
		return 0;
	}
	return loss_window_append(a, w);
}

/* Events were lost in w (noted at now): forget, and stop timing to its end. */
static int loss_begins(struct analysis *a, const struct loss_window *w,
		       uint64_t now)
{
	size_t i;

	if (loss_window_add(a, w) < 0)
		return -1;
	forgotten_cut(a, now);
	if (forget_in_flight(a, now) < 0)
		return -1;
	if (w->to_ns > now && (!a->in_loss || w->to_ns > a->loss_until_ns)) {
		a->in_loss = 1;
		a->loss_until_ns = w->to_ns;
	}
	for (i = 0; i < a->n_parts; i++)
		if (loss_begins(&a->parts[i], w, now) < 0)
			return -1;
	return 0;
}

/* Each device's own analysis counts an unlocated loss too. */
static void loss_unlocated_to_parts(struct analysis *a,
				    const struct lossnote *n)
{
	size_t i;

	for (i = 0; i < a->n_parts; i++) {
		a->parts[i].lost_unlocated += n->count_known ? n->count : 1;
		a->parts[i].lost_events += n->count_known ? n->count : 0;
	}
}

/* 1 when n is one of the last notes read (another device's copy). */
static int note_seen(struct analysis_private *p, const struct lossnote *n)
{
	size_t i, len = sizeof(p->recent_notes) / sizeof(p->recent_notes[0]);

	for (i = 0; i < p->n_recent_notes && i < len; i++) {
		const struct lossnote *r = &p->recent_notes[i];

		if (r->cpu == n->cpu && r->t0_ns == n->t0_ns &&
		    r->t1_ns == n->t1_ns && r->count == n->count &&
		    r->count_known == n->count_known)
			return 1;
	}
	p->recent_notes[p->n_recent_notes++ % len] = *n;
	return 0;
}


/* A MESSAGE note that is an account note (account.h): the kernel's
 * counts of its device, kept with the device's stats. */
int account_note(struct analysis *a, const struct io_event *ev,
			struct iow_error *err)
{
	struct device_stats *d;
	struct acctnote n;
	const char *text;
	size_t len, slot;

	if (blk_action_code(ev->action) != BLK_TN_MESSAGE ||
	    !device_wanted(a, ev->device))
		return 0;
	feed_note_text(ev, &text);
	len = text ? ev->pdu_len - (size_t)((const unsigned char *)text -
					    ev->pdu) : 0;
	if (!acctnote_parse(ev->action, text, len, &n))
		return 0;
	d = device_get(a, ev->device, &slot);
	if (!d)
		return iow_fail(err, "out of memory");
	d->account = n;
	d->has_account = 1;
	return 0;
}

void analysis_account_counts(const struct device_stats *d,
			     uint64_t trace[N_ACCT])
{
	trace[ACCT_READ] = d->ios[OP_READ];
	/* the kernel counts a zone command and a write-zeroes as writes
	 * (op_is_write) */
	trace[ACCT_WRITE] = d->ios[OP_WRITE] + d->dataless_writes +
			    d->ios[OP_ZONE] + d->ios[OP_WRITE_ZEROES];
	trace[ACCT_DISCARD] = d->ios[OP_DISCARD];
	trace[ACCT_FLUSH] = d->ios[OP_FLUSH];
}

void analysis_account(const struct analysis *a, const struct device_stats *d,
		      struct account *acc)
{
	uint64_t trace[N_ACCT];
	uint64_t in_windows = a->lost_events > a->lost_unlocated ?
			      a->lost_events - a->lost_unlocated : 0;

	analysis_account_counts(d, trace);
	account_compare(&d->account, trace, in_windows, d->orphan_requests,
			acc);
}

/* A MESSAGE note of the records a reader dropped as exact repeats
 * (blocktp.h's "iowatcher: N duplicate records ignored"). */
static void duplicate_note(struct analysis *a, const struct io_event *ev)
{
	const char *text, *p, *end;
	size_t lead = strlen(BLOCKTP_DUP_LEAD);
	uint64_t n;

	feed_note_text(ev, &text);
	if (!text)
		return;
	end = text + (ev->pdu_len - (size_t)((const unsigned char *)text -
					     ev->pdu));
	while (end > text && !end[-1])
		end--;
	if ((size_t)(end - text) <= lead ||
	    strncmp(text, BLOCKTP_DUP_LEAD, lead))
		return;
	p = text + lead;
	if (note_read_number(&p, end, &n) == 0 &&
	    (size_t)(end - p) == strlen(BLOCKTP_DUP_TAIL) &&
	    !strncmp(p, BLOCKTP_DUP_TAIL, (size_t)(end - p))) {
		a->duplicate_records += n;
		/* the reader's own note, not the trace's */
		if (a->n_notes)
			a->n_notes--;
	}
}

/*
 * A loss note no recorder writes: a window that ends before it begins
 * (its length would wrap to 584 years), times past 2^62 ns, or more
 * events lost than 2^53 (a kernel losing ten million a second would
 * need 28 years).
 */
static int loss_note_impossible(const struct lossnote *n,
				const struct io_event *ev, struct iow_error *err)
{
	const char *what = NULL;

	if (n->t0_ns && n->t1_ns < n->t0_ns)
		what = "its window ends before it begins";
	else if (n->t0_ns >= ANALYSIS_TIME_LIMIT_NS ||
		 n->t1_ns >= ANALYSIS_TIME_LIMIT_NS)
		what = "its times are past 2^62 ns (146 years)";
	else if (n->count_known && n->count > 1ull << 53)
		what = "its count of lost events is past 2^53";
	if (!what)
		return 0;
	return iow_fail(err, "event %llu: a loss note of cpu %u, from %llu to %llu ns, %llu events: %s: the trace is damaged",
			(unsigned long long)ev->index, n->cpu,
			(unsigned long long)n->t0_ns,
			(unsigned long long)n->t1_ns,
			(unsigned long long)n->count, what);
}

/*
 * A MESSAGE note that is a loss note (lossnote.h). Its time is the
 * window's start; with the start unknown (T0 0), its end, the window
 * then running from the trace's start.
 */
int loss_note(struct analysis *a, const struct io_event *ev,
		     struct iow_error *err)
{
	struct loss_window w = { 0 };
	struct lossnote n;
	const char *text;
	size_t len;
	int kind;

	if (blk_action_code(ev->action) != BLK_TN_MESSAGE)
		return 0;
	feed_note_text(ev, &text);
	/* the payload from the text on (past a cgroup id), its NUL too */
	len = text ? ev->pdu_len - (size_t)((const unsigned char *)text -
					    ev->pdu) : 0;
	kind = lossnote_parse(ev->action, text, len, &n);
	if (!kind) {
		duplicate_note(a, ev);
		return 0;
	}
	if (note_seen(priv(a), &n))
		return 0;
	if (loss_note_impossible(&n, ev, err) < 0)
		return -1;
	if (!n.t0_ns) {
		/* where and when are unknown: counted, no window (it would
		 * be the whole trace); the finish takes its toll off the
		 * depth */
		a->lost_unlocated += n.count_known ? n.count : 1;
		a->lost_events += n.count_known ? n.count : 0;
		loss_unlocated_to_parts(a, &n);
		return 0;
	}
	w.from_ns = ev->time_ns;
	w.to_ns = n.t1_ns - n.t0_ns > UINT64_MAX - w.from_ns ?
		  UINT64_MAX : w.from_ns + (n.t1_ns - n.t0_ns);
	w.events = n.count_known ? n.count : 0;
	w.count_unknown = !n.count_known;
	w.cpu_mask = 1ull << (n.cpu < 63 ? n.cpu : 63);
	if (kind == LOSSNOTE_FILE_END)
		w.ended_cpu_mask = w.cpu_mask;
	/* events after its start were counted before it was known */
	w.noted_late = a->n_events_all && w.from_ns < a->last_ns;
	if (loss_begins(a, &w, ev->time_ns) < 0)
		return iow_fail(err, "out of memory at event %llu",
				(unsigned long long)ev->index);
	return 0;
}

/*
 * An I/O action inside a loss window: what happened is counted (queued,
 * merged, issued, completed with its bytes), but nothing is timed and
 * nothing enters the I/Os in flight, whose other events may be lost.
 */
int add_io_in_loss(struct analysis *a, const struct io_event *ev,
			  int counted, struct iow_error *err)
{
	unsigned code = blk_action_code(ev->action);
	struct device_stats *d;
	int dir = direction(ev), op;
	size_t slot;

	d = device_get(a, ev->device, &slot);
	if (!d)
		return iow_fail(err, "out of memory");
	d->has_io = 1;
	if (!counted)
		return 0;
	switch (code) {
	case BLK_TA_QUEUE:
		d->queued[dir]++;
		break;
	case BLK_TA_BACKMERGE:
	case BLK_TA_FRONTMERGE:
		d->merges[dir]++;
		break;
	case BLK_TA_ISSUE:
		d->issued[dir]++;
		break;
	case BLK_TA_COMPLETE:
		op = completion_op(ev);
		if (op < 0) {
			count_empty(d, ev);
			break;
		}
		if (count_completion(a, d, ev, op, ev->tag,
				     bin_for(a, ev->time_ns)) < 0)
			return iow_fail(err, "out of memory at event %llu",
					(unsigned long long)ev->index);
		bare_row(a, ev, 1, priv(a)->rows_told);
		break;
	}
	/* where the I/O went is known all the same */
	if (code == a->cfg.iomap_action &&
	    (code == BLK_TA_QUEUE || code == BLK_TA_ISSUE ||
	     (code == BLK_TA_COMPLETE && ev->bytes)))
		map_issue_or_queue(a, slot, ev);
	return 0;
}

struct oldest_arg {
	struct forgotten *reqs;
	size_t n, cap;
	uint64_t until_ns;
};

static int collect_issued(void *value, void *arg)
{
	struct oldest_arg *o = arg;
	const struct request_state *req = value;

	if (req->issued && o->n < o->cap)
		o->reqs[o->n++] = (struct forgotten){
			req->d_ns, o->until_ns, req->device_slot, req->tag,
			0 };
	return 1;
}

static int cmp_d_ns(const void *pa, const void *pb)
{
	const struct forgotten *a = pa, *b = pb;

	return (a->d_ns > b->d_ns) - (a->d_ns < b->d_ns);
}

/*
 * Completions the kernel made unseen (unlocated losses) leave their
 * requests in flight to the end, or to the next loss window, which
 * forgets them: of the requests in flight at the end and those the
 * windows forgot, the longest in flight (issued first), as many as the
 * notes counted, are taken as theirs (a completion pairs with the newest
 * then, so those are never consumed), and come off the depth from their
 * issue to the end or the window. Their tags' depth too.
 */
void unseen_off_depth(struct analysis *a)
{
	struct analysis_private *p = priv(a);
	struct oldest_arg o = { NULL, 0, 0, a->last_ns };
	size_t i, n_forgotten = a->cfg.missing_completions ? p->n_forgotten
							     : 0;

	if (!a->lost_unlocated || !(p->requests.len + n_forgotten))
		return;
	o.cap = p->requests.len + n_forgotten;
	o.reqs = malloc(o.cap * sizeof(*o.reqs));
	if (!o.reqs)
		return;	/* the depth then keeps them, as without notes */
	ioset_filter(&p->requests, collect_issued, &o);
	/* the requests the windows forgot (not flushes: a completion the
	 * kernel made unseen is a request's) */
	for (i = 0; i < n_forgotten; i++)
		if (!p->forgotten[i].flush)
			o.reqs[o.n++] = p->forgotten[i];
	qsort(o.reqs, o.n, sizeof(*o.reqs), cmp_d_ns);
	for (i = 0; i < o.n && i < a->lost_unlocated; i++) {
		const struct forgotten *req = &o.reqs[i];
		struct device_stats *d = &a->devices[req->device_slot];
		long s;

		d->depth_area_ns -= depth_remove(
			a, req->d_ns, req->until_ns, (char *)d->depth_bins,
			sizeof(double), (char *)&a->bins[0].depth_area_ns,
			sizeof(struct bin));
		d->unseen_completions++;
		if ((a->tagging || req->tag != IO_EVENT_NO_TAG) &&
		    (s = tag_index_find(p, req->tag)) >= 0)
			depth_remove(a, req->d_ns, req->until_ns,
				     (char *)&a->tags[s].bins[0].depth_area_ns,
				     sizeof(struct tag_bin), NULL, 0);
	}
	free(o.reqs);
}

static int cmp_loss_from(const void *pa, const void *pb)
{
	const struct loss_window *a = pa, *b = pb;

	return (a->from_ns > b->from_ns) - (a->from_ns < b->from_ns);
}

/* Recorded windows first, then inferred ones by device and rule; each
 * class in time order. */
static int cmp_loss_class(const void *pa, const void *pb)
{
	const struct loss_window *a = pa, *b = pb;

	if (a->inferred != b->inferred)
		return a->inferred - b->inferred;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->hole_kind != b->hole_kind)
		return a->hole_kind - b->hole_kind;
	return cmp_loss_from(pa, pb);
}

static int same_class(const struct loss_window *a,
		      const struct loss_window *b)
{
	return a->inferred == b->inferred && a->device == b->device &&
	       a->hole_kind == b->hole_kind;
}

/*
 * At the end: the windows in time order, overlapping ones merged, and
 * the time each bin (and the whole) spent in them, within the trace's
 * span and -x's window.
 */
/*
 * The end: a device's requests a loss note past the last record forgot
 * were counted in flight up to the note. If no record came after it,
 * the trace ended first: their time past its end leaves the depth's
 * area and its bins (the window is clamped to the trace as well), so
 * that no depth is counted past the trace's end (issue #40's finding:
 * a mean depth of 16.6 over a 27 us span).
 */
static void loss_tail_off(struct analysis *a)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < a->n_devices; i++) {
		struct device_stats *d = &a->devices[i];

		/* each forgotten request's part, as the holes' rules take a
		 * lost request's out (depth_remove) */
		for (k = 0; a->last_ns <= d->tail_from_ns && k < d->tail_n; k++)
			d->depth_area_ns -= depth_remove(
				a, d->tail_from_ns, d->tail_to_ns,
				(char *)d->depth_bins, sizeof(double),
				(char *)&a->bins[0].depth_area_ns,
				sizeof(struct bin));
		if (d->depth_area_ns < 0)
			d->depth_area_ns = 0;
		d->tail_n = 0;
	}
}

void loss_finish(struct analysis *a)
{
	uint64_t lo = a->cfg.has_time_range ? a->cfg.time_min_ns : a->first_ns;
	uint64_t hi = a->last_ns;
	size_t i, n = 0;

	forgotten_tell(a);
	loss_tail_off(a);
	if (!a->n_loss)
		return;
	/* a file that ends early loses to the trace's end, not past it (its
	 * note's T1 may be a note's time, not an I/O's) */
	for (i = 0; i < a->n_loss; i++)
		if (a->loss[i].ended_cpu_mask && a->loss[i].to_ns > a->last_ns)
			a->loss[i].to_ns = a->last_ns > a->loss[i].from_ns ?
					   a->last_ns : a->loss[i].from_ns;
	for (i = 0; i < a->n_loss; i++)
		if (a->loss[i].inferred && a->loss[i].to_ns > a->last_ns)
			a->loss[i].to_ns = a->last_ns > a->loss[i].from_ns ?
					   a->last_ns : a->loss[i].from_ns;
	qsort(a->loss, a->n_loss, sizeof(*a->loss), cmp_loss_class);
	for (i = 0; i < a->n_loss; i++) {
		struct loss_window *w = &a->loss[i], *last = n ? &a->loss[n - 1]
								: NULL;

		if (last && same_class(w, last) && w->from_ns <= last->to_ns) {
			if (w->to_ns > last->to_ns)
				last->to_ns = w->to_ns;
			last->events += w->events;
			last->cpu_mask |= w->cpu_mask;
			last->count_unknown |= w->count_unknown;
			last->noted_late |= w->noted_late;
			last->ended_cpu_mask |= w->ended_cpu_mask;
			last->requests += w->requests;
			continue;
		}
		a->loss[n++] = *w;
	}
	a->n_loss = n;
	/* every output reads them in time order */
	qsort(a->loss, a->n_loss, sizeof(*a->loss), cmp_loss_from);
	if (a->cfg.has_time_range && hi > a->cfg.time_max_ns)
		hi = a->cfg.time_max_ns;
	/* with -x, the windows that do not meet it are not this view's */
	if (a->cfg.has_time_range) {
		for (i = 0, n = 0; i < a->n_loss; i++)
			if (a->loss[i].to_ns > a->cfg.time_min_ns &&
			    a->loss[i].from_ns < a->cfg.time_max_ns)
				a->loss[n++] = a->loss[i];
		a->n_loss = n;
	}
	a->lossy_ns = 0;
	for (i = 0; i < a->n_loss; i++) {
		uint64_t from = a->loss[i].from_ns > lo ? a->loss[i].from_ns : lo;
		uint64_t to = a->loss[i].to_ns < hi ? a->loss[i].to_ns : hi;

		/* an inferred window's time stays in the depth's mean: only
		 * its lost requests left the depth */
		if (a->loss[i].inferred)
			continue;

		while (from < to && a->n_bins) {
			uint64_t end;
			size_t bin = bin_part(a, from, to, &end);

			if (bin >= a->n_bins)
				break;
			a->bins[bin].lossy_ns += end - from;
			a->lossy_ns += end - from;
			from = end;
		}
	}
}

static double since_start(const struct analysis *a, uint64_t ns)
{
	return ns > a->first_ns ? (double)(ns - a->first_ns) / 1e9 : 0;
}

int analysis_check_loss(const struct analysis *a, const char *name,
			struct iow_error *err)
{
	uint64_t span = a->last_ns > a->first_ns ? a->last_ns - a->first_ns : 0;
	uint64_t room = ANALYSIS_LOSS_PAST_END_NS;
	size_t i;

	/* events lost to the end of a recording leave nothing after them:
	 * room for that, up to ten times what the trace holds */
	if (span < UINT64_MAX / 10 && span * 10 > room)
		room = span * 10;
	for (i = 0; i < a->n_loss; i++) {
		const struct loss_window *w = &a->loss[i];

		if (w->to_ns < w->from_ns ||
		    (w->to_ns > a->last_ns && w->to_ns - a->last_ns > room))
			return iow_fail(err, "%s: loss window %zu (cpu mask %#llx, %llu events) runs from %.6f to %.6f s, past the trace's last event at %.6f s by more than a second and ten times the trace's length: the trace is damaged",
					name, i + 1,
					(unsigned long long)w->cpu_mask,
					(unsigned long long)w->events,
					since_start(a, w->from_ns),
					since_start(a, w->to_ns),
					since_start(a, a->last_ns));
	}
	return 0;
}
