/*
 * graphs.h: the graph table. A graph is a name (the -O / -N word), a
 * title, an axis label, the quantities its numbers are in (series.h),
 * and functions that build its series from the analyses and draw them on
 * a panel. The CLI, --help, the man page, the pictures, the CSV export
 * and the tests all read this one table.
 */
#ifndef IOWATCHER_GRAPHS_H
#define IOWATCHER_GRAPHS_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "options.h"
#include "plot.h"
#include "series.h"
#include "trace_result.h"

struct graph_def;

/*
 * What a line graph does with the devices of a trace that has several:
 * draws them apart (a line per device), adds them up (bytes and I/Os
 * per second), or pools their bios into one distribution (latency and
 * its percentiles, sizes), which is not a sum.
 */
enum device_merge {
	DEVICES_APART,
	DEVICES_SUMMED,
	DEVICES_POOLED,
};

/* What every graph function is given. */
struct graph_ctx {
	const struct options *opts;
	const struct trace_result *traces;
	size_t n_traces;
	double x_min, x_max;	/* the time axis of every panel, s */
	const struct graph_def *graph;	/* the graph being built or drawn */
	int tagged;		/* any trace carries tags */
	int both_dirs;		/* some trace has reads and writes */
	int multi_device;	/* some trace has I/O on several devices */
	/* --per-device: the device whose panel is being built (line graphs
	 * then read each trace's analysis of that device alone) */
	int in_device_panel;
	uint32_t panel_device;
};

/* What a graph needs from the analysis beyond its bins (graph_def.needs):
 * each D2C as a point (the scatter), request sizes per bin, the kernel
 * stacks the causes keep. */
#define GRAPH_NEEDS_POINTS	1u
#define GRAPH_NEEDS_SIZES	2u
#define GRAPH_NEEDS_STACKS	4u

struct graph_def {
	const char *name;
	const char *title;
	const char *y_label;
	const char *help;	/* one line for --help and the man page */
	int default_on;
	unsigned needs;		/* GRAPH_NEEDS_*: asked once, of every graph */
	/* Panels this graph needs (the io graph: one per device); 0: none. */
	size_t (*panels)(const struct graph_ctx *ctx);
	/* Line graphs: the series drawn, also what --csv writes; -1 out
	 * of memory (graph_build says so). */
	int (*build)(const struct graph_ctx *ctx, size_t panel,
		     struct series_set *out);
	/* A draw-only graph (no build): the cells its raster shows. */
	enum graph_cells cells;
	/* Draws panel i; NULL draws the built series as lines. */
	int (*draw)(const struct graph_ctx *ctx, size_t panel,
		    struct plot_panel *pp, struct iow_error *err);
	/* Panel i's title when it is more than the graph's (a device, a
	 * trace, a tag class); ctx->graph is the graph. NULL: the line
	 * graphs' (a device with --per-device, a sum of devices). */
	void (*panel_title)(const struct graph_ctx *ctx, size_t panel,
			    char *buf, size_t len);
	/* The y label when it depends on the data (the io graph's unit). */
	const char *(*y_label_for)(const struct graph_ctx *ctx, size_t panel);
	/* What y is in: its unit in files, how its axis is labelled. */
	enum quantity y;
	/* y is a latency: --latency-axis chooses a log or linear axis */
	int latency_axis;
	/* Panel i's x axis when it is not time: its label. */
	const char *x_label;
	/*
	 * Series with x of their own, not the trace's bins (mpstat's
	 * samples, latency buckets): what x is, and its name ("time",
	 * "latency_lo": the CSV's column time_s, latency_lo_us). NULL: x is
	 * the trace's bins.
	 */
	const char *x_name;
	enum quantity x;
	/* Each x the middle of a window this long (mpstat's second): files
	 * write its start and span, as the bins' rows, and pictures draw
	 * each as a step over its span. 0: points. */
	double x_span_s;
	/* Its panels (a trace each) share the y axis, so that they compare. */
	int share_y;
	/* What an empty panel says when the traces had I/O ("no seeks");
	 * NULL: "no I/O in range". */
	const char *empty_note;
	int field;		/* a parameter for build (the mpstat column) */
	/* What it does with a trace's several devices, which its title
	 * then says (--per-device draws it once per device instead). */
	enum device_merge devices;
	/* Its values are unknown where events were lost (latency, depth,
	 * seeks): a bin that overlaps a loss window has none (NaN), never
	 * what the loss made of it. */
	int lossy_unknown;
};

/*
 * What one line or one raster colour stands for: a trace's reads or
 * writes, or one of its top tags (the rest of its tags share "other").
 * The movie colours its I/O by the same rule as the still graphs.
 */
struct io_class {
	char label[128];
	int color;
	size_t trace;
	int dir;		/* DIR_READ, DIR_WRITE, or -1 (a tag class) */
};

struct class_list {
	struct io_class *items;
	size_t n;
	size_t **slot_class;	/* per trace: tag slot -> class, or SIZE_MAX */
};

/* Fills cl (free it with class_list_free even on failure). */
int build_classes(const struct graph_ctx *ctx, struct class_list *cl);
void class_list_free(struct class_list *cl, size_t n_traces);

extern const struct graph_def graph_table[];
extern const size_t graph_table_len;

const struct graph_def *graph_find(const char *name);

/* The most graphs one page draws: the table has fewer rows than this,
 * so -O and -N can never leave more. */
#define GRAPHS_MAX_SELECTED	64

/* The graphs -O and -N leave, in table order; count in *n. */
size_t graphs_selected(const struct options *o, const struct graph_def **out,
		       size_t max);
/* What the graphs -O and -N leave need from the analysis: GRAPH_NEEDS_*
 * of every one, or-ed. */
unsigned graphs_needs(const struct options *o);

void graph_ctx_init(struct graph_ctx *ctx, const struct options *o,
		    const struct trace_result *traces, size_t n);

/*
 * Makes panel p of graph g the one ctx builds or draws: sets ctx->graph
 * and, for a line graph's panel with --per-device, the panel's device
 * (ctx->in_device_panel, ctx->panel_device). Every picture and --csv
 * select panels this way.
 */
void graph_select_panel(struct graph_ctx *ctx, const struct graph_def *g,
			size_t p);
/* Panel p's series of ctx->graph (a line graph) into out; -1 with err. */
int graph_build(const struct graph_ctx *ctx, size_t panel,
		struct series_set *out, struct iow_error *err);

/*
 * IOWATCHER_LAYOUT=FILE appends where each panel's plot area landed
 * ("graph panel x y w h xmin xmax title", in page units: px, and for a
 * movie's small graphs px at the default 720 px height), so tests can
 * look at the pixels where the data says there is, or is not, I/O.
 * NULL when unset.
 */
FILE *graph_layout_file(void);

/*
 * Panel i of the graph ctx->graph in the rectangle r of page, as every
 * picture draws it: title, axes, legend and series (the movie's small
 * graphs too). With layout, appends where its plot area landed (see
 * IOWATCHER_LAYOUT); with out, *out gets the panel (NULL if the page
 * could not add it: the page keeps why).
 */
int graph_draw_panel(const struct graph_ctx *ctx, size_t panel,
		     struct plot_page *page, struct plot_rect r, FILE *layout,
		     struct plot_panel **out, struct iow_error *err);

/* Whether the graphs o draws need each I/O's latency (the scatter):
 * trace_result.points, kept as the analysis counts. */
int graphs_want_points(const struct options *o);
/* Whether they read the bins' request sizes (the size graph). */
int graphs_want_sizes(const struct options *o);

/* ---- what the report reads of a graph, beside its series ---- */

/* Panel p's title and y label, as its picture says them. */
void graph_panel_title(const struct graph_ctx *ctx, size_t panel, char *buf,
		       size_t len);
const char *graph_y_label(const struct graph_ctx *ctx, size_t panel);
/* Whether a panel of these series has a log y axis (--latency-axis). */
int graph_log_y(const struct graph_ctx *ctx, const struct series_set *set);
/* The page's title, and the loss it had, as the pictures write it. */
void graph_page_title(const struct options *o,
		      const struct trace_result *traces, size_t n, char *buf,
		      size_t len);

/* Panel p of a graph of I/O map cells: its device, its trace (the offset
 * heat map's; SIZE_MAX: every trace), its offsets and their unit. */
struct map_panel {
	uint32_t device;
	size_t trace;
	double lo_mib, hi_mib;	/* the y axis, in MiB */
	double unit_mib;	/* MiB per unit of the axis */
	const char *unit_name;	/* its label: "offset (GiB)" */
};
/* Fills d; 0 when there is no such panel. */
int graph_map_panel(const struct graph_ctx *ctx, size_t p,
		    struct map_panel *d);
/* The slot of device in a's devices and maps, or -1. */
long graph_device_slot(const struct analysis *a, uint32_t device);

/* Panel p of a graph of latency cells: a trace's ops in dirs, or its
 * tag class cls (>= 0); the latency axis every panel shares, in ns. */
struct heat_panel {
	size_t trace;
	int dirs;
	long cls;
	double lo_ns, hi_ns;
};
/* Fills d; 0 when there is no such panel or nothing to show. */
int graph_heat_panel(const struct graph_ctx *ctx,
		     const struct class_list *cl, size_t p,
		     struct heat_panel *d);
/*
 * Panel p's completions per time bin and latency row, at the bins the
 * analysis has now, rows log-spaced from d->lo_ns to d->hi_ns: an array
 * [*rows][bins], malloc'd (NULL out of memory). op >= 0: that op only.
 */
uint32_t *graph_heat_cells(const struct graph_ctx *ctx,
			   const struct class_list *cl, size_t p,
			   const struct heat_panel *d, int op, int *rows);

/* Draw every selected graph into o->output. */
int graphs_render(const struct options *o, const struct trace_result *traces,
		  size_t n, struct iow_error *err);

/* The picture, a row of the outputs' table (picture.c). */
extern const struct output_ops picture_output;

#endif
