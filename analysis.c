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
#include "blktrace.h"
#include "blkparse_feed.h"
#include "histogram.h"
#include "ioset.h"

/* The I/O map's narrowest column: a 10 ms trace gets 1000 of them. */
#define MAP_FIRST_WIDTH_NS	10000ull
#define STALE_NS		(120ull * 1000000000ull)
#define SWEEP_MIN_ENTRIES	65536

struct bio_state {
	uint64_t q_ns, d_ns;
	uint32_t bytes;
	int32_t tag;
	uint8_t issued;
};

struct request_state {
	uint64_t d_ns;
	uint32_t bytes;
	int32_t tag;
	uint32_t device_slot;
};

struct tag_index_entry {
	int32_t id;
	uint32_t slot_plus_one;
};

struct analysis_private {
	struct ioset bios, requests;
	size_t bios_after_sweep, requests_after_sweep;
	struct tag_index_entry *tag_index;
	size_t tag_index_cap;
	size_t last_device;
};

static struct analysis_private *priv(const struct analysis *a)
{
	return a->private;
}

int analysis_init(struct analysis *a, const struct analysis_config *cfg,
		  struct iow_error *err)
{
	struct analysis_private *p;

	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	if (!a->cfg.iomap_action)
		a->cfg.iomap_action = BLK_TA_ISSUE;
	a->bin_width_ns = cfg->bin_width_ns ? cfg->bin_width_ns : 1000000;
	a->bin_origin_ns = cfg->has_time_range ? cfg->time_min_ns : 0;
	a->cap_bins = cfg->bin_width_ns ? ANALYSIS_MAX_FIXED_BINS
					: ANALYSIS_MAX_BINS;
	a->next_coarsen = 2;
	a->map_width_ns = MAP_FIRST_WIDTH_NS;
	a->map_next_coarsen = 2;
	a->cached_bin_start = UINT64_MAX;
	a->first_ns = UINT64_MAX;
	a->bins = calloc(a->cap_bins, sizeof(*a->bins));
	p = calloc(1, sizeof(*p));
	a->private = p;
	if (!a->bins || !p ||
	    ioset_init(&p->bios, sizeof(struct bio_state)) < 0 ||
	    ioset_init(&p->requests, sizeof(struct request_state)) < 0)
		return iow_fail(err, "out of memory");
	return 0;
}

static void latency_free(struct latency_summary *l)
{
	free(l->hist);
	free(l->hist_dir[0]);
	free(l->hist_dir[1]);
}

void analysis_free(struct analysis *a)
{
	struct analysis_private *p = priv(a);
	size_t i;

	for (i = 0; i < a->n_devices; i++) {
		latency_free(&a->devices[i].d2c);
		latency_free(&a->devices[i].q2c);
		latency_free(&a->devices[i].q2d);
		iomap_free(&a->iomaps[i]);
	}
	for (i = 0; i < a->n_tags; i++) {
		free(a->tags[i].label);
		free(a->tags[i].bins);
	}
	if (p) {
		ioset_free(&p->bios);
		ioset_free(&p->requests);
		free(p->tag_index);
		free(p);
	}
	free(a->devices);
	free(a->iomaps);
	free(a->tags);
	free(a->bins);
	free(a->lat_hist);
	free(a->size_hist);
	memset(a, 0, sizeof(*a));
}

/* ---- time bins ---- */

static int in_time_range(const struct analysis *a, uint64_t t)
{
	return !a->cfg.has_time_range ||
	       (t >= a->cfg.time_min_ns && t < a->cfg.time_max_ns);
}

static uint32_t *lat_hist_at(const struct analysis *a, size_t bin, int dir)
{
	return a->lat_hist + (bin * N_DIRS + dir) * LAT_BIN_BUCKETS;
}

static uint32_t *size_hist_at(const struct analysis *a, size_t bin, int dir)
{
	return a->size_hist + (bin * N_DIRS + dir) * SIZE_BUCKETS;
}

static void merge_bin(struct bin *dst, const struct bin *src)
{
	int d;

	for (d = 0; d < N_DIRS; d++) {
		dst->bytes[d] += src->bytes[d];
		dst->ios[d] += src->ios[d];
		dst->d2c_sum_ns[d] += src->d2c_sum_ns[d];
		dst->q2c_sum_ns[d] += src->q2c_sum_ns[d];
		dst->q2d_sum_ns[d] += src->q2d_sum_ns[d];
		dst->lat_n[d] += src->lat_n[d];
		dst->d2c_n[d] += src->d2c_n[d];
		if (src->d2c_max_ns[d] > dst->d2c_max_ns[d])
			dst->d2c_max_ns[d] = src->d2c_max_ns[d];
	}
	dst->depth_area_ns += src->depth_area_ns;
	dst->seeks += src->seeks;
}

/* Merge runs of f bins, each per_bin u32 counts, in place. */
static void coarsen_u32(uint32_t *v, size_t n_old, size_t per_bin,
			unsigned f)
{
	size_t n_new = (n_old + f - 1) / f, i, j, k;

	for (i = 0; i < n_new; i++) {
		uint32_t *dst = v + i * per_bin;

		if (i)
			memcpy(dst, v + i * f * per_bin,
			       per_bin * sizeof(*v));
		for (j = i * f + 1; j < (i + 1) * f && j < n_old; j++) {
			const uint32_t *src = v + j * per_bin;

			for (k = 0; k < per_bin; k++)
				dst[k] += src[k];
		}
	}
	memset(v + n_new * per_bin, 0,
	       (n_old - n_new) * per_bin * sizeof(*v));
}

static void coarsen(struct analysis *a)
{
	unsigned f = a->next_coarsen;
	size_t n_new = (a->n_bins + f - 1) / f, i, j, t;

	for (i = 0; i < n_new; i++) {
		struct bin acc = a->bins[i * f];

		for (j = i * f + 1; j < (i + 1) * f && j < a->n_bins; j++)
			merge_bin(&acc, &a->bins[j]);
		a->bins[i] = acc;
	}
	memset(a->bins + n_new, 0, (a->n_bins - n_new) * sizeof(*a->bins));
	if (a->lat_hist)
		coarsen_u32(a->lat_hist, a->n_bins, N_DIRS * LAT_BIN_BUCKETS, f);
	if (a->size_hist)
		coarsen_u32(a->size_hist, a->n_bins, N_DIRS * SIZE_BUCKETS, f);
	for (t = 0; t < a->n_tags; t++) {
		struct tag_bin *b = a->tags[t].bins;

		for (i = 0; i < n_new; i++) {
			struct tag_bin acc = b[i * f];
			int d;

			for (j = i * f + 1; j < (i + 1) * f && j < a->n_bins;
			     j++)
				for (d = 0; d < N_DIRS; d++) {
					acc.bytes[d] += b[j].bytes[d];
					acc.ios[d] += b[j].ios[d];
				}
			b[i] = acc;
		}
		memset(b + n_new, 0, (a->n_bins - n_new) * sizeof(*b));
	}
	a->n_bins = n_new;
	a->bin_width_ns *= f;
	a->cached_bin_start = UINT64_MAX;	/* bins moved */
	a->next_coarsen = f == 2 ? 5 : 2;
}

/* Index of the bin holding t (t >= origin), making room for it. */
static size_t bin_for(struct analysis *a, uint64_t t)
{
	size_t limit = a->cfg.bin_width_ns ? ANALYSIS_MAX_FIXED_BINS
					   : ANALYSIS_MAX_BINS;
	uint64_t idx;

	/* Events come in time order: most fall in the bin of the last. */
	if (t >= a->cached_bin_start && t - a->cached_bin_start <
	    a->bin_width_ns && a->cached_bin < a->n_bins)
		return a->cached_bin;
	idx = (t - a->bin_origin_ns) / a->bin_width_ns;
	while (idx >= limit) {
		if (a->cfg.bin_width_ns && !a->warning[0])
			snprintf(a->warning, sizeof(a->warning),
				 "--bin-ms gives more than %d bins; bins widened",
				 ANALYSIS_MAX_FIXED_BINS);
		if (a->n_bins == 0)
			a->n_bins = 1;
		coarsen(a);
		idx = (t - a->bin_origin_ns) / a->bin_width_ns;
	}
	if (idx >= a->n_bins)
		a->n_bins = idx + 1;
	a->cached_bin = (size_t)idx;
	a->cached_bin_start = a->bin_origin_ns + idx * a->bin_width_ns;
	return (size_t)idx;
}

/* ---- devices and tags ---- */

static struct device_stats *device_get(struct analysis *a, uint32_t device,
				       size_t *slot)
{
	struct analysis_private *p = priv(a);
	struct device_stats *more;
	struct iomap *maps;
	size_t i;

	if (p->last_device < a->n_devices &&
	    a->devices[p->last_device].device == device) {
		*slot = p->last_device;
		return &a->devices[p->last_device];
	}
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
	a->tagging = 1;
}

int analysis_set_tag_label(struct analysis *a, int32_t tag, const char *label,
			   struct iow_error *err)
{
	long slot = tag_slot(a, tag);
	char *copy;

	if (slot < 0 || !(copy = strdup(label)))
		return iow_fail(err, "out of memory");
	free(a->tags[slot].label);
	a->tags[slot].label = copy;
	return 0;
}

/* ---- the I/O map ---- */

/* The map column of t (t >= origin), widening the columns as needed. */
static size_t map_col_for(struct analysis *a, uint64_t t)
{
	uint64_t col = (t - a->bin_origin_ns) / a->map_width_ns;
	size_t i;

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
	return (size_t)col;
}

static void map_io(struct analysis *a, size_t slot,
		   const struct io_event *ev, long tag_slot_idx)
{
	if (!ev->bytes || a->cfg.stats_only || !in_time_range(a, ev->time_ns))
		return;
	/* The time series reach every mapped I/O, as when map columns
	 * were bins (CSV rows and graphs end there, not earlier). */
	bin_for(a, ev->time_ns);
	iomap_add(&a->iomaps[slot], map_col_for(a, ev->time_ns), ev->sector,
		  blk_is_write(ev->action), tag_slot_idx, ev->bytes);
}

size_t analysis_map_cols(const struct analysis *a)
{
	return a->map_cols;
}

double analysis_map_col_start_s(const struct analysis *a, size_t col)
{
	return (double)(a->bin_origin_ns + col * a->map_width_ns) / 1e9;
}

void analysis_map_row_bytes(const struct analysis *a, size_t d, unsigned row,
			    uint64_t *lo, uint64_t *hi)
{
	iomap_row_bytes(&a->iomaps[d], row, lo, hi);
}

/* ---- queue depth ---- */

/* Add depth * time over [from, to), clipped to the range, into bins. */
static void depth_integrate(struct analysis *a, struct device_stats *d,
			    uint64_t from, uint64_t to)
{
	uint64_t depth = d->in_flight;

	if (a->cfg.has_time_range) {
		if (from < a->cfg.time_min_ns)
			from = a->cfg.time_min_ns;
		if (to > a->cfg.time_max_ns)
			to = a->cfg.time_max_ns;
	}
	if (!depth || to <= from)
		return;
	d->depth_area_ns += (double)depth * (double)(to - from);
	bin_for(a, to - 1);
	while (from < to) {
		size_t bin = (size_t)((from - a->bin_origin_ns) /
				      a->bin_width_ns);
		/* to the bin's end, which may lie beyond 2^64 ns */
		uint64_t left = a->bin_width_ns - (from - a->bin_origin_ns -
						   bin * a->bin_width_ns);
		uint64_t end = to - from > left ? from + left : to;

		a->bins[bin].depth_area_ns += (double)depth * (double)(end - from);
		from = end;
	}
}

static void depth_change(struct analysis *a, struct device_stats *d,
			 uint64_t t, int delta)
{
	if (t > d->depth_since_ns) {
		depth_integrate(a, d, d->depth_since_ns, t);
		d->depth_since_ns = t;
	}
	if (delta < 0 && d->in_flight == 0)
		return;
	d->in_flight += delta;
}

/* ---- latency ---- */

static int latency_add(struct latency_summary *l, int dir, uint64_t ns)
{
	if (!l->hist) {
		l->hist = calloc(LAT_SUM_BUCKETS, sizeof(*l->hist));
		l->hist_dir[0] = calloc(LAT_SUM_BUCKETS, sizeof(*l->hist));
		l->hist_dir[1] = calloc(LAT_SUM_BUCKETS, sizeof(*l->hist));
		if (!l->hist || !l->hist_dir[0] || !l->hist_dir[1])
			return -1;
	}
	if (ns >= 1ull << LAT_SUM_MAX_BITS)
		ns = (1ull << LAT_SUM_MAX_BITS) - 1;
	l->n++;
	l->sum_ns += (double)ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
	l->hist[hist_index(ns, LAT_SUM_BITS)]++;
	l->hist_dir[dir][hist_index(ns, LAT_SUM_BITS)]++;
	return 0;
}

static uint64_t elapsed(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

static int bin_hist_ready(struct analysis *a)
{
	if (!a->lat_hist)
		a->lat_hist = calloc(a->cap_bins * N_DIRS * LAT_BIN_BUCKETS,
				     sizeof(*a->lat_hist));
	if (!a->size_hist)
		a->size_hist = calloc(a->cap_bins * N_DIRS * SIZE_BUCKETS,
				      sizeof(*a->size_hist));
	return a->lat_hist && a->size_hist ? 0 : -1;
}

static int account_latency(struct analysis *a, struct device_stats *d,
			   size_t bin, int dir, uint64_t d2c,
			   const uint64_t *q2c, const uint64_t *q2d)
{
	struct bin *b = &a->bins[bin];
	uint64_t capped = d2c;

	if (latency_add(&d->d2c, dir, d2c) < 0)
		return -1;
	if (q2c && (latency_add(&d->q2c, dir, *q2c) < 0 ||
		    latency_add(&d->q2d, dir, *q2d) < 0))
		return -1;
	b->d2c_sum_ns[dir] += d2c;
	b->d2c_n[dir]++;
	if (d2c > b->d2c_max_ns[dir])
		b->d2c_max_ns[dir] = d2c;
	if (q2c) {
		b->q2c_sum_ns[dir] += *q2c;
		b->q2d_sum_ns[dir] += *q2d;
		b->lat_n[dir]++;
	}
	if (a->cfg.stats_only)
		return 0;
	if (capped >= 1ull << LAT_BIN_MAX_BITS)
		capped = (1ull << LAT_BIN_MAX_BITS) - 1;
	lat_hist_at(a, bin, dir)[hist_index(capped, LAT_BIN_BITS)]++;
	return 0;
}

/* ---- events ---- */

static int direction(const struct io_event *ev)
{
	return blk_is_write(ev->action) ? DIR_WRITE : DIR_READ;
}

static int handle_queue(struct analysis *a, const struct io_event *ev)
{
	struct bio_state *bio;
	int existed;

	bio = ioset_insert(&priv(a)->bios, ev->device, ev->sector, &existed);
	if (!bio)
		return -1;
	bio->q_ns = ev->time_ns;
	bio->d_ns = 0;
	bio->issued = 0;
	bio->bytes = ev->bytes;
	bio->tag = ev->tag;
	return 0;
}

static int handle_issue(struct analysis *a, struct device_stats *d,
			size_t slot, const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	struct request_state *req;
	uint64_t pos = ev->sector, remaining = ev->bytes;
	int existed, first = 1;

	req = ioset_insert(&p->requests, ev->device, ev->sector, &existed);
	if (!req)
		return -1;
	if (!existed)
		depth_change(a, d, ev->time_ns, +1);
	req->d_ns = ev->time_ns;
	req->bytes = ev->bytes;
	req->tag = ev->tag;
	req->device_slot = (uint32_t)slot;
	/* The bios this request covers, back-merged ones following on. */
	while (remaining > 0) {
		struct bio_state *bio = ioset_find(&p->bios, ev->device, pos);

		if (!bio || bio->bytes < 512)
			break;
		bio->issued = 1;
		bio->d_ns = ev->time_ns;
		if (first && bio->tag != IO_EVENT_NO_TAG)
			req->tag = bio->tag;
		first = 0;
		pos += bio->bytes / 512;
		remaining -= bio->bytes < remaining ? bio->bytes : remaining;
	}
	if (!in_time_range(a, ev->time_ns) || !ev->bytes)
		return 0;
	if (d->has_last_issue && ev->sector != d->next_sector) {
		d->seeks++;
		a->bins[bin_for(a, ev->time_ns)].seeks++;
	}
	d->has_last_issue = 1;
	d->next_sector = ev->sector + ev->bytes / 512;
	return 0;
}

static int account_completion(struct analysis *a, struct device_stats *d,
			      const struct io_event *ev, int32_t tag,
			      size_t *bin_out)
{
	int dir = direction(ev);
	size_t bin = bin_for(a, ev->time_ns);
	struct bin *b = &a->bins[bin];

	if (!a->cfg.stats_only && bin_hist_ready(a) < 0)
		return -1;
	d->ios[dir]++;
	d->bytes[dir] += ev->bytes;
	b->ios[dir]++;
	b->bytes[dir] += ev->bytes;
	if (ev->bytes && !a->cfg.stats_only)
		size_hist_at(a, bin, dir)[hist_index(ev->bytes, SIZE_BITS)]++;
	if (a->tagging || tag != IO_EVENT_NO_TAG) {
		long s = tag_slot(a, tag);
		struct tag_stats *t;

		if (s < 0)
			return -1;
		t = &a->tags[s];
		t->ios[dir]++;
		t->bytes[dir] += ev->bytes;
		t->bins[bin].ios[dir]++;
		t->bins[bin].bytes[dir] += ev->bytes;
	}
	*bin_out = bin;
	return 0;
}

static int handle_complete(struct analysis *a, struct device_stats *d,
			   size_t slot, const struct io_event *ev)
{
	struct analysis_private *p = priv(a);
	struct request_state *req;
	struct bio_state *head;
	uint64_t pos = ev->sector, remaining = ev->bytes, t = ev->time_ns;
	int counted = in_time_range(a, t), dir = direction(ev), matched = 0;
	int32_t tag = ev->tag;
	size_t bin = 0;

	req = ioset_find(&p->requests, ev->device, ev->sector);
	head = ioset_find(&p->bios, ev->device, ev->sector);
	if (head && head->tag != IO_EVENT_NO_TAG)
		tag = head->tag;
	else if (req)
		tag = req->tag;
	if (counted && account_completion(a, d, ev, tag, &bin) < 0)
		return -1;
	if (counted && a->cfg.iomap_action == BLK_TA_COMPLETE)
		map_io(a, slot, ev, tag == IO_EVENT_NO_TAG && !a->tagging ?
				    -1 : tag_slot(a, tag));
	while (remaining > 0) {
		struct bio_state *bio = ioset_find(&p->bios, ev->device, pos);
		uint32_t bytes;

		if (!bio || !bio->issued || bio->bytes < 512)
			break;
		if (counted) {
			uint64_t q2c = elapsed(bio->q_ns, t);
			uint64_t q2d = elapsed(bio->q_ns, bio->d_ns);

			if (account_latency(a, d, bin, dir,
					    elapsed(bio->d_ns, t), &q2c,
					    &q2d) < 0)
				return -1;
		}
		bytes = bio->bytes;
		ioset_remove(&p->bios, bio);
		matched++;
		pos += bytes / 512;
		remaining -= bytes < remaining ? bytes : remaining;
	}
	if (req) {
		if (!matched && counted &&
		    account_latency(a, d, bin, dir, elapsed(req->d_ns, t),
				    NULL, NULL) < 0)
			return -1;
		ioset_remove(&p->requests, req);
		depth_change(a, d, t, -1);
	}
	(void)slot;
	return 0;
}

static void handle_requeue(struct analysis *a, struct device_stats *d,
			   const struct io_event *ev)
{
	struct request_state *req;

	req = ioset_find(&priv(a)->requests, ev->device, ev->sector);
	if (!req)
		return;
	ioset_remove(&priv(a)->requests, req);
	depth_change(a, d, ev->time_ns, -1);
}

/* A remapped bio has left its old device: forget it there. */
static void handle_remap(struct analysis *a, const struct io_event *ev)
{
	uint32_t from_dev, to_dev;
	uint64_t from_sector;
	struct bio_state *bio;

	if (feed_decode_remap(ev, &from_dev, &to_dev, &from_sector) < 0)
		return;
	bio = ioset_find(&priv(a)->bios, from_dev, from_sector);
	if (bio)
		ioset_remove(&priv(a)->bios, bio);
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

	if (req->d_ns + STALE_NS > s->now)
		return 1;
	/* A request that never completed leaves the queue now. */
	depth_change(s->a, &s->a->devices[req->device_slot], s->now, -1);
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

static int in_offset_range(const struct analysis *a,
			   const struct io_event *ev)
{
	uint64_t off;

	if (!a->cfg.has_offset_range)
		return 1;
	if (ev->sector > UINT64_MAX / 512)
		return 0;
	off = ev->sector * 512;
	return off >= a->cfg.offset_min && off < a->cfg.offset_max;
}

int analysis_add(struct analysis *a, const struct io_event *ev,
		 struct iow_error *err)
{
	unsigned code = blk_action_code(ev->action);
	struct device_stats *d;
	size_t slot;
	int dir = direction(ev), counted, r = 0;

	if (blk_is_note(ev->action)) {
		a->n_notes++;
		return 0;
	}
	a->n_events++;
	if (ev->time_ns < a->first_ns)
		a->first_ns = ev->time_ns;
	if (ev->time_ns > a->last_ns || a->n_events == 1)
		a->last_ns = ev->time_ns;
	if (code == BLK_TA_REMAP) {
		handle_remap(a, ev);
		return 0;
	}
	if (code != BLK_TA_QUEUE && code != BLK_TA_ISSUE &&
	    code != BLK_TA_COMPLETE && code != BLK_TA_BACKMERGE &&
	    code != BLK_TA_FRONTMERGE && code != BLK_TA_REQUEUE)
		return 0;
	if (!in_offset_range(a, ev))
		return 0;
	d = device_get(a, ev->device, &slot);
	if (!d)
		return iow_fail(err, "out of memory");
	d->has_io = 1;
	counted = in_time_range(a, ev->time_ns);
	switch (code) {
	case BLK_TA_QUEUE:
		if (counted)
			d->queued[dir]++;
		r = handle_queue(a, ev);
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
		r = handle_complete(a, d, slot, ev);
		break;
	case BLK_TA_REQUEUE:
		handle_requeue(a, d, ev);
		break;
	}
	if (r < 0)
		return iow_fail(err, "out of memory at event %llu",
				(unsigned long long)ev->index);
	if ((code == BLK_TA_QUEUE || code == BLK_TA_ISSUE) &&
	    code == a->cfg.iomap_action && counted) {
		long s = -1;
		int32_t tag = ev->tag;

		if (code == BLK_TA_ISSUE) {
			struct bio_state *bio = ioset_find(&priv(a)->bios,
							   ev->device,
							   ev->sector);
			if (bio && bio->tag != IO_EVENT_NO_TAG)
				tag = bio->tag;
		}
		if (a->tagging || tag != IO_EVENT_NO_TAG)
			s = tag_slot(a, tag);
		map_io(a, slot, ev, s);
	}
	sweep_stale(a, ev->time_ns);
	return 0;
}

void analysis_finish(struct analysis *a)
{
	size_t i;

	if (a->finished)
		return;
	a->finished = 1;
	if (a->n_events == 0)
		a->first_ns = 0;
	for (i = 0; i < a->n_devices; i++)
		depth_change(a, &a->devices[i], a->last_ns, 0);
	for (i = 0; i < a->n_tags; i++)
		if (!a->tags[i].label)
			a->tags[i].label = strdup(a->tags[i].id ==
						  IO_EVENT_NO_TAG ? "untagged"
								  : "?");
}

/* ---- reading ---- */

double analysis_duration_s(const struct analysis *a)
{
	uint64_t start = a->first_ns, end = a->last_ns;

	if (a->cfg.has_time_range) {
		start = a->cfg.time_min_ns;
		if (end > a->cfg.time_max_ns)
			end = a->cfg.time_max_ns;
	}
	return end > start ? (double)(end - start) / 1e9 : 0;
}

double analysis_bin_start_s(const struct analysis *a, size_t i)
{
	return (double)(a->bin_origin_ns + i * a->bin_width_ns) / 1e9;
}

double analysis_bin_span_s(const struct analysis *a, size_t i)
{
	double width = (double)a->bin_width_ns / 1e9;
	double end = (double)a->last_ns / 1e9, start, span;

	if (a->cfg.has_time_range && a->last_ns > a->cfg.time_max_ns)
		end = (double)a->cfg.time_max_ns / 1e9;
	if (i + 1 < a->n_bins)
		return width;
	/*
	 * The last bin is cut short by the trace's end: dividing by its real
	 * span avoids a false drop to zero. A floor of a quarter width keeps
	 * one completion a few microseconds before the end from reading as
	 * an absurd rate. A lone bin's span is the whole trace, however
	 * short against the width (--bin-ms longer than the trace): the
	 * floor there would divide the rates.
	 */
	start = analysis_bin_start_s(a, i);
	span = end - start;
	if (span > width)
		span = width;
	if (i > 0 && span < width / 4)
		span = width / 4;
	if (!(span > 0))
		span = width;
	return span;
}

const uint32_t *analysis_bin_lat_hist(const struct analysis *a, size_t i,
				      int dir)
{
	if (!a->lat_hist || i >= a->n_bins)
		return NULL;
	return lat_hist_at(a, i, dir);
}

double analysis_bin_latency_q(const struct analysis *a, size_t i, int dir,
			      double q)
{
	uint32_t both[LAT_BIN_BUCKETS];
	double v, max;
	size_t k;

	if (!a->lat_hist || i >= a->n_bins)
		return 0;
	if (dir >= 0) {
		v = hist_quantile(lat_hist_at(a, i, dir), LAT_BIN_BUCKETS,
				  LAT_BIN_BITS, q);
		max = (double)a->bins[i].d2c_max_ns[dir];
	} else {
		for (k = 0; k < LAT_BIN_BUCKETS; k++)
			both[k] = lat_hist_at(a, i, 0)[k] +
				  lat_hist_at(a, i, 1)[k];
		v = hist_quantile(both, LAT_BIN_BUCKETS, LAT_BIN_BITS, q);
		max = (double)(a->bins[i].d2c_max_ns[0] > a->bins[i].d2c_max_ns[1] ?
			       a->bins[i].d2c_max_ns[0] : a->bins[i].d2c_max_ns[1]);
	}
	/* a bucket's midpoint may lie above the largest value seen */
	return v > max ? max : v;
}

double analysis_bin_size_q(const struct analysis *a, size_t i, int dir,
			   double q)
{
	uint32_t both[SIZE_BUCKETS];
	const uint32_t *h;
	size_t k;

	if (!a->size_hist || i >= a->n_bins)
		return 0;
	h = dir >= 0 ? size_hist_at(a, i, dir) : both;
	if (dir < 0)
		for (k = 0; k < SIZE_BUCKETS; k++)
			both[k] = size_hist_at(a, i, 0)[k] +
				  size_hist_at(a, i, 1)[k];
	k = hist_quantile_bucket(h, SIZE_BUCKETS, q);
	return k < SIZE_BUCKETS ? (double)hist_bucket_low(k, SIZE_BITS) : 0;
}

double latency_mean_ns(const struct latency_summary *l)
{
	return l->n ? l->sum_ns / (double)l->n : 0;
}

double latency_quantile_ns(const struct latency_summary *l, int dir, double q)
{
	double v;

	if (!l->hist)
		return 0;
	v = hist_quantile64(dir < 0 ? l->hist : l->hist_dir[dir],
			    LAT_SUM_BUCKETS, LAT_SUM_BITS, q);
	/* a bucket's midpoint may lie above the largest value seen */
	return v > (double)l->max_ns ? (double)l->max_ns : v;
}
