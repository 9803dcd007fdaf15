/*
 * graph_classes.c: classes, what one line or one raster colour stands
 * for (a direction, a trace, a tag, their mix), and their colours.
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

const struct analysis *graph_trace_analysis(const struct graph_ctx *ctx,
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

/*
 * The next colour of a tag class: the palette's hues after blue and
 * vermilion, which are reads and writes in every other graph (a writer
 * drawn blue beside a reader in vermilion read backwards), then the
 * shades furthest apart from them and from "other" and "untagged".
 */
static int next_tag_color(int *next_color)
{
	int k = (*next_color)++;

	return k < 5 ? 2 + k : plot_category_color(k + 2);
}

/*
 * The top tags of trace t (analysis_rank_tags: most bytes first, as the
 * summary lists them), each a class of a colour of its own in every
 * graph; the rest one "other" class.
 */
static int tag_classes(const struct graph_ctx *ctx, struct class_list *cl,
		       size_t t, int *next_color)
{
	const struct analysis *a = graph_trace_analysis(ctx, t);
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
int graph_dir_color(const struct graph_ctx *ctx, size_t t, int op)
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
int graph_op_shown(const struct graph_ctx *ctx, int op)
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

		if (graph_trace_analysis(ctx, t)->tagging) {
			if (tag_classes(ctx, cl, t, &next_color) < 0)
				return -1;
			continue;
		}
		for (d = 0; d < N_OPS; d++) {
			struct io_class *c;

			/* discards and flushes only where the trace has them */
			if (d >= OP_DISCARD &&
			    !analysis_op_ios(graph_trace_analysis(ctx, t), d))
				continue;
			if (!(c = class_add(cl)))
				return -1;
			c->trace = t;
			c->dir = d;
			name_class(ctx, c, t, io_op_name(d));
			c->color = graph_dir_color(ctx, t, d);
		}
	}
	return 0;
}
