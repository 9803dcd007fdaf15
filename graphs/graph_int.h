/*
 * graph_int.h: what the pieces of the graph table share (graphs.c
 * and graph_*.c): the palette's rules, the types and the functions one
 * piece defines and another reads. Not for the stages after graphs: they
 * read graphs.h.
 */
#ifndef IOWATCHER_GRAPH_INT_H
#define IOWATCHER_GRAPH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "graphs.h"

#define DEFAULT_GRAPH_WIDTH	760
#define DEFAULT_GRAPH_HEIGHT	300
#define LIGHTER			8	/* palette offset: same hue, dashed */
#define OTHER_COLOR		7	/* black/grey: "other" tags */
/* Grey: I/O the tagger left untagged, apart from every tag's hue. */
#define UNTAGGED_COLOR		(OTHER_COLOR + LIGHTER)
/* panels at most: one per device (lines, the io graph) */
#define MAX_DEVICE_PANELS 16
#define MAX_IO_PANELS 16
/* mpstat's interval as iowatcher runs it */
#define MPSTAT_INTERVAL_S 1.0

struct heat_source {
	const struct analysis *a;
	int dirs;
	const struct class_list *cl;
	size_t trace;
	long cls;
};

/* graph_classes.c */
int graph_dir_color(const struct graph_ctx *ctx, size_t t, int op);
int graph_op_shown(const struct graph_ctx *ctx, int op);
const struct analysis *graph_trace_analysis(const struct graph_ctx *ctx, size_t t);

/* graph_lines.c */
int graph_build_iops(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_latency(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_q2d_d2c(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_queue_depth(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_seeks(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_size(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_tput(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
uint64_t graph_d2c_count(const struct analysis *a, int d);
void graph_devices_note(const struct graph_ctx *ctx, char *buf, size_t len);
int graph_in_class(const struct class_list *cl, size_t t, size_t s, size_t ci);
size_t graph_line_panels(const struct graph_ctx *ctx);
struct graph_series *graph_series_add(const struct graph_ctx *ctx,
	struct series_set *s, size_t t, const char *label, int color);
void graph_series_label(const struct graph_ctx *ctx, size_t t, int d,
	const char *what, char *buf, size_t len);
int graph_series_resize(struct graph_series *g, size_t n);
void graph_title_line(const struct graph_ctx *ctx, size_t p, char *buf, size_t len);
int graph_trace_color(const struct graph_ctx *ctx, size_t t);
size_t graph_traced_devices(const struct graph_ctx *ctx, uint32_t *out, size_t max);

/* graph_io.c */
int graph_draw_io(const struct graph_ctx *ctx, size_t panel, struct plot_panel *pp,
	struct iow_error *err);
size_t graph_io_devices(const struct graph_ctx *ctx, uint32_t *out, size_t max);
void graph_io_extent(const struct graph_ctx *ctx, uint32_t device, double *lo_mib,
	double *hi_mib);
size_t graph_io_panels(const struct graph_ctx *ctx);
const char *graph_io_y_label(const struct graph_ctx *ctx, size_t panel);
double graph_offset_unit(double hi_mib, const char **name);
void graph_title_device(const struct graph_ctx *ctx, size_t p, char *buf,
	size_t len);

/* graph_latency.c */
int graph_build_latency_hist(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_draw_latency_heatmap(const struct graph_ctx *ctx, size_t panel,
	struct plot_panel *pp, struct iow_error *err);
int graph_draw_latency_scatter(const struct graph_ctx *ctx, size_t panel,
	struct plot_panel *pp, struct iow_error *err);
int graph_draw_offset_heatmap(const struct graph_ctx *ctx, size_t panel,
	struct plot_panel *pp, struct iow_error *err);
int graph_has_completions(const struct heat_source *src);
size_t graph_heat_panels(const struct graph_ctx *ctx);
int graph_heat_source_of(const struct graph_ctx *ctx, const struct class_list *cl,
	size_t p, struct heat_source *src);
uint32_t *graph_latency_cells(const struct heat_source *src, double lo, double hi,
	int *rows_out);
int graph_latency_extent(const struct graph_ctx *ctx, int dirs, double *lo,
	double *hi);
int graph_offset_panel(const struct graph_ctx *ctx, size_t p, uint32_t *dev,
	size_t *trace, long *slot);
size_t graph_offset_panels(const struct graph_ctx *ctx);
void graph_title_heat(const struct graph_ctx *ctx, size_t p, char *buf, size_t len);
void graph_title_offset(const struct graph_ctx *ctx, size_t p, char *buf,
	size_t len);

/* graph_cpu.c */
int graph_build_cpu_field(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_cpu_stack(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
int graph_build_fio(const struct graph_ctx *ctx, size_t panel,
	struct series_set *out);
size_t graph_cpu_panels(const struct graph_ctx *ctx);
size_t graph_cpu_stack_panels(const struct graph_ctx *ctx);
size_t graph_fio_panels(const struct graph_ctx *ctx);
void graph_title_cpu(const struct graph_ctx *ctx, size_t p, char *buf, size_t len);

/* graph_causes.c: the pictures of causes, io-flame and top-files */
size_t graph_flame_panels(const struct graph_ctx *ctx);
void graph_title_flame(const struct graph_ctx *ctx, size_t p, char *buf,
		 size_t len);
int graph_draw_flame(const struct graph_ctx *ctx, size_t p, struct plot_panel *pp,
	       struct iow_error *err);

size_t graph_top_files_panels(const struct graph_ctx *ctx);
void graph_title_top_files(const struct graph_ctx *ctx, size_t p, char *buf,
		     size_t len);
int graph_draw_top_files(const struct graph_ctx *ctx, size_t p,
		   struct plot_panel *pp, struct iow_error *err);

#endif
