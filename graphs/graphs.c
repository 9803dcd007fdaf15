/*
 * graphs.c: the graph table, each graph an entry (graph_def: its name,
 * title, quantity, and the functions that count its panels, build its
 * series or draw it), and its lookup and selection (-O, -N). The graphs
 * themselves are in graph_*.c, a file per kind, sharing graph_int.h.
 * Series colours follow one rule everywhere: one trace without tags
 * draws reads in colour 0 and writes in colour 1; several traces get a
 * colour each (writes in its lighter, dashed variant); with tags, the
 * top N tags by bytes get a colour each, the same in every graph, and
 * the rest are "other"; untagged I/O is grey.
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

/* ---- the table ---- */

/* The mpstat columns apart: a row each, alike but for these. */
#define CPU_GRAPH(graph, what, label, column, text) \
	{ .name = graph, .title = "CPU: " what, .y_label = label, \
	  .help = text, .panels = graph_cpu_panels, \
	  .build = graph_build_cpu_field, .field = column, .x_name = "time", \
	  .x = QTY_SECONDS, .x_span_s = MPSTAT_INTERVAL_S, .y = QTY_PERCENT }

const struct graph_def graph_table[] = {
	{ .name = "io", .title = "I/O offsets", .y_label = "offset",
	  .help = "where on the device I/O went, against time (one panel per device)",
	  .default_on = 1, .panels = graph_io_panels, .panel_title = graph_title_device,
	  .draw = graph_draw_io, .cells = CELLS_IO_MAP,
	  .y_label_for = graph_io_y_label },
	{ .name = "tput", .title = "Throughput", .y_label = "throughput",
	  .help = "completed MB per second, reads and writes",
	  .default_on = 1, .panels = graph_line_panels, .devices = DEVICES_SUMMED,
	  .build = graph_build_tput,
	  .y = QTY_MB_PER_S },
	{ .name = "iops", .title = "IOPS", .y_label = "I/Os per second",
	  .help = "completed I/Os per second, reads and writes",
	  .default_on = 1, .panels = graph_line_panels, .devices = DEVICES_SUMMED,
	  .build = graph_build_iops, .y = QTY_IOS_PER_S },
	{ .name = "latency", .title = "Device latency (D2C)",
	  .y_label = "latency",
	  .help = "D2C mean per bin, with p50-p90-p99 bands and max",
	  .default_on = 1, .panels = graph_line_panels, .devices = DEVICES_POOLED,
	  .build = graph_build_latency, .lossy_unknown = 1,
	  .latency_axis = 1,
	  .y = QTY_LATENCY },
	{ .name = "queue-depth", .title = "Queue depth",
	  .y_label = "requests in flight",
	  .help = "requests issued and not completed, time-weighted",
	  .default_on = 1, .panels = graph_line_panels, .build = graph_build_queue_depth,
	  .lossy_unknown = 1, .y = QTY_REQUESTS },
	{ .name = "seeks", .title = "Seeks", .y_label = "seeks per second",
	  .help = "issued requests not starting where the previous one ended",
	  .default_on = 1, .panels = graph_line_panels, .build = graph_build_seeks,
	  .lossy_unknown = 1,
	  .empty_note = "no seeks", .y = QTY_SEEKS_PER_S },
	{ .name = "q2d-d2c", .title = "Where the time goes (Q2D + D2C)",
	  .y_label = "mean time per I/O",
	  .help = "mean time in the block layer (Q2D) and device (D2C), stacked",
	  .panels = graph_line_panels, .devices = DEVICES_POOLED,
	  .build = graph_build_q2d_d2c, .lossy_unknown = 1,
	  .latency_axis = 1,
	  .y = QTY_LATENCY },
	{ .name = "latency-heatmap", .title = "Latency heat map (D2C)",
	  .y_label = "latency (log scale)",
	  .help = "completions per time bin and latency bucket (log scale)",
	  .devices = DEVICES_POOLED,
	  .panels = graph_heat_panels, .panel_title = graph_title_heat,
	  .draw = graph_draw_latency_heatmap, .cells = CELLS_LATENCY,
	  .y = QTY_LATENCY },
	{ .name = "latency-scatter", .title = "Latency of each I/O (D2C)",
	  .y_label = "latency",
	  .help = "every completion at its time and D2C, density-shaded",
	  .devices = DEVICES_POOLED,
	  .panels = graph_heat_panels, .panel_title = graph_title_heat,
	  .draw = graph_draw_latency_scatter, .cells = CELLS_LATENCY_POINTS,
	  .needs = GRAPH_NEEDS_POINTS,
	  .y = QTY_LATENCY },
	{ .name = "latency-hist", .title = "Latency histogram (D2C)",
	  .y_label = "% of each line's I/Os",
	  .help = "D2C in log2 buckets, as shares of each line's I/Os, one line per trace and direction",
	  .panels = graph_line_panels, .devices = DEVICES_POOLED,
	  .build = graph_build_latency_hist,
	  .x_label = "latency", .x_name = "latency_lo", .x = QTY_LATENCY,
	  .y = QTY_PERCENT },
	{ .name = "offset-heatmap", .title = "Bytes by offset and time",
	  .y_label = "offset",
	  .help = "bytes per time bin and offset row, as a heat map",
	  .panels = graph_offset_panels, .panel_title = graph_title_offset,
	  .draw = graph_draw_offset_heatmap, .cells = CELLS_IO_BYTES,
	  .y_label_for = graph_io_y_label },
	{ .name = "cpu", .title = "CPU time", .y_label = "% of CPU time",
	  .help = "CPU time from NAME.mpstat beside the trace, stacked as mpstat breaks it down",
	  .default_on = 1, .panels = graph_cpu_stack_panels,
	  .panel_title = graph_title_cpu, .build = graph_build_cpu_stack,
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
	  .default_on = 1, .panels = graph_fio_panels, .build = graph_build_fio,
	  .x_name = "time", .x = QTY_SECONDS, .y = QTY_MB_PER_S },
	{ .name = "top-files", .title = "Files by bytes",
	  .y_label = NULL, .x_label = "bytes",
	  .help = "the files the bpf recorder saw, by bytes read and written, with their bios and Q2C",
	  .default_on = 1, .panels = graph_top_files_panels,
	  .panel_title = graph_title_top_files, .draw = graph_draw_top_files },
	{ .name = "io-flame", .title = "I/O flame graph",
	  .y_label = NULL, .x_label = "share",
	  .help = "bytes and Q2C time by process and kernel stack, per device and direction (bpf recordings)",
	  .panels = graph_flame_panels, .panel_title = graph_title_flame,
	  .draw = graph_draw_flame, .needs = GRAPH_NEEDS_STACKS },
	{ .name = "size", .title = "Request size", .y_label = "request size",
	  .help = "request size per bin: median line, p90 band edge",
	  .panels = graph_line_panels, .devices = DEVICES_POOLED,
	  .build = graph_build_size, .y = QTY_SIZE, .needs = GRAPH_NEEDS_SIZES },
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

unsigned graphs_needs(const struct options *o)
{
	const struct graph_def *sel[GRAPHS_MAX_SELECTED];
	size_t n = graphs_selected(o, sel, GRAPHS_MAX_SELECTED), i;
	unsigned needs = 0;

	for (i = 0; i < n; i++)
		needs |= sel[i]->needs;
	return needs;
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

/* ---- what the report reads of a graph, beside its series ---- */

void graph_panel_title(const struct graph_ctx *ctx, size_t panel, char *buf,
		       size_t len)
{
	if (ctx->graph->panel_title)
		ctx->graph->panel_title(ctx, panel, buf, len);
	else
		graph_title_line(ctx, panel, buf, len);
}

const char *graph_y_label(const struct graph_ctx *ctx, size_t panel)
{
	const struct graph_def *g = ctx->graph;

	return g->y_label_for ? g->y_label_for(ctx, panel) : g->y_label;
}

int graph_map_panel(const struct graph_ctx *ctx, size_t p,
		    struct map_panel *d)
{
	uint32_t devs[MAX_IO_PANELS];
	long slot;

	memset(d, 0, sizeof(*d));
	d->trace = SIZE_MAX;
	if (ctx->graph->cells == CELLS_IO_BYTES) {
		if (!graph_offset_panel(ctx, p, &d->device, &d->trace, &slot))
			return 0;
	} else if (graph_io_devices(ctx, devs, MAX_IO_PANELS) > p) {
		d->device = devs[p];
	} else {
		return 0;
	}
	graph_io_extent(ctx, d->device, &d->lo_mib, &d->hi_mib);
	d->unit_mib = graph_offset_unit(d->hi_mib, &d->unit_name);
	return 1;
}

int graph_heat_panel(const struct graph_ctx *ctx,
		     const struct class_list *cl, size_t p,
		     struct heat_panel *d)
{
	struct heat_source src;

	memset(d, 0, sizeof(*d));
	if (!graph_heat_source_of(ctx, cl, p, &src) || !graph_has_completions(&src) ||
	    graph_latency_extent(ctx, ctx->opts->latency_dirs, &d->lo_ns,
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

	if (!graph_heat_source_of(ctx, cl, p, &src))
		return NULL;
	if (op >= 0)
		src.dirs = 1 << op;
	return graph_latency_cells(&src, d->lo_ns, d->hi_ns, rows);
}
