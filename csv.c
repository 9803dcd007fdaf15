/*
 * csv.c: the CSV export. Time series: a row per time bin (bin start and
 * span in seconds), a column per series, as drawn. Graphs drawn as
 * rasters (io, heat maps) export their cells, one row each. Every file is
 * written under a temporary name and renamed when complete.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "graphs.h"
#include "histogram.h"

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

static void csv_number(FILE *f, double v)
{
	if (isnan(v))
		return;
	fprintf(f, "%.9g", v);
}

/* Rows by bin for time series; traces may have their own bin widths. */
static void write_time_series(FILE *f, const struct graph_ctx *ctx,
			      const struct series_set *set)
{
	size_t t, i, k;

	fputs("time_s,span_s", f);
	for (k = 0; k < set->n; k++) {
		fputc(',', f);
		csv_field(f, set->items[k].label);
	}
	fputc('\n', f);
	/* One block of rows per distinct bin grid, in trace order. */
	for (t = 0; t < ctx->n_traces; t++) {
		const struct analysis *a = &ctx->traces[t].analysis;
		int shared = 0;

		for (k = 0; k < t; k++) {
			const struct analysis *b = &ctx->traces[k].analysis;

			if (b->bin_width_ns == a->bin_width_ns &&
			    b->bin_origin_ns == a->bin_origin_ns)
				shared = 1;
		}
		if (shared)
			continue;
		for (i = 0; i < a->n_bins; i++) {
			csv_number(f, analysis_bin_start_s(a, i));
			fputc(',', f);
			csv_number(f, analysis_bin_span_s(a, i));
			for (k = 0; k < set->n; k++) {
				const struct graph_series *s = &set->items[k];
				const struct analysis *sa =
					&ctx->traces[s->trace].analysis;

				fputc(',', f);
				if (sa->bin_width_ns == a->bin_width_ns &&
				    sa->bin_origin_ns == a->bin_origin_ns &&
				    i < s->n)
					csv_number(f, s->y[i]);
			}
			fputc('\n', f);
		}
	}
}

/* Rows by x value for graphs whose x is not time (latency histogram). */
static void write_x_series(FILE *f, const struct graph_def *g,
			   const struct series_set *set)
{
	size_t k, i, longest = 0;

	fprintf(f, "%s", g->csv_x);
	for (k = 0; k < set->n; k++) {
		fputc(',', f);
		csv_field(f, set->items[k].label);
		if (set->items[k].n > set->items[longest].n)
			longest = k;
	}
	fputc('\n', f);
	for (i = 0; set->n && i < set->items[longest].n; i++) {
		csv_number(f, set->items[longest].x[i]);
		for (k = 0; k < set->n; k++) {
			fputc(',', f);
			if (i < set->items[k].n)
				csv_number(f, set->items[k].y[i]);
		}
		fputc('\n', f);
	}
}

/* The I/O map's cells: where I/O went, per trace, device and class. */
static void write_io_cells(FILE *f, const struct graph_ctx *ctx)
{
	size_t t, d, i;

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
				fprintf(f, ",%.9g,%.9g,\"%u,%u\",%llu,%llu,%s,",
					start,
					analysis_map_col_start_s(a, p.col + 1) -
					start,
					a->devices[d].device >> 20,
					a->devices[d].device & 0xfffff,
					(unsigned long long)lo,
					(unsigned long long)hi,
					p.dir ? "write" : "read");
				if (p.tag_slot != SIZE_MAX)
					csv_field(f, a->tags[p.tag_slot].label);
				fprintf(f, ",%u,%llu\n", p.count,
					(unsigned long long)p.bytes);
			}
		}
	}
}

/* The per-bin latency histograms behind the heat map and the scatter. */
static void write_latency_cells(FILE *f, const struct graph_ctx *ctx)
{
	size_t t, i, k;
	int d;

	fputs("trace,time_s,span_s,direction,latency_lo_ns,latency_hi_ns,ios\n",
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
					csv_field(f, ctx->traces[t].label);
					fprintf(f, ",%.9g,%.9g,%s,%llu,%llu,%u\n",
						analysis_bin_start_s(a, i),
						analysis_bin_span_s(a, i),
						io_op_name(d),
						(unsigned long long)hist_bucket_low(k, LAT_BIN_BITS),
						(unsigned long long)hist_bucket_high(k, LAT_BIN_BITS),
						h[k]);
				}
			}
	}
}

static int write_graph(FILE *f, const struct graph_ctx *ctx,
		       const struct graph_def *g)
{
	struct series_set set = { NULL, 0 };
	size_t p, panels;

	if (!g->build) {
		if (!strcmp(g->name, "io") || !strcmp(g->name, "offset-heatmap"))
			write_io_cells(f, ctx);
		else
			write_latency_cells(f, ctx);
		return 0;
	}
	panels = g->panels(ctx);
	for (p = 0; p < panels; p++)
		if (g->build(ctx, p, &set) < 0) {
			series_set_free(&set);
			return -1;
		}
	if (g->csv_x)
		write_x_series(f, g, &set);
	else
		write_time_series(f, ctx, &set);
	series_set_free(&set);
	return 0;
}

int csv_export(const struct options *o, const struct trace_result *traces,
	       size_t n, struct iow_error *err)
{
	const struct graph_def *sel[64];
	size_t n_sel = graphs_selected(o, sel, 64), i;
	struct graph_ctx ctx;

	if (mkdir(o->csv_dir, 0777) < 0 && errno != EEXIST)
		return iow_fail(err, "%s: cannot create directory: %s",
				o->csv_dir, strerror(errno));
	graph_ctx_init(&ctx, o, traces, n);
	for (i = 0; i < n_sel; i++) {
		char path[4096], tmp[4200];
		FILE *f;
		int bad;

		snprintf(path, sizeof(path), "%s/%s.csv", o->csv_dir,
			 sel[i]->name);
		snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
		f = fopen(tmp, "w");
		if (!f)
			return iow_fail(err, "%s: %s", path, strerror(errno));
		ctx.graph = sel[i];
		bad = write_graph(f, &ctx, sel[i]) < 0;
		bad |= ferror(f);
		bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
		if (fclose(f) != 0 || bad) {
			int e = errno;

			unlink(tmp);
			return iow_fail(err, "%s: write failed: %s", path,
					e ? strerror(e) : "out of memory");
		}
		if (iow_interrupted) {
			unlink(tmp);
			return iow_fail(err, "%s: interrupted", path);
		}
		if (rename(tmp, path) < 0) {
			int e = errno;

			unlink(tmp);
			return iow_fail(err, "%s: %s", path, strerror(e));
		}
	}
	return 0;
}
