/*
 * compare_html.c: --compare -o FILE.html, the comparison as one page of
 * its own: the verdict, the pictures (compare_draw.c's SVG, inline), the
 * contributors and the table per device and class, significant rows
 * marked. Self-contained: no script, nothing fetched.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytebuf.h"
#include "compare_int.h"
#include "base/outfile.h"
#include "report/report_data.h"

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222}"
	"h1{font-size:1.2em}h2{font-size:1.05em;margin-top:1.5em}"
	"table{border-collapse:collapse;font-size:.85em;margin:.5em 0}"
	"td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
	"td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}"
	"tr.up td{background:#fbe3e3}tr.down td{background:#e3ecfb}"
	"tr.few td{color:#888}.mix{color:#009E73}.rate{color:#CC79A7}"
	"svg{max-width:100%;height:auto}";

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

static void contributors_table(FILE *out, const struct compare *c)
{
	char a[32], b[32];
	size_t i;

	fprintf(out, "<h2>Where the change in latency-seconds comes from (%+.4g s: %.4g s &rarr; %.4g s)</h2>\n",
		c->total_s[1] - c->total_s[0], c->total_s[0], c->total_s[1]);
	if (!c->n_contrib) {
		fputs("<p>No change to split.</p>\n", out);
		return;
	}
	fputs("<table><tr><th>stratum</th><th>value</th><th>kind</th><th>share</th><th>A I/Os</th><th>B I/Os</th><th>A mean</th><th>B mean</th></tr>\n",
	      out);
	for (i = 0; i < c->n_contrib; i++) {
		const struct cmp_contributor *ct = &c->contrib[i];
		const struct cmp_value *v = ct->value;

		fprintf(out, "<tr><td>%s</td><td>", ct->stratum->name);
		html_text(out, v->label);
		fprintf(out, "</td><td class=\"%s\">%s</td><td>%.1f%%</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%s</td></tr>\n",
			ct->rate ? "rate" : "mix", ct->rate ? "rate" : "mix",
			ct->share * 100, v->n[0], v->n[1],
			cmp_format_us(v->n[0] ? v->t_s[0] / v->n[0] * 1e6 :
					      NAN, a, sizeof(a)),
			cmp_format_us(v->n[1] ? v->t_s[1] / v->n[1] * 1e6 :
					      NAN, b, sizeof(b)));
	}
	fputs("</table>\n", out);
}

static void group_table(FILE *out, const struct compare *c,
			const struct cmp_group *g)
{
	char a[32], b[32], d[32], lo[32], hi[32], w[64];
	int m;

	if (g->op >= 0) {
		cmp_device_name(c->pairs[g->pair][0], a, sizeof(a));
		cmp_device_name(c->pairs[g->pair][1], b, sizeof(b));
		fprintf(out, "<h2>%s%s%s %s</h2>\n", a, strcmp(a, b) ? "=" : "",
			strcmp(a, b) ? b : "", cmp_op_name(g->op));
	} else {
		fputs("<h2>All paired devices, all classes</h2>\n", out);
	}
	fputs("<table><tr><th></th><th>A</th><th>B</th><th>B - A</th><th>95% interval</th><th></th></tr>\n",
	      out);
	for (m = 0; m < N_MEASURES; m++) {
		const struct cmp_result *r = &g->r[m];

		if (m >= MS_LAT_MEAN && !r->n_a && !r->n_b)
			continue;
		fprintf(out, "<tr class=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>[%s, %s]</td><td>",
			!r->enough ? "few" : r->sign > 0 ? "up" :
			r->sign < 0 ? "down" : "", cmp_measure_text(m),
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

static void write_page(FILE *out, const struct compare *c,
		       const char *line, const struct bytebuf *svg)
{
	size_t g;
	int s;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", out);
	html_text(out, c->t[0].label);
	fputs(" vs ", out);
	html_text(out, c->t[1].label);
	fprintf(out, "</title><style>%s</style></head><body>\n<h1>", style);
	html_text(out, line);
	fputs("</h1>\n<p>", out);
	for (s = 0; s < 2; s++) {
		fprintf(out, "%s: ", s ? "<br>B" : "A");
		html_text(out, c->t[s].label);
		fputs(" (", out);
		html_text(out, c->t[s].source);
		fprintf(out, "), %.3f s, %zu windows of %.3f s", c->t[s].span_s,
			c->t[s].n_windows, (double)c->window_ns / 1e9);
	}
	fprintf(out, "<br>95%% intervals: block bootstrap over the windows, %d resamples, seed %u</p>\n",
		CMP_RESAMPLES, CMP_SEED);
	write_svg(out, svg);
	contributors_table(out, c);
	for (g = 0; g < c->n_groups; g++)
		if (c->groups[g].r[MS_IOS].n_a || c->groups[g].r[MS_IOS].n_b)
			group_table(out, c, &c->groups[g]);
	fputs("</body></html>\n", out);
}

int cmp_write_html(const struct compare *c, const char *path, int width,
		   int height, const char *title_line, struct iow_error *err)
{
	struct bytebuf svg = { 0 };
	struct outfile of;
	char line[2048];
	FILE *f;
	int bad;

	if (svg_of(c, path, width, height, title_line, &svg, err) < 0) {
		bytebuf_free(&svg);
		return -1;
	}
	cmp_headline(c, line, sizeof(line));
	if (outfile_open(&of, path, NULL, err) < 0) {
		bytebuf_free(&svg);
		return -1;
	}
	f = fdopen(of.fd, "w");
	if (!f) {
		outfile_abort(&of);
		bytebuf_free(&svg);
		return iow_fail(err, "%s: %s", path, strerror(errno));
	}
	write_page(f, c, line, &svg);
	bytebuf_free(&svg);
	bad = ferror(f) || fflush(f) != 0;
	of.fd = -1;	/* the stream had it: commit syncs it by name */
	if (fclose(f) != 0 || bad) {
		outfile_abort(&of);
		return iow_fail(err, "%s: write failed", path);
	}
	return outfile_commit(&of, err);
}
