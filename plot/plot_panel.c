/*
 * plot_panel.c: what the parts below plot.c share of a page and its
 * panels: the page's first failure, the images a vector page keeps until
 * it is written, copies of labels, and where a data point lands on a
 * laid-out panel. plot.c lays pages and panels out and calls down into
 * the parts; they never call back up into it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "plot.h"
#include "plot_internal.h"

/* Keeps the first failure; later ones are usually its consequences. */
void plot_page_fail(struct plot_page *p, const char *what)
{
	if (!p->failure[0])
		snprintf(p->failure, sizeof(p->failure), "%s: %s", p->path,
			 what);
}

void plot_page_keep(struct plot_page *p, cairo_surface_t *img)
{
	cairo_surface_t **more;

	if (p->fmt == PLOT_PNG || p->on_surface ||
	    !(more = realloc(p->kept, (p->n_kept + 1) * sizeof(*more)))) {
		cairo_surface_destroy(img);
		return;
	}
	p->kept = more;
	p->kept[p->n_kept++] = img;
}

char *plot_dup_or_null(const char *s, int *failed)
{
	char *d;

	if (!s || !*s)
		return NULL;
	d = strdup(s);
	if (!d)
		*failed = 1;
	return d;
}

/* Where v falls along the axis, 0 at lo and 1 at hi. */
double plot_axis_frac(const struct plot_axis *a, double v)
{
	if (a->log) {
		if (!(v > 0))
			return -1e6;
		return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	}
	return (v - a->lo) / (a->hi - a->lo);
}

/* Far outside the area but well inside cairo's fixed-point range. */
static double clamp_px(double v, double lo, double len)
{
	double limit = 4 * len + 1000;

	if (v < lo - limit)
		return lo - limit;
	if (v > lo + len + limit)
		return lo + len + limit;
	return v;
}

double plot_px_x(const struct plot_panel *pp, double x)
{
	const struct plot_rect *a = &pp->area;

	return clamp_px(a->x + plot_axis_frac(&pp->x, x) * a->w, a->x, a->w);
}

double plot_px_y(const struct plot_panel *pp, double y)
{
	const struct plot_rect *a = &pp->area;

	return clamp_px(a->y + a->h - plot_axis_frac(&pp->y, y) * a->h, a->y,
			a->h);
}
