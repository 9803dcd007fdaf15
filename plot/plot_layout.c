/*
 * plot_layout.c: a panel's layout and its frame (plot_internal.h): the
 * panels' axes as the caller sets them, their ticks and labels chosen to
 * fit (plot_scale.c's arithmetic), the margins, the legend's rows, and
 * the grid, frame, tick labels, axis labels, title row, legend and colour
 * bar drawn round what the page module (plot.c) draws inside. Called by
 * plot.c (and its callers through plot.h); calls only the lower parts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "plot.h"
#include "plot_internal.h"

/* ---- Look ---- */

#define TICK_LEN	4.0
#define TICK_GAP	3.0	/* tick mark to its label */
#define X_TICK_SPACING	65.0	/* fewest px between x ticks */
#define Y_TICK_SPACING	28.0
#define Y_MAX_TICKS	8	/* more is clutter on the tallest panel */
#define X_LABEL_GAP	12.0	/* fewest px between two x tick labels */
#define Y_LABEL_GAP	4.0
#define LEGEND_SWATCH	10.0
#define LEGEND_GAP	16.0	/* between legend entries */
#define LEGEND_MAX_SHARE 0.2	/* of a panel's height, in rows of legend */
#define COLORBAR_W	96.0
#define COLORBAR_H	9.0

#define GRID_COLOR	0xE5E5E5
#define FRAME_COLOR	0x555555

void plot_panel_free(struct plot_panel *pp)
{
	size_t i;

	if (!pp)
		return;
	for (i = 0; i < pp->n_legend; i++)
		free(pp->legend[i].label);
	free(pp->legend);
	free(pp->title);
	free(pp->x_label);
	free(pp->y_label);
	free(pp->colorbar_label);
	plot_rasters_clear(&pp->rasters);
	free(pp);
}

/* ---- Panel layout ---- */

static void axis_init(struct plot_axis *a, int nice)
{
	memset(a, 0, sizeof(*a));
	a->want_min = 0;
	a->want_max = 1;
	a->nice = nice;
	a->format = plot_format_si;
}

static int page_add_panel(struct plot_page *p, struct plot_panel *pp)
{
	struct plot_panel **more;

	more = realloc(p->panels, (p->n_panels + 1) * sizeof(*more));
	if (!more)
		return -1;
	p->panels = more;
	p->panels[p->n_panels++] = pp;
	return 0;
}

struct plot_panel *plot_panel_add(struct plot_page *p, double x, double y,
				  double w, double h, const char *title,
				  const char *x_label, const char *y_label)
{
	struct plot_panel *pp;
	int failed = 0;

	if (!p)
		return NULL;
	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		plot_page_fail(p, "out of memory");
		return NULL;
	}
	pp->page = p;
	pp->box = (struct plot_rect){ x, y, w, h };
	pp->title = plot_dup_or_null(title, &failed);
	pp->x_label = plot_dup_or_null(x_label, &failed);
	pp->y_label = plot_dup_or_null(y_label, &failed);
	axis_init(&pp->x, 0);
	axis_init(&pp->y, 1);
	if (failed || page_add_panel(p, pp)) {
		plot_page_fail(p, "out of memory");
		plot_panel_free(pp);
		return NULL;
	}
	return pp;
}

static void axis_set(struct plot_panel *pp, struct plot_axis *a, double min,
		     double max, int log, int nice)
{
	if (!pp || pp->laid_out)
		return;
	a->want_min = min;
	a->want_max = max;
	a->log = log;
	a->nice = nice;
}

void plot_panel_set_x(struct plot_panel *pp, double min, double max)
{
	if (pp)
		axis_set(pp, &pp->x, min, max, 0, 0);
}

void plot_panel_set_y_none(struct plot_panel *pp)
{
	if (!pp || pp->laid_out)
		return;
	axis_set(pp, &pp->y, 0, 1, 0, 0);
	pp->y.none = 1;
}

void plot_panel_set_x_log(struct plot_panel *pp, double min, double max)
{
	if (pp)
		axis_set(pp, &pp->x, min, max, 1, 0);
}

void plot_panel_set_y(struct plot_panel *pp, double min, double max)
{
	if (pp)
		axis_set(pp, &pp->y, min, max, 0, 1);
}

void plot_panel_set_y_exact(struct plot_panel *pp, double min, double max)
{
	if (pp)
		axis_set(pp, &pp->y, min, max, 0, 0);
}

void plot_panel_set_y_log(struct plot_panel *pp, double min, double max)
{
	if (pp)
		axis_set(pp, &pp->y, min, max, 1, 1);
}

void plot_panel_set_y_label(struct plot_panel *pp, const char *label)
{
	int failed = 0;
	char *copy;

	if (!pp || pp->laid_out)
		return;
	copy = plot_dup_or_null(label, &failed);
	if (failed) {
		plot_page_fail(pp->page, "out of memory");
		return;
	}
	free(pp->y_label);
	pp->y_label = copy;
}

void plot_panel_set_x_format(struct plot_panel *pp, plot_format_fn fn)
{
	if (pp && !pp->laid_out)
		pp->x.format = fn ? fn : plot_format_si;
}

void plot_panel_set_x_ticks(struct plot_panel *pp, const double *values,
			    int n)
{
	int i;

	if (!pp || pp->laid_out)
		return;
	if (n > PLOT_MAX_TICKS)
		n = PLOT_MAX_TICKS;
	for (i = 0; i < n; i++)
		pp->x.fixed[i] = values[i];
	pp->x.n_fixed = n > 0 ? n : 0;
}

void plot_panel_set_y_format(struct plot_panel *pp, plot_format_fn fn)
{
	if (pp && !pp->laid_out)
		pp->y.format = fn ? fn : plot_format_si;
}

void plot_panel_set_y_binary(struct plot_panel *pp)
{
	if (pp && !pp->laid_out)
		pp->y.binary = 1;
}

void plot_panel_set_x_binary(struct plot_panel *pp)
{
	if (pp && !pp->laid_out)
		pp->x.binary = 1;
}

/*
 * A linear axis of bytes: ticks on 1-2-5 steps of the binary unit its
 * labels take (plot_format_bytes: the smallest keeping them below 1000),
 * 10 KiB, 20 KiB, not 9.77 KiB of decimal steps in bytes.
 */
static void binary_ticks(struct plot_axis *a, double *lo, double *hi,
			 int max_ticks)
{
	struct plot_axis_ticks *t = &a->ticks;
	double unit, ulo, uhi;
	int i, k = plot_bytes_unit(fmax(fabs(*lo), fabs(*hi)), 0, &unit);

	plot_sanitize_range(lo, hi);
	for (;;) {
		ulo = *lo / unit;
		uhi = *hi / unit;
		if (a->nice)
			plot_nice_range(&ulo, &uhi, max_ticks, a->min_step / unit);
		/* widened to 1000 units: the labels take the next unit */
		if (fmax(fabs(ulo), fabs(uhi)) < 1000 || k >= 6)
			break;
		unit *= 1024;
		k++;
	}
	a->step = plot_ticks_min_step(ulo, uhi, max_ticks, a->min_step / unit,
				      t->value, &t->n) * unit;
	for (i = 0; i < t->n; i++)
		t->value[i] *= unit;
	*lo = ulo * unit;
	*hi = uhi * unit;
}

/* Range, ticks and labels for at most max_ticks ticks. */
static void axis_choose(struct plot_axis *a, int max_ticks)
{
	struct plot_axis_ticks *t = &a->ticks;
	struct plot_tick_context ctx;
	double lo = a->want_min, hi = a->want_max;

	if (a->n_fixed) {
		int i;

		/* the caller's ticks, those inside the axis, crowded ones
		 * dropped later as any others */
		plot_sanitize_range(&lo, &hi);
		t->n = 0;
		for (i = 0; i < a->n_fixed; i++)
			if (a->fixed[i] >= lo && a->fixed[i] <= hi)
				t->value[t->n++] = a->fixed[i];
		a->step = 0;
	} else if (a->log) {
		plot_log_range(&lo, &hi, a->nice);
		plot_log_ticks(lo, hi, max_ticks, t->value, &t->n);
		a->step = 0;
	} else if (a->binary) {
		binary_ticks(a, &lo, &hi, max_ticks);
	} else {
		plot_sanitize_range(&lo, &hi);
		if (a->nice)
			plot_nice_range(&lo, &hi, max_ticks, a->min_step);
		a->step = plot_ticks_min_step(lo, hi, max_ticks, a->min_step,
					      t->value, &t->n);
	}
	a->lo = lo;
	a->hi = hi;
	ctx = (struct plot_tick_context){ lo, hi, a->step, a->log };
	plot_format_labels(a->format, &ctx, t->value, t->n, t->label);
}

/* Label sizes and positions along an axis of length px from 0. */
static void axis_measure(cairo_t *cr, struct plot_axis *a, double length,
			 int vertical)
{
	struct plot_axis_ticks *t = &a->ticks;
	int i;

	plot_use_font(cr, FONT_TICK);
	for (i = 0; i < t->n; i++) {
		t->pos[i] = plot_axis_frac(a, t->value[i]) * length;
		t->extent[i] = vertical ? plot_cap_height(cr) :
					  plot_text_width(cr, t->label[i]);
	}
}

static int axis_labels_fit(const struct plot_axis *a, int vertical)
{
	const struct plot_axis_ticks *t = &a->ticks;
	double need;
	int i;

	for (i = 1; i < t->n; i++) {
		if (vertical)
			need = t->extent[i] + Y_LABEL_GAP * 2;
		else
			need = (t->extent[i - 1] + t->extent[i]) / 2 +
			       X_LABEL_GAP;
		if (fabs(t->pos[i] - t->pos[i - 1]) < need)
			return 0;
	}
	return 1;
}

/* Keeps the first tick and each one clear of the last kept: for axes
 * too short for even two labels. */
static void drop_crowded_labels(struct plot_axis *a, int vertical)
{
	struct plot_axis_ticks *t = &a->ticks;
	double need;
	int i, kept = 1;

	for (i = 1; i < t->n; i++) {
		if (vertical)
			need = t->extent[i] + Y_LABEL_GAP * 2;
		else
			need = (t->extent[kept - 1] + t->extent[i]) / 2 +
			       X_LABEL_GAP;
		if (fabs(t->pos[i] - t->pos[kept - 1]) < need)
			continue;
		t->value[kept] = t->value[i];
		t->pos[kept] = t->pos[i];
		t->extent[kept] = t->extent[i];
		memcpy(t->label[kept], t->label[i], PLOT_LABEL_LEN);
		kept++;
	}
	if (t->n)
		t->n = kept;
}

/* The most ticks whose labels fit along length px without touching. */
static void axis_fit(cairo_t *cr, struct plot_axis *a, double length,
		     int vertical)
{
	double spacing = vertical ? Y_TICK_SPACING : X_TICK_SPACING;
	int max_ticks = (int)(length / spacing) + 1;

	if (a->none) {
		a->lo = a->want_min;
		a->hi = a->want_max;
		a->ticks.n = 0;
		return;
	}
	if (vertical && max_ticks > Y_MAX_TICKS)
		max_ticks = Y_MAX_TICKS;
	if (max_ticks > PLOT_MAX_TICKS)
		max_ticks = PLOT_MAX_TICKS;
	for (; max_ticks >= 2; max_ticks--) {
		axis_choose(a, max_ticks);
		axis_measure(cr, a, length, vertical);
		if (axis_labels_fit(a, vertical))
			return;
	}
	axis_choose(a, a->nice ? 2 : 1);
	axis_measure(cr, a, length, vertical);
	drop_crowded_labels(a, vertical);
}

static double widest_label(cairo_t *cr, const struct plot_axis_ticks *t)
{
	double w = 0;
	int i;

	plot_use_font(cr, FONT_TICK);
	for (i = 0; i < t->n; i++)
		w = fmax(w, plot_text_width(cr, t->label[i]));
	return w;
}

static void draw_swatch(cairo_t *cr, double x, double y_mid,
			struct plot_rgb c)
{
	double s = LEGEND_SWATCH, r = 2;
	double y = y_mid - s / 2;

	cairo_new_sub_path(cr);
	cairo_arc(cr, x + s - r, y + r, r, -M_PI / 2, 0);
	cairo_arc(cr, x + s - r, y + s - r, r, 0, M_PI / 2);
	cairo_arc(cr, x + r, y + s - r, r, M_PI / 2, M_PI);
	cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
	cairo_close_path(cr);
	set_rgba(cr, c, 1);
	cairo_fill(cr);
}

static double legend_entry_width(cairo_t *cr, const struct legend_entry *e)
{
	plot_use_font(cr, FONT_LEGEND);
	return (e->text_only ? 0 : LEGEND_SWATCH + 5) +
	       plot_text_width(cr, e->label);
}

static void draw_legend_entry(cairo_t *cr, const struct legend_entry *e,
			      double x, double y_mid)
{
	if (!e->text_only) {
		draw_swatch(cr, x, y_mid, e->mix_index < 0 ?
			    plot_color(e->color_index) :
			    plot_raster_mix(e->color_index, e->mix_index));
		x += LEGEND_SWATCH + 5;
	}
	plot_use_font(cr, FONT_LEGEND);
	plot_draw_text_mid(cr, x, y_mid, e->label, 0);
}

/*
 * Lays out the first n legend entries from x on lines row_h apart,
 * wrapping before right, then more (if not NULL or ""); draws them if
 * draw. Returns the lines used.
 */
static int legend_lines(struct plot_panel *pp, size_t n, double x,
			double y_mid, double right, double row_h, int draw,
			const char *more)
{
	cairo_t *cr = pp->page->cr;
	double x0 = x, w;
	int lines = 1;
	size_t i;

	for (i = 0; i <= n; i++) {
		if (i == n && !(more && *more))
			break;
		if (i < n) {
			w = legend_entry_width(cr, &pp->legend[i]);
		} else {
			plot_use_font(cr, FONT_LEGEND);
			w = plot_text_width(cr, more);
		}
		if (x + w > right && x > x0) {
			x = x0;
			y_mid += row_h;
			lines++;
		}
		if (draw && i < n)
			draw_legend_entry(cr, &pp->legend[i], x, y_mid);
		else if (draw)
			plot_draw_text_mid(cr, x, y_mid, more, 0);
		x += w + LEGEND_GAP;
	}
	return lines;
}

/* Width of the first n entries on one line. */
static double legend_line_width(cairo_t *cr, const struct plot_panel *pp,
				size_t n)
{
	double w = 0;
	size_t i;

	for (i = 0; i < n; i++)
		w += legend_entry_width(cr, &pp->legend[i]) +
		     (i ? LEGEND_GAP : 0);
	return w;
}

static double title_width(cairo_t *cr, const struct plot_panel *pp)
{
	if (!pp->title)
		return 0;
	plot_use_font(cr, FONT_TITLE);
	return plot_text_width(cr, pp->title);
}

/*
 * Rows needed below the title when the legend does not fit beside it: at
 * most LEGEND_MAX_SHARE of the panel, the entries that do not fit
 * counted as "+N more" (seven traces' latency legend took 70% of it).
 */
static int legend_rows_needed(cairo_t *cr, struct plot_panel *pp)
{
	double room = pp->box.w - 2 * PLOT_PAD;
	double w = legend_line_width(cr, pp, pp->n_legend);
	int rows, cap;
	size_t k = pp->n_legend;

	pp->legend_shown = pp->n_legend;
	pp->legend_more[0] = '\0';
	if (!pp->n_legend || w <= room - title_width(cr, pp) - LEGEND_GAP)
		return 0;
	rows = legend_lines(pp, pp->n_legend, 0, 0, room, 0, 0, NULL);
	plot_use_font(cr, FONT_LEGEND);
	cap = (int)(pp->box.h * LEGEND_MAX_SHARE / (plot_line_height(cr) + 4));
	if (cap < 1)
		cap = 1;
	if (rows <= cap)
		return rows;
	while (k > 0) {
		snprintf(pp->legend_more, sizeof(pp->legend_more),
			 "+%zu more", pp->n_legend - k);
		if (k < pp->n_legend &&
		    legend_lines(pp, k, 0, 0, room, 0, 0, pp->legend_more) <= cap)
			break;
		k--;
	}
	snprintf(pp->legend_more, sizeof(pp->legend_more), "+%zu more",
		 pp->n_legend - k);
	pp->legend_shown = k;
	return cap;
}

static double top_margin(cairo_t *cr, struct plot_panel *pp)
{
	double h;

	plot_use_font(cr, FONT_TITLE);
	h = PLOT_PAD + plot_line_height(cr) + 6;
	plot_use_font(cr, FONT_LEGEND);
	pp->legend_rows = legend_rows_needed(cr, pp);
	if (!pp->legend_rows)
		return h;
	return h + pp->legend_rows * (plot_line_height(cr) + 4) + 4;
}

static double bottom_margin(cairo_t *cr, const struct plot_panel *pp)
{
	double h = TICK_LEN + TICK_GAP + PLOT_PAD;

	plot_use_font(cr, FONT_TICK);
	h += plot_line_height(cr);
	if (pp->x_label) {
		plot_use_font(cr, FONT_AXIS);
		h += 4 + plot_line_height(cr);
	}
	return h;
}

static double left_margin(cairo_t *cr, const struct plot_panel *pp)
{
	double w = PLOT_PAD + widest_label(cr, &pp->y.ticks) + TICK_GAP + TICK_LEN;

	if (pp->y_label) {
		plot_use_font(cr, FONT_AXIS);
		w += plot_line_height(cr) + 6;
	}
	return w;
}

/* How far the first x label reaches left of the frame, and the last
 * one right of it (positions still counted from the frame's left). */
static double x_label_overhang(const struct plot_panel *pp, double width,
			       int right)
{
	const struct plot_axis_ticks *t = &pp->x.ticks;

	if (!t->n)
		return 0;
	if (right)
		return t->pos[t->n - 1] + t->extent[t->n - 1] / 2 - width;
	return t->extent[0] / 2 - t->pos[0];
}

static void axis_place(struct plot_axis *a, double origin, double sign)
{
	int i;

	for (i = 0; i < a->ticks.n; i++)
		a->ticks.pos[i] = origin + sign * a->ticks.pos[i];
}

/* Snaps to pixel edges so 1 px lines are crisp in PNG. */
static struct plot_rect snap_rect(struct plot_rect r)
{
	double x1 = round(r.x + r.w), y1 = round(r.y + r.h);

	r.x = round(r.x);
	r.y = round(r.y);
	r.w = fmax(1, x1 - r.x);
	r.h = fmax(1, y1 - r.y);
	return r;
}

static void panel_draw_grid(struct plot_panel *pp);

void plot_panel_layout(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;
	struct plot_rect a;
	double top, bottom, left, right = PLOT_PAD;

	if (pp->laid_out)
		return;
	pp->laid_out = 1;
	top = top_margin(cr, pp);
	bottom = bottom_margin(cr, pp);
	a.h = fmax(1, pp->box.h - top - bottom);
	axis_fit(cr, &pp->y, a.h, 1);
	left = left_margin(cr, pp);
	a.w = fmax(1, pp->box.w - left - right);
	axis_fit(cr, &pp->x, a.w, 0);
	/* Make room for end labels centred past the frame, then refit. */
	right = fmax(PLOT_PAD, x_label_overhang(pp, a.w, 1) + 2);
	left = fmax(left, x_label_overhang(pp, a.w, 0) + 2);
	if (pp->box.w - left - right < a.w) {
		a.w = fmax(1, pp->box.w - left - right);
		axis_fit(cr, &pp->x, a.w, 0);
	}
	a.x = pp->box.x + left;
	a.y = pp->box.y + top;
	pp->area = snap_rect(a);
	axis_measure(cr, &pp->x, pp->area.w, 0);
	axis_measure(cr, &pp->y, pp->area.h, 1);
	axis_place(&pp->x, pp->area.x, 1);
	axis_place(&pp->y, pp->area.y + pp->area.h, -1);
	panel_draw_grid(pp);
}

void plot_panel_draw_axes(struct plot_panel *pp)
{
	if (pp)
		plot_panel_layout(pp);
}

const struct plot_axis_ticks *plot_panel_x_ticks(struct plot_panel *pp)
{
	if (!pp)
		return NULL;
	plot_panel_layout(pp);
	return &pp->x.ticks;
}

const struct plot_axis_ticks *plot_panel_y_ticks(struct plot_panel *pp)
{
	if (!pp)
		return NULL;
	plot_panel_layout(pp);
	return &pp->y.ticks;
}

struct plot_rect plot_panel_area(struct plot_panel *pp)
{
	if (!pp)
		return (struct plot_rect){ 0, 0, 0, 0 };
	plot_panel_layout(pp);
	return pp->area;
}

/* ---- Grid, frame and decorations ---- */

static void panel_draw_grid(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;
	const struct plot_rect *a = &pp->area;
	int i;

	cairo_save(cr);
	cairo_set_line_width(cr, 1);
	plot_set_hex(cr, GRID_COLOR);
	for (i = 0; i < pp->x.ticks.n; i++) {
		cairo_move_to(cr, round(pp->x.ticks.pos[i]) + 0.5, a->y);
		cairo_line_to(cr, round(pp->x.ticks.pos[i]) + 0.5, a->y + a->h);
	}
	for (i = 0; i < pp->y.ticks.n; i++) {
		cairo_move_to(cr, a->x, round(pp->y.ticks.pos[i]) - 0.5);
		cairo_line_to(cr, a->x + a->w, round(pp->y.ticks.pos[i]) - 0.5);
	}
	cairo_stroke(cr);
	cairo_restore(cr);
}

static void draw_frame_and_ticks(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;
	const struct plot_rect *a = &pp->area;
	double bottom = a->y + a->h;
	int i;

	cairo_set_line_width(cr, 1);
	plot_set_hex(cr, FRAME_COLOR);
	/* Just outside the area, so it never hides data at the edges. */
	cairo_rectangle(cr, a->x - 0.5, a->y - 0.5, a->w + 1, a->h + 1);
	for (i = 0; i < pp->x.ticks.n; i++) {
		cairo_move_to(cr, round(pp->x.ticks.pos[i]) + 0.5, bottom + 1);
		cairo_rel_line_to(cr, 0, TICK_LEN);
	}
	for (i = 0; i < pp->y.ticks.n; i++) {
		cairo_move_to(cr, a->x - 1, round(pp->y.ticks.pos[i]) - 0.5);
		cairo_rel_line_to(cr, -TICK_LEN, 0);
	}
	cairo_stroke(cr);
}

static void draw_tick_labels(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;
	const struct plot_rect *a = &pp->area;
	double base;
	int i;

	plot_use_font(cr, FONT_TICK);
	base = a->y + a->h + TICK_LEN + TICK_GAP + plot_font_ascent(cr);
	for (i = 0; i < pp->x.ticks.n; i++)
		plot_draw_text(cr, pp->x.ticks.pos[i], base, pp->x.ticks.label[i],
			  0.5);
	for (i = 0; i < pp->y.ticks.n; i++)
		plot_draw_text_mid(cr, a->x - TICK_LEN - TICK_GAP,
			      pp->y.ticks.pos[i], pp->y.ticks.label[i], 1);
}

static void draw_axis_labels(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;
	const struct plot_rect *a = &pp->area;
	cairo_font_extents_t fe;
	char buf[256];

	plot_use_font(cr, FONT_AXIS);
	cairo_font_extents(cr, &fe);
	if (pp->x_label) {
		plot_fit_text(cr, pp->x_label, pp->box.w - 2 * PLOT_PAD, buf, sizeof(buf));
		plot_draw_text(cr, a->x + a->w / 2,
			  pp->box.y + pp->box.h - PLOT_PAD - fe.descent, buf, 0.5);
	}
	if (pp->y_label) {
		plot_fit_text(cr, pp->y_label, a->h + 20, buf, sizeof(buf));
		cairo_save(cr);
		cairo_translate(cr, pp->box.x + PLOT_PAD + fe.ascent,
				a->y + a->h / 2);
		cairo_rotate(cr, -M_PI / 2);
		plot_draw_text(cr, 0, 0, buf, 0.5);
		cairo_restore(cr);
	}
}

/*
 * For a legend declared too late to get rows of its own: how many
 * entries fit on one line of width room, leaving space for "+N more"
 * (written into more) when not all do.
 */
static size_t legend_fit_line(cairo_t *cr, const struct plot_panel *pp,
			      double room, char *more, size_t len)
{
	size_t k = pp->n_legend;

	more[0] = '\0';
	while (k > 0) {
		if (k < pp->n_legend)
			snprintf(more, len, "+%zu more", pp->n_legend - k);
		plot_use_font(cr, FONT_LEGEND);
		if (legend_line_width(cr, pp, k) +
		    (*more ? LEGEND_GAP + plot_text_width(cr, more) : 0) <= room)
			break;
		k--;
	}
	if (!k)
		snprintf(more, len, "+%zu more", pp->n_legend);
	return k;
}

/* The colour bar: "label 1 [ramp] max", its width if draw is 0. */
static double colorbar(struct plot_panel *pp, double x, double y_mid,
		       int draw)
{
	cairo_t *cr = pp->page->cr;
	cairo_pattern_t *ramp;
	char max_label[PLOT_LABEL_LEN], min_label[PLOT_LABEL_LEN];
	const char *label = pp->colorbar_label ? pp->colorbar_label : "";
	plot_format_fn fmt = pp->colorbar_format ? pp->colorbar_format :
						   plot_format_si;
	double x0 = x;
	int i;

	fmt(1, NULL, min_label, sizeof(min_label));
	fmt(pp->colorbar_max, NULL, max_label, sizeof(max_label));
	plot_use_font(cr, FONT_LEGEND);
	if (draw && *label)
		plot_draw_text_mid(cr, x, y_mid, label, 0);
	x += *label ? plot_text_width(cr, label) + 8 : 0;
	if (draw)
		plot_draw_text_mid(cr, x, y_mid, min_label, 0);
	x += plot_text_width(cr, min_label) + 4;
	if (draw) {
		ramp = cairo_pattern_create_linear(x, 0, x + COLORBAR_W, 0);
		for (i = 0; i <= 8; i++) {
			struct plot_rgb c = plot_ramp(i / 8.0);

			cairo_pattern_add_color_stop_rgb(ramp, i / 8.0, c.r,
							 c.g, c.b);
		}
		cairo_rectangle(cr, x, y_mid - COLORBAR_H / 2, COLORBAR_W,
				COLORBAR_H);
		cairo_set_source(cr, ramp);
		cairo_fill(cr);
		cairo_pattern_destroy(ramp);
		plot_use_font(cr, FONT_LEGEND);
	}
	x += COLORBAR_W + 4;
	if (draw)
		plot_draw_text_mid(cr, x, y_mid, max_label, 0);
	x += plot_text_width(cr, max_label);
	return x - x0;
}

/* The legend beside the title: k entries and a "+N more" ending at right. */
static double legend_beside(struct plot_panel *pp, double right, double y_mid,
			    size_t k, const char *more, int draw)
{
	cairo_t *cr = pp->page->cr;
	double w = legend_line_width(cr, pp, k), x;

	plot_use_font(cr, FONT_LEGEND);
	if (*more)
		w += (k ? LEGEND_GAP : 0) + plot_text_width(cr, more);
	if (!draw)
		return w;
	x = right - w;
	legend_lines(pp, k, x, y_mid, right + 1, 0, 1, NULL);
	if (*more) {
		plot_use_font(cr, FONT_LEGEND);
		plot_draw_text_mid(cr, right, y_mid, more, 1);
	}
	return w;
}

/* Title at the left of the top row; colour bar and legend at its right
 * (the title giving way down to 40% of the row), or the legend on the
 * rows reserved below. */
static void draw_title_row(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;
	double left = pp->box.x + PLOT_PAD, right = pp->box.x + pp->box.w - PLOT_PAD;
	double row = right - left, title_h, row_mid, bar_w = 0, legend_w = 0;
	double title_room, legend_h;
	size_t k = 0;
	char buf[256], more[32] = "";

	plot_use_font(cr, FONT_TITLE);
	title_h = plot_line_height(cr);
	row_mid = pp->box.y + PLOT_PAD + title_h / 2;
	if (pp->has_colorbar)
		bar_w = colorbar(pp, 0, 0, 0) + LEGEND_GAP;
	title_room = row - bar_w;
	if (pp->n_legend && !pp->legend_rows) {
		double t = fmin(title_width(cr, pp), row * 0.4);

		k = legend_fit_line(cr, pp, title_room - (t ? t + LEGEND_GAP : 0),
				    more, sizeof(more));
		legend_w = legend_beside(pp, right - bar_w, row_mid, k, more, 0);
		title_room -= legend_w + LEGEND_GAP;
	}
	if (pp->title) {
		plot_use_font(cr, FONT_TITLE);
		plot_fit_text(cr, pp->title, title_room, buf, sizeof(buf));
		plot_draw_text_mid(cr, left, row_mid, buf, 0);
	}
	if (bar_w)
		colorbar(pp, right - bar_w + LEGEND_GAP, row_mid, 1);
	if (legend_w)
		legend_beside(pp, right - bar_w, row_mid, k, more, 1);
	plot_use_font(cr, FONT_LEGEND);
	legend_h = plot_line_height(cr) + 4;
	if (pp->n_legend && pp->legend_rows)
		legend_lines(pp, pp->legend_shown, left, pp->box.y + PLOT_PAD +
			     title_h + 2 + legend_h / 2, right, legend_h, 1,
			     pp->legend_more);
}

void plot_panel_decorate(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;

	plot_panel_layout(pp);
	plot_rasters_flush(pp);
	cairo_save(cr);
	cairo_rectangle(cr, pp->box.x, pp->box.y, pp->box.w, pp->box.h);
	cairo_clip(cr);
	draw_frame_and_ticks(pp);
	draw_tick_labels(pp);
	draw_axis_labels(pp);
	draw_title_row(pp);
	cairo_restore(cr);
}

