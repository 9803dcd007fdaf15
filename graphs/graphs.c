/*
 * graphs.c: iowatcher's graphs as table entries, and the page that lays
 * them out. Series colours follow one rule everywhere: one trace without
 * tags draws reads in colour 0 and writes in colour 1; several traces get
 * a colour each (writes in its lighter, dashed variant); with tags, the
 * top N tags by what the graph shows (I/Os; bytes for throughput) get
 * a colour each, the same in every graph, and the rest are "other";
 * untagged I/O is grey.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "reader/blktrace.h"
#include "graph_causes.h"
#include "graphs.h"
#include "analysis/histogram.h"
#include "analysis/latpoints.h"
#include "record/cpustat.h"

#define DEFAULT_GRAPH_WIDTH	760
#define DEFAULT_GRAPH_HEIGHT	300
#define LIGHTER			8	/* palette offset: same hue, dashed */
#define OTHER_COLOR		7	/* black/grey: "other" tags */
/* Grey: I/O the tagger left untagged, apart from every tag's hue. */
#define UNTAGGED_COLOR		(OTHER_COLOR + LIGHTER)

/* ---- classes: what one line or one raster colour stands for ---- */

void class_list_free(struct class_list *cl, size_t n_traces)
{
	size_t t;

	for (t = 0; cl->slot_class && t < n_traces; t++)
		free(cl->slot_class[t]);
	free(cl->slot_class);
	free(cl->items);
}

static struct io_class *class_add(struct class_list *cl)
{
	struct io_class *more = realloc(cl->items,
					(cl->n + 1) * sizeof(*more));

	if (!more)
		return NULL;
	cl->items = more;
	memset(&more[cl->n], 0, sizeof(*more));
	return &more[cl->n++];
}

static const struct analysis *trace_analysis(const struct graph_ctx *ctx,
					     size_t t)
{
	static const struct analysis none;
	const struct analysis *part;

	if (!ctx->in_device_panel)
		return &ctx->traces[t].analysis;
	part = analysis_device_part(&ctx->traces[t].analysis,
				    ctx->panel_device);
	return part ? part : &none;
}

static void name_class(const struct graph_ctx *ctx, struct io_class *c,
		       size_t t, const char *what)
{
	if (ctx->n_traces > 1)
		snprintf(c->label, sizeof(c->label), "%s %s",
			 ctx->traces[t].label, what);
	else
		snprintf(c->label, sizeof(c->label), "%s", what);
}

/* The next colour of a tag class: the palette's hues, then the shades
 * furthest apart from them and from "other" and "untagged". */
static int next_tag_color(int *next_color)
{
	return plot_category_color((*next_color)++);
}

/*
 * The top tags of trace t (analysis_rank_tags: most bytes first, as the
 * summary lists them), each a class of a colour of its own in every
 * graph; the rest one "other" class.
 */
static int tag_classes(const struct graph_ctx *ctx, struct class_list *cl,
		       size_t t, int *next_color)
{
	const struct analysis *a = trace_analysis(ctx, t);
	size_t top = ctx->opts->top_tags > 0 ? (size_t)ctx->opts->top_tags
					     : TOP_TAGS_DEFAULT;
	size_t *rank = calloc(a->n_tags + 1, sizeof(*rank));
	size_t i, n, other = SIZE_MAX;
	long ranked;
	int r = -1;

	cl->slot_class[t] = malloc((a->n_tags + 1) * sizeof(size_t));
	if (!rank || !cl->slot_class[t] ||
	    (ranked = analysis_rank_tags(a, rank)) < 0)
		goto out;
	n = (size_t)ranked;
	for (i = 0; i < a->n_tags; i++)
		cl->slot_class[t][i] = SIZE_MAX;
	for (i = 0; i < n; i++) {
		size_t s = rank[i];
		struct io_class *c;

		if (i >= top && other != SIZE_MAX) {
			cl->slot_class[t][s] = other;
			continue;
		}
		if (!(c = class_add(cl)))
			goto out;
		c->trace = t;
		c->dir = -1;
		if (i >= top) {
			name_class(ctx, c, t, "other");
			c->color = OTHER_COLOR;
			other = cl->n - 1;
		} else if (a->tags[s].id == IO_EVENT_NO_TAG) {
			name_class(ctx, c, t, a->tags[s].label);
			c->color = UNTAGGED_COLOR;
		} else {
			name_class(ctx, c, t, a->tags[s].label);
			c->color = next_tag_color(next_color);
		}
		cl->slot_class[t][s] = cl->n - 1;
	}
	r = 0;
out:
	free(rank);
	return r;
}

/*
 * Colour of trace t, op, for graphs not split by tag: reads, writes,
 * discards and flushes of one trace each a colour; one colour per trace
 * when several, writes in its lighter variant only if some trace has both
 * directions, discards and flushes in its darker one.
 */
static int dir_color(const struct graph_ctx *ctx, size_t t, int op)
{
	static const int lone[N_OPS] = { 0, 1, 2, 4, 3, 5 };

	if (ctx->n_traces == 1)
		return lone[op];
	if (op >= OP_DISCARD)
		return (int)t + 2 * LIGHTER;
	return (int)t + (op == OP_WRITE && ctx->both_dirs ? LIGHTER : 0);
}

/* Whether a latency graph shows op: --dir picks reads and writes;
 * discards and flushes show where the trace has them. */
static int op_shown(const struct graph_ctx *ctx, int op)
{
	return (ctx->opts->latency_dirs & (1 << op)) != 0;
}

int build_classes(const struct graph_ctx *ctx, struct class_list *cl)
{
	int next_color = 0;
	size_t t;

	memset(cl, 0, sizeof(*cl));
	cl->slot_class = calloc(ctx->n_traces, sizeof(*cl->slot_class));
	if (!cl->slot_class)
		return -1;
	for (t = 0; t < ctx->n_traces; t++) {
		int d;

		if (trace_analysis(ctx, t)->tagging) {
			if (tag_classes(ctx, cl, t, &next_color) < 0)
				return -1;
			continue;
		}
		for (d = 0; d < N_OPS; d++) {
			struct io_class *c;

			/* discards and flushes only where the trace has them */
			if (d >= OP_DISCARD &&
			    !analysis_op_ios(trace_analysis(ctx, t), d))
				continue;
			if (!(c = class_add(cl)))
				return -1;
			c->trace = t;
			c->dir = d;
			name_class(ctx, c, t, io_op_name(d));
			c->color = dir_color(ctx, t, d);
		}
	}
	return 0;
}

/* ---- series ---- */

/* A series with one point per bin of trace t, x at the bin midpoints. */
static struct graph_series *series_add(const struct graph_ctx *ctx,
				       struct series_set *s, size_t t,
				       const char *label, int color)
{
	const struct analysis *a = trace_analysis(ctx, t);
	struct graph_series *more, *g;
	size_t i;

	more = realloc(s->items, (s->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	s->items = more;
	g = &more[s->n];
	memset(g, 0, sizeof(*g));
	g->label = strdup(label);
	g->color = color;
	g->trace = t;
	g->n = a->n_bins;
	g->x = calloc(g->n + 1, sizeof(double));
	g->y = calloc(g->n + 1, sizeof(double));
	if (!g->label || !g->x || !g->y) {
		free(g->label);
		free(g->x);
		free(g->y);
		return NULL;
	}
	s->n++;
	for (i = 0; i < g->n; i++)
		g->x[i] = analysis_bin_start_s(a, i) +
			  analysis_bin_span_s(a, i) / 2;
	return g;
}

/* Room for n points (a series whose x is not the trace's bins). */
static int series_resize(struct graph_series *g, size_t n)
{
	double *x = realloc(g->x, (n + 1) * sizeof(double));
	double *y;

	if (!x)
		return -1;
	g->x = x;
	y = realloc(g->y, (n + 1) * sizeof(double));
	if (!y)
		return -1;
	g->y = y;
	return 0;
}

/* -r: a centred moving average over about r seconds; NaNs are skipped. */
static void smooth(const struct graph_ctx *ctx, struct graph_series *g)
{
	const struct analysis *a = trace_analysis(ctx, g->trace);
	double width = (double)a->bin_width_ns / 1e9;
	size_t half, i;
	double *out;

	if (ctx->opts->rolling_s <= 0 || g->n < 3)
		return;
	half = (size_t)(ctx->opts->rolling_s / width / 2);
	if (!half || !(out = malloc(g->n * sizeof(*out))))
		return;
	for (i = 0; i < g->n; i++) {
		size_t lo = i > half ? i - half : 0;
		size_t hi = i + half < g->n ? i + half : g->n - 1, j, k = 0;
		double sum = 0;

		for (j = lo; j <= hi; j++)
			if (!isnan(g->y[j])) {
				sum += g->y[j];
				k++;
			}
		out[i] = k ? sum / (double)k : NAN;
	}
	memcpy(g->y, out, g->n * sizeof(*out));
	free(out);
}

enum class_metric { METRIC_BYTES, METRIC_IOS };

/* Per-bin value of a class: bytes or I/Os per second. */
static void class_values(const struct graph_ctx *ctx,
			 const struct class_list *cl, size_t ci,
			 enum class_metric m, struct graph_series *g)
{
	const struct io_class *c = &cl->items[ci];
	const struct analysis *a = trace_analysis(ctx, c->trace);
	size_t i, s;
	int op;

	for (i = 0; i < a->n_bins; i++) {
		double v = 0, span = analysis_bin_span_s(a, i);

		if (c->dir >= 0) {
			v = m == METRIC_BYTES ? (double)a->bins[i].bytes[c->dir]
					      : a->bins[i].ios[c->dir];
		} else {
			for (s = 0; s < a->n_tags; s++) {
				const struct tag_bin *b = &a->tags[s].bins[i];

				if (cl->slot_class[c->trace][s] != ci)
					continue;
				for (op = 0; op < N_OPS; op++)
					v += m == METRIC_BYTES ?
						     (double)b->bytes[op] :
						     (double)b->ios[op];
			}
		}
		g->y[i] = v / span / (m == METRIC_BYTES ? 1e6 : 1);
	}
}

static int build_class_metric(const struct graph_ctx *ctx,
			      struct series_set *out, enum class_metric m)
{
	struct class_list cl;
	size_t i;
	int r = 0;

	if (build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return -1;
	}
	for (i = 0; i < cl.n && r == 0; i++) {
		struct graph_series *g;

		/* flushes and zone management carry no bytes */
		if (m == METRIC_BYTES && (cl.items[i].dir == OP_FLUSH ||
					  cl.items[i].dir == OP_ZONE))
			continue;
		g = series_add(ctx, out, cl.items[i].trace, cl.items[i].label,
			       cl.items[i].color);
		if (!g) {
			r = -1;
			break;
		}
		class_values(ctx, &cl, i, m, g);
		smooth(ctx, g);
	}
	class_list_free(&cl, ctx->n_traces);
	return r;
}

static int build_tput(const struct graph_ctx *ctx, size_t panel,
		      struct series_set *out)
{
	(void)panel;
	return build_class_metric(ctx, out, METRIC_BYTES);
}

static int build_iops(const struct graph_ctx *ctx, size_t panel,
		      struct series_set *out)
{
	(void)panel;
	return build_class_metric(ctx, out, METRIC_IOS);
}


/* A line per trace: the trace's colour, or black for a lone trace (blue
 * would read as "reads", the lone trace's read colour). */
static int trace_color(const struct graph_ctx *ctx, size_t t)
{
	return ctx->n_traces == 1 ? OTHER_COLOR : (int)t;
}

static void series_label(const struct graph_ctx *ctx, size_t t, int d,
			 const char *what, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", ctx->n_traces > 1 ?
		 ctx->traces[t].label : "", ctx->n_traces > 1 ? " " : "",
		 d >= 0 ? io_op_name(d) : "", what);
}

static uint64_t d2c_count(const struct analysis *a, int d)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < a->n_bins; i++)
		n += a->bins[i].d2c_n[d];
	return n;
}

static int build_latency_ops(const struct graph_ctx *ctx,
			     struct series_set *out, size_t only);

/* ---- graphs split by tag: a line per tag class ---- */

/* Whether tag slot s of trace t belongs to class ci. */
static int in_class(const struct class_list *cl, size_t t, size_t s,
		    size_t ci)
{
	return cl->slot_class[t] && cl->slot_class[t][s] == ci;
}

/* Class ci's D2C in bin i: quantile q of its tags' summed histograms
 * (q > 1: the max), or NAN when it has none. */
static double class_latency(const struct analysis *a,
			    const struct class_list *cl, size_t ci, size_t i,
			    double q)
{
	uint32_t sum[LAT_BIN_BUCKETS];
	uint64_t max = 0, n = 0;
	size_t s, k, t = cl->items[ci].trace;
	double v;

	memset(sum, 0, sizeof(sum));
	for (s = 0; s < a->n_tags; s++) {
		const struct tag_bin *b = &a->tags[s].bins[i];
		const uint32_t *h;

		if (!in_class(cl, t, s, ci) || !b->d2c_n)
			continue;
		n += b->d2c_n;
		if (b->d2c_max_ns > max)
			max = b->d2c_max_ns;
		if (q > 1 || !(h = analysis_tag_lat_hist(a, s, i)))
			continue;
		for (k = 0; k < LAT_BIN_BUCKETS; k++)
			sum[k] += h[k];
	}
	if (!n)
		return NAN;
	if (q > 1)
		return (double)max;
	v = hist_quantile(sum, LAT_BIN_BUCKETS, LAT_BIN_BITS, q);
	return v > (double)max ? (double)max : v;
}

static double class_latency_mean(const struct analysis *a,
				 const struct class_list *cl, size_t ci,
				 size_t i)
{
	double sum = 0;
	uint64_t n = 0;
	size_t s;

	for (s = 0; s < a->n_tags; s++)
		if (in_class(cl, cl->items[ci].trace, s, ci)) {
			sum += (double)a->tags[s].bins[i].d2c_sum_ns;
			n += a->tags[s].bins[i].d2c_n;
		}
	return n ? sum / (double)n : NAN;
}

/*
 * Class ci's flush requests, a dotted line of their mean D2C per bin
 * where it has any: their latency is their own, never the class's data
 * latency.
 */
static int class_flush_line(const struct graph_ctx *ctx,
			    const struct class_list *cl, size_t ci,
			    struct series_set *out)
{
	const struct io_class *c = &cl->items[ci];
	const struct analysis *a = trace_analysis(ctx, c->trace);
	struct graph_series *g;
	char label[200];
	size_t i, s;
	int any = 0;

	if (!op_shown(ctx, OP_FLUSH))
		return 0;
	for (s = 0; s < a->n_tags && !any; s++)
		any = in_class(cl, c->trace, s, ci) && a->tags[s].flush_bins;
	if (!any)
		return 0;
	snprintf(label, sizeof(label), "%s flush D2C mean", c->label);
	if (!(g = series_add(ctx, out, c->trace, label, c->color)))
		return -1;
	g->role = ROLE_DOTTED;
	for (i = 0; i < a->n_bins; i++) {
		double sum = 0;
		uint64_t n = 0;

		for (s = 0; s < a->n_tags; s++) {
			const struct tag_flush_bin *b = a->tags[s].flush_bins;

			if (b && in_class(cl, c->trace, s, ci)) {
				sum += (double)b[i].sum_ns;
				n += b[i].n;
			}
		}
		g->y[i] = n ? sum / (double)n : NAN;
	}
	smooth(ctx, g);
	return 0;
}

/* The D2C mean and bands of each tag class of trace t. */
static int build_latency_by_tag(const struct graph_ctx *ctx, size_t t,
				const struct class_list *cl,
				struct series_set *out)
{
	static const struct {
		enum series_role role;
		const char *name;
		double q;
	} edges[] = {
		{ ROLE_P50, " D2C p50", 0.5 }, { ROLE_P90, " D2C p90", 0.9 },
		{ ROLE_P99, " D2C p99", 0.99 }, { ROLE_MAX, " D2C max", 2 },
	};
	const struct analysis *a = trace_analysis(ctx, t);
	size_t ci, i, e;

	for (ci = 0; ci < cl->n; ci++) {
		const struct io_class *c = &cl->items[ci];
		struct graph_series *g;
		char label[200];
		int any = 0;

		if (c->trace != t)
			continue;
		if (class_flush_line(ctx, cl, ci, out) < 0)
			return -1;
		snprintf(label, sizeof(label), "%s D2C mean", c->label);
		if (!(g = series_add(ctx, out, t, label, c->color)))
			return -1;
		for (i = 0; i < a->n_bins; i++) {
			g->y[i] = class_latency_mean(a, cl, ci, i);
			any |= !isnan(g->y[i]);
		}
		if (!any) {	/* a class with no data I/O: no line */
			free(g->label);
			free(g->x);
			free(g->y);
			out->n--;
			continue;
		}
		smooth(ctx, g);
		for (e = 0; e < sizeof(edges) / sizeof(edges[0]); e++) {
			snprintf(label, sizeof(label), "%s%s", c->label,
				 edges[e].name);
			if (!(g = series_add(ctx, out, t, label, c->color)))
				return -1;
			g->role = edges[e].role;
			for (i = 0; i < a->n_bins; i++)
				g->y[i] = class_latency(a, cl, ci, i,
							edges[e].q);
		}
	}
	return 0;
}

/* D2C mean per bin, then p50, p90, p99 and max as band edges: per op,
 * or per tag class where the trace is tagged. */
static int build_latency(const struct graph_ctx *ctx, size_t panel,
			 struct series_set *out)
{
	struct class_list cl;
	size_t t;

	(void)panel;
	if (!ctx->tagged)
		return build_latency_ops(ctx, out, SIZE_MAX);
	if (build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return -1;
	}
	for (t = 0; t < ctx->n_traces; t++) {
		int r = trace_analysis(ctx, t)->tagging ?
			build_latency_by_tag(ctx, t, &cl, out) :
			build_latency_ops(ctx, out, t);

		if (r < 0) {
			class_list_free(&cl, ctx->n_traces);
			return -1;
		}
	}
	class_list_free(&cl, ctx->n_traces);
	return 0;
}

/* D2C mean and bands per op, of trace only (SIZE_MAX: every trace). */
static int build_latency_ops(const struct graph_ctx *ctx,
			     struct series_set *out, size_t only)
{
	static const struct {
		enum series_role role;
		const char *name;
		double q;
	} edges[] = {
		{ ROLE_P50, " D2C p50", 0.5 }, { ROLE_P90, " D2C p90", 0.9 },
		{ ROLE_P99, " D2C p99", 0.99 }, { ROLE_MAX, " D2C max", 1 },
	};
	size_t t, i, e;
	int d;

	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);

		if (only != SIZE_MAX && t != only)
			continue;
		for (d = 0; d < N_OPS; d++) {
			struct graph_series *g;
			char label[160];

			if (!op_shown(ctx, d) || !d2c_count(a, d))
				continue;
			series_label(ctx, t, d, " D2C mean", label,
				     sizeof(label));
			g = series_add(ctx, out, t, label, dir_color(ctx, t, d));
			if (!g)
				return -1;
			for (i = 0; i < a->n_bins; i++) {
				const struct bin *b = &a->bins[i];

				g->y[i] = b->d2c_n[d] ?
					(double)b->d2c_sum_ns[d] / b->d2c_n[d] :
					NAN;
			}
			smooth(ctx, g);
			for (e = 0; e < sizeof(edges) / sizeof(edges[0]); e++) {
				series_label(ctx, t, d, edges[e].name, label,
					     sizeof(label));
				g = series_add(ctx, out, t, label,
					       dir_color(ctx, t, d));
				if (!g)
					return -1;
				g->role = edges[e].role;
				for (i = 0; i < a->n_bins; i++) {
					const struct bin *b = &a->bins[i];

					if (!b->d2c_n[d])
						g->y[i] = NAN;
					else if (edges[e].role == ROLE_MAX)
						g->y[i] = (double)b->d2c_max_ns[d];
					else
						g->y[i] = analysis_bin_latency_q(
							a, i, d, edges[e].q);
				}
			}
		}
	}
	return 0;
}

/* Mean time waiting in the block layer (Q2D) and in the device (D2C). */
static int build_q2d_d2c(const struct graph_ctx *ctx, size_t panel,
			 struct series_set *out)
{
	size_t t, i;

	(void)panel;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);
		struct graph_series *q2d, *d2c;
		char label[160];

		series_label(ctx, t, -1, "Q2D (block layer)", label,
			     sizeof(label));
		if (!series_add(ctx, out, t, label, 2 + 2 * (int)t))
			return -1;
		series_label(ctx, t, -1, "D2C (device)", label, sizeof(label));
		if (!series_add(ctx, out, t, label, 3 + 2 * (int)t))
			return -1;
		/* the second add may have moved the first */
		q2d = &out->items[out->n - 2];
		d2c = &out->items[out->n - 1];
		q2d->role = d2c->role = ROLE_STACK;
		for (i = 0; i < a->n_bins; i++) {
			const struct bin *b = &a->bins[i];
			uint32_t n = 0;
			double qd = 0, qc = 0;
			int op;

			for (op = 0; op < N_DATA_OPS; op++) {
				n += b->lat_n[op];
				qd += (double)b->q2d_sum_ns[op];
				qc += (double)b->q2c_sum_ns[op];
			}

			q2d->y[i] = n ? qd / n : NAN;
			d2c->y[i] = n ? (qc - qd) / n : NAN;
		}
		smooth(ctx, q2d);
		smooth(ctx, d2c);
	}
	return 0;
}

/* Request size per bin: median and p90 bytes, per direction. */
static int build_size(const struct graph_ctx *ctx, size_t panel,
		      struct series_set *out)
{
	size_t t, i;
	int d;

	(void)panel;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);

		for (d = 0; d < N_DATA_OPS; d++) {
			struct graph_series *med, *p90;
			char label[160];
			uint64_t n = 0;

			for (i = 0; i < a->n_bins; i++)
				n += a->bins[i].ios[d];
			if (!n)
				continue;
			series_label(ctx, t, d, " median", label,
				     sizeof(label));
			if (!series_add(ctx, out, t, label,
					dir_color(ctx, t, d)))
				return -1;
			series_label(ctx, t, d, " p90", label, sizeof(label));
			if (!series_add(ctx, out, t, label,
					dir_color(ctx, t, d)))
				return -1;
			/* the second add may have moved the first */
			med = &out->items[out->n - 2];
			p90 = &out->items[out->n - 1];
			med->role = ROLE_P50;
			p90->role = ROLE_P90;
			for (i = 0; i < a->n_bins; i++) {
				int any = a->bins[i].ios[d] != 0;

				med->y[i] = any ? analysis_bin_size_q(a, i, d,
							0.5) : NAN;
				p90->y[i] = any ? analysis_bin_size_q(a, i, d,
							0.9) : NAN;
			}
		}
	}
	return 0;
}

/*
 * Colour of device k (in order of appearance) of trace t, where a graph
 * draws a line per device: a lone trace's first device black, the next
 * ones the colours reads and writes do not use; several traces keep
 * their colour, a device each pass through the palette.
 */
static int device_color(const struct graph_ctx *ctx, size_t t, size_t k)
{
	static const int lone[] = { OTHER_COLOR, 2, 3, 4, 5, 6 };

	if (ctx->n_traces == 1)
		return lone[k % 6] + (int)(k / 6 % 3) * LIGHTER;
	return (int)t + (int)(k % 3) * LIGHTER;
}

enum device_metric { DEVICE_DEPTH, DEVICE_SEEKS };

/* Requests in flight or seeks of each tag class of trace t. */
static int build_tag_lines(const struct graph_ctx *ctx, size_t t,
			   const struct class_list *cl,
			   struct series_set *out, enum device_metric m)
{
	const struct analysis *a = trace_analysis(ctx, t);
	size_t ci, i, s;

	for (ci = 0; ci < cl->n; ci++) {
		struct graph_series *g;

		if (cl->items[ci].trace != t)
			continue;
		g = series_add(ctx, out, t, cl->items[ci].label,
			       cl->items[ci].color);
		if (!g)
			return -1;
		for (i = 0; i < a->n_bins; i++) {
			double span = analysis_bin_span_s(a, i), v = 0;

			for (s = 0; s < a->n_tags; s++)
				if (in_class(cl, t, s, ci))
					v += m == DEVICE_DEPTH ?
						a->tags[s].bins[i].depth_area_ns :
						a->tags[s].bins[i].seeks;
			g->y[i] = m == DEVICE_DEPTH ? v / (span * 1e9)
						    : v / span;
		}
		smooth(ctx, g);
	}
	return 0;
}

/*
 * Queue depth and seeks belong to a device: a line per device (per tag
 * class where the trace is tagged: the requests of that class in flight,
 * the seeks its requests made).
 */
static int build_device_lines(const struct graph_ctx *ctx,
			      struct series_set *out, enum device_metric m)
{
	struct class_list cl;
	size_t t, i, d, k;

	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return -1;
	}
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);
		int split = analysis_io_devices(a) > 1;

		if (ctx->tagged && a->tagging) {
			if (build_tag_lines(ctx, t, &cl, out, m) < 0) {
				class_list_free(&cl, ctx->n_traces);
				return -1;
			}
			continue;
		}

		for (d = 0, k = 0; d < a->n_devices; d++) {
			const struct device_stats *ds = &a->devices[d];
			struct graph_series *g;
			char label[160];

			if (!ds->has_io)
				continue;
			if (!split && k++)
				break;
			if (split)
				snprintf(label, sizeof(label), "%s%sdevice %u,%u",
					 ctx->n_traces > 1 ?
						 ctx->traces[t].label : "",
					 ctx->n_traces > 1 ? " " : "",
					 blk_dev_major(ds->device),
					 blk_dev_minor(ds->device));
			else
				snprintf(label, sizeof(label), "%s",
					 ctx->traces[t].label);
			g = series_add(ctx, out, t, label,
				       split ? device_color(ctx, t, k++)
					     : trace_color(ctx, t));
			if (!g) {
				if (ctx->tagged)
					class_list_free(&cl, ctx->n_traces);
				return -1;
			}
			for (i = 0; i < a->n_bins; i++) {
				double span = analysis_bin_span_s(a, i);

				g->y[i] = m == DEVICE_DEPTH ?
					ds->depth_bins[i] / (span * 1e9) :
					ds->seek_bins[i] / span;
			}
			smooth(ctx, g);
		}
	}
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
	return 0;
}

static int build_queue_depth(const struct graph_ctx *ctx, size_t panel,
			     struct series_set *out)
{
	(void)panel;
	return build_device_lines(ctx, out, DEVICE_DEPTH);
}

static int build_seeks(const struct graph_ctx *ctx, size_t panel,
		       struct series_set *out)
{
	(void)panel;
	return build_device_lines(ctx, out, DEVICE_SEEKS);
}

#define MAX_DEVICE_PANELS 16

/* The distinct devices with I/O (Q, D or C) across traces. */
static size_t traced_devices(const struct graph_ctx *ctx, uint32_t *out,
			     size_t max)
{
	size_t n = 0, t, d, k;

	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = &ctx->traces[t].analysis;

		for (d = 0; d < a->n_devices; d++) {
			if (!a->devices[d].has_io)
				continue;
			for (k = 0; k < n; k++)
				if (out[k] == a->devices[d].device)
					break;
			if (k == n && n < max)
				out[n++] = a->devices[d].device;
		}
	}
	return n;
}

/*
 * What a graph's title says of a trace's several devices: nothing where
 * it draws them apart, else that it adds them up or pools their bios.
 * Queue depth and seeks draw a line per device, but a tag class's line
 * counts its requests on every device.
 */
static void devices_note(const struct graph_ctx *ctx, char *buf, size_t len)
{
	uint32_t devs[MAX_DEVICE_PANELS];
	size_t n = traced_devices(ctx, devs, MAX_DEVICE_PANELS);
	enum device_merge m = ctx->graph ? ctx->graph->devices : DEVICES_APART;

	buf[0] = '\0';
	if (!ctx->multi_device || ctx->in_device_panel)
		return;
	if (m == DEVICES_APART && ctx->tagged)
		m = DEVICES_SUMMED;
	if (m == DEVICES_SUMMED)
		snprintf(buf, len, " (sum of %zu devices)", n);
	else if (m == DEVICES_POOLED)
		snprintf(buf, len, " (%zu devices pooled)", n);
}

/* A line graph's title: its device's with --per-device, else saying
 * what it does with the devices of a trace. */
static void title_line(const struct graph_ctx *ctx, size_t p, char *buf,
		       size_t len)
{
	const struct graph_def *g = ctx->graph;
	char note[64];

	if (ctx->in_device_panel) {
		snprintf(buf, len, "%s, device %u,%u", g->title,
			 blk_dev_major(ctx->panel_device),
			 blk_dev_minor(ctx->panel_device));
	} else {
		devices_note(ctx, note, sizeof(note));
		snprintf(buf, len, "%s%s", g->title, note);
	}
	(void)p;
}

/* A line graph: one panel, or one per device with --per-device. */
static size_t line_panels(const struct graph_ctx *ctx)
{
	uint32_t devs[MAX_DEVICE_PANELS];
	size_t n;

	if (!ctx->opts->per_device)
		return 1;
	n = traced_devices(ctx, devs, MAX_DEVICE_PANELS);
	return n ? n : 1;
}

/* ---- the io graph: offset against time, one panel per device ---- */

/* The binary unit offsets on this device read best in, as MiB per unit:
 * from MiB up, the numbers below 1000 (not "1.18K GiB"). */
static double offset_unit(double hi_mib, const char **name)
{
	static const char *const names[] = {
		"offset (bytes)", "offset (KiB)", "offset (MiB)",
		"offset (GiB)", "offset (TiB)", "offset (PiB)", "offset (EiB)",
	};
	double scale;
	int k = plot_bytes_unit(hi_mib * 1048576.0, 2, &scale);

	*name = names[k];
	return scale / 1048576.0;
}

/* The distinct devices with I/O across traces, in order of appearance. */
static size_t io_devices(const struct graph_ctx *ctx, uint32_t *out,
			 size_t max)
{
	size_t n = 0, t, d, k;

	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);

		for (d = 0; d < a->n_devices; d++) {
			if (!a->iomaps[d].window_set)
				continue;
			for (k = 0; k < n; k++)
				if (out[k] == a->devices[d].device)
					break;
			if (k == n && n < max)
				out[n++] = a->devices[d].device;
		}
	}
	return n;
}

#define MAX_IO_PANELS 16
/* Room above and below the offsets with I/O, as a share of their span. */
#define IO_RANGE_PAD	0.03

static size_t io_panels(const struct graph_ctx *ctx)
{
	uint32_t devs[MAX_IO_PANELS];
	size_t n = io_devices(ctx, devs, MAX_IO_PANELS);

	return n ? n : 1;
}

/* The io graph and the offset heat map: a panel per device. */
static void title_device(const struct graph_ctx *ctx, size_t p, char *buf,
			 size_t len)
{
	uint32_t devs[MAX_IO_PANELS];

	if (io_devices(ctx, devs, MAX_IO_PANELS) > p)
		snprintf(buf, len, "%s, device %u,%u", ctx->graph->title,
			 blk_dev_major(devs[p]), blk_dev_minor(devs[p]));
	else
		snprintf(buf, len, "%s", ctx->graph->title);
}

static long device_slot(const struct analysis *a, uint32_t device)
{
	size_t d;

	for (d = 0; d < a->n_devices; d++)
		if (a->devices[d].device == device &&
		    a->iomaps[d].window_set)
			return (long)d;
	return -1;
}

/* Offsets (MiB) of the lowest and highest rows holding I/O. */
static void io_extent(const struct graph_ctx *ctx, uint32_t device,
		      double *lo_mib, double *hi_mib)
{
	size_t t;

	*lo_mib = INFINITY;
	*hi_mib = -INFINITY;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);
		long d = device_slot(a, device);
		unsigned row_lo, row_hi;
		uint64_t lo, hi, unused;

		if (d < 0 || !iomap_rows_held(&a->iomaps[d], &row_lo, &row_hi))
			continue;
		analysis_map_row_bytes(a, (size_t)d, row_lo, &lo, &unused);
		analysis_map_row_bytes(a, (size_t)d, row_hi, &unused, &hi);
		if (lo / 1048576.0 < *lo_mib)
			*lo_mib = lo / 1048576.0;
		if (hi / 1048576.0 > *hi_mib)
			*hi_mib = hi / 1048576.0;
	}
	if (ctx->opts->has_y_range) {
		*lo_mib = ctx->opts->y_min_mib;
		*hi_mib = ctx->opts->y_max_mib;
	} else if (*hi_mib > *lo_mib) {
		/* I/O at the extreme offsets clear of the frame. */
		double pad = (*hi_mib - *lo_mib) * IO_RANGE_PAD;

		*lo_mib -= pad;
		*hi_mib += pad;
	}
}

/*
 * The grid the io graph draws a device's cells on, for the traces in
 * it alike: the coarsest trace's columns and offset rows, over all the
 * traces' extent. Where two traces' I/O shares a cell it is then drawn
 * in their mix, named in the legend (plot_raster mixes the layers of one
 * grid), not in the later trace's colour over the earlier's, as two
 * grids of their own would be. One trace's grid is its map's own.
 */
#define IO_GRID_MAX_ROWS	(4 * IOMAP_ROWS)

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

struct io_grid {
	uint64_t t0_ns, col_ns;		/* column c from t0 + c * col */
	uint64_t lo_byte, row_bytes;	/* row r from lo + r * row_bytes */
	size_t cols, rows;
};

static int io_grid_of(const struct graph_ctx *ctx, uint32_t device,
		      const unsigned char *in_grid, struct io_grid *g)
{
	uint64_t end_ns = 0, top_byte = 0, lo, hi, row_hi, unused;
	size_t t;
	int any = 0;

	memset(g, 0, sizeof(*g));
	g->t0_ns = UINT64_MAX;
	g->lo_byte = UINT64_MAX;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);
		long d = device_slot(a, device);

		if (d < 0 || !in_grid[t])
			continue;
		any = 1;
		analysis_map_row_bytes(a, (size_t)d, 0, &lo, &hi);
		analysis_map_row_bytes(a, (size_t)d, IOMAP_ROWS - 1, &unused,
				       &row_hi);
		end_ns = max_u64(end_ns, a->bin_origin_ns +
				 analysis_map_cols(a) * a->map_width_ns);
		top_byte = max_u64(top_byte, row_hi);
		g->t0_ns = min_u64(g->t0_ns, a->bin_origin_ns);
		g->col_ns = max_u64(g->col_ns, a->map_width_ns);
		g->lo_byte = min_u64(g->lo_byte, lo);
		g->row_bytes = max_u64(g->row_bytes, hi - lo);
	}
	if (!any || !g->col_ns || !g->row_bytes || end_ns <= g->t0_ns)
		return 0;
	g->cols = (end_ns - g->t0_ns + g->col_ns - 1) / g->col_ns;
	for (;;) {
		g->rows = (top_byte - g->lo_byte + g->row_bytes - 1) /
			  g->row_bytes;
		if (g->rows <= IO_GRID_MAX_ROWS)
			break;
		g->row_bytes *= 2;
	}
	return g->cols > 0 && g->rows > 0;
}

/* Where a map cell of a trace falls on the grid; 0 when outside. */
static int io_grid_cell(const struct io_grid *g, const struct analysis *a,
			long d, const struct iomap_point *p, size_t *col,
			size_t *row)
{
	uint64_t t = a->bin_origin_ns + p->col * a->map_width_ns, lo, hi;

	analysis_map_row_bytes(a, (size_t)d, p->row, &lo, &hi);
	if (t < g->t0_ns || lo < g->lo_byte)
		return 0;
	*col = (t - g->t0_ns) / g->col_ns;
	*row = (lo - g->lo_byte) / g->row_bytes;
	return *col < g->cols && *row < g->rows;
}

/* Draws class ci's raster on the grid, whose box (x0, x1, y0, y1) goes
 * in box; returns 1 when it had any I/O. */
static int io_raster(const struct graph_ctx *ctx,
		      const struct class_list *cl, size_t ci, long d,
		      struct plot_panel *pp, uint32_t *counts, double unit,
		      const struct io_grid *g, double *box)
{
	const struct io_class *c = &cl->items[ci];
	const struct analysis *a = trace_analysis(ctx, c->trace);
	size_t i = 0, any = 0, col, row;
	struct iomap_point p;

	memset(counts, 0, g->cols * g->rows * sizeof(*counts));
	while (iomap_next(&a->iomaps[d], &i, &p)) {
		if (c->dir >= 0 ? p.dir != c->dir :
		    p.tag_slot == SIZE_MAX ||
		    cl->slot_class[c->trace][p.tag_slot] != ci)
			continue;
		if (p.col < analysis_map_cols(a) &&
		    io_grid_cell(g, a, d, &p, &col, &row)) {
			counts[row * g->cols + col] += p.count;
			any = 1;
		}
	}
	if (!any)
		return 0;
	box[0] = (double)g->t0_ns / 1e9;
	box[1] = (double)(g->t0_ns + g->cols * g->col_ns) / 1e9;
	box[2] = g->lo_byte / 1048576.0 / unit;
	box[3] = (g->lo_byte / 1048576.0 +
		  (double)g->row_bytes * g->rows / 1048576.0) / unit;
	plot_raster(pp, counts, (int)g->cols, (int)g->rows, box[0], box[1],
		    box[2], box[3], c->color);
	return 1;
}

static const char *io_y_label(const struct graph_ctx *ctx, size_t panel)
{
	uint32_t devs[MAX_IO_PANELS];
	const char *name = "offset (MiB)";
	double lo, hi;

	if (io_devices(ctx, devs, MAX_IO_PANELS) > panel) {
		io_extent(ctx, devs[panel], &lo, &hi);
		offset_unit(hi, &name);
	}
	return name;
}

/*
 * Where two classes on one grid (a trace's, or two traces' mapped alike)
 * share a cell, the picture shows their colours mixed (plot_raster): the
 * legend names the mixes seen, most cells first, so that no colour drawn
 * goes unexplained.
 */
#define IO_MIXES	8	/* pairs of classes followed */
#define IO_MIXES_SHOWN	6	/* the most common, in the legend */

struct io_mix {
	size_t a, b;		/* classes */
	uint64_t cells;		/* cells holding both */
};

struct io_mixes {
	size_t *owner;		/* per cell: the first class in it, or none */
	size_t n_cells;		/* of the grid being drawn */
	size_t n;
	struct io_mix pair[IO_MIXES];
};

/* A new grid: no cell has an owner yet (the pairs seen so far stay). */
static int mixes_start_grid(struct io_mixes *m, size_t n_cells)
{
	size_t k;

	if (n_cells > m->n_cells) {
		size_t *more = bigmem_calloc(n_cells * sizeof(*more));

		if (!more)
			return -1;
		bigmem_free(m->owner);
		m->owner = more;
	}
	m->n_cells = n_cells;
	for (k = 0; k < n_cells; k++)
		m->owner[k] = SIZE_MAX;
	return 0;
}

static void mixes_note(struct io_mixes *m, const uint32_t *counts,
		       size_t n_cells, size_t ci)
{
	size_t k, j;

	for (k = 0; k < n_cells; k++) {
		size_t o = m->owner[k];

		if (!counts[k])
			continue;
		if (o == SIZE_MAX) {
			m->owner[k] = ci;
			continue;
		}
		for (j = 0; j < m->n; j++)
			if (m->pair[j].a == o && m->pair[j].b == ci)
				break;
		if (j == m->n && m->n == IO_MIXES)
			continue;
		if (j == m->n) {
			m->pair[j].a = o;
			m->pair[j].b = ci;
			m->pair[j].cells = 0;
			m->n++;
		}
		m->pair[j].cells++;
	}
}

static int cmp_mix_cells(const void *x, const void *y)
{
	const struct io_mix *a = x, *b = y;

	return (a->cells < b->cells) - (a->cells > b->cells);
}

/* "read + write"; with several traces "run1 read + write" or
 * "run1 write + run2 write". */
static void mixes_legend(const struct graph_ctx *ctx,
			 const struct class_list *cl, struct io_mixes *m,
			 struct plot_panel *pp)
{
	size_t j;

	qsort(m->pair, m->n, sizeof(m->pair[0]), cmp_mix_cells);
	for (j = 0; j < m->n && j < IO_MIXES_SHOWN; j++) {
		const struct io_class *a = &cl->items[m->pair[j].a];
		const struct io_class *b = &cl->items[m->pair[j].b];
		size_t skip = ctx->n_traces > 1 && a->trace == b->trace ?
			strlen(ctx->traces[a->trace].label) + 1 : 0;
		char label[300];

		if (strlen(a->label) < skip || strlen(b->label) < skip)
			skip = 0;
		snprintf(label, sizeof(label), "%s + %s", a->label,
			 b->label + skip);
		plot_legend_mix(pp, label, a->color, b->color);
	}
}

/* The cells holding I/O in trace t's map of the device. */
static size_t io_cells(const struct graph_ctx *ctx, size_t t, uint32_t device)
{
	const struct analysis *a = trace_analysis(ctx, t);
	long d = device_slot(a, device);
	struct iomap_point p;
	size_t i = 0, n = 0;

	while (d >= 0 && iomap_next(&a->iomaps[d], &i, &p))
		n++;
	return n;
}

/*
 * Which traces share the device's grid (apart[t] 0) and which are drawn
 * on their own, under it (1): a trace of a few cells beside a dense one
 * (9 ms of dd beside 5 s of fio) would be a sliver of a column on the
 * shared grid; on its own it is drawn as dots, which show it, and the
 * dense trace's cells over them stay seen. Where all are few, they share
 * the grid, as dots.
 */
static void io_apart(const struct graph_ctx *ctx, struct plot_panel *pp,
		     uint32_t device, unsigned char *apart)
{
	size_t t, total = 0;

	for (t = 0; t < ctx->n_traces; t++)
		total += io_cells(ctx, t, device);
	for (t = 0; t < ctx->n_traces; t++)
		apart[t] = !plot_raster_sparse(pp, total) &&
			   plot_raster_sparse(pp, io_cells(ctx, t, device));
}

/* Draws the classes of the traces on the grid of those in_grid; their
 * legend entries in listed[class]. Returns -1 out of memory. */
static int io_draw_grid(const struct graph_ctx *ctx,
			const struct class_list *cl, uint32_t device,
			const unsigned char *in_grid,
			struct plot_panel *pp, double unit,
			struct io_mixes *mixes, unsigned char *listed)
{
	struct io_grid grid;
	uint32_t *counts;
	double box[4];
	size_t i;

	if (!io_grid_of(ctx, device, in_grid, &grid))
		return 0;
	counts = bigmem_calloc(grid.cols * grid.rows * sizeof(*counts));
	if (!counts)
		return -1;
	if (mixes_start_grid(mixes, grid.cols * grid.rows) < 0) {
		bigmem_free(counts);
		return -1;
	}
	for (i = 0; i < cl->n; i++) {
		size_t t = cl->items[i].trace;
		long d = device_slot(trace_analysis(ctx, t), device);

		if (d < 0 || !in_grid[t] ||
		    !io_raster(ctx, cl, i, d, pp, counts, unit, &grid, box))
			continue;
		mixes_note(mixes, counts, grid.cols * grid.rows, i);
		listed[i] = 1;
	}
	bigmem_free(counts);
	return 0;
}

static int draw_io(const struct graph_ctx *ctx, size_t panel,
		   struct plot_panel *pp, struct iow_error *err)
{
	uint32_t devs[MAX_IO_PANELS];
	size_t n_devs = io_devices(ctx, devs, MAX_IO_PANELS), i, t;
	unsigned char *listed, *apart, *in_grid;
	const char *labels[64];
	int colors[64], r = 0;
	size_t n_legend = 0;
	struct io_mixes mixes = { .owner = NULL };
	struct class_list cl;
	double lo, hi, unit;
	const char *unit_name;

	plot_panel_set_x(pp, ctx->x_min, ctx->x_max);
	if (!n_devs) {
		plot_panel_note(pp, "no I/O of this action in range");
		return 0;
	}
	io_extent(ctx, devs[panel], &lo, &hi);
	unit = offset_unit(hi, &unit_name);
	plot_panel_set_y_exact(pp, lo / unit, hi / unit);
	if (build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return iow_fail(err, "out of memory");
	}
	/* a flag per class, then two per trace */
	listed = calloc(cl.n + 2 * ctx->n_traces + 1, 1);
	if (!listed) {
		class_list_free(&cl, ctx->n_traces);
		return iow_fail(err, "out of memory");
	}
	apart = listed + cl.n;
	in_grid = apart + ctx->n_traces;
	/* each trace apart first, then the shared grid over them */
	io_apart(ctx, pp, devs[panel], apart);
	for (t = 0; r == 0 && t < ctx->n_traces; t++) {
		if (!apart[t])
			continue;
		memset(in_grid, 0, ctx->n_traces);
		in_grid[t] = 1;
		r = io_draw_grid(ctx, &cl, devs[panel], in_grid, pp, unit,
				 &mixes, listed);
	}
	for (t = 0; t < ctx->n_traces; t++)
		in_grid[t] = !apart[t];
	if (r == 0)
		r = io_draw_grid(ctx, &cl, devs[panel], in_grid, pp, unit,
				 &mixes, listed);
	for (i = 0; r == 0 && i < cl.n && n_legend < 64; i++) {
		if (!listed[i])
			continue;
		labels[n_legend] = cl.items[i].label;
		colors[n_legend++] = cl.items[i].color;
	}
	if (r == 0) {
		plot_legend(pp, labels, colors, n_legend);
		mixes_legend(ctx, &cl, &mixes, pp);
	}
	free(listed);
	bigmem_free(mixes.owner);
	class_list_free(&cl, ctx->n_traces);
	return r < 0 ? iow_fail(err, "out of memory") : 0;
}

/* ---- latency distributions ---- */

/* Heat-map rows per power of two of latency. */
#define LAT_ROWS_PER_OCTAVE 4
/* Heat maps merge time bins down to about this many columns, so that
 * a cell's colour is a count worth reading, not speckle of ones. */
#define HEATMAP_COLUMNS 200

/*
 * cells[rows][cols] summed over gx columns and gy rows into a new array
 * of *cols_out x *rows_out; NULL when out of memory.
 */
static uint32_t *merge_cells(const uint32_t *cells, size_t cols, size_t rows,
			     size_t gx, size_t gy, size_t *cols_out,
			     size_t *rows_out)
{
	size_t nc = (cols + gx - 1) / gx, nr = (rows + gy - 1) / gy, r, c;
	uint32_t *out = calloc(nc * nr + 1, sizeof(*out));

	if (!out)
		return NULL;
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++) {
			uint32_t *o = &out[(r / gy) * nc + c / gx];
			uint64_t v = (uint64_t)*o + cells[r * cols + c];

			*o = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
		}
	*cols_out = nc;
	*rows_out = nr;
	return out;
}

static size_t heatmap_group(size_t n_bins)
{
	return n_bins > HEATMAP_COLUMNS ?
		       (n_bins + HEATMAP_COLUMNS - 1) / HEATMAP_COLUMNS : 1;
}

/*
 * The latency range (ns) any selected direction of any trace reaches:
 * the panels of several traces share it, so that they compare.
 */
static int latency_extent(const struct graph_ctx *ctx, int dirs, double *lo,
			  double *hi)
{
	size_t i, t;
	int d;

	*lo = INFINITY;
	*hi = 0;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);

		for (i = 0; i < a->n_bins; i++)
			for (d = 0; d < N_DATA_OPS; d++) {
				if (!(dirs & (1 << d)) || !a->bins[i].d2c_n[d])
					continue;
				if ((double)a->bins[i].d2c_max_ns[d] > *hi)
					*hi = (double)a->bins[i].d2c_max_ns[d];
				if (analysis_bin_latency_q(a, i, d, 0) < *lo)
					*lo = analysis_bin_latency_q(a, i, d, 0);
			}
	}
	if (*hi <= 0)
		return -1;
	/* room around the data, so a band at the extremes is not on the frame */
	*lo /= 2;
	*hi *= 2;
	if (*lo < 1000)
		*lo = 1000;
	plot_log_range(lo, hi, 1);
	return 0;
}

/*
 * Counts of trace t's completions per (time bin, log-spaced latency row)
 * for the directions in dirs: rows are even in log space from lo to hi,
 * each fine bucket going to the row of its midpoint.
 */
/*
 * What one heat map or scatter panel shows: the ops in dirs of a trace,
 * or (cls >= 0) the data I/O of one tag class of a tagged trace.
 */
struct heat_source {
	const struct analysis *a;
	int dirs;
	const struct class_list *cl;
	size_t trace;
	long cls;
};

/* Add bin i's histogram h into its column of cells. */
static void add_hist_cells(uint32_t *cells, size_t cols, size_t i, int rows,
			   const uint32_t *h, double lo, double hi)
{
	size_t k;

	for (k = 0; k < LAT_BIN_BUCKETS; k++) {
		double mid;
		int row;

		if (!h[k])
			continue;
		mid = ((double)hist_bucket_low(k, LAT_BIN_BITS) +
		       (double)hist_bucket_high(k, LAT_BIN_BITS)) / 2;
		row = (int)floor(log(mid / lo) / log(hi / lo) * rows);
		if (row < 0)
			row = 0;
		if (row >= rows)
			row = rows - 1;
		cells[(size_t)row * cols + i] += h[k];
	}
}

static uint32_t *latency_cells(const struct heat_source *src, double lo,
			       double hi, int *rows_out)
{
	const struct analysis *a = src->a;
	int rows = (int)ceil(log2(hi / lo) * LAT_ROWS_PER_OCTAVE);
	uint32_t *cells;
	size_t i, s;
	int d;

	if (rows < 1)
		rows = 1;
	cells = calloc((size_t)rows * (a->n_bins + 1), sizeof(*cells));
	if (!cells)
		return cells;
	for (i = 0; i < a->n_bins; i++) {
		if (src->cls >= 0) {
			for (s = 0; s < a->n_tags; s++) {
				const uint32_t *h;

				if (!in_class(src->cl, src->trace, s,
					      (size_t)src->cls) ||
				    !(h = analysis_tag_lat_hist(a, s, i)))
					continue;
				add_hist_cells(cells, a->n_bins, i, rows, h,
					       lo, hi);
			}
			continue;
		}
		for (d = 0; d < N_DATA_OPS; d++) {
			const uint32_t *h = analysis_bin_lat_hist(a, i, d);

			if (h && (src->dirs & (1 << d)) && a->bins[i].d2c_n[d])
				add_hist_cells(cells, a->n_bins, i, rows, h,
					       lo, hi);
		}
	}
	*rows_out = rows;
	return cells;
}

/* The span of a trace's heat map cell: its bins merged by heatmap_group. */
static double heat_cell_s(const struct analysis *a)
{
	return (double)a->bin_width_ns / 1e9 * (double)heatmap_group(a->n_bins);
}

/* Whether a source has D2C samples to show. */
static int has_completions(const struct heat_source *src)
{
	const struct analysis *a = src->a;
	size_t i, s;
	int d;

	if (src->cls < 0) {
		for (d = 0; d < N_DATA_OPS; d++)
			if ((src->dirs & (1 << d)) && d2c_count(a, d))
				return 1;
		return 0;
	}
	for (s = 0; s < a->n_tags; s++)
		if (in_class(src->cl, src->trace, s, (size_t)src->cls))
			for (i = 0; i < a->n_bins; i++)
				if (a->tags[s].bins[i].d2c_n)
					return 1;
	return 0;
}

/*
 * Panel p of the latency heat map and scatter: a trace each, and where a
 * trace is tagged, one per tag class of it with data I/O (so that which
 * process waits shows). Fills src; 0 when there is no such panel.
 */
static int heat_source_of(const struct graph_ctx *ctx,
			  const struct class_list *cl, size_t p,
			  struct heat_source *src)
{
	size_t t, ci, n = 0;

	for (t = 0; t < ctx->n_traces; t++) {
		src->a = trace_analysis(ctx, t);
		src->dirs = ctx->opts->latency_dirs;
		src->cl = cl;
		src->trace = t;
		src->cls = -1;
		if (!ctx->tagged || !src->a->tagging) {
			if (n++ == p)
				return 1;
			continue;
		}
		for (ci = 0; ci < cl->n; ci++) {
			if (cl->items[ci].trace != t)
				continue;
			src->cls = (long)ci;
			if (has_completions(src) && n++ == p)
				return 1;
		}
	}
	return 0;
}

static size_t heat_panels(const struct graph_ctx *ctx)
{
	struct class_list cl;
	struct heat_source src;
	size_t n = 0;

	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return ctx->n_traces;
	}
	while (heat_source_of(ctx, &cl, n, &src))
		n++;
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
	return n ? n : 1;
}

/*
 * A trace's heat map cells, counted per cell_s seconds: a trace of finer
 * cells has its counts scaled up to that span (a count kept at 1 at
 * least), so that traces of other bin widths compare on one colour bar.
 */
static uint32_t *heat_cells(const struct heat_source *src, double lo,
			    double hi, double cell_s, size_t *cols,
			    size_t *rows)
{
	const struct analysis *a = src->a;
	size_t g = heatmap_group(a->n_bins), k;
	double f = cell_s / heat_cell_s(a);
	uint32_t *cells, *merged;
	int r = 0;

	cells = latency_cells(src, lo, hi, &r);
	if (!cells)
		return NULL;
	merged = merge_cells(cells, a->n_bins, (size_t)r, g, 1, cols, rows);
	free(cells);
	for (k = 0; merged && f > 1 && k < *cols * *rows; k++)
		if (merged[k])
			merged[k] = (uint32_t)fmin(UINT32_MAX,
						   fmax(1, round(merged[k] * f)));
	return merged;
}

/* The widest cell and the largest count over every panel's heat map. */
static int heat_scale(const struct graph_ctx *ctx,
		      const struct class_list *cl, double lo, double hi,
		      double *cell_s, uint32_t *max)
{
	struct heat_source src;
	size_t p, k, cols, rows;

	*cell_s = 0;
	*max = 1;
	for (p = 0; heat_source_of(ctx, cl, p, &src); p++)
		if (has_completions(&src))
			*cell_s = fmax(*cell_s, heat_cell_s(src.a));
	for (p = 0; heat_source_of(ctx, cl, p, &src); p++) {
		uint32_t *cells;

		if (!has_completions(&src))
			continue;
		cells = heat_cells(&src, lo, hi, *cell_s, &cols, &rows);
		if (!cells)
			return -1;
		for (k = 0; k < cols * rows; k++)
			if (cells[k] > *max)
				*max = cells[k];
		free(cells);
	}
	return 0;
}

/* Heat maps of several traces or tag classes share the latency axis and
 * the colour bar. */
static int draw_heatmap_panel(const struct graph_ctx *ctx,
			      const struct heat_source *src,
			      struct plot_panel *pp, struct iow_error *err,
			      double lo, double hi)
{
	const struct analysis *a = src->a;
	size_t g = heatmap_group(a->n_bins), mc, mr;
	char span[PLOT_LABEL_LEN], label[PLOT_LABEL_LEN + 16];
	uint32_t *merged, max;
	double cell_s;

	if (heat_scale(ctx, src->cl, lo, hi, &cell_s, &max) < 0)
		return iow_fail(err, "out of memory");
	merged = heat_cells(src, lo, hi, cell_s, &mc, &mr);
	if (!merged)
		return iow_fail(err, "out of memory");
	plot_format_seconds(cell_s, NULL, span, sizeof(span));
	snprintf(label, sizeof(label), "I/Os per %s", span);
	plot_heatmap_scale(pp, max);
	plot_heatmap(pp, merged, (int)mc, (int)mr, analysis_bin_start_s(a, 0),
		     analysis_bin_start_s(a, mc * g), lo, hi, label);
	free(merged);
	return 0;
}

/* ---- the scatter: each I/O at its own latency ---- */

/* The scatter's grid, over the panel: merged down to what the page
 * shows, a cell is a few px, not a quarter of an octave. */
#define SCATTER_COLS	1024
#define SCATTER_ROWS	512

struct tag_id {
	int32_t id;
	size_t slot;
};

static int cmp_tag_id(const void *a, const void *b)
{
	const struct tag_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Whether point p is of the source: its op, or its tag in the class. */
static int point_of(const struct heat_source *src, const struct tag_id *ids,
		    const struct latency_point *p)
{
	struct tag_id key = { p->tag, 0 }, *hit;

	if (src->cls < 0)
		return (src->dirs & (1 << p->op)) != 0;
	hit = bsearch(&key, ids, src->a->n_tags, sizeof(*ids), cmp_tag_id);
	return hit && in_class(src->cl, src->trace, hit->slot,
			       (size_t)src->cls);
}

/* Trace t's tag ids and slots, sorted by id (NULL: none or no memory). */
static struct tag_id *tag_ids(const struct analysis *a)
{
	struct tag_id *ids = calloc(a->n_tags + 1, sizeof(*ids));
	size_t s;

	for (s = 0; ids && s < a->n_tags; s++) {
		ids[s].id = a->tags[s].id;
		ids[s].slot = s;
	}
	if (ids)
		qsort(ids, a->n_tags, sizeof(*ids), cmp_tag_id);
	return ids;
}

/* The latency axis of the scatter, shared by its panels. */
struct scatter_axis {
	double lo, hi;		/* ns */
	int log;
};

/*
 * The range of the points every panel shows, and whether the axis is a
 * log one: as --latency-axis says, or (auto) where they span more than
 * two decades. -1 when there is no point; -2 when points are missing.
 */
static int scatter_extent(const struct graph_ctx *ctx,
			  const struct class_list *cl,
			  struct scatter_axis *ax)
{
	double min = INFINITY, max = 0;
	struct heat_source src;
	size_t p, k;

	for (p = 0; heat_source_of(ctx, cl, p, &src); p++) {
		const struct latency_points *pts = ctx->traces[src.trace].points;
		const struct latency_point *v = pts ? latency_points_items(pts) :
						      NULL;
		struct tag_id *ids = src.cls >= 0 ? tag_ids(src.a) : NULL;

		if (!pts || pts->failed || (src.cls >= 0 && !ids)) {
			free(ids);
			return -2;
		}
		for (k = 0; k < latency_points_n(pts); k++) {
			if (v[k].time_s < ctx->x_min || v[k].time_s > ctx->x_max ||
			    !point_of(&src, ids, &v[k]))
				continue;
			min = fmin(min, v[k].d2c_ns);
			max = fmax(max, v[k].d2c_ns);
		}
		free(ids);
	}
	if (!(max > 0))
		return -1;
	ax->log = ctx->opts->latency_axis == LATENCY_AXIS_LOG ||
		  (ctx->opts->latency_axis == LATENCY_AXIS_AUTO &&
		   max > 100 * fmax(min, 1));
	if (ax->log) {
		/* room around the points, in whole decades */
		ax->lo = fmax(min, 1) / 2;
		ax->hi = max * 2;
		plot_log_range(&ax->lo, &ax->hi, 1);
	} else {
		ax->lo = 0;
		ax->hi = max * 1.05;
	}
	return 0;
}

/* The row of latency v on the axis, or -1 off it. */
static long scatter_row(const struct scatter_axis *ax, double v)
{
	double f = ax->log ? log(v / ax->lo) / log(ax->hi / ax->lo)
			   : (v - ax->lo) / (ax->hi - ax->lo);

	if (!(f >= 0) || f > 1)
		return -1;
	return f >= 1 ? SCATTER_ROWS - 1 : (long)(f * SCATTER_ROWS);
}

/* The points of src (one op, or a tag class) counted on the grid. */
static void scatter_cells(const struct graph_ctx *ctx,
			  const struct heat_source *src,
			  const struct tag_id *ids,
			  const struct scatter_axis *ax, uint32_t *cells)
{
	const struct latency_points *pts = ctx->traces[src->trace].points;
	const struct latency_point *v = latency_points_items(pts);
	double span = ctx->x_max - ctx->x_min;
	size_t k;

	memset(cells, 0, SCATTER_COLS * SCATTER_ROWS * sizeof(*cells));
	for (k = 0; k < latency_points_n(pts); k++) {
		double f = (v[k].time_s - ctx->x_min) / span;
		long row;

		if (!(f >= 0) || f > 1 || !point_of(src, ids, &v[k]) ||
		    (row = scatter_row(ax, v[k].d2c_ns)) < 0)
			continue;
		cells[(size_t)row * SCATTER_COLS +
		      (f >= 1 ? SCATTER_COLS - 1 : (size_t)(f * SCATTER_COLS))]++;
	}
}

/* The scatter: each direction (or the tag class) its own raster, every
 * I/O at its completion's time and its own D2C. */
static int draw_scatter_panel(const struct graph_ctx *ctx,
			      const struct heat_source *src,
			      struct plot_panel *pp, struct iow_error *err,
			      const struct scatter_axis *ax)
{
	const char *labels[N_OPS];
	int colors[N_OPS], d;
	size_t n_legend = 0;
	struct heat_source one = *src;
	struct tag_id *ids = src->cls >= 0 ? tag_ids(src->a) : NULL;
	uint32_t *cells = bigmem_calloc(SCATTER_COLS * SCATTER_ROWS *
					sizeof(*cells));

	if (!cells || (src->cls >= 0 && !ids)) {
		bigmem_free(cells);
		free(ids);
		return iow_fail(err, "out of memory");
	}
	for (d = 0; d < N_DATA_OPS; d++) {
		int color;

		if (src->cls < 0) {
			if (!(src->dirs & (1 << d)) || !d2c_count(src->a, d))
				continue;
			one.dirs = 1 << d;
			color = dir_color(ctx, src->trace, d);
			labels[n_legend] = io_op_name(d);
		} else {
			if (d)
				break;
			color = src->cl->items[src->cls].color;
			labels[n_legend] = src->cl->items[src->cls].label;
		}
		scatter_cells(ctx, &one, ids, ax, cells);
		plot_raster(pp, cells, SCATTER_COLS, SCATTER_ROWS, ctx->x_min,
			    ctx->x_max, ax->lo, ax->hi, color);
		colors[n_legend++] = color;
	}
	plot_legend(pp, labels, colors, n_legend);
	/* where reads and writes share a cell, it shows their mix */
	if (n_legend > 1) {
		char mix[64];

		snprintf(mix, sizeof(mix), "%s + %s", labels[0], labels[1]);
		plot_legend_mix(pp, mix, colors[0], colors[1]);
	}
	bigmem_free(cells);
	free(ids);
	return 0;
}

static int draw_latency_cells(const struct graph_ctx *ctx, size_t panel,
			      struct plot_panel *pp, struct iow_error *err,
			      int scatter)
{
	struct class_list cl;
	struct heat_source src;
	struct scatter_axis ax;
	double lo, hi;
	int r = 0, ext = 0;

	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return iow_fail(err, "out of memory");
	}
	plot_panel_set_x(pp, ctx->x_min, ctx->x_max);
	if (!heat_source_of(ctx, &cl, panel, &src) || !has_completions(&src) ||
	    (!scatter && latency_extent(ctx, ctx->opts->latency_dirs, &lo,
					&hi) < 0) ||
	    (scatter && (ext = scatter_extent(ctx, &cl, &ax)) < 0)) {
		if (ext == -2)
			r = iow_fail(err, "out of memory keeping each I/O's latency");
		plot_panel_note(pp, "no completions in range");
	} else if (scatter) {
		if (ax.log) {
			plot_panel_set_y_log(pp, ax.lo, ax.hi);
			plot_panel_set_y_label(pp, "latency (log scale)");
		} else {
			plot_panel_set_y(pp, ax.lo, ax.hi);
		}
		r = draw_scatter_panel(ctx, &src, pp, err, &ax);
	} else {
		plot_panel_set_y_log(pp, lo, hi);
		r = draw_heatmap_panel(ctx, &src, pp, err, lo, hi);
	}
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
	return r;
}

/*
 * The title of panel p of the heat map and scatter: which trace, and
 * which tag class where the trace is tagged.
 */
static void title_heat(const struct graph_ctx *ctx, size_t p, char *buf,
		       size_t len)
{
	const char *title = ctx->graph->title;
	char sum[64];
	struct class_list cl;
	struct heat_source src;

	devices_note(ctx, sum, sizeof(sum));
	snprintf(buf, len, "%s%s", title, sum);
	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return;
	}
	if (heat_source_of(ctx, &cl, p, &src)) {
		if (src.cls >= 0)
			snprintf(buf, len, "%s%s, %s", title, sum,
				 cl.items[src.cls].label);
		else if (ctx->n_traces > 1)
			snprintf(buf, len, "%s%s, %s", title, sum,
				 ctx->traces[src.trace].label);
	}
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
}

static int draw_latency_heatmap(const struct graph_ctx *ctx, size_t panel,
				struct plot_panel *pp, struct iow_error *err)
{
	return draw_latency_cells(ctx, panel, pp, err, 0);
}

static int draw_latency_scatter(const struct graph_ctx *ctx, size_t panel,
				struct plot_panel *pp, struct iow_error *err)
{
	return draw_latency_cells(ctx, panel, pp, err, 1);
}

/* Bytes per (time bin, offset row) of one device, as a heat map. */
/*
 * Panel p of the offset heat map: a device, and with several traces a
 * trace of it each (heat maps do not overlay). Fills the device, the
 * trace and the device's slot in it; 0 when there is no such panel.
 */
static int offset_panel(const struct graph_ctx *ctx, size_t p, uint32_t *dev,
			size_t *trace, long *slot)
{
	uint32_t devs[MAX_IO_PANELS];
	size_t n_devs = io_devices(ctx, devs, MAX_IO_PANELS), i, t, n = 0;

	for (i = 0; i < n_devs; i++)
		for (t = 0; t < ctx->n_traces; t++) {
			long d = device_slot(trace_analysis(ctx, t), devs[i]);

			if (d < 0 || n++ != p)
				continue;
			*dev = devs[i];
			*trace = t;
			*slot = d;
			return 1;
		}
	return 0;
}

static size_t offset_panels(const struct graph_ctx *ctx)
{
	uint32_t dev;
	size_t t, n = 0;
	long d;

	while (offset_panel(ctx, n, &dev, &t, &d))
		n++;
	return n ? n : 1;
}

static void title_offset(const struct graph_ctx *ctx, size_t p, char *buf,
			 size_t len)
{
	uint32_t dev;
	size_t t;
	long d;

	if (!offset_panel(ctx, p, &dev, &t, &d))
		snprintf(buf, len, "%s", ctx->graph->title);
	else if (ctx->n_traces > 1)
		snprintf(buf, len, "%s, device %u,%u, %s", ctx->graph->title,
			 blk_dev_major(dev), blk_dev_minor(dev),
			 ctx->traces[t].label);
	else
		snprintf(buf, len, "%s, device %u,%u", ctx->graph->title,
			 blk_dev_major(dev), blk_dev_minor(dev));
}

static int draw_offset_heatmap(const struct graph_ctx *ctx, size_t panel,
			       struct plot_panel *pp, struct iow_error *err)
{
	uint32_t dev, *cells;
	size_t i, t, cols;
	const struct analysis *a;
	struct iomap_point p;
	double lo, hi, unit;
	const char *unit_name;
	uint64_t row_lo, row_hi;
	long d;

	plot_panel_set_x(pp, ctx->x_min, ctx->x_max);
	if (!offset_panel(ctx, panel, &dev, &t, &d)) {
		plot_panel_note(pp, "no I/O of this action in range");
		return 0;
	}
	a = trace_analysis(ctx, t);
	io_extent(ctx, dev, &lo, &hi);
	unit = offset_unit(hi, &unit_name);
	plot_panel_set_y_exact(pp, lo / unit, hi / unit);
	cols = analysis_map_cols(a);
	cells = calloc((cols + 1) * IOMAP_ROWS, sizeof(*cells));
	if (!cells)
		return iow_fail(err, "out of memory");
	i = 0;
	while (iomap_next(&a->iomaps[d], &i, &p)) {
		uint64_t kib = (p.bytes + 1023) / 1024;

		if (p.col >= cols)
			continue;
		cells[(size_t)p.row * cols + p.col] +=
			kib > UINT32_MAX ? UINT32_MAX : (uint32_t)kib;
	}
	analysis_map_row_bytes(a, (size_t)d, 0, &row_lo, &row_hi);
	{
		size_t g = heatmap_group(cols), mc, mr;
		uint32_t *merged = merge_cells(cells, cols, IOMAP_ROWS, g,
					       2, &mc, &mr);

		free(cells);
		if (!merged)
			return iow_fail(err, "out of memory");
		plot_heatmap_format(pp, plot_format_kib);
		plot_heatmap(pp, merged, (int)mc, (int)mr,
			     analysis_map_col_start_s(a, 0),
			     analysis_map_col_start_s(a, mc * g),
			     row_lo / 1048576.0 / unit,
			     (row_lo / 1048576.0 + (double)(row_hi - row_lo) *
			      IOMAP_ROWS / 1048576.0) / unit, "bytes");
		free(merged);
	}
	return 0;
}

/* Fold a whole-trace D2C histogram into log2 buckets of microseconds;
 * returns the highest bucket with a count, or top as it was. */
static int fold_log2(const uint64_t *h, uint64_t *counts, int top)
{
	size_t k;

	for (k = 0; h && k < LAT_SUM_BUCKETS; k++) {
		uint64_t us = hist_bucket_low(k, LAT_SUM_BITS) / 1000;
		int b = us ? 63 - __builtin_clzll(us) : 0;

		if (!h[k])
			continue;
		counts[b] += h[k];
		if (b > top)
			top = b;
	}
	return top;
}

/*
 * A step series of log2 buckets: bucket k holds [2^k, 2^(k+1)) us
 * (k = 0 also [0, 1)), as a share of the line's I/Os: two runs, or two
 * processes, compare by where their I/Os went, not by which did more.
 */
static int log2_series(const struct graph_ctx *ctx, struct series_set *out,
		       size_t t, const char *label, int color,
		       const uint64_t *counts, int top)
{
	struct graph_series *g;
	double total = 0;
	size_t k;

	if (top < 0)
		return 0;
	for (k = 0; k <= (size_t)top; k++)
		total += (double)counts[k];
	if (!(g = series_add(ctx, out, t, label, color)))
		return -1;
	g->n = (size_t)top + 2;
	if (series_resize(g, g->n) < 0)
		return -1;
	for (k = 0; k < g->n; k++) {
		g->x[k] = (double)(1ull << k) * 1000;
		g->y[k] = k <= (size_t)top && total > 0 ?
			  100.0 * (double)counts[k] / total : 0;
	}
	g->role = ROLE_STEP;
	return 0;
}

static int latency_hist_by_tag(const struct graph_ctx *ctx, size_t t,
			       const struct class_list *cl,
			       struct series_set *out)
{
	const struct analysis *a = trace_analysis(ctx, t);
	size_t ci, s;

	for (ci = 0; ci < cl->n; ci++) {
		uint64_t counts[64] = { 0 };
		int top = -1;

		if (cl->items[ci].trace != t)
			continue;
		for (s = 0; s < a->n_tags; s++)
			if (in_class(cl, t, s, ci))
				top = fold_log2(a->tags[s].d2c.hist, counts,
						top);
		if (log2_series(ctx, out, t, cl->items[ci].label,
				cl->items[ci].color, counts, top) < 0)
			return -1;
	}
	return 0;
}

/* D2C in log2 buckets of microseconds, as biolatency prints it: per op,
 * or per tag class where the trace is tagged. */
static int build_latency_hist(const struct graph_ctx *ctx, size_t panel,
			      struct series_set *out)
{
	struct class_list cl;
	size_t t, dev;
	int d, r = 0;

	(void)panel;
	if (ctx->tagged && build_classes(ctx, &cl) < 0) {
		class_list_free(&cl, ctx->n_traces);
		return -1;
	}
	for (t = 0; t < ctx->n_traces && r == 0; t++) {
		const struct analysis *a = trace_analysis(ctx, t);

		if (ctx->tagged && a->tagging) {
			r = latency_hist_by_tag(ctx, t, &cl, out);
			continue;
		}
		for (d = 0; d < N_OPS && r == 0; d++) {
			uint64_t counts[64] = { 0 };
			char label[160];
			int top = -1;

			if (!op_shown(ctx, d))
				continue;
			for (dev = 0; dev < a->n_devices; dev++) {
				const struct device_stats *ds = &a->devices[dev];

				top = fold_log2(d == OP_FLUSH ?
						ds->flush_d2c.hist_op[d] :
						ds->d2c.hist_op[d], counts, top);
			}
			series_label(ctx, t, d, "", label, sizeof(label));
			r = log2_series(ctx, out, t, label, dir_color(ctx, t, d),
					counts, top);
		}
	}
	if (ctx->tagged)
		class_list_free(&cl, ctx->n_traces);
	return r;
}

/* ---- CPU use (mpstat beside the trace) and fio's bandwidth logs ---- */

static size_t cpu_panels(const struct graph_ctx *ctx)
{
	size_t t;

	for (t = 0; t < ctx->n_traces; t++)
		if (ctx->traces[t].cpu && ctx->traces[t].cpu->all.n)
			return 1;
	return 0;
}

/*
 * mpstat stamps each sample at the end of the second it averaged, and
 * starts with the trace: sample i is drawn at the middle of its second.
 */
#define MPSTAT_INTERVAL_S 1.0

static double cpu_sample_x(const struct cpustat_sample *s)
{
	return s->time_s + MPSTAT_INTERVAL_S / 2;
}

static struct graph_series *series_own_x(struct series_set *s, size_t t,
					 const char *label, int color,
					 size_t n)
{
	struct graph_series *more, *g;

	more = realloc(s->items, (s->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	s->items = more;
	g = &more[s->n];
	memset(g, 0, sizeof(*g));
	g->label = strdup(label);
	g->color = color;
	g->trace = t;
	g->n = n;
	g->x = calloc(n + 1, sizeof(double));
	g->y = calloc(n + 1, sizeof(double));
	if (!g->label || !g->x || !g->y) {
		free(g->label);
		free(g->x);
		free(g->y);
		return NULL;
	}
	s->n++;
	return g;
}

/* The "all" line and a band from the least to the busiest CPU. */
static int build_cpu(const struct graph_ctx *ctx, struct series_set *out,
		     enum cpustat_field field)
{
	size_t t, i, c, first;

	for (t = 0; t < ctx->n_traces; t++) {
		const struct cpustat *cs = ctx->traces[t].cpu;
		struct graph_series *all, *lo, *hi;
		char label[160];

		if (!cs || !cs->all.n)
			continue;
		/* Adding a series may move the others: index, then point. */
		first = out->n;
		series_label(ctx, t, -1, "all CPUs", label, sizeof(label));
		if (!series_own_x(out, t, label, trace_color(ctx, t),
				  cs->all.n))
			return -1;
		series_label(ctx, t, -1, "least busy CPU", label,
			     sizeof(label));
		if (!series_own_x(out, t, label, trace_color(ctx, t),
				  cs->all.n))
			return -1;
		series_label(ctx, t, -1, "busiest CPU", label, sizeof(label));
		if (!series_own_x(out, t, label, trace_color(ctx, t),
				  cs->all.n))
			return -1;
		all = &out->items[first];
		lo = &out->items[first + 1];
		hi = &out->items[first + 2];
		lo->role = ROLE_RANGE_LO;
		hi->role = ROLE_RANGE_HI;
		for (i = 0; i < cs->all.n; i++) {
			double min = INFINITY, max = -INFINITY;

			all->x[i] = lo->x[i] = hi->x[i] =
				cpu_sample_x(&cs->all.samples[i]);
			all->y[i] = cs->all.samples[i].pct[field];
			for (c = 0; c < cs->n_cpus; c++) {
				double v;

				if (i >= cs->cpus[c].n)
					continue;
				v = cs->cpus[c].samples[i].pct[field];
				if (v < min)
					min = v;
				if (v > max)
					max = v;
			}
			lo->y[i] = isfinite(min) ? min : NAN;
			hi->y[i] = isfinite(max) ? max : NAN;
		}
	}
	return 0;
}

/* The traces with mpstat samples: a stacked CPU panel each. */
static size_t cpu_stack_panels(const struct graph_ctx *ctx)
{
	size_t t, n = 0;

	for (t = 0; t < ctx->n_traces; t++)
		n += ctx->traces[t].cpu && ctx->traces[t].cpu->all.n;
	return n;
}

/* The trace of stacked CPU panel p, or SIZE_MAX. */
static size_t cpu_stack_trace(const struct graph_ctx *ctx, size_t p)
{
	size_t t;

	for (t = 0; t < ctx->n_traces; t++)
		if (ctx->traces[t].cpu && ctx->traces[t].cpu->all.n && !p--)
			return t;
	return SIZE_MAX;
}

/*
 * mpstat's breakdown of busy time, bottom up, each in a colour of its
 * own (not the reads' blue or the writes' vermilion): guest time is in
 * %usr and %nice already, the rest is %idle.
 */
static const struct {
	enum cpustat_field field;
	int color;
} cpu_layers[] = {
	{ CPUSTAT_USR, 5 }, { CPUSTAT_NICE, 5 + LIGHTER },
	{ CPUSTAT_SYS, 3 }, { CPUSTAT_IOWAIT, 6 }, { CPUSTAT_IRQ, 4 },
	{ CPUSTAT_SOFT, 2 }, { CPUSTAT_STEAL, UNTAGGED_COLOR },
};

/* Whether column f of mpstat's "all" rows is ever above 0. */
static int cpu_field_used(const struct cpustat *cs, enum cpustat_field f)
{
	size_t i;

	for (i = 0; i < cs->all.n; i++)
		if (cs->all.samples[i].pct[f] > 0)
			return 1;
	return 0;
}

/*
 * Panel p's trace's CPU time, all CPUs, as mpstat breaks it down,
 * stacked: the top is the busy share. A column that stays at 0 (%irq
 * on most machines) is left out rather than drawn flat.
 */
static int build_cpu_stack(const struct graph_ctx *ctx, size_t panel,
			   struct series_set *out)
{
	size_t t = cpu_stack_trace(ctx, panel), k, i;
	const struct cpustat *cs;

	if (t == SIZE_MAX)
		return 0;
	cs = ctx->traces[t].cpu;
	for (k = 0; k < sizeof(cpu_layers) / sizeof(cpu_layers[0]); k++) {
		enum cpustat_field f = cpu_layers[k].field;
		struct graph_series *g;
		char what[32], label[160];

		if (!cpu_field_used(cs, f))
			continue;
		snprintf(what, sizeof(what), "%%%s", cpustat_field_name(f));
		series_label(ctx, t, -1, what, label, sizeof(label));
		g = series_own_x(out, t, label, cpu_layers[k].color, cs->all.n);
		if (!g)
			return -1;
		g->role = ROLE_STACK;
		for (i = 0; i < cs->all.n; i++) {
			g->x[i] = cpu_sample_x(&cs->all.samples[i]);
			g->y[i] = cs->all.samples[i].pct[f];
		}
	}
	return 0;
}

/* "CPU time", and whose with several traces. */
static void title_cpu(const struct graph_ctx *ctx, size_t p, char *buf,
		      size_t len)
{
	size_t t = cpu_stack_trace(ctx, p);

	if (ctx->n_traces > 1 && t != SIZE_MAX)
		snprintf(buf, len, "%s, %s", ctx->graph->title,
			 ctx->traces[t].label);
	else
		snprintf(buf, len, "%s", ctx->graph->title);
}

/* The mpstat column comes from the graph's table entry. */
static int build_cpu_field(const struct graph_ctx *ctx, size_t panel,
			   struct series_set *out)
{
	(void)panel;
	return build_cpu(ctx, out, (enum cpustat_field)ctx->graph->field);
}

static size_t fio_panels(const struct graph_ctx *ctx)
{
	return ctx->n_traces && ctx->traces[0].n_fio ? 1 : 0;
}

/* fio's bandwidth per log and direction, KiB/s drawn as MB/s. */
static int build_fio(const struct graph_ctx *ctx, size_t panel,
		     struct series_set *out)
{
	const struct trace_result *r = &ctx->traces[0];
	size_t f, i, k;
	int d, color = 0;

	(void)panel;
	for (f = 0; f < r->n_fio; f++) {
		const struct fiolog *log = &r->fio[f].log;
		const char *base = strrchr(r->fio[f].path, '/');

		base = base ? base + 1 : r->fio[f].path;
		for (d = FIOLOG_READ; d <= FIOLOG_TRIM; d++) {
			struct graph_series *g;
			char label[300];
			size_t n = 0;

			for (i = 0; i < log->n; i++)
				n += log->samples[i].dir == (enum fiolog_dir)d;
			if (!n)
				continue;
			snprintf(label, sizeof(label), "%s %s", base,
				 d == FIOLOG_READ ? "read" :
				 d == FIOLOG_WRITE ? "write" : "trim");
			g = series_own_x(out, 0, label,
					 r->n_fio == 1 ? d : color++, n);
			if (!g)
				return -1;
			for (i = 0, k = 0; i < log->n; i++) {
				const struct fiolog_sample *s = &log->samples[i];

				if (s->dir != (enum fiolog_dir)d)
					continue;
				g->x[k] = s->time_s + r->fio[f].offset_s;
				g->y[k++] = (double)s->value * 1024 / 1e6;
			}
		}
	}
	return 0;
}

/* ---- the table ---- */

/* The mpstat columns apart: a row each, alike but for these. */
#define CPU_GRAPH(graph, what, label, column, text) \
	{ .name = graph, .title = "CPU: " what, .y_label = label, \
	  .help = text, .panels = cpu_panels, \
	  .build = build_cpu_field, .field = column, .x_name = "time", \
	  .x = QTY_SECONDS, .x_span_s = MPSTAT_INTERVAL_S, .y = QTY_PERCENT }

const struct graph_def graph_table[] = {
	{ .name = "io", .title = "I/O offsets", .y_label = "offset",
	  .help = "where on the device I/O went, against time (one panel per device)",
	  .default_on = 1, .panels = io_panels, .panel_title = title_device,
	  .draw = draw_io, .cells = CELLS_IO_MAP,
	  .y_label_for = io_y_label },
	{ .name = "tput", .title = "Throughput", .y_label = "throughput",
	  .help = "completed MB per second, reads and writes",
	  .default_on = 1, .panels = line_panels, .devices = DEVICES_SUMMED,
	  .build = build_tput,
	  .y = QTY_MB_PER_S },
	{ .name = "iops", .title = "IOPS", .y_label = "I/Os per second",
	  .help = "completed I/Os per second, reads and writes",
	  .default_on = 1, .panels = line_panels, .devices = DEVICES_SUMMED,
	  .build = build_iops, .y = QTY_IOS_PER_S },
	{ .name = "latency", .title = "Device latency (D2C)",
	  .y_label = "latency",
	  .help = "D2C mean per bin, with p50-p90-p99 bands and max",
	  .default_on = 1, .panels = line_panels, .devices = DEVICES_POOLED,
	  .build = build_latency, .lossy_unknown = 1,
	  .latency_axis = 1,
	  .y = QTY_LATENCY },
	{ .name = "queue-depth", .title = "Queue depth",
	  .y_label = "requests in flight",
	  .help = "requests issued and not completed, time-weighted",
	  .default_on = 1, .panels = line_panels, .build = build_queue_depth,
	  .lossy_unknown = 1, .y = QTY_REQUESTS },
	{ .name = "seeks", .title = "Seeks", .y_label = "seeks per second",
	  .help = "issued requests not starting where the previous one ended",
	  .default_on = 1, .panels = line_panels, .build = build_seeks,
	  .lossy_unknown = 1,
	  .empty_note = "no seeks", .y = QTY_SEEKS_PER_S },
	{ .name = "q2d-d2c", .title = "Where the time goes (Q2D + D2C)",
	  .y_label = "mean time per I/O",
	  .help = "mean time in the block layer (Q2D) and device (D2C), stacked",
	  .panels = line_panels, .devices = DEVICES_POOLED,
	  .build = build_q2d_d2c, .lossy_unknown = 1,
	  .latency_axis = 1,
	  .y = QTY_LATENCY },
	{ .name = "latency-heatmap", .title = "Latency heat map (D2C)",
	  .y_label = "latency (log scale)",
	  .help = "completions per time bin and latency bucket (log scale)",
	  .devices = DEVICES_POOLED,
	  .panels = heat_panels, .panel_title = title_heat,
	  .draw = draw_latency_heatmap, .cells = CELLS_LATENCY,
	  .y = QTY_LATENCY },
	{ .name = "latency-scatter", .title = "Latency of each I/O (D2C)",
	  .y_label = "latency",
	  .help = "every completion at its time and D2C, density-shaded",
	  .devices = DEVICES_POOLED,
	  .panels = heat_panels, .panel_title = title_heat,
	  .draw = draw_latency_scatter, .cells = CELLS_LATENCY_POINTS,
	  .y = QTY_LATENCY },
	{ .name = "latency-hist", .title = "Latency histogram (D2C)",
	  .y_label = "% of each line's I/Os",
	  .help = "D2C in log2 buckets, as shares of each line's I/Os, one line per trace and direction",
	  .panels = line_panels, .devices = DEVICES_POOLED,
	  .build = build_latency_hist,
	  .x_label = "latency", .x_name = "latency_lo", .x = QTY_LATENCY,
	  .y = QTY_PERCENT },
	{ .name = "offset-heatmap", .title = "Bytes by offset and time",
	  .y_label = "offset",
	  .help = "bytes per time bin and offset row, as a heat map",
	  .panels = offset_panels, .panel_title = title_offset,
	  .draw = draw_offset_heatmap, .cells = CELLS_IO_BYTES,
	  .y_label_for = io_y_label },
	{ .name = "cpu", .title = "CPU time", .y_label = "% of CPU time",
	  .help = "CPU time from NAME.mpstat beside the trace, stacked as mpstat breaks it down",
	  .default_on = 1, .panels = cpu_stack_panels,
	  .panel_title = title_cpu, .build = build_cpu_stack,
	  .x_name = "time", .x = QTY_SECONDS, .x_span_s = MPSTAT_INTERVAL_S,
	  .y = QTY_PERCENT,
	  .share_y = 1 },
	CPU_GRAPH("cpu-sys", "system time", "%sys", CPUSTAT_SYS,
		  "CPU %sys from NAME.mpstat beside the trace (all, and per-CPU range)"),
	CPU_GRAPH("cpu-io", "waiting for I/O", "%iowait", CPUSTAT_IOWAIT,
		  "CPU %iowait from NAME.mpstat"),
	CPU_GRAPH("cpu-irq", "hard interrupts", "%irq", CPUSTAT_IRQ,
		  "CPU %irq from NAME.mpstat"),
	CPU_GRAPH("cpu-soft", "soft interrupts", "%soft", CPUSTAT_SOFT,
		  "CPU %soft from NAME.mpstat"),
	CPU_GRAPH("cpu-user", "user time", "%usr", CPUSTAT_USR,
		  "CPU %usr from NAME.mpstat"),
	{ .name = "fio", .title = "fio bandwidth", .y_label = "bandwidth",
	  .help = "fio's bandwidth logs given with -F (write_bw_log)",
	  .default_on = 1, .panels = fio_panels, .build = build_fio,
	  .x_name = "time", .x = QTY_SECONDS, .y = QTY_MB_PER_S },
	{ .name = "top-files", .title = "Files by bytes",
	  .y_label = NULL, .x_label = "bytes",
	  .help = "the files the bpf recorder saw, by bytes read and written, with their bios and Q2C",
	  .default_on = 1, .panels = top_files_panels,
	  .panel_title = title_top_files, .draw = draw_top_files },
	{ .name = "io-flame", .title = "I/O flame graph",
	  .y_label = NULL, .x_label = "share",
	  .help = "bytes and Q2C time by process and kernel stack, per device and direction (bpf recordings)",
	  .panels = flame_panels, .panel_title = title_flame,
	  .draw = draw_flame },
	{ .name = "size", .title = "Request size", .y_label = "request size",
	  .help = "request size per bin: median line, p90 band edge",
	  .panels = line_panels, .devices = DEVICES_POOLED,
	  .build = build_size, .y = QTY_SIZE },
};
const size_t graph_table_len = sizeof(graph_table) / sizeof(graph_table[0]);
_Static_assert(sizeof(graph_table) / sizeof(graph_table[0]) <= GRAPHS_MAX_SELECTED,
	       "a selection of every graph fits GRAPHS_MAX_SELECTED");

const struct graph_def *graph_find(const char *name)
{
	size_t i;

	for (i = 0; i < graph_table_len; i++)
		if (!strcmp(graph_table[i].name, name))
			return &graph_table[i];
	return NULL;
}

static int named_in(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

size_t graphs_selected(const struct options *o, const struct graph_def **out,
		       size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < graph_table_len && n < max; i++) {
		const struct graph_def *g = &graph_table[i];

		if (o->n_only ? !named_in(g->name, o->only_graphs, o->n_only)
			      : !g->default_on)
			continue;
		if (named_in(g->name, o->no_graphs, o->n_no))
			continue;
		out[n++] = g;
	}
	return n;
}

void graph_ctx_init(struct graph_ctx *ctx, const struct options *o,
		    const struct trace_result *traces, size_t n)
{
	size_t t;

	memset(ctx, 0, sizeof(*ctx));
	ctx->opts = o;
	ctx->traces = traces;
	ctx->n_traces = n;
	ctx->x_min = 0;
	ctx->x_max = 0;
	for (t = 0; t < n; t++) {
		const struct analysis *a = &traces[t].analysis;
		double end = (double)a->last_ns / 1e9;

		if (end > ctx->x_max)
			ctx->x_max = end;
		size_t d;
		uint64_t dir_ios[N_DIRS] = { 0, 0 };

		if (a->tagging)
			ctx->tagged = 1;
		for (d = 0; d < a->n_devices; d++) {
			const struct device_stats *dev = &a->devices[d];

			dir_ios[0] += dev->ios[0] + dev->queued[0] + dev->issued[0];
			dir_ios[1] += dev->ios[1] + dev->queued[1] + dev->issued[1];
		}
		if (dir_ios[0] && dir_ios[1])
			ctx->both_dirs = 1;
		if (analysis_io_devices(a) > 1)
			ctx->multi_device = 1;
	}
	if (o->has_x_range) {
		ctx->x_min = o->x_min_s;
		if (ctx->x_max > o->x_max_s || ctx->x_max <= ctx->x_min)
			ctx->x_max = o->x_max_s;
	}
	if (ctx->x_max <= ctx->x_min)
		ctx->x_max = ctx->x_min + 1;
}

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
 * a level across the bin (a bar's top, a band's box) instead. series_add
 * left room for the second point.
 */
static void widen_lone_bin(const struct graph_ctx *ctx,
			   const struct graph_def *g, struct graph_series *s)
{
	const struct analysis *a = trace_analysis(ctx, s->trace);
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

/* Whether any trace completed I/O, for an empty panel's note. */
static int any_io(const struct graph_ctx *ctx)
{
	size_t t, i;

	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = trace_analysis(ctx, t);

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
	int unknown = 0;

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
		unknown |= traces[i].analysis.n_loss &&
			   !traces[i].analysis.lost_events;
	}
	/* the page says it: a shaded window alone could pass unread; a
	 * loss of no known time (completions the recorder never saw) has
	 * no window to shade */
	if (used >= len || (!lost && !unknown))
		return;
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
		const struct analysis *a = trace_analysis(ctx, s->trace);

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
		const struct analysis *a = trace_analysis(ctx, t);

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
	if (g->panels != line_panels || !ctx->opts->per_device)
		return;
	if (traced_devices(ctx, devs, MAX_DEVICE_PANELS) > p) {
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
		title_line(ctx, panel, ptitle, sizeof(ptitle));
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

int graphs_want_points(const struct options *o)
{
	const struct graph_def *sel[GRAPHS_MAX_SELECTED];
	size_t n = graphs_selected(o, sel, GRAPHS_MAX_SELECTED), i;

	if (o->output_type.kind != OUTPUT_PICTURE)
		return 0;
	for (i = 0; i < n; i++)
		if (sel[i]->draw == draw_latency_scatter)
			return 1;
	return 0;
}

int graphs_want_sizes(const struct options *o)
{
	const struct graph_def *sel[GRAPHS_MAX_SELECTED];
	size_t n = graphs_selected(o, sel, GRAPHS_MAX_SELECTED), i;

	for (i = 0; i < n; i++)
		if (sel[i]->build == build_size)
			return 1;
	return 0;
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

/* ---- what the report reads of a graph, beside its series ---- */

void graph_panel_title(const struct graph_ctx *ctx, size_t panel, char *buf,
		       size_t len)
{
	if (ctx->graph->panel_title)
		ctx->graph->panel_title(ctx, panel, buf, len);
	else
		title_line(ctx, panel, buf, len);
}

const char *graph_y_label(const struct graph_ctx *ctx, size_t panel)
{
	const struct graph_def *g = ctx->graph;

	return g->y_label_for ? g->y_label_for(ctx, panel) : g->y_label;
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

int graph_map_panel(const struct graph_ctx *ctx, size_t p,
		    struct map_panel *d)
{
	uint32_t devs[MAX_IO_PANELS];
	long slot;

	memset(d, 0, sizeof(*d));
	d->trace = SIZE_MAX;
	if (ctx->graph->cells == CELLS_IO_BYTES) {
		if (!offset_panel(ctx, p, &d->device, &d->trace, &slot))
			return 0;
	} else if (io_devices(ctx, devs, MAX_IO_PANELS) > p) {
		d->device = devs[p];
	} else {
		return 0;
	}
	io_extent(ctx, d->device, &d->lo_mib, &d->hi_mib);
	d->unit_mib = offset_unit(d->hi_mib, &d->unit_name);
	return 1;
}

long graph_device_slot(const struct analysis *a, uint32_t device)
{
	return device_slot(a, device);
}

int graph_heat_panel(const struct graph_ctx *ctx,
		     const struct class_list *cl, size_t p,
		     struct heat_panel *d)
{
	struct heat_source src;

	memset(d, 0, sizeof(*d));
	if (!heat_source_of(ctx, cl, p, &src) || !has_completions(&src) ||
	    latency_extent(ctx, ctx->opts->latency_dirs, &d->lo_ns,
			   &d->hi_ns) < 0)
		return 0;
	d->trace = src.trace;
	d->dirs = src.dirs;
	d->cls = src.cls;
	return 1;
}

uint32_t *graph_heat_cells(const struct graph_ctx *ctx,
			   const struct class_list *cl, size_t p,
			   const struct heat_panel *d, int op, int *rows)
{
	struct heat_source src;

	if (!heat_source_of(ctx, cl, p, &src))
		return NULL;
	if (op >= 0)
		src.dirs = 1 << op;
	return latency_cells(&src, d->lo_ns, d->hi_ns, rows);
}
