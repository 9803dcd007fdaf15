/*
 * graph_latency.c: latency and offset distributions: the latency heat
 * map and scatter, the offset heat map, the log2 latency histogram.
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

/* ---- latency distributions ---- */

/* Heat-map rows per power of two of latency. */
#define LAT_ROWS_PER_OCTAVE 4
/* Heat maps merge time bins down to about this many columns, so that
 * a cell's colour is a count worth reading, not speckle of ones. */
#define HEATMAP_COLUMNS 200

/*
 * cells[rows][cols] summed over gx columns and gy rows into a new array
 * of *cols_out x *rows_out; NULL when out of memory.
 */
static uint32_t *merge_cells(const uint32_t *cells, size_t cols, size_t rows,
			     size_t gx, size_t gy, size_t *cols_out,
			     size_t *rows_out)
{
	size_t nc = (cols + gx - 1) / gx, nr = (rows + gy - 1) / gy, r, c;
	uint32_t *out = calloc(nc * nr + 1, sizeof(*out));

	if (!out)
		return NULL;
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++) {
			uint32_t *o = &out[(r / gy) * nc + c / gx];
			uint64_t v = (uint64_t)*o + cells[r * cols + c];

			*o = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		}
	*cols_out = nc;
	*rows_out = nr;
	return out;
}

static size_t heatmap_group(size_t n_bins)
{
	return n_bins > HEATMAP_COLUMNS ?
		       (n_bins + HEATMAP_COLUMNS - 1) / HEATMAP_COLUMNS : 1;
}

/*
 * The latency range (ns) any selected direction of any trace reaches:
 * the panels of several traces share it, so that they compare.
 */
int graph_latency_extent(const struct graph_ctx *ctx, int dirs, double *lo,
			  double *hi)
{
	size_t i, t;
	int d;

	*lo = INFINITY;
	*hi = 0;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);

		for (i = 0; i < a->n_bins; i++)
			for (d = 0; d < N_DATA_OPS; d++) {
				if (!(dirs & (1 << d)) || !a->bins[i].d2c_n[d])
					continue;
				if ((double)a->bins[i].d2c_max_ns[d] > *hi)
					*hi = (double)a->bins[i].d2c_max_ns[d];
				if (analysis_bin_latency_q(a, i, d, 0) < *lo)
					*lo = analysis_bin_latency_q(a, i, d, 0);
			}
	}
	if (*hi <= 0)
		return -1;
	/* room around the data, so a band at the extremes is not on the frame */
	*lo /= 2;
	*hi *= 2;
	if (*lo < 1000)
		*lo = 1000;
	plot_log_range(lo, hi, 1);
	return 0;
}

/*
 * Counts of trace t's completions per (time bin, log-spaced latency row)
 * for the directions in dirs: rows are even in log space from lo to hi,
 * each fine bucket going to the row of its midpoint.
 */
/*
 * What one heat map or scatter panel shows: the ops in dirs of a trace,
 * or (cls >= 0) the data I/O of one tag class of a tagged trace.
 */

/* Add bin i's histogram h into its column of cells. */
static void add_hist_cells(uint32_t *cells, size_t cols, size_t i, int rows,
			   const uint32_t *h, double lo, double hi)
{
	size_t k;

	for (k = 0; k < LAT_BIN_BUCKETS; k++) {
		double mid;
		int row;

		if (!h[k])
			continue;
		mid = ((double)hist_bucket_low(k, LAT_BIN_BITS) +
		       (double)hist_bucket_high(k, LAT_BIN_BITS)) / 2;
		row = (int)floor(log(mid / lo) / log(hi / lo) * rows);
		if (row < 0)
			row = 0;
		if (row >= rows)
			row = rows - 1;
		cells[(size_t)row * cols + i] += h[k];
	}
}

uint32_t *graph_latency_cells(const struct heat_source *src, double lo,
			       double hi, int *rows_out)
{
	const struct analysis *a = src->a;
	int rows = (int)ceil(log2(hi / lo) * LAT_ROWS_PER_OCTAVE);
	uint32_t *cells;
	size_t i, s;
	int d;

	if (rows < 1)
		rows = 1;
	cells = calloc((size_t)rows * (a->n_bins + 1), sizeof(*cells));
	if (!cells)
		return cells;
	for (i = 0; i < a->n_bins; i++) {
		if (src->cls >= 0) {
			for (s = 0; s < a->n_tags; s++) {
				const uint32_t *h;

				if (!graph_in_class(src->cl, src->trace, s,
					      (size_t)src->cls) ||
				    !(h = analysis_tag_lat_hist(a, s, i)))
					continue;
				add_hist_cells(cells, a->n_bins, i, rows, h,
					       lo, hi);
			}
			continue;
		}
		for (d = 0; d < N_DATA_OPS; d++) {
			const uint32_t *h = analysis_bin_lat_hist(a, i, d);

			if (h && (src->dirs & (1 << d)) && a->bins[i].d2c_n[d])
				add_hist_cells(cells, a->n_bins, i, rows, h,
					       lo, hi);
		}
	}
	*rows_out = rows;
	return cells;
}

/* The span of a trace's heat map cell: its bins merged by heatmap_group. */
static double heat_cell_s(const struct analysis *a)
{
	return (double)a->bin_width_ns / 1e9 * (double)heatmap_group(a->n_bins);
}

/* Whether a source has D2C samples to show. */
int graph_has_completions(const struct heat_source *src)
{
	const struct analysis *a = src->a;
	size_t i, s;
	int d;

	if (src->cls < 0) {
		for (d = 0; d < N_DATA_OPS; d++)
			if ((src->dirs & (1 << d)) && graph_d2c_count(a, d))
				return 1;
		return 0;
	}
	for (s = 0; s < a->n_tags; s++)
		if (graph_in_class(src->cl, src->trace, s, (size_t)src->cls))
			for (i = 0; i < a->n_bins; i++)
				if (a->tags[s].bins[i].d2c_n)
					return 1;
	return 0;
}

/*
 * Panel p of the latency heat map and scatter: a trace each, and where a
 * trace is tagged, one per tag class of it with data I/O (so that which
 * process waits shows). Fills src; 0 when there is no such panel.
 */
int graph_heat_source_of(const struct graph_ctx *ctx,
			  const struct class_list *cl, size_t p,
			  struct heat_source *src)
{
	size_t t, ci, n = 0;

	for (t = 0; t < ctx->n_traces; t++) {
		src->a = graph_trace_analysis(ctx, t);
		src->dirs = ctx->opts->latency_dirs;
		src->cl = cl;
		src->trace = t;
		src->cls = -1;
		if (!ctx->tagged || !src->a->tagging) {
			if (n++ == p)
				return 1;
			continue;
		}
		for (ci = 0; ci < cl->n; ci++) {
			if (cl->items[ci].trace != t)
				continue;
			src->cls = (long)ci;
			if (graph_has_completions(src) && n++ == p)
				return 1;
		}
	}
	return 0;
}

size_t graph_heat_panels(const struct graph_ctx *ctx)
{
	struct class_list cl;
	struct heat_source src;
	size_t n = 0;

	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return ctx->n_traces;
	}
	while (graph_heat_source_of(ctx, &cl, n, &src))
		n++;
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
	return n ? n : 1;
}

/*
 * A trace's heat map cells, counted per cell_s seconds: a trace of finer
 * cells has its counts scaled up to that span (a count kept at 1 at
 * least), so that traces of other bin widths compare on one colour bar.
 */
static uint32_t *heat_cells(const struct heat_source *src, double lo,
			    double hi, double cell_s, size_t *cols,
			    size_t *rows)
{
	const struct analysis *a = src->a;
	size_t g = heatmap_group(a->n_bins), k;
	double f = cell_s / heat_cell_s(a);
	uint32_t *cells, *merged;
	int r = 0;

	cells = graph_latency_cells(src, lo, hi, &r);
	if (!cells)
		return NULL;
	merged = merge_cells(cells, a->n_bins, (size_t)r, g, 1, cols, rows);
	free(cells);
	for (k = 0; merged && f > 1 && k < *cols * *rows; k++)
		if (merged[k])
			merged[k] = (uint32_t)fmin(UINT32_MAX,
						   fmax(1, round(merged[k] * f)));
	return merged;
}

/* The widest cell and the largest count over every panel's heat map. */
static int heat_scale(const struct graph_ctx *ctx,
		      const struct class_list *cl, double lo, double hi,
		      double *cell_s, uint32_t *max)
{
	struct heat_source src;
	size_t p, k, cols, rows;

	*cell_s = 0;
	*max = 1;
	for (p = 0; graph_heat_source_of(ctx, cl, p, &src); p++)
		if (graph_has_completions(&src))
			*cell_s = fmax(*cell_s, heat_cell_s(src.a));
	for (p = 0; graph_heat_source_of(ctx, cl, p, &src); p++) {
		uint32_t *cells;

		if (!graph_has_completions(&src))
			continue;
		cells = heat_cells(&src, lo, hi, *cell_s, &cols, &rows);
		if (!cells)
			return -1;
		for (k = 0; k < cols * rows; k++)
			if (cells[k] > *max)
				*max = cells[k];
		free(cells);
	}
	return 0;
}

/* Heat maps of several traces or tag classes share the latency axis and
 * the colour bar. */
static int draw_heatmap_panel(const struct graph_ctx *ctx,
			      const struct heat_source *src,
			      struct plot_panel *pp, struct iow_error *err,
			      double lo, double hi)
{
	const struct analysis *a = src->a;
	size_t g = heatmap_group(a->n_bins), mc, mr;
	char span[PLOT_LABEL_LEN], label[PLOT_LABEL_LEN + 16];
	uint32_t *merged, max;
	double cell_s;

	if (heat_scale(ctx, src->cl, lo, hi, &cell_s, &max) < 0)
		return iow_fail(err, "out of memory");
	merged = heat_cells(src, lo, hi, cell_s, &mc, &mr);
	if (!merged)
		return iow_fail(err, "out of memory");
	plot_format_seconds(cell_s, NULL, span, sizeof(span));
	snprintf(label, sizeof(label), "I/Os per %s", span);
	plot_heatmap_scale(pp, max);
	plot_heatmap(pp, merged, (int)mc, (int)mr, analysis_bin_start_s(a, 0),
		     analysis_bin_start_s(a, mc * g), lo, hi, label);
	free(merged);
	return 0;
}

/* ---- the scatter: each I/O at its own latency ---- */

/* The scatter's grid, over the panel: merged down to what the page
 * shows, a cell is a few px, not a quarter of an octave. */
#define SCATTER_COLS	1024
#define SCATTER_ROWS	512

struct tag_id {
	int32_t id;
	size_t slot;
};

static int cmp_tag_id(const void *a, const void *b)
{
	const struct tag_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Whether point p is of the source: its op, or its tag in the class. */
static int point_of(const struct heat_source *src, const struct tag_id *ids,
		    const struct latency_point *p)
{
	struct tag_id key = { p->tag, 0 }, *hit;

	if (src->cls < 0)
		return (src->dirs & (1 << p->op)) != 0;
	hit = bsearch(&key, ids, src->a->n_tags, sizeof(*ids), cmp_tag_id);
	return hit && graph_in_class(src->cl, src->trace, hit->slot,
			       (size_t)src->cls);
}

/* Trace t's tag ids and slots, sorted by id (NULL: none or no memory). */
static struct tag_id *tag_ids(const struct analysis *a)
{
	struct tag_id *ids = calloc(a->n_tags + 1, sizeof(*ids));
	size_t s;

	for (s = 0; ids && s < a->n_tags; s++) {
		ids[s].id = a->tags[s].id;
		ids[s].slot = s;
	}
	if (ids)
		qsort(ids, a->n_tags, sizeof(*ids), cmp_tag_id);
	return ids;
}

/* The latency axis of the scatter, shared by its panels. */
struct scatter_axis {
	double lo, hi;		/* ns */
	int log;
};

/*
 * The range of the points every panel shows, and whether the axis is a
 * log one: as --latency-axis says, or (auto) where they span more than
 * two decades. -1 when there is no point; -2 when points are missing.
 */
static int scatter_extent(const struct graph_ctx *ctx,
			  const struct class_list *cl,
			  struct scatter_axis *ax)
{
	double min = INFINITY, max = 0;
	struct heat_source src;
	size_t p, k;

	for (p = 0; graph_heat_source_of(ctx, cl, p, &src); p++) {
		const struct latency_points *pts = ctx->traces[src.trace].points;
		const struct latency_point *v = pts ? latency_points_items(pts) :
						      NULL;
		struct tag_id *ids = src.cls >= 0 ? tag_ids(src.a) : NULL;

		if (!pts || pts->failed || (src.cls >= 0 && !ids)) {
			free(ids);
			return -2;
		}
		for (k = 0; k < latency_points_n(pts); k++) {
			if (v[k].time_s < ctx->x_min || v[k].time_s > ctx->x_max ||
			    !point_of(&src, ids, &v[k]))
				continue;
			min = fmin(min, v[k].d2c_ns);
			max = fmax(max, v[k].d2c_ns);
		}
		free(ids);
	}
	if (!(max > 0))
		return -1;
	ax->log = ctx->opts->latency_axis == LATENCY_AXIS_LOG ||
		  (ctx->opts->latency_axis == LATENCY_AXIS_AUTO &&
		   max > 100 * fmax(min, 1));
	if (ax->log) {
		/* room around the points, in whole decades */
		ax->lo = fmax(min, 1) / 2;
		ax->hi = max * 2;
		plot_log_range(&ax->lo, &ax->hi, 1);
	} else {
		ax->lo = 0;
		ax->hi = max * 1.05;
	}
	return 0;
}

/* The row of latency v on the axis, or -1 off it. */
static long scatter_row(const struct scatter_axis *ax, double v)
{
	double f = ax->log ? log(v / ax->lo) / log(ax->hi / ax->lo)
			   : (v - ax->lo) / (ax->hi - ax->lo);

	if (!(f >= 0) || f > 1)
		return -1;
	return f >= 1 ? SCATTER_ROWS - 1 : (long)(f * SCATTER_ROWS);
}

/* The points of src (one op, or a tag class) counted on the grid. */
static void scatter_cells(const struct graph_ctx *ctx,
			  const struct heat_source *src,
			  const struct tag_id *ids,
			  const struct scatter_axis *ax, uint32_t *cells)
{
	const struct latency_points *pts = ctx->traces[src->trace].points;
	const struct latency_point *v = latency_points_items(pts);
	double span = ctx->x_max - ctx->x_min;
	size_t k;

	memset(cells, 0, SCATTER_COLS * SCATTER_ROWS * sizeof(*cells));
	for (k = 0; k < latency_points_n(pts); k++) {
		double f = (v[k].time_s - ctx->x_min) / span;
		long row;

		if (!(f >= 0) || f > 1 || !point_of(src, ids, &v[k]) ||
		    (row = scatter_row(ax, v[k].d2c_ns)) < 0)
			continue;
		cells[(size_t)row * SCATTER_COLS +
		      (f >= 1 ? SCATTER_COLS - 1 : (size_t)(f * SCATTER_COLS))]++;
	}
}

/* The scatter: each direction (or the tag class) its own raster, every
 * I/O at its completion's time and its own D2C. */
static int draw_scatter_panel(const struct graph_ctx *ctx,
			      const struct heat_source *src,
			      struct plot_panel *pp, struct iow_error *err,
			      const struct scatter_axis *ax)
{
	const char *labels[N_OPS];
	int colors[N_OPS], d;
	size_t n_legend = 0;
	struct heat_source one = *src;
	struct tag_id *ids = src->cls >= 0 ? tag_ids(src->a) : NULL;
	uint32_t *cells = bigmem_calloc(SCATTER_COLS * SCATTER_ROWS *
					sizeof(*cells));

	if (!cells || (src->cls >= 0 && !ids)) {
		bigmem_free(cells);
		free(ids);
		return iow_fail(err, "out of memory");
	}
	for (d = 0; d < N_DATA_OPS; d++) {
		int color;

		if (src->cls < 0) {
			if (!(src->dirs & (1 << d)) || !graph_d2c_count(src->a, d))
				continue;
			one.dirs = 1 << d;
			color = graph_dir_color(ctx, src->trace, d);
			labels[n_legend] = io_op_name(d);
		} else {
			if (d)
				break;
			color = src->cl->items[src->cls].color;
			labels[n_legend] = src->cl->items[src->cls].label;
		}
		scatter_cells(ctx, &one, ids, ax, cells);
		plot_raster(pp, cells, SCATTER_COLS, SCATTER_ROWS, ctx->x_min,
			    ctx->x_max, ax->lo, ax->hi, color);
		colors[n_legend++] = color;
	}
	plot_legend(pp, labels, colors, n_legend);
	/* where reads and writes share a cell, it shows their mix */
	if (n_legend > 1) {
		char mix[64];

		snprintf(mix, sizeof(mix), "%s + %s", labels[0], labels[1]);
		plot_legend_mix(pp, mix, colors[0], colors[1]);
	}
	bigmem_free(cells);
	free(ids);
	return 0;
}

static int draw_latency_cells(const struct graph_ctx *ctx, size_t panel,
			      struct plot_panel *pp, struct iow_error *err,
			      int scatter)
{
	struct class_list cl;
	struct heat_source src;
	struct scatter_axis ax;
	double lo, hi;
	int r = 0, ext = 0;

	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return iow_fail(err, "out of memory");
	}
	plot_panel_set_x(pp, ctx->x_min, ctx->x_max);
	if (!graph_heat_source_of(ctx, &cl, panel, &src) || !graph_has_completions(&src) ||
	    (!scatter && graph_latency_extent(ctx, ctx->opts->latency_dirs, &lo,
					&hi) < 0) ||
	    (scatter && (ext = scatter_extent(ctx, &cl, &ax)) < 0)) {
		if (ext == -2)
			r = iow_fail(err, "out of memory keeping each I/O's latency");
		plot_panel_note(pp, "no completions in range");
	} else if (scatter) {
		if (ax.log) {
			plot_panel_set_y_log(pp, ax.lo, ax.hi);
			plot_panel_set_y_label(pp, "latency (log scale)");
		} else {
			plot_panel_set_y(pp, ax.lo, ax.hi);
		}
		r = draw_scatter_panel(ctx, &src, pp, err, &ax);
	} else {
		plot_panel_set_y_log(pp, lo, hi);
		r = draw_heatmap_panel(ctx, &src, pp, err, lo, hi);
	}
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
	return r;
}

/*
 * The title of panel p of the heat map and scatter: which trace, and
 * which tag class where the trace is tagged.
 */
void graph_title_heat(const struct graph_ctx *ctx, size_t p, char *buf,
		       size_t len)
{
	const char *title = ctx->graph->title;
	char sum[64];
	struct class_list cl;
	struct heat_source src;

	graph_devices_note(ctx, sum, sizeof(sum));
	snprintf(buf, len, "%s%s", title, sum);
	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return;
	}
	if (graph_heat_source_of(ctx, &cl, p, &src)) {
		if (src.cls >= 0)
			snprintf(buf, len, "%s%s, %s", title, sum,
				 cl.items[src.cls].label);
		else if (ctx->n_traces > 1)
			snprintf(buf, len, "%s%s, %s", title, sum,
				 ctx->traces[src.trace].label);
	}
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
}

int graph_draw_latency_heatmap(const struct graph_ctx *ctx, size_t panel,
				struct plot_panel *pp, struct iow_error *err)
{
	return draw_latency_cells(ctx, panel, pp, err, 0);
}

int graph_draw_latency_scatter(const struct graph_ctx *ctx, size_t panel,
				struct plot_panel *pp, struct iow_error *err)
{
	return draw_latency_cells(ctx, panel, pp, err, 1);
}

/* Bytes per (time bin, offset row) of one device, as a heat map. */
/*
 * Panel p of the offset heat map: a device, and with several traces a
 * trace of it each (heat maps do not overlay). Fills the device, the
 * trace and the device's slot in it; 0 when there is no such panel.
 */
int graph_offset_panel(const struct graph_ctx *ctx, size_t p, uint32_t *dev,
			size_t *trace, long *slot)
{
	uint32_t devs[MAX_IO_PANELS];
	size_t n_devs = graph_io_devices(ctx, devs, MAX_IO_PANELS), i, t, n = 0;

	for (i = 0; i < n_devs; i++)
		for (t = 0; t < ctx->n_traces; t++) {
			long d = graph_device_slot(graph_trace_analysis(ctx, t), devs[i]);

			if (d < 0 || n++ != p)
				continue;
			*dev = devs[i];
			*trace = t;
			*slot = d;
			return 1;
		}
	return 0;
}

size_t graph_offset_panels(const struct graph_ctx *ctx)
{
	uint32_t dev;
	size_t t, n = 0;
	long d;

	while (graph_offset_panel(ctx, n, &dev, &t, &d))
		n++;
	return n ? n : 1;
}

void graph_title_offset(const struct graph_ctx *ctx, size_t p, char *buf,
			 size_t len)
{
	uint32_t dev;
	size_t t;
	long d;

	if (!graph_offset_panel(ctx, p, &dev, &t, &d))
		snprintf(buf, len, "%s", ctx->graph->title);
	else if (ctx->n_traces > 1)
		snprintf(buf, len, "%s, device %u,%u, %s", ctx->graph->title,
			 blk_dev_major(dev), blk_dev_minor(dev),
			 ctx->traces[t].label);
	else
		snprintf(buf, len, "%s, device %u,%u", ctx->graph->title,
			 blk_dev_major(dev), blk_dev_minor(dev));
}

int graph_draw_offset_heatmap(const struct graph_ctx *ctx, size_t panel,
			       struct plot_panel *pp, struct iow_error *err)
{
	uint32_t dev, *cells;
	size_t i, t, cols;
	const struct analysis *a;
	struct iomap_point p;
	double lo, hi, unit;
	const char *unit_name;
	uint64_t row_lo, row_hi;
	long d;

	plot_panel_set_x(pp, ctx->x_min, ctx->x_max);
	if (!graph_offset_panel(ctx, panel, &dev, &t, &d)) {
		plot_panel_note(pp, "no I/O of this action in range");
		return 0;
	}
	a = graph_trace_analysis(ctx, t);
	graph_io_extent(ctx, dev, &lo, &hi);
	unit = graph_offset_unit(hi, &unit_name);
	plot_panel_set_y_exact(pp, lo / unit, hi / unit);
	cols = analysis_map_cols(a);
	cells = calloc((cols + 1) * IOMAP_ROWS, sizeof(*cells));
	if (!cells)
		return iow_fail(err, "out of memory");
	i = 0;
	while (iomap_next(&a->iomaps[d], &i, &p)) {
		uint64_t kib = (p.bytes + 1023) / 1024;

		if (p.col >= cols)
			continue;
		cells[(size_t)p.row * cols + p.col] +=
			kib > UINT32_MAX ? UINT32_MAX : (uint32_t)kib;
	}
	analysis_map_row_bytes(a, (size_t)d, 0, &row_lo, &row_hi);
	{
		size_t g = heatmap_group(cols), mc, mr;
		uint32_t *merged = merge_cells(cells, cols, IOMAP_ROWS, g,
					       2, &mc, &mr);

		free(cells);
		if (!merged)
			return iow_fail(err, "out of memory");
		plot_heatmap_format(pp, plot_format_kib);
		plot_heatmap(pp, merged, (int)mc, (int)mr,
			     analysis_map_col_start_s(a, 0),
			     analysis_map_col_start_s(a, mc * g),
			     row_lo / 1048576.0 / unit,
			     (row_lo / 1048576.0 + (double)(row_hi - row_lo) *
			      IOMAP_ROWS / 1048576.0) / unit, "bytes");
		free(merged);
	}
	return 0;
}

/* Fold a whole-trace D2C histogram into log2 buckets of microseconds;
 * returns the highest bucket with a count, or top as it was. */
static int fold_log2(const uint64_t *h, uint64_t *counts, int top)
{
	size_t k;

	for (k = 0; h && k < LAT_SUM_BUCKETS; k++) {
		uint64_t us = hist_bucket_low(k, LAT_SUM_BITS) / 1000;
		int b = us ? 63 - __builtin_clzll(us) : 0;

		if (!h[k])
			continue;
		counts[b] += h[k];
		if (b > top)
			top = b;
	}
	return top;
}

/*
 * A step series of log2 buckets: bucket k holds [2^k, 2^(k+1)) us
 * (k = 0 also [0, 1)), as a share of the line's I/Os: two runs, or two
 * processes, compare by where their I/Os went, not by which did more.
 */
static int log2_series(const struct graph_ctx *ctx, struct series_set *out,
		       size_t t, const char *label, int color,
		       const uint64_t *counts, int top)
{
	struct graph_series *g;
	double total = 0;
	size_t k;

	if (top < 0)
		return 0;
	for (k = 0; k <= (size_t)top; k++)
		total += (double)counts[k];
	if (!(g = graph_series_add(ctx, out, t, label, color)))
		return -1;
	g->n = (size_t)top + 2;
	if (graph_series_resize(g, g->n) < 0)
		return -1;
	for (k = 0; k < g->n; k++) {
		g->x[k] = (double)(1ull << k) * 1000;
		g->y[k] = k <= (size_t)top && total > 0 ?
			  100.0 * (double)counts[k] / total : 0;
	}
	g->role = ROLE_STEP;
	return 0;
}

static int latency_hist_by_tag(const struct graph_ctx *ctx, size_t t,
			       const struct class_list *cl,
			       struct series_set *out)
{
	const struct analysis *a = graph_trace_analysis(ctx, t);
	size_t ci, s;

	for (ci = 0; ci < cl->n; ci++) {
		uint64_t counts[64] = { 0 };
		int top = -1;

		if (cl->items[ci].trace != t)
			continue;
		for (s = 0; s < a->n_tags; s++)
			if (graph_in_class(cl, t, s, ci))
				top = fold_log2(a->tags[s].d2c.hist, counts,
						top);
		if (log2_series(ctx, out, t, cl->items[ci].label,
				cl->items[ci].color, counts, top) < 0)
			return -1;
	}
	return 0;
}

/* D2C in log2 buckets of microseconds, as biolatency prints it: per op,
 * or per tag class where the trace is tagged. */
int graph_build_latency_hist(const struct graph_ctx *ctx, size_t panel,
			      struct series_set *out)
{
	struct class_list cl;
	size_t t, dev;
	int d, r = 0;

	(void)panel;
	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return -1;
	}
	for (t = 0; t < ctx->n_traces && r == 0; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);

		if (ctx->tagged && a->tagging) {
			r = latency_hist_by_tag(ctx, t, &cl, out);
			continue;
		}
		for (d = 0; d < N_OPS && r == 0; d++) {
			uint64_t counts[64] = { 0 };
			char label[160];
			int top = -1;

			if (!graph_op_shown(ctx, d))
				continue;
			for (dev = 0; dev < a->n_devices; dev++) {
				const struct device_stats *ds = &a->devices[dev];

				top = fold_log2(d == OP_FLUSH ?
						ds->flush_d2c.hist_op[d] :
						ds->d2c.hist_op[d], counts, top);
			}
			graph_series_label(ctx, t, d, "", label, sizeof(label));
			r = log2_series(ctx, out, t, label, graph_dir_color(ctx, t, d),
					counts, top);
		}
	}
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
	return r;
}
