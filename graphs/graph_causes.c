/*
 * graph_causes.c: the pictures of causes (graphs.h's table rows io-flame
 * and top-files), from the sums per cause the analysis keeps (causesum.h)
 * where the recorder kept causes beside the trace:
 *   io-flame: icicles (flame graphs, root at the top) per trace, device
 *     and direction, of the bytes and of the summed Q2C time ("where the
 *     waiting comes from"): the process credited, then the kernel stack
 *     from its outer frames in;
 *   top-files: the files by bytes, read and written, with their bios and
 *     mean and p99 Q2C.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/blktrace.h"
#include "tag/causesum.h"
#include "graph_int.h"
#include "flame_tree.h"
#include "analysis/histogram.h"

#define FLAME_MIN_ROW_PX	12	/* rows lower than this: cut deeper */
#define FLAME_MIN_BOX_PX	3	/* narrower siblings are merged */
#define TOP_FILES		12

/* ---- which panels ---- */

/* A trace's causes, where the recorder kept them with part (the files,
 * the stacks: ftrace's causes have neither). */
static const struct cause_table *causes_of(const struct graph_ctx *ctx,
					   size_t t, enum cause_part part)
{
	const struct cause_table *c = ctx->traces[t].causes;

	return c && cause_table_kept(c, part) ? c : NULL;
}

enum flame_metric { FLAME_BYTES, FLAME_Q2C, N_FLAME_METRICS };

struct flame_panel {
	size_t trace;
	uint32_t device;
	int op;
	enum flame_metric metric;
	double total;
};

static double stack_value(const struct stack_sums *s, int op,
			  enum flame_metric m)
{
	return m == FLAME_BYTES ? (double)s->bytes[op] : s->q2c_sum_ns[op];
}

/*
 * Panel p of io-flame (or, with p = SIZE_MAX, how many there are): a
 * trace's devices in order, reads then writes, bytes then Q2C time,
 * those with anything to show.
 */
static size_t flame_panel(const struct graph_ctx *ctx, size_t p,
			  struct flame_panel *out)
{
	size_t t, k, n = 0, ns;
	const int ops[] = { OP_READ, OP_WRITE };

	for (t = 0; t < ctx->n_traces; t++) {
		const struct cause_table *c = causes_of(ctx, t,
							CAUSE_PART_STACKS);
		const struct analysis *a = &ctx->traces[t].analysis;
		struct stack_sums *s;
		size_t d;

		if (!c || causesum_stacks(a, c, &s, &ns) < 0)
			continue;
		for (d = 0; d < a->n_devices; d++) {
			size_t o;
			int m;

			for (o = 0; o < 2; o++)
				for (m = 0; m < N_FLAME_METRICS; m++) {
					double total = 0;

					for (k = 0; k < ns; k++)
						if (s[k].device ==
						    a->devices[d].device)
							total += stack_value(
								&s[k], ops[o],
								m);
					if (total <= 0)
						continue;
					if (n++ == p && out) {
						out->trace = t;
						out->device =
							a->devices[d].device;
						out->op = ops[o];
						out->metric = m;
						out->total = total;
						free(s);
						return n;
					}
				}
		}
		free(s);
	}
	return n;
}

size_t graph_flame_panels(const struct graph_ctx *ctx)
{
	return flame_panel(ctx, SIZE_MAX, NULL);
}

/* ---- the tree ---- */

/* The process, then its stack's frames from the outer ones in. */
static int add_path(struct flame_node *root, const struct cause_table *ct,
		    const struct stack_sums *s, double v)
{
	const char *comm = cause_comm(ct, s->pid), *frames = NULL;
	struct flame_node *n;
	char task[300];

	snprintf(task, sizeof(task), "%s (%u)", comm ? comm : "?", s->pid);
	root->value[0] += v;
	n = flame_kid(root, task, strlen(task), 1);
	if (!n)
		return -1;
	n->value[0] += v;
	if (s->kstack >= 0) {
		struct cause only = { .kstack = s->kstack };

		frames = cause_kstack(ct, &only);
	}
	return flame_add_stack(n, frames, 0, v);
}

/* Flame graphs' warm colours, a frame's from its name (the same name,
 * the same colour on every panel); processes in blues. */
static struct plot_rgb frame_color(const char *name, int is_task)
{
	uint32_t h = 2166136261u;
	double t;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	t = (double)(h % 1000) / 1000.0;
	if (is_task)
		return (struct plot_rgb){ 0.55 + 0.2 * t, 0.72 + 0.12 * t,
					  0.92 };
	return (struct plot_rgb){ 0.93, 0.45 + 0.4 * t, 0.2 + 0.25 * t };
}

static struct plot_rgb node_color(const struct flame_node *n)
{
	return frame_color(n->name, n->is_task);
}

static void format_percent(double v, const struct plot_tick_context *ctx,
			   char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "%g%%", v);
}

static void flame_total(const struct flame_panel *f, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB",
					     "TiB" };
	double v = f->total;
	int u = 0;

	if (f->metric == FLAME_Q2C) {
		if (v >= 1e9)
			snprintf(buf, len, "%.3g s", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, len, "%.3g ms", v / 1e6);
		else
			snprintf(buf, len, "%.3g us", v / 1e3);
		return;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.3g %s", v, units[u]);
}

void graph_title_flame(const struct graph_ctx *ctx, size_t p, char *buf,
		 size_t len)
{
	struct flame_panel f;
	char total[32];

	if (!flame_panel(ctx, p, &f)) {
		snprintf(buf, len, "%s", ctx->graph->title);
		return;
	}
	flame_total(&f, total, sizeof(total));
	snprintf(buf, len, "%s%s%s: %s %s, device %u,%u (%s)",
		 ctx->n_traces > 1 ? ctx->traces[f.trace].label : "",
		 ctx->n_traces > 1 ? " " : "", ctx->graph->title,
		 f.metric == FLAME_BYTES ? "bytes" : "Q2C time of the bios",
		 f.op == OP_READ ? "read" : "written",
		 blk_dev_major(f.device), blk_dev_minor(f.device), total);
}

int graph_draw_flame(const struct graph_ctx *ctx, size_t p, struct plot_panel *pp,
	       struct iow_error *err)
{
	struct flame_node root = { 0 };
	struct flame_boxes boxes = { 0 };
	struct stack_sums *s = NULL;
	struct flame_panel f;
	struct plot_rect area;
	size_t ns, k;
	int rows, depth, r = -1;
	char note[64];

	plot_panel_set_x(pp, 0, 100);
	plot_panel_set_x_format(pp, format_percent);
	plot_panel_set_y_none(pp);
	if (!flame_panel(ctx, p, &f)) {
		plot_panel_note(pp, "no causes recorded with this trace");
		return 0;
	}
	if (causesum_stacks(&ctx->traces[f.trace].analysis,
			    causes_of(ctx, f.trace, CAUSE_PART_STACKS), &s,
			    &ns) < 0)
		return iow_fail(err, "out of memory building io-flame");
	for (k = 0; k < ns; k++) {
		double v = stack_value(&s[k], f.op, f.metric);

		if (s[k].device == f.device && v > 0 &&
		    add_path(&root, causes_of(ctx, f.trace, CAUSE_PART_STACKS),
			     &s[k], v) < 0)
			goto out;
	}
	area = plot_panel_area(pp);
	rows = (int)(area.h / FLAME_MIN_ROW_PX);
	depth = flame_depth(&root) + 1;
	if (rows > depth)
		rows = depth;
	if (flame_box(&boxes, 0, 1, 0, "all",
		      (struct plot_rgb){ 0.75, 0.75, 0.75 }) < 0 ||
	    flame_layout(&boxes, &root, 0, 1 / root.value[0], 1, rows,
			 FLAME_MIN_BOX_PX / area.w, node_color) < 0)
		goto out;
	plot_icicle(pp, boxes.items, boxes.n, rows);
	if (depth > rows) {
		snprintf(note, sizeof(note), "the %d innermost levels not shown",
			 depth - rows);
		plot_legend_text(pp, note);
	}
	r = 0;
out:
	if (r < 0)
		iow_fail(err, "out of memory building io-flame");
	flame_clear(&root);
	flame_boxes_free(&boxes);
	free(s);
	return r;
}

/* ---- top files ---- */

size_t graph_top_files_panels(const struct graph_ctx *ctx)
{
	size_t t, n = 0;

	for (t = 0; t < ctx->n_traces; t++)
		n += causes_of(ctx, t, CAUSE_PART_FILES) != NULL &&
		     ctx->traces[t].analysis.n_ledger;
	return n;
}

/* The trace of top-files panel p. */
static size_t top_files_trace(const struct graph_ctx *ctx, size_t p)
{
	size_t t;

	for (t = 0; t < ctx->n_traces; t++)
		if (causes_of(ctx, t, CAUSE_PART_FILES) &&
		    ctx->traces[t].analysis.n_ledger &&
		    p-- == 0)
			return t;
	return 0;
}

void graph_title_top_files(const struct graph_ctx *ctx, size_t p, char *buf,
		     size_t len)
{
	size_t t = top_files_trace(ctx, p);

	snprintf(buf, len, "%s%s%s", ctx->n_traces > 1 ?
		 ctx->traces[t].label : "", ctx->n_traces > 1 ? " " : "",
		 ctx->graph->title);
}

/* A file's bytes read, and written or discarded: its bar's two parts. */
static double file_read_bytes(const struct file_sums *f)
{
	return (double)f->bytes[OP_READ];
}

static double file_written_bytes(const struct file_sums *f)
{
	return (double)(f->bytes[OP_WRITE] + f->bytes[OP_DISCARD]);
}

/*
 * The most bytes of one file in any trace: every trace's panel has its
 * axis up to it, so that the traces' bars compare by their length.
 * Returns -1 out of memory.
 */
static int top_files_peak(const struct graph_ctx *ctx, double *peak)
{
	size_t p, panels = graph_top_files_panels(ctx), n, i;
	struct file_sums *f;

	*peak = 0;
	for (p = 0; p < panels; p++) {
		size_t t = top_files_trace(ctx, p);

		if (causesum_files(&ctx->traces[t].analysis,
				   causes_of(ctx, t, CAUSE_PART_FILES), &f,
				   &n) < 0)
			return -1;
		for (i = 0; i < n; i++)
			*peak = fmax(*peak, file_read_bytes(&f[i]) +
					    file_written_bytes(&f[i]));
		causesum_free_files(f, n);
	}
	return 0;
}

/* "1.5 ms" */
static void short_time(double ns, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g us", ns / 1e3);
}

int graph_draw_top_files(const struct graph_ctx *ctx, size_t p,
		   struct plot_panel *pp, struct iow_error *err)
{
	size_t t = top_files_trace(ctx, p), n, i, rows;
	const int colors[2] = { 0, 1 };	/* read, write: as io draws them */
	const char *labels[TOP_FILES], *notes[TOP_FILES];
	char note_buf[TOP_FILES][96];
	double values[TOP_FILES * 2], top;
	struct file_sums *f;
	const char *legend[2] = { "read", "written" };

	if (top_files_peak(ctx, &top) < 0 ||
	    causesum_files(&ctx->traces[t].analysis,
			   causes_of(ctx, t, CAUSE_PART_FILES), &f,
			   &n) < 0)
		return iow_fail(err, "out of memory building top-files");
	rows = n < TOP_FILES ? n : TOP_FILES;
	for (i = 0; i < rows; i++) {
		char mean[24], p99[24];

		labels[i] = f[i].label;
		values[2 * i] = file_read_bytes(&f[i]);
		values[2 * i + 1] = file_written_bytes(&f[i]);
		short_time(file_q2c_mean_ns(&f[i]), mean, sizeof(mean));
		short_time(file_q2c_p99_ns(&f[i]), p99, sizeof(p99));
		snprintf(note_buf[i], sizeof(note_buf[i]),
			 "%llu bios, Q2C %s mean, %s p99",
			 (unsigned long long)f[i].bios, mean, p99);
		notes[i] = note_buf[i];
	}
	plot_panel_set_x(pp, 0, top > 0 ? top * 1.02 : 1);
	plot_panel_set_x_format(pp, plot_format_bytes);
	plot_panel_set_x_binary(pp);
	plot_panel_set_y_none(pp);
	plot_legend(pp, legend, colors, 2);
	if (rows)
		plot_hbars(pp, labels, values, rows, 2, colors, notes);
	else
		plot_panel_note(pp, "no file I/O timed");
	if (n > rows) {
		char more[48];

		snprintf(more, sizeof(more), "%zu more files (--summary)",
			 n - rows);
		plot_legend_text(pp, more);
	}
	causesum_free_files(f, n);
	return 0;
}
