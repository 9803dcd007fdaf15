/*
 * series.h: what a graph's numbers are, for every reader of them alike
 * (the pictures, --csv, the report): series of values, one per time bin
 * of a trace or at x values of their own, each with its role in the
 * drawing; the cells of graphs drawn as rasters; and the quantity every
 * number is in, with the unit files write it in and how an axis labels
 * it. The graph table (graphs.h) says which its graphs have.
 */
#ifndef IOWATCHER_SERIES_H
#define IOWATCHER_SERIES_H

#include <stddef.h>

/*
 * What a number is. Values are held in a base unit (latency in ns, sizes
 * in bytes); files write them in one unit per quantity across all files
 * (latency in us, as the summary does).
 */
enum quantity {
	QTY_NUMBER,		/* a plain number (offset rows: their own) */
	QTY_SECONDS,		/* time */
	QTY_LATENCY,		/* ns */
	QTY_MB_PER_S,		/* 10^6 bytes per second */
	QTY_IOS_PER_S,
	QTY_IOS,		/* a count of I/Os */
	QTY_REQUESTS,		/* requests in flight */
	QTY_SEEKS_PER_S,
	QTY_PERCENT,		/* 0..100 */
	QTY_SIZE,		/* bytes of a request */
	N_QUANTITIES
};

/* How an axis labels a quantity. */
enum axis_style {
	AXIS_NUMBER,		/* SI numbers: 1.2K */
	AXIS_SECONDS,		/* 1.5 s, 20 ms */
	AXIS_NS,		/* 120 us, 3 ms, from ns */
	AXIS_MB_PER_S,		/* 200 MB/s */
	AXIS_BYTES,		/* binary units: 4 KiB, 1 MiB */
	AXIS_PERCENT,		/* 0..100 */
};

struct quantity_def {
	const char *name;	/* for the report's readers: "latency" */
	const char *unit;	/* in files, ending a column: "us"; NULL none */
	double scale;		/* a value times scale is in unit */
	enum axis_style axis;
	/* Decimals files write a value in unit with (trailing zeros
	 * dropped): its resolution, a nanosecond of latency or a byte a
	 * second, so that a float read from a file prints as the file had
	 * it (mpstat's 11.73, not 11.7299995); -1: nine significant digits */
	int decimals;
};

const struct quantity_def *quantity_of(enum quantity q);

/*
 * How a series is drawn: a line, or one edge of a band. Consecutive
 * percentile edges of the same trace and direction are filled between
 * (p50..p90 darker, p90..p99 lighter); max is a thin line; stacked edges
 * fill from the previous stacked edge (or 0).
 */
enum series_role {
	ROLE_LINE,
	ROLE_P50,
	ROLE_P90,
	ROLE_P99,
	ROLE_MAX,
	ROLE_STACK,
	ROLE_STEP,	/* a histogram: y[i] holds from x[i] to x[i + 1] */
	ROLE_RANGE_LO,	/* a band up to the next ROLE_RANGE_HI, no line */
	ROLE_RANGE_HI,
	ROLE_DOTTED,	/* a line dotted in its colour: a class's flushes */
};

/* One line of a time-series graph. */
struct graph_series {
	char *label;
	int color;
	enum series_role role;	/* how draw_lines shows it */
	size_t trace;
	size_t n;
	double *x;		/* bin midpoints, seconds */
	double *y;		/* NaN: no value in that bin */
};

struct series_set {
	struct graph_series *items;
	size_t n;
};

void series_set_free(struct series_set *s);

/*
 * The numbers of a graph drawn as a raster rather than series: the I/O
 * map's cells (I/Os and bytes per time column, device, offset row and
 * class), shown as I/Os by class (the io graph) or as bytes (the offset
 * heat map); or the per-bin latency histograms, shown as a heat map or
 * as each I/O at its latency (the scatter, whose points are not kept in
 * files: its cells are the histograms).
 */
enum graph_cells {
	CELLS_NONE,
	CELLS_IO_MAP,
	CELLS_IO_BYTES,
	CELLS_LATENCY,
	CELLS_LATENCY_POINTS,
};

#endif
