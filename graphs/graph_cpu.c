/*
 * graph_cpu.c: CPU use from mpstat beside the trace, and fio's
 * bandwidth logs.
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

/* ---- CPU use (mpstat beside the trace) and fio's bandwidth logs ---- */

size_t graph_cpu_panels(const struct graph_ctx *ctx)
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
		graph_series_label(ctx, t, -1, "all CPUs", label, sizeof(label));
		if (!series_own_x(out, t, label, graph_trace_color(ctx, t),
				  cs->all.n))
			return -1;
		graph_series_label(ctx, t, -1, "least busy CPU", label,
			     sizeof(label));
		if (!series_own_x(out, t, label, graph_trace_color(ctx, t),
				  cs->all.n))
			return -1;
		graph_series_label(ctx, t, -1, "busiest CPU", label, sizeof(label));
		if (!series_own_x(out, t, label, graph_trace_color(ctx, t),
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
size_t graph_cpu_stack_panels(const struct graph_ctx *ctx)
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
int graph_build_cpu_stack(const struct graph_ctx *ctx, size_t panel,
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
		graph_series_label(ctx, t, -1, what, label, sizeof(label));
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
void graph_title_cpu(const struct graph_ctx *ctx, size_t p, char *buf,
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
int graph_build_cpu_field(const struct graph_ctx *ctx, size_t panel,
			   struct series_set *out)
{
	(void)panel;
	return build_cpu(ctx, out, (enum cpustat_field)ctx->graph->field);
}

size_t graph_fio_panels(const struct graph_ctx *ctx)
{
	return ctx->n_traces && ctx->traces[0].n_fio ? 1 : 0;
}

/* fio's bandwidth per log and direction, KiB/s drawn as MB/s. */
int graph_build_fio(const struct graph_ctx *ctx, size_t panel,
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
