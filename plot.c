/*
 * plot.c: pages, panels and their layout, series, legends and axes drawn
 * with cairo: the page module, which calls its parts in plot/ and is
 * never called back by them. The arithmetic of ticks and labels is in
 * plot_scale.c, fonts and text in plot_text.c, coordinates and what the
 * parts share of a page in plot_panel.c, rasters and heat maps in
 * plot_raster.c, icicles and bars in plot_boxes.c, the palette and mixes
 * in plot_color.c; what they share is in plot_internal.h. Knows numbers,
 * not traces.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "base/outfile.h"
#include "plot.h"
#include "plot/plot_internal.h"
#include "base/utf8.h"

/* ---- Look ---- */

#define PAD		8.0	/* panel edge to its contents */
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
#define PAGE_GUTTER	12.0

#define GRID_COLOR	0xE5E5E5
#define FRAME_COLOR	0x555555

/* ---- Pages ---- */

#define OUT_BUF_SIZE	65536

static int flush_out(struct plot_page *p)
{
	size_t done = 0;
	ssize_t w;

	while (done < p->out_len) {
		w = write(p->out.fd, p->out_buf + done, p->out_len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			p->write_errno = errno;
			return -1;
		}
		done += (size_t)w;
	}
	p->out_len = 0;
	return 0;
}

static cairo_status_t page_write(void *closure, const unsigned char *data,
				 unsigned int len)
{
	struct plot_page *p = closure;
	size_t chunk;

	if (p->write_errno)
		return CAIRO_STATUS_WRITE_ERROR;
	while (len) {
		if (p->out_len == OUT_BUF_SIZE && flush_out(p))
			return CAIRO_STATUS_WRITE_ERROR;
		chunk = OUT_BUF_SIZE - p->out_len;
		if (chunk > len)
			chunk = len;
		memcpy(p->out_buf + p->out_len, data, chunk);
		p->out_len += chunk;
		data += chunk;
		len -= chunk;
	}
	return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *create_surface(struct plot_page *p)
{
	cairo_surface_t *s;

	switch (p->fmt) {
	case PLOT_SVG:
		s = cairo_svg_surface_create_for_stream(page_write, p,
							p->width, p->height);
		cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
		return s;
	case PLOT_PDF:
		s = cairo_pdf_surface_create_for_stream(page_write, p,
							p->width, p->height);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR,
					       "iowatcher");
		return s;
	case PLOT_PNG:
	default:
		return cairo_image_surface_create(CAIRO_FORMAT_RGB24,
						  (int)ceil(p->width),
						  (int)ceil(p->height));
	}
}

/* Grey anti-aliasing and unhinted metrics: the same layout in all formats. */
static void set_font_options(cairo_t *cr)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
}

static void draw_page_title(struct plot_page *p, const char *title)
{
	char buf[256];

	p->title_h = 0;
	if (!title || !*title)
		return;
	plot_use_font(p->cr, FONT_PAGE_TITLE);
	plot_fit_text(p->cr, title, p->width - 2 * PAD, buf, sizeof(buf));
	plot_draw_text(p->cr, p->width / 2, PAD + plot_font_ascent(p->cr), buf, 0.5);
	p->title_h = PAD + plot_line_height(p->cr) + 4;
}

static void page_free(struct plot_page *p);

/* Sets up surface and context on an open temporary file. */
static int page_start(struct plot_page *p, const char *title,
		      struct iow_error *err)
{
	p->surface = create_surface(p);
	if (cairo_surface_status(p->surface) != CAIRO_STATUS_SUCCESS)
		return iow_fail(err, "%s: cannot start a %.0fx%.0f page: %s",
				p->path, p->width, p->height,
				cairo_status_to_string(
					cairo_surface_status(p->surface)));
	p->cr = cairo_create(p->surface);
	set_font_options(p->cr);
	cairo_set_source_rgb(p->cr, 1, 1, 1);
	cairo_paint(p->cr);
	draw_page_title(p, title);
	if (cairo_status(p->cr) != CAIRO_STATUS_SUCCESS)
		return iow_fail(err, "%s: %s", p->path,
				cairo_status_to_string(cairo_status(p->cr)));
	return 0;
}

struct plot_page *plot_page_open(const char *path, enum plot_format fmt,
				 double width, double height,
				 const char *title, struct iow_error *err)
{
	struct plot_page *p;

	if (!(width >= 1 && height >= 1 && width <= 32767 && height <= 32767)) {
		iow_fail(err, "%s: page size %gx%g is out of range (1..32767)",
			 path, width, height);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p)
		p->out.fd = -1;
	if (!p || !(p->path = strdup(path)) ||
	    !(p->out_buf = malloc(OUT_BUF_SIZE))) {
		iow_fail(err, "%s: out of memory", path);
		page_free(p);
		return NULL;
	}
	p->fmt = fmt;
	p->width = width;
	p->height = height;
	if (outfile_open(&p->out, p->path, NULL, err) ||
	    page_start(p, title, err)) {
		plot_page_abort(p);
		return NULL;
	}
	return p;
}

struct plot_page *plot_page_open_surface(cairo_surface_t *s, double scale,
					 const char *name,
					 struct iow_error *err)
{
	struct plot_page *p;

	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS ||
	    cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE ||
	    !(scale > 0)) {
		iow_fail(err, "%s: not an image surface to draw on", name);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p)
		p->out.fd = -1;
	if (!p || !(p->path = strdup(name))) {
		iow_fail(err, "%s: out of memory", name);
		page_free(p);
		return NULL;
	}
	/* an image, as a PNG page draws into: rasters need no enlarging */
	p->fmt = PLOT_PNG;
	p->on_surface = 1;
	p->width = cairo_image_surface_get_width(s) / scale;
	p->height = cairo_image_surface_get_height(s) / scale;
	p->surface = cairo_surface_reference(s);
	p->cr = cairo_create(s);
	cairo_scale(p->cr, scale, scale);
	set_font_options(p->cr);
	if (cairo_status(p->cr) != CAIRO_STATUS_SUCCESS) {
		iow_fail(err, "%s: %s", name,
			 cairo_status_to_string(cairo_status(p->cr)));
		page_free(p);
		return NULL;
	}
	return p;
}

static void panel_free(struct plot_panel *pp)
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

static void page_free(struct plot_page *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n_panels; i++)
		panel_free(p->panels[i]);
	free(p->panels);
	if (p->cr)
		cairo_destroy(p->cr);
	if (p->surface)
		cairo_surface_destroy(p->surface);
	for (i = 0; i < p->n_kept; i++)
		cairo_surface_destroy(p->kept[i]);
	free(p->kept);
	outfile_abort(&p->out);
	free(p->out_buf);
	free(p->path);
	free(p);
}

void plot_page_abort(struct plot_page *p)
{
	if (!p)
		return;
	page_free(p);
}

struct plot_rect plot_page_body(const struct plot_page *p)
{
	struct plot_rect r = { 0, p->title_h, p->width,
			       p->height - p->title_h };
	return r;
}

struct plot_rect plot_page_cell(const struct plot_page *p, int rows, int cols,
				int row, int col)
{
	struct plot_rect body = plot_page_body(p), r;
	double cw, ch;

	if (rows < 1)
		rows = 1;
	if (cols < 1)
		cols = 1;
	cw = (body.w - PAGE_GUTTER) / cols;
	ch = (body.h - PAGE_GUTTER) / rows;
	r.x = body.x + PAGE_GUTTER / 2 + col * cw;
	r.y = body.y + PAGE_GUTTER / 2 + row * ch;
	r.w = cw;
	r.h = ch;
	return r;
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
		panel_free(pp);
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

	if (a->log) {
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
	double room = pp->box.w - 2 * PAD;
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
	h = PAD + plot_line_height(cr) + 6;
	plot_use_font(cr, FONT_LEGEND);
	pp->legend_rows = legend_rows_needed(cr, pp);
	if (!pp->legend_rows)
		return h;
	return h + pp->legend_rows * (plot_line_height(cr) + 4) + 4;
}

static double bottom_margin(cairo_t *cr, const struct plot_panel *pp)
{
	double h = TICK_LEN + TICK_GAP + PAD;

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
	double w = PAD + widest_label(cr, &pp->y.ticks) + TICK_GAP + TICK_LEN;

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

static void panel_layout(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;
	struct plot_rect a;
	double top, bottom, left, right = PAD;

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
	right = fmax(PAD, x_label_overhang(pp, a.w, 1) + 2);
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
		panel_layout(pp);
}

const struct plot_axis_ticks *plot_panel_x_ticks(struct plot_panel *pp)
{
	if (!pp)
		return NULL;
	panel_layout(pp);
	return &pp->x.ticks;
}

const struct plot_axis_ticks *plot_panel_y_ticks(struct plot_panel *pp)
{
	if (!pp)
		return NULL;
	panel_layout(pp);
	return &pp->y.ticks;
}

struct plot_rect plot_panel_area(struct plot_panel *pp)
{
	if (!pp)
		return (struct plot_rect){ 0, 0, 0, 0 };
	panel_layout(pp);
	return pp->area;
}

/* ---- Coordinates ---- */

static int point_ok(const struct plot_panel *pp, double x, double y)
{
	return isfinite(x) && isfinite(y) && (!pp->x.log || x > 0) &&
	       (!pp->y.log || y > 0);
}

/* Starts drawing a series: layout, a saved state clipped to the area. */
static cairo_t *series_begin(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;

	panel_layout(pp);
	plot_rasters_flush(pp);
	cairo_save(cr);
	cairo_rectangle(cr, pp->area.x, pp->area.y, pp->area.w, pp->area.h);
	cairo_clip(cr);
	return cr;
}

static void series_end(struct plot_panel *pp)
{
	cairo_restore(pp->page->cr);
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
		plot_fit_text(cr, pp->x_label, pp->box.w - 2 * PAD, buf, sizeof(buf));
		plot_draw_text(cr, a->x + a->w / 2,
			  pp->box.y + pp->box.h - PAD - fe.descent, buf, 0.5);
	}
	if (pp->y_label) {
		plot_fit_text(cr, pp->y_label, a->h + 20, buf, sizeof(buf));
		cairo_save(cr);
		cairo_translate(cr, pp->box.x + PAD + fe.ascent,
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
	double left = pp->box.x + PAD, right = pp->box.x + pp->box.w - PAD;
	double row = right - left, title_h, row_mid, bar_w = 0, legend_w = 0;
	double title_room, legend_h;
	size_t k = 0;
	char buf[256], more[32] = "";

	plot_use_font(cr, FONT_TITLE);
	title_h = plot_line_height(cr);
	row_mid = pp->box.y + PAD + title_h / 2;
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
		legend_lines(pp, pp->legend_shown, left, pp->box.y + PAD +
			     title_h + 2 + legend_h / 2, right, legend_h, 1,
			     pp->legend_more);
}

static void panel_decorate(struct plot_panel *pp)
{
	cairo_t *cr = pp->page->cr;

	panel_layout(pp);
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

/* ---- Series ---- */

/* Dash patterns for the lighter and darker passes through the palette
 * (dotted: 2, whatever the pass). */
static void set_series_line(cairo_t *cr, int color_index, double width,
			    int cycle)
{
	static const double dashes[] = { 6, 3 };
	static const double dots[] = { 1.5, 2.5 };

	cairo_set_line_width(cr, width > 0 ? width : 1.5);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	if (cycle == 1)
		cairo_set_dash(cr, dashes, 2, 0);
	else if (cycle == 2)
		cairo_set_dash(cr, dots, 2, 0);
	set_rgba(cr, plot_color(color_index), 1);
}

/*
 * Thinning for dense polylines: the points falling in one pixel column
 * are replaced by the column's first, lowest, highest and last points,
 * in their original order, which draws the same picture.
 */
struct column {
	int active, pen_down;
	double col;
	double fx, fy, lx, ly;		/* first and last */
	double lo_x, lo_y, hi_x, hi_y;	/* lowest and highest on the page */
	int lo_first;			/* the lowest came before the highest */
};

static void column_emit(cairo_t *cr, struct column *c, double x, double y)
{
	double cx, cy;

	if (c->pen_down && cairo_has_current_point(cr)) {
		cairo_get_current_point(cr, &cx, &cy);
		if (cx == x && cy == y)
			return;
	}
	if (c->pen_down) {
		cairo_line_to(cr, x, y);
	} else {
		cairo_move_to(cr, x, y);
		/* A lone point still shows, as a dot, with round caps. */
		cairo_line_to(cr, x, y);
		c->pen_down = 1;
	}
}

static void column_flush(cairo_t *cr, struct column *c)
{
	if (!c->active)
		return;
	column_emit(cr, c, c->fx, c->fy);
	if (c->lo_first) {
		column_emit(cr, c, c->lo_x, c->lo_y);
		column_emit(cr, c, c->hi_x, c->hi_y);
	} else {
		column_emit(cr, c, c->hi_x, c->hi_y);
		column_emit(cr, c, c->lo_x, c->lo_y);
	}
	column_emit(cr, c, c->lx, c->ly);
	c->active = 0;
}

static void column_add(cairo_t *cr, struct column *c, double x, double y)
{
	double col = floor(x);

	if (c->active && col != c->col)
		column_flush(cr, c);
	if (!c->active) {
		c->active = 1;
		c->col = col;
		c->fx = c->lo_x = c->hi_x = x;
		c->fy = c->lo_y = c->hi_y = y;
		c->lo_first = 1;
	}
	/* Page y grows downwards: "highest" is the smallest y. */
	if (y > c->lo_y) {
		c->lo_x = x;
		c->lo_y = y;
		c->lo_first = 0;
	}
	if (y < c->hi_y) {
		c->hi_x = x;
		c->hi_y = y;
		c->lo_first = 1;
	}
	c->lx = x;
	c->ly = y;
}

static void column_gap(cairo_t *cr, struct column *c)
{
	column_flush(cr, c);
	c->pen_down = 0;
}

/*
 * A point with gaps on both sides makes no line segment and would not
 * show: a sparse trace's one busy bin. Draw such points as dots, in the
 * colour the stroke just used.
 */
static void line_lone_points(struct plot_panel *pp, cairo_t *cr,
			     const double *x, const double *y, size_t n,
			     double width)
{
	double r = width + 0.9;
	size_t i;

	cairo_set_dash(cr, NULL, 0, 0);
	for (i = 0; i < n; i++) {
		if (!point_ok(pp, x[i], y[i]))
			continue;
		if ((i > 0 && point_ok(pp, x[i - 1], y[i - 1])) ||
		    (i + 1 < n && point_ok(pp, x[i + 1], y[i + 1])))
			continue;
		cairo_new_sub_path(cr);
		cairo_arc(cr, plot_px_x(pp, x[i]), plot_px_y(pp, y[i]), r, 0,
			  2 * M_PI);
	}
	cairo_fill(cr);
}

static void line_styled(struct plot_panel *pp, const double *x,
			const double *y, size_t n, int color_index,
			double width, int cycle)
{
	struct column c = { 0 };
	cairo_t *cr;
	size_t i;

	if (!pp || !x || !y)
		return;
	cr = series_begin(pp);
	for (i = 0; i < n; i++) {
		if (!point_ok(pp, x[i], y[i]))
			column_gap(cr, &c);
		else
			column_add(cr, &c, plot_px_x(pp, x[i]),
				   plot_px_y(pp, y[i]));
	}
	column_flush(cr, &c);
	set_series_line(cr, color_index, width, cycle);
	cairo_stroke(cr);
	line_lone_points(pp, cr, x, y, n, width);
	series_end(pp);
}

void plot_line(struct plot_panel *pp, const double *x, const double *y,
	       size_t n, int color_index, double width)
{
	line_styled(pp, x, y, n, color_index, width,
		    plot_color_cycle(color_index));
}

void plot_line_dotted(struct plot_panel *pp, const double *x,
		      const double *y, size_t n, int color_index, double width)
{
	line_styled(pp, x, y, n, color_index, width, 2);
}

void plot_step(struct plot_panel *pp, const double *x, const double *y,
	       size_t n, int color_index, double width)
{
	struct column c = { 0 };
	cairo_t *cr;
	double py;
	size_t i;

	if (!pp || !x || !y)
		return;
	cr = series_begin(pp);
	for (i = 0; i < n; i++) {
		if (!point_ok(pp, x[i], y[i])) {
			column_gap(cr, &c);
			continue;
		}
		py = plot_px_y(pp, y[i]);
		column_add(cr, &c, plot_px_x(pp, x[i]), py);
		if (i + 1 < n && isfinite(x[i + 1]))
			column_add(cr, &c, plot_px_x(pp, x[i + 1]), py);
	}
	column_flush(cr, &c);
	set_series_line(cr, color_index, width,
			plot_color_cycle(color_index));
	cairo_stroke(cr);
	series_end(pp);
}

static int band_point_ok(const struct plot_panel *pp, double x, double lo,
			 double hi)
{
	return point_ok(pp, x, lo) && point_ok(pp, x, hi);
}

/* One polygon: along hi from first to last, back along lo; a point with
 * gaps on both sides (an mpstat of one sample) a bar 3 px wide, as a
 * line's lone point is a dot, not nothing. */
static void band_run(struct plot_panel *pp, const double *x, const double *lo,
		     const double *hi, size_t first, size_t last)
{
	cairo_t *cr = pp->page->cr;
	size_t i;

	if (first == last) {
		double px = plot_px_x(pp, x[first]);
		double y0 = plot_px_y(pp, lo[first]);
		double y1 = plot_px_y(pp, hi[first]);

		cairo_rectangle(cr, px - 1.5, fmin(y0, y1), 3, fabs(y1 - y0));
		return;
	}
	cairo_move_to(cr, plot_px_x(pp, x[first]), plot_px_y(pp, hi[first]));
	for (i = first + 1; i <= last; i++)
		cairo_line_to(cr, plot_px_x(pp, x[i]), plot_px_y(pp, hi[i]));
	for (i = last + 1; i-- > first;)
		cairo_line_to(cr, plot_px_x(pp, x[i]), plot_px_y(pp, lo[i]));
	cairo_close_path(cr);
}

void plot_shade_x(struct plot_panel *pp, double x0, double x1)
{
	const struct plot_rect *a;
	cairo_t *cr;
	double px0, px1, d;

	if (!pp || !isfinite(x0) || !isfinite(x1) || x1 < x0)
		return;
	cr = series_begin(pp);
	a = &pp->area;
	px0 = plot_px_x(pp, x0);
	px1 = plot_px_x(pp, x1);
	/* a window shorter than a pixel still shows: one pixel wide */
	if (px1 - px0 < 1) {
		px0 = (px0 + px1) / 2 - 0.5;
		px1 = px0 + 1;
	}
	cairo_rectangle(cr, px0, a->y, px1 - px0, a->h);
	cairo_clip(cr);
	cairo_set_source_rgba(cr, 0.85, 0.15, 0.1, 0.12);
	cairo_paint(cr);
	/* hatching, 45 degrees, 6 px apart */
	cairo_set_source_rgba(cr, 0.7, 0.1, 0.05, 0.35);
	cairo_set_line_width(cr, 0.8);
	for (d = px0 - a->h; d < px1; d += 6) {
		cairo_move_to(cr, d, a->y + a->h);
		cairo_line_to(cr, d + a->h, a->y);
	}
	cairo_stroke(cr);
	series_end(pp);
}

void plot_band(struct plot_panel *pp, const double *x, const double *lo,
	       const double *hi, size_t n, int color_index, double alpha)
{
	cairo_t *cr;
	size_t i, first = 0;
	int in_run = 0;

	if (!pp || !x || !lo || !hi)
		return;
	cr = series_begin(pp);
	for (i = 0; i <= n; i++) {
		int ok = i < n && band_point_ok(pp, x[i], lo[i], hi[i]);

		if (ok && !in_run)
			first = i;
		if (!ok && in_run)
			band_run(pp, x, lo, hi, first, i - 1);
		in_run = ok;
	}
	set_rgba(cr, plot_color(color_index),
		 alpha > 0 && alpha <= 1 ? alpha : 0.25);
	cairo_fill(cr);
	series_end(pp);
}

void plot_points(struct plot_panel *pp, const double *x, const double *y,
		 size_t n, int color_index, double radius)
{
	cairo_t *cr;
	double px, py, last_x = NAN, last_y = NAN;
	size_t i;

	if (!pp || !x || !y)
		return;
	if (!(radius > 0))
		radius = 2;
	cr = series_begin(pp);
	for (i = 0; i < n; i++) {
		if (!point_ok(pp, x[i], y[i]))
			continue;
		px = round(plot_px_x(pp, x[i]) * 2) / 2;
		py = round(plot_px_y(pp, y[i]) * 2) / 2;
		if (px == last_x && py == last_y)
			continue;	/* same half pixel: invisible twice */
		cairo_new_sub_path(cr);
		cairo_arc(cr, px, py, radius, 0, 2 * M_PI);
		last_x = px;
		last_y = py;
	}
	set_rgba(cr, plot_color(color_index), 0.8);
	cairo_fill(cr);
	series_end(pp);
}

/* The parts below draw on the panel once it is laid out, in the state
 * series_begin clips; they do not call back up here. */
void plot_heatmap(struct plot_panel *pp, const uint32_t *counts, int cols,
		  int rows, double x0, double x1, double y0, double y1,
		  const char *count_label)
{
	double box[4] = { x0, x1, y0, y1 };

	if (!plot_cells_ok(pp, counts, cols, rows))
		return;
	series_begin(pp);
	plot_heatmap_draw(pp, counts, cols, rows, box, count_label);
	series_end(pp);
}

void plot_icicle(struct plot_panel *pp, const struct plot_box *boxes,
		 size_t n, int rows)
{
	if (!pp || !boxes || rows <= 0)
		return;
	plot_icicle_draw(pp, series_begin(pp), boxes, n, rows);
	series_end(pp);
}

void plot_hbars(struct plot_panel *pp, const char *const *labels,
		const double *values, size_t rows, size_t parts,
		const int *colors, const char *const *notes)
{
	if (!pp || !rows)
		return;
	plot_hbars_draw(pp, series_begin(pp), labels, values, rows,
			parts, colors, notes);
	series_end(pp);
}

/* ---- Legend and text ---- */

static struct legend_entry *legend_add(struct plot_panel *pp,
				       const char *label, int color_index)
{
	struct legend_entry *more, *e;

	more = realloc(pp->legend, (pp->n_legend + 1) * sizeof(*more));
	if (!more) {
		plot_page_fail(pp->page, "out of memory");
		return NULL;
	}
	pp->legend = more;
	e = &more[pp->n_legend];
	e->label = strdup(label ? label : "");
	e->color_index = color_index;
	e->mix_index = -1;
	e->text_only = 0;
	if (!e->label) {
		plot_page_fail(pp->page, "out of memory");
		return NULL;
	}
	pp->n_legend++;
	return e;
}

void plot_legend(struct plot_panel *pp, const char *const *labels,
		 const int *color_indexes, size_t n)
{
	size_t i;

	if (!pp || !labels || !color_indexes || !n)
		return;
	for (i = 0; i < n; i++)
		if (!legend_add(pp, labels[i], color_indexes[i]))
			return;
}

void plot_legend_mix(struct plot_panel *pp, const char *label, int color_a,
		     int color_b)
{
	struct legend_entry *e = pp ? legend_add(pp, label, color_a) : NULL;

	if (e)
		e->mix_index = color_b;
}

void plot_legend_text(struct plot_panel *pp, const char *text)
{
	struct legend_entry *e = pp ? legend_add(pp, text, 0) : NULL;

	if (e)
		e->text_only = 1;
}

void plot_panel_note(struct plot_panel *pp, const char *text)
{
	cairo_t *cr;
	char buf[256];

	if (!pp || !text)
		return;
	cr = series_begin(pp);
	plot_use_font(cr, FONT_NOTE);
	plot_fit_text(cr, text, pp->area.w - 2 * PAD, buf, sizeof(buf));
	plot_draw_text_mid(cr, pp->area.x + pp->area.w / 2,
		      pp->area.y + pp->area.h / 2, buf, 0.5);
	series_end(pp);
}

/* ---- Closing ---- */

static int write_failure(struct plot_page *p, struct iow_error *err)
{
	return iow_fail(err, "cannot write %s: %s", p->path,
			strerror(p->write_errno ? p->write_errno : EIO));
}

/* Everything drawn; produce the bytes and check how that went. */
static int page_render(struct plot_page *p, struct iow_error *err)
{
	cairo_status_t st;
	size_t i;

	for (i = 0; i < p->n_panels; i++)
		panel_decorate(p->panels[i]);
	if (p->failure[0])
		return iow_fail(err, "%s", p->failure);
	st = cairo_status(p->cr);
	if (st != CAIRO_STATUS_SUCCESS)
		return iow_fail(err, "%s: drawing failed: %s", p->path,
				cairo_status_to_string(st));
	cairo_destroy(p->cr);
	p->cr = NULL;
	if (p->on_surface) {
		/* the caller's: it goes on drawing there */
		cairo_surface_flush(p->surface);
		return 0;
	}
	if (p->fmt == PLOT_PNG)
		st = cairo_surface_write_to_png_stream(p->surface, page_write,
						       p);
	cairo_surface_finish(p->surface);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(p->surface);
	if (p->write_errno || st == CAIRO_STATUS_WRITE_ERROR)
		return write_failure(p, err);
	if (st != CAIRO_STATUS_SUCCESS)
		return iow_fail(err, "%s: cannot finish the page: %s", p->path,
				cairo_status_to_string(st));
	return 0;
}

int plot_page_close(struct plot_page *p, struct iow_error *err)
{
	int rc;

	if (!p)
		return iow_fail(err, "plot_page_close: no page");
	rc = page_render(p, err);
	if (p->on_surface) {
		page_free(p);
		return rc;
	}
	if (!rc && flush_out(p))
		rc = write_failure(p, err);
	if (!rc)
		rc = outfile_commit(&p->out, err);
	page_free(p);
	return rc;
}
