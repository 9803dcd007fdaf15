/*
 * plot.c: pages, and on their panels the series and legends drawn with
 * cairo: the page module, which calls its parts in plot/ and is never
 * called back by them. A panel's layout, axes and frame are in
 * plot_layout.c, the arithmetic of ticks and labels in plot_scale.c,
 * fonts and text in plot_text.c, coordinates and what the parts share of
 * a page in plot_panel.c, rasters and heat maps in plot_raster.c,
 * icicles and bars in plot_boxes.c, the palette and mixes in
 * plot_color.c; what they share is in plot_internal.h. Knows numbers,
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

/* ---- Look ---- */

#define PAGE_GUTTER	12.0

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
	plot_fit_text(p->cr, title, p->width - 2 * PLOT_PAD, buf, sizeof(buf));
	plot_draw_text(p->cr, p->width / 2, PLOT_PAD + plot_font_ascent(p->cr), buf, 0.5);
	p->title_h = PLOT_PAD + plot_line_height(p->cr) + 4;
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

static void page_free(struct plot_page *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n_panels; i++)
		plot_panel_free(p->panels[i]);
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

	plot_panel_layout(pp);
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
	plot_fit_text(cr, text, pp->area.w - 2 * PLOT_PAD, buf, sizeof(buf));
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
		plot_panel_decorate(p->panels[i]);
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
