/*
 * graph_io.c: the io graph, offset against time, one panel per device:
 * a raster of classes and their mixes on one grid for every trace.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/bigmem.h"
#include "reader/blktrace.h"
#include "graphs.h"
#include "analysis/histogram.h"
#include "analysis/latpoints.h"
#include "reader/cpustat.h"
#include "graph_int.h"

/* ---- the io graph: offset against time, one panel per device ---- */

/* The binary unit offsets on this device read best in, as MiB per unit:
 * from MiB up, the numbers below 1000 (not "1.18K GiB"). */
double graph_offset_unit(double hi_mib, const char **name)
{
	static const char *const names[] = {
		"offset (bytes)", "offset (KiB)", "offset (MiB)",
		"offset (GiB)", "offset (TiB)", "offset (PiB)", "offset (EiB)",
	};
	double scale;
	int k = plot_bytes_unit(hi_mib * 1048576.0, 2, &scale);

	*name = names[k];
	return scale / 1048576.0;
}

/* The distinct devices with I/O across traces, in order of appearance. */
size_t graph_io_devices(const struct graph_ctx *ctx, uint32_t *out,
			 size_t max)
{
	size_t n = 0, t, d, k;

	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);

		for (d = 0; d < a->n_devices; d++) {
			if (!a->iomaps[d].window_set)
				continue;
			for (k = 0; k < n; k++)
				if (out[k] == a->devices[d].device)
					break;
			if (k == n && n < max)
				out[n++] = a->devices[d].device;
		}
	}
	return n;
}

/* Room above and below the offsets with I/O, as a share of their span. */
#define IO_RANGE_PAD	0.03

size_t graph_io_panels(const struct graph_ctx *ctx)
{
	uint32_t devs[MAX_IO_PANELS];
	size_t n = graph_io_devices(ctx, devs, MAX_IO_PANELS);

	return n ? n : 1;
}

/* The io graph and the offset heat map: a panel per device. */
void graph_title_device(const struct graph_ctx *ctx, size_t p, char *buf,
			 size_t len)
{
	uint32_t devs[MAX_IO_PANELS];

	if (graph_io_devices(ctx, devs, MAX_IO_PANELS) > p)
		snprintf(buf, len, "%s, device %u,%u", ctx->graph->title,
			 blk_dev_major(devs[p]), blk_dev_minor(devs[p]));
	else
		snprintf(buf, len, "%s", ctx->graph->title);
}

long graph_device_slot(const struct analysis *a, uint32_t device)
{
	size_t d;

	for (d = 0; d < a->n_devices; d++)
		if (a->devices[d].device == device &&
		    a->iomaps[d].window_set)
			return (long)d;
	return -1;
}

/* Offsets (MiB) of the lowest and highest rows holding I/O. */
void graph_io_extent(const struct graph_ctx *ctx, uint32_t device,
		      double *lo_mib, double *hi_mib)
{
	size_t t;

	*lo_mib = INFINITY;
	*hi_mib = -INFINITY;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);
		long d = graph_device_slot(a, device);
		unsigned row_lo, row_hi;
		uint64_t lo, hi, unused;

		if (d < 0 || !iomap_rows_held(&a->iomaps[d], &row_lo, &row_hi))
			continue;
		analysis_map_row_bytes(a, (size_t)d, row_lo, &lo, &unused);
		analysis_map_row_bytes(a, (size_t)d, row_hi, &unused, &hi);
		if (lo / 1048576.0 < *lo_mib)
			*lo_mib = lo / 1048576.0;
		if (hi / 1048576.0 > *hi_mib)
			*hi_mib = hi / 1048576.0;
	}
	if (ctx->opts->has_y_range) {
		*lo_mib = ctx->opts->y_min_mib;
		*hi_mib = ctx->opts->y_max_mib;
	} else if (*hi_mib > *lo_mib) {
		/* I/O at the extreme offsets clear of the frame. */
		double pad = (*hi_mib - *lo_mib) * IO_RANGE_PAD;

		*lo_mib -= pad;
		*hi_mib += pad;
	}
}

/*
 * The grid the io graph draws a device's cells on, for the traces in
 * it alike: the coarsest trace's columns and offset rows, over all the
 * traces' extent. Where two traces' I/O shares a cell it is then drawn
 * in their mix, named in the legend (plot_raster mixes the layers of one
 * grid), not in the later trace's colour over the earlier's, as two
 * grids of their own would be. One trace's grid is its map's own.
 */
#define IO_GRID_MAX_ROWS	(4 * IOMAP_ROWS)

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

struct io_grid {
	uint64_t t0_ns, col_ns;		/* column c from t0 + c * col */
	uint64_t lo_byte, row_bytes;	/* row r from lo + r * row_bytes */
	size_t cols, rows;
};

static int io_grid_of(const struct graph_ctx *ctx, uint32_t device,
		      const unsigned char *in_grid, struct io_grid *g)
{
	uint64_t end_ns = 0, top_byte = 0, lo, hi, row_hi, unused;
	size_t t;
	int any = 0;

	memset(g, 0, sizeof(*g));
	g->t0_ns = UINT64_MAX;
	g->lo_byte = UINT64_MAX;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);
		long d = graph_device_slot(a, device);

		if (d < 0 || !in_grid[t])
			continue;
		any = 1;
		analysis_map_row_bytes(a, (size_t)d, 0, &lo, &hi);
		analysis_map_row_bytes(a, (size_t)d, IOMAP_ROWS - 1, &unused,
				       &row_hi);
		end_ns = max_u64(end_ns, a->bin_origin_ns +
				 analysis_map_cols(a) * a->map_width_ns);
		top_byte = max_u64(top_byte, row_hi);
		g->t0_ns = min_u64(g->t0_ns, a->bin_origin_ns);
		g->col_ns = max_u64(g->col_ns, a->map_width_ns);
		g->lo_byte = min_u64(g->lo_byte, lo);
		g->row_bytes = max_u64(g->row_bytes, hi - lo);
	}
	if (!any || !g->col_ns || !g->row_bytes || end_ns <= g->t0_ns)
		return 0;
	g->cols = (end_ns - g->t0_ns + g->col_ns - 1) / g->col_ns;
	for (;;) {
		g->rows = (top_byte - g->lo_byte + g->row_bytes - 1) /
			  g->row_bytes;
		if (g->rows <= IO_GRID_MAX_ROWS)
			break;
		g->row_bytes *= 2;
	}
	return g->cols > 0 && g->rows > 0;
}

/* Where a map cell of a trace falls on the grid; 0 when outside. */
static int io_grid_cell(const struct io_grid *g, const struct analysis *a,
			long d, const struct iomap_point *p, size_t *col,
			size_t *row)
{
	uint64_t t = a->bin_origin_ns + p->col * a->map_width_ns, lo, hi;

	analysis_map_row_bytes(a, (size_t)d, p->row, &lo, &hi);
	if (t < g->t0_ns || lo < g->lo_byte)
		return 0;
	*col = (t - g->t0_ns) / g->col_ns;
	*row = (lo - g->lo_byte) / g->row_bytes;
	return *col < g->cols && *row < g->rows;
}

/* Draws class ci's raster on the grid, whose box (x0, x1, y0, y1) goes
 * in box; returns 1 when it had any I/O. */
static int io_raster(const struct graph_ctx *ctx,
		      const struct class_list *cl, size_t ci, long d,
		      struct plot_panel *pp, uint32_t *counts, double unit,
		      const struct io_grid *g, double *box)
{
	const struct io_class *c = &cl->items[ci];
	const struct analysis *a = graph_trace_analysis(ctx, c->trace);
	size_t i = 0, any = 0, col, row;
	struct iomap_point p;

	memset(counts, 0, g->cols * g->rows * sizeof(*counts));
	while (iomap_next(&a->iomaps[d], &i, &p)) {
		if (c->dir >= 0 ? p.dir != c->dir :
		    p.tag_slot == SIZE_MAX ||
		    cl->slot_class[c->trace][p.tag_slot] != ci)
			continue;
		if (p.col < analysis_map_cols(a) &&
		    io_grid_cell(g, a, d, &p, &col, &row)) {
			counts[row * g->cols + col] += p.count;
			any = 1;
		}
	}
	if (!any)
		return 0;
	box[0] = (double)g->t0_ns / 1e9;
	box[1] = (double)(g->t0_ns + g->cols * g->col_ns) / 1e9;
	box[2] = g->lo_byte / 1048576.0 / unit;
	box[3] = (g->lo_byte / 1048576.0 +
		  (double)g->row_bytes * g->rows / 1048576.0) / unit;
	plot_raster(pp, counts, (int)g->cols, (int)g->rows, box[0], box[1],
		    box[2], box[3], c->color);
	return 1;
}

const char *graph_io_y_label(const struct graph_ctx *ctx, size_t panel)
{
	uint32_t devs[MAX_IO_PANELS];
	const char *name = "offset (MiB)";
	double lo, hi;

	if (graph_io_devices(ctx, devs, MAX_IO_PANELS) > panel) {
		graph_io_extent(ctx, devs[panel], &lo, &hi);
		graph_offset_unit(hi, &name);
	}
	return name;
}

/*
 * Where two classes on one grid (a trace's, or two traces' mapped alike)
 * share a cell, the picture shows their colours mixed (plot_raster): the
 * legend names the mixes seen, most cells first, so that no colour drawn
 * goes unexplained.
 */
#define IO_MIXES	8	/* pairs of classes followed */
#define IO_MIXES_SHOWN	6	/* the most common, in the legend */

struct io_mix {
	size_t a, b;		/* classes */
	uint64_t cells;		/* cells holding both */
};

struct io_mixes {
	size_t *owner;		/* per cell: the first class in it, or none */
	size_t n_cells;		/* of the grid being drawn */
	size_t n;
	struct io_mix pair[IO_MIXES];
};

/* A new grid: no cell has an owner yet (the pairs seen so far stay). */
static int mixes_start_grid(struct io_mixes *m, size_t n_cells)
{
	size_t k;

	if (n_cells > m->n_cells) {
		size_t *more = bigmem_calloc(n_cells * sizeof(*more));

		if (!more)
			return -1;
		bigmem_free(m->owner);
		m->owner = more;
	}
	m->n_cells = n_cells;
	for (k = 0; k < n_cells; k++)
		m->owner[k] = SIZE_MAX;
	return 0;
}

static void mixes_note(struct io_mixes *m, const uint32_t *counts,
		       size_t n_cells, size_t ci)
{
	size_t k, j;

	for (k = 0; k < n_cells; k++) {
		size_t o = m->owner[k];

		if (!counts[k])
			continue;
		if (o == SIZE_MAX) {
			m->owner[k] = ci;
			continue;
		}
		for (j = 0; j < m->n; j++)
			if (m->pair[j].a == o && m->pair[j].b == ci)
				break;
		if (j == m->n && m->n == IO_MIXES)
			continue;
		if (j == m->n) {
			m->pair[j].a = o;
			m->pair[j].b = ci;
			m->pair[j].cells = 0;
			m->n++;
		}
		m->pair[j].cells++;
	}
}

static int cmp_mix_cells(const void *x, const void *y)
{
	const struct io_mix *a = x, *b = y;

	return (a->cells < b->cells) - (a->cells > b->cells);
}

/* "read + write"; with several traces "run1 read + write" or
 * "run1 write + run2 write". */
static void mixes_legend(const struct graph_ctx *ctx,
			 const struct class_list *cl, struct io_mixes *m,
			 struct plot_panel *pp)
{
	size_t j;

	qsort(m->pair, m->n, sizeof(m->pair[0]), cmp_mix_cells);
	for (j = 0; j < m->n && j < IO_MIXES_SHOWN; j++) {
		const struct io_class *a = &cl->items[m->pair[j].a];
		const struct io_class *b = &cl->items[m->pair[j].b];
		size_t skip = ctx->n_traces > 1 && a->trace == b->trace ?
			strlen(ctx->traces[a->trace].label) + 1 : 0;
		char label[300];

		if (strlen(a->label) < skip || strlen(b->label) < skip)
			skip = 0;
		snprintf(label, sizeof(label), "%s + %s", a->label,
			 b->label + skip);
		plot_legend_mix(pp, label, a->color, b->color);
	}
}

/* The cells holding I/O in trace t's map of the device. */
static size_t io_cells(const struct graph_ctx *ctx, size_t t, uint32_t device)
{
	const struct analysis *a = graph_trace_analysis(ctx, t);
	long d = graph_device_slot(a, device);
	struct iomap_point p;
	size_t i = 0, n = 0;

	while (d >= 0 && iomap_next(&a->iomaps[d], &i, &p))
		n++;
	return n;
}

/*
 * Which traces share the device's grid (apart[t] 0) and which are drawn
 * on their own, under it (1): a trace of a few cells beside a dense one
 * (9 ms of dd beside 5 s of fio) would be a sliver of a column on the
 * shared grid; on its own it is drawn as dots, which show it, and the
 * dense trace's cells over them stay seen. Where all are few, they share
 * the grid, as dots.
 */
static void io_apart(const struct graph_ctx *ctx, struct plot_panel *pp,
		     uint32_t device, unsigned char *apart)
{
	size_t t, total = 0;

	for (t = 0; t < ctx->n_traces; t++)
		total += io_cells(ctx, t, device);
	for (t = 0; t < ctx->n_traces; t++)
		apart[t] = !plot_raster_sparse(pp, total) &&
			   plot_raster_sparse(pp, io_cells(ctx, t, device));
}

/* Draws the classes of the traces on the grid of those in_grid; their
 * legend entries in listed[class]. Returns -1 out of memory. */
static int io_draw_grid(const struct graph_ctx *ctx,
			const struct class_list *cl, uint32_t device,
			const unsigned char *in_grid,
			struct plot_panel *pp, double unit,
			struct io_mixes *mixes, unsigned char *listed)
{
	struct io_grid grid;
	uint32_t *counts;
	double box[4];
	size_t i;

	if (!io_grid_of(ctx, device, in_grid, &grid))
		return 0;
	counts = bigmem_calloc(grid.cols * grid.rows * sizeof(*counts));
	if (!counts)
		return -1;
	if (mixes_start_grid(mixes, grid.cols * grid.rows) < 0) {
		bigmem_free(counts);
		return -1;
	}
	for (i = 0; i < cl->n; i++) {
		size_t t = cl->items[i].trace;
		long d = graph_device_slot(graph_trace_analysis(ctx, t), device);

		if (d < 0 || !in_grid[t] ||
		    !io_raster(ctx, cl, i, d, pp, counts, unit, &grid, box))
			continue;
		mixes_note(mixes, counts, grid.cols * grid.rows, i);
		listed[i] = 1;
	}
	bigmem_free(counts);
	return 0;
}

int graph_draw_io(const struct graph_ctx *ctx, size_t panel,
		   struct plot_panel *pp, struct iow_error *err)
{
	uint32_t devs[MAX_IO_PANELS];
	size_t n_devs = graph_io_devices(ctx, devs, MAX_IO_PANELS), i, t;
	unsigned char *listed, *apart, *in_grid;
	const char *labels[64];
	int colors[64], r = 0;
	size_t n_legend = 0;
	struct io_mixes mixes = { .owner = NULL };
	struct class_list cl;
	double lo, hi, unit;
	const char *unit_name;

	plot_panel_set_x(pp, ctx->x_min, ctx->x_max);
	if (!n_devs) {
		plot_panel_note(pp, "no I/O of this action in range");
		return 0;
	}
	graph_io_extent(ctx, devs[panel], &lo, &hi);
	unit = graph_offset_unit(hi, &unit_name);
	plot_panel_set_y_exact(pp, lo / unit, hi / unit);
	if (build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return iow_fail(err, "out of memory");
	}
	/* a flag per class, then two per trace */
	listed = calloc(cl.n + 2 * ctx->n_traces + 1, 1);
	if (!listed) {
		class_list_free(&cl, ctx->n_traces);
		return iow_fail(err, "out of memory");
	}
	apart = listed + cl.n;
	in_grid = apart + ctx->n_traces;
	/* each trace apart first, then the shared grid over them */
	io_apart(ctx, pp, devs[panel], apart);
	for (t = 0; r == 0 && t < ctx->n_traces; t++) {
		if (!apart[t])
			continue;
		memset(in_grid, 0, ctx->n_traces);
		in_grid[t] = 1;
		r = io_draw_grid(ctx, &cl, devs[panel], in_grid, pp, unit,
				 &mixes, listed);
	}
	for (t = 0; t < ctx->n_traces; t++)
		in_grid[t] = !apart[t];
	if (r == 0)
		r = io_draw_grid(ctx, &cl, devs[panel], in_grid, pp, unit,
				 &mixes, listed);
	for (i = 0; r == 0 && i < cl.n && n_legend < 64; i++) {
		if (!listed[i])
			continue;
		labels[n_legend] = cl.items[i].label;
		colors[n_legend++] = cl.items[i].color;
	}
	if (r == 0) {
		plot_legend(pp, labels, colors, n_legend);
		mixes_legend(ctx, &cl, &mixes, pp);
	}
	free(listed);
	bigmem_free(mixes.owner);
	class_list_free(&cl, ctx->n_traces);
	return r < 0 ? iow_fail(err, "out of memory") : 0;
}
