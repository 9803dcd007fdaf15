/*
 * plot_raster.c: density rasters and heat maps on a panel. Grids of
 * counts are merged down to what the page can show; the rasters of one
 * grid wait and are painted as one image (a cell of reads and writes in
 * their mix), or as dots when sparse; heat maps go on the viridis ramp,
 * their colour bar's range kept on the panel for plot.c to draw. Drawn
 * on a panel plot.c has laid out: nothing here calls back into plot.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <png.h>

#include "base/bigmem.h"
#include "base/bytebuf.h"
#include "plot.h"
#include "plot_internal.h"

/* ---- Rasters and heat maps ---- */

/* Cells under a pixel are merged until each is this many px across, so
 * that none is lost between pixels and a lone I/O still shows. */
#define MIN_CELL_PX		2.5
/* Raster cells sit on white at this opacity, from one I/O to the most. */
#define RASTER_ALPHA_MIN	0.45
#define RASTER_ALPHA_MAX	1.0

/* A grid of counts, row 0 at the bottom, as the caller gave it or merged. */
struct grid {
	uint32_t *counts;
	int cols, rows;
};

static uint32_t max_count(const struct grid *g)
{
	size_t i, n = (size_t)g->cols * g->rows;
	uint32_t m = 0;

	for (i = 0; i < n; i++)
		if (g->counts[i] > m)
			m = g->counts[i];
	return m;
}

/* Sums fx x fy blocks of src into a new grid (the last ones partial). */
static int grid_merge(const struct grid *src, int fx, int fy, struct grid *dst)
{
	uint64_t sum;
	size_t i;
	int r, c;

	dst->cols = (src->cols + fx - 1) / fx;
	dst->rows = (src->rows + fy - 1) / fy;
	dst->counts = bigmem_calloc((size_t)dst->cols * dst->rows *
				    sizeof(uint32_t));
	if (!dst->counts)
		return -1;
	for (r = 0; r < src->rows; r++) {
		for (c = 0; c < src->cols; c++) {
			i = (size_t)(r / fy) * dst->cols + c / fx;
			sum = (uint64_t)dst->counts[i] +
			      src->counts[(size_t)r * src->cols + c];
			dst->counts[i] = sum > UINT32_MAX ? UINT32_MAX :
							    (uint32_t)sum;
		}
	}
	return 0;
}

/* 0 for a count of 1, 1 for the largest, log-spaced between. */
static double count_level(uint32_t count, uint32_t max)
{
	if (max <= 1 || count >= max)
		return 1;
	return log((double)count) / log((double)max);
}

static uint32_t argb(struct plot_rgb c, double alpha)
{
	uint32_t a = (uint32_t)lround(alpha * 255);

	/* Premultiplied, as cairo's ARGB32 wants. */
	return a << 24 | (uint32_t)lround(c.r * alpha * 255) << 16 |
	       (uint32_t)lround(c.g * alpha * 255) << 8 |
	       (uint32_t)lround(c.b * alpha * 255);
}

static uint32_t cell_pixel(uint32_t count, uint32_t max, int color_index,
			   int heat)
{
	double t = count_level(count, max);

	if (!count)
		return 0;
	if (heat)
		return argb(plot_ramp(t), 1);
	return argb(plot_color(color_index), RASTER_ALPHA_MIN +
			(RASTER_ALPHA_MAX - RASTER_ALPHA_MIN) * t);
}

/* An ARGB32 image whose pixels are a bigmem block (freed with it). */
static cairo_surface_t *image_surface(int w, int h)
{
	static const cairo_user_data_key_t pixels_key;
	int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, w);
	unsigned char *pixels;
	cairo_surface_t *img;

	if (stride <= 0 || h <= 0 ||
	    !(pixels = bigmem_calloc((size_t)stride * (size_t)h)))
		return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	img = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32,
						  w, h, stride);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS ||
	    cairo_surface_set_user_data(img, &pixels_key, pixels,
					bigmem_free) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		bigmem_free(pixels);
		return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	}
	return img;
}

/* An image of the grid, top row last, coloured from 1 to max (0: the
 * grid's own largest count); NULL when out of memory. */
static cairo_surface_t *grid_image(const struct grid *g, int color_index,
				   int heat, uint32_t max)
{
	cairo_surface_t *img;
	unsigned char *data;
	uint32_t *line;
	int stride, r, c;

	img = image_surface(g->cols, g->rows);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return NULL;
	}
	if (!max)
		max = max_count(g);
	cairo_surface_flush(img);
	data = cairo_image_surface_get_data(img);
	stride = cairo_image_surface_get_stride(img);
	for (r = 0; r < g->rows; r++) {
		line = (uint32_t *)(data + (size_t)(g->rows - 1 - r) * stride);
		for (c = 0; c < g->cols; c++)
			line[c] = cell_pixel(g->counts[(size_t)r * g->cols + c],
					     max, color_index, heat);
	}
	cairo_surface_mark_dirty(img);
	return img;
}

/*
 * SVG has no way to ask for unsmoothed scaling that cairo 1.16 uses, and
 * PDF viewers smooth soft masks whatever the image says, so a small
 * image of big cells comes out blurred. Enlarging it by whole factors,
 * to about the size it is shown at, keeps the cell edges sharp.
 * Returns a new reference: img itself or the enlarged copy.
 */
static cairo_surface_t *enlarge_for_vector(struct plot_panel *pp,
					   cairo_surface_t *img, int *cols,
					   int *rows, double px_w, double px_h)
{
	int kx = (int)fmin(ceil(fabs(px_w) / *cols), 16);
	int ky = (int)fmin(ceil(fabs(px_h) / *rows), 16);
	cairo_surface_t *big;

	if (pp->page->fmt == PLOT_PNG || (kx <= 1 && ky <= 1))
		return cairo_surface_reference(img);
	kx = kx < 1 ? 1 : kx;
	ky = ky < 1 ? 1 : ky;
	big = image_surface(*cols * kx, *rows * ky);
	if (cairo_surface_status(big) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(big);
		return cairo_surface_reference(img);	/* blurred, not lost */
	}
	/* each pixel kx wide and ky high: what cairo's nearest-neighbour
	 * scaling gives, without its general path */
	cairo_surface_flush(img);
	cairo_surface_flush(big);
	{
		const unsigned char *src = cairo_image_surface_get_data(img);
		unsigned char *dst = cairo_image_surface_get_data(big);
		int s_stride = cairo_image_surface_get_stride(img);
		int d_stride = cairo_image_surface_get_stride(big);
		int r, c, k;

		for (r = 0; r < *rows; r++) {
			const uint32_t *in = (const uint32_t *)(src +
						(size_t)r * s_stride);
			uint32_t *out = (uint32_t *)(dst +
					(size_t)r * ky * d_stride);

			for (c = 0; c < *cols; c++)
				for (k = 0; k < kx; k++)
					out[c * kx + k] = in[c];
			for (k = 1; k < ky; k++)
				memcpy(dst + ((size_t)r * ky + k) * d_stride, out,
				       (size_t)*cols * kx * 4);
		}
	}
	cairo_surface_mark_dirty(big);
	*cols *= kx;
	*rows *= ky;
	return big;
}

/* ---- Images in SVG ---- */

/*
 * cairo's SVG surface writes an image as a PNG at zlib's default level,
 * which made the PNG of an I/O map a tenth of the SVG's time. An image
 * that carries its PNG (as mime data) is written as given, so images
 * bound for an SVG get theirs here, made at zlib's fastest level with
 * the "up" filter (the enlarged images repeat each row, which then
 * costs nothing). The pixels are cairo's own PNG's: premultiplied
 * colour undone the way cairo does it.
 */
struct png_buf {
	struct bytebuf out;
	int failed;
};

static void png_buf_write(png_structp png, png_bytep data, png_size_t n)
{
	struct png_buf *b = png_get_io_ptr(png);

	if (!b->failed && bytebuf_append(&b->out, data, n) < 0)
		b->failed = 1;
}

static void png_buf_flush(png_structp png)
{
	(void)png;
}

/* One ARGB32 row as PNG's RGBA, not premultiplied. */
static void unpremultiply_row(const uint32_t *src, unsigned char *dst, int n)
{
	int i;

	for (i = 0; i < n; i++, dst += 4) {
		uint32_t p = src[i], a = p >> 24;

		if (!a) {
			dst[0] = dst[1] = dst[2] = dst[3] = 0;
			continue;
		}
		dst[0] = (unsigned char)((((p >> 16) & 0xff) * 255 + a / 2) / a);
		dst[1] = (unsigned char)((((p >> 8) & 0xff) * 255 + a / 2) / a);
		dst[2] = (unsigned char)(((p & 0xff) * 255 + a / 2) / a);
		dst[3] = (unsigned char)a;
	}
}

/* Gives img its PNG as mime data; 0, or -1 (img is then left as it was,
 * and cairo encodes it itself). */
static int attach_png(cairo_surface_t *img)
{
	int w = cairo_image_surface_get_width(img);
	int h = cairo_image_surface_get_height(img);
	int stride = cairo_image_surface_get_stride(img), r;
	const unsigned char *data;
	struct png_buf b = { { NULL, 0, 0 }, 0 };
	unsigned char *volatile row = NULL;
	png_structp png;
	png_infop info = NULL;

	cairo_surface_flush(img);
	data = cairo_image_surface_get_data(img);
	if (!data || w <= 0 || h <= 0 ||
	    cairo_image_surface_get_format(img) != CAIRO_FORMAT_ARGB32)
		return -1;
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (!png)
		return -1;
	info = png_create_info_struct(png);
	row = malloc((size_t)w * 4);
	if (!info || !row || setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		free(row);
		bytebuf_free(&b.out);
		return -1;
	}
	png_set_write_fn(png, &b, png_buf_write, png_buf_flush);
	png_set_compression_level(png, 1);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
		     PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
	png_write_info(png, info);
	for (r = 0; r < h; r++) {
		unpremultiply_row((const uint32_t *)(data + (size_t)r * stride),
				  row, w);
		png_write_row(png, row);
	}
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	free(row);
	if (b.failed ||
	    cairo_surface_set_mime_data(img, CAIRO_MIME_TYPE_PNG, b.out.data,
					b.out.len, free, b.out.data) !=
	    CAIRO_STATUS_SUCCESS) {
		bytebuf_free(&b.out);
		return -1;
	}
	return 0;
}

/* Where a grid lands on the page: the data box (x0, x1, y0, y1) in px. */
struct cells_px {
	double left, bottom, width, height;	/* height grows upwards */
};

static int cells_place(struct plot_panel *pp, const double *box,
		       struct cells_px *at)
{
	at->left = plot_px_x(pp, box[0]);
	at->bottom = plot_px_y(pp, box[2]);
	at->width = plot_px_x(pp, box[1]) - at->left;
	at->height = at->bottom - plot_px_y(pp, box[3]);
	/* Nothing to see; a zero scale would break cairo. */
	return fabs(at->width) > 1e-3 && fabs(at->height) > 1e-3 ? 0 : -1;
}

/* How many cells to merge along an axis of n cells over len px: none
 * while each cell gets a pixel, else enough for MIN_CELL_PX. */
static int merge_factor(int n, double len)
{
	double f;

	if (fabs(len) >= n)
		return 1;
	f = ceil(n * MIN_CELL_PX / fabs(len));
	return f > n ? n : (int)f;
}

/* Paints img, the image of shown (src merged), over src's place at
 * with crisp cells. */
static void paint_cells(struct plot_panel *pp, cairo_surface_t *img,
			const struct grid *src, const struct grid *shown,
			const struct cells_px *at)
{
	cairo_t *cr = pp->page->cr;
	int cols = shown->cols, rows = shown->rows;
	/* Merged cells at the top and right may hang past the box. */
	double w = at->width * cols * merge_factor(src->cols, at->width) /
		   src->cols;
	double h = at->height * rows * merge_factor(src->rows, at->height) /
		   src->rows;

	img = enlarge_for_vector(pp, img, &cols, &rows, w, h);
	if (pp->page->fmt == PLOT_SVG)
		attach_png(img);	/* else cairo's own, slower PNG */
	cairo_save(cr);
	cairo_rectangle(cr, pp->area.x, pp->area.y, pp->area.w, pp->area.h);
	cairo_clip(cr);
	cairo_translate(cr, at->left, at->bottom - h);
	cairo_scale(cr, w / cols, h / rows);
	cairo_set_source_surface(cr, img, 0, 0);
	cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
	cairo_rectangle(cr, 0, 0, cols, rows);
	cairo_fill(cr);
	cairo_restore(cr);
	plot_page_keep(pp->page, img);
}

/*
 * The grid merged down to what the page can show, as an image for a
 * colour (or the heat ramp); max, if not NULL, gets the largest merged
 * count. NULL on failure, which is recorded on the page.
 */
static cairo_surface_t *merged_image(struct plot_panel *pp,
				     const struct grid *g,
				     const struct cells_px *at, int color_index,
				     int heat, struct grid *shown,
				     uint32_t *max)
{
	cairo_surface_t *img;

	if (grid_merge(g, merge_factor(g->cols, at->width),
		       merge_factor(g->rows, at->height), shown)) {
		plot_page_fail(pp->page, "out of memory for a raster");
		return NULL;
	}
	if (max)
		*max = pp->heat_max ? pp->heat_max : max_count(shown);
	img = grid_image(shown, color_index, heat, heat ? pp->heat_max : 0);
	if (!img)
		plot_page_fail(pp->page, "out of memory for a raster");
	return img;
}

/*
 * Rasters on the same grid and box wait here and are painted together as
 * one image when something else is drawn or the page closes: a cell of
 * reads and writes is drawn in their mix (plot_mix_share) instead of the
 * later hiding the earlier, whatever their order, without a blend mode
 * the output format would have to fake (cairo's SVG falls back to a
 * page-sized bitmap). Waiting also lets a legend declared after the
 * rasters get a row of its own.
 */
void plot_rasters_clear(struct raster_stack *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		bigmem_free(rs->layers[i].counts);
	free(rs->layers);
	memset(rs, 0, sizeof(*rs));
}

/* Cells with a count in g. */
static size_t occupied_cells(const struct grid *g)
{
	size_t i, n = 0;

	for (i = 0; i < (size_t)g->cols * g->rows; i++)
		n += g->counts[i] != 0;
	return n;
}

/*
 * A sparse raster of small cells (a few hundred I/Os over a long trace)
 * would be a scatter of faint specks a few pixels across: its cells are
 * drawn as dots instead, opaque enough to find, while they cover little
 * of the plot. Returns 1 if it drew them.
 */
#define SPARSE_DOT_RADIUS	2.6
#define SPARSE_DOT_ALPHA	0.85

/* Colour c at alpha over white, opaque. */
static struct plot_rgb on_white(struct plot_rgb c, double alpha)
{
	return rgb_mix(rgb_hex(0xFFFFFF), c, alpha);
}

/* The legend's swatch for a cell of both a and b: their mix as a dot of
 * an evenly shared cell draws it. */
struct plot_rgb plot_raster_mix(int a, int b)
{
	return on_white(plot_mix_color(a, b), SPARSE_DOT_ALPHA);
}

/*
 * The colour of each cell of layers on one grid: a cell of one layer in
 * its colour; a cell of several in the mix of its two largest (the rest
 * count towards its density only), by their shares in MIX_LEVELS steps,
 * each pair's steps computed once.
 */
#define MIX_LEVELS	32

struct cell_colors {
	const struct raster_layer *layers;
	const struct grid *merged;	/* the layers' counts, merged alike */
	size_t n;
	struct plot_rgb *mixes;		/* [a][b][MIX_LEVELS + 1] */
	unsigned char *have;
};

static int cell_colors_init(struct cell_colors *cc,
			    const struct raster_layer *layers,
			    const struct grid *merged, size_t n)
{
	size_t slots = n * n * (MIX_LEVELS + 1);

	cc->layers = layers;
	cc->merged = merged;
	cc->n = n;
	cc->mixes = n > 1 ? malloc(slots * sizeof(*cc->mixes)) : NULL;
	cc->have = n > 1 ? calloc(slots, 1) : NULL;
	return n > 1 && (!cc->mixes || !cc->have) ? -1 : 0;
}

static void cell_colors_free(struct cell_colors *cc)
{
	free(cc->mixes);
	free(cc->have);
}

/* Cell k's colour and its count over every layer (0: empty). */
static struct plot_rgb cell_color(struct cell_colors *cc, size_t k,
				  uint64_t *total)
{
	size_t i, a = SIZE_MAX, b = SIZE_MAX, slot;
	uint32_t ca = 0, cb = 0;
	int level;

	*total = 0;
	for (i = 0; i < cc->n; i++) {
		uint32_t c = cc->merged[i].counts[k];

		*total += c;
		if (c > ca) {
			b = a;
			cb = ca;
			a = i;
			ca = c;
		} else if (c > cb) {
			b = i;
			cb = c;
		}
	}
	if (a == SIZE_MAX)
		return rgb_hex(0xFFFFFF);
	if (b == SIZE_MAX)
		return plot_color(cc->layers[a].color_index);
	/* the earlier layer first, so that a pair mixes alike both ways */
	if (b < a) {
		size_t t = a;
		uint32_t tc = ca;

		a = b;
		ca = cb;
		b = t;
		cb = tc;
	}
	level = (int)lround((double)cb / ((double)ca + cb) * MIX_LEVELS);
	slot = (a * cc->n + b) * (MIX_LEVELS + 1) + (size_t)level;
	if (!cc->have[slot]) {
		cc->mixes[slot] = plot_mix_share(cc->layers[a].color_index,
						 cc->layers[b].color_index,
						 (double)level / MIX_LEVELS);
		cc->have[slot] = 1;
	}
	return cc->mixes[slot];
}

#define SPARSE_MAX_COVER	0.12	/* of the plot area, in dots */

/*
 * A dot whose cell centre v is in [lo, lo + len] goes in *out, moved in
 * from the frame by up to its radius so that it shows whole (I/O at the
 * first instant or the lowest offset was half hidden); 0 for a centre
 * outside, which is not drawn.
 */
static int dot_inside(double v, double lo, double len, double *out)
{
	if (v < lo || v > lo + len)
		return 0;
	*out = len < 2 * SPARSE_DOT_RADIUS ? lo + len / 2 :
	       fmin(fmax(v, lo + SPARSE_DOT_RADIUS),
		    lo + len - SPARSE_DOT_RADIUS);
	return 1;
}

int plot_raster_sparse(const struct plot_panel *pp, size_t cells)
{
	double area = pp->laid_out ? pp->area.w * pp->area.h :
				     pp->box.w * pp->box.h / 2;

	return cells * M_PI * SPARSE_DOT_RADIUS * SPARSE_DOT_RADIUS <=
	       SPARSE_MAX_COVER * area;
}

static int rasters_sparse(struct plot_panel *pp, const struct cells_px *at,
			  struct cell_colors *cc, int fx, int fy)
{
	cairo_t *cr = pp->page->cr;
	const struct raster_layer *layers = cc->layers;
	const struct grid *merged = cc->merged;
	double cell_w = at->width * fx / layers[0].cols;
	double cell_h = at->height * fy / layers[0].rows, x, y;
	size_t i, n = 0, n_layers = cc->n;
	int r, c;

	/* Cells as big as the dots show well enough as they are. */
	if (fabs(cell_w) >= 2 * SPARSE_DOT_RADIUS &&
	    fabs(cell_h) >= 2 * SPARSE_DOT_RADIUS)
		return 0;
	for (i = 0; i < n_layers; i++)
		n += occupied_cells(&merged[i]);
	/* The plot's area, not the grid's: a trace far shorter than the
	 * axis has a grid a pixel wide, which dots still show. */
	if (n * M_PI * SPARSE_DOT_RADIUS * SPARSE_DOT_RADIUS >
	    SPARSE_MAX_COVER * pp->area.w * pp->area.h)
		return 0;
	cairo_save(cr);
	cairo_rectangle(cr, pp->area.x, pp->area.y, pp->area.w, pp->area.h);
	cairo_clip(cr);
	for (r = 0; r < merged[0].rows; r++)
		for (c = 0; c < merged[0].cols; c++) {
			size_t cell = (size_t)r * merged[0].cols + c;
			uint64_t total;
			struct plot_rgb rgb = cell_color(cc, cell, &total);

			if (!total ||
			    !dot_inside(at->left + (c + 0.5) * cell_w,
					pp->area.x, pp->area.w, &x) ||
			    !dot_inside(at->bottom - (r + 0.5) * cell_h,
					pp->area.y, pp->area.h, &y))
				continue;
			cairo_new_sub_path(cr);
			cairo_arc(cr, x, y, SPARSE_DOT_RADIUS, 0, 2 * M_PI);
			set_rgba(cr, on_white(rgb, SPARSE_DOT_ALPHA), 1);
			cairo_fill(cr);
		}
	cairo_restore(cr);
	return 1;
}

/* The image of layers on one grid: each cell in its colour (cell_color),
 * more opaque as log(its count) nears the grid's largest; NULL when out
 * of memory. */
static cairo_surface_t *layers_image(struct cell_colors *cc)
{
	const struct grid *g = &cc->merged[0];
	size_t k, n = (size_t)g->cols * g->rows;
	uint32_t max = 0, *line;
	cairo_surface_t *img;
	unsigned char *data;
	int stride, r, c;

	for (k = 0; k < n; k++) {
		uint64_t total = 0;
		size_t i;

		for (i = 0; i < cc->n; i++)
			total += cc->merged[i].counts[k];
		if (total > max)
			max = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
	}
	img = image_surface(g->cols, g->rows);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return NULL;
	}
	cairo_surface_flush(img);
	data = cairo_image_surface_get_data(img);
	stride = cairo_image_surface_get_stride(img);
	for (r = 0; r < g->rows; r++) {
		line = (uint32_t *)(data + (size_t)(g->rows - 1 - r) * stride);
		for (c = 0; c < g->cols; c++) {
			uint64_t total;
			struct plot_rgb rgb = cell_color(cc, (size_t)r * g->cols + c,
							 &total);

			line[c] = !total ? 0 : argb(rgb, RASTER_ALPHA_MIN +
				(RASTER_ALPHA_MAX - RASTER_ALPHA_MIN) *
				count_level(total > UINT32_MAX ? UINT32_MAX :
					    (uint32_t)total, max));
		}
	}
	cairo_surface_mark_dirty(img);
	return img;
}

/* Layers on one grid, merged once, then drawn as dots or as one image. */
static void rasters_paint_grid(struct plot_panel *pp,
			       const struct raster_layer *layers, size_t n)
{
	struct grid g = { NULL, layers[0].cols, layers[0].rows };
	struct cell_colors cc = { .mixes = NULL, .have = NULL };
	struct grid *merged = NULL;
	cairo_surface_t *img;
	struct cells_px at;
	size_t i;
	int fx, fy;

	if (cells_place(pp, layers[0].box, &at))
		return;
	fx = merge_factor(g.cols, at.width);
	fy = merge_factor(g.rows, at.height);
	merged = calloc(n, sizeof(*merged));
	for (i = 0; merged && i < n; i++) {
		g.counts = layers[i].counts;
		if (grid_merge(&g, fx, fy, &merged[i]))
			break;
	}
	if (!merged || i < n || cell_colors_init(&cc, layers, merged, n)) {
		plot_page_fail(pp->page, "out of memory for a raster");
		goto out;
	}
	if (rasters_sparse(pp, &at, &cc, fx, fy))
		goto out;
	img = layers_image(&cc);
	if (!img) {
		plot_page_fail(pp->page, "out of memory for a raster");
		goto out;
	}
	paint_cells(pp, img, &g, &merged[0], &at);
	cairo_surface_destroy(img);
out:
	cell_colors_free(&cc);
	for (i = 0; merged && i < n; i++)
		bigmem_free(merged[i].counts);
	free(merged);
}

static int same_grid(const struct raster_layer *a, int cols, int rows,
		     const double *box)
{
	return a->cols == cols && a->rows == rows &&
	       memcmp(a->box, box, sizeof(a->box)) == 0;
}

/*
 * Each run of layers on one grid is painted as one, in the order given.
 * Called only once the panel is laid out (a series or the page's close):
 * before that the plot area has no size, and a grid flushed then (the
 * first of two traces, whose I/O maps have columns of their own) would
 * be lost.
 */
void plot_rasters_flush(struct plot_panel *pp)
{
	struct raster_stack *rs = &pp->rasters;
	size_t i, j;

	for (i = 0; i < rs->n; i = j) {
		const struct raster_layer *l = &rs->layers[i];

		for (j = i + 1; j < rs->n &&
		     same_grid(&rs->layers[j], l->cols, l->rows, l->box); j++)
			;
		rasters_paint_grid(pp, l, j - i);
	}
	plot_rasters_clear(rs);
}

/* Copies counts onto the stack, to be painted by plot_rasters_flush. */
static int rasters_add(struct plot_panel *pp, const uint32_t *counts,
		       int cols, int rows, const double *box, int color_index)
{
	struct raster_stack *rs = &pp->rasters;
	size_t n = (size_t)cols * rows;
	struct raster_layer *more, *l;
	uint32_t *copy;

	copy = bigmem_calloc(n * sizeof(*copy));
	more = copy ? realloc(rs->layers, (rs->n + 1) * sizeof(*more)) : NULL;
	if (!more) {
		bigmem_free(copy);
		return -1;
	}
	memcpy(copy, counts, n * sizeof(*copy));
	rs->layers = more;
	l = &rs->layers[rs->n++];
	l->counts = copy;
	l->color_index = color_index;
	l->cols = cols;
	l->rows = rows;
	memcpy(l->box, box, sizeof(l->box));
	return 0;
}

int plot_cells_ok(const struct plot_panel *pp, const uint32_t *counts,
		  int cols, int rows)
{
	return pp && counts && cols > 0 && rows > 0 && cols <= 32767 &&
	       rows <= 32767;
}

void plot_raster(struct plot_panel *pp, const uint32_t *counts, int cols,
		 int rows, double x0, double x1, double y0, double y1,
		 int color_index)
{
	double box[4] = { x0, x1, y0, y1 };

	if (!plot_cells_ok(pp, counts, cols, rows))
		return;
	if (rasters_add(pp, counts, cols, rows, box, color_index))
		plot_page_fail(pp->page, "out of memory for a raster");
}

void plot_heatmap_scale(struct plot_panel *pp, uint32_t max)
{
	if (pp)
		pp->heat_max = max;
}

void plot_heatmap_format(struct plot_panel *pp, plot_format_fn fn)
{
	if (pp)
		pp->colorbar_format = fn;
}

static void set_colorbar(struct plot_panel *pp, uint32_t max,
			 const char *count_label)
{
	int failed = 0;

	pp->has_colorbar = 1;
	pp->colorbar_max = fmax(pp->colorbar_max, max);
	free(pp->colorbar_label);
	pp->colorbar_label = plot_dup_or_null(count_label, &failed);
	if (failed)
		plot_page_fail(pp->page, "out of memory");
}

void plot_heatmap_draw(struct plot_panel *pp, const uint32_t *counts,
		       int cols, int rows, const double *box,
		       const char *count_label)
{
	struct grid g = { (uint32_t *)counts, cols, rows }, shown = { 0 };
	cairo_surface_t *img;
	struct cells_px at;
	uint32_t max = 0;

	if (!cells_place(pp, box, &at)) {
		img = merged_image(pp, &g, &at, 0, 1, &shown, &max);
		if (img) {
			paint_cells(pp, img, &g, &shown, &at);
			cairo_surface_destroy(img);
		}
		bigmem_free(shown.counts);
	}
	set_colorbar(pp, max, count_label);
}
