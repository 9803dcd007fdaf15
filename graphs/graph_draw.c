/*
 * graph_draw.c: a graph drawn in its panels (lines, stacks, bands, axes,
 * loss shading), and the page that lays them out (graphs_render).
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

/* y is a share of 0..100 %. */
static int graph_percent(const struct graph_def *g)
{
	return quantity_of(g->y)->axis == AXIS_PERCENT;
}

/* How a picture's axis labels quantity q (NULL: SI numbers). */
static plot_format_fn axis_format(enum quantity q)
{
	static const plot_format_fn formats[] = {
		[AXIS_NUMBER] = NULL,
		[AXIS_SECONDS] = plot_format_seconds,
		[AXIS_NS] = plot_format_ns,
		[AXIS_MB_PER_S] = plot_format_mb_per_s,
		[AXIS_BYTES] = plot_format_bytes,
		[AXIS_PERCENT] = NULL,
	};

	return formats[quantity_of(q)->axis];
}

/*
 * A class with no I/O at all (reads in a write-only trace) is left out;
 * a percentage of 0 (no %irq) is data and stays.
 */
static int series_empty(const struct graph_series *s, int zero_is_data)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!isnan(s->y[i]) && (zero_is_data || s->y[i] != 0))
			return 0;
	return 1;
}

/* The series after i with the given role, same trace and colour. */
static const struct graph_series *next_edge(const struct series_set *set,
					    size_t i, enum series_role role)
{
	size_t j;

	for (j = i + 1; j < set->n; j++)
		if (set->items[j].role == role &&
		    set->items[j].trace == set->items[i].trace &&
		    set->items[j].color == set->items[i].color)
			return &set->items[j];
	return NULL;
}

/* The top of y: highest value but of max lines, which may be clipped. */
static double series_y_top(const struct series_set *set)
{
	double top = 0, *stack = calloc(set->n + 1, sizeof(double));
	size_t i, j;

	for (i = 0; i < set->n; i++) {
		const struct graph_series *s = &set->items[i];

		if (s->role == ROLE_MAX)
			continue;
		for (j = 0; j < s->n; j++) {
			double v = s->y[j];

			if (isnan(v))
				continue;
			if (s->role == ROLE_STACK && stack) {
				size_t k;

				/* stacks of one trace add up bin by bin */
				for (k = 0; k < i; k++)
					if (set->items[k].role == ROLE_STACK &&
					    set->items[k].trace == s->trace &&
					    j < set->items[k].n &&
					    !isnan(set->items[k].y[j]))
						v += set->items[k].y[j];
			}
			if (v > top)
				top = v;
		}
	}
	free(stack);
	return top;
}

/* A log x axis over the series' own x values (latency histograms). */
static void set_data_x(struct plot_panel *pp, const struct series_set *set)
{
	double lo = INFINITY, hi = 0;
	size_t i, j;

	for (i = 0; i < set->n; i++)
		for (j = 0; j < set->items[i].n; j++) {
			if (set->items[i].x[j] < lo)
				lo = set->items[i].x[j];
			if (set->items[i].x[j] > hi)
				hi = set->items[i].x[j];
		}
	if (!(hi > 0)) {
		lo = 1000;
		hi = 1e9;
	}
	plot_panel_set_x_log(pp, lo / 2, hi * 2);
}

/*
 * Whether stack i is drawn as lines: the stacks of the first trace in a
 * panel are filled, a later trace's are lines at each layer's top, so
 * that no band of one trace is seen through another's in a colour no
 * legend names (q2d-d2c of two traces).
 */
static int stack_as_line(const struct series_set *set, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (set->items[k].role == ROLE_STACK &&
		    set->items[k].trace != set->items[i].trace)
			return 1;
	return 0;
}

/* A stack's band i, from the stacks below it (or from floor, the
 * bottom of a log axis, where there are none); or the line at its top. */
static void draw_stack(struct plot_panel *pp, const struct series_set *set,
		       size_t i, double floor)
{
	const struct graph_series *s = &set->items[i];
	double *lo = calloc(s->n + 1, sizeof(double));
	double *hi = calloc(s->n + 1, sizeof(double));
	size_t j, k;

	if (!lo || !hi)
		goto out;
	for (k = 0; k < i; k++) {
		const struct graph_series *below = &set->items[k];

		if (below->role != ROLE_STACK || below->trace != s->trace)
			continue;
		for (j = 0; j < s->n && j < below->n; j++)
			if (!isnan(below->y[j]))
				lo[j] += below->y[j];
	}
	for (j = 0; j < s->n; j++) {
		if (isnan(s->y[j])) {
			lo[j] = hi[j] = NAN;
			continue;
		}
		hi[j] = lo[j] + s->y[j];
		if (floor > 0 && lo[j] < floor)
			lo[j] = floor;
	}
	if (stack_as_line(set, i))
		plot_line(pp, s->x, hi, s->n, s->color, 1.6);
	else
		plot_band(pp, s->x, lo, hi, s->n, s->color, 0.75);
out:
	free(lo);
	free(hi);
}

/*
 * A trace in one bin (--bin-ms longer than the trace) gives one point, at
 * the bin's middle, maybe past the end of the time axis: it is drawn as
 * a level across the bin (a bar's top, a band's box) instead. graph_series_add
 * left room for the second point.
 */
static void widen_lone_bin(const struct graph_ctx *ctx,
			   const struct graph_def *g, struct graph_series *s)
{
	const struct analysis *a = graph_trace_analysis(ctx, s->trace);
	double start, end;

	if (g->x_label || g->x_name || s->n != 1 || a->n_bins != 1)
		return;
	start = analysis_bin_start_s(a, 0);
	end = start + (double)a->bin_width_ns / 1e9;
	s->x[0] = fmax(start, ctx->x_min);
	s->x[1] = fmin(end, ctx->x_max);
	s->y[1] = s->y[0];
	s->n = 2;
}

/*
 * Samples that each average a span (mpstat's seconds, x at the span's
 * middle) drawn as steps over their spans: a level from the span's start
 * to its end, not points joined by slopes (a ramp between two seconds
 * that never happened). Each series' points become two, at its span's
 * ends, alike in every series of the panel so that stacks and bands
 * still add up point by point; a gap (NaN) stays a gap.
 */
static int series_as_steps(struct series_set *set, double span)
{
	size_t i, j;

	for (i = 0; i < set->n; i++) {
		struct graph_series *s = &set->items[i];
		double *x = malloc((2 * s->n + 1) * sizeof(double));
		double *y = malloc((2 * s->n + 1) * sizeof(double));

		if (!x || !y) {
			free(x);
			free(y);
			return -1;
		}
		for (j = 0; j < s->n; j++) {
			x[2 * j] = s->x[j] - span / 2;
			x[2 * j + 1] = s->x[j] + span / 2;
			y[2 * j] = y[2 * j + 1] = s->y[j];
		}
		free(s->x);
		free(s->y);
		s->x = x;
		s->y = y;
		s->n *= 2;
	}
	return 0;
}

/* Whether any trace completed I/O, for an empty panel's note. */
static int any_io(const struct graph_ctx *ctx)
{
	size_t t, i;

	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);

		for (i = 0; i < a->n_bins; i++)
			if (a->bins[i].ios[0] || a->bins[i].ios[1])
				return 1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of a series' values above 0, or NAN. */
static double series_median(const struct graph_series *s)
{
	double *v = malloc((s->n + 1) * sizeof(*v)), m = NAN;
	size_t i, n = 0;

	if (!v)
		return NAN;
	for (i = 0; i < s->n; i++)
		if (s->y[i] > 0)
			v[n++] = s->y[i];
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return m;
}

/*
 * Whether a latency graph's y axis is a log one: as --latency-axis says,
 * or (auto) where a line's typical value (its median) is under a
 * hundredth of the axis's top: on a linear axis it would lie on the
 * floor (an NVMe trace's 55 us beside another's 50 ms). *lo gets the
 * smallest value drawn, for the axis's bottom.
 */
static int latency_log_axis(const struct graph_ctx *ctx,
			    const struct series_set *set, double top,
			    double *lo)
{
	double typical = INFINITY;
	size_t i, j;

	*lo = INFINITY;
	for (i = 0; i < set->n; i++) {
		const struct graph_series *s = &set->items[i];

		for (j = 0; j < s->n; j++)
			if (s->y[j] > 0 && s->y[j] < *lo)
				*lo = s->y[j];
		if (s->role == ROLE_LINE || s->role == ROLE_STACK ||
		    s->role == ROLE_DOTTED)
			typical = fmin(typical, series_median(s));
	}
	if (!(top > 0) || !isfinite(*lo))
		return 0;
	switch (ctx->opts->latency_axis) {
	case LATENCY_AXIS_LOG:
		return 1;
	case LATENCY_AXIS_LINEAR:
		return 0;
	default:
		return isfinite(typical) && top / typical > 100;
	}
}

/* The p50 band edge (with a p99 after it) drawn with line i, or NULL. */
static const struct graph_series *band_of_line(const struct series_set *set,
					       size_t i)
{
	const struct graph_series *s = &set->items[i];
	size_t j;

	for (j = i + 1; j < set->n; j++)
		if (set->items[j].role == ROLE_P50 &&
		    set->items[j].trace == s->trace &&
		    set->items[j].color == s->color)
			return next_edge(set, j, ROLE_P99) ? &set->items[j]
							   : NULL;
	return NULL;
}

/* Whether p50 band edge i is drawn with a line before it. */
static int band_has_line(const struct series_set *set, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (set->items[j].role == ROLE_LINE &&
		    band_of_line(set, j) == &set->items[i])
			return 1;
	return 0;
}

/* Lines with bands (latency): with several traces, their legend names
 * each line once and says what the bands are in one key. */
static int any_banded_line(const struct series_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->items[i].role == ROLE_LINE && band_of_line(set, i))
			return 1;
	return 0;
}

/* The highest top of every panel of g: panels that compare. */
static int shared_y_top(const struct graph_ctx *ctx, const struct graph_def *g,
			double *top)
{
	size_t p, panels = g->panels(ctx);

	for (p = 0; p < panels; p++) {
		struct series_set set = { NULL, 0 };

		if (g->build(ctx, p, &set) < 0) {
			series_set_free(&set);
			return -1;
		}
		*top = fmax(*top, series_y_top(&set));
		series_set_free(&set);
	}
	return 0;
}

static int draw_lines(const struct graph_ctx *ctx, const struct graph_def *g,
		      size_t panel, struct plot_panel *pp,
		      struct iow_error *err)
{
	struct series_set set = { NULL, 0 };
	char band_labels[64][160], y_label[160];
	const char *labels[64];
	int colors[64];
	size_t i, n_legend = 0, n_bands;
	double top, floor = 0, lo;
	int compact;

	if (graph_build(ctx, panel, &set, err) < 0) {
		series_set_free(&set);
		return -1;
	}
	for (i = 0; i < set.n; i++)
		widen_lone_bin(ctx, g, &set.items[i]);
	if (g->x_span_s > 0 && series_as_steps(&set, g->x_span_s) < 0) {
		series_set_free(&set);
		return iow_fail(err, "out of memory building %s", g->name);
	}
	top = series_y_top(&set);
	if (g->share_y && shared_y_top(ctx, g, &top) < 0) {
		series_set_free(&set);
		return iow_fail(err, "out of memory building %s", g->name);
	}
	if (g->x_label)
		set_data_x(pp, &set);
	else
		plot_panel_set_x(pp, ctx->x_min, ctx->x_max);
	/* Headroom, so a flat line at the top is not drawn on the frame. */
	if (g->latency_axis && latency_log_axis(ctx, &set, top, &lo)) {
		/* the stacks' bottom band from under the axis */
		floor = lo / 100;
		plot_panel_set_y_log(pp, lo, top * 1.5);
		snprintf(y_label, sizeof(y_label), "%s (log scale)", g->y_label);
		plot_panel_set_y_label(pp, y_label);
	} else if (graph_percent(g))
		plot_panel_set_y(pp, 0, top > 50 ? 100 : top > 0 ? top * 1.05 : 1);
	else
		plot_panel_set_y(pp, 0, top > 0 ? top * 1.05 : 1);
	/* Several traces, or many classes with bands (tags): each line is
	 * named once and one text says what the bands are. */
	for (i = 0, n_bands = 0; i < set.n; i++)
		n_bands += set.items[i].role == ROLE_P50 &&
			   !series_empty(&set.items[i], graph_percent(g));
	compact = (ctx->n_traces > 1 || n_bands > 2) &&
		  any_banded_line(&set);
	if (compact)
		plot_legend_text(pp, "mean line, p50-p90-p99 bands, max");
	for (i = 0; i < set.n; i++)
		if (set.items[i].role == ROLE_STACK && stack_as_line(&set, i))
			break;
	if (i < set.n)
		plot_legend_text(pp, "the first trace filled, the others a "
				 "line at each layer's top");
	for (i = 0; i < set.n && n_legend < 64; i++) {
		const struct graph_series *s = &set.items[i], *up;
		const char *cut;

		if (series_empty(s, graph_percent(g)) || s->role == ROLE_P90 ||
		    s->role == ROLE_P99 || s->role == ROLE_MAX ||
		    s->role == ROLE_RANGE_HI)
			continue;
		labels[n_legend] = s->label;
		if (compact && s->role == ROLE_P50 && band_has_line(&set, i))
			continue;
		if (compact && s->role == ROLE_LINE &&
		    (up = band_of_line(&set, i))) {
			/* "run1 read D2C mean", "... p50": "run1 read D2C" */
			size_t k = 0;

			while (s->label[k] && s->label[k] == up->label[k])
				k++;
			while (k > 0 && s->label[k - 1] == ' ')
				k--;
			snprintf(band_labels[n_legend], sizeof(band_labels[0]),
				 "%.*s", (int)k, s->label);
			labels[n_legend] = band_labels[n_legend];
			colors[n_legend++] = s->color;
			continue;
		}
		if (s->role == ROLE_P50 && next_edge(&set, i, ROLE_P99)) {
			cut = strstr(s->label, "p50");
			snprintf(band_labels[n_legend], sizeof(band_labels[0]),
				 "%.*sp50-p90-p99, max", cut ?
				 (int)(cut - s->label) : 0, s->label);
			labels[n_legend] = band_labels[n_legend];
		}
		colors[n_legend] = s->color;
		if (s->role == ROLE_RANGE_LO &&
		    (up = next_edge(&set, i, ROLE_RANGE_HI))) {
			snprintf(band_labels[n_legend], sizeof(band_labels[0]),
				 "%s to %s", s->label, up->label);
			labels[n_legend] = band_labels[n_legend];
		}
		/* a band's swatch in the band's lighter shade */
		if (labels[n_legend] == band_labels[n_legend])
			colors[n_legend] = s->color % LIGHTER + LIGHTER;
		n_legend++;
	}
	plot_legend(pp, labels, colors, n_legend);
	for (i = 0; i < set.n; i++) {
		const struct graph_series *s = &set.items[i], *up;

		if (series_empty(s, graph_percent(g)))
			continue;
		switch (s->role) {
		case ROLE_LINE:
			break;
		case ROLE_P50:
		case ROLE_P90:
			up = next_edge(&set, i, s->role == ROLE_P50 ? ROLE_P90
								    : ROLE_P99);
			if (up)
				plot_band(pp, s->x, s->y, up->y, s->n, s->color,
					  s->role == ROLE_P50 ? 0.30 : 0.15);
			if (s->role == ROLE_P50 && !next_edge(&set, i, ROLE_P99))
				plot_line(pp, s->x, s->y, s->n, s->color, 1.6);
			continue;
		case ROLE_P99:
			continue;
		case ROLE_MAX:
			plot_line(pp, s->x, s->y, s->n,
				  s->color % LIGHTER + LIGHTER, 0.8);
			continue;
		case ROLE_STACK:
			draw_stack(pp, &set, i, floor);
			continue;
		case ROLE_STEP:
			plot_step(pp, s->x, s->y, s->n, s->color, 1.6);
			continue;
		case ROLE_RANGE_LO:
			up = next_edge(&set, i, ROLE_RANGE_HI);
			if (up)
				plot_band(pp, s->x, s->y, up->y, s->n, s->color,
					  0.2);
			continue;
		case ROLE_RANGE_HI:
			continue;
		case ROLE_DOTTED:
			plot_line_dotted(pp, s->x, s->y, s->n, s->color, 1.6);
			continue;
		}
		plot_line(pp, s->x, s->y, s->n, s->color, 1.6);
	}
	if (!n_legend)
		plot_panel_note(pp, graph_percent(g) ? "no samples in range" :
				g->empty_note && any_io(ctx) ? g->empty_note :
				"no I/O in range");
	series_set_free(&set);
	return 0;
}

FILE *graph_layout_file(void)
{
	const char *path = getenv("IOWATCHER_LAYOUT");

	return path && *path ? fopen(path, "a") : NULL;
}

/* A panel's place, time axis and title (the rest of the line), for tests. */
static void log_layout(FILE *f, const struct graph_def *g, size_t panel,
		       struct plot_panel *pp, const struct graph_ctx *ctx,
		       const char *title)
{
	struct plot_rect r = plot_panel_area(pp);

	fprintf(f, "%s %zu %.1f %.1f %.1f %.1f %.9g %.9g %s\n", g->name, panel,
		r.x, r.y, r.w, r.h, ctx->x_min, ctx->x_max, title);
}

/*
 * A CPU's file cut short (feed_cuts: its loss window from there to the
 * end): "cpu C's file cut short at S s", the earliest such, and, over
 * several traces, whose ("in LABEL, cpu C's file ..."); 0 if none.
 */
static int cut_phrase(const struct trace_result *traces, size_t n,
		      char *buf, size_t len)
{
	const struct loss_window *first = NULL;
	const char *label = NULL;
	size_t i, k;
	int cpu = 0;

	for (i = 0; i < n; i++)
		for (k = 0; k < traces[i].analysis.n_loss; k++) {
			const struct loss_window *w = &traces[i].analysis.loss[k];

			if (w->ended_cpu_mask &&
			    (!first || w->from_ns < first->from_ns)) {
				first = w;
				label = traces[i].label;
			}
		}
	if (!first)
		return 0;
	while (cpu < 63 && !(first->ended_cpu_mask >> cpu & 1))
		cpu++;
	snprintf(buf, len, "%s%s%scpu %d%s's file cut short at %.3g s",
		 n > 1 ? "in " : "", n > 1 ? label : "", n > 1 ? ", " : "", cpu,
		 cpu == 63 ? "+" : "", (double)first->from_ns / 1e9);
	return 1;
}

static void page_title(const struct options *o,
		       const struct trace_result *traces, size_t n, char *buf,
		       size_t len)
{
	char cut[160] = "";
	size_t i, used;
	uint64_t lost = 0, unlocated = 0;
	int unknown = 0, inferred = 0;
	size_t k;

	if (o->title) {
		used = (size_t)snprintf(buf, len, "%s", o->title);
	} else {
		used = (size_t)snprintf(buf, len, "iowatcher:");
		for (i = 0; i < n && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s %s", i ? "," : "",
						 traces[i].label);
	}
	for (i = 0; i < n; i++) {
		lost += traces[i].analysis.lost_events;
		unlocated += traces[i].analysis.lost_unlocated;
		/* inferred windows (analysis_holes.c) are not the
		 * recorder's: their time stays in the depth */
		for (k = 0; k < traces[i].analysis.n_loss; k++) {
			if (traces[i].analysis.loss[k].inferred)
				inferred = 1;
			else if (!traces[i].analysis.lost_events)
				unknown = 1;
		}
	}
	/* the page says it: a shaded window alone could pass unread; a
	 * loss of no known time (completions the recorder never saw) has
	 * no window to shade */
	if (used >= len || (!lost && !unknown && !inferred))
		return;
	if (!lost && !unknown) {
		snprintf(buf + used, len - used,
			 " (records missing, inferred: shaded; the requests lost there are in no latency or depth, the others are)");
		return;
	}
	if (cut_phrase(traces, n, cut, sizeof(cut)) && lost)
		snprintf(buf + used, len - used,
			 " (%s, %llu more events lost: shaded, no latency or depth there)",
			 cut, (unsigned long long)lost);
	else if (cut[0])
		snprintf(buf + used, len - used,
			 " (%s: shaded from there on, no latency or depth)",
			 cut);
	else if (lost && unlocated == lost)
		snprintf(buf + used, len - used,
			 " (%llu event%s lost at unknown times: not in latency or depth)",
			 (unsigned long long)lost, lost == 1 ? "" : "s");
	else if (unlocated)
		snprintf(buf + used, len - used,
			 " (%llu events lost: shaded where known, no latency or depth there)",
			 (unsigned long long)lost);
	else if (lost)
		snprintf(buf + used, len - used,
			 " (%llu event%s lost: shaded, no latency or depth there)",
			 (unsigned long long)lost, lost == 1 ? "" : "s");
	else
		snprintf(buf + used, len - used,
			 " (events lost: shaded, no latency or depth there)");
}

/* A time series' bins that overlap a loss window lose their values. */
static void hide_lossy_bins(const struct graph_ctx *ctx,
			    struct series_set *set)
{
	size_t i, k;

	if (!ctx->graph->lossy_unknown || ctx->graph->x_label ||
	    ctx->graph->x_name)
		return;
	for (k = 0; k < set->n; k++) {
		struct graph_series *s = &set->items[k];
		const struct analysis *a = graph_trace_analysis(ctx, s->trace);

		if (!a->n_loss)
			continue;
		for (i = 0; i < s->n && i < a->n_bins; i++)
			if (a->bins[i].lossy_ns)
				s->y[i] = NAN;
	}
}

int graph_build(const struct graph_ctx *ctx, size_t panel,
		struct series_set *out, struct iow_error *err)
{
	if (ctx->graph->build(ctx, panel, out) < 0)
		return iow_fail(err, "out of memory building %s",
				ctx->graph->name);
	hide_lossy_bins(ctx, out);
	return 0;
}

/* Every trace's loss windows over a time-axis panel. */
static void shade_loss(const struct graph_ctx *ctx, struct plot_panel *pp)
{
	size_t t, i;

	if (ctx->graph->x_label)
		return;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);

		for (i = 0; i < a->n_loss; i++)
			plot_shade_x(pp, (double)a->loss[i].from_ns / 1e9,
				     (double)a->loss[i].to_ns / 1e9);
	}
}

void graph_select_panel(struct graph_ctx *ctx, const struct graph_def *g,
			size_t p)
{
	uint32_t devs[MAX_DEVICE_PANELS];

	ctx->graph = g;
	/* --per-device: line graphs read the panel's device */
	ctx->in_device_panel = 0;
	if (g->panels != graph_line_panels || !ctx->opts->per_device)
		return;
	if (graph_traced_devices(ctx, devs, MAX_DEVICE_PANELS) > p) {
		ctx->in_device_panel = 1;
		ctx->panel_device = devs[p];
	}
}

int graph_draw_panel(const struct graph_ctx *ctx, size_t panel,
		     struct plot_page *page, struct plot_rect r, FILE *layout,
		     struct plot_panel **out, struct iow_error *err)
{
	const struct graph_def *g = ctx->graph;
	char ptitle[160];
	struct plot_panel *pp;
	int ret;

	if (g->panel_title)
		g->panel_title(ctx, panel, ptitle, sizeof(ptitle));
	else
		graph_title_line(ctx, panel, ptitle, sizeof(ptitle));
	pp = plot_panel_add(page, r.x, r.y, r.w, r.h, ptitle,
			    g->x_label ? g->x_label : "time",
			    g->y_label_for ? g->y_label_for(ctx, panel) :
			    g->y_label);
	plot_panel_set_x_format(pp, g->x_label ? axis_format(g->x) :
				plot_format_seconds);
	if (quantity_of(g->y)->axis == AXIS_BYTES)
		plot_panel_set_y_binary(pp);
	if (axis_format(g->y))
		plot_panel_set_y_format(pp, axis_format(g->y));
	ret = g->draw ? g->draw(ctx, panel, pp, err) :
			draw_lines(ctx, g, panel, pp, err);
	if (ret == 0)
		shade_loss(ctx, pp);
	if (layout)
		log_layout(layout, g, panel, pp, ctx, ptitle);
	if (out)
		*out = pp;
	return ret;
}

int graph_log_y(const struct graph_ctx *ctx, const struct series_set *set)
{
	double lo;

	return ctx->graph->latency_axis &&
	       latency_log_axis(ctx, set, series_y_top(set), &lo);
}

void graph_page_title(const struct options *o,
		      const struct trace_result *traces, size_t n, char *buf,
		      size_t len)
{
	page_title(o, traces, n, buf, len);
}

int graphs_want_points(const struct options *o)
{
	return o->output_type.kind == OUTPUT_PICTURE &&
	       (graphs_needs(o) & GRAPH_NEEDS_POINTS);
}

int graphs_want_sizes(const struct options *o)
{
	return (graphs_needs(o) & GRAPH_NEEDS_SIZES) != 0;
}

int graphs_render(const struct options *o, const struct trace_result *traces,
		  size_t n, struct iow_error *err)
{
	const struct graph_def *sel[GRAPHS_MAX_SELECTED];
	size_t n_sel = graphs_selected(o, sel, GRAPHS_MAX_SELECTED), n_panels = 0, i, k = 0;
	double w = o->graph_width ? o->graph_width : DEFAULT_GRAPH_WIDTH;
	double h = o->graph_height ? o->graph_height : DEFAULT_GRAPH_HEIGHT;
	struct plot_page *page;
	struct graph_ctx ctx;
	char title[512];
	int cols, rows;
	FILE *layout;

	graph_ctx_init(&ctx, o, traces, n);
	for (i = 0; i < n_sel; i++)
		n_panels += sel[i]->panels(&ctx);
	if (!n_panels)
		return iow_fail(err, "no graph selected to draw");
	cols = o->columns ? o->columns : (n_panels > 3 ? 2 : 1);
	if ((size_t)cols > n_panels)
		cols = (int)n_panels;
	rows = (int)((n_panels + (size_t)cols - 1) / (size_t)cols);
	page_title(o, traces, n, title, sizeof(title));
	page = plot_page_open(o->output, o->output_type.picture, w * cols, h * rows + 50, title,
			      err);
	if (!page)
		return -1;
	layout = graph_layout_file();
	for (i = 0; i < n_sel; i++) {
		size_t panels = sel[i]->panels(&ctx), p;

		for (p = 0; p < panels; p++, k++) {
			struct plot_rect r = plot_page_cell(page, rows, cols,
							    (int)(k / (size_t)cols),
							    (int)(k % (size_t)cols));
			int ret;

			graph_select_panel(&ctx, sel[i], p);
			ret = graph_draw_panel(&ctx, p, page, r, layout, NULL, err);
			if (ret < 0) {
				if (layout)
					fclose(layout);
				plot_page_abort(page);
				return -1;
			}
		}
	}
	if (layout)
		fclose(layout);
	return plot_page_close(page, err);
}
