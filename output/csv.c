/*
 * csv.c: the CSV export. Time series: a row per time bin (bin start and
 * span in seconds), a column per series, as drawn. Graphs drawn as
 * rasters (io, heat maps) export their cells, one row each. Every column
 * is named with the unit of its quantity, one per quantity across the
 * files (series.h: time_s, read_d2c_mean_us, write_mb_per_s,
 * offset_lo_bytes), each value to that unit's resolution (series.c).
 * Traces binned alike share rows, to the longest one's end. Every file
 * is written under a temporary name and renamed when complete; a graph
 * with no rows to write gets no file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "csv.h"
#include "graphs/graphs.h"
#include "analysis/histogram.h"
#include "base/outfile.h"

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * A value to the resolution of its unit (decimals, trailing zeros
 * dropped: 1.2288, 300), or to nine significant digits (decimals < 0):
 * never the binary noise of a float (11.7299995 for mpstat's 11.73).
 */
static void csv_number(FILE *f, double v, int decimals)
{
	char buf[64];
	size_t n;

	if (isnan(v))
		return;
	if (decimals < 0 || fabs(v) >= 1e15) {
		fprintf(f, "%.9g", v);
		return;
	}
	n = (size_t)snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (n >= sizeof(buf)) {
		fprintf(f, "%.9g", v);
		return;
	}
	if (strchr(buf, '.')) {
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
		if (buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	fputs(strcmp(buf, "-0") ? buf : "0", f);
}

/* Times and spans in seconds, to the nanosecond. */
static void csv_seconds(FILE *f, double s)
{
	csv_number(f, s, quantity_of(QTY_SECONDS)->decimals);
}

/*
 * A series' column: its label in lower case, other characters than
 * letters and digits as one '_' (bytes of UTF-8 kept), then the graph's
 * unit: "read D2C mean" -> "read_d2c_mean_us". A name already taken by
 * an earlier column (labels differing in punctuation only) gets "_2"...
 */
#define COLUMN_NAME_MAX 256

static void column_base(const struct graph_def *g, const char *s, char *buf)
{
	size_t n = 0;

	for (; *s && n + 1 < COLUMN_NAME_MAX; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 'A' && c <= 'Z')
			buf[n++] = (char)(c - 'A' + 'a');
		else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			 c >= 0x80)
			buf[n++] = (char)c;
		else if (n && buf[n - 1] != '_')
			buf[n++] = '_';
	}
	while (n && buf[n - 1] == '_')
		n--;
	buf[n] = '\0';
	if (quantity_of(g->y)->unit)
		snprintf(buf + n, COLUMN_NAME_MAX - n, "%s%s", n ? "_" : "",
			 quantity_of(g->y)->unit);
}

/* The header: every column's name, each compared with those before it. */
static int write_header(FILE *f, const struct graph_def *g,
			const struct series_set *set)
{
	char (*names)[COLUMN_NAME_MAX];
	size_t k, j;

	names = set->n ? malloc(set->n * sizeof(*names)) : NULL;
	if (set->n && !names)
		return -1;
	for (k = 0; k < set->n; k++) {
		size_t dup = 1, len;

		column_base(g, set->items[k].label, names[k]);
		for (j = 0; j < k; j++)
			dup += !strcmp(names[j], names[k]);
		len = strlen(names[k]);
		if (dup > 1)
			snprintf(names[k] + len, COLUMN_NAME_MAX - len, "_%zu",
				 dup);
		fprintf(f, ",%s", names[k]);
	}
	fputc('\n', f);
	free(names);
	return 0;
}

/* Whether two traces bin time alike: their rows can be shared. */
static int same_grid(const struct analysis *a, const struct analysis *b)
{
	return a->bin_width_ns == b->bin_width_ns &&
	       a->bin_origin_ns == b->bin_origin_ns;
}

/* Whether bin i of trace t is span long: its values go in that row. */
static int bin_in_row(const struct graph_ctx *ctx, size_t t,
		      const struct analysis *grid, size_t i, double span)
{
	const struct analysis *a = &ctx->traces[t].analysis;

	return same_grid(a, grid) && i < a->n_bins &&
	       analysis_bin_span_s(a, i) == span;
}

/* One row: bin i of the grid, span long, with the values of the series
 * whose trace's bin i is that. */
static void write_row(FILE *f, const struct graph_ctx *ctx,
		      const struct graph_def *g, const struct series_set *set,
		      const struct analysis *grid, size_t i, double span)
{
	const struct quantity_def *y = quantity_of(g->y);
	size_t k;

	csv_seconds(f, analysis_bin_start_s(grid, i));
	fputc(',', f);
	csv_seconds(f, span);
	for (k = 0; k < set->n; k++) {
		const struct graph_series *s = &set->items[k];

		fputc(',', f);
		if (i < s->n && bin_in_row(ctx, s->trace, grid, i, span))
			csv_number(f, s->y[i] * y->scale, y->decimals);
	}
	fputc('\n', f);
}

/*
 * The rows of the traces binned like trace first, up to the longest
 * one's end: a shorter trace's end does not cut the others' rows. A bin
 * one trace's end cuts short has a span of its own there: it gets a row
 * per span (same time_s), each with its traces' values, so that a value
 * times its row's span_s is always what its bin counted.
 */
static size_t write_grid_rows(FILE *f, const struct graph_ctx *ctx,
			      const struct graph_def *g,
			      const struct series_set *set, size_t first)
{
	const struct analysis *grid = &ctx->traces[first].analysis;
	size_t i, t, u, n_bins = 0, rows = 0;

	for (t = first; t < ctx->n_traces; t++)
		if (same_grid(grid, &ctx->traces[t].analysis) &&
		    ctx->traces[t].analysis.n_bins > n_bins)
			n_bins = ctx->traces[t].analysis.n_bins;
	for (i = 0; i < n_bins; i++)
		for (t = first; t < ctx->n_traces; t++) {
			const struct analysis *a = &ctx->traces[t].analysis;
			double span;

			if (!same_grid(grid, a) || i >= a->n_bins)
				continue;
			span = analysis_bin_span_s(a, i);
			for (u = first; u < t; u++)
				if (bin_in_row(ctx, u, grid, i, span))
					break;
			if (u < t)
				continue;	/* an earlier trace's row has it */
			write_row(f, ctx, g, set, grid, i, span);
			rows++;
		}
	return rows;
}

/* Rows by bin for time series: a block of rows per bin grid (traces may
 * have their own bin widths), in trace order. Returns the rows written,
 * or -1 out of memory. */
static long write_time_series(FILE *f, const struct graph_ctx *ctx,
				const struct graph_def *g,
				const struct series_set *set)
{
	size_t t, k, rows = 0;

	if (!set->n)
		return 0;
	fputs("time_s,span_s", f);
	if (write_header(f, g, set) < 0)
		return -1;
	for (t = 0; t < ctx->n_traces; t++) {
		for (k = 0; k < t; k++)
			if (same_grid(&ctx->traces[k].analysis,
				      &ctx->traces[t].analysis))
				break;
		if (k == t)
			rows += write_grid_rows(f, ctx, g, set, t);
	}
	return (long)rows;
}

/* Rows by x value for graphs whose x is not the bins (latency buckets,
 * mpstat's seconds: these a time_s and span_s as the bins' rows). Returns
 * the rows written, or -1 out of memory. */
static long write_x_series(FILE *f, const struct graph_def *g,
			     const struct series_set *set)
{
	const struct quantity_def *x = quantity_of(g->x);
	const struct quantity_def *y = quantity_of(g->y);
	double half = g->x_span_s / 2;
	size_t k, i, longest = 0;

	if (!set->n)
		return 0;
	for (k = 0; k < set->n; k++)
		if (set->items[k].n > set->items[longest].n)
			longest = k;
	fprintf(f, "%s_%s%s", g->x_name, x->unit, half > 0 ? ",span_s" : "");
	if (write_header(f, g, set) < 0)
		return -1;
	for (i = 0; i < set->items[longest].n; i++) {
		csv_number(f, (set->items[longest].x[i] - half) * x->scale,
			   x->decimals);
		if (half > 0) {
			fputc(',', f);
			csv_number(f, g->x_span_s, x->decimals);
		}
		for (k = 0; k < set->n; k++) {
			fputc(',', f);
			if (i < set->items[k].n)
				csv_number(f, set->items[k].y[i] * y->scale,
					   y->decimals);
		}
		fputc('\n', f);
	}
	return (long)i;
}

/* The I/O map's cells (the io graph, the offset heat map): where I/O
 * went, a row per trace, device, class and cell. Returns the rows
 * written. */
static long write_io_cells(FILE *f, const struct graph_ctx *ctx)
{
	size_t t, d, i, rows = 0;

	fputs("trace,time_s,span_s,device,offset_lo_bytes,offset_hi_bytes,"
	      "direction,tag,ios,bytes\n", f);
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = &ctx->traces[t].analysis;

		for (d = 0; d < a->n_devices; d++) {
			struct iomap_point p;

			i = 0;
			while (iomap_next(&a->iomaps[d], &i, &p)) {
				uint64_t lo, hi;
				double start = analysis_map_col_start_s(a, p.col);

				analysis_map_row_bytes(a, d, p.row, &lo, &hi);
				csv_field(f, ctx->traces[t].label);
				fputc(',', f);
				csv_seconds(f, start);
				fputc(',', f);
				csv_seconds(f, analysis_map_col_start_s(a, p.col + 1) -
					    start);
				fprintf(f, ",\"%u,%u\",%llu,%llu,%s,",
					a->devices[d].device >> 20,
					a->devices[d].device & 0xfffff,
					(unsigned long long)lo,
					(unsigned long long)hi,
					p.dir ? "write" : "read");
				if (p.tag_slot != SIZE_MAX)
					csv_field(f, a->tags[p.tag_slot].label);
				fprintf(f, ",%u,%llu\n", p.count,
					(unsigned long long)p.bytes);
				rows++;
			}
		}
	}
	return (long)rows;
}

/* One bucket k of direction d's histogram in bin i of trace t. */
static void write_latency_cell(FILE *f, const struct graph_ctx *ctx,
			       size_t t, size_t i, int d, size_t k,
			       uint32_t ios)
{
	const struct analysis *a = &ctx->traces[t].analysis;
	int us_decimals = quantity_of(QTY_LATENCY)->decimals;

	csv_field(f, ctx->traces[t].label);
	fputc(',', f);
	csv_seconds(f, analysis_bin_start_s(a, i));
	fputc(',', f);
	csv_seconds(f, analysis_bin_span_s(a, i));
	fprintf(f, ",%s,", io_op_name(d));
	csv_number(f, hist_bucket_low(k, LAT_BIN_BITS) / 1e3, us_decimals);
	fputc(',', f);
	csv_number(f, hist_bucket_high(k, LAT_BIN_BITS) / 1e3, us_decimals);
	fprintf(f, ",%u\n", ios);
}

/* The per-bin latency histograms behind the heat map and the scatter,
 * latency in us as in every file. Returns the rows written. */
static long write_latency_cells(FILE *f, const struct graph_ctx *ctx)
{
	size_t t, i, k, rows = 0;
	int d;

	fputs("trace,time_s,span_s,direction,latency_lo_us,latency_hi_us,ios\n",
	      f);
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = &ctx->traces[t].analysis;

		for (i = 0; i < a->n_bins; i++)
			for (d = 0; d < N_OPS; d++) {
				const uint32_t *h = analysis_bin_lat_hist(a, i, d);

				if (!h || !(ctx->opts->latency_dirs & (1 << d)))
					continue;
				for (k = 0; k < LAT_BIN_BUCKETS; k++) {
					if (!h[k])
						continue;
					write_latency_cell(f, ctx, t, i, d, k,
							   h[k]);
					rows++;
				}
			}
	}
	return (long)rows;
}

/* What a draw-only graph's cells are written by. */
static long (*const cell_writers[])(FILE *f, const struct graph_ctx *ctx) = {
	[CELLS_NONE] = NULL,
	[CELLS_IO_MAP] = write_io_cells,
	[CELLS_IO_BYTES] = write_io_cells,
	[CELLS_LATENCY] = write_latency_cells,
	[CELLS_LATENCY_POINTS] = write_latency_cells,
};

/* A --per-device panel's series name their device: "device 8,16 read". */
static int name_device(struct series_set *set, size_t from, uint32_t dev)
{
	size_t k;

	for (k = from; k < set->n; k++) {
		char *label = set->items[k].label, *named;
		size_t len = strlen(label) + 32;

		named = malloc(len);
		if (!named)
			return -1;
		snprintf(named, len, "device %u,%u %s", blk_dev_major(dev),
			 blk_dev_minor(dev), label);
		free(label);
		set->items[k].label = named;
	}
	return 0;
}

/* Writes g's rows into f; returns how many, or -1 (err says why). */
static long write_graph(FILE *f, struct graph_ctx *ctx,
			const struct graph_def *g, struct iow_error *err)
{
	struct series_set set = { NULL, 0 };
	size_t p, panels;
	long rows;

	graph_select_panel(ctx, g, 0);
	if (!g->build)
		return cell_writers[g->cells] ? cell_writers[g->cells](f, ctx) : 0;
	panels = g->panels(ctx);
	for (p = 0; p < panels; p++) {
		size_t from = set.n;

		graph_select_panel(ctx, g, p);
		if (graph_build(ctx, p, &set, err) < 0) {
			series_set_free(&set);
			return -1;
		}
		if (ctx->in_device_panel &&
		    name_device(&set, from, ctx->panel_device) < 0) {
			series_set_free(&set);
			return iow_fail(err, "out of memory");
		}
	}
	if (g->x_name)
		rows = write_x_series(f, g, &set);
	else
		rows = write_time_series(f, ctx, g, &set);
	series_set_free(&set);
	if (rows < 0)
		iow_fail(err, "out of memory");
	return rows;
}

int csv_export(const struct options *o, const struct trace_result *traces,
	       size_t n, struct iow_error *err)
{
	const struct graph_def *sel[GRAPHS_MAX_SELECTED];
	size_t n_sel = graphs_selected(o, sel, GRAPHS_MAX_SELECTED), i;
	struct graph_ctx ctx;

	if (mkdir(o->csv_dir, 0777) < 0 && errno != EEXIST)
		return iow_fail(err, "%s: cannot create directory: %s",
				o->csv_dir, strerror(errno));
	graph_ctx_init(&ctx, o, traces, n);
	for (i = 0; i < n_sel; i++) {
		struct outfile out;
		char path[4096];
		long rows;
		FILE *f;
		int bad;

		snprintf(path, sizeof(path), "%s/%s.csv", o->csv_dir,
			 sel[i]->name);
		if (outfile_open(&out, path, NULL, err) < 0)
			return -1;
		f = fdopen(out.fd, "w");
		if (!f) {
			outfile_abort(&out);
			return iow_fail(err, "%s: %s", path, strerror(errno));
		}
		rows = write_graph(f, &ctx, sel[i], err);
		bad = ferror(f) || fflush(f) != 0;
		/* the stream had the descriptor: commit syncs it by name */
		out.fd = -1;
		if (rows < 0) {
			fclose(f);
			outfile_abort(&out);
			return -1;
		}
		if (fclose(f) != 0 || bad) {
			int e = errno;

			outfile_abort(&out);
			return iow_fail(err, "%s: write failed: %s", path,
					strerror(e ? e : EIO));
		}
		if (rows == 0) {
			/* Nothing to export (no mpstat, no completions): no
			 * file, and none left from an earlier run either. */
			outfile_abort(&out);
			if (unlink(path) < 0 && errno != ENOENT)
				return iow_fail(err, "%s: %s", path,
						strerror(errno));
			continue;
		}
		if (outfile_commit(&out, err) < 0)
			return -1;
	}
	return 0;
}

/* ---- the CSV files as an output (base/outkind.h) ---- */

static int csv_chosen(const struct options *o)
{
	return o->csv_dir != NULL;
}

static int csv_finish(void *w, const struct options *o,
		      struct trace_result *traces, size_t n,
		      struct iow_error *err)
{
	(void)w;
	return csv_export(o, traces, n, err);
}

const struct output_ops csv_output = {
	.name = "csv",
	.help = "each graph's series as CSV, one file per graph",
	.kind = OUTPUT_NONE,
	.option = "--csv DIR",
	.chosen = csv_chosen,
	.finish = csv_finish,
};
