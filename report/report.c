/*
 * report.c: -o NAME.html, the report (report.h). The page's script
 * (web/report.js, with uPlot) draws what this file gives it: every graph
 * of the picture, at several widths of bin.
 *
 * A report's analysis runs at fine bins (REPORT_FIRST_BIN_NS wide, up to
 * REPORT_MAX_BINS of them); the report then widens them step by step to
 * the pictures' own (analysis_coarsen) and, at the steps it keeps, builds
 * every graph's series with the graphs' own builders: each level of the
 * page is what a picture at that width would draw, and the coarsest is
 * the picture's (and the CSV's). The levels kept are the finest the
 * file's size allows (REPORT_SERIES_BUDGET), then every 10x wider one.
 * The I/O maps' levels come likewise from zoommap.c, the latency heat
 * maps' from the bins' histograms. The numbers go into one binary block
 * (report_data.c), the rest into a JSON document.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "base/utf8.h"
#include "reader/blktrace.h"
#include "base/bytebuf.h"
#include "graphs/graphs.h"
#include "analysis/histogram.h"
#include "base/outfile.h"
#include "report.h"
#include "output/summary.h"
#include "report_data.h"
#include "zoommap.h"

#define REPORT_FIRST_BIN_NS	100000ull	/* 100 us */
#define REPORT_MAX_BINS		16384
/* With tags each tag has bins of its own (and a histogram in each bin it
 * has I/O in): a quarter as many, and the file's size would not keep
 * more of their many series anyway. */
#define REPORT_MAX_BINS_TAGGED	4096
/* Cells of the detailed I/O map in memory (16 bytes each, and room). */
#define REPORT_MAP_CELLS	600000
/*
 * What the levels may take, so that a report stays under 5 MB: raw bytes
 * of series (float32, which deflate hardly shrinks: 2.2 MB make 2.5 MB
 * of base64), and cells of the finest map kept (its planes deflate to
 * about 1.3 bytes a cell, the coarser levels add about 70%: 500k cells
 * make about 1.5 MB of base64).
 */
#define REPORT_SERIES_BUDGET	(2200u << 10)
#define REPORT_MAP_KEPT_CELLS	500000
#define MAX_STEPS		48
/* A picture graph's panel: its page units, drawn at twice the pixels */
#define PICTURE_W		760
#define PICTURE_H		400
#define PICTURE_SCALE		2.0

/* The page's script and styles (report_assets.c). */
extern const char report_js[], report_css[], uplot_js[], uplot_css[],
	uplot_license[];

enum kind { KIND_LINES, KIND_OWN_X, KIND_HIST, KIND_MAP, KIND_BYTES,
	    KIND_HEAT, KIND_POINTS, KIND_PICTURE };

static const char *const kind_names[] = {
	[KIND_LINES] = "lines", [KIND_OWN_X] = "own", [KIND_HIST] = "hist",
	[KIND_MAP] = "map", [KIND_BYTES] = "bytes", [KIND_HEAT] = "heat",
	[KIND_POINTS] = "points", [KIND_PICTURE] = "picture",
};

static const char *const role_names[] = {
	[ROLE_LINE] = "line", [ROLE_P50] = "p50", [ROLE_P90] = "p90",
	[ROLE_P99] = "p99", [ROLE_MAX] = "max", [ROLE_STACK] = "stack",
	[ROLE_STEP] = "step", [ROLE_RANGE_LO] = "lo", [ROLE_RANGE_HI] = "hi",
	[ROLE_DOTTED] = "dotted",
};

static const char *const axis_names[] = {
	[AXIS_NUMBER] = "number", [AXIS_SECONDS] = "s", [AXIS_NS] = "ns",
	[AXIS_MB_PER_S] = "mbps", [AXIS_BYTES] = "bytes",
	[AXIS_PERCENT] = "pct",
};

/* A series of a panel: its levels (its trace's, finest first). */
struct rseries {
	char *label;
	int color;
	enum series_role role;
	size_t trace;
	struct blob_ref level[MAX_STEPS];
	struct blob_ref x, y;	/* series with x of their own */
};

/* A layer of a latency panel: its cells at each level of its trace. */
struct rlayer {
	char label[160];
	int color;
	int op;			/* -1: every op of the panel's source */
	struct table_ref level[MAX_STEPS];
};

struct rpanel {
	char title[256];
	char y_label[160];
	int log_y;
	uint32_t device;
	int has_device;
	struct rseries *series;
	size_t n_series;
	struct series_set pending;	/* built at the first step */
	struct map_panel map;
	struct heat_panel heat;
	struct rlayer layers[N_OPS];
	size_t n_layers;
	struct bytebuf png;		/* KIND_PICTURE: the panel drawn */
};

struct rgraph {
	const struct graph_def *g;
	enum kind kind;
	struct rpanel *panels;
	size_t n_panels;
};

/* A level of a trace's bins: their width, and the table's numbers. */
struct rlevel {
	uint64_t width_ns;
	size_t n;
	unsigned char has_op[N_OPS];
	struct blob_ref ops[N_OPS][5];	/* ios, bytes, d2c n, sum, max */
	struct blob_ref depth, seeks, lossy;
};

/* A level of a trace's detailed map: each device slot's cells. */
struct rmaplevel {
	uint64_t width_ns;
	size_t cols;
	struct table_ref *cells;	/* per device slot */
};

struct rtrace {
	size_t n_steps;
	uint64_t width[MAX_STEPS];
	size_t bins[MAX_STEPS];
	unsigned char emit[MAX_STEPS];
	size_t first;			/* the finest step kept */
	size_t series;			/* numbers per bin, for the budget */
	size_t heat_points;		/* D2C samples, for the budget */
	struct rlevel levels[MAX_STEPS];
	size_t n_levels;
	struct rmaplevel maps[MAX_STEPS];
	size_t n_maps;
	struct table_ref hist[N_OPS];	/* the usual bins' D2C histograms */
};

struct report {
	const struct options *o;
	struct trace_result *traces;
	size_t n;
	struct graph_ctx ctx;
	struct class_list cl;
	struct rgraph graphs[GRAPHS_MAX_SELECTED];
	size_t n_graphs;
	struct rtrace *rt;
	struct blob blob;
	int heat_rows;
	const char *finest_why;
	const struct report_section *section;	/* or NULL */
};

/* ---- preparing the analysis ---- */

int report_prepare(const struct options *o, struct trace_result *res,
		   struct analysis_config *cfg, struct iow_error *err)
{
	if (o->output_type.kind != OUTPUT_REPORT)
		return 0;
	cfg->first_bin_ns = REPORT_FIRST_BIN_NS;
	cfg->max_bins = o->tag_by_process || o->tagger ?
			REPORT_MAX_BINS_TAGGED : REPORT_MAX_BINS;
	cfg->no_size_bins = !graphs_want_sizes(o);
	res->zoom = calloc(1, sizeof(*res->zoom));
	if (!res->zoom)
		return iow_fail(err, "out of memory");
	/* the map no finer than the bins: its detail would show nothing
	 * the bins' levels do not */
	zoommap_init(res->zoom, REPORT_FIRST_BIN_NS, REPORT_MAP_CELLS);
	cfg->on_map = zoommap_on_map;
	cfg->map_ctx = res->zoom;
	return 0;
}

void report_trace_free(struct trace_result *res)
{
	if (res->zoom)
		zoommap_free(res->zoom);
	free(res->zoom);
	res->zoom = NULL;
}

/* ---- the plan: which steps of each trace's bins are kept ---- */

static int steps_emitted(const struct rtrace *t, size_t first, size_t k)
{
	return k >= first && ((k - first) % 2 == 0 || k + 1 == t->n_steps);
}

static double plan_bytes(const struct report *r, const struct rtrace *t,
			 size_t first)
{
	double sum = 0;
	size_t k;

	for (k = 0; k < t->n_steps; k++) {
		double cells = fmin((double)t->heat_points,
				    (double)t->bins[k] * r->heat_rows);

		if (steps_emitted(t, first, k))
			sum += (double)t->series * 4 * (double)t->bins[k] +
			       3 * cells;
	}
	return sum;
}

/*
 * The finest step each trace keeps: from the finest, the trace taking
 * the most bytes gives up its finest step until the whole fits.
 */
static void plan_levels(struct report *r)
{
	/* a section's bytes (--compare's: 0.3-0.4 MB, its pictures in
	 * SVG) come out of the series' share, as base64 would take them */
	double section = r->section && r->section->html ?
			 (double)strlen(r->section->html) * 3 / 4 : 0;
	double budget = fmax(REPORT_SERIES_BUDGET / 2.0,
			     REPORT_SERIES_BUDGET - section);
	size_t t, k;

	for (t = 0; t < r->n; t++)
		r->rt[t].first = 0;
	for (;;) {
		double total = 0, most = -1;
		size_t worst = SIZE_MAX;

		for (t = 0; t < r->n; t++) {
			struct rtrace *rt = &r->rt[t];
			double b = plan_bytes(r, rt, rt->first);

			total += b;
			if (rt->first + 1 < rt->n_steps && b > most) {
				most = b;
				worst = t;
			}
		}
		if (total <= budget || worst == SIZE_MAX)
			break;
		r->rt[worst].first++;
		r->finest_why = "the file's size";
	}
	for (t = 0; t < r->n; t++)
		for (k = 0; k < r->rt[t].n_steps; k++)
			r->rt[t].emit[k] = steps_emitted(&r->rt[t],
							 r->rt[t].first, k);
}

static int emitting(const struct report *r, size_t t, size_t step)
{
	return step < r->rt[t].n_steps && r->rt[t].emit[step];
}

/* ---- the graphs and their panels ---- */

static enum kind kind_of(const struct graph_def *g)
{
	static const enum kind by_cells[] = {
		[CELLS_IO_MAP] = KIND_MAP, [CELLS_IO_BYTES] = KIND_BYTES,
		[CELLS_LATENCY] = KIND_HEAT,
		[CELLS_LATENCY_POINTS] = KIND_POINTS,
	};

	if (g->build)
		return !g->x_name ? KIND_LINES : g->x_label ? KIND_HIST :
			KIND_OWN_X;
	/* drawn only, of no time axis (the top files, the stacks' icicle):
	 * a picture of the whole trace */
	if (g->cells == CELLS_NONE)
		return KIND_PICTURE;
	return by_cells[g->cells];
}

static int oom(struct iow_error *err)
{
	return iow_fail(err, "out of memory building the report");
}

/* A series of a panel built at the first step: its description. */
static int describe_series(struct rpanel *p)
{
	size_t i;

	p->n_series = p->pending.n;
	p->series = calloc(p->n_series + 1, sizeof(*p->series));
	if (!p->series)
		return -1;
	for (i = 0; i < p->n_series; i++) {
		const struct graph_series *s = &p->pending.items[i];

		p->series[i].label = strdup(s->label);
		if (!p->series[i].label)
			return -1;
		p->series[i].color = s->color;
		p->series[i].role = s->role;
		p->series[i].trace = s->trace;
	}
	return 0;
}

/* The layers of latency panel p: its source at once (heat map), or each
 * data op apart (scatter: each in its class's colour). */
static void describe_layers(struct report *r, struct rgraph *rg,
			    struct rpanel *p)
{
	const struct analysis *a = &r->traces[p->heat.trace].analysis;
	size_t c;
	int op;

	if (rg->kind == KIND_HEAT || p->heat.cls >= 0) {
		struct rlayer *l = &p->layers[p->n_layers++];

		l->op = -1;
		l->color = p->heat.cls >= 0 ? r->cl.items[p->heat.cls].color
					    : -1;
		snprintf(l->label, sizeof(l->label), "%s",
			 p->heat.cls >= 0 ? r->cl.items[p->heat.cls].label :
			 "I/Os");
		return;
	}
	for (op = 0; op < N_DATA_OPS; op++) {
		struct rlayer *l;

		if (!(p->heat.dirs & (1 << op)) || !analysis_op_ios(a, op))
			continue;
		l = &p->layers[p->n_layers++];
		l->op = op;
		l->color = 0;
		snprintf(l->label, sizeof(l->label), "%s", io_op_name(op));
		for (c = 0; c < r->cl.n; c++)
			if (r->cl.items[c].trace == p->heat.trace &&
			    r->cl.items[c].dir == op)
				l->color = r->cl.items[c].color;
	}
}

static cairo_status_t png_append(void *closure, const unsigned char *data,
				 unsigned int len)
{
	return bytebuf_append(closure, data, len) < 0 ?
		CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

/* Panel p of a picture graph, drawn as the PNG output draws it. */
static int draw_picture(struct report *r, size_t p, struct rpanel *rp,
			struct iow_error *err)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
		(int)(PICTURE_W * PICTURE_SCALE),
		(int)(PICTURE_H * PICTURE_SCALE));
	struct plot_page *page;
	cairo_t *cr = cairo_create(s);
	int rc = -1;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_destroy(cr);
	page = plot_page_open_surface(s, PICTURE_SCALE, r->ctx.graph->name,
				      err);
	if (page) {
		rc = graph_draw_panel(&r->ctx, p, page, plot_page_body(page),
				      NULL, NULL, err);
		if (rc < 0)
			plot_page_abort(page);
		else
			rc = plot_page_close(page, err);
	}
	if (!rc && cairo_surface_write_to_png_stream(s, png_append,
						     &rp->png) !=
		   CAIRO_STATUS_SUCCESS)
		rc = oom(err);
	cairo_surface_destroy(s);
	return rc;
}

/* Every selected graph's panels, titled; line graphs built once. */
static int describe_graphs(struct report *r, struct iow_error *err)
{
	const struct graph_def *sel[GRAPHS_MAX_SELECTED];
	size_t n_sel = graphs_selected(r->o, sel, GRAPHS_MAX_SELECTED), i, p;

	for (i = 0; i < n_sel; i++) {
		struct rgraph *rg = &r->graphs[r->n_graphs];

		rg->g = sel[i];
		rg->kind = kind_of(sel[i]);
		graph_select_panel(&r->ctx, sel[i], 0);
		rg->n_panels = sel[i]->panels(&r->ctx);
		if (!rg->n_panels)
			continue;
		rg->panels = calloc(rg->n_panels, sizeof(*rg->panels));
		if (!rg->panels)
			return oom(err);
		r->n_graphs++;
		for (p = 0; p < rg->n_panels; p++) {
			struct rpanel *rp = &rg->panels[p];

			graph_select_panel(&r->ctx, sel[i], p);
			graph_panel_title(&r->ctx, p, rp->title,
					  sizeof(rp->title));
			snprintf(rp->y_label, sizeof(rp->y_label), "%s",
				 graph_y_label(&r->ctx, p));
			rp->has_device = r->ctx.in_device_panel;
			rp->device = r->ctx.panel_device;
			if (rg->kind == KIND_MAP || rg->kind == KIND_BYTES) {
				if (graph_map_panel(&r->ctx, p, &rp->map)) {
					rp->has_device = 1;
					rp->device = rp->map.device;
				}
				continue;
			}
			if (rg->kind == KIND_HEAT || rg->kind == KIND_POINTS) {
				if (graph_heat_panel(&r->ctx, &r->cl, p,
						     &rp->heat))
					describe_layers(r, rg, rp);
				continue;
			}
			if (rg->kind == KIND_PICTURE) {
				if (draw_picture(r, p, rp, err) < 0)
					return -1;
				continue;
			}
			if (graph_build(&r->ctx, p, &rp->pending, err) < 0)
				return -1;
			if (describe_series(rp) < 0)
				return oom(err);
			rp->log_y = graph_log_y(&r->ctx, &rp->pending);
		}
	}
	return 0;
}

/* Numbers per bin of each trace: its series and the table's. */
static void count_numbers(struct report *r)
{
	size_t g, p, s, t;
	int op;

	for (g = 0; g < r->n_graphs; g++) {
		const struct rgraph *rg = &r->graphs[g];

		for (p = 0; p < rg->n_panels; p++) {
			const struct rpanel *rp = &rg->panels[p];

			if (rg->kind == KIND_LINES)
				for (s = 0; s < rp->n_series; s++)
					r->rt[rp->series[s].trace].series++;
			if (rp->n_layers)
				r->rt[rp->heat.trace].heat_points +=
					rp->n_layers;
		}
	}
	for (t = 0; t < r->n; t++) {
		const struct analysis *a = &r->traces[t].analysis;
		struct rtrace *rt = &r->rt[t];
		uint64_t d2c = 0;
		size_t i;

		for (op = 0; op < N_OPS; op++)
			if (analysis_op_ios(a, op))
				rt->series += 5;
		rt->series += 3;
		for (i = 0; i < a->n_devices; i++)
			d2c += a->devices[i].d2c.n + a->devices[i].flush_d2c.n;
		rt->heat_points = (size_t)(d2c * rt->heat_points);
	}
}

/* ---- the numbers of one step ---- */

static void keep_series(struct report *r, struct rpanel *p,
			const struct series_set *set, size_t step)
{
	size_t i;

	for (i = 0; i < set->n && i < p->n_series; i++) {
		const struct graph_series *s = &set->items[i];
		struct rseries *rs = &p->series[i];
		size_t t = rs->trace;

		if (!emitting(r, t, step))
			continue;
		rs->level[r->rt[t].n_levels] = blob_f32(&r->blob, s->y, s->n,
							 1);
	}
}

/* Series with x of their own are the same at every step: kept once. */
static void keep_own_x(struct report *r, struct rpanel *p)
{
	size_t i;

	for (i = 0; i < p->pending.n && i < p->n_series; i++) {
		const struct graph_series *s = &p->pending.items[i];

		p->series[i].x = blob_f64(&r->blob, s->x, s->n);
		p->series[i].y = blob_f64(&r->blob, s->y, s->n);
	}
}

/* A latency layer's cells at this step: bin delta, row, count. */
static int keep_layer(struct report *r, struct rpanel *p, size_t panel,
		      struct rlayer *l, size_t level)
{
	const struct analysis *a = &r->traces[p->heat.trace].analysis;
	int rows, row;
	uint32_t *cells = graph_heat_cells(&r->ctx, &r->cl, panel, &p->heat,
					   l->op, &rows);
	struct blob_table tab;
	size_t i, last = 0;

	if (!cells)
		return -1;
	r->heat_rows = rows;
	table_start(&tab, "vbv");
	for (i = 0; i < a->n_bins; i++)
		for (row = 0; row < rows; row++) {
			uint64_t v[3] = { i - last, (uint64_t)row,
					  cells[(size_t)row * a->n_bins + i] };

			if (!v[2])
				continue;
			table_row(&tab, v);
			last = i;
		}
	free(cells);
	l->level[level] = table_end(&r->blob, &tab);
	return 0;
}

/* Trace t's bins at this step, for the table: per op I/Os, bytes and
 * D2C count, sum and max; depth area, seeks and time lost. */
static void keep_table(struct report *r, size_t t, struct rlevel *lv)
{
	const struct analysis *a = &r->traces[t].analysis;
	size_t n = a->n_bins, i;
	double *v = malloc((n + 1) * sizeof(*v));
	int op, k;

	lv->width_ns = a->bin_width_ns;
	lv->n = n;
	if (!v) {
		r->blob.failed = 1;
		return;
	}
	for (op = 0; op < N_OPS; op++) {
		if (!analysis_op_ios(a, op))
			continue;
		lv->has_op[op] = 1;
		for (k = 0; k < 5; k++) {
			for (i = 0; i < n; i++) {
				const struct bin *b = &a->bins[i];
				double x[5] = { b->ios[op], (double)b->bytes[op],
						b->d2c_n[op],
						(double)b->d2c_sum_ns[op],
						(double)b->d2c_max_ns[op] };

				v[i] = x[k];
			}
			lv->ops[op][k] = blob_f32(&r->blob, v, n, 1);
		}
	}
	for (k = 0; k < 3; k++) {
		for (i = 0; i < n; i++)
			v[i] = k == 0 ? a->bins[i].depth_area_ns :
			       k == 1 ? a->bins[i].seeks :
			       (double)a->bins[i].lossy_ns;
		*(k == 0 ? &lv->depth : k == 1 ? &lv->seeks : &lv->lossy) =
			blob_f32(&r->blob, v, n, 1);
	}
	free(v);
}

/* The usual bins' D2C histograms: bin delta, bucket, count. */
static void keep_hists(struct report *r, size_t t)
{
	const struct analysis *a = &r->traces[t].analysis;
	size_t i, k;
	int op;

	for (op = 0; op < N_OPS; op++) {
		struct blob_table tab;
		size_t last = 0;

		table_start(&tab, "vvv");
		for (i = 0; i < a->n_bins; i++) {
			const uint32_t *h = analysis_bin_lat_hist(a, i, op);

			for (k = 0; h && k < LAT_BIN_BUCKETS; k++) {
				uint64_t v[3] = { i - last, k, h[k] };

				if (!h[k])
					continue;
				table_row(&tab, v);
				last = i;
			}
		}
		r->rt[t].hist[op] = table_end(&r->blob, &tab);
	}
}

/* Builds and keeps what the traces emitting at this step show. */
static int keep_step(struct report *r, size_t step, struct iow_error *err)
{
	size_t g, p, l, t;

	for (g = 0; g < r->n_graphs; g++) {
		struct rgraph *rg = &r->graphs[g];

		for (p = 0; p < rg->n_panels; p++) {
			struct rpanel *rp = &rg->panels[p];
			struct series_set set = { NULL, 0 };

			graph_select_panel(&r->ctx, rg->g, p);
			if (rg->kind == KIND_LINES) {
				if (step == 0) {
					keep_series(r, rp, &rp->pending, step);
					continue;
				}
				if (graph_build(&r->ctx, p, &set, err) < 0)
					return -1;
				if (set.n != rp->n_series) {
					series_set_free(&set);
					return iow_fail(err, "%s: its series changed as the bins widened",
							rg->g->name);
				}
				keep_series(r, rp, &set, step);
				series_set_free(&set);
			}
			if (!rp->n_layers || !emitting(r, rp->heat.trace, step))
				continue;
			for (l = 0; l < rp->n_layers; l++)
				if (keep_layer(r, rp, p, &rp->layers[l],
					       r->rt[rp->heat.trace].n_levels) < 0)
					return oom(err);
		}
	}
	for (t = 0; t < r->n; t++) {
		struct rtrace *rt = &r->rt[t];

		if (!emitting(r, t, step))
			continue;
		keep_table(r, t, &rt->levels[rt->n_levels]);
		if (step + 1 == rt->n_steps)
			keep_hists(r, t);
		rt->n_levels++;
	}
	return r->blob.failed ? oom(err) : 0;
}

/*
 * Every step of every trace's bins, from the finest to the usual ones:
 * the kept ones built and stored, then the bins widened.
 */
static int keep_levels(struct report *r, struct iow_error *err)
{
	size_t step, t, last = 0;

	for (t = 0; t < r->n; t++)
		if (r->rt[t].n_steps > last)
			last = r->rt[t].n_steps;
	for (step = 0; step < last; step++) {
		int any = 0;

		for (t = 0; t < r->n; t++)
			any |= emitting(r, t, step);
		if (any && keep_step(r, step, err) < 0)
			return -1;
		for (t = 0; t < r->n; t++)
			if (step + 1 < r->rt[t].n_steps)
				analysis_coarsen(&r->traces[t].analysis);
	}
	return 0;
}

/* ---- the detailed I/O maps ---- */

/* The class of a cell of trace t, or SIZE_MAX. */
static size_t cell_class(const struct report *r, size_t t,
			 const struct zoom_cell *c)
{
	size_t k;

	if (c->tag_slot >= 0)
		return r->cl.slot_class && r->cl.slot_class[t] ?
			       r->cl.slot_class[t][c->tag_slot] : SIZE_MAX;
	for (k = 0; k < r->cl.n; k++)
		if (r->cl.items[k].trace == t && r->cl.items[k].dir == c->dir)
			return k;
	return SIZE_MAX;
}

/* Device slot d's cells of trace t at the map's width now, in order:
 * column delta, row, class + 1 (0: none), I/Os, KiB (rounded up, as the
 * heat map takes them). */
static void keep_map_slot(struct report *r, size_t t, size_t d,
			  struct rmaplevel *ml)
{
	const struct zoom_device *zd = &r->traces[t].zoom->devs[d];
	struct blob_table tab;
	size_t i, last = 0;

	table_start(&tab, "vbvvv");
	for (i = 0; i < zd->n; i++) {
		const struct zoom_cell *c = &zd->cells[i];
		size_t cls = cell_class(r, t, c);
		uint64_t v[5] = { c->col - last, c->row,
				  cls == SIZE_MAX ? 0 : cls + 1, c->count,
				  ((uint64_t)c->sectors * 512 + 1023) / 1024 };

		table_row(&tab, v);
		last = c->col;
	}
	ml->cells[d] = table_end(&r->blob, &tab);
}

static int keep_map_level(struct report *r, size_t t)
{
	struct zoommap *z = r->traces[t].zoom;
	struct rtrace *rt = &r->rt[t];
	struct rmaplevel *ml = &rt->maps[rt->n_maps];
	size_t d;

	ml->width_ns = z->width_ns;
	ml->cols = z->cols;
	ml->cells = calloc(z->n_devs + 1, sizeof(*ml->cells));
	if (!ml->cells)
		return -1;
	rt->n_maps++;
	for (d = 0; d < z->n_devs; d++)
		keep_map_slot(r, t, d, ml);
	return r->blob.failed ? -1 : 0;
}

/* Whether the map's columns are the analysis's own (the picture's). */
static int map_usual(const struct zoommap *z)
{
	return z->cols <= IOMAP_COLS;
}

/*
 * Each trace's map from its finest affordable width, then every 10x
 * wider one, to the analysis's own columns.
 */
static int keep_maps(struct report *r, struct iow_error *err)
{
	size_t t, with_maps = 0;

	for (t = 0; t < r->n; t++)
		with_maps += r->traces[t].zoom && r->traces[t].zoom->n_devs;
	for (t = 0; t < r->n; t++) {
		struct zoommap *z = r->traces[t].zoom;
		size_t share = REPORT_MAP_KEPT_CELLS /
			       (with_maps ? with_maps : 1), steps = 0;

		if (!z || !z->n_devs)
			continue;
		zoommap_finish(z);
		while (z->cells > share && !map_usual(z)) {
			zoommap_coarsen(z);
			if (!r->finest_why)
				r->finest_why = "the file's size";
		}
		for (;;) {
			if (steps % 2 == 0 || map_usual(z))
				if (keep_map_level(r, t) < 0)
					return oom(err);
			if (map_usual(z) || r->rt[t].n_maps == MAX_STEPS)
				break;
			zoommap_coarsen(z);
			steps++;
		}
	}
	return 0;
}

/* ---- the document ---- */

static void json_rgb(FILE *f, struct plot_rgb c)
{
	fprintf(f, "\"#%02x%02x%02x\"", (int)lround(c.r * 255),
		(int)lround(c.g * 255), (int)lround(c.b * 255));
}

static void json_colors(FILE *f, const struct report *r)
{
	size_t i, j;
	int k;

	fputs("\"palette\":[", f);
	for (k = 0; k < 24; k++) {
		fputs(k ? "," : "", f);
		json_rgb(f, plot_color(k));
	}
	fputs("],\"ramp\":[", f);
	for (k = 0; k <= 8; k++) {
		fputs(k ? "," : "", f);
		json_rgb(f, plot_ramp(k / 8.0));
	}
	/* two classes of a trace in one cell: their mix, by share */
	fputs("],\"mixes\":{", f);
	for (i = 0, k = 0; i < r->cl.n; i++)
		for (j = i + 1; j < r->cl.n; j++) {
			int s;

			if (r->cl.items[i].trace != r->cl.items[j].trace)
				continue;
			fprintf(f, "%s\"%zu,%zu\":[", k++ ? "," : "", i, j);
			for (s = 0; s <= 32; s++) {
				fputs(s ? "," : "", f);
				json_rgb(f, plot_mix_share(r->cl.items[i].color,
							   r->cl.items[j].color,
							   s / 32.0));
			}
			fputc(']', f);
		}
	fputs("}", f);
}

static void json_device(FILE *f, uint32_t dev)
{
	fprintf(f, "\"%u,%u\"", blk_dev_major(dev), blk_dev_minor(dev));
}

static void json_series(FILE *f, const struct report *r,
			const struct rgraph *rg, const struct rseries *s)
{
	size_t k;

	fputs("{\"label\":", f);
	utf8_json_string_html(f, s->label);
	fprintf(f, ",\"color\":%d,\"cycle\":%d,\"role\":\"%s\",\"trace\":%zu",
		s->color, plot_color_cycle(s->color), role_names[s->role],
		s->trace);
	if (rg->kind != KIND_LINES) {
		fputs(",\"x\":", f);
		json_ref(f, s->x);
		fputs(",\"y\":", f);
		json_ref(f, s->y);
	} else {
		fputs(",\"d\":[", f);
		for (k = 0; k < r->rt[s->trace].n_levels; k++) {
			fputs(k ? "," : "", f);
			json_ref(f, s->level[k]);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

static void json_panel_maps(FILE *f, const struct report *r,
			    const struct rpanel *p)
{
	size_t t;
	int first = 1;

	fprintf(f, ",\"lo\":%.9g,\"hi\":%.9g,\"unitMib\":%.9g,\"maps\":[",
		p->map.lo_mib, p->map.hi_mib, p->map.unit_mib);
	for (t = 0; t < r->n; t++) {
		long d;

		if (p->map.trace != SIZE_MAX && t != p->map.trace)
			continue;
		d = graph_device_slot(&r->traces[t].analysis, p->map.device);
		if (d < 0 || !r->traces[t].zoom ||
		    (size_t)d >= r->traces[t].zoom->n_devs)
			continue;
		fprintf(f, "%s{\"trace\":%zu,\"slot\":%ld}", first ? "" : ",",
			t, d);
		first = 0;
	}
	fputc(']', f);
}

static void json_panel(FILE *f, const struct report *r,
		       const struct rgraph *rg, const struct rpanel *p)
{
	size_t i, k;

	fputs("{\"title\":", f);
	utf8_json_string_html(f, p->title);
	fputs(",\"y\":", f);
	utf8_json_string_html(f, p->y_label);
	fprintf(f, ",\"log\":%s,\"device\":", p->log_y ? "true" : "false");
	if (p->has_device)
		json_device(f, p->device);
	else
		fputs("null", f);
	if (rg->kind == KIND_MAP || rg->kind == KIND_BYTES)
		json_panel_maps(f, r, p);
	if (p->png.len) {
		fputs(",\"png\":\"", f);
		write_base64(f, p->png.data, p->png.len);
		fputc('"', f);
	}
	if (p->n_layers) {
		fprintf(f, ",\"trace\":%zu,\"layers\":[", p->heat.trace);
		for (i = 0; i < p->n_layers; i++) {
			const struct rlayer *l = &p->layers[i];

			fputs(i ? ",{\"label\":" : "{\"label\":", f);
			utf8_json_string_html(f, l->label);
			fprintf(f, ",\"color\":%d,\"d\":[", l->color);
			for (k = 0; k < r->rt[p->heat.trace].n_levels; k++) {
				fputs(k ? "," : "", f);
				json_table(f, &l->level[k]);
			}
			fputs("]}", f);
		}
		fputc(']', f);
	}
	fputs(",\"series\":[", f);
	for (i = 0; i < p->n_series; i++) {
		fputs(i ? "," : "", f);
		json_series(f, r, rg, &p->series[i]);
	}
	fputs("]}", f);
}

static void json_graph(FILE *f, const struct report *r,
		       const struct rgraph *rg)
{
	const struct graph_def *g = rg->g;
	size_t p;

	fputs("{\"name\":", f);
	utf8_json_string_html(f, g->name);
	fputs(",\"title\":", f);
	utf8_json_string_html(f, g->title);
	fprintf(f, ",\"kind\":\"%s\",\"axis\":\"%s\",\"quantity\":",
		kind_names[rg->kind], axis_names[quantity_of(g->y)->axis]);
	utf8_json_string_html(f, quantity_of(g->y)->name);
	fprintf(f, ",\"lossyUnknown\":%s,\"shareY\":%s,\"empty\":",
		g->lossy_unknown ? "true" : "false",
		g->share_y ? "true" : "false");
	utf8_json_string_html(f, g->empty_note ? g->empty_note : "no I/O in range");
	if (g->x_span_s > 0)
		fprintf(f, ",\"xSpan\":%.9g", g->x_span_s);
	if (g->x_label) {
		fputs(",\"xLabel\":", f);
		utf8_json_string_html(f, g->x_label);
		fprintf(f, ",\"xAxis\":\"%s\"",
			axis_names[quantity_of(g->x)->axis]);
	}
	if (rg->kind == KIND_HEAT || rg->kind == KIND_POINTS) {
		double lo = 0, hi = 0;

		for (p = 0; p < rg->n_panels; p++)
			if (rg->panels[p].n_layers) {
				lo = rg->panels[p].heat.lo_ns;
				hi = rg->panels[p].heat.hi_ns;
			}
		fprintf(f, ",\"lo\":%.9g,\"hi\":%.9g,\"rows\":%d", lo, hi,
			r->heat_rows);
	}
	fputs(",\"panels\":[", f);
	for (p = 0; p < rg->n_panels; p++) {
		fputs(p ? "," : "", f);
		json_panel(f, r, rg, &rg->panels[p]);
	}
	fputs("]}", f);
}

static void json_level(FILE *f, const struct rlevel *lv)
{
	int op, k;

	fprintf(f, "{\"w\":%.9g,\"n\":%zu,\"ops\":{", lv->width_ns / 1e9,
		lv->n);
	for (op = 0, k = 0; op < N_OPS; op++) {
		int j;

		if (!lv->has_op[op])
			continue;
		fprintf(f, "%s\"%s\":[", k++ ? "," : "", io_op_name(op));
		for (j = 0; j < 5; j++) {
			fputs(j ? "," : "", f);
			json_ref(f, lv->ops[op][j]);
		}
		fputc(']', f);
	}
	fputs("},\"depth\":", f);
	json_ref(f, lv->depth);
	fputs(",\"seeks\":", f);
	json_ref(f, lv->seeks);
	fputs(",\"lossy\":", f);
	json_ref(f, lv->lossy);
	fputc('}', f);
}

static void json_maps(FILE *f, const struct report *r, size_t t)
{
	const struct zoommap *z = r->traces[t].zoom;
	const struct rtrace *rt = &r->rt[t];
	const struct analysis *a = &r->traces[t].analysis;
	size_t d, k;

	fputs(",\"maps\":[", f);
	for (d = 0; z && d < z->n_devs && d < a->n_devices; d++) {
		uint64_t lo, hi;

		analysis_map_row_bytes(a, d, 0, &lo, &hi);
		fprintf(f, "%s{\"device\":", d ? "," : "");
		json_device(f, a->devices[d].device);
		fprintf(f, ",\"rowLo\":%llu,\"rowBytes\":%llu,\"levels\":[",
			(unsigned long long)lo, (unsigned long long)(hi - lo));
		for (k = 0; k < rt->n_maps; k++) {
			fprintf(f, "%s{\"w\":%.9g,\"cols\":%zu,\"cells\":",
				k ? "," : "", rt->maps[k].width_ns / 1e9,
				rt->maps[k].cols);
			json_table(f, &rt->maps[k].cells[d]);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputc(']', f);
}

static void json_trace(FILE *f, const struct report *r, size_t t)
{
	const struct trace_result *tr = &r->traces[t];
	const struct analysis *a = &tr->analysis;
	const struct rtrace *rt = &r->rt[t];
	size_t i;
	int op;

	fputs("{\"label\":", f);
	utf8_json_string_html(f, tr->label);
	fputs(",\"source\":", f);
	utf8_json_string_html(f, tr->source);
	/* the bins' origin to the ns (%.9g would round a later -x's
	 * start): the page's -x strings are made of it */
	fprintf(f, ",\"origin\":%llu.%09llu,\"devices\":%zu,\"lost\":%llu,"
		"\"loss\":[",
		(unsigned long long)(a->bin_origin_ns / 1000000000ull),
		(unsigned long long)(a->bin_origin_ns % 1000000000ull),
		analysis_io_devices(a), (unsigned long long)a->lost_events);
	for (i = 0; i < a->n_loss; i++)
		fprintf(f, "%s[%.9g,%.9g]", i ? "," : "",
			a->loss[i].from_ns / 1e9, a->loss[i].to_ns / 1e9);
	fputs("],\"levels\":[", f);
	for (i = 0; i < rt->n_levels; i++) {
		fputs(i ? "," : "", f);
		json_level(f, &rt->levels[i]);
	}
	fputs("],\"hist\":{", f);
	for (op = 0, i = 0; op < N_OPS; op++) {
		if (!rt->hist[op].n)
			continue;
		fprintf(f, "%s\"%s\":", i++ ? "," : "", io_op_name(op));
		json_table(f, &rt->hist[op]);
	}
	fputc('}', f);
	json_maps(f, r, t);
	fputc('}', f);
}

/* The summary's JSON, as --summary=json prints it, in the document. */
static int json_summary(FILE *f, const struct report *r)
{
	char *text = NULL, *s;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return -1;
	summary_print_json(m, r->traces, r->n, 1);
	if (fclose(m) != 0)
		return -1;
	/* "</" only ever stands in its strings: "<\/" says the same */
	for (s = text; *s; s++) {
		if (*s == '\n')
			continue;
		if (s[0] == '<' && s[1] == '/')
			fputs("<\\", f);
		else
			fputc(*s, f);
	}
	free(text);
	return 0;
}

static void json_buckets(FILE *f)
{
	size_t k;

	fputs("\"buckets\":[", f);
	for (k = 0; k < LAT_BIN_BUCKETS; k++)
		fprintf(f, "%s%.9g", k ? "," : "",
			((double)hist_bucket_low(k, LAT_BIN_BITS) +
			 (double)hist_bucket_high(k, LAT_BIN_BITS)) / 2);
	fputc(']', f);
}

static int write_document(FILE *f, const struct report *r)
{
	char title[512];
	double finest = INFINITY;
	size_t t, g;

	graph_page_title(r->o, r->traces, r->n, title, sizeof(title));
	for (t = 0; t < r->n; t++)
		if (r->rt[t].n_levels)
			finest = fmin(finest, r->rt[t].levels[0].width_ns / 1e9);
	fputs("{\"version\":1,\"title\":", f);
	utf8_json_string_html(f, title);
	fprintf(f, ",\"x\":[%.9g,%.9g],\"finest\":", r->ctx.x_min,
		r->ctx.x_max);
	json_num(f, finest);
	fputs(",\"finestWhy\":", f);
	utf8_json_string_html(f, r->finest_why ? r->finest_why :
		    r->o->analysis.bin_width_ns ? "--bin-ms" :
		    "the trace's length");
	fprintf(f, ",\"tagged\":%s,", r->ctx.tagged ? "true" : "false");
	json_colors(f, r);
	fputs(",\"classes\":[", f);
	for (t = 0; t < r->cl.n; t++) {
		fputs(t ? ",{\"label\":" : "{\"label\":", f);
		utf8_json_string_html(f, r->cl.items[t].label);
		fprintf(f, ",\"color\":%d,\"trace\":%zu}", r->cl.items[t].color,
			r->cl.items[t].trace);
	}
	fputs("],", f);
	json_buckets(f);
	fputs(",\"traces\":[", f);
	for (t = 0; t < r->n; t++) {
		fputs(t ? "," : "", f);
		json_trace(f, r, t);
	}
	fputs("],\"graphs\":[", f);
	for (g = 0; g < r->n_graphs; g++) {
		fputs(g ? "," : "", f);
		json_graph(f, r, &r->graphs[g]);
	}
	fputs("],\"summary\":", f);
	if (json_summary(f, r) < 0)
		return -1;
	fprintf(f, ",\"blob\":{\"raw\":%zu}}", r->blob.b.len);
	return 0;
}

/* ---- the page ---- */

static int write_page(FILE *f, const struct report *r, struct iow_error *err)
{
	char title[512];
	size_t deflated;

	graph_page_title(r->o, r->traces, r->n, title, sizeof(title));
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>", f);
	html_text(f, title);
	fputs("</title>\n<style>\n", f);
	fputs(uplot_css, f);
	fputs(report_css, f);
	fputs("</style></head>\n<body>\n<div id=\"iow\"><p class=\"iow-loading\">"
	      "Loading the report&hellip;</p><noscript>This report draws "
	      "its graphs with JavaScript.</noscript></div>\n", f);
	if (r->section && r->section->html)
		fputs(r->section->html, f);
	fputs("<script id=\"iow-doc\" type=\"application/json\">", f);
	if (write_document(f, r) < 0)
		return oom(err);
	fputs("</script>\n<script id=\"iow-blob\" type=\"application/octet-stream\">",
	      f);
	if (blob_write_base64(&r->blob, f, &deflated, err) < 0)
		return -1;
	fputs("</script>\n<script>\n/*! uPlot, embedded under its licence:\n", f);
	fputs(uplot_license, f);
	fputs("*/\n", f);
	fputs(uplot_js, f);
	fputs("\n</script>\n<script>\n", f);
	fputs(report_js, f);
	fputs("\n</script>\n</body></html>\n", f);
	return 0;
}

static int write_file(const struct report *r, struct iow_error *err)
{
	struct outfile out;
	FILE *f;
	int bad;

	if (outfile_open(&out, r->o->output, NULL, err) < 0)
		return -1;
	f = fdopen(out.fd, "w");
	if (!f) {
		outfile_abort(&out);
		return iow_fail(err, "%s: %s", r->o->output, strerror(errno));
	}
	out.fd = -1;	/* the stream has it: commit syncs by name */
	if (write_page(f, r, err) < 0) {
		fclose(f);
		outfile_abort(&out);
		return -1;
	}
	bad = ferror(f) || fflush(f) != 0;
	if (fclose(f) != 0 || bad) {
		int e = errno;

		outfile_abort(&out);
		return iow_fail(err, "%s: write failed: %s", r->o->output,
				strerror(e ? e : EIO));
	}
	return outfile_commit(&out, err);
}

/* ---- the whole ---- */

static void report_free(struct report *r)
{
	size_t g, p, s, t, k;

	for (g = 0; g < r->n_graphs; g++) {
		for (p = 0; p < r->graphs[g].n_panels; p++) {
			struct rpanel *rp = &r->graphs[g].panels[p];

			for (s = 0; s < rp->n_series; s++)
				free(rp->series[s].label);
			free(rp->series);
			series_set_free(&rp->pending);
			bytebuf_free(&rp->png);
		}
		free(r->graphs[g].panels);
	}
	for (t = 0; r->rt && t < r->n; t++)
		for (k = 0; k < r->rt[t].n_maps; k++)
			free(r->rt[t].maps[k].cells);
	free(r->rt);
	class_list_free(&r->cl, r->n);
	blob_free(&r->blob);
}

/* The steps of each trace's bins, the numbers per bin, then the plan. */
static int plan(struct report *r)
{
	size_t t;

	r->rt = calloc(r->n, sizeof(*r->rt));
	if (!r->rt)
		return -1;
	for (t = 0; t < r->n; t++)
		r->rt[t].n_steps = analysis_coarsen_plan(
			&r->traces[t].analysis, r->rt[t].width,
			r->rt[t].bins, MAX_STEPS);
	r->heat_rows = 64;
	count_numbers(r);
	plan_levels(r);
	return 0;
}

/* The graphs whose series are their own x's are kept at the end. */
static void keep_own_series(struct report *r)
{
	size_t g, p;

	for (g = 0; g < r->n_graphs; g++)
		if (r->graphs[g].kind == KIND_OWN_X ||
		    r->graphs[g].kind == KIND_HIST)
			for (p = 0; p < r->graphs[g].n_panels; p++)
				keep_own_x(r, &r->graphs[g].panels[p]);
}

int report_render(const struct options *o, struct trace_result *traces,
		  size_t n, struct iow_error *err)
{
	return report_render_with(o, traces, n, NULL, err);
}

int report_render_with(const struct options *o, struct trace_result *traces,
		       size_t n, const struct report_section *section,
		       struct iow_error *err)
{
	struct report r;
	size_t t;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.section = section;
	r.traces = traces;
	r.n = n;
	for (t = 0; t < n; t++)
		if (traces[t].zoom && traces[t].zoom->failed)
			return iow_fail(err, "out of memory keeping the I/O map's detail");
	graph_ctx_init(&r.ctx, o, traces, n);
	if (build_classes(&r.ctx, &r.cl) < 0) {
		oom(err);
		goto out;
	}
	if (describe_graphs(&r, err) < 0)
		goto out;
	if (!r.n_graphs) {
		iow_fail(err, "no graph selected to draw");
		goto out;
	}
	if (plan(&r) < 0) {
		oom(err);
		goto out;
	}
	keep_own_series(&r);
	if (keep_levels(&r, err) < 0 || keep_maps(&r, err) < 0)
		goto out;
	if (r.blob.failed) {
		oom(err);
		goto out;
	}
	ret = write_file(&r, err);
out:
	report_free(&r);
	return ret;
}

/* ---- the report as an output (base/outkind.h) ---- */

static int report_chosen(const struct options *o)
{
	/* --compare writes the report of both traces itself */
	return o->output && o->output_type.kind == OUTPUT_REPORT &&
	       !o->compare;
}

static int report_prepare_row(void *w, const struct options *o, size_t i,
			      struct trace_result *res,
			      struct analysis_config *cfg,
			      struct iow_error *err)
{
	(void)w;
	(void)i;
	return report_prepare(o, res, cfg, err);
}

static int report_finish(void *w, const struct options *o,
			 struct trace_result *traces, size_t n,
			 struct iow_error *err)
{
	(void)w;
	/* it widens the bins to the pictures' as it goes */
	return report_render(o, traces, n, err);
}

const struct output_ops report_output = {
	.name = "report",
	.help = "one HTML page of every graph, to zoom in, and the summary",
	.kind = OUTPUT_REPORT,
	.noun = "the report",
	.exts = { { ".html", 0 }, { ".htm", 0 } },
	.chosen = report_chosen,
	.prepare = report_prepare_row,
	.finish = report_finish,
	.free_trace = report_trace_free,
};
