/*
 * analysis.c: the one pass from events to statistics and series (see
 * analysis.h for the model). Bios and requests in flight live in ioset
 * maps; everything else is per-device accumulators, the trace's bins, the
 * per-tag bins and the sparse offset-by-time map.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base/bigmem.h"
#include "base/vec.h"
#include "reader/blktrace.h"
#include "blkparse_feed.h"
#include "histogram.h"
#include "ioset.h"
#include "reader/account.h"
#include "reader/lossnote.h"
#include "base/u64map.h"
#include "analysis_int.h"

/* The I/O map's narrowest column: a 10 ms trace gets 1000 of them. */
#define MAP_FIRST_WIDTH_NS	10000ull
#define STALE_NS		(120ull * 1000000000ull)
#define SWEEP_MIN_ENTRIES	65536

/* The helpers its parts call (analysis_hub.h), handed to them in the
 * table below: the parts name no function of this file. */
static void bare_row(struct analysis *a, const struct io_event *ev,
		     int counted, uint64_t rows_before);
static int count_completion(struct analysis *a, struct device_stats *d,
			    const struct io_event *ev, int op, int32_t tag,
			    size_t bin);
static void depth_change(struct analysis *a, struct device_stats *d,
			 uint64_t t, int delta);
static struct device_stats *device_get(struct analysis *a, uint32_t device,
				       size_t *slot);
static int device_wanted(const struct analysis *a, uint32_t device);
static void map_issue_or_queue(struct analysis *a, size_t slot,
			       const struct io_event *ev);
static void tag_depth_change(struct analysis *a, int32_t tag, uint64_t t,
			     int delta);
static long tag_index_find(const struct analysis_private *p, int32_t id);
static int flush_held_apply(struct analysis *a);

static const struct analysis_hub hub = {
	.bare_row = bare_row,
	.count_completion = count_completion,
	.depth_change = depth_change,
	.device_get = device_get,
	.device_wanted = device_wanted,
	.map_issue_or_queue = map_issue_or_queue,
	.tag_depth_change = tag_depth_change,
	.flush_held_apply = flush_held_apply,
	.tag_index_find = tag_index_find,
};

static long tag_slot(struct analysis *a, int32_t id);

#include "analysis_latency.h"

struct tag_index_entry {
	int32_t id;
	uint32_t slot_plus_one;
};

int analysis_init(struct analysis *a, const struct analysis_config *cfg,
		  struct iow_error *err)
{
	struct analysis_private *p;

	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	a->filtered = cfg->n_only_devices || cfg->per_device ||
		      cfg->has_time_range || cfg->has_offset_range;
	if (!a->cfg.iomap_action)
		a->cfg.iomap_action = BLK_TA_ISSUE;
	a->bin_width_ns = cfg->bin_width_ns ? cfg->bin_width_ns :
			  cfg->first_bin_ns ? cfg->first_bin_ns : FIRST_BIN_NS;
	a->bin_origin_ns = cfg->has_time_range ? cfg->time_min_ns : 0;
	a->cap_bins = cfg->bin_width_ns ? ANALYSIS_MAX_FIXED_BINS :
		      cfg->max_bins ? cfg->max_bins : ANALYSIS_MAX_BINS;
	a->next_coarsen = 2;
	a->map_width_ns = MAP_FIRST_WIDTH_NS;
	a->map_next_coarsen = 2;
	a->cached_bin_start = UINT64_MAX;
	a->cached_col_start = UINT64_MAX;
	a->first_ns = UINT64_MAX;
	a->bins = calloc(a->cap_bins, sizeof(*a->bins));
	p = calloc(1, sizeof(*p));
	a->private = p;
	if (!a->bins || !p ||
	    ioset_init(&p->bios, sizeof(struct bio_state)) < 0 ||
	    ioset_init(&p->requests, sizeof(struct request_state)) < 0)
		return iow_fail(err, "out of memory");
	p->hub = &hub;
	return 0;
}

/* ---- devices and tags ---- */

static struct device_stats *device_find_or_add(struct analysis *a,
					       uint32_t device, size_t *slot);

/* The device's stats (made at its first event); most events are of the
 * device of the one before, looked up without a call. */
static struct device_stats *device_get(struct analysis *a, uint32_t device,
				       size_t *slot)
{
	struct analysis_private *p = priv(a);

	if (p->last_device < a->n_devices &&
	    a->devices[p->last_device].device == device) {
		*slot = p->last_device;
		return &a->devices[p->last_device];
	}
	return device_find_or_add(a, device, slot);
}

static __attribute__((noinline)) struct device_stats *
device_find_or_add(struct analysis *a, uint32_t device, size_t *slot)
{
	struct analysis_private *p = priv(a);
	struct device_stats *more;
	struct iomap *maps;
	size_t i;

	for (i = 0; i < a->n_devices; i++)
		if (a->devices[i].device == device) {
			p->last_device = *slot = i;
			return &a->devices[i];
		}
	more = realloc(a->devices, (a->n_devices + 1) * sizeof(*more));
	if (!more)
		return NULL;
	a->devices = more;
	maps = realloc(a->iomaps, (a->n_devices + 1) * sizeof(*maps));
	if (!maps)
		return NULL;
	a->iomaps = maps;
	memset(&a->iomaps[a->n_devices], 0, sizeof(*maps));
	if (a->cfg.has_offset_range)
		iomap_fix_window(&a->iomaps[a->n_devices],
				 a->cfg.offset_min / 512,
				 (a->cfg.offset_max - a->cfg.offset_min) / 512 /
					 IOMAP_ROWS + 1);
	memset(&a->devices[a->n_devices], 0, sizeof(*more));
	a->devices[a->n_devices].device = device;
	a->devices[a->n_devices].depth_bins = calloc(a->cap_bins,
						     sizeof(double));
	a->devices[a->n_devices].seek_bins = calloc(a->cap_bins,
						    sizeof(uint32_t));
	if (!a->devices[a->n_devices].depth_bins ||
	    !a->devices[a->n_devices].seek_bins) {
		analysis_device_free(&a->devices[a->n_devices]);
		return NULL;
	}
	p->last_device = *slot = a->n_devices;
	return &a->devices[a->n_devices++];
}

static uint64_t tag_hash(int32_t id)
{
	return ((uint64_t)(uint32_t)id * 0x9e3779b97f4a7c15ull) >> 17;
}

static int tag_index_put(struct analysis_private *p, int32_t id, size_t slot)
{
	size_t i, mask;

	if ((slot + 1) * 2 > p->tag_index_cap) {
		size_t old_cap = p->tag_index_cap, j;
		struct tag_index_entry *old = p->tag_index;

		p->tag_index_cap = old_cap ? old_cap * 2 : 64;
		p->tag_index = calloc(p->tag_index_cap, sizeof(*old));
		if (!p->tag_index)
			return -1;
		for (j = 0; j < old_cap; j++)
			if (old[j].slot_plus_one)
				tag_index_put(p, old[j].id,
					      old[j].slot_plus_one - 1);
		free(old);
	}
	mask = p->tag_index_cap - 1;
	for (i = tag_hash(id) & mask; p->tag_index[i].slot_plus_one;
	     i = (i + 1) & mask)
		;
	p->tag_index[i].id = id;
	p->tag_index[i].slot_plus_one = (uint32_t)slot + 1;
	return 0;
}

static long tag_index_find(const struct analysis_private *p, int32_t id)
{
	size_t i, mask = p->tag_index_cap - 1;

	if (!p->tag_index_cap)
		return -1;
	for (i = tag_hash(id) & mask; p->tag_index[i].slot_plus_one;
	     i = (i + 1) & mask)
		if (p->tag_index[i].id == id)
			return (long)p->tag_index[i].slot_plus_one - 1;
	return -1;
}

const char *analysis_tag_label(const struct analysis *a, int32_t id)
{
	long s = tag_index_find(priv(a), id);

	return s >= 0 ? a->tags[s].label : NULL;
}

/* Slot of tag id in a->tags, created when new; -1 when out of memory. */
static long tag_slot(struct analysis *a, int32_t id)
{
	long slot = tag_index_find(priv(a), id);
	struct tag_stats *more, *t;

	if (slot >= 0)
		return slot;
	more = realloc(a->tags, (a->n_tags + 1) * sizeof(*more));
	if (!more)
		return -1;
	a->tags = more;
	t = &a->tags[a->n_tags];
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->bins = calloc(a->cap_bins, sizeof(*t->bins));
	if (!t->bins || tag_index_put(priv(a), id, a->n_tags) < 0) {
		free(t->bins);
		return -1;
	}
	return (long)a->n_tags++;
}

void analysis_enable_tags(struct analysis *a)
{
	size_t i;

	a->tagging = 1;
	for (i = 0; i < a->n_parts; i++)
		a->parts[i].tagging = 1;
}

/* The analysis of ev's device alone, made at its first event with the
 * tag labels known so far. */
static struct analysis *device_part(struct analysis *a, uint32_t device,
				    struct iow_error *err)
{
	struct analysis_config cfg = a->cfg;
	struct analysis *more, *part;
	size_t i;

	for (i = 0; i < a->n_parts; i++)
		if (a->parts[i].part_device == device)
			return &a->parts[i];
	more = realloc(a->parts, (a->n_parts + 1) * sizeof(*more));
	if (!more) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	a->parts = more;
	part = &a->parts[a->n_parts];
	cfg.per_device = 0;
	cfg.n_only_devices = 0;
	/* the whole analysis tells of each sample, row, forgotten request
	 * and depth taken out once: a part telling them too doubled the
	 * events log's rows and Perfetto's MB/s under --per-device */
	cfg.on_sample = NULL;
	cfg.on_row = NULL;
	cfg.on_forget = NULL;
	cfg.on_depth_removed = NULL;
	cfg.on_map = NULL;
	if (analysis_init(part, &cfg, err) < 0) {
		analysis_free(part);
		return NULL;
	}
	a->n_parts++;
	part->part_device = device;
	part->tagging = a->tagging;
	if (a->n_loss) {
		/* what was lost before its first event is its loss too */
		part->loss = malloc(a->n_loss * sizeof(*part->loss));
		if (!part->loss) {
			iow_fail(err, "out of memory");
			return NULL;
		}
		memcpy(part->loss, a->loss, a->n_loss * sizeof(*a->loss));
		part->n_loss = part->cap_loss = a->n_loss;
		part->lost_events = a->lost_events;
		part->in_loss = a->in_loss;
		part->loss_until_ns = a->loss_until_ns;
	}
	for (i = 0; i < a->n_tags; i++)
		if (a->tags[i].label &&
		    analysis_set_tag_label(part, a->tags[i].id,
					   a->tags[i].label, err) < 0)
			return NULL;
	return part;
}

int analysis_set_tag_label(struct analysis *a, int32_t tag, const char *label,
			   struct iow_error *err)
{
	long slot = tag_slot(a, tag);
	char *copy;

	size_t i;

	if (slot < 0 || !(copy = strdup(label)))
		return iow_fail(err, "out of memory");
	free(a->tags[slot].label);
	a->tags[slot].label = copy;
	for (i = 0; i < a->n_parts; i++)
		if (analysis_set_tag_label(&a->parts[i], tag, label, err) < 0)
			return -1;
	return 0;
}

/* ---- the I/O map ---- */

/* The map column of t (t >= origin), widening the columns as needed. */
static size_t map_col_for(struct analysis *a, uint64_t t)
{
	uint64_t col;
	size_t i;

	/* events come in time order: most fall in the last one's column */
	if (t >= a->cached_col_start &&
	    t - a->cached_col_start < a->map_width_ns)
		return a->cached_col;
	col = (t - a->bin_origin_ns) / a->map_width_ns;
	while (col >= IOMAP_COLS) {
		unsigned f = a->map_next_coarsen;

		for (i = 0; i < a->n_devices; i++)
			iomap_merge_cols(&a->iomaps[i], f);
		a->map_width_ns *= f;
		a->map_cols = (a->map_cols + f - 1) / f;
		a->map_next_coarsen = f == 2 ? 5 : 2;
		col = (t - a->bin_origin_ns) / a->map_width_ns;
	}
	if (col >= a->map_cols)
		a->map_cols = (size_t)col + 1;
	a->cached_col = (size_t)col;
	a->cached_col_start = a->bin_origin_ns + col * a->map_width_ns;
	return (size_t)col;
}

static void map_io(struct analysis *a, size_t slot,
		   const struct io_event *ev, long tag_slot_idx)
{
	if (!ev->bytes || a->cfg.stats_only || !in_time_range(a, ev->time_ns))
		return;
	/* a zone management command wrote none of the zone it names */
	if (ev->action_hi & BLK_TC2_ZONE_MGMT)
		return;
	/* The time series reach every mapped I/O, as when map columns
	 * were bins (CSV rows and graphs end there, not earlier). */
	bin_for(a, ev->time_ns);
	iomap_add(&a->iomaps[slot], map_col_for(a, ev->time_ns), ev->sector,
		  blk_is_write(ev->action), tag_slot_idx, ev->bytes);
	if (a->cfg.on_map)
		a->cfg.on_map(a->cfg.map_ctx, a, slot, ev, tag_slot_idx);
}

/* ---- queue depth ---- */

/* Add depth * time over [from, to), clipped to the range, into bins. */
/*
 * Add depth * time over [from, to), clipped to the range, into per-bin
 * areas: those at sink, stride bytes apart, and those at sink2 (if not
 * NULL). Returns the whole area added.
 */
static double depth_integrate(struct analysis *a, uint64_t depth,
			      uint64_t from, uint64_t to, char *sink,
			      size_t stride, char *sink2, size_t stride2)
{
	double total;

	if (a->cfg.has_time_range) {
		if (from < a->cfg.time_min_ns)
			from = a->cfg.time_min_ns;
		if (to > a->cfg.time_max_ns)
			to = a->cfg.time_max_ns;
	}
	if (!depth || to <= from)
		return 0;
	total = (double)depth * (double)(to - from);
	bin_for(a, to - 1);
	/* most often from lies in to's bin too (bin_for keeps its start) */
	if (from >= a->cached_bin_start) {
		*(double *)(sink + a->cached_bin * stride) += total;
		if (sink2)
			*(double *)(sink2 + a->cached_bin * stride2) += total;
		return total;
	}
	while (from < to) {
		uint64_t end;
		size_t bin = bin_part(a, from, to, &end);
		double part = (double)depth * (double)(end - from);

		*(double *)(sink + bin * stride) += part;
		if (sink2)
			*(double *)(sink2 + bin * stride2) += part;
		from = end;
	}
	return total;
}

/* A tag's requests in flight change at t. */
static void tag_depth_change(struct analysis *a, int32_t tag, uint64_t t,
			     int delta)
{
	long s;
	struct tag_stats *ts;

	if (!a->tagging && tag == IO_EVENT_NO_TAG)
		return;
	if ((s = tag_slot(a, tag)) < 0)
		return;
	ts = &a->tags[s];
	if (t > ts->depth_since_ns) {
		depth_integrate(a, ts->in_flight, ts->depth_since_ns, t,
				(char *)&ts->bins[0].depth_area_ns,
				sizeof(struct tag_bin), NULL, 0);
		ts->depth_since_ns = t;
	}
	if (delta < 0 && ts->in_flight == 0)
		return;
	ts->in_flight += delta;
}

/*
 * Inlined where it is called here (an issue, a completion: twice a
 * request), as before the queue bound's bookkeeping made it too big for
 * the compiler to inline by itself; the hub keeps its address.
 */
static inline __attribute__((always_inline)) void
depth_change(struct analysis *a, struct device_stats *d, uint64_t t,
	     int delta)
{
	if (t > d->depth_since_ns) {
		d->depth_area_ns += depth_integrate(
			a, d->in_flight, d->depth_since_ns, t,
			(char *)d->depth_bins, sizeof(double),
			(char *)&a->bins[0].depth_area_ns, sizeof(struct bin));
		d->depth_since_ns = t;
	}
	if (delta < 0 && d->in_flight == 0)
		return;
	d->in_flight += delta;
	/* the queue's bound, from stretches that drained (analysis_holes.c) */
	if (d->in_flight > d->q_epoch_max) {
		d->q_epoch_max = d->in_flight;
	} else if (!d->in_flight) {
		if (d->q_epoch_max > d->q_bound)
			d->q_bound = d->q_epoch_max;
		d->q_drains++;
		d->q_epoch_max = 0;
	}
}

/* ---- events ---- */

/*
 * A version-2 zone command the bio and request stages do not follow: a
 * zone management command moves no data (its bytes, where the kernel
 * fills them, are the zone's), and a zone append's completion is at the
 * sector it landed at, not at the zone's start where it was queued and
 * issued. Both count at their completion alone.
 */
static int is_zone_command(const struct io_event *ev)
{
	return (ev->action_hi & (BLK_TC2_ZONE_MGMT | BLK_TC2_ZONE_APPEND)) != 0;
}

/* A flush request: no data and the FLUSH category (D FN, C FN 0). */
static int is_flush_request(const struct io_event *ev)
{
	return !ev->bytes && analysis_has_category(ev, BLK_TC_FLUSH);
}

/* The oldest bio at (device, op, sector) in stage, fitting in max_bytes. */
static struct bio_state *bio_at(struct analysis_private *p, uint32_t device,
				int op, uint64_t sector, int stage,
				uint64_t max_bytes)
{
	struct bio_state *bio;

	/* the first found is the oldest (see ioset.h) */
	for (bio = ioset_find(&p->bios, device, op, sector); bio;
	     bio = ioset_next(&p->bios, bio))
		if (bio->stage == stage && bio->bytes >= 512 &&
		    bio->bytes <= max_bytes)
			return bio;
	return NULL;
}

/*
 * The bio waiting at (op, pos) a request issued by ev takes: the oldest,
 * but for one queued more than twice the device's bound before while
 * a newer one waits at its sector: that one's issue was lost, and it
 * is dropped (overlap-fio with one CPU's records of 0.374-0.417 s gone:
 * a read of sector 168 queued in it, issued unseen, left waiting; each
 * later read of 168 took the one before it, Q2D 120-200 ms for 0.01).
 */
static struct bio_state *bio_for_issue(struct analysis *a,
				       const struct device_stats *d,
				       const struct io_event *ev, int op,
				       uint64_t pos, uint64_t max_bytes)
{
	struct analysis_private *p = priv(a);
	struct bio_state *bio, *b;

	for (;;) {
		bio = bio_at(p, ev->device, op, pos, BIO_QUEUED, max_bytes);
		/* (twice the bound read without its floor first: cheaper) */
		if (!bio || bio->q_ns + 2 * d->max_lat_ns >= ev->time_ns ||
		    d->paired < HOLE_MIN_PAIRED ||
		    bio->q_ns + 2 * hole_bound(d) >= ev->time_ns)
			return bio;
		for (b = ioset_find(&p->bios, ev->device, op, pos); b;
		     b = ioset_next(&p->bios, b))
			if (b != bio && b->stage == BIO_QUEUED &&
			    b->bytes >= 512 && b->bytes <= max_bytes)
				break;
		if (!b)
			return bio;
		ioset_remove(&p->bios, bio);
	}
}

static int handle_queue(struct analysis *a, const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	int op = analysis_data_op(ev);
	struct bio_state *bio;

	/* An empty bio (a flush's) carries no data latency. */
	if (ev->bytes < 512 || is_zone_command(ev))
		return 0;
	/* An older kernel queues a split's remainder again: same bio. */
	for (bio = p->any_split ? ioset_find(&p->bios, ev->device, op,
					     ev->sector) : NULL;
	     bio; bio = ioset_next(&p->bios, bio))
		if (bio->split_rest && bio->bytes == ev->bytes) {
			bio->split_rest = 0;
			return 0;
		}
	bio = ioset_add(&p->bios, ev->device, op, ev->sector);
	if (!bio)
		return -1;
	bio->q_ns = ev->time_ns;
	bio->bytes = ev->bytes;
	bio->tag = ev->tag;
	bio->cause = ev->cause;
	bio->stage = BIO_QUEUED;
	bio->preflush = analysis_has_category(ev, BLK_TC_FLUSH) != 0;
	return 0;
}

/* X S / N: the bio waiting at S goes on as [S, N) and [N, its end). */
static int handle_split(struct analysis *a, const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	int op = analysis_data_op(ev);
	struct bio_state *bio, rest;
	uint64_t rest_sector, end;

	if (feed_decode_split(ev, &rest_sector) < 0)
		return 0;
	p->any_split = 1;
	bio = bio_at(p, ev->device, op, ev->sector, BIO_QUEUED, UINT32_MAX);
	if (!bio)
		return 0;
	end = ev->sector + bio->bytes / 512;
	if (rest_sector <= ev->sector || rest_sector >= end)
		return 0;
	rest = *bio;
	bio->bytes = (uint32_t)((rest_sector - ev->sector) * 512);
	rest.bytes = (uint32_t)((end - rest_sector) * 512);
	rest.split_rest = 1;
	bio = ioset_add(&p->bios, ev->device, op, rest_sector);
	if (!bio)
		return -1;
	*bio = rest;
	return 0;
}

static int flush_push(struct device_stats *d, const struct io_event *ev)
{
	struct flush_fifo *f = d->flushes;

	if (!f && !(f = d->flushes = calloc(1, sizeof(*f))))
		return -1;
	if (f->len == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16, i;
		uint64_t *times = malloc(cap * sizeof(*times));
		int32_t *tags = malloc(cap * sizeof(*tags));
		uint32_t *pids = malloc(cap * sizeof(*pids));
		uint16_t *cpus = malloc(cap * sizeof(*cpus));

		if (!times || !tags || !pids || !cpus) {
			free(times);
			free(tags);
			free(pids);
			free(cpus);
			return -1;
		}
		for (i = 0; i < f->len; i++) {
			times[i] = f->d_ns[(f->head + i) % f->cap];
			tags[i] = f->tag[(f->head + i) % f->cap];
			pids[i] = f->pid[(f->head + i) % f->cap];
			cpus[i] = f->cpu[(f->head + i) % f->cap];
		}
		free(f->d_ns);
		free(f->tag);
		free(f->pid);
		free(f->cpu);
		f->d_ns = times;
		f->tag = tags;
		f->pid = pids;
		f->cpu = cpus;
		f->head = 0;
		f->cap = cap;
	}
	f->d_ns[(f->head + f->len) % f->cap] = ev->time_ns;
	f->tag[(f->head + f->len) % f->cap] = ev->tag;
	f->pid[(f->head + f->len) % f->cap] = ev->pid;
	f->cpu[(f->head + f->len) % f->cap] =
		(uint16_t)(ev->cpu < 65535 ? ev->cpu : 65535);
	f->len++;
	return 0;
}

/* The oldest flush in flight (or the newest); 0 when none was issued in
 * the trace. */
static int flush_pop(struct device_stats *d, uint64_t *t, int32_t *tag,
		     uint32_t *pid, int newest)
{
	struct flush_fifo *f = d->flushes;
	size_t i;

	if (!f || !f->len)
		return 0;
	i = newest ? (f->head + f->len - 1) % f->cap : f->head;
	*t = f->d_ns[i];
	*tag = f->tag[i];
	*pid = f->pid[i];
	d->flush_done_d_ns = *t;
	if (!newest)
		f->head = (f->head + 1) % f->cap;
	f->len--;
	return 1;
}

static void count_seek(struct analysis *a, struct device_stats *d,
		       const struct io_event *ev, int32_t tag)
{
	size_t bin;
	long s;

	if (!in_time_range(a, ev->time_ns) || !ev->bytes)
		return;
	if (d->has_last_issue && ev->sector != d->next_sector) {
		bin = bin_for(a, ev->time_ns);
		d->seeks++;
		a->bins[bin].seeks++;
		d->seek_bins[bin]++;
		if ((a->tagging || tag != IO_EVENT_NO_TAG) &&
		    (s = tag_slot(a, tag)) >= 0)
			a->tags[s].bins[bin].seeks++;
	}
	d->has_last_issue = 1;
	d->next_sector = ev->sector + ev->bytes / 512;
}

static int handle_issue(struct analysis *a, struct device_stats *d,
			size_t slot, const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	struct request_state *req;
	uint64_t pos = ev->sector, remaining = ev->bytes;
	int op = analysis_data_op(ev), first = 1;

	if (is_flush_request(ev)) {
		if (hole_flush_issued(a, d, ev) < 0)
			return -1;
		depth_change(a, d, ev->time_ns, +1);
		tag_depth_change(a, ev->tag, ev->time_ns, +1);
		return flush_push(d, ev);
	}
	if (ev->bytes < 512 || is_zone_command(ev))
		return 0;
	/* A requeued request is issued again: the last D counts. */
	for (req = p->any_requeue ? ioset_find(&p->requests, ev->device, op,
					       ev->sector) : NULL;
	     req; req = ioset_next(&p->requests, req))
		if (!req->issued && req->bytes == ev->bytes)
			break;
	if (!req) {
		req = ioset_add(&p->requests, ev->device, op, ev->sector);
		if (!req)
			return -1;
		req->tag = ev->tag;
		req->device_slot = (uint32_t)slot;
		d->requests[op]++;
	}
	depth_change(a, d, ev->time_ns, +1);
	d->saw_issue = 1;
	req->cpu = (uint16_t)(ev->cpu < 65535 ? ev->cpu : 65535);
	req->issued = 1;
	req->d_ns = ev->time_ns;
	req->bytes = ev->bytes;
	/* The bios this request covers, back-merged ones following on. */
	while (remaining >= 512) {
		struct bio_state *bio = bio_for_issue(a, d, ev, op, pos,
						      remaining);

		if (!bio)
			break;
		/* a flush sequence's data step: its preflush was done */
		if (first && bio->preflush && d->flushes && d->flushes->len &&
		    hole_preflush_lost(a, d, bio->q_ns, ev->time_ns) < 0)
			return -1;
		bio->stage = BIO_ISSUED;
		bio->d_ns = ev->time_ns;
		bio->split_rest = 0;
		req->has_bios = 1;
		if (first && bio->tag != IO_EVENT_NO_TAG)
			req->tag = bio->tag;
		first = 0;
		pos += bio->bytes / 512;
		remaining -= bio->bytes;
	}
	if (!req->has_bios && d->saw_queue) {
		d->unq_sector = ev->sector;
		d->unq_end = ev->sector + ev->bytes / 512;
		d->unq_ns = ev->time_ns;
	}
	tag_depth_change(a, req->tag, ev->time_ns, +1);
	count_seek(a, d, ev, req->tag);
	/* The queue's bound is applied at the trace's end only
	 * (holes_finish), after a recorder's note of completions it did
	 * not see has taken its requests: applied here, as the trace
	 * streams, it took those first, and the JSON's unseen_completions
	 * fell short of the requests the trace left incomplete (a fresh
	 * clone's t_record_loss, t_live and t_cut). */
	return 0;
}

static int count_completion(struct analysis *a, struct device_stats *d,
			    const struct io_event *ev, int op, int32_t tag,
			    size_t bin)
{
	struct bin *b = &a->bins[bin];
	/* a zone management command's bytes are the zone's: none moved */
	uint32_t bytes = op == OP_ZONE ? 0 : ev->bytes;

	if (!a->cfg.stats_only && bin_hist_ready(a, op, bin) < 0)
		return -1;
	d->ios[op]++;
	d->bytes[op] += bytes;
	priv(a)->completion_tag = tag;
	tell_sample(a, ANALYSIS_COMPLETION, op, d->device, tag, ev->time_ns,
		    bytes, 0, 0);
	b->ios[op]++;
	b->bytes[op] += bytes;
	if (bytes && a->size_hist[op])
		size_hist_at(a, bin, op)[hist_index(bytes, SIZE_BITS)]++;
	if (a->tagging || tag != IO_EVENT_NO_TAG) {
		long s = tag_slot(a, tag);
		struct tag_stats *t;

		if (s < 0)
			return -1;
		t = &a->tags[s];
		t->ios[op]++;
		t->bytes[op] += bytes;
		t->bins[bin].ios[op]++;
		t->bins[bin].bytes[op] += bytes;
	}
	return 0;
}

/* The request a data completion pairs with: the oldest issued one that
 * starts at its sector and covers it, then the oldest starting there, then
 * the oldest covering it. */
static struct request_state *request_for(struct analysis *a,
					 struct device_stats *d,
					 const struct io_event *ev, int op)
{
	struct analysis_private *p = priv(a);
	struct request_state *req, *best = NULL;
	uint64_t end = ev->sector + ev->bytes / 512;
	size_t i;

	p->pair_ambiguous = 0;
	if (a->cfg.missing_completions) {
		/* the newest: an older one may have completed unseen */
		for (req = ioset_find(&p->requests, ev->device, op,
				      ev->sector); req;
		     req = ioset_next(&p->requests, req))
			if (req->issued && req->bytes >= ev->bytes &&
			    (!best || req->d_ns >= best->d_ns))
				best = req;
		if (best)
			return best;
	}
	for (req = ioset_find(&p->requests, ev->device, op, ev->sector); req;
	     req = ioset_next(&p->requests, req))
		if (req->issued && req->bytes >= ev->bytes) {
			best = req;
			break;
		}
	/* the first found is the oldest; with another after it, the
	 * oldest's completion may have been lost (analysis_holes.c) */
	if (best) {
		for (req = ioset_next(&p->requests, best); req;
		     req = ioset_next(&p->requests, req))
			if (req->issued && req->bytes >= ev->bytes) {
				p->pair_ambiguous = 1;
				return hole_superseded(a, d, ev, op);
			}
		return best;
	}
	if (!d->requests[op])
		return NULL;
	/* a completion larger than its request still ends it */
	for (req = ioset_find(&p->requests, ev->device, op, ev->sector); req;
	     req = ioset_next(&p->requests, req))
		if (req->issued && (!best || req->d_ns < best->d_ns))
			best = req;
	if (best)
		return best;
	for (i = 0; i < p->requests.cap; i++) {
		struct ioset_key *k = (struct ioset_key *)(p->requests.slots +
						i * p->requests.slot_size);
		struct request_state *r = (struct request_state *)(k + 1);

		if (k->used != (uint32_t)op + 1 || k->device != ev->device ||
		    !r->issued || k->sector > ev->sector ||
		    k->sector + r->bytes / 512 < end)
			continue;
		if (!best || r->d_ns < best->d_ns)
			best = r;
	}
	return best;
}

/*
 * Complete the bios of the request issued at d_ns that end inside
 * [pos, end); a bio reaching past end goes on from there (a partial
 * completion). Returns the number completed, or -1.
 */
static long complete_issued_bios(struct analysis *a, struct device_stats *d,
				 const struct io_event *ev, int op, size_t bin,
				 int counted, uint64_t d_ns, int32_t req_tag)
{
	struct analysis_private *p = priv(a);
	uint64_t pos = ev->sector, end = ev->sector + ev->bytes / 512;
	long done = 0;

	while (pos < end) {
		struct bio_state *bio, *b;
		uint64_t bio_end;

		bio = NULL;
		for (b = ioset_find(&p->bios, ev->device, op, pos); b && !bio;
		     b = ioset_next(&p->bios, b))
			if (b->stage == BIO_ISSUED && b->d_ns == d_ns &&
			    b->bytes >= 512)
				bio = b;
		if (!bio)
			break;
		bio_end = pos + bio->bytes / 512;
		if (bio_end > end) {
			struct bio_state rest = *bio;

			rest.bytes = (uint32_t)((bio_end - end) * 512);
			ioset_remove(&p->bios, bio);
			bio = ioset_add(&p->bios, ev->device, op, end);
			if (!bio)
				return -1;
			*bio = rest;
			break;
		}
		if (counted && account_bio(a, d, bin, op,
					   bio->tag != IO_EVENT_NO_TAG ?
						   bio->tag : req_tag,
					   bio, pos, ev) < 0)
			return -1;
		ioset_remove(&p->bios, bio);
		done++;
		pos = bio_end;
	}
	return done;
}

/* Bio-based devices (no D): a completion ends the waiting bios it
 * covers, and they have only a Q2C. */
static long complete_queued_bios(struct analysis *a, struct device_stats *d,
				 const struct io_event *ev, int op, size_t bin,
				 int counted)
{
	struct analysis_private *p = priv(a);
	uint64_t pos = ev->sector, end = ev->sector + ev->bytes / 512;
	long done = 0;

	while (pos < end) {
		struct bio_state *bio = bio_at(p, ev->device, op, pos,
					       BIO_QUEUED, (end - pos) * 512);

		if (!bio)
			break;
		if (counted) {
			uint64_t q2c = ev->time_ns > bio->q_ns ?
				       ev->time_ns - bio->q_ns : 0;

			if (latency_add(&d->q2c, op, q2c) < 0)
				return -1;
			tell_sample(a, ANALYSIS_Q2C, op, d->device, ev->tag,
				    ev->time_ns, 0, 0, q2c);
			tell_row(a, ev, pos, bio->bytes, op, ANALYSIS_HAS_Q2C,
				 0, 0, q2c, bio->cause, bio->tag);
			a->bins[bin].q2c_sum_ns[op] += q2c;
		}
		if (!d->saw_issue)
			hole_paired(d, bio->q_ns, ev->time_ns, 1);
		pos += bio->bytes / 512;
		ioset_remove(&p->bios, bio);
		done++;
	}
	return done;
}

/* The rest of a partly completed request goes on from the new end. */
static int request_goes_on(struct analysis *a, struct request_state *req,
			   uint32_t device, int op, uint64_t from)
{
	struct analysis_private *p = priv(a);
	const struct ioset_key *k = ioset_key_of(&p->requests, req);
	struct request_state rest = *req;
	uint64_t req_end = k->sector + req->bytes / 512;

	rest.bytes = (uint32_t)((req_end - from) * 512);
	ioset_remove(&p->requests, req);
	req = ioset_add(&p->requests, device, op, from);
	if (!req)
		return -1;
	*req = rest;
	return 0;
}

static int handle_data_complete(struct analysis *a, struct device_stats *d,
				size_t slot, const struct io_event *ev, int op)
{
	struct analysis_private *p = priv(a);
	int counted = in_time_range(a, ev->time_ns);
	uint64_t end = ev->sector + ev->bytes / 512, req_start, req_end, d_ns;
	struct request_state *req = request_for(a, d, ev, op);
	struct bio_state *head;
	int32_t tag = ev->tag, req_tag;
	size_t bin = 0;
	long done;

	/* the tag of the bio at its head, else of its request */
	head = a->tagging || a->n_tags ?
		bio_at(p, ev->device, op, ev->sector,
		       req ? BIO_ISSUED : BIO_QUEUED, UINT32_MAX) : NULL;
	if (head && head->tag != IO_EVENT_NO_TAG)
		tag = head->tag;
	else if (req)
		tag = req->tag;
	if (counted) {
		bin = bin_for(a, ev->time_ns);
		if (count_completion(a, d, ev, op, tag, bin) < 0)
			return -1;
		if (a->cfg.iomap_action == BLK_TA_COMPLETE)
			map_io(a, slot, ev, tag == IO_EVENT_NO_TAG &&
					    !a->tagging ? -1 : tag_slot(a, tag));
	}
	if (!req) {
		done = complete_queued_bios(a, d, ev, op, bin, counted);
		if (done < 0)
			return -1;
		/* nothing in flight to pair, or only bios never issued on a
		 * device whose requests are: its issue is not in the trace */
		return !done || d->saw_issue ? hole_unmatched(a, d, ev) : 0;
	}
	d_ns = req->d_ns;
	req_end = ioset_key_of(&p->requests, req)->sector + req->bytes / 512;
	req_tag = req->tag;
	/* (only bios move: req stays where it is) */
	done = complete_issued_bios(a, d, ev, op, bin, counted, d_ns, req_tag);
	if (done < 0)
		return -1;
	req_start = ioset_key_of(&p->requests, req)->sector;
	if (req_start < ev->sector) {
		/* completed inside: what lies before goes on (the rest of
		 * the tail, rare, is left to the sweep) */
		req->bytes = (uint32_t)((ev->sector - req_start) * 512);
		return 0;
	}
	if (end < req_end)
		return request_goes_on(a, req, ev->device, op, end);
	/* Queued before the trace: the request's D2C, once. */
	if (!req->has_bios && counted) {
		uint64_t d2c = ev->time_ns > d_ns ? ev->time_ns - d_ns : 0;

		if (latency_add(&d->d2c, op, d2c) < 0 ||
		    tag_add_d2c(a, req_tag, bin, op, d2c) < 0)
			return -1;
		tell_sample(a, ANALYSIS_D2C, op, d->device, req_tag,
			    ev->time_ns, 0, d2c, 0);
		tell_row(a, ev, ev->sector, ev->bytes, op, ANALYSIS_HAS_D2C, 0,
			 d2c, 0, 0, req_tag);
		bin_add_d2c(a, bin, op, d2c);
	}
	if (p->pair_ambiguous)
		hole_chain(a, req, ev, op);
	ioset_remove(&p->requests, req);
	d->requests[op]--;
	hole_paired(d, d_ns, ev->time_ns, !p->pair_ambiguous);
	depth_change(a, d, ev->time_ns, -1);
	tag_depth_change(a, req_tag, ev->time_ns, -1);
	return 0;
}

/* A zone command's completion (is_zone_command): counted, and an
 * append drawn where it landed, whichever action (-m) draws the others:
 * its queue and issue name the zone's start. */
static int zone_complete(struct analysis *a, struct device_stats *d,
			 size_t slot, const struct io_event *ev, int op,
			 int counted)
{
	if (!counted)
		return 0;
	if (count_completion(a, d, ev, op, ev->tag,
			     bin_for(a, ev->time_ns)) < 0)
		return -1;
	if (op != OP_ZONE)
		map_io(a, slot, ev, ev->tag == IO_EVENT_NO_TAG &&
				    !a->tagging ? -1 : tag_slot(a, ev->tag));
	return 0;
}

/* A flush sequence opened at sector (its write queued with a preflush
 * or FUA): kept among the device's last 16. */
static void seq_open(struct device_stats *d, uint64_t sector, uint32_t bytes)
{
	size_t n = sizeof(d->seq_open) / sizeof(d->seq_open[0]);

	d->seq_open[d->seq_next] = sector;
	d->seq_end[d->seq_next] = sector + bytes / 512;
	d->seq_next = (uint32_t)((d->seq_next + 1) % n);
	if (d->n_seq_open < n)
		d->n_seq_open++;
}

/* The place among the open sequences of the one whose empty completion
 * can come at sector (its own, or just past its data: the kernel's
 * request moved on by the data it completed), or -1. */
static long seq_find(const struct device_stats *d, uint64_t sector)
{
	size_t n = sizeof(d->seq_open) / sizeof(d->seq_open[0]), i;

	for (i = 0; i < d->n_seq_open; i++) {
		size_t at = (d->seq_next + n - 1 - i) % n;

		if (d->seq_open[at] == sector || d->seq_end[at] == sector)
			return (long)at;
	}
	return -1;
}

/* The one open at sector, closed by its empty completion: 1 if there
 * was one. */
static int seq_close(struct device_stats *d, uint64_t sector)
{
	size_t n = sizeof(d->seq_open) / sizeof(d->seq_open[0]), newest;
	long at;

	if (!sector || (at = seq_find(d, sector)) < 0)
		return 0;
	/* the newest open takes its place */
	newest = (d->seq_next + n - 1) % n;
	d->seq_open[at] = d->seq_open[newest];
	d->seq_end[at] = d->seq_end[newest];
	d->seq_next = (uint32_t)newest;
	d->n_seq_open--;
	return 1;
}

/*
 * A flush completion paired first in, first out: its timing is held
 * until the next event that could tell it was another flush's (the
 * paired one's completion lost, this one's issue lost, across a hole):
 * flush_held_settle applies it before any event that tells anything,
 * so the rows and samples keep the events' order.
 */
static void flush_hold(struct analysis *a, size_t slot,
		       const struct io_event *ev, uint64_t d_ns, int32_t tag,
		       uint32_t issuer_pid, size_t bin, int alone, int counted)
{
	struct flush_held *h = &priv(a)->flush_held;

	h->ev = *ev;
	h->ev.pdu = NULL;
	h->ev.pdu_len = 0;
	h->d_ns = d_ns;
	h->slot = slot;
	h->bin = bin;
	h->issuer_pid = issuer_pid;
	h->tag = tag;
	h->alone = alone;
	h->counted = counted;
	a->flush_held = 1;
}

/* The held flush completion timed, as it was paired. */
static int flush_held_apply(struct analysis *a)
{
	struct flush_held *h = &priv(a)->flush_held;
	struct device_stats *d;
	uint64_t lat;

	if (!a->flush_held)
		return 0;
	d = &a->devices[h->slot];
	lat = h->ev.time_ns > h->d_ns ? h->ev.time_ns - h->d_ns : 0;
	a->flush_held = 0;
	hole_flush_paired(d, lat, h->alone);
	if (!h->counted)
		return 0;
	if (latency_add(&d->flush_d2c, OP_FLUSH, lat) < 0 ||
	    tag_add_flush_d2c(a, h->tag, h->bin, lat) < 0)
		return -1;
	tell_sample(a, ANALYSIS_D2C, OP_FLUSH, d->device, h->tag,
		    h->ev.time_ns, 0, lat, 0);
	tell_flush_row(a, &h->ev, lat, h->tag, h->issuer_pid);
	bin_add_d2c(a, h->bin, OP_FLUSH, lat);
	return 0;
}

/*
 * ev, just after a flush completion, is a write issued whose bio was
 * never queued in a trace that shows its device's queueing: the data
 * step of a flush sequence whose Q (and preflush issue) the trace
 * lost. The completion just paired was that sequence's preflush, not
 * the flush it was paired with, whose own completion was lost
 * (analysis/ACCOUNTING.md, "Inferred holes": a flush pairing shifted
 * across a hole; ext4-fsync with every record of 0.393-0.469 s gone:
 * a 1 ms flush paired with the next sequence's completion 77 ms on).
 */
static int flush_step_unseen(struct analysis *a, const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	struct flush_held *h = &p->flush_held;
	struct device_stats *d = &a->devices[h->slot];
	int op = analysis_data_op(ev);
	struct request_state *req;

	if (ev->device != h->ev.device || is_flush_request(ev) ||
	    ev->bytes < 512 || op != OP_WRITE || !d->saw_queue ||
	    d->paired < HOLE_MIN_PAIRED || a->lost_unlocated || a->in_loss ||
	    ev->time_ns <= a->first_ns + 2 * hole_bound(d) ||
	    bio_at(p, ev->device, op, ev->sector, BIO_QUEUED, UINT32_MAX))
		return 0;
	/* a request sent back is issued again with its bios issued */
	for (req = p->any_requeue ? ioset_find(&p->requests, ev->device, op,
					       ev->sector) : NULL;
	     req; req = ioset_next(&p->requests, req))
		if (!req->issued)
			return 0;
	return 1;
}

/*
 * ev, just after a flush completion, is the empty completion that ends
 * a flush sequence none opened (no write queued with a preflush or FUA
 * at its sector, nor ending there), on a device whose sequences were
 * seen to end so: the
 * flush just completed was that unseen sequence's last, not the one it
 * was paired with (ext4-fsync, CPU 1's records of 0.376-0.454 s gone:
 * a post-flush issued at 0.385 s paired with the completion at 0.407 s
 * that ends the sequence at sector 33384, 21 ms for 0.8).
 */
static int flush_end_unseen(struct analysis *a, const struct io_event *ev)
{
	struct flush_held *h = &priv(a)->flush_held;
	struct device_stats *d = &a->devices[h->slot];

	return ev->device == h->ev.device && !ev->bytes && ev->sector &&
	       completion_op(ev) < 0 && d->seq_ends && d->saw_queue &&
	       d->paired >= HOLE_MIN_PAIRED && !a->lost_unlocated &&
	       !a->in_loss && ev->time_ns > a->first_ns + 2 * hole_bound(d) &&
	       seq_find(d, ev->sector) < 0 &&
	       /* nor the sequence whose data step (its Q lost) was issued
		* before the paired flush: that flush was its post-flush */
	       !(d->unq_ns && d->unq_ns < h->d_ns &&
		 (ev->sector == d->unq_sector || ev->sector == d->unq_end));
}

/* The next I/O action after a held flush completion (add_io; a note
 * applies it, analysis_add): applied, taken back (flush_step_unseen,
 * flush_end_unseen), or still held over a bio queued, merged or split,
 * which tell nothing. */
static int flush_held_settle(struct analysis *a, const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	struct flush_held *h = &p->flush_held;
	unsigned code = blk_action_code(ev->action);

	if (code == BLK_TA_QUEUE || code == BLK_TA_BACKMERGE ||
	    code == BLK_TA_FRONTMERGE || code == BLK_TA_SPLIT)
		return 0;
	if ((code == BLK_TA_ISSUE && flush_step_unseen(a, ev)) ||
	    (code == BLK_TA_COMPLETE && flush_end_unseen(a, ev))) {
		a->flush_held = 0;
		if (hole_flush_shifted(a, &a->devices[h->slot], h->d_ns,
				       h->tag, &h->ev, h->counted) < 0)
			return -1;
		bare_row(a, &h->ev, h->counted, p->rows_told);
		return 0;
	}
	return flush_held_apply(a);
}

static int handle_complete(struct analysis *a, struct device_stats *d,
			   size_t slot, const struct io_event *ev)
{
	int op = completion_op(ev), counted = in_time_range(a, ev->time_ns);
	int32_t tag = ev->tag;
	uint32_t issuer_pid = 0;
	uint64_t d_ns;
	size_t bin;

	if (op == OP_FLUSH) {
		int issued, alone;

		int newest = hole_flush_superseded(a, d, ev->time_ns);

		if (newest < 0)
			return -1;
		alone = d->flushes && d->flushes->len == 1;
		issued = flush_pop(d, &d_ns, &tag, &issuer_pid, newest);
		if (!issued && d->flush_serial)
			d->flush_overlaps = 1;
		/* none in flight: its issue was lost (a flush issued before
		 * the trace may end in its first twice the longest flush) */
		if (!issued && d->flush_max_ns &&
		    ev->time_ns > a->first_ns + 2 * d->flush_max_ns &&
		    hole_unmatched(a, d, ev) < 0)
			return -1;
		if (issued) {
			depth_change(a, d, ev->time_ns, -1);
			tag_depth_change(a, tag, ev->time_ns, -1);
		}
		bin = 0;
		if (counted) {
			if (tag == IO_EVENT_NO_TAG)
				tag = ev->tag;
			bin = bin_for(a, ev->time_ns);
			if (count_completion(a, d, ev, op, tag, bin) < 0)
				return -1;
		}
		if (issued)
			flush_hold(a, slot, ev, d_ns, tag, issuer_pid, bin,
				   alone, counted);
		return 0;
	}
	if (op < 0) {
		if (counted)
			count_empty(d, ev);
		if (seq_close(d, ev->sector))
			d->seq_ends++;
		return 0;
	}
	if (is_zone_command(ev))
		return zone_complete(a, d, slot, ev, op, counted);
	return handle_data_complete(a, d, slot, ev, op);
}

/* A request sent back: out of the device until its next D, and its
 * bios wait again. */
static void handle_requeue(struct analysis *a, struct device_stats *d,
			   const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	struct request_state *req;
	uint64_t pos = ev->sector, end, t;
	int op = analysis_data_op(ev);
	uint32_t pid;
	int32_t tag;

	if (is_flush_request(ev)) {
		/* It is issued again: its next D stands for it. */
		if (flush_pop(d, &t, &tag, &pid, 0)) {
			depth_change(a, d, ev->time_ns, -1);
			tag_depth_change(a, tag, ev->time_ns, -1);
		}
		return;
	}
	for (req = ioset_find(&p->requests, ev->device, op, ev->sector); req;
	     req = ioset_next(&p->requests, req))
		if (req->issued)
			break;
	if (!req)
		return;
	p->any_requeue = 1;
	req->issued = 0;
	end = ev->sector + req->bytes / 512;
	t = req->d_ns;
	depth_change(a, d, ev->time_ns, -1);
	tag_depth_change(a, req->tag, ev->time_ns, -1);
	while (pos < end) {
		struct bio_state *bio, *b;

		bio = NULL;
		for (b = ioset_find(&p->bios, ev->device, op, pos); b;
		     b = ioset_next(&p->bios, b))
			if (b->stage == BIO_ISSUED && b->d_ns == t)
				bio = b;
		if (!bio || bio->bytes < 512)
			break;
		bio->stage = BIO_QUEUED;
		pos += bio->bytes / 512;
	}
}

struct sweep_arg {
	uint64_t now;
	struct analysis *a;
};

static int keep_fresh_bio(void *value, void *arg)
{
	const struct bio_state *bio = value;
	const struct sweep_arg *s = arg;

	return bio->q_ns + STALE_NS > s->now;
}

static int keep_fresh_request(void *value, void *arg)
{
	const struct request_state *req = value;
	const struct sweep_arg *s = arg;
	struct device_stats *d = &s->a->devices[req->device_slot];
	const struct ioset_key *k;

	if (req->d_ns + STALE_NS > s->now)
		return 1;
	/* A request that never completed leaves the queue now. */
	k = ioset_key_of(&priv(s->a)->requests, value);
	d->requests[k->used - 1]--;
	if (req->issued) {
		depth_change(s->a, d, s->now, -1);
		tag_depth_change(s->a, req->tag, s->now, -1);
	}
	return 0;
}

/* Forget I/Os whose completion was never traced, so memory stays flat. */
static void sweep_stale(struct analysis *a, uint64_t now)
{
	struct analysis_private *p = priv(a);
	struct sweep_arg arg = { now, a };

	if (p->bios.len > SWEEP_MIN_ENTRIES &&
	    p->bios.len > 2 * p->bios_after_sweep) {
		ioset_filter(&p->bios, keep_fresh_bio, &arg);
		p->bios_after_sweep = p->bios.len;
	}
	if (p->requests.len > SWEEP_MIN_ENTRIES &&
	    p->requests.len > 2 * p->requests_after_sweep) {
		ioset_filter(&p->requests, keep_fresh_request, &arg);
		p->requests_after_sweep = p->requests.len;
	}
}

static void map_issue_or_queue(struct analysis *a, size_t slot,
			       const struct io_event *ev)
{
	long s = -1;
	int32_t tag = ev->tag;

	/* nothing is mapped for statistics alone; untagged, no tag's slot
	 * comes of it either */
	if (a->cfg.stats_only && !a->tagging && tag == IO_EVENT_NO_TAG)
		return;
	/* a zone append is drawn where it landed, at its completion */
	if ((ev->action_hi & BLK_TC2_ZONE_APPEND) &&
	    blk_action_code(ev->action) != BLK_TA_COMPLETE)
		return;
	if (blk_action_code(ev->action) == BLK_TA_ISSUE) {
		struct bio_state *bio = bio_at(priv(a), ev->device,
					       analysis_data_op(ev), ev->sector,
					       BIO_ISSUED, UINT32_MAX);

		if (bio && bio->tag != IO_EVENT_NO_TAG)
			tag = bio->tag;
	}
	if (a->tagging || tag != IO_EVENT_NO_TAG)
		s = tag_slot(a, tag);
	map_io(a, slot, ev, s);
}

/*
 * A completion counted as an I/O that timed no bio (nor told a row of
 * its own): one row all the same, without latencies, so that the log's
 * I/Os are the summary's.
 */
static void bare_row(struct analysis *a, const struct io_event *ev,
		     int counted, uint64_t rows_before)
{
	int op = completion_op(ev);

	if (!a->cfg.on_row || !counted || op < 0 ||
	    priv(a)->rows_told != rows_before || a->flush_held)
		return;
	/* a zone management command moved none of its zone's bytes */
	tell_row(a, ev, ev->sector, op == OP_ZONE ? 0 : ev->bytes, op, 0, 0,
		 0, 0, 0, priv(a)->completion_tag);
}

static int in_offset_range(const struct analysis *a,
			   const struct io_event *ev)
{
	uint64_t off;

	if (!a->cfg.has_offset_range)
		return 1;
	/* A flush has no offset: no offset range holds it. */
	if (!ev->bytes && analysis_has_category(ev, BLK_TC_FLUSH))
		return 0;
	if (ev->sector > UINT64_MAX / 512)
		return 0;
	off = ev->sector * 512;
	return off >= a->cfg.offset_min && off < a->cfg.offset_max;
}

static int device_wanted(const struct analysis *a, uint32_t device)
{
	size_t i;

	if (!a->cfg.n_only_devices)
		return 1;
	for (i = 0; i < a->cfg.n_only_devices; i++)
		if (a->cfg.only_devices[i] == device)
			return 1;
	return 0;
}

static int is_io_action(unsigned code)
{
	const uint32_t io = 1u << BLK_TA_QUEUE | 1u << BLK_TA_ISSUE |
			    1u << BLK_TA_COMPLETE | 1u << BLK_TA_BACKMERGE |
			    1u << BLK_TA_FRONTMERGE | 1u << BLK_TA_REQUEUE |
			    1u << BLK_TA_SPLIT;

	return code < 32 && (io >> code & 1);
}

/*
 * An I/O action (is_io_action), counted or not (in the time range): what
 * it does to the I/Os in flight and the statistics. Kept apart from
 * analysis_add, which every event passes through: most are not I/O
 * actions (G, P, U, I), and this one's frame costs.
 */
static __attribute__((noinline)) int add_io(struct analysis *a,
					    const struct io_event *ev,
					    int counted, struct iow_error *err)
{
	unsigned code = blk_action_code(ev->action);
	struct device_stats *d;
	size_t slot;
	int dir = direction(ev), r = 0;
	uint64_t rows;

	/* events that are not I/O actions (G, P, U, I) leave it held */
	if (a->flush_held && flush_held_settle(a, ev) < 0)
		return iow_fail(err, "out of memory at event %llu",
				(unsigned long long)ev->index);
	if (a->in_loss) {
		if (ev->time_ns < a->loss_until_ns)
			return add_io_in_loss(a, ev, counted, err);
		a->in_loss = 0;
	}

	d = device_get(a, ev->device, &slot);
	if (!d)
		return iow_fail(err, "out of memory");
	d->has_io = 1;
	switch (code) {
	case BLK_TA_QUEUE:
		if (counted)
			d->queued[dir]++;
		if (ev->bytes >= 512) {
			d->saw_queue = 1;
			if (analysis_has_category(ev, BLK_TC_FLUSH) ||
			    analysis_has_category(ev, BLK_TC_FUA))
				seq_open(d, ev->sector, ev->bytes);
		}
		r = handle_queue(a, ev);
		break;
	case BLK_TA_SPLIT:
		r = handle_split(a, ev);
		break;
	case BLK_TA_BACKMERGE:
	case BLK_TA_FRONTMERGE:
		if (counted)
			d->merges[dir]++;
		break;
	case BLK_TA_ISSUE:
		if (counted)
			d->issued[dir]++;
		r = handle_issue(a, d, slot, ev);
		break;
	case BLK_TA_COMPLETE:
		if (!a->cfg.on_row) {
			r = handle_complete(a, d, slot, ev);
			break;
		}
		rows = priv(a)->rows_told;
		r = handle_complete(a, d, slot, ev);
		bare_row(a, ev, counted, rows);
		break;
	case BLK_TA_REQUEUE:
		handle_requeue(a, d, ev);
		break;
	}
	if (r < 0)
		return iow_fail(err, "out of memory at event %llu",
				(unsigned long long)ev->index);
	if ((code == BLK_TA_QUEUE || code == BLK_TA_ISSUE) &&
	    code == a->cfg.iomap_action && counted)
		map_issue_or_queue(a, slot, ev);
	sweep_stale(a, ev->time_ns);
	return 0;
}

/* The device's span grows to take the event's time (analysis.h). */
static int note_span(struct analysis *a, uint32_t device, uint64_t t,
		     struct iow_error *err)
{
	struct device_span *sp;
	size_t i = a->last_span;

	if (i >= a->n_spans || a->spans[i].device != device) {
		for (i = 0; i < a->n_spans; i++)
			if (a->spans[i].device == device)
				break;
		if (i == a->n_spans) {
			sp = vec_grow(a->spans, &a->cap_spans, i + 1,
				      sizeof(*sp), 4);
			if (!sp)
				return iow_fail(err, "out of memory");
			a->spans = sp;
			memset(&sp[i], 0, sizeof(sp[i]));
			sp[i].device = device;
			sp[i].first_ns = sp[i].last_ns = t;
			a->n_spans++;
		}
		a->last_span = i;
	}
	sp = &a->spans[i];
	if (t < sp->first_ns)
		sp->first_ns = t;
	if (t > sp->last_ns)
		sp->last_ns = t;
	return 0;
}

/* A device --device left out, kept (the first few) to name them. */
static void note_other_device(struct analysis *a, uint32_t device)
{
	size_t i, cap = sizeof(a->other_devices) / sizeof(a->other_devices[0]);

	for (i = 0; i < a->n_other_devices; i++)
		if (a->other_devices[i] == device)
			return;
	if (a->n_other_devices < cap)
		a->other_devices[a->n_other_devices++] = device;
}

int analysis_add(struct analysis *a, const struct io_event *ev,
		 struct iow_error *err)
{
	int counted = 1;

	if (ev->time_ns >= ANALYSIS_TIME_LIMIT_NS)
		return iow_fail(err, "event %llu: at %llu ns, past 2^62 ns (146 years): the trace is damaged",
				(unsigned long long)ev->index,
				(unsigned long long)ev->time_ns);
	if (blk_is_note(ev->action)) {
		if (a->flush_held && flush_held_apply(a) < 0)
			return iow_fail(err, "out of memory at event %llu",
					(unsigned long long)ev->index);
		a->n_notes++;
		if (account_note(a, ev, err) < 0)
			return -1;
		/* a CPU's loss is every device's: no --device filter */
		return loss_note(a, ev, err);
	}
	if (a->filtered) {
		if (!device_wanted(a, ev->device)) {
			note_other_device(a, ev->device);
			if (ev->time_ns > a->other_last_ns)
				a->other_last_ns = ev->time_ns;
			return 0;
		}
		if (a->cfg.per_device) {
			struct analysis *part = device_part(a, ev->device,
							    err);

			/* a part has its device once it has seen an I/O
			 * event */
			if (!part || analysis_add(part, ev, err) < 0)
				return -1;
		}
	}
	a->n_events_all++;
	if (ev->time_ns < a->first_ns)
		a->first_ns = ev->time_ns;
	if (ev->time_ns > a->last_ns || a->n_events_all == 1)
		a->last_ns = ev->time_ns;
	if (a->filtered) {
		counted = in_time_range(a, ev->time_ns);
		if (!in_offset_range(a, ev))
			return 0;
	}
	if (counted)
		a->n_events++;
	if (!is_io_action(blk_action_code(ev->action)))
		return 0;
	/* a device's span: its I/O actions' (Q, D, C, merges, ...), which
	 * every form of a trace has alike */
	if (note_span(a, ev->device, ev->time_ns, err) < 0)
		return -1;
	return add_io(a, ev, counted, err);
}
