/*
 * plot_boxes.c: charts of boxes the caller places, drawn in a panel's
 * area: icicles (flame graphs, root at the top) and rows of horizontal
 * bars. Like the rest of the plot layer, they know nothing of traces;
 * plot.c lays the panel out and hands them its clipped cairo context.
 */
#include <math.h>
#include <stdio.h>

#include "plot.h"
#include "plot_internal.h"

#define ICICLE_ROW_MAX	18.0
#define HBAR_ROW_MAX	22.0
#define LABEL_PAD	3.0

static double text_advance(cairo_t *cr, const char *s)
{
	cairo_text_extents_t te;

	cairo_text_extents(cr, s, &te);
	return te.x_advance;
}

/* Black or white text, whichever reads on c. */
static void text_on(cairo_t *cr, struct plot_rgb c)
{
	double lum = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;

	if (lum > 0.55)
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	else
		cairo_set_source_rgb(cr, 1, 1, 1);
}

void plot_icicle_draw(struct plot_panel *pp, cairo_t *cr,
		      const struct plot_box *boxes, size_t n, int rows)
{
	struct plot_rect a;
	double row_h;
	char fit[256];
	size_t i;

	a = pp->area;
	row_h = fmin(ICICLE_ROW_MAX, a.h / rows);
	plot_use_font(cr, FONT_TICK);
	for (i = 0; i < n; i++) {
		const struct plot_box *b = &boxes[i];
		double x = a.x + b->x0 * a.w, w = (b->x1 - b->x0) * a.w;
		double y = a.y + b->depth * row_h;

		if (y + row_h > a.y + a.h + 0.5 || w <= 0)
			continue;
		cairo_rectangle(cr, x, y, w, row_h);
		set_rgba(cr, b->color, 1);
		cairo_fill_preserve(cr);
		/* a white edge between neighbours (none round a sliver) */
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_set_line_width(cr, w > 3 ? 0.6 : 0);
		cairo_stroke(cr);
		if (!b->label || w < 2 * LABEL_PAD + 8)
			continue;
		plot_fit_text(cr, b->label, w - 2 * LABEL_PAD, fit,
			      sizeof(fit));
		if (!fit[0])
			continue;
		text_on(cr, b->color);
		plot_draw_text_mid(cr, x + LABEL_PAD, y + row_h / 2, fit, 0);
	}
}

void plot_hbars_draw(struct plot_panel *pp, cairo_t *cr,
		     const char *const *labels, const double *values,
		     size_t rows, size_t parts, const int *colors,
		     const char *const *notes)
{
	struct plot_rect a;
	double row_h, bar_h;
	char fit[256];
	size_t i, k;

	a = pp->area;
	row_h = fmin(HBAR_ROW_MAX, a.h / (double)rows);
	bar_h = row_h * 0.72;
	plot_use_font(cr, FONT_TICK);
	for (i = 0; i < rows; i++) {
		double y = a.y + (double)i * row_h + (row_h - bar_h) / 2;
		double at = 0, x_end, room, label_w;

		for (k = 0; k < parts; k++) {
			double v = values[i * parts + k];
			double x0 = plot_px_x(pp, at), x1 = plot_px_x(pp, at + v);

			if (v > 0 && x1 > x0) {
				cairo_rectangle(cr, x0, y, x1 - x0, bar_h);
				set_rgba(cr, plot_color(colors[k]), 0.45);
				cairo_fill(cr);
			}
			at += v;
		}
		x_end = plot_px_x(pp, at);
		plot_use_font(cr, FONT_TICK);
		plot_fit_text(cr, labels[i], a.w * 0.6, fit, sizeof(fit));
		plot_draw_text_mid(cr, a.x + LABEL_PAD, y + bar_h / 2, fit, 0);
		if (!notes || !notes[i])
			continue;
		/* the note after the bar, and after the label too */
		label_w = text_advance(cr, fit) + 3 * LABEL_PAD;
		if (x_end < a.x + label_w)
			x_end = a.x + label_w;
		room = a.x + a.w - x_end - 2 * LABEL_PAD;
		if (room > a.w * 0.35 || room >= text_advance(cr, notes[i])) {
			plot_fit_text(cr, notes[i], room, fit, sizeof(fit));
			plot_draw_text_mid(cr, x_end + LABEL_PAD, y + bar_h / 2,
					   fit, 0);
		} else {
			plot_fit_text(cr, notes[i], a.w * 0.35, fit,
				      sizeof(fit));
			plot_draw_text_mid(cr, a.x + a.w - LABEL_PAD,
					   y + bar_h / 2, fit, 1);
		}
	}
}
