/* zoommap.c: the I/O map at a report's detail (see zoommap.h). */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "reader/blktrace.h"
#include "analysis/iomap.h"
#include "zoommap.h"

void zoommap_init(struct zoommap *z, uint64_t first_width_ns,
		  size_t max_cells)
{
	memset(z, 0, sizeof(*z));
	z->width_ns = first_width_ns;
	z->next_coarsen = 2;
	z->max_cells = max_cells;
}

static int cmp_cells(const void *x, const void *y)
{
	const struct zoom_cell *a = x, *b = y;

	if (a->col != b->col)
		return (a->col > b->col) - (a->col < b->col);
	if (a->row != b->row)
		return (a->row > b->row) - (a->row < b->row);
	if (a->dir != b->dir)
		return (a->dir > b->dir) - (a->dir < b->dir);
	return (a->tag_slot > b->tag_slot) - (a->tag_slot < b->tag_slot);
}

static int same_cell(const struct zoom_cell *a, const struct zoom_cell *b)
{
	return a->col == b->col && a->row == b->row && a->dir == b->dir &&
	       a->tag_slot == b->tag_slot;
}

static uint32_t add_sat(uint32_t a, uint32_t b)
{
	return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* Sorts v[0..n) and adds up the cells with one key; returns how many
 * are left. A column holds a few cells: those are sorted in place. */
static size_t sort_merge(struct zoom_cell *v, size_t n)
{
	size_t i, j, out = 0;

	if (n > 24) {
		qsort(v, n, sizeof(*v), cmp_cells);
	} else {
		for (i = 1; i < n; i++) {
			struct zoom_cell c = v[i];

			for (j = i; j > 0 && cmp_cells(&v[j - 1], &c) > 0; j--)
				v[j] = v[j - 1];
			v[j] = c;
		}
	}
	for (i = 0; i < n; i++) {
		if (out && same_cell(&v[out - 1], &v[i])) {
			v[out - 1].count = add_sat(v[out - 1].count, v[i].count);
			v[out - 1].sectors = add_sat(v[out - 1].sectors,
						     v[i].sectors);
			continue;
		}
		v[out++] = v[i];
	}
	return out;
}

static int grow(struct zoom_cell **v, size_t *cap, size_t need)
{
	struct zoom_cell *more;

	if (need <= *cap)
		return 0;
	more = vec_grow(*v, cap, need, sizeof(*more), 256);
	if (!more)
		return -1;
	*v = more;
	return 0;
}

/* The column gathered joins the device's cells, sorted. */
static void flush_column(struct zoommap *z, struct zoom_device *d)
{
	size_t n;

	if (!d->n_cur)
		return;
	n = sort_merge(d->cur, d->n_cur);
	if (grow(&d->cells, &d->cap, d->n + n) < 0) {
		z->failed = 1;
		d->n_cur = 0;
		return;
	}
	memcpy(d->cells + d->n, d->cur, n * sizeof(*d->cur));
	d->n += n;
	z->cells += n;
	d->n_cur = 0;
}

/*
 * A column's untagged cells merged in order through a row-by-direction
 * table (the column's cells may come from several, each in order): no
 * sort. Returns the cells written at out, or SIZE_MAX when some cell is
 * tagged (then the caller sorts).
 */
static size_t merge_untagged(struct zoom_cell *v, size_t n,
			     struct zoom_cell *out, struct zoom_cell *slots,
			     uint16_t *used)
{
	size_t k, j, w = 0, n_used = 0;

	for (k = 0; k < n; k++)
		if (v[k].tag_slot >= 0 || v[k].row >= IOMAP_ROWS ||
		    v[k].dir > 1)
			return SIZE_MAX;
	for (k = 0; k < n; k++) {
		uint16_t at = (uint16_t)(v[k].row * 2 + v[k].dir);
		struct zoom_cell *s = &slots[at];

		if (!s->count) {
			*s = v[k];
			/* the slots used, in order (a few: sorted as they
			 * come) */
			for (j = n_used++; j > 0 && used[j - 1] > at; j--)
				used[j] = used[j - 1];
			used[j] = at;
			continue;
		}
		s->count = add_sat(s->count, v[k].count);
		s->sectors = add_sat(s->sectors, v[k].sectors);
	}
	for (k = 0; k < n_used; k++) {
		out[w++] = slots[used[k]];
		slots[used[k]].count = 0;
	}
	return w;
}

/* Cells whose columns or rows changed: each column merged again (a
 * column's cells stay together: their order by column holds). */
static void remerge(struct zoommap *z, struct zoom_device *d)
{
	struct zoom_cell *slots = calloc(IOMAP_ROWS * 2, sizeof(*slots));
	uint16_t used[IOMAP_ROWS * 2];
	size_t i = 0, out = 0;

	while (i < d->n) {
		size_t j = i, k = SIZE_MAX;

		while (j < d->n && d->cells[j].col == d->cells[i].col)
			j++;
		/* the table writes behind what it reads: out <= i */
		if (slots)
			k = merge_untagged(d->cells + i, j - i, d->cells + out,
					   slots, used);
		if (k == SIZE_MAX) {
			k = sort_merge(d->cells + i, j - i);
			memmove(d->cells + out, d->cells + i,
				k * sizeof(*d->cells));
		}
		out += k;
		i = j;
	}
	free(slots);
	z->cells -= d->n - out;
	d->n = out;
}

void zoommap_coarsen(struct zoommap *z)
{
	unsigned f = z->next_coarsen;
	size_t i, k;

	for (i = 0; i < z->n_devs; i++) {
		struct zoom_device *d = &z->devs[i];

		for (k = 0; k < d->n; k++)
			d->cells[k].col /= f;
		for (k = 0; k < d->n_cur; k++)
			d->cur[k].col /= f;
		d->cur_col /= f;
		remerge(z, d);
	}
	z->width_ns *= f;
	z->cols = (z->cols + f - 1) / f;
	z->next_coarsen = f == 2 ? 5 : 2;
}

/*
 * The analysis's map widened its window: rows halve as its rows did
 * (the same arithmetic: old row r's first sector, in the new rows).
 */
static void rewindow(struct zoommap *z, struct zoom_device *d,
		     const struct iomap *m)
{
	size_t k;

	for (k = 0; k < d->n; k++)
		d->cells[k].row = (uint16_t)iomap_row_of(m, d->lo_sector +
			(uint64_t)d->cells[k].row * d->row_sectors);
	for (k = 0; k < d->n_cur; k++)
		d->cur[k].row = (uint16_t)iomap_row_of(m, d->lo_sector +
			(uint64_t)d->cur[k].row * d->row_sectors);
	remerge(z, d);
	d->n_cur = sort_merge(d->cur, d->n_cur);
	d->lo_sector = m->lo_sector;
	d->row_sectors = m->row_sectors;
}

static struct zoom_device *device_of(struct zoommap *z, size_t slot)
{
	struct zoom_device *more;

	if (slot < z->n_devs)
		return &z->devs[slot];
	more = realloc(z->devs, (slot + 1) * sizeof(*more));
	if (!more)
		return NULL;
	memset(&more[z->n_devs], 0, (slot + 1 - z->n_devs) * sizeof(*more));
	z->devs = more;
	z->n_devs = slot + 1;
	return &z->devs[slot];
}

/* Adds one I/O to the current column's cells (few: a linear look). */
static void add_current(struct zoommap *z, struct zoom_device *d,
			const struct zoom_cell *c)
{
	size_t k;

	for (k = d->n_cur; k-- > 0;)
		if (same_cell(&d->cur[k], c)) {
			d->cur[k].count = add_sat(d->cur[k].count, 1);
			d->cur[k].sectors = add_sat(d->cur[k].sectors,
						    c->sectors);
			return;
		}
	if (grow(&d->cur, &d->cap_cur, d->n_cur + 1) < 0) {
		z->failed = 1;
		return;
	}
	d->cur[d->n_cur++] = *c;
	/* a wide column of random I/O gathers many: fold them now */
	if (d->n_cur >= 4096 && !(d->n_cur & 4095))
		d->n_cur = sort_merge(d->cur, d->n_cur);
}

void zoommap_on_map(void *ctx, const struct analysis *a, size_t slot,
		    const struct io_event *ev, long tag_slot)
{
	struct zoommap *z = ctx;
	struct zoom_device *d = device_of(z, slot);
	const struct iomap *m = &a->iomaps[slot];
	struct zoom_cell c;
	uint64_t col;

	if (!d) {
		z->failed = 1;
		return;
	}
	z->origin_ns = a->bin_origin_ns;
	if (m->lo_sector != d->lo_sector || m->row_sectors != d->row_sectors)
		rewindow(z, d, m);
	col = (ev->time_ns - a->bin_origin_ns) / z->width_ns;
	while (col > UINT32_MAX / 2) {
		zoommap_coarsen(z);
		col = (ev->time_ns - a->bin_origin_ns) / z->width_ns;
	}
	if (d->n_cur && col != d->cur_col) {
		flush_column(z, d);
		if (z->cells > z->max_cells) {
			zoommap_coarsen(z);
			col = (ev->time_ns - a->bin_origin_ns) / z->width_ns;
		}
	}
	d->cur_col = (uint32_t)col;
	if (col >= z->cols)
		z->cols = (size_t)col + 1;
	c.col = (uint32_t)col;
	c.row = (uint16_t)iomap_row_of(m, ev->sector);
	c.dir = (uint8_t)blk_is_write(ev->action);
	c.tag_slot = (int32_t)tag_slot;
	c.count = 1;
	c.sectors = (ev->bytes + 511) / 512;
	add_current(z, d, &c);
}

void zoommap_finish(struct zoommap *z)
{
	size_t i;

	for (i = 0; i < z->n_devs; i++)
		flush_column(z, &z->devs[i]);
}

void zoommap_free(struct zoommap *z)
{
	size_t i;

	for (i = 0; i < z->n_devs; i++) {
		free(z->devs[i].cells);
		free(z->devs[i].cur);
	}
	free(z->devs);
	memset(z, 0, sizeof(*z));
}
