/*
 * movie.c: --movie, a video of the I/O as it happened. The I/O map's cells
 * are sorted into frames once; each frame then paints a background drawn
 * once (the disc, or the rect's band per device with its axes; the
 * legend; and the tput and queue-depth graphs as plot panels, drawn by
 * graphs.c and plot.c as the pictures' are), the
 * I/O of its own time window and of the few before it (fading), the time
 * cursor and the clock, and goes to ffmpeg's standard input as raw YUV
 * 4:2:0 video (a GIF's palette, fixed beforehand, on fd 3). The video is
 * written under a temporary name and renamed when ffmpeg succeeds.
 */
#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/child.h"
#include "graphs/graphs.h"
#include "movie.h"
#include "base/outfile.h"
#include "plot.h"

#define DEFAULT_WIDTH		1280
#define DEFAULT_HEIGHT		720
/* By default a movie lasts as long as its trace, within these bounds:
 * a trace of a few milliseconds is slowed down to be seen at all. */
#define DEFAULT_MIN_LENGTH_S	10.0
#define DEFAULT_MAX_LENGTH_S	60.0
#define MAX_FRAMES		1000000
#define FADE_FRAMES		6	/* I/O stays visible this many frames */
/* The small graphs' text and lines are the stills' at this frame height
 * and grow with it; in small frames they shrink only so far, to stay
 * legible. */
#define GRAPH_SCALE_HEIGHT	720.0
#define GRAPH_MIN_SCALE		0.75

/* One map cell, placed: where it goes and in which colour. */
struct dot {
	float pos;		/* offset within its device's extent, 0..1 */
	float jitter;		/* 0..1, spreads dots across a ring */
	uint32_t count;
	int16_t class_idx;
	int8_t dir;
	uint8_t band;		/* its device: the rect's band */
};

/* The rect draws a band per device, at most this many (the rest are
 * drawn in the last, which says so). */
#define MAX_BANDS	8

struct extent {
	uint64_t lo, hi;	/* bytes the device's I/O spans */
};

/* A device with I/O in any trace, and where the rect draws it. */
struct movie_device {
	uint32_t device;
	struct extent e;	/* over every trace */
	struct plot_rect area;	/* its band's plot area, px */
	double pad;		/* room in it past e, as a share of e */
};

struct frame_dots {
	size_t *first;		/* dots of frame f: first[f] .. first[f+1] */
	struct dot *dots;
	size_t n;
};

struct layout {
	double title_h;
	double font;
	double main_x, main_y, main_w, main_h;	/* disc or rectangle */
	double side_x, side_y, side_w, side_h;	/* the small graphs' column */
	double scale;		/* of the graphs' page: px per unit */
	struct plot_rect area[2];	/* their plot areas, px: the cursor's */
};

struct movie {
	const struct options *o;
	struct graph_ctx ctx;
	struct class_list cl;
	enum movie_container container;
	int w, h, fps;
	size_t frames;
	double t0, t1, dt;	/* trace seconds shown, and per frame */
	struct layout lay;
	struct movie_device devs[MAX_BANDS];
	size_t n_devs;
	int more_devices;	/* past MAX_BANDS, in the last band */
	struct frame_dots fd;
	char *class_used;	/* classes with any I/O: legend entries */
	unsigned char *yuv;	/* the frame as ffmpeg gets it */
	unsigned char *bg_yuv;	/* the background, converted once */
	cairo_surface_t *frame, *background, *trail;
	/* ffmpeg */
	pid_t pid;
	int to_ffmpeg;
	FILE *ffmpeg_log;
	struct outfile out;	/* ffmpeg writes it aside, renamed when whole */
};

/* ---- containers and encoder arguments ---- */

/* Encoder arguments for the container; NULL-terminated. */
static const char *const *encoder_args(enum movie_container c)
{
	static const char *const mp4[] = {
		"-c:v", "libx264", "-preset", "ultrafast", "-tune", "animation",
		"-crf", "23",
		"-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4",
		NULL };
	static const char *const webm[] = {
		"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
		"-b:v", "0", "-crf", "35", "-pix_fmt", "yuv420p", "-f", "webm",
		NULL };
	static const char *const ogv[] = {
		"-c:v", "libtheora", "-q:v", "7", "-pix_fmt", "yuv420p",
		"-f", "ogg", NULL };
	/* input 1 is gif_palette's, on fd 3: one palette for every frame
	 * (so frames are stored as differences), and nothing held back
	 * (palettegen keeps every frame until the end: gigabytes) */
	static const char *const gif[] = {
		"-lavfi", "[0:v][1:v]paletteuse=dither=none:diff_mode=rectangle",
		"-f", "gif", NULL };

	switch (c) {
	case MOVIE_WEBM:
		return webm;
	case MOVIE_OGV:
		return ogv;
	case MOVIE_GIF:
		return gif;
	case MOVIE_MP4:
	default:
		return mp4;
	}
}

/* ---- placing the I/O in frames ---- */

static void device_extent(const struct analysis *a, size_t d,
			  struct extent *e)
{
	struct iomap_point p;
	size_t i = 0;

	e->lo = UINT64_MAX;
	e->hi = 0;
	while (iomap_next(&a->iomaps[d], &i, &p)) {
		uint64_t lo, hi;

		analysis_map_row_bytes(a, d, p.row, &lo, &hi);
		if (lo < e->lo)
			e->lo = lo;
		if (hi > e->hi)
			e->hi = hi;
	}
	if (e->hi <= e->lo)
		e->hi = e->lo + 1;
}

/* The band of a device: its place among m->devs (the last for those
 * past MAX_BANDS). */
static size_t band_of(const struct movie *m, uint32_t device)
{
	size_t k;

	for (k = 0; k < m->n_devs; k++)
		if (m->devs[k].device == device)
			return k;
	return MAX_BANDS - 1;
}

/*
 * The devices with I/O, in order of appearance, each with the offsets its
 * I/O spans in every trace: the rect's bands, and what the disc and the
 * bands place a dot within. Devices past MAX_BANDS share the last band.
 */
static void find_devices(struct movie *m)
{
	size_t t, d, k;

	for (t = 0; t < m->ctx.n_traces; t++) {
		const struct analysis *a = &m->ctx.traces[t].analysis;

		for (d = 0; d < a->n_devices; d++) {
			struct extent e;

			if (!a->iomaps[d].window_set)
				continue;
			device_extent(a, d, &e);
			k = band_of(m, a->devices[d].device);
			if (k == MAX_BANDS - 1 && m->n_devs < MAX_BANDS) {
				k = m->n_devs++;
				m->devs[k].device = a->devices[d].device;
				m->devs[k].e = e;
				continue;
			}
			if (k == MAX_BANDS - 1 &&
			    m->devs[k].device != a->devices[d].device)
				m->more_devices = 1;
			if (e.lo < m->devs[k].e.lo)
				m->devs[k].e.lo = e.lo;
			if (e.hi > m->devs[k].e.hi)
				m->devs[k].e.hi = e.hi;
		}
	}
}

static long class_of(const struct class_list *cl, size_t trace,
		     const struct iomap_point *p)
{
	size_t k;

	for (k = 0; k < cl->n; k++) {
		const struct io_class *c = &cl->items[k];

		if (c->trace != trace)
			continue;
		if (c->dir >= 0 ? c->dir == p->dir && p->tag_slot == SIZE_MAX :
		    p->tag_slot != SIZE_MAX &&
		    cl->slot_class[trace][p->tag_slot] == k)
			return (long)k;
	}
	return -1;
}

/* Frames [*f0, *f1) a map column of trace a covers. */
static void column_frames(const struct movie *m, const struct analysis *a,
			  size_t col, size_t *f0, size_t *f1)
{
	double s = analysis_map_col_start_s(a, col);
	double e = analysis_map_col_start_s(a, col + 1);
	double lo = (s - m->t0) / m->dt, hi = (e - m->t0) / m->dt;

	if (lo < 0)
		lo = 0;
	*f0 = (size_t)lo;
	*f1 = hi > (double)m->frames ? m->frames : (size_t)ceil(hi);
	if (*f1 <= *f0)
		*f1 = *f0 + 1;
	if (*f0 >= m->frames)
		*f0 = *f1 = m->frames;
}

static float jitter_of(size_t a, size_t b)
{
	uint32_t h = (uint32_t)(a * 2654435761u ^ (b + 0x9e3779b9u) * 40503u);

	h ^= h >> 15;
	h *= 0x2c1b3c6d;
	h ^= h >> 12;
	return (float)(h & 0xffff) / 65536.0f;
}

/*
 * Two passes over every cell: count dots per frame, then place them. A
 * column spanning several frames shows in each of them.
 */
static int place_dots(struct movie *m)
{
	struct frame_dots *fd = &m->fd;
	size_t *fill = NULL, pass;

	fd->first = calloc(m->frames + 2, sizeof(*fd->first));
	if (!fd->first)
		return -1;
	find_devices(m);
	for (pass = 0; pass < 2; pass++) {
		size_t t, d;

		for (t = 0; t < m->ctx.n_traces; t++) {
			const struct analysis *a = &m->ctx.traces[t].analysis;

			for (d = 0; d < a->n_devices; d++) {
				struct iomap_point p;
				struct extent e;
				size_t i = 0, band;

				if (!a->iomaps[d].window_set)
					continue;
				band = band_of(m, a->devices[d].device);
				e = m->devs[band].e;
				while (iomap_next(&a->iomaps[d], &i, &p)) {
					long k = class_of(&m->cl, t, &p);
					size_t f0, f1, f;
					uint64_t lo, hi;

					if (k < 0)
						continue;
					column_frames(m, a, p.col, &f0, &f1);
					if (pass == 0) {
						for (f = f0; f < f1; f++)
							fd->first[f + 1]++;
						continue;
					}
					analysis_map_row_bytes(a, d, p.row, &lo,
							       &hi);
					for (f = f0; f < f1; f++) {
						struct dot *dot =
							&fd->dots[fill[f]++];

						dot->pos = (float)((double)(lo - e.lo) /
								   (double)(e.hi - e.lo));
						dot->jitter = jitter_of(i, d);
						dot->count = p.count;
						dot->class_idx = (int16_t)k;
						m->class_used[k] = 1;
						dot->dir = (int8_t)p.dir;
						dot->band = (uint8_t)band;
					}
				}
			}
		}
		if (pass == 0) {
			size_t f;

			for (f = 0; f < m->frames; f++)
				fd->first[f + 1] += fd->first[f];
			fd->n = fd->first[m->frames];
			fd->dots = malloc((fd->n + 1) * sizeof(*fd->dots));
			fill = malloc((m->frames + 1) * sizeof(*fill));
			if (!fd->dots || !fill) {
				free(fill);
				return -1;
			}
			memcpy(fill, fd->first, m->frames * sizeof(*fill));
		}
	}
	free(fill);
	return 0;
}

/* ---- drawing ---- */

static void set_color(cairo_t *cr, int color, double alpha)
{
	struct plot_rgb c = plot_color(color);

	cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

static void make_layout(struct movie *m)
{
	struct layout *l = &m->lay;
	double pad;

	l->font = m->h / 48.0 < 9 ? 9 : m->h / 48.0;
	pad = l->font;
	l->title_h = l->font * 4.2;
	l->main_x = pad;
	l->main_y = l->title_h;
	l->main_w = m->w * 0.58 - 2 * pad;
	l->main_h = m->h - l->title_h - pad * 1.6;
	/* two panels, one above the other, beside the disc */
	l->side_x = m->w * 0.58 + pad;
	l->side_y = l->title_h - pad * 0.8;
	l->side_w = m->w - l->side_x - pad * 0.5;
	l->side_h = m->h - l->side_y - pad * 0.5;
	l->scale = fmax(m->h / GRAPH_SCALE_HEIGHT, GRAPH_MIN_SCALE);
}

/*
 * Throughput and queue depth as plot panels on surface s, as the still
 * pictures draw them, panel i's left edge moved in by inset[i] px; their
 * plot areas go in l->area.
 */
static int small_graphs_on(struct movie *m, cairo_surface_t *s,
			   const double inset[2], FILE *layout,
			   struct iow_error *err)
{
	static const char *const names[2] = { "tput", "queue-depth" };
	struct layout *l = &m->lay;
	double k = l->scale, h = l->side_h / 2;
	struct plot_page *page;
	int i;

	page = plot_page_open_surface(s, k, "the movie's graphs", err);
	if (!page)
		return -1;
	for (i = 0; i < 2; i++) {
		struct plot_rect r = { (l->side_x + inset[i]) / k,
				       (l->side_y + i * h) / k,
				       (l->side_w - inset[i]) / k, h / k };
		struct plot_panel *pp = NULL;

		m->ctx.graph = graph_find(names[i]);
		if (graph_draw_panel(&m->ctx, 0, page, r, layout, &pp,
				     err) < 0) {
			m->ctx.graph = NULL;
			plot_page_abort(page);
			return -1;
		}
		r = plot_panel_area(pp);
		l->area[i] = (struct plot_rect){ r.x * k, r.y * k, r.w * k,
						 r.h * k };
	}
	m->ctx.graph = NULL;
	return plot_page_close(page, err);
}

/*
 * The small graphs, drawn once into the background; the frames add the
 * cursor. A first drawing aside finds where each panel's y labels end
 * the plot area, so that the panel with the narrower labels can move in
 * and the two time axes (and cursors) line up.
 */
static int draw_small_graphs(struct movie *m, struct iow_error *err)
{
	double inset[2] = { 0, 0 }, left;
	cairo_surface_t *aside;
	FILE *layout;
	int i, rc;

	aside = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, m->w, m->h);
	rc = small_graphs_on(m, aside, inset, NULL, err);
	cairo_surface_destroy(aside);
	if (rc < 0)
		return -1;
	left = fmax(m->lay.area[0].x, m->lay.area[1].x);
	for (i = 0; i < 2; i++)
		inset[i] = left - m->lay.area[i].x;
	layout = graph_layout_file();
	rc = small_graphs_on(m, m->background, inset, layout, err);
	if (layout)
		fclose(layout);
	return rc;
}

static void draw_legend(struct movie *m, cairo_t *cr)
{
	const struct layout *l = &m->lay;
	double x = l->main_x, y = l->font * 3.3;
	size_t k;

	for (k = 0; k < m->cl.n && k < 12; k++) {
		if (!m->class_used[k])
			continue;
		set_color(cr, m->cl.items[k].color, 1);
		cairo_rectangle(cr, x, y - l->font * 0.8, l->font * 0.8,
				l->font * 0.8);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
		x += l->font * 2.2 +
		     plot_caption(cr, x + l->font * 1.1, y, l->font, 0,
				  m->cl.items[k].label, 0);
		if (x > m->w * 0.95)
			break;
	}
}

static void disc_geometry(const struct movie *m, double *cx, double *cy,
			  double *r)
{
	const struct layout *l = &m->lay;

	*r = (l->main_w < l->main_h ? l->main_w : l->main_h) / 2 * 0.92;
	*cx = l->main_x + l->main_w / 2;
	*cy = l->main_y + l->main_h / 2;
}

static void draw_main_background(struct movie *m, cairo_t *cr)
{
	const struct layout *l = &m->lay;

	if (m->o->movie == MOVIE_SPINDLE) {
		double cx, cy, r;

		disc_geometry(m, &cx, &cy, &r);
		cairo_set_source_rgb(cr, 0.95, 0.95, 0.96);
		cairo_arc(cr, cx, cy, r, 0, 2 * M_PI);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_arc(cr, cx, cy, r * 0.25, 0, 2 * M_PI);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.6, 0.6, 0.62);
		cairo_set_line_width(cr, 1);
		cairo_arc(cr, cx, cy, r, 0, 2 * M_PI);
		cairo_stroke(cr);
		cairo_arc(cr, cx, cy, r * 0.25, 0, 2 * M_PI);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
		plot_caption(cr, cx, cy - r - l->font * 0.3, l->font * 0.9, 0,
			     "offset 0", 0.5);
		plot_caption(cr, cx, cy + r + l->font * 1.05, l->font * 0.85,
			     0, "offset clockwise; reads on the outer ring, writes inner",
			     0.5);
	}
}

/* Room above and below a band's offsets, as a share of their span, so
 * that I/O at the extremes is not on the frame (as the io graph). */
#define BAND_PAD	0.03

/*
 * The rect: a plot panel per device, one above the other, with its axes
 * (time along, the offset in its binary unit up) and its device in the
 * title, as the io graph draws them; each frame then puts a device's
 * dots in its band's plot area. With layout, each band's plot area is
 * appended to it as "rect BAND x y w h t0 t1 title" (px).
 */
static int draw_rect_bands(struct movie *m, FILE *layout,
			   struct iow_error *err)
{
	const struct layout *l = &m->lay;
	double k = l->scale, gap = l->font * 0.5, h;
	struct plot_page *page;
	size_t b;

	if (!m->n_devs)
		return 0;
	page = plot_page_open_surface(m->background, k, "the movie's bands",
				      err);
	if (!page)
		return -1;
	h = (l->main_h - gap * (double)(m->n_devs - 1)) / (double)m->n_devs;
	for (b = 0; b < m->n_devs; b++) {
		struct movie_device *md = &m->devs[b];
		double span = (double)(md->e.hi - md->e.lo), unit, lo, hi;
		int p = plot_bytes_unit((double)md->e.hi, 2, &unit);
		char title[96], y_label[32];
		struct plot_panel *pp;
		struct plot_rect r;

		snprintf(title, sizeof(title), "device %u,%u%s",
			 md->device >> 20, md->device & 0xfffff,
			 b == MAX_BANDS - 1 && m->more_devices ?
				 " and the devices after it" : "");
		snprintf(y_label, sizeof(y_label), "offset (%s)",
			 plot_bytes_unit_name(p));
		lo = (double)md->e.lo - span * BAND_PAD;
		hi = (double)md->e.hi + span * BAND_PAD;
		pp = plot_panel_add(page, l->main_x / k,
				    (l->main_y + (double)b * (h + gap)) / k,
				    l->main_w / k, h / k, title, "time",
				    y_label);
		plot_panel_set_x(pp, m->t0, m->t1);
		plot_panel_set_x_format(pp, plot_format_seconds);
		plot_panel_set_y_exact(pp, lo / unit, hi / unit);
		plot_panel_draw_axes(pp);
		r = plot_panel_area(pp);
		md->area = (struct plot_rect){ r.x * k, r.y * k, r.w * k,
					       r.h * k };
		md->pad = BAND_PAD;
		if (layout)
			fprintf(layout, "rect %zu %.1f %.1f %.1f %.1f %.9g %.9g %s\n",
				b, md->area.x, md->area.y, md->area.w,
				md->area.h, m->t0, m->t1, title);
	}
	return plot_page_close(page, err);
}

static int draw_background(struct movie *m, struct iow_error *err)
{
	const char *title = m->o->title;
	char auto_title[300];
	size_t n = m->ctx.n_traces;
	cairo_t *cr;

	m->background = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, m->w,
						   m->h);
	cr = cairo_create(m->background);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	if (!title) {
		snprintf(auto_title, sizeof(auto_title), "iowatcher: %s%s",
			 m->ctx.traces[0].label, n > 1 ? " and others" : "");
		title = auto_title;
	}
	cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
	plot_caption(cr, m->lay.main_x, m->lay.font * 1.6, m->lay.font * 1.35,
		     1, title, 0);
	draw_legend(m, cr);
	draw_main_background(m, cr);
	cairo_destroy(cr);
	if (cairo_surface_status(m->background) != CAIRO_STATUS_SUCCESS)
		return iow_fail(err, "cannot draw the movie's background");
	if (m->o->movie == MOVIE_RECT) {
		FILE *layout = graph_layout_file();
		int rc = draw_rect_bands(m, layout, err);

		if (layout)
			fclose(layout);
		if (rc < 0)
			return -1;
	}
	return draw_small_graphs(m, err);
}

static double dot_radius(const struct movie *m, uint32_t count)
{
	double base = m->lay.font * 0.28, r;

	/* bigger for busier cells, but never a blob hiding its neighbours */
	r = base * (1 + 0.4 * log2(1 + (double)count));
	if (r > base * 2.6)
		r = base * 2.6;
	if (m->o->movie == MOVIE_RECT) {
		/* a frame is one column of a band: stay inside it */
		double col = (m->n_devs ? m->devs[0].area.w : m->lay.main_w) /
			     (double)m->frames;

		if (r > col * 0.6)
			r = col * 0.6;
		if (r < 1.1)
			r = 1.1;
	}
	return r;
}

/* Where a dot goes on the disc: angle by offset, ring by direction. */
static void disc_point(const struct movie *m, const struct dot *d, double *x,
		       double *y)
{
	double cx, cy, r, angle, rr;

	disc_geometry(m, &cx, &cy, &r);
	angle = -M_PI / 2 + 2 * M_PI * d->pos;
	rr = d->dir ? r * (0.30 + 0.28 * d->jitter) : r * (0.64 + 0.32 * d->jitter);
	*x = cx + rr * cos(angle);
	*y = cy + rr * sin(angle);
}

static void rect_point(const struct movie *m, size_t frame,
		       const struct dot *d, double *x, double *y)
{
	const struct movie_device *md = &m->devs[d->band];
	const struct plot_rect *a = &md->area;

	*x = a->x + ((double)frame + 0.5) / (double)m->frames * a->w;
	*y = a->y + a->h - (md->pad + d->pos) / (1 + 2 * md->pad) * a->h;
}

/*
 * A disc blended straight into the surface's pixels (premultiplied
 * ARGB32), coverage from the distance to the centre: a few pixels wide,
 * thousands a frame, cairo's path filling cost twenty times as much.
 */
static void blit_dot(unsigned char *data, int stride, int w, int h,
		     double cx, double cy, double r, struct plot_rgb c,
		     double alpha)
{
	int x0 = (int)floor(cx - r - 1), x1 = (int)ceil(cx + r + 1);
	int y0 = (int)floor(cy - r - 1), y1 = (int)ceil(cy + r + 1), x, y;
	double cr = c.r * 255, cg = c.g * 255, cb = c.b * 255;

	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x1 > w)
		x1 = w;
	if (y1 > h)
		y1 = h;
	for (y = y0; y < y1; y++) {
		uint32_t *row = (uint32_t *)(data + (size_t)y * stride);
		double dy = y + 0.5 - cy;

		for (x = x0; x < x1; x++) {
			double dx = x + 0.5 - cx, cov, a, keep;
			uint32_t px = row[x];

			cov = r + 0.5 - sqrt(dx * dx + dy * dy);
			if (cov <= 0)
				continue;
			a = alpha * (cov > 1 ? 1 : cov);
			keep = 1 - a;
			row[x] = (uint32_t)(a * 255 + ((px >> 24) & 255) * keep) << 24 |
				 (uint32_t)(a * cr + ((px >> 16) & 255) * keep) << 16 |
				 (uint32_t)(a * cg + ((px >> 8) & 255) * keep) << 8 |
				 (uint32_t)(a * cb + (px & 255) * keep);
		}
	}
}

static void draw_dots(struct movie *m, cairo_surface_t *s, size_t frame,
		      double alpha, double grow)
{
	const struct frame_dots *fd = &m->fd;
	unsigned char *data;
	int stride;
	size_t i;

	cairo_surface_flush(s);
	data = cairo_image_surface_get_data(s);
	stride = cairo_image_surface_get_stride(s);
	for (i = fd->first[frame]; i < fd->first[frame + 1]; i++) {
		const struct dot *d = &fd->dots[i];
		double x, y;

		if (m->o->movie == MOVIE_SPINDLE)
			disc_point(m, d, &x, &y);
		else
			rect_point(m, frame, d, &x, &y);
		blit_dot(data, stride, m->w, m->h, x, y,
			 dot_radius(m, d->count) * grow,
			 plot_color(m->cl.items[d->class_idx].color), alpha);
	}
	cairo_surface_mark_dirty(s);
}

static void format_clock(double t, double span, char *buf, size_t len)
{
	if (span >= 2)
		snprintf(buf, len, "t = %.2f s", t);
	else
		snprintf(buf, len, "t = %.1f ms", t * 1e3);
}

static void draw_frame(struct movie *m, size_t f)
{
	const struct layout *l = &m->lay;
	double now = m->t0 + ((double)f + 1) * m->dt, x;
	cairo_t *cr = cairo_create(m->frame);
	char clock[64];
	size_t k;

	cairo_set_source_surface(cr, m->background, 0, 0);
	cairo_paint(cr);
	if (m->trail) {
		/* rect: what went before stays, pale */
		draw_dots(m, m->trail, f, 0.35, 1);
		cairo_set_source_surface(cr, m->trail, 0, 0);
		cairo_paint(cr);
	}
	cairo_surface_flush(m->frame);
	for (k = FADE_FRAMES; k-- > 0;) {
		if (k > f)
			continue;
		draw_dots(m, m->frame, f - k, 1.0 - (double)k / FADE_FRAMES,
			  k ? 1 : 1.4);
	}
	/* the time cursor on the small graphs (and the rectangle) */
	cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.8);
	cairo_set_line_width(cr, 1.5);
	for (k = 0; k < 2; k++) {
		const struct plot_rect *a = &l->area[k];

		x = a->x + (now - m->t0) / (m->t1 - m->t0) * a->w;
		cairo_move_to(cr, x, a->y);
		cairo_line_to(cr, x, a->y + a->h);
	}
	for (k = 0; m->o->movie == MOVIE_RECT && k < m->n_devs; k++) {
		const struct plot_rect *a = &m->devs[k].area;

		x = a->x + (now - m->t0) / (m->t1 - m->t0) * a->w;
		cairo_move_to(cr, x, a->y);
		cairo_line_to(cr, x, a->y + a->h);
	}
	cairo_stroke(cr);
	format_clock(now, m->t1 - m->t0, clock, sizeof(clock));
	cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
	plot_caption(cr, m->w - l->font, l->font * 1.6, l->font * 1.35, 1,
		     clock, 1);
	cairo_destroy(cr);
	cairo_surface_flush(m->frame);
}

/* ---- ffmpeg ---- */

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

#define GIF_PALETTE	256
#define GIF_GREYS	48
#define GIF_MIXES	12	/* steps from a colour to the background */

static int palette_add(unsigned char *pal, int n, struct plot_rgb c)
{
	unsigned char r = (unsigned char)lround(c.r * 255);
	unsigned char g = (unsigned char)lround(c.g * 255);
	unsigned char b = (unsigned char)lround(c.b * 255);
	int i;

	for (i = 0; i < n; i++)
		if (pal[3 * i] == r && pal[3 * i + 1] == g && pal[3 * i + 2] == b)
			return n;
	if (n >= GIF_PALETTE)
		return n;
	pal[3 * n] = r;
	pal[3 * n + 1] = g;
	pal[3 * n + 2] = b;
	return n + 1;
}

static int palette_add_color(unsigned char *pal, int n, int color)
{
	static const struct plot_rgb bg = { 0.95, 0.95, 0.96 };
	struct plot_rgb c = plot_color(color);
	int k;

	for (k = 0; k < GIF_MIXES; k++) {
		double t = (double)k / GIF_MIXES;
		struct plot_rgb mix = { c.r + (bg.r - c.r) * t,
					c.g + (bg.g - c.g) * t,
					c.b + (bg.b - c.b) * t };

		n = palette_add(pal, n, mix);
	}
	return n;
}

/*
 * A GIF's 256 colours, known before the first frame: a grey ramp (text,
 * frames, backgrounds) and every colour a dot or a line is drawn in,
 * faded towards the background in steps. Unused entries repeat white.
 */
static void gif_palette(const struct movie *m, unsigned char *pal)
{
	int n = 0, i;
	size_t k;

	for (i = 0; i < GIF_GREYS; i++) {
		double v = (double)i / (GIF_GREYS - 1);
		struct plot_rgb grey = { v, v, v };

		n = palette_add(pal, n, grey);
	}
	/* classes with dots first: with many tags, the rest may not fit
	 * (palette_add skips what is already in) */
	for (k = 0; k < m->cl.n; k++)
		if (m->class_used[k])
			n = palette_add_color(pal, n, m->cl.items[k].color);
	for (k = 0; k < m->cl.n; k++)
		n = palette_add_color(pal, n, m->cl.items[k].color);
	for (k = 0; k < m->ctx.n_traces && k < 8; k++)
		n = palette_add_color(pal, n, (int)k);
	n = palette_add_color(pal, n, 7);
	for (i = n; i < GIF_PALETTE; i++)
		memset(pal + 3 * i, 255, 3);
}

/* Appends the NULL-terminated args to argv at n; the new n. */
static int add_args(const char **argv, int n, const char *const *args)
{
	while (*args)
		argv[n++] = *args++;
	return n;
}

static int start_ffmpeg(struct movie *m, struct iow_error *err)
{
	const char *const *enc = encoder_args(m->container);
	const char *argv[64];
	char size[32], rate[16];
	/* the frames on stdin, converted here beside the encoder */
	const char *const frames_in[] = {
		"ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size,
		"-r", rate, "-i", "-", NULL };
	/* a GIF's palette (gif_palette) on fd 3 */
	static const char *const palette_in[] = {
		"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "16x16",
		"-i", "pipe:3", NULL };
	struct child_spec c;
	const char *dot = strrchr(m->o->output, '.');
	int pipefd[2], palfd[2] = { -1, -1 }, n = 0, rc;

	/* the temporary ends as the output does: ffmpeg picks its format
	 * by the name, and writes it by name itself */
	if (outfile_open(&m->out, m->o->output, dot, err) < 0)
		return -1;
	close(m->out.fd);
	m->out.fd = -1;
	snprintf(size, sizeof(size), "%dx%d", m->w, m->h);
	snprintf(rate, sizeof(rate), "%d", m->fps);
	n = add_args(argv, n, frames_in);
	if (m->container == MOVIE_GIF)
		n = add_args(argv, n, palette_in);
	n = add_args(argv, n, enc);
	argv[n++] = m->out.tmp_path;
	argv[n] = NULL;
	m->ffmpeg_log = tmpfile();
	if (!m->ffmpeg_log || pipe2(pipefd, O_CLOEXEC) < 0)
		return iow_fail(err, "cannot start ffmpeg: %s", strerror(errno));
	if (m->container == MOVIE_GIF) {
		unsigned char pal[GIF_PALETTE * 3];

		/* 768 bytes: the pipe holds them all before ffmpeg runs */
		gif_palette(m, pal);
		if (pipe2(palfd, O_CLOEXEC) < 0 ||
		    write_all(palfd[1], pal, sizeof(pal)) < 0) {
			close(pipefd[0]);
			close(pipefd[1]);
			return iow_fail(err, "cannot start ffmpeg: %s",
					strerror(errno));
		}
		close(palfd[1]);
	}
	child_spec_init(&c, (char *const *)argv);
	c.fd[0] = pipefd[0];
	c.fd[1] = c.fd[2] = fileno(m->ffmpeg_log);
	c.fd[3] = palfd[0];
	rc = child_start(&c, &m->pid);
	close(pipefd[0]);
	if (palfd[0] >= 0)
		close(palfd[0]);
	if (rc) {
		close(pipefd[1]);
		m->pid = 0;
		return iow_fail(err, "cannot run ffmpeg (%s): movies need Debian's ffmpeg package",
				strerror(rc));
	}
	m->to_ffmpeg = pipefd[1];
	return 0;
}

/* ffmpeg's last line of complaint, for our one line. */
/*
 * ffmpeg's last line of complaint, with the temporary name it was given
 * put back as the user's (the temporary is ours, never theirs to see).
 */
static void ffmpeg_last_line(struct movie *m, char *buf, size_t len)
{
	char line[512], *at;
	size_t tmp_len;

	snprintf(buf, len, "no message");
	if (!m->ffmpeg_log)
		return;
	rewind(m->ffmpeg_log);
	while (fgets(line, sizeof(line), m->ffmpeg_log)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0])
			snprintf(buf, len, "%s", line);
	}
	if (!m->out.tmp_path || !(at = strstr(buf, m->out.tmp_path)))
		return;
	tmp_len = strlen(m->out.tmp_path);
	snprintf(line, sizeof(line), "%.*s%s%s", (int)(at - buf), buf,
		 m->out.path, at + tmp_len);
	snprintf(buf, len, "%s", line);
}

/*
 * BT.601 limited-range YUV 4:2:0 from cairo's ARGB32 (opaque here), in
 * this process: the conversion then runs beside the encoder, not in
 * front of it, and the pipe carries 1.5 bytes a pixel instead of 4.
 */
struct yuv_planes {
	unsigned char *y, *u, *v;
};

static struct yuv_planes yuv_planes(const struct movie *m, unsigned char *buf)
{
	struct yuv_planes p = { buf, buf + (size_t)m->w * m->h,
				buf + (size_t)m->w * m->h * 5 / 4 };
	return p;
}

/* Rows y and y + 1 (y even), columns [x0, x1) (both even). */
static void yuv_convert(const struct movie *m, const unsigned char *data,
			int stride, int y, int x0, int x1,
			struct yuv_planes out)
{
	const uint32_t *r0 = (const uint32_t *)(data + (size_t)y * stride);
	const uint32_t *r1 = (const uint32_t *)(data + (size_t)(y + 1) * stride);
	unsigned char *y0 = out.y + (size_t)y * m->w;
	unsigned char *y1 = y0 + m->w;
	unsigned char *u = out.u + (size_t)(y / 2) * (m->w / 2);
	unsigned char *v = out.v + (size_t)(y / 2) * (m->w / 2);
	int x;

	for (x = x0; x < x1; x += 2) {
		uint32_t p[4] = { r0[x], r0[x + 1], r1[x], r1[x + 1] };
		unsigned char *yo[4] = { y0 + x, y0 + x + 1, y1 + x, y1 + x + 1 };
		int r = 0, g = 0, b = 0, k;

		for (k = 0; k < 4; k++) {
			int pr = (p[k] >> 16) & 255, pg = (p[k] >> 8) & 255;
			int pb = p[k] & 255;

			*yo[k] = (unsigned char)(((66 * pr + 129 * pg + 25 * pb +
						   128) >> 8) + 16);
			r += pr;
			g += pg;
			b += pb;
		}
		r = (r + 2) / 4;
		g = (g + 2) / 4;
		b = (b + 2) / 4;
		u[x / 2] = (unsigned char)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
		v[x / 2] = (unsigned char)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
	}
}

/* The background, converted once: frames copy what they did not change. */
static int background_to_yuv(struct movie *m)
{
	const unsigned char *data;
	int stride, y;

	m->bg_yuv = malloc((size_t)m->w * m->h * 3 / 2);
	if (!m->bg_yuv)
		return -1;
	cairo_surface_flush(m->background);
	data = cairo_image_surface_get_data(m->background);
	stride = cairo_image_surface_get_stride(m->background);
	for (y = 0; y < m->h; y += 2)
		yuv_convert(m, data, stride, y, 0, m->w, yuv_planes(m, m->bg_yuv));
	return 0;
}

/*
 * The frame in YUV: spans of YUV_SPAN pixels on two rows that equal the
 * background's are copied from its conversion (most of a frame is the
 * background: converting every pixel was two thirds of a movie's time).
 */
#define YUV_SPAN	16

static void frame_to_yuv420(struct movie *m)
{
	const unsigned char *data = cairo_image_surface_get_data(m->frame);
	const unsigned char *bg = cairo_image_surface_get_data(m->background);
	int stride = cairo_image_surface_get_stride(m->frame), x, y;
	struct yuv_planes out = yuv_planes(m, m->yuv);
	struct yuv_planes in = yuv_planes(m, m->bg_yuv);

	for (y = 0; y < m->h; y += 2) {
		size_t row = (size_t)y * stride, next = row + stride;

		for (x = 0; x < m->w; x += YUV_SPAN) {
			int x1 = x + YUV_SPAN < m->w ? x + YUV_SPAN : m->w;
			size_t at = (size_t)x * 4, len = (size_t)(x1 - x) * 4;
			size_t yo = (size_t)y * m->w + x;
			size_t co = (size_t)(y / 2) * (m->w / 2) + x / 2;

			if (memcmp(data + row + at, bg + row + at, len) ||
			    memcmp(data + next + at, bg + next + at, len)) {
				yuv_convert(m, data, stride, y, x, x1, out);
				continue;
			}
			memcpy(out.y + yo, in.y + yo, (size_t)(x1 - x));
			memcpy(out.y + yo + m->w, in.y + yo + m->w,
			       (size_t)(x1 - x));
			memcpy(out.u + co, in.u + co, (size_t)(x1 - x) / 2);
			memcpy(out.v + co, in.v + co, (size_t)(x1 - x) / 2);
		}
	}
}

static int send_frame(struct movie *m)
{
	frame_to_yuv420(m);
	return write_all(m->to_ffmpeg, m->yuv, (size_t)m->w * m->h * 3 / 2);
}

/* Close ffmpeg's input and wait; 0 when it made the video. */
static int finish_ffmpeg(struct movie *m, int kill_it, struct iow_error *err)
{
	char last[512];
	int status = 0;

	if (m->to_ffmpeg > 0) {
		close(m->to_ffmpeg);
		m->to_ffmpeg = -1;
	}
	if (!m->pid)
		return -1;
	if (kill_it) {
		child_stop(m->pid, SIGKILL, 0);
		m->pid = 0;
		return -1;
	}
	while (waitpid(m->pid, &status, 0) < 0 && errno == EINTR)
		;
	m->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	ffmpeg_last_line(m, last, sizeof(last));
	if (WIFSIGNALED(status))
		return iow_fail(err, "%s: ffmpeg was killed by signal %d: %s",
				m->o->output, WTERMSIG(status), last);
	return iow_fail(err, "%s: ffmpeg failed (exit %d): %s", m->o->output,
			WEXITSTATUS(status), last);
}

static void progress(size_t done, size_t total, double started)
{
	struct timespec ts;
	double now, rate;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec + ts.tv_nsec / 1e9;
	rate = (double)done / (now - started > 1e-3 ? now - started : 1e-3);
	fprintf(stderr, "\riowatcher: movie frame %zu/%zu (%3.0f%%) %.0f fps, %.0f s left ",
		done, total, 100.0 * (double)done / (double)total, rate,
		(double)(total - done) / (rate > 0 ? rate : 1));
	if (done == total)
		fputc('\n', stderr);
}

static int keep_frame(struct movie *m, size_t f, struct iow_error *err)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/frame-%06zu.png",
		 m->o->keep_frames_dir, f + 1);
	if (cairo_surface_write_to_png(m->frame, path) != CAIRO_STATUS_SUCCESS)
		return iow_fail(err, "%s: cannot write the frame", path);
	return 0;
}

/* ---- the whole ---- */

static int movie_setup(struct movie *m, const struct options *o,
		       const struct trace_result *traces, size_t n,
		       struct iow_error *err)
{
	double length, frames;

	m->o = o;
	m->to_ffmpeg = -1;
	m->container = o->output_type.movie;
	m->w = o->graph_width ? o->graph_width : DEFAULT_WIDTH;
	m->h = o->graph_height ? o->graph_height : DEFAULT_HEIGHT;
	if ((m->w & 1) || (m->h & 1) || m->w < 64 || m->h < 64)
		return iow_fail(err, "movie frames must be even and at least 64x64 (%dx%d)",
				m->w, m->h);
	m->fps = o->fps > 0 ? o->fps : 20;
	graph_ctx_init(&m->ctx, o, traces, n);
	m->t0 = m->ctx.x_min;
	m->t1 = m->ctx.x_max;
	length = o->movie_length_s > 0 ? o->movie_length_s :
		 fmin(fmax(m->t1 - m->t0, DEFAULT_MIN_LENGTH_S),
		      DEFAULT_MAX_LENGTH_S);
	frames = o->movie_frames_per_s > 0 ?
		 ceil((m->t1 - m->t0) * o->movie_frames_per_s) :
		 ceil(length * m->fps);
	if (!(frames <= MAX_FRAMES))
		return iow_fail(err, "a movie of %.0f frames is too long (at most %d: %.1f hours at %d fps)",
				frames, MAX_FRAMES,
				MAX_FRAMES / (double)m->fps / 3600, m->fps);
	m->frames = frames < 1 ? 1 : (size_t)frames;
	m->dt = (m->t1 - m->t0) / (double)m->frames;
	if (build_classes(&m->ctx, &m->cl) < 0 ||
	    !(m->class_used = calloc(m->cl.n + 1, 1)) || place_dots(m) < 0)
		return iow_fail(err, "out of memory");
	make_layout(m);
	if (draw_background(m, err) < 0)
		return -1;
	m->frame = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, m->w, m->h);
	m->yuv = malloc((size_t)m->w * m->h * 3 / 2);
	if (!m->yuv || background_to_yuv(m) < 0)
		return iow_fail(err, "out of memory for %dx%d frames", m->w, m->h);
	if (o->movie == MOVIE_RECT)
		m->trail = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, m->w,
						      m->h);
	if (cairo_surface_status(m->frame) != CAIRO_STATUS_SUCCESS ||
	    (m->trail && cairo_surface_status(m->trail) != CAIRO_STATUS_SUCCESS))
		return iow_fail(err, "out of memory for %dx%d frames", m->w, m->h);
	if (o->keep_frames_dir && mkdir(o->keep_frames_dir, 0777) < 0 &&
	    errno != EEXIST)
		return iow_fail(err, "%s: %s", o->keep_frames_dir,
				strerror(errno));
	return 0;
}

static void movie_free(struct movie *m)
{
	if (m->pid)
		finish_ffmpeg(m, 1, NULL);
	outfile_abort(&m->out);
	if (m->ffmpeg_log)
		fclose(m->ffmpeg_log);
	if (m->frame)
		cairo_surface_destroy(m->frame);
	if (m->background)
		cairo_surface_destroy(m->background);
	if (m->trail)
		cairo_surface_destroy(m->trail);
	class_list_free(&m->cl, m->ctx.n_traces);
	free(m->fd.first);
	free(m->fd.dots);
	free(m->class_used);
	free(m->yuv);
	free(m->bg_yuv);
}

int movie_render(const struct options *o, const struct trace_result *traces,
		 size_t n, struct iow_error *err)
{
	struct movie m;
	struct timespec ts;
	int show = isatty(2), ret = -1;
	double started;
	size_t f;

	memset(&m, 0, sizeof(m));
	signal(SIGPIPE, SIG_IGN);	/* a dead ffmpeg is an error, not a death */
	if (movie_setup(&m, o, traces, n, err) < 0 || start_ffmpeg(&m, err) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	started = ts.tv_sec + ts.tv_nsec / 1e9;
	for (f = 0; f < m.frames && !iow_interrupted; f++) {
		draw_frame(&m, f);
		if (o->keep_frames_dir && keep_frame(&m, f, err) < 0)
			goto out;
		if (send_frame(&m) < 0) {
			/* ffmpeg stopped reading: its own words say why */
			if (finish_ffmpeg(&m, 0, err) == 0)
				iow_fail(err, "%s: ffmpeg stopped reading frames",
					 o->output);
			goto out;
		}
		if (show && (f % 10 == 9 || f + 1 == m.frames))
			progress(f + 1, m.frames, started);
	}
	if (iow_interrupted) {
		iow_fail(err, "%s: interrupted", o->output);
		goto out;
	}
	if (finish_ffmpeg(&m, 0, err) < 0)
		goto out;
	if (outfile_commit(&m.out, err) < 0)
		goto out;
	ret = 0;
out:
	movie_free(&m);
	return ret;
}

/* ---- the movie as an output (base/outkind.h) ---- */

static int movie_chosen(const struct options *o)
{
	return o->output && o->output_type.kind == OUTPUT_MOVIE &&
	       !o->compare;
}

static int movie_finish(void *w, const struct options *o,
			struct trace_result *traces, size_t n,
			struct iow_error *err)
{
	(void)w;
	return movie_render(o, traces, n, err);
}

const struct output_ops movie_output = {
	.name = "movie",
	.help = "a video of the I/O as it happened (with --movie)",
	.kind = OUTPUT_MOVIE,
	.noun = "a movie (with --movie)",
	.exts = { { ".mp4", MOVIE_MP4 }, { ".webm", MOVIE_WEBM },
		  { ".ogv", MOVIE_OGV }, { ".ogg", MOVIE_OGV },
		  { ".gif", MOVIE_GIF } },
	.chosen = movie_chosen,
	.finish = movie_finish,
};
