/*
 * compare_draw.c: --compare -o FILE.svg|png|pdf. Three quantile-shift
 * panels (D2C, Q2C, Q2D: B - A at p50, p90, p99 and p99.9 per device
 * class, its 95% interval as a band, zero as a thin line; dotted where
 * even p50 has too few I/Os for a verdict), the contributors as bars,
 * each stratum value's mix and rate apart, the latency histograms of A
 * and B overlaid for the two classes of most I/Os, and where both have
 * kernel stacks the differential flame graph (compare_flame.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_int.h"
#include "analysis/histogram.h"
#include "plot.h"

#define PANEL_WIDTH	760
#define PANEL_HEIGHT	300
#define TOP_BARS	12
#define MIX_COLOR	2	/* bluish green */
#define RATE_COLOR	4	/* reddish purple */

/* The x axis of a quantile plot is in nines: p = 1 - 10^-x. */
static double nines(double p)
{
	return -log10(1 - p);
}

static void format_quantile(double value, const struct plot_tick_context *ctx,
			    char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "p%.3g", 100 * (1 - pow(10, -value)));
}

/* The class colours of the other graphs: read, write, discard, flush,
 * zone management, write-zeroes. */
static int class_color(int op)
{
	static const int colors[N_OPS] = { 0, 1, 2, 3, 6, 5 };

	return op >= 0 && op < N_OPS ? colors[op] : 7;
}

static int group_drawn(const struct cmp_group *g)
{
	return g->op >= 0 && (g->r[MS_IOS].n_a || g->r[MS_IOS].n_b);
}

/* The y range of a metric's differences and intervals, in seconds. */
static void shift_range(const struct compare *c, int first, double *lo,
			double *hi)
{
	size_t g;
	int k;

	*lo = 0;
	*hi = 0;
	for (g = 0; g + 1 < c->n_groups; g++)
		for (k = 1; k <= 4 && group_drawn(&c->groups[g]); k++) {
			const struct cmp_result *r = &c->groups[g].r[first + k];
			double v[3] = { r->diff, r->lo, r->hi };
			int j;

			if (!r->enough)
				continue;	/* left out of the plot */
			for (j = 0; j < 3; j++)
				if (!isnan(v[j])) {
					*lo = fmin(*lo, v[j] / 1e6);
					*hi = fmax(*hi, v[j] / 1e6);
				}
		}
}

static void shift_panel(struct plot_page *page, struct plot_rect r,
			const struct compare *c, const char *metric, int first)
{
	static const double q[4] = { 0.5, 0.9, 0.99, 0.999 };
	const char *labels[N_OPS * 8];
	int colors[N_OPS * 8];
	char names[N_OPS * 8][80], title[96];
	struct plot_panel *pp;
	double lo, hi, x[4], zx[2] = { nines(0.45), nines(0.9995) },
	       zy[2] = { 0, 0 };
	size_t g, n = 0;
	int k, left_out = 0;

	snprintf(title, sizeof(title), "%s: B - A by quantile (band: 95%% interval)",
		 metric);
	pp = plot_panel_add(page, r.x, r.y, r.w, r.h, title, "quantile",
			    "B - A");
	shift_range(c, first, &lo, &hi);
	plot_panel_set_x(pp, zx[0], zx[1]);
	plot_panel_set_x_format(pp, format_quantile);
	/* ticks where the points are: p50, p90, p99, p99.9 */
	for (k = 0; k < 4; k++)
		x[k] = nines(q[k]);
	plot_panel_set_x_ticks(pp, x, 4);
	plot_panel_set_y(pp, lo, hi > lo ? hi : lo + 1e-6);
	plot_panel_set_y_format(pp, plot_format_seconds);
	for (g = 0; g + 1 < c->n_groups && n < N_OPS * 8; g++) {
		const struct cmp_group *gr = &c->groups[g];
		char a[32], b[32];

		if (!group_drawn(gr))
			continue;
		cmp_device_name(c->pairs[gr->pair][0], a, sizeof(a));
		cmp_device_name(c->pairs[gr->pair][1], b, sizeof(b));
		snprintf(names[n], sizeof(names[n]), "%s%s%s %s%s", a,
			 strcmp(a, b) ? "=" : "", strcmp(a, b) ? b : "",
			 cmp_op_name(gr->op),
			 gr->r[first + 1].enough ? "" : " (too few I/Os)");
		labels[n] = names[n];
		colors[n++] = class_color(gr->op) + 8 * (int)gr->pair;
	}
	plot_legend(pp, labels, colors, n);
	plot_line(pp, zx, zy, 2, 7, 0.5);
	for (k = 0; k < 4; k++)
		x[k] = nines(q[k]);
	for (g = 0, n = 0; g + 1 < c->n_groups; g++) {
		const struct cmp_group *gr = &c->groups[g];
		double d[4], blo[4], bhi[4], xs[4];
		int m = 0;

		if (!group_drawn(gr))
			continue;
		/* a quantile the table refuses (too few I/Os or windows)
		 * is left out: its point would be the plot's loudest and
		 * least trustworthy feature */
		for (k = 0; k < 4; k++) {
			const struct cmp_result *res = &gr->r[first + 1 + k];

			if (!res->enough || isnan(res->diff)) {
				left_out++;
				continue;
			}
			xs[m] = x[k];
			d[m] = res->diff / 1e6;
			blo[m] = res->lo / 1e6;
			bhi[m++] = res->hi / 1e6;
		}
		if (m) {
			plot_band(pp, xs, blo, bhi, m, colors[n], 0.2);
			plot_line(pp, xs, d, m, colors[n], 2);
			plot_points(pp, xs, d, m, colors[n], 3);
		}
		n++;
	}
	if (left_out) {
		char note[96];

		snprintf(note, sizeof(note), "%d quantile%s with too few I/Os left out",
			 left_out, left_out == 1 ? "" : "s");
		plot_panel_note(pp, note);
	}
	if (!n)
		plot_panel_note(pp, "no I/O in both traces");
}

/* The contributors' stratum values, in their order, each once. */
static size_t bar_rows(const struct compare *c,
		       const struct cmp_value **rows, size_t max)
{
	size_t n = 0, i, j;

	for (i = 0; i < c->n_contrib && n < max; i++) {
		for (j = 0; j < n && rows[j] != c->contrib[i].value; j++)
			;
		if (j == n)
			rows[n++] = c->contrib[i].value;
	}
	return n;
}

static const struct cmp_contributor *find_part(const struct compare *c,
					       const struct cmp_value *v,
					       int rate)
{
	size_t i;

	for (i = 0; i < c->n_contrib; i++)
		if (c->contrib[i].value == v && c->contrib[i].rate == rate)
			return &c->contrib[i];
	return NULL;
}

static void format_percent(double value, const struct plot_tick_context *ctx,
			   char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "%.0f%%", value * 100);
}

static void contributors_panel(struct plot_page *page, struct plot_rect r,
			       const struct compare *c)
{
	const struct cmp_value *rows[TOP_BARS];
	const char *labels[TOP_BARS], *notes[TOP_BARS];
	const char *legend[2] = { "mix (more or fewer such I/Os)",
				  "rate (such I/Os slower or faster)" };
	char label_buf[TOP_BARS][128], note_buf[TOP_BARS][64];
	double values[TOP_BARS * 2], top = 0;
	int colors[2] = { MIX_COLOR, RATE_COLOR };
	struct plot_panel *pp;
	size_t n = bar_rows(c, rows, TOP_BARS), i;

	pp = plot_panel_add(page, r.x, r.y, r.w, r.h,
			    "Where the change in latency-seconds comes from",
			    "share of the change", NULL);
	for (i = 0; i < n; i++) {
		const struct cmp_contributor *mix = find_part(c, rows[i], 0);
		const struct cmp_contributor *rate = find_part(c, rows[i], 1);
		const struct cmp_contributor *any = mix ? mix : rate;
		double m = mix ? mix->share : 0, t = rate ? rate->share : 0;

		snprintf(label_buf[i], sizeof(label_buf[i]), "%s %s",
			 any->stratum->name, rows[i]->label);
		snprintf(note_buf[i], sizeof(note_buf[i]),
			 "mix %+.0f%%, rate %+.0f%%", m * 100, t * 100);
		labels[i] = label_buf[i];
		notes[i] = note_buf[i];
		/* a part against the change is in the note, not drawn */
		values[2 * i] = fmax(m, 0);
		values[2 * i + 1] = fmax(t, 0);
		top = fmax(top, values[2 * i] + values[2 * i + 1]);
	}
	/* room right of the longest bar for its note (about a fifth of
	 * the panel), so no note is drawn over a bar */
	plot_panel_set_x(pp, 0, top > 0 ? top * 1.3 : 1);
	plot_panel_set_x_format(pp, format_percent);
	plot_panel_set_y_none(pp);
	plot_legend(pp, legend, colors, 2);
	if (n)
		plot_hbars(pp, labels, values, n, 2, colors, notes);
	else
		plot_panel_note(pp, "no change to split");
}

#define HIST_BITS	2	/* 4 buckets per octave */
#define HIST_MAX_BITS	40
#define HIST_BUCKETS	((HIST_MAX_BITS - HIST_BITS + 1) << HIST_BITS)

/* The fraction of group g's timed I/Os of trace s in each bucket. */
static void lat_histogram(const struct compare *c, size_t g, int s,
			  double *frac)
{
	const struct compare_side *side = c->t[s].side;
	double n = 0;
	size_t i;

	memset(frac, 0, HIST_BUCKETS * sizeof(*frac));
	for (i = 0; i < side->n; i++) {
		const struct cmp_io *io = &side->ios[i];
		uint64_t ns;

		if (c->t[s].group[i] < 0 ||
		    (size_t)c->t[s].group[i] + io->op != g ||
		    !(io->has & (1u << CM_LAT)))
			continue;
		ns = (uint64_t)io->lat_ns[CM_LAT];
		if (ns >= 1ull << HIST_MAX_BITS)
			ns = (1ull << HIST_MAX_BITS) - 1;
		frac[hist_index(ns, HIST_BITS)] += 1;
		n += 1;
	}
	for (i = 0; n && i < HIST_BUCKETS; i++)
		frac[i] /= n;
}

/* The buckets either trace uses, first and last; 0 when none. */
static int used_range(const double *a, const double *b, size_t *lo,
		      size_t *hi)
{
	size_t i;

	*lo = HIST_BUCKETS;
	*hi = 0;
	for (i = 0; i < HIST_BUCKETS; i++)
		if (a[i] > 0 || b[i] > 0) {
			if (i < *lo)
				*lo = i;
			*hi = i;
		}
	return *lo <= *hi;
}

static void hist_panel(struct plot_page *page, struct plot_rect r,
		       const struct compare *c, size_t g)
{
	static double frac[2][HIST_BUCKETS], x[HIST_BUCKETS + 1];
	const struct cmp_group *gr = &c->groups[g];
	char title[128], dev[32], names[2][96];
	const char *labels[2] = { names[0], names[1] };
	int color = class_color(gr->op) + 8 * (int)gr->pair, colors[2];
	struct plot_panel *pp;
	size_t lo, hi, i;
	double top = 0;
	int s;

	cmp_device_name(c->pairs[gr->pair][0], dev, sizeof(dev));
	snprintf(title, sizeof(title), "%s %s: latency (Q2C) of A and B",
		 dev, cmp_op_name(gr->op));
	pp = plot_panel_add(page, r.x, r.y, r.w, r.h, title, "latency",
			    "share of the I/Os");
	lat_histogram(c, g, 0, frac[0]);
	lat_histogram(c, g, 1, frac[1]);
	if (!used_range(frac[0], frac[1], &lo, &hi)) {
		plot_panel_note(pp, "no timed I/O");
		return;
	}
	for (i = lo; i <= hi + 1; i++)
		x[i] = (double)hist_bucket_low(i, HIST_BITS) / 1e9;
	for (i = lo; i <= hi; i++)
		top = fmax(top, fmax(frac[0][i], frac[1][i]));
	plot_panel_set_x_log(pp, fmax(x[lo], 1e-9), x[hi + 1]);
	plot_panel_set_x_format(pp, plot_format_seconds);
	plot_panel_set_y(pp, 0, top * 1.05);
	plot_panel_set_y_format(pp, format_percent);
	/* A lighter and dashed, B in the class's own colour */
	colors[0] = color + 8;
	colors[1] = color;
	for (s = 0; s < 2; s++)
		snprintf(names[s], sizeof(names[s]), "%s: %s (%llu I/Os)",
			 s ? "B" : "A", c->t[s].label, (unsigned long long)
			 (s ? gr->r[MS_LAT_MEAN].n_b : gr->r[MS_LAT_MEAN].n_a));
	plot_legend(pp, labels, colors, 2);
	for (s = 0; s < 2; s++)
		plot_step(pp, x + lo, frac[s] + lo, hi - lo + 2, colors[s], 2);
}

/* The two classes of most I/Os (SIZE_MAX: none). */
static void busiest_groups(const struct compare *c, size_t out[2])
{
	size_t g, k;

	out[0] = out[1] = SIZE_MAX;
	for (g = 0; g + 1 < c->n_groups; g++) {
		double n = (double)(c->groups[g].r[MS_LAT_MEAN].n_a +
				    c->groups[g].r[MS_LAT_MEAN].n_b);

		for (k = 0; k < 2; k++) {
			double nk = out[k] == SIZE_MAX ? -1 :
				    (double)(c->groups[out[k]].r[MS_LAT_MEAN].n_a +
					     c->groups[out[k]].r[MS_LAT_MEAN].n_b);

			if (n > 0 && n > nk) {
				if (k == 0)
					out[1] = out[0];
				out[k] = g;
				break;
			}
		}
	}
}

int cmp_draw(const struct compare *c, const char *path, enum plot_format fmt,
	     int width, int height, const char *title_line,
	     struct iow_error *err)
{
	double w = width ? width : PANEL_WIDTH;
	double h = height ? height : PANEL_HEIGHT;
	struct plot_page *page;

	int k, rows = cmp_has_stacks(c) ? 4 : 3;
	size_t busiest[2];

	page = plot_page_open(path, fmt, 2 * w, rows * h + 50, title_line,
			      err);
	if (!page)
		return -1;
	shift_panel(page, plot_page_cell(page, rows, 2, 0, 0), c, "D2C",
		    MS_D2C_MEAN);
	shift_panel(page, plot_page_cell(page, rows, 2, 0, 1), c, "Q2C",
		    MS_Q2C_MEAN);
	shift_panel(page, plot_page_cell(page, rows, 2, 1, 0), c, "Q2D",
		    MS_Q2D_MEAN);
	contributors_panel(page, plot_page_cell(page, rows, 2, 1, 1), c);
	busiest_groups(c, busiest);
	for (k = 0; k < 2; k++)
		if (busiest[k] != SIZE_MAX)
			hist_panel(page, plot_page_cell(page, rows, 2, 2, k),
				   c, busiest[k]);
	if (rows == 4 &&
	    cmp_flame_panel(page, plot_page_cell(page, 4, 1, 3, 0), c) < 0) {
		plot_page_abort(page);
		return iow_fail(err, "out of memory drawing the flame graph");
	}
	return plot_page_close(page, err);
}
