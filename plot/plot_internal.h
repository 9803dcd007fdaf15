/*
 * plot_internal.h: what plot.c and the parts in plot/ share and nothing
 * else sees: the page, panel and axis structures, and the functions of
 * the parts. Calls go one way: plot.c (the page: layout, axes, series,
 * legends) calls the parts; plot_raster.c and plot_boxes.c call the
 * lower ones (plot_panel.c, plot_text.c, plot_color.c, plot_scale.c),
 * never plot.c. The interface is plot.h.
 */
#ifndef IOWATCHER_PLOT_INTERNAL_H
#define IOWATCHER_PLOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "base/error.h"
#include "base/outfile.h"
#include "plot.h"

/* ---- Pages and panels ---- */

#define PLOT_PAD	8.0	/* a panel's (and the page's) edge to its contents */

struct plot_axis {
	double want_min, want_max;	/* as the caller set them */
	double lo, hi;			/* as shown */
	int log, nice;
	int binary;			/* ticks on 1-2-5 of a binary unit */
	int none;			/* no ticks, labels or grid at all */
	double min_step;
	double step;
	plot_format_fn format;
	/* ticks the caller placed (plot_panel_set_x_ticks), or n_fixed 0 */
	int n_fixed;
	double fixed[PLOT_MAX_TICKS];
	struct plot_axis_ticks ticks;
};

struct legend_entry {
	char *label;
	int color_index;
	int mix_index;		/* -1, or the colour it mixes with */
	int text_only;		/* no swatch: a key to the line styles */
};

/* Rasters waiting to be painted: see plot_rasters_flush. */
struct raster_layer {
	uint32_t *counts;
	int color_index;
	int cols, rows;
	double box[4];			/* x0, x1, y0, y1 */
};

struct raster_stack {
	struct raster_layer *layers;
	size_t n;
};

struct plot_panel {
	struct plot_page *page;
	struct plot_rect box;		/* the panel on the page */
	struct plot_rect area;		/* inside the frame; set by layout */
	char *title, *x_label, *y_label;
	struct plot_axis x, y;
	int laid_out;
	int legend_rows;		/* rows reserved below the title */
	struct legend_entry *legend;
	size_t n_legend;
	size_t legend_shown;		/* entries on those rows ... */
	char legend_more[32];		/* ... then "+N more", or "" */
	int has_colorbar;
	double colorbar_max;
	uint32_t heat_max;		/* plot_heatmap_scale; 0: its own */
	char *colorbar_label;
	plot_format_fn colorbar_format;	/* its ends; NULL: plot_format_si */
	struct raster_stack rasters;
};

struct plot_page {
	cairo_surface_t *surface;
	cairo_t *cr;
	enum plot_format fmt;
	double width, height;
	char *path;
	struct outfile out;	/* written aside, renamed when whole */
	int write_errno;
	size_t out_len;
	unsigned char *out_buf;
	struct plot_panel **panels;
	size_t n_panels;
	double title_h;
	int on_surface;		/* the caller's surface: no file, no title */
	char failure[IOW_ERROR_LEN];	/* first failure while drawing */
	/* Images painted on a vector page, released after it: cairo's
	 * SVG and PDF surfaces write them out at the end, and an image
	 * released before would first be copied whole for them. */
	cairo_surface_t **kept;
	size_t n_kept;
};

/* ---- Colours ---- */

static inline struct plot_rgb rgb_hex(unsigned hex)
{
	struct plot_rgb c = {
		((hex >> 16) & 0xff) / 255.0,
		((hex >> 8) & 0xff) / 255.0,
		(hex & 0xff) / 255.0,
	};
	return c;
}

/* a + (b - a) * t, channel by channel */
static inline struct plot_rgb rgb_mix(struct plot_rgb a, struct plot_rgb b,
				      double t)
{
	struct plot_rgb c = {
		a.r + (b.r - a.r) * t,
		a.g + (b.g - a.g) * t,
		a.b + (b.b - a.b) * t,
	};
	return c;
}

static inline void set_rgba(cairo_t *cr, struct plot_rgb c, double alpha)
{
	cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

/* ---- plot_text.c ---- */

enum font_role { FONT_TICK, FONT_AXIS, FONT_TITLE, FONT_PAGE_TITLE,
		 FONT_LEGEND, FONT_NOTE };

void plot_set_hex(cairo_t *cr, unsigned hex);
/* The role's face, size and colour on cr. */
void plot_use_font(cairo_t *cr, enum font_role role);
double plot_text_width(cairo_t *cr, const char *s);
/* Height of a capital: what "centred on a tick" should centre. */
double plot_cap_height(cairo_t *cr);
/* Ascent plus descent: the height of a line of text. */
double plot_line_height(cairo_t *cr);
double plot_font_ascent(cairo_t *cr);
/* Text with its left (0), centre (0.5) or right (1) at x, baseline y. */
void plot_draw_text(cairo_t *cr, double x, double y, const char *s,
		    double halign);
/* Text whose capitals are centred on y, aligned as plot_draw_text. */
void plot_draw_text_mid(cairo_t *cr, double x, double y, const char *s,
			double halign);
/* s cut (with an ellipsis) to max_w wide in cr's font, into buf. */
void plot_fit_text(cairo_t *cr, const char *s, double max_w, char *buf,
		   size_t len);

/* ---- plot_panel.c ---- */

/* Keeps the first failure on the page; later ones are its consequences. */
void plot_page_fail(struct plot_page *p, const char *what);
/* Hands img (a reference the caller owns) to the page, which releases it
 * after its own surface; released at once when the page is a raster. */
void plot_page_keep(struct plot_page *p, cairo_surface_t *img);
/* A copy of s, NULL for NULL or ""; *failed set when out of memory. */
char *plot_dup_or_null(const char *s, int *failed);
/* Where v falls along the axis, 0 at lo and 1 at hi. */
double plot_axis_frac(const struct plot_axis *a, double v);
/* Page coordinates of data x and y on the panel (laid out). */
double plot_px_x(const struct plot_panel *pp, double x);
double plot_px_y(const struct plot_panel *pp, double y);

/* ---- plot_layout.c ---- */

/* Lays the panel out (once): its axes' ticks, margins and legend rows,
 * then its grid; the area inside the frame is pp->area. */
void plot_panel_layout(struct plot_panel *pp);
/* The frame, ticks, labels, title, legend and colour bar, drawn last. */
void plot_panel_decorate(struct plot_panel *pp);
void plot_panel_free(struct plot_panel *pp);

/* ---- plot_raster.c ---- */

/* Paints the rasters waiting on the panel (laid out), then forgets them. */
void plot_rasters_flush(struct plot_panel *pp);
void plot_rasters_clear(struct raster_stack *rs);
/* The colour of a raster cell holding both colours a and b. */
struct plot_rgb plot_raster_mix(int a, int b);
/* Whether a grid of counts can be drawn at all (plot_raster's check). */
int plot_cells_ok(const struct plot_panel *pp, const uint32_t *counts,
		  int cols, int rows);
/* plot_heatmap on the laid-out panel; box is x0, x1, y0, y1. */
void plot_heatmap_draw(struct plot_panel *pp, const uint32_t *counts,
		       int cols, int rows, const double *box,
		       const char *count_label);

/* ---- plot_boxes.c ---- */

/* plot_icicle and plot_hbars on the laid-out panel, cr clipped to it. */
void plot_icicle_draw(struct plot_panel *pp, cairo_t *cr,
		      const struct plot_box *boxes, size_t n, int rows);
void plot_hbars_draw(struct plot_panel *pp, cairo_t *cr,
		     const char *const *labels, const double *values,
		     size_t rows, size_t parts, const int *colors,
		     const char *const *notes);

#endif
