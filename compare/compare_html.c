/*
 * compare_html.c: --compare -o FILE.html, the report of both traces
 * (report/) with the comparison as a section of it: the verdict, what is
 * compared (the traces, their windows, the devices paired), the
 * contributors (a time window or an offset band a button the page's
 * script links to its zoom), the pictures (compare_draw.c's SVG, inline)
 * and the table per device and class. The section is HTML the report
 * writes as it is: it reads without script.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytebuf.h"
#include "compare_int.h"
#include "report/report.h"
#include "report/report_data.h"

#define SHOWN_CONTRIBUTORS	12	/* the rest folded away */

/* The SVG's bytes without its XML declaration, from a file drawn aside. */
static int svg_of(const struct compare *c, const char *path, int width,
		  int height, const char *title, struct bytebuf *svg,
		  struct iow_error *err)
{
	char tmp[4096 + 32];
	FILE *f;
	char chunk[65536];
	size_t n;
	int r = 0;

	snprintf(tmp, sizeof(tmp), "%s.svg-%ld", path, (long)getpid());
	if (cmp_draw(c, tmp, PLOT_SVG, width, height, title, err) < 0)
		return -1;
	f = fopen(tmp, "r");
	if (!f) {
		unlink(tmp);
		return iow_fail(err, "%s: %s", tmp, strerror(errno));
	}
	while (r == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		r = bytebuf_append(svg, chunk, n);
	fclose(f);
	unlink(tmp);
	if (r < 0)
		return iow_fail(err, "out of memory");
	return 0;
}

static void write_svg(FILE *out, const struct bytebuf *svg)
{
	const char *p = (const char *)svg->data;
	size_t len = svg->len;
	const char *start = memmem(p, len, "<svg", 4);

	if (start)
		fwrite(start, 1, len - (size_t)(start - p), out);
}

/* A time window's span on the report's axis, A's and B's together
 * (each trace's windows count from its own start, or its -x start). */
static void window_on_axis(const struct compare *c, const struct cmp_value *v,
			   double *x0, double *x1)
{
	double o0 = (double)c->t[0].origin_ns / 1e9;
	double o1 = (double)c->t[1].origin_ns / 1e9;

	*x0 = fmin(o0, o1) + v->start_s;
	*x1 = fmax(o0, o1) + v->end_s;
}

/* The value's cell: a button to its window or band where it has one. */
static void value_cell(FILE *out, const struct compare *c,
		       const struct cmp_contributor *ct)
{
	const struct cmp_value *v = ct->value;
	char a[32], b[32];
	double x0, x1;

	if (v->has_time && !strcmp(ct->stratum->name, "time")) {
		window_on_axis(c, v, &x0, &x1);
		fprintf(out, "<button type=\"button\" class=\"iow-cmp-zoom\" data-x0=\"%.9g\" data-x1=\"%.9g\" title=\"zoom every panel to this window\">",
			x0, x1);
	} else if (v->has_sectors && !strcmp(ct->stratum->name, "offset") &&
		   v->pair < c->n_pairs) {
		cmp_device_name(c->pairs[v->pair][0], a, sizeof(a));
		cmp_device_name(c->pairs[v->pair][1], b, sizeof(b));
		fprintf(out, "<button type=\"button\" class=\"iow-cmp-band\" data-devs=\"%s%s%s\" data-lo=\"%.9g\" data-hi=\"%.9g\" title=\"show this band in the I/O maps\">",
			a, strcmp(a, b) ? " " : "", strcmp(a, b) ? b : "",
			(double)v->lo_sector * 512 / 1048576,
			(double)v->hi_sector * 512 / 1048576);
	} else {
		html_text(out, v->label);
		return;
	}
	html_text(out, v->label);
	fputs("</button>", out);
}

/* One row; the stratum named on its group's first row only. */
static void contributor_row(FILE *out, const struct compare *c,
			    const struct cmp_contributor *ct, int first)
{
	const struct cmp_value *v = ct->value;
	char a[32], b[32], pc[32];

	fprintf(out, "<tr%s><td>%s</td><td>",
		first ? " class=\"iow-cmp-stratum\"" : "",
		first ? ct->stratum->name : "");
	value_cell(out, c, ct);
	fprintf(out, "</td><td class=\"iow-cmp-%s\">%s</td><td>%s</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%s</td></tr>\n",
		ct->rate ? "rate" : "mix", ct->rate ? "rate" : "mix",
		cmp_share_text(ct->share, pc, sizeof(pc)), v->n[0], v->n[1],
		cmp_format_us(v->n[0] ? v->t_s[0] / v->n[0] * 1e6 : NAN, a,
			      sizeof(a)),
		cmp_format_us(v->n[1] ? v->t_s[1] / v->n[1] * 1e6 : NAN, b,
			      sizeof(b)));
}

static const char contrib_head[] =
	"<table class=\"iow-cmp-table iow-cmp-contrib\"><tr><th>stratum</th><th>value</th><th>kind</th><th>share</th><th>A I/Os</th><th>B I/Os</th><th>A mean</th><th>B mean</th></tr>\n";

/* Contributors from .. to - 1, grouped by stratum, as a table. */
static int contributor_rows(FILE *out, const struct compare *c, size_t from,
			    size_t to)
{
	size_t *rows = malloc((c->n_contrib + 1) * sizeof(*rows)), n, i;
	const struct cmp_stratum *last = NULL;

	if (!rows)
		return -1;
	n = cmp_grouped_rows(c, from, to, rows);
	fputs(contrib_head, out);
	for (i = 0; i < n; i++) {
		const struct cmp_contributor *ct = &c->contrib[rows[i]];

		contributor_row(out, c, ct, ct->stratum != last);
		last = ct->stratum;
	}
	fputs("</table>\n", out);
	free(rows);
	return 0;
}

static void contributors_table(FILE *out, const struct compare *c)
{
	size_t i, over = 0;

	fprintf(out, "<h3>Where the change in I/O time comes from (%+.4g s: %.4g s &rarr; %.4g s)</h3>\n",
		c->total_s[1] - c->total_s[0], c->total_s[0], c->total_s[1]);
	if (!c->n_contrib) {
		fputs("<p>No change to split.</p>\n", out);
		return;
	}
	fputs("<p>I/O time here is the latency-seconds: every timed I/O's latency (Q2C, or else D2C) added up. <b>mix</b>: ", out);
	html_text(out, c->t[0].label && c->t[1].label &&
		       strcmp(c->t[0].label, c->t[1].label) ?
		       c->t[1].label : "B");
	fputs(" had more or fewer such I/Os; <b>rate</b>: such I/Os each took longer or less long. Each stratum's shares add up to 100%.", out);
	for (i = 0; i < c->n_contrib; i++)
		over += fabs(c->contrib[i].share) > 1;
	if (over)
		fputs(" A share above 100% is offset by parts of the same stratum that go the other way (negative shares).", out);
	fputs("</p>\n", out);
	if (contributor_rows(out, c, 0, SHOWN_CONTRIBUTORS) < 0)
		return;
	if (c->n_contrib <= SHOWN_CONTRIBUTORS)
		return;
	fprintf(out, "<details><summary>%zu more contributors</summary>\n",
		c->n_contrib - SHOWN_CONTRIBUTORS);
	contributor_rows(out, c, SHOWN_CONTRIBUTORS, c->n_contrib);
	fputs("</details>\n", out);
}

static void group_table(FILE *out, const struct compare *c,
			const struct cmp_group *g)
{
	char a[32], b[32], d[32], lo[32], hi[32], w[64];
	int m;

	if (g->op >= 0) {
		cmp_device_name(c->pairs[g->pair][0], a, sizeof(a));
		cmp_device_name(c->pairs[g->pair][1], b, sizeof(b));
		fprintf(out, "<h4>%s%s%s %s</h4>\n", a, strcmp(a, b) ? "=" : "",
			strcmp(a, b) ? b : "", cmp_op_name(g->op));
	} else {
		fputs("<h4>All paired devices, all classes</h4>\n", out);
	}
	fputs("<table class=\"iow-cmp-table\"><tr><th></th><th>A</th><th>B</th><th>B - A</th><th>95% interval</th><th></th></tr>\n",
	      out);
	for (m = 0; m < N_MEASURES; m++) {
		const struct cmp_result *r = &g->r[m];

		if (m >= MS_LAT_MEAN && !r->n_a && !r->n_b)
			continue;
		fprintf(out, "<tr class=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>[%s, %s]</td><td>",
			!r->enough ? "iow-cmp-few" : r->sign > 0 ? "iow-cmp-up" :
			r->sign < 0 ? "iow-cmp-down" : "",
			cmp_measure_text(m),
			cmp_format(r->a, m, 0, a, sizeof(a)),
			cmp_format(r->b, m, 0, b, sizeof(b)),
			cmp_format(r->diff, m, 1, d, sizeof(d)),
			cmp_format(r->lo, m, 1, lo, sizeof(lo)),
			cmp_format(r->hi, m, 1, hi, sizeof(hi)));
		html_text(out, cmp_result_word(r, m, w, sizeof(w)));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* What is compared: each trace, its span and windows; the pairs. */
static void compared(FILE *out, const struct compare *c)
{
	char a[32], b[32];
	size_t i;
	int s;

	fputs("<p class=\"iow-cmp-what\">", out);
	for (s = 0; s < 2; s++) {
		double o = (double)c->t[s].origin_ns / 1e9;

		fprintf(out, "%s: ", s ? "<br>B" : "A");
		html_text(out, c->t[s].label);
		fputs(" (", out);
		html_text(out, c->t[s].source);
		fprintf(out, "), %.3f s to %.3f s, %zu windows of %.3f s", o,
			o + c->t[s].span_s, c->t[s].n_windows,
			(double)c->window_ns / 1e9);
	}
	fputs("<br>Devices compared (A with B):", out);
	for (i = 0; i < c->n_pairs; i++) {
		cmp_device_name(c->pairs[i][0], a, sizeof(a));
		cmp_device_name(c->pairs[i][1], b, sizeof(b));
		fprintf(out, "%s %s with %s", i ? "," : "", a, b);
	}
	fprintf(out, "<br>95%% intervals: block bootstrap over the windows, %d resamples, seed %u%s</p>\n",
		CMP_RESAMPLES, CMP_SEED,
		c->paired_draws ? " (window k of A and B drawn together)" : "");
}

static void write_section(FILE *out, const struct compare *c,
			  const char *line, const struct bytebuf *svg)
{
	size_t g;

	fputs("<section id=\"iow-compare\" class=\"iow-cmp\">\n<h2>", out);
	html_text(out, c->t[1].label ? c->t[1].label : "B");
	fputs(" (B) against ", out);
	html_text(out, c->t[0].label ? c->t[0].label : "A");
	fputs(" (A): ", out);
	html_text(out, line);
	fputs("</h2>\n", out);
	compared(out, c);
	contributors_table(out, c);
	fputs("<details class=\"iow-cmp-pictures\" open><summary>Quantile shifts, contributors, latency histograms",
	      out);
	if (cmp_has_stacks(c))
		fputs(", differential flame graph", out);
	fputs("</summary>\n", out);
	write_svg(out, svg);
	fputs("</details>\n<details><summary>Per device and class: A, B, B - A and its 95% interval</summary>\n",
	      out);
	for (g = 0; g < c->n_groups; g++)
		if (c->groups[g].r[MS_IOS].n_a || c->groups[g].r[MS_IOS].n_b)
			group_table(out, c, &c->groups[g]);
	fputs("</details>\n</section>\n", out);
}

int cmp_write_report(const struct compare *c, const struct options *o,
		     struct trace_result *traces, const char *title_line,
		     struct iow_error *err)
{
	struct bytebuf svg = { 0 };
	struct report_section section = { NULL };
	char line[2048], *html = NULL;
	size_t len = 0;
	FILE *f;
	int r = -1;

	if (svg_of(c, o->output, o->graph_width, o->graph_height,
		   title_line, &svg, err) < 0)
		goto out;
	cmp_headline(c, line, sizeof(line));
	f = open_memstream(&html, &len);
	if (!f) {
		iow_fail(err, "out of memory");
		goto out;
	}
	write_section(f, c, line, &svg);
	if (fclose(f) != 0) {
		iow_fail(err, "out of memory");
		goto out;
	}
	section.html = html;
	r = report_render_with(o, traces, 2, &section, err);
out:
	free(html);
	bytebuf_free(&svg);
	return r;
}
