/*
 * plot.h: drawing primitives for iowatcher's graphs. A page is one output
 * file (SVG, PNG or PDF) holding panels; a panel is one graph with a
 * frame, axes, title and legend. This layer draws numbers and knows
 * nothing of traces. Tick choice and label formatting are pure functions
 * (plot_scale.c) so they can be tested without a surface; plot.c lays
 * pages and panels out and calls the other parts in plot/ (rasters and
 * heat maps, boxes, text, the palette), which never call back into it.
 *
 * Order of calls for a panel: plot_panel_add, the plot_panel_set_*
 * calls, plot_legend, then the series. The first series (or
 * plot_panel_draw_axes) fixes the layout from the ranges and the legend
 * known so far and draws the grid; plot_raster waits until then. The
 * frame, tick labels, title, legend and colour bar are drawn over the
 * series when the page is closed.
 *
 * Page coordinates are points for PDF, px for SVG and PNG (the PNG is
 * exactly width x height pixels). Panel functions accept a NULL panel
 * and do nothing, so a failed plot_panel_add needs no checks at every
 * call: the failure is kept by the page and plot_page_close reports it.
 */
#ifndef IOWATCHER_PLOT_H
#define IOWATCHER_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "base/error.h"
#include "base/outkind.h"	/* enum plot_format */

struct plot_rgb {
	double r, g, b;		/* 0..1 */
};

struct plot_rect {
	double x, y, w, h;
};

/* ---- Ticks and labels (pure) ---- */

#define PLOT_MAX_TICKS	32
#define PLOT_LABEL_LEN	32

/* What a label formatter knows of its axis. */
struct plot_tick_context {
	double min, max;	/* the axis range */
	double step;		/* tick spacing on a linear axis */
	int log;		/* 1 on a log axis (ticks at 1, 2, 5 x 10^k) */
};

/* Writes the label for one tick value into buf (always terminated). */
typedef void (*plot_format_fn)(double value,
			       const struct plot_tick_context *ctx,
			       char *buf, size_t len);

/*
 * Makes [*min, *max] a usable range: NaN or infinite ends are replaced
 * by the other end, min > max are swapped, and an empty range becomes
 * [0, 1] (for 0), [0, 2v] (for v > 0) or [2v, 0] (for v < 0).
 */
void plot_sanitize_range(double *min, double *max);

/*
 * Ticks on 1-2-5 x 10^k inside [min, max] (sanitized first): at most
 * max_ticks of them (ticks must hold that many), strictly increasing.
 * Returns the step between ticks.
 */
double plot_ticks(double min, double max, int max_ticks,
		  double *ticks, int *n);

/* Same, but the step is at least min_step (1 for counts: no 0.5). */
double plot_ticks_min_step(double min, double max, int max_ticks,
			   double min_step, double *ticks, int *n);

/*
 * Widens [*min, *max] to multiples of a nice step so that both ends get
 * a tick and at most max_ticks (>= 2) ticks cover it. Returns the step.
 */
double plot_nice_range(double *min, double *max, int max_ticks,
		       double min_step);

/* For log axes: makes the range positive and, if nice, whole decades. */
void plot_log_range(double *min, double *max, int nice);

/*
 * Ticks for a log axis: powers of ten (every 2nd, 3rd... when there are
 * more than max_ticks decades); 1-2-5 multiples when the range spans
 * less than two decades; linear ticks when even those are too few.
 */
void plot_log_ticks(double min, double max, int max_ticks,
		    double *ticks, int *n);

/* Numbers with SI suffixes: 1500 -> "1.5K", 2e6 -> "2M", 0.5 -> "0.5". */
void plot_format_si(double value, const struct plot_tick_context *ctx,
		    char *buf, size_t len);

/*
 * Values in seconds. Linear axes take one unit from the range: s from
 * 2 s up, ms from 2 ms, us from 2 us, else ns ("0 ms", "250 ms"). Log
 * axes take a unit per tick: "1 us", "10 us", "100 us", "1 ms".
 */
void plot_format_seconds(double value, const struct plot_tick_context *ctx,
			 char *buf, size_t len);

/* Values in nanoseconds, labelled as plot_format_seconds does. */
void plot_format_ns(double value, const struct plot_tick_context *ctx,
		    char *buf, size_t len);

/*
 * The binary unit for an axis of bytes reaching max_bytes: the smallest,
 * from 1024^min_power up (0 bytes, 1 KiB, 2 MiB ... 6 EiB), in which the
 * numbers stay below 1000, so a label never reads "1.18K GiB". Returns
 * the power; *scale gets the unit in bytes.
 */
int plot_bytes_unit(double max_bytes, int min_power, double *scale);
/* "bytes", "KiB", "MiB" ... "EiB" for a power from plot_bytes_unit. */
const char *plot_bytes_unit_name(int power);

/*
 * Sizes in bytes with binary units, as plot_format_seconds does for
 * time: one unit from a linear axis's range, the smallest in which its
 * numbers stay below 1000 ("2.5 MiB", not "2.5K KiB"); a unit per value
 * on a log axis or alone (a colour bar's ends).
 */
void plot_format_bytes(double value, const struct plot_tick_context *ctx,
		       char *buf, size_t len);
/* Values in KiB, labelled as plot_format_bytes does. */
void plot_format_kib(double value, const struct plot_tick_context *ctx,
		     char *buf, size_t len);

/*
 * Rates in bytes per second with decimal units, as plot_format_seconds
 * does for time: one unit from a linear axis's range, the smallest in
 * which its numbers stay below 1000 ("500 MB/s", "1.5 GB/s", not
 * "1.5K MB/s"); a unit per value on a log axis.
 */
void plot_format_bytes_per_s(double value,
			     const struct plot_tick_context *ctx, char *buf,
			     size_t len);
/* Values in MB/s (10^6 bytes), labelled as plot_format_bytes_per_s does. */
void plot_format_mb_per_s(double value, const struct plot_tick_context *ctx,
			  char *buf, size_t len);

/*
 * Formats n tick labels with fn (plot_format_si if NULL). If two
 * adjacent labels come out equal (a formatter with too few digits),
 * all are redone with plain numbers and enough digits to tell apart.
 */
void plot_format_labels(plot_format_fn fn, const struct plot_tick_context *ctx,
			const double *ticks, int n,
			char labels[][PLOT_LABEL_LEN]);

/* ---- Colours ---- */

/*
 * The palette, safe for colour-blind readers, in this order: 0 blue
 * (reads), 1 vermilion (writes), 2 bluish green, 3 dark red, 4 reddish
 * purple, 5 sky blue, 6 sand yellow, 7 black. Index 8-15 are the same
 * hues lighter (lines also dashed), 16-23 darker (dotted), and so on in
 * turn.
 */
struct plot_rgb plot_color(int index);
/* Which pass through the palette an index is on: 0 plain, 1 lighter
 * (lines dashed), 2 darker (dotted). */
int plot_color_cycle(int index);

/*
 * The palette index of the k-th of several classes (tags): the seven
 * hues (not black), then the lighter and darker shades in the order
 * that keeps each furthest from those before it.
 */
int plot_category_color(int k);

/*
 * What a raster cell holding colours a and b in equal shares is drawn
 * in (reads and writes together): a darker colour of the hue between
 * theirs, apart from both; a cell shared unevenly leans to its larger
 * share's colour.
 */
struct plot_rgb plot_mix_color(int a, int b);

/*
 * A raster cell of colours a and b where share_b (0..1) of its count is
 * b's: a's colour, towards their mix (plot_mix_color) as the shares even
 * out, to b's.
 */
struct plot_rgb plot_mix_share(int a, int b, double share_b);

/* The heat-map ramp (viridis): t = 0 is dark purple, 1 is yellow. */
struct plot_rgb plot_ramp(double t);

/* ---- Pages ---- */

struct plot_page;
struct plot_panel;

/*
 * Starts a page that will become path. Output goes to a temporary file
 * beside path and is renamed over it only by a successful close. title
 * (may be NULL) is drawn across the top.
 */
struct plot_page *plot_page_open(const char *path, enum plot_format fmt,
				 double width, double height,
				 const char *title, struct iow_error *err);

/*
 * Draws the panels' decorations, finishes the file, checks every cairo
 * and write status, fsyncs and renames into place. On any failure the
 * temporary file is removed and err says why. Frees the page either way.
 */
int plot_page_close(struct plot_page *p, struct iow_error *err);

/*
 * A page drawn onto the caller's image surface instead of into a file
 * (a movie frame's background), covering all of it, a page unit being
 * scale px. What the surface already shows stays under the panels; the
 * page has no title. plot_page_close draws the panels' decorations and
 * writes nothing; the surface remains the caller's. name is what error
 * messages call the page.
 */
struct plot_page *plot_page_open_surface(cairo_surface_t *s, double scale,
					 const char *name,
					 struct iow_error *err);

/* Drops the page: removes the temporary file and frees everything. */
void plot_page_abort(struct plot_page *p);

/* The page below its title, where panels go. */
struct plot_rect plot_page_body(const struct plot_page *p);

/* Cell (row, col) of a rows x cols grid over the body, with gutters. */
struct plot_rect plot_page_cell(const struct plot_page *p, int rows, int cols,
				int row, int col);

/* ---- Panels ---- */

/*
 * A graph in the rectangle (x, y, w, h) of the page. The strings are
 * copied and may be NULL. Without plot_panel_set_x/y the ranges are 0..1.
 */
struct plot_panel *plot_panel_add(struct plot_page *p, double x, double y,
				  double w, double h, const char *title,
				  const char *x_label, const char *y_label);

/* x axis over exactly [min, max]: the data's own extent, e.g. time. */
void plot_panel_set_x(struct plot_panel *pp, double min, double max);
void plot_panel_set_x_log(struct plot_panel *pp, double min, double max);
/* y axis widened to nice numbers so the top grid line is labelled. */
void plot_panel_set_y(struct plot_panel *pp, double min, double max);
/* y axis over exactly [min, max] (e.g. a disk's sector range). */
void plot_panel_set_y_exact(struct plot_panel *pp, double min, double max);
/* Log y axis widened to whole decades, ticks at powers of ten. */
void plot_panel_set_y_log(struct plot_panel *pp, double min, double max);
/* The y axis's label, replacing plot_panel_add's (until the layout). */
void plot_panel_set_y_label(struct plot_panel *pp, const char *label);
/* Label formatters; plot_format_si unless set. */
void plot_panel_set_x_format(struct plot_panel *pp, plot_format_fn fn);
void plot_panel_set_y_format(struct plot_panel *pp, plot_format_fn fn);
/* x ticks at these values, in increasing order (those inside the axis;
 * labels that would overlap are dropped as any others): a quantile axis
 * ticked where its points are, not at round numbers of its scale. */
void plot_panel_set_x_ticks(struct plot_panel *pp, const double *values,
			    int n);
/* Bytes: y ticks on 1-2-5 steps of the binary unit plot_format_bytes
 * labels them in (10 KiB, 20 KiB: not 9.77 KiB). */
void plot_panel_set_x_binary(struct plot_panel *pp);
void plot_panel_set_y_binary(struct plot_panel *pp);

/*
 * Fixes the layout and draws the grid. Optional: the first series does
 * it too. Ranges set afterwards are ignored.
 */
void plot_panel_draw_axes(struct plot_panel *pp);

/* The ticks the layout chose, with page positions and label sizes. */
struct plot_axis_ticks {
	int n;
	double value[PLOT_MAX_TICKS];
	double pos[PLOT_MAX_TICKS];	/* page x (x axis) or y (y axis) */
	double extent[PLOT_MAX_TICKS];	/* label width (x) or height (y) */
	char label[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
};
const struct plot_axis_ticks *plot_panel_x_ticks(struct plot_panel *pp);
const struct plot_axis_ticks *plot_panel_y_ticks(struct plot_panel *pp);

/* The plot area (inside the frame) in page coordinates. */
struct plot_rect plot_panel_area(struct plot_panel *pp);

/* ---- Series (data coordinates; all clipped to the plot area) ---- */

/* A polyline; a NaN y leaves a gap. Dense data is thinned per pixel
 * column keeping each column's first, lowest, highest and last point. */
void plot_line(struct plot_panel *pp, const double *x, const double *y,
	       size_t n, int color_index, double width);

/* The same, dotted in the colour's own shade: a second line of one
 * class (its flushes beside its data). */
void plot_line_dotted(struct plot_panel *pp, const double *x,
		      const double *y, size_t n, int color_index, double width);

/* Steps: y[i] holds from x[i] to x[i + 1]; NaN leaves a gap. */
void plot_step(struct plot_panel *pp, const double *x, const double *y,
	       size_t n, int color_index, double width);

/*
 * x from x0 to x1 (data units), the panel's whole height, marked as a
 * time whose figures are missing: a light red tint with diagonal hatching
 * (also readable in grey), over what is drawn there.
 */
void plot_shade_x(struct plot_panel *pp, double x0, double x1);

/* No y axis at all (no ticks, labels or grid): a chart whose rows are
 * not a quantity (an icicle's stack levels, a bar per file). */
void plot_panel_set_y_none(struct plot_panel *pp);

/*
 * An icicle chart (a flame graph, root at the top): box i covers
 * [x0, x1) of the panel's width (fractions 0..1) on row depth (0 at the
 * top, rows at most 18 px high, deeper ones cut), filled with its colour
 * and labelled where the label fits (cut with an ellipsis, else none).
 */
struct plot_box {
	double x0, x1;
	int depth;
	const char *label;
	struct plot_rgb color;
};
void plot_icicle(struct plot_panel *pp, const struct plot_box *boxes,
		 size_t n, int rows);

/*
 * Horizontal bars, a row each from the top (at most 22 px high): row i's
 * parts value[i * parts + k] end to end on the x axis in colours
 * color[k], its label at the left inside the area, its note right of its
 * bar (or inside it at the right end when no room is left).
 */
void plot_hbars(struct plot_panel *pp, const char *const *labels,
		const double *values, size_t rows, size_t parts,
		const int *colors, const char *const *notes);

/* The area between lo and hi, filled with the colour at alpha. */
void plot_band(struct plot_panel *pp, const double *x, const double *lo,
	       const double *hi, size_t n, int color_index, double alpha);

/* A scatter of dots radius px across. */
void plot_points(struct plot_panel *pp, const double *x, const double *y,
		 size_t n, int color_index, double radius);

/*
 * A density raster: counts[row * cols + col], row 0 at y0, cells evenly
 * spaced in axis space (log-spaced on a log axis). A cell with a count
 * is drawn in the colour, more opaque as log(count) rises; empty cells
 * are left alone. Cells under a pixel are merged (counts summed) into
 * cells a few px across, so none falls between pixels. Counts are copied:
 * successive rasters on the same grid and box are painted together, once,
 * before the next other series or at close: a cell of several colours
 * is drawn in the mix of its two largest (plot_mix_color, leaning to
 * the larger share), whatever the order, its opacity by their sum.
 * Rasters on other grids (another trace's I/O map) wait as well and are
 * painted in turn, each grid over the ones before. A sparse raster of
 * small cells is drawn as dots, moved in from the frame to show whole.
 */
void plot_raster(struct plot_panel *pp, const uint32_t *counts, int cols,
		 int rows, double x0, double x1, double y0, double y1,
		 int color_index);

/*
 * Whether a raster with this many cells holding I/O is sure to be drawn
 * as dots on pp (judged against the panel's box where it is not laid
 * out yet, with room to spare for its frame and legend).
 */
int plot_raster_sparse(const struct plot_panel *pp, size_t cells);

/*
 * A heat map: like plot_raster (merging included) but drawn at once,
 * cells coloured on the viridis ramp by log(count), with a colour bar
 * (from 1 to the largest count shown, named count_label) beside the
 * panel title.
 */
void plot_heatmap(struct plot_panel *pp, const uint32_t *counts, int cols,
		  int rows, double x0, double x1, double y0, double y1,
		  const char *count_label);

/*
 * Heat maps drawn after this on the panel are coloured from 1 to max, the
 * colour bar too, not from 1 to their own largest count: panels given
 * the same max compare (counts above it take the top colour). 0 undoes.
 */
void plot_heatmap_scale(struct plot_panel *pp, uint32_t max);

/* How the colour bar's ends are labelled (counts of KiB: plot_format_kib,
 * "1 KiB" to "2 MiB", not "KiB 1" to "2.05K"); plot_format_si unless set. */
void plot_heatmap_format(struct plot_panel *pp, plot_format_fn fn);

/*
 * Swatches and labels above the plot area: beside the title if they fit,
 * else on rows of their own below it. Called once the layout is fixed
 * (after plot_panel_draw_axes or a series other than plot_raster), the
 * legend shares the title's row: the title gives way down to 40% of it
 * and entries that still do not fit are counted as "+N more". Rows of
 * its own take at most a fifth of the panel, the rest "+N more" too.
 */
void plot_legend(struct plot_panel *pp, const char *const *labels,
		 const int *color_indexes, size_t n);

/*
 * A legend entry for raster cells that hold both colour a and colour b
 * (reads and writes in one cell): its swatch is the mix drawn there.
 */
void plot_legend_mix(struct plot_panel *pp, const char *label, int color_a,
		     int color_b);

/* A legend entry of text alone: a key to what the lines and bands are. */
void plot_legend_text(struct plot_panel *pp, const char *text);

/* A note centred in the plot area, e.g. "no data in range". */
void plot_panel_note(struct plot_panel *pp, const char *text);

/*
 * A line of text on a caller's context in the pages' typeface, size in
 * its units, in its current colour: left (halign 0), centre (0.5) or
 * right (1) at x, baseline y; bad UTF-8 repaired. Returns its width.
 */
double plot_caption(cairo_t *cr, double x, double y, double size, int bold,
		    const char *text, double halign);

#endif
