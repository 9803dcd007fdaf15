/*
 * graph_lines.c: the line graphs' series (throughput, IOPS, latency and
 * its percentiles, Q2D and D2C, sizes, queue depth, seeks), per class,
 * trace, tag or device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/bigmem.h"
#include "reader/blktrace.h"
#include "graphs.h"
#include "analysis/histogram.h"
#include "analysis/latpoints.h"
#include "reader/cpustat.h"
#include "graph_int.h"

/* ---- series ---- */

/* A series with one point per bin of trace t, x at the bin midpoints. */
struct graph_series *graph_series_add(const struct graph_ctx *ctx,
				       struct series_set *s, size_t t,
				       const char *label, int color)
{
	const struct analysis *a = graph_trace_analysis(ctx, t);
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
int graph_series_resize(struct graph_series *g, size_t n)
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
	const struct analysis *a = graph_trace_analysis(ctx, g->trace);
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
	const struct analysis *a = graph_trace_analysis(ctx, c->trace);
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
		g = graph_series_add(ctx, out, cl.items[i].trace, cl.items[i].label,
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

int graph_build_tput(const struct graph_ctx *ctx, size_t panel,
		      struct series_set *out)
{
	(void)panel;
	return build_class_metric(ctx, out, METRIC_BYTES);
}

int graph_build_iops(const struct graph_ctx *ctx, size_t panel,
		      struct series_set *out)
{
	(void)panel;
	return build_class_metric(ctx, out, METRIC_IOS);
}


/* A line per trace: the trace's colour, or black for a lone trace (blue
 * would read as "reads", the lone trace's read colour). */
int graph_trace_color(const struct graph_ctx *ctx, size_t t)
{
	return ctx->n_traces == 1 ? OTHER_COLOR : (int)t;
}

void graph_series_label(const struct graph_ctx *ctx, size_t t, int d,
			 const char *what, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", ctx->n_traces > 1 ?
		 ctx->traces[t].label : "", ctx->n_traces > 1 ? " " : "",
		 d >= 0 ? io_op_name(d) : "", what);
}

uint64_t graph_d2c_count(const struct analysis *a, int d)
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
int graph_in_class(const struct class_list *cl, size_t t, size_t s,
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

		if (!graph_in_class(cl, t, s, ci) || !b->d2c_n)
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
		if (graph_in_class(cl, cl->items[ci].trace, s, ci)) {
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
	const struct analysis *a = graph_trace_analysis(ctx, c->trace);
	struct graph_series *g;
	char label[200];
	size_t i, s;
	int any = 0;

	if (!graph_op_shown(ctx, OP_FLUSH))
		return 0;
	for (s = 0; s < a->n_tags && !any; s++)
		any = graph_in_class(cl, c->trace, s, ci) && a->tags[s].flush_bins;
	if (!any)
		return 0;
	snprintf(label, sizeof(label), "%s flush D2C mean", c->label);
	if (!(g = graph_series_add(ctx, out, c->trace, label, c->color)))
		return -1;
	g->role = ROLE_DOTTED;
	for (i = 0; i < a->n_bins; i++) {
		double sum = 0;
		uint64_t n = 0;

		for (s = 0; s < a->n_tags; s++) {
			const struct tag_flush_bin *b = a->tags[s].flush_bins;

			if (b && graph_in_class(cl, c->trace, s, ci)) {
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
	const struct analysis *a = graph_trace_analysis(ctx, t);
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
		if (!(g = graph_series_add(ctx, out, t, label, c->color)))
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
			if (!(g = graph_series_add(ctx, out, t, label, c->color)))
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
int graph_build_latency(const struct graph_ctx *ctx, size_t panel,
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
		int r = graph_trace_analysis(ctx, t)->tagging ?
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
		const struct analysis *a = graph_trace_analysis(ctx, t);

		if (only != SIZE_MAX && t != only)
			continue;
		for (d = 0; d < N_OPS; d++) {
			struct graph_series *g;
			char label[160];

			if (!graph_op_shown(ctx, d) || !graph_d2c_count(a, d))
				continue;
			graph_series_label(ctx, t, d, " D2C mean", label,
				     sizeof(label));
			g = graph_series_add(ctx, out, t, label, graph_dir_color(ctx, t, d));
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
				graph_series_label(ctx, t, d, edges[e].name, label,
					     sizeof(label));
				g = graph_series_add(ctx, out, t, label,
					       graph_dir_color(ctx, t, d));
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
int graph_build_q2d_d2c(const struct graph_ctx *ctx, size_t panel,
			 struct series_set *out)
{
	size_t t, i;

	(void)panel;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);
		struct graph_series *q2d, *d2c;
		char label[160];

		graph_series_label(ctx, t, -1, "Q2D (block layer)", label,
			     sizeof(label));
		if (!graph_series_add(ctx, out, t, label, 2 + 2 * (int)t))
			return -1;
		graph_series_label(ctx, t, -1, "D2C (device)", label, sizeof(label));
		if (!graph_series_add(ctx, out, t, label, 3 + 2 * (int)t))
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
int graph_build_size(const struct graph_ctx *ctx, size_t panel,
		      struct series_set *out)
{
	size_t t, i;
	int d;

	(void)panel;
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = graph_trace_analysis(ctx, t);

		for (d = 0; d < N_DATA_OPS; d++) {
			struct graph_series *med, *p90;
			char label[160];
			uint64_t n = 0;

			for (i = 0; i < a->n_bins; i++)
				n += a->bins[i].ios[d];
			if (!n)
				continue;
			graph_series_label(ctx, t, d, " median", label,
				     sizeof(label));
			if (!graph_series_add(ctx, out, t, label,
					graph_dir_color(ctx, t, d)))
				return -1;
			graph_series_label(ctx, t, d, " p90", label, sizeof(label));
			if (!graph_series_add(ctx, out, t, label,
					graph_dir_color(ctx, t, d)))
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
	const struct analysis *a = graph_trace_analysis(ctx, t);
	size_t ci, i, s;

	for (ci = 0; ci < cl->n; ci++) {
		struct graph_series *g;

		if (cl->items[ci].trace != t)
			continue;
		g = graph_series_add(ctx, out, t, cl->items[ci].label,
			       cl->items[ci].color);
		if (!g)
			return -1;
		for (i = 0; i < a->n_bins; i++) {
			double span = analysis_bin_span_s(a, i), v = 0;

			for (s = 0; s < a->n_tags; s++)
				if (graph_in_class(cl, t, s, ci))
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
		const struct analysis *a = graph_trace_analysis(ctx, t);
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
			g = graph_series_add(ctx, out, t, label,
				       split ? device_color(ctx, t, k++)
					     : graph_trace_color(ctx, t));
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

int graph_build_queue_depth(const struct graph_ctx *ctx, size_t panel,
			     struct series_set *out)
{
	(void)panel;
	return build_device_lines(ctx, out, DEVICE_DEPTH);
}

int graph_build_seeks(const struct graph_ctx *ctx, size_t panel,
		       struct series_set *out)
{
	(void)panel;
	return build_device_lines(ctx, out, DEVICE_SEEKS);
}


/* The distinct devices with I/O (Q, D or C) across traces. */
size_t graph_traced_devices(const struct graph_ctx *ctx, uint32_t *out,
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
void graph_devices_note(const struct graph_ctx *ctx, char *buf, size_t len)
{
	uint32_t devs[MAX_DEVICE_PANELS];
	size_t n = graph_traced_devices(ctx, devs, MAX_DEVICE_PANELS);
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
void graph_title_line(const struct graph_ctx *ctx, size_t p, char *buf,
		       size_t len)
{
	const struct graph_def *g = ctx->graph;
	char note[64];

	if (ctx->in_device_panel) {
		snprintf(buf, len, "%s, device %u,%u", g->title,
			 blk_dev_major(ctx->panel_device),
			 blk_dev_minor(ctx->panel_device));
	} else {
		graph_devices_note(ctx, note, sizeof(note));
		snprintf(buf, len, "%s%s", g->title, note);
	}
	(void)p;
}

/* A line graph: one panel, or one per device with --per-device. */
size_t graph_line_panels(const struct graph_ctx *ctx)
{
	uint32_t devs[MAX_DEVICE_PANELS];
	size_t n;

	if (!ctx->opts->per_device)
		return 1;
	n = graph_traced_devices(ctx, devs, MAX_DEVICE_PANELS);
	return n ? n : 1;
}
