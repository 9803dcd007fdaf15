/*
 * test_plot.c: the drawing layer (plot.c, plot_raster.c): pages written
 * atomically in SVG, PNG and PDF or drawn on a caller's surface; rasters,
 * heat maps and lines checked by reading the pixels back; a demo page
 * (PLOT_DEMO=/path.png writes one to look at). Ticks and labels, pure
 * functions, are tested in test_plot_scale.c.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>
#include <cairo-svg.h>

#include "check.h"
#include "outputs.h"
#include "plot.h"

static char tmp_dir[] = "/tmp/test_plot.XXXXXX";

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int next;

	next = (next + 1) % 4;
	snprintf(buf[next], sizeof(buf[next]), "%s/%s", tmp_dir, name);
	return buf[next];
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* How many files in the test directory have ".tmp" in their name. */
static int count_tmp_files(void)
{
	DIR *d = opendir(tmp_dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp"))
			n++;
	closedir(d);
	return n;
}

/* ---- Colours ---- */

static double rgb_distance(struct plot_rgb a, struct plot_rgb b)
{
	return sqrt((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) +
		    (a.b - b.b) * (a.b - b.b));
}

static void test_palette_is_okabe_ito_and_distinct(void)
{
	struct plot_rgb read = plot_color(0), write = plot_color(1);
	int i, j;

	CHECK_NEAR(read.r * 255, 0x00, 0.5);
	CHECK_NEAR(read.g * 255, 0x72, 0.5);
	CHECK_NEAR(read.b * 255, 0xB2, 0.5);
	CHECK_NEAR(write.r * 255, 0xD5, 0.5);
	CHECK(rgb_distance(read, write) > 0.8);
	for (i = 0; i < 8; i++) {
		for (j = i + 1; j < 8; j++)
			CHECK(rgb_distance(plot_color(i), plot_color(j)) > 0.25);
		/* The second pass is lighter, the third darker. */
		CHECK(rgb_distance(plot_color(i), plot_color(i + 8)) > 0.1);
		CHECK(rgb_distance(plot_color(i + 8), plot_color(i + 16)) > 0.2);
	}
	CHECK(rgb_distance(plot_color(-1), plot_color(1)) < 1e-9);
}

/*
 * How far apart two colours look, to readers with normal colour vision
 * and with each dichromacy: sRGB to linear light, Machado, Oliveira and
 * Fernandes' (2009) simulation at full severity, CIELAB (D65) and the
 * CIEDE2000 difference (Sharma, Wu and Dalal's formulation). A
 * difference of about 10 or more reads as another colour at a glance.
 */
enum vision { NORMAL, PROTAN, DEUTAN, TRITAN, N_VISIONS };

static const char *const vision_name[N_VISIONS] = {
	"normal", "protanopia", "deuteranopia", "tritanopia",
};

struct lab {
	double l, a, b;
};

static double lin(double c)
{
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double lab_f(double t)
{
	return t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116;
}

static struct lab seen_as(struct plot_rgb c, enum vision v)
{
	static const double machado[N_VISIONS][3][3] = {
		[PROTAN] = { { 0.152286, 1.052583, -0.204868 },
			     { 0.114503, 0.786281, 0.099216 },
			     { -0.003882, -0.048116, 1.051998 } },
		[DEUTAN] = { { 0.367322, 0.860646, -0.227968 },
			     { 0.280085, 0.672501, 0.047413 },
			     { -0.011820, 0.042940, 0.968881 } },
		[TRITAN] = { { 1.255528, -0.076749, -0.178779 },
			     { -0.078411, 0.930809, 0.147602 },
			     { 0.004733, 0.691367, 0.303900 } },
	};
	double in[3] = { lin(c.r), lin(c.g), lin(c.b) }, l[3], x, y, z;
	struct lab out;
	int i;

	for (i = 0; i < 3; i++) {
		l[i] = in[i];
		if (v != NORMAL)
			l[i] = fmin(1, fmax(0, machado[v][i][0] * in[0] +
					       machado[v][i][1] * in[1] +
					       machado[v][i][2] * in[2]));
	}
	x = lab_f((0.4124564 * l[0] + 0.3575761 * l[1] + 0.1804375 * l[2]) /
		  0.95047);
	y = lab_f(0.2126729 * l[0] + 0.7151522 * l[1] + 0.0721750 * l[2]);
	z = lab_f((0.0193339 * l[0] + 0.1191920 * l[1] + 0.9503041 * l[2]) /
		  1.08883);
	out.l = 116 * y - 16;
	out.a = 500 * (x - y);
	out.b = 200 * (y - z);
	return out;
}

static double deg(double r)
{
	return r * 180 / M_PI;
}

static double rad(double d)
{
	return d * M_PI / 180;
}

static double ciede2000(struct lab p, struct lab q)
{
	double c1 = hypot(p.a, p.b), c2 = hypot(q.a, q.b), cm = (c1 + c2) / 2;
	double g = 0.5 * (1 - sqrt(pow(cm, 7) / (pow(cm, 7) + pow(25, 7))));
	double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
	double c1p = hypot(a1, p.b), c2p = hypot(a2, q.b);
	double h1 = c1p ? fmod(deg(atan2(p.b, a1)) + 360, 360) : 0;
	double h2 = c2p ? fmod(deg(atan2(q.b, a2)) + 360, 360) : 0;
	double dl = q.l - p.l, dc = c2p - c1p, dh = 0, hm, t, lm, cmp;
	double sl, sc, sh, rt, dtheta, rc, dhh;

	if (c1p * c2p != 0) {
		dh = h2 - h1;
		if (dh > 180)
			dh -= 360;
		else if (dh < -180)
			dh += 360;
	}
	dhh = 2 * sqrt(c1p * c2p) * sin(rad(dh) / 2);
	lm = (p.l + q.l) / 2;
	cmp = (c1p + c2p) / 2;
	hm = h1 + h2;
	if (c1p * c2p != 0) {
		hm = (h1 + h2) / 2;
		if (fabs(h1 - h2) > 180)
			hm += h1 + h2 < 360 ? 180 : -180;
	}
	t = 1 - 0.17 * cos(rad(hm - 30)) + 0.24 * cos(rad(2 * hm)) +
	    0.32 * cos(rad(3 * hm + 6)) - 0.20 * cos(rad(4 * hm - 63));
	dtheta = 30 * exp(-pow((hm - 275) / 25, 2));
	rc = 2 * sqrt(pow(cmp, 7) / (pow(cmp, 7) + pow(25, 7)));
	sl = 1 + 0.015 * pow(lm - 50, 2) / sqrt(20 + pow(lm - 50, 2));
	sc = 1 + 0.045 * cmp;
	sh = 1 + 0.015 * cmp * t;
	rt = -sin(rad(2 * dtheta)) * rc;
	return sqrt(pow(dl / sl, 2) + pow(dc / sc, 2) + pow(dhh / sh, 2) +
		    rt * (dc / sc) * (dhh / sh));
}

/* The smallest difference of a and b over the visions from..to. */
static double apart(struct plot_rgb a, struct plot_rgb b, enum vision from,
		    enum vision to, enum vision *worst)
{
	double m = INFINITY, d;
	enum vision v;

	for (v = from; v <= to; v++) {
		d = ciede2000(seen_as(a, v), seen_as(b, v));
		if (d < m) {
			m = d;
			*worst = v;
		}
	}
	return m;
}

/* Sharma's test pairs: the formula is the published one. */
static void test_ciede2000_matches_published_pairs(void)
{
	static const struct {
		struct lab p, q;
		double de;
	} pairs[] = {
		{ { 50, 2.6772, -79.7751 }, { 50, 0, -82.7485 }, 2.0425 },
		{ { 50, -1.3802, -84.2814 }, { 50, 0, -82.7485 }, 1.0000 },
		{ { 50, 2.5, 0 }, { 73, 25, -18 }, 27.1492 },
		{ { 60.2574, -34.0099, 36.2677 },
		  { 60.4626, -34.1751, 39.4387 }, 1.2644 },
		{ { 22.7233, 20.0904, -46.6940 },
		  { 23.0331, 14.9730, -42.5619 }, 2.0373 },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		CHECK_NEAR(ciede2000(pairs[i].p, pairs[i].q), pairs[i].de,
			   1e-4);
}

/*
 * Every two of the palette's eight colours look apart to every reader:
 * Okabe-Ito's orange and yellow were 7.2 apart for a deuteranope.
 */
static void test_palette_stays_apart_for_colour_blind_readers(void)
{
	enum vision worst = NORMAL;
	int i, j;

	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++) {
			double d = apart(plot_color(i), plot_color(j), NORMAL,
					 TRITAN, &worst);

			if (d < 12)
				fprintf(stderr, "  colours %d and %d: %.1f apart "
					"(%s)\n", i, j, d, vision_name[worst]);
			CHECK(d >= 12);
		}
}

/*
 * The colours of the first eight tag classes, "other" (black) and
 * "untagged" (grey) look apart: the eighth tag's light blue was 4 apart
 * from the sixth's sky blue. Shades past the seven hues are told apart
 * by their lightness and line style too: their bar is lower for the
 * colour-blind.
 */
static void test_tag_colours_stay_apart(void)
{
	int colors[10], i, j;
	enum vision worst = NORMAL;

	for (i = 0; i < 8; i++)
		colors[i] = plot_category_color(i);
	colors[8] = 7;
	colors[9] = 15;
	for (i = 0; i < 10; i++) {
		CHECK(colors[i] != 7 && colors[i] != 15 ? 1 : i >= 8);
		for (j = i + 1; j < 10; j++) {
			double d = apart(plot_color(colors[i]),
					 plot_color(colors[j]), NORMAL, NORMAL,
					 &worst);
			double cvd = apart(plot_color(colors[i]),
					   plot_color(colors[j]), PROTAN,
					   TRITAN, &worst);

			if (d < 15 || cvd < 8)
				fprintf(stderr, "  tag colours %d and %d: %.1f "
					"apart, %.1f (%s)\n", colors[i],
					colors[j], d, cvd, vision_name[worst]);
			CHECK(d >= 15);
			CHECK(cvd >= 8);
		}
	}
}

/* The CIELAB hue angle of a colour, degrees. */
static double hue_of(struct plot_rgb c)
{
	struct lab l = seen_as(c, NORMAL);

	return fmod(deg(atan2(l.b, l.a)) + 360, 360);
}

/* Whether hue h lies on the shorter arc from a to b, give or take
 * slack degrees (darkening a mix of near hues moves it a little). */
static int hue_between(double h, double a, double b, double slack)
{
	double span = fmod(b - a + 360, 360), at = fmod(h - a + 360, 360);

	if (span > 180) {
		span = 360 - span;
		at = fmod(a - h + 360, 360);
	}
	return at <= span + slack || at >= 360 - slack;
}

/*
 * A cell of reads and writes is drawn in a colour apart from both for
 * every reader, of a hue between theirs, with colour left in it: reads
 * and writes multiplied together, as the map drew them, made a muddy
 * dark green (hue 130, chroma 27), a third class to the eye, and dense
 * mixed I/O one block of it. Any two hues (tags) mix alike; a near-
 * opposite pair's mix (green and dark red: an olive) is less apart.
 */
static void test_mixed_cells_stay_apart_and_between(void)
{
	struct plot_rgb rw = plot_mix_color(0, 1);
	enum vision worst = NORMAL;
	int i, j;

	for (i = 0; i < 7; i++)
		for (j = i + 1; j < 7; j++) {
			struct plot_rgb m = plot_mix_color(i, j);
			struct lab l = seen_as(m, NORMAL);
			double da = apart(m, plot_color(i), NORMAL, TRITAN,
					  &worst);
			double db = apart(m, plot_color(j), NORMAL, TRITAN,
					  &worst);

			if (da < 8 || db < 8)
				fprintf(stderr, "  mix of %d and %d: %.1f and "
					"%.1f apart\n", i, j, da, db);
			CHECK(da >= 8 && db >= 8);
			CHECK(hypot(l.a, l.b) >= 20);
			CHECK(hue_between(hue_of(m), hue_of(plot_color(i)),
					  hue_of(plot_color(j)), 10));
		}
	CHECK(apart(rw, plot_color(0), NORMAL, TRITAN, &worst) >= 15);
	CHECK(apart(rw, plot_color(1), NORMAL, TRITAN, &worst) >= 15);
	CHECK(hypot(seen_as(rw, NORMAL).a, seen_as(rw, NORMAL).b) >= 40);
	CHECK(hue_between(hue_of(rw), hue_of(plot_color(0)),
			  hue_of(plot_color(1)), 0));
}

static void test_ramp_runs_dark_to_light(void)
{
	struct plot_rgb lo = plot_ramp(0), hi = plot_ramp(1);

	CHECK(lo.r + lo.g + lo.b < hi.r + hi.g + hi.b);
	CHECK(rgb_distance(plot_ramp(-5), lo) < 1e-9);
	CHECK(rgb_distance(plot_ramp(NAN), lo) < 1e-9);
	CHECK(rgb_distance(plot_ramp(7), hi) < 1e-9);
}

/* ---- Pages ---- */

struct png {
	cairo_surface_t *s;
	int w, h, stride;
	unsigned char *data;
};

static int png_load(struct png *p, const char *path)
{
	p->s = cairo_image_surface_create_from_png(path);
	if (cairo_surface_status(p->s) != CAIRO_STATUS_SUCCESS)
		return -1;
	p->w = cairo_image_surface_get_width(p->s);
	p->h = cairo_image_surface_get_height(p->s);
	p->stride = cairo_image_surface_get_stride(p->s);
	p->data = cairo_image_surface_get_data(p->s);
	return 0;
}

static uint32_t png_rgb(const struct png *p, double x, double y)
{
	int ix = (int)x, iy = (int)y;

	if (ix < 0 || iy < 0 || ix >= p->w || iy >= p->h)
		return 0xdeadbeef;
	return ((const uint32_t *)(p->data + (size_t)iy * p->stride))[ix] &
	       0xffffff;
}

static uint32_t hex_of(struct plot_rgb c)
{
	return (uint32_t)lround(c.r * 255) << 16 |
	       (uint32_t)lround(c.g * 255) << 8 | (uint32_t)lround(c.b * 255);
}

static int channel(uint32_t rgb, int shift)
{
	return (rgb >> shift) & 0xff;
}

/* Colour c at some opacity over white: each channel between c and 255
 * by the same fraction, within tolerance. */
static int is_tint_of(uint32_t rgb, struct plot_rgb c)
{
	uint32_t h = hex_of(c);
	double f = -1, g;
	int s;

	if (rgb == 0xffffff)
		return 0;
	for (s = 0; s <= 16; s += 8) {
		if (channel(h, s) > 235)
			continue;
		g = (255.0 - channel(rgb, s)) / (255.0 - channel(h, s));
		if (f >= 0 && fabs(g - f) > 0.06)
			return 0;
		f = g;
	}
	return f > 0.2 && f < 1.05;
}

static void test_png_written_via_rename_and_decodes(void)
{
	const char *path = tmp_path("page.png");
	struct iow_error err = { "" };
	struct plot_page *p;
	struct png png;

	unlink(path);
	p = plot_page_open(path, PLOT_PNG, 320, 200, "A page", &err);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(!file_exists(path));
	CHECK_EQ_INT(count_tmp_files(), 1);
	plot_panel_add(p, 0, 30, 320, 170, "panel", "x", "y");
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	CHECK(file_exists(path));
	CHECK_EQ_INT(count_tmp_files(), 0);
	CHECK_EQ_INT(png_load(&png, path), 0);
	CHECK_EQ_INT(png.w, 320);
	CHECK_EQ_INT(png.h, 200);
	CHECK_EQ_INT(png_rgb(&png, 2, 2), 0xffffff);
	cairo_surface_destroy(png.s);
}

static void test_unwritable_dir_is_error_not_crash(void)
{
	struct iow_error err = { "" };
	struct plot_page *p;

	p = plot_page_open("/nonexistent-dir/x/graph.svg", PLOT_SVG, 100, 100,
			   NULL, &err);
	CHECK(p == NULL);
	CHECK(strstr(err.msg, "/nonexistent-dir/x/graph.svg") != NULL);
	CHECK(strstr(err.msg, "no directory /nonexistent-dir/x") != NULL);
	p = plot_page_open("/etc/passwd/graph.png", PLOT_PNG, 100, 100, NULL,
			   &err);
	CHECK(p == NULL);
	CHECK(strstr(err.msg, strerror(ENOTDIR)) != NULL);
	p = plot_page_open(tmp_path("huge.png"), PLOT_PNG, 1e9, 10, NULL,
			   &err);
	CHECK(p == NULL);
	CHECK(strstr(err.msg, "huge.png") != NULL);
}

/* A file size limit makes the writes fail like a full disk would. */
static void test_write_failure_is_error_and_removes_temp(void)
{
	const char *path = tmp_path("full.svg");
	struct iow_error err = { "" };
	struct rlimit old, small;
	struct plot_page *p;
	struct plot_panel *pp;
	double x[2000], y[2000];
	int i, rc;

	for (i = 0; i < 2000; i++) {
		x[i] = i;
		y[i] = (i * 7919) % 1000;
	}
	unlink(path);
	p = plot_page_open(path, PLOT_SVG, 400, 300, NULL, &err);
	CHECK(p != NULL);
	if (!p)
		return;
	pp = plot_panel_add(p, 0, 0, 400, 300, "t", NULL, NULL);
	plot_panel_set_x(pp, 0, 2000);
	plot_panel_set_y(pp, 0, 1000);
	plot_points(pp, x, y, 2000, 0, 2);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	small = old;
	small.rlim_cur = 4096;
	setrlimit(RLIMIT_FSIZE, &small);
	rc = plot_page_close(p, &err);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	CHECK_EQ_INT(rc, -1);
	CHECK(strstr(err.msg, "full.svg") != NULL);
	CHECK(strstr(err.msg, strerror(EFBIG)) != NULL);
	CHECK(!file_exists(path));
	CHECK_EQ_INT(count_tmp_files(), 0);
}

static void test_abort_removes_temp_and_leaves_old_file(void)
{
	const char *path = tmp_path("keep.pdf");
	struct iow_error err;
	struct plot_page *p;
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("old", f);
		fclose(f);
	}
	p = plot_page_open(path, PLOT_PDF, 100, 100, NULL, &err);
	CHECK(p != NULL);
	CHECK_EQ_INT(count_tmp_files(), 1);
	plot_page_abort(p);
	CHECK_EQ_INT(count_tmp_files(), 0);
	CHECK_EQ_INT(file_size(path), 3);
	plot_page_abort(NULL);
}

static void test_null_panel_calls_are_harmless(void)
{
	double v[2] = { 0, 1 };
	uint32_t c[1] = { 1 };
	const char *label = "x";
	int color = 0;

	plot_panel_set_x(NULL, 0, 1);
	plot_panel_set_y_log(NULL, 1, 10);
	plot_panel_draw_axes(NULL);
	plot_line(NULL, v, v, 2, 0, 1);
	plot_step(NULL, v, v, 2, 0, 1);
	plot_band(NULL, v, v, v, 2, 0, 0.3);
	plot_points(NULL, v, v, 2, 0, 1);
	plot_raster(NULL, c, 1, 1, 0, 1, 0, 1, 0);
	plot_heatmap(NULL, c, 1, 1, 0, 1, 0, 1, "n");
	plot_legend(NULL, &label, &color, 1);
	plot_panel_note(NULL, "none");
	CHECK(plot_panel_x_ticks(NULL) == NULL);
	CHECK(plot_panel_add(NULL, 0, 0, 1, 1, NULL, NULL, NULL) == NULL);
}

static int run_quiet(const char *cmd)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s >/dev/null 2>&1", cmd);
	return system(buf);
}

/* A panel of every kind of series, for the format tests and the demo. */
static void draw_sample(struct plot_page *p, struct plot_rect r)
{
	static const char *const names[] = { "reads", "writes" };
	static const int colors[] = { 0, 1 };
	double x[200], y[200], lo[200], hi[200];
	struct plot_panel *pp;
	int i;

	for (i = 0; i < 200; i++) {
		x[i] = i * 0.05;
		y[i] = 50 + 40 * sin(i / 15.0);
		lo[i] = y[i] - 10;
		hi[i] = y[i] + 10;
	}
	y[100] = NAN;
	pp = plot_panel_add(p, r.x, r.y, r.w, r.h, "Throughput & <xml>",
			    "Time", "MB/s");
	plot_legend(pp, names, colors, 2);
	plot_panel_set_x(pp, 0, 10);
	plot_panel_set_y(pp, 0, 95);
	plot_panel_set_x_format(pp, plot_format_seconds);
	plot_band(pp, x, lo, hi, 200, 0, 0.2);
	plot_line(pp, x, y, 200, 0, 1.5);
	for (i = 0; i < 200; i++)
		y[i] = 30 + 20 * cos(i / 10.0);
	plot_line(pp, x, y, 200, 1, 1.5);
}

static void test_svg_output_is_valid_xml(void)
{
	const char *path = tmp_path("page.svg");
	char cmd[600];
	struct iow_error err = { "" };
	struct plot_page *p;

	p = plot_page_open(path, PLOT_SVG, 500, 300, "SVG <&> page", &err);
	CHECK(p != NULL);
	if (!p)
		return;
	draw_sample(p, plot_page_body(p));
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	CHECK_EQ_INT(run_quiet(cmd), 0);
}

static void test_pdf_has_one_page(void)
{
	const char *path = tmp_path("page.pdf");
	char cmd[600];
	struct iow_error err = { "" };
	struct plot_page *p;

	p = plot_page_open(path, PLOT_PDF, 500, 300, "PDF page", &err);
	CHECK(p != NULL);
	if (!p)
		return;
	draw_sample(p, plot_page_cell(p, 1, 2, 0, 0));
	draw_sample(p, plot_page_cell(p, 1, 2, 0, 1));
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	snprintf(cmd, sizeof(cmd),
		 "pdfinfo '%s' | grep -Eq '^Pages: +1$'", path);
	CHECK_EQ_INT(run_quiet(cmd), 0);
}

/* Dense lines are thinned per pixel column, not one segment a point. */
static void test_dense_line_keeps_svg_small(void)
{
	const char *path = tmp_path("dense.svg");
	struct iow_error err = { "" };
	static double x[200000], y[200000];
	struct plot_page *p;
	struct plot_panel *pp;
	int i;

	for (i = 0; i < 200000; i++) {
		x[i] = i;
		y[i] = (i * 7919) % 1000;
	}
	p = plot_page_open(path, PLOT_SVG, 600, 300, NULL, &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	pp = plot_panel_add(p, 0, 0, 600, 300, "dense", NULL, NULL);
	plot_panel_set_x(pp, 0, 200000);
	plot_panel_set_y(pp, 0, 1000);
	plot_line(pp, x, y, 200000, 0, 1);
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	CHECK(file_size(path) > 0 && file_size(path) < 200000);
}

/* Draws one panel filling a PNG page with the y axis 0..rows, x 0..cols,
 * and hands it to fn; returns the loaded PNG and the plot area. */
static int render_png(const char *name, int cols, int rows,
		      void (*fn)(struct plot_panel *), struct png *png,
		      struct plot_rect *area)
{
	const char *path = tmp_path(name);
	struct iow_error err = { "" };
	struct plot_page *p;
	struct plot_panel *pp;

	p = plot_page_open(path, PLOT_PNG, 400, 300, NULL, &err);
	if (!p)
		return -1;
	pp = plot_panel_add(p, 0, 0, 400, 300, "cells", NULL, NULL);
	plot_panel_set_x(pp, 0, cols);
	plot_panel_set_y_exact(pp, 0, rows);
	*area = plot_panel_area(pp);
	fn(pp);
	if (plot_page_close(p, &err))
		return -1;
	return png_load(png, path);
}

/* The page position of the centre of cell (col, row) in a 4x4 grid. */
static double cell_x(const struct plot_rect *a, int col)
{
	return a->x + a->w * (col + 0.5) / 4;
}

static double cell_y(const struct plot_rect *a, int row)
{
	return a->y + a->h - a->h * (row + 0.5) / 4;
}

static void raster_one_cell(struct plot_panel *pp)
{
	uint32_t counts[16] = { 0 };

	counts[2 * 4 + 1] = 5;		/* row 2, col 1 */
	counts[0 * 4 + 3] = 1;		/* row 0, col 3 */
	plot_raster(pp, counts, 4, 4, 0, 4, 0, 4, 0);
}

static void test_raster_cells_coloured_only_where_counts(void)
{
	struct plot_rect a;
	struct png png;
	int r, c, coloured = 0;
	uint32_t full, faint;

	if (render_png("raster.png", 4, 4, raster_one_cell, &png, &a)) {
		CHECK(0);
		return;
	}
	for (r = 0; r < 4; r++)
		for (c = 0; c < 4; c++)
			coloured += png_rgb(&png, cell_x(&a, c) + 7,
					    cell_y(&a, r) + 7) != 0xffffff;
	CHECK_EQ_INT(coloured, 2);
	full = png_rgb(&png, cell_x(&a, 1) + 7, cell_y(&a, 2) + 7);
	faint = png_rgb(&png, cell_x(&a, 3) + 7, cell_y(&a, 0) + 7);
	CHECK(is_tint_of(full, plot_color(0)));
	CHECK(is_tint_of(faint, plot_color(0)));
	/* One I/O is paler than the busiest cell, but still visible. */
	CHECK(channel(faint, 16) > channel(full, 16));
	CHECK(channel(faint, 16) < 0xf0);
	cairo_surface_destroy(png.s);
}

/* Far more cells than pixels: a lone count still shows, not skipped. */
static void test_raster_finer_than_pixels_loses_no_cell(void)
{
	enum { COLS = 5000, ROWS = 3000 };
	const char *path = tmp_path("fine.png");
	static uint32_t counts[COLS * ROWS];
	struct iow_error err = { "" };
	struct plot_rect a;
	struct plot_page *p;
	struct plot_panel *pp;
	struct png png;
	int x, y, coloured = 0;

	counts[1777 * COLS + 2501] = 1;
	p = plot_page_open(path, PLOT_PNG, 300, 200, NULL, &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	pp = plot_panel_add(p, 0, 0, 300, 200, NULL, NULL, NULL);
	plot_panel_set_x(pp, 0, COLS);
	plot_panel_set_y_exact(pp, 0, ROWS);
	plot_raster(pp, counts, COLS, ROWS, 0, COLS, 0, ROWS, 1);
	a = plot_panel_area(pp);
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	if (png_load(&png, path)) {
		CHECK(0);
		return;
	}
	for (y = (int)a.y; y < a.y + a.h; y++)
		for (x = (int)a.x; x < a.x + a.w; x++)
			if (is_tint_of(png_rgb(&png, x, y), plot_color(1))) {
				coloured++;
				CHECK_NEAR(x, a.x + a.w * 2501.5 / COLS, 6);
				CHECK_NEAR(y, a.y + a.h * (1 - 1777.5 / ROWS), 6);
			}
	CHECK(coloured >= 1 && coloured <= 36);
	cairo_surface_destroy(png.s);
}

static void overlaid_rasters(struct plot_panel *pp)
{
	uint32_t reads[16] = { 0 }, writes[16] = { 0 };

	reads[0] = 9;			/* row 0, col 0: both */
	writes[0] = 9;
	reads[1] = 9;			/* row 0, col 1: reads only */
	writes[2] = 9;			/* row 0, col 2: writes only */
	plot_raster(pp, reads, 4, 4, 0, 4, 0, 4, 0);
	plot_raster(pp, writes, 4, 4, 0, 4, 0, 4, 1);
}

static void test_overlaid_rasters_both_stay_visible(void)
{
	struct plot_rect a;
	struct png png;
	uint32_t both, read, write;

	if (render_png("overlay.png", 4, 4, overlaid_rasters, &png, &a)) {
		CHECK(0);
		return;
	}
	both = png_rgb(&png, cell_x(&a, 0) + 7, cell_y(&a, 0) - 7);
	read = png_rgb(&png, cell_x(&a, 1) + 7, cell_y(&a, 0) - 7);
	write = png_rgb(&png, cell_x(&a, 2) + 7, cell_y(&a, 0) - 7);
	CHECK(is_tint_of(read, plot_color(0)));
	CHECK(is_tint_of(write, plot_color(1)));
	/* Where both are, the colour is neither the read nor the write one. */
	CHECK(both != read && both != write);
	CHECK(channel(both, 16) < channel(write, 16) - 40);
	CHECK(channel(both, 0) < channel(read, 0) - 40);
	cairo_surface_destroy(png.s);
}

static void uneven_rasters(struct plot_panel *pp)
{
	uint32_t reads[16] = { 0 }, writes[16] = { 0 };

	reads[0] = 90;			/* row 0, col 0: mostly reads */
	writes[0] = 10;
	reads[1] = 50;			/* row 0, col 1: even */
	writes[1] = 50;
	reads[2] = 10;			/* row 0, col 2: mostly writes */
	writes[2] = 90;
	plot_raster(pp, reads, 4, 4, 0, 4, 0, 4, 0);
	plot_raster(pp, writes, 4, 4, 0, 4, 0, 4, 1);
}

static double rgb_apart(uint32_t a, struct plot_rgb b)
{
	struct plot_rgb x = { channel(a, 16) / 255.0, channel(a, 8) / 255.0,
			      channel(a, 0) / 255.0 };

	return rgb_distance(x, b);
}

/* A cell shared unevenly leans to its larger share: a tenth of writes
 * among reads shows, but the cell still reads as mostly reads. */
static void test_uneven_cell_leans_to_its_larger_share(void)
{
	struct plot_rect a;
	struct png png;
	uint32_t reads, even, writes;

	if (render_png("uneven.png", 4, 4, uneven_rasters, &png, &a)) {
		CHECK(0);
		return;
	}
	reads = png_rgb(&png, cell_x(&a, 0), cell_y(&a, 0) - 7);
	even = png_rgb(&png, cell_x(&a, 1), cell_y(&a, 0) - 7);
	writes = png_rgb(&png, cell_x(&a, 2), cell_y(&a, 0) - 7);
	CHECK(rgb_apart(even, plot_mix_color(0, 1)) < 0.02);
	CHECK(rgb_apart(reads, plot_color(0)) < rgb_apart(even, plot_color(0)));
	CHECK(rgb_apart(reads, plot_color(0)) > 0.05);
	CHECK(rgb_apart(writes, plot_color(1)) < rgb_apart(even, plot_color(1)));
	CHECK(rgb_apart(writes, plot_color(1)) > 0.05);
	cairo_surface_destroy(png.s);
}

/*
 * Two traces' I/O maps have grids of their own. Both declared before the
 * layout is fixed (the io graph gives its legend after its rasters): the
 * first used to be flushed onto a plot area of no size, and lost.
 */
static void test_rasters_on_two_grids_before_layout_both_drawn(void)
{
	const char *path = tmp_path("twogrids.png");
	uint32_t first[16] = { 0 }, second[4] = { 0 };
	struct iow_error err = { "" };
	const char *labels[2] = { "first", "second" };
	int colors[2] = { 0, 1 };
	struct plot_rect a;
	struct plot_page *p;
	struct plot_panel *pp;
	struct png png;

	first[0] = 9;				/* 4x4 over 0..4: cell (0, 0) */
	second[3] = 9;				/* 2x2 over 0..4: top right */
	p = plot_page_open(path, PLOT_PNG, 400, 300, NULL, &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	pp = plot_panel_add(p, 0, 0, 400, 300, "two grids", NULL, NULL);
	plot_panel_set_x(pp, 0, 4);
	plot_panel_set_y_exact(pp, 0, 4);
	plot_raster(pp, first, 4, 4, 0, 4, 0, 4, 0);
	plot_raster(pp, second, 2, 2, 0, 4, 0, 4, 1);
	plot_legend(pp, labels, colors, 2);
	a = plot_panel_area(pp);
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	if (png_load(&png, path)) {
		CHECK(0);
		return;
	}
	CHECK(is_tint_of(png_rgb(&png, cell_x(&a, 0), cell_y(&a, 0)),
			 plot_color(0)));
	CHECK(is_tint_of(png_rgb(&png, cell_x(&a, 3), cell_y(&a, 3)),
			 plot_color(1)));
	cairo_surface_destroy(png.s);
}

static void corner_io(struct plot_panel *pp)
{
	static uint32_t counts[1000 * 1000];

	counts[0] = 1;			/* the first instant, lowest offset */
	plot_raster(pp, counts, 1000, 1000, 0, 4, 0, 4, 1);
}

/* A lone I/O in the corner is a whole dot, not a quarter under the frame. */
static void test_sparse_dot_at_the_edge_shows_whole(void)
{
	struct plot_rect a;
	struct png png;
	int x, y, n = 0;

	if (render_png("corner.png", 4, 4, corner_io, &png, &a)) {
		CHECK(0);
		return;
	}
	for (y = (int)a.y; y < a.y + a.h; y++)
		for (x = (int)a.x; x < a.x + a.w; x++)
			n += is_tint_of(png_rgb(&png, x, y), plot_color(1));
	CHECK(n >= 14);
	cairo_surface_destroy(png.s);
}

static void heatmap_cells(struct plot_panel *pp)
{
	uint32_t counts[16] = { 0 };

	counts[0] = 1;
	counts[5] = 1000;
	plot_heatmap(pp, counts, 4, 4, 0, 4, 0, 4, "I/Os");
}

static void test_heatmap_uses_ramp_and_leaves_empty_cells_white(void)
{
	struct plot_rect a;
	struct png png;

	if (render_png("heat.png", 4, 4, heatmap_cells, &png, &a)) {
		CHECK(0);
		return;
	}
	CHECK_EQ_INT(png_rgb(&png, cell_x(&a, 0) + 7, cell_y(&a, 0) - 7),
		     hex_of(plot_ramp(0)));
	CHECK_EQ_INT(png_rgb(&png, cell_x(&a, 1) + 7, cell_y(&a, 1) - 7),
		     hex_of(plot_ramp(1)));
	CHECK_EQ_INT(png_rgb(&png, cell_x(&a, 3) + 7, cell_y(&a, 3) - 7),
		     0xffffff);
	cairo_surface_destroy(png.s);
}

static void line_with_gap(struct plot_panel *pp)
{
	double x[5] = { 0, 1, 2, 3, 4 }, y[5] = { 2, 2, NAN, 2, 2 };

	plot_line(pp, x, y, 5, 1, 3);
}

static void test_line_leaves_gap_at_nan(void)
{
	struct plot_rect a;
	struct png png;
	double mid_y;

	if (render_png("gap.png", 4, 4, line_with_gap, &png, &a)) {
		CHECK(0);
		return;
	}
	mid_y = a.y + a.h / 2;
	CHECK_EQ_INT(png_rgb(&png, a.x + a.w * 0.125, mid_y),
		     hex_of(plot_color(1)));
	CHECK_EQ_INT(png_rgb(&png, a.x + a.w * 0.875, mid_y),
		     hex_of(plot_color(1)));
	CHECK(png_rgb(&png, a.x + a.w * 0.5 + 3, mid_y) != hex_of(plot_color(1)));
	cairo_surface_destroy(png.s);
}

static void lone_points(struct plot_panel *pp)
{
	double x[5] = { 0, 1, 2, 3, 4 }, y[5] = { NAN, 2, NAN, NAN, 3 };

	plot_line(pp, x, y, 5, 1, 1.5);
}

/* A value with no neighbours (a sparse trace's busy bin) shows as a dot. */
static void test_line_draws_lone_points_as_dots(void)
{
	struct plot_rect a;
	struct png png;

	if (render_png("lone.png", 4, 4, lone_points, &png, &a)) {
		CHECK(0);
		return;
	}
	CHECK(is_tint_of(png_rgb(&png, a.x + a.w * 0.25, a.y + a.h * 0.5),
			 plot_color(1)));
	CHECK(is_tint_of(png_rgb(&png, a.x + a.w - 1, a.y + a.h * 0.25),
			 plot_color(1)));
	CHECK(!is_tint_of(png_rgb(&png, a.x + a.w * 0.625, a.y + a.h * 0.5),
			  plot_color(1)));
	cairo_surface_destroy(png.s);
}

static void lighter_and_plain_lines(struct plot_panel *pp)
{
	double x[2] = { 0, 4 }, lo[2] = { 1, 1 }, hi[2] = { 3, 3 };

	plot_line(pp, x, lo, 2, 8, 3);	/* the lighter pass: dashed */
	plot_line(pp, x, hi, 2, 0, 3);
}

/* Counts the pixels along row y of the plot area that are not colour c. */
static int gaps_along(const struct png *png, const struct plot_rect *a,
		      double y, struct plot_rgb c)
{
	int x, n = 0;

	for (x = (int)a->x + 4; x < (int)(a->x + a->w) - 4; x++)
		n += png_rgb(png, x, y) != hex_of(c);
	return n;
}

/* Lines in the lighter colours (8-15) are dashed, the plain ones not:
 * both stay told apart where their hues are alike. */
static void test_lighter_lines_are_dashed(void)
{
	struct plot_rect a;
	struct png png;

	if (render_png("dashes.png", 4, 4, lighter_and_plain_lines, &png, &a)) {
		CHECK(0);
		return;
	}
	CHECK_EQ_INT(gaps_along(&png, &a, a.y + a.h * 0.25, plot_color(0)), 0);
	CHECK(gaps_along(&png, &a, a.y + a.h * 0.75, plot_color(8)) > a.w / 5);
	cairo_surface_destroy(png.s);
}

/*
 * A page on the caller's surface (a movie frame): panels drawn there at
 * the scale given, the rest of the surface as the caller left it, and
 * the surface still the caller's after the close.
 */
static void test_page_on_surface_draws_over_callers_pixels(void)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
							400, 300);
	double x[2] = { 0, 4 }, y[2] = { 2, 2 };
	struct iow_error err = { "" };
	struct plot_page *p;
	struct plot_panel *pp;
	struct plot_rect a;
	struct png png;
	cairo_t *cr = cairo_create(s);

	cairo_set_source_rgb(cr, 0x33 / 255.0, 0x66 / 255.0, 0x99 / 255.0);
	cairo_paint(cr);
	cairo_destroy(cr);
	p = plot_page_open_surface(s, 2, "frame", &err);
	CHECK(p != NULL);
	pp = plot_panel_add(p, 100, 0, 100, 150, "graph", "time", NULL);
	plot_panel_set_x(pp, 0, 4);
	plot_panel_set_y(pp, 0, 4);
	plot_line(pp, x, y, 2, 1, 3);
	a = plot_panel_area(pp);
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	/* the panel in page units, half the surface's px */
	CHECK(a.x > 100 && a.x + a.w <= 200 && a.y + a.h <= 150);
	CHECK_EQ_INT(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	cairo_surface_flush(s);
	png.s = s;
	png.w = 400;
	png.h = 300;
	png.stride = cairo_image_surface_get_stride(s);
	png.data = cairo_image_surface_get_data(s);
	CHECK_EQ_INT(png_rgb(&png, 50, 150), 0x336699);
	CHECK_EQ_INT(png_rgb(&png, 2 * (a.x + a.w * 0.25),
			     2 * (a.y + a.h * 0.5)), hex_of(plot_color(1)));
	/* nothing painted under the series either */
	CHECK_EQ_INT(png_rgb(&png, 2 * (a.x + a.w * 0.3),
			     2 * (a.y + a.h * 0.2) + 1), 0x336699);
	CHECK(!file_exists("frame"));
	cairo_surface_destroy(s);
}

/* Only an image surface will do: a vector one has no pixels to share. */
static void test_page_on_surface_needs_an_image(void)
{
	cairo_surface_t *s = cairo_svg_surface_create(tmp_path("x.svg"), 10,
						      10);
	struct iow_error err = { "" };

	CHECK(plot_page_open_surface(s, 1, "frame", &err) == NULL);
	CHECK(strstr(err.msg, "frame: not an image surface") != NULL);
	cairo_surface_destroy(s);
}

/* Text in the pages' typeface on a caller's context: where it was put,
 * its width returned, bad UTF-8 repaired rather than failing cairo. */
static void test_caption_draws_where_asked(void)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
							200, 40);
	cairo_t *cr = cairo_create(s);
	struct png png = { s, 200, 40, 0, NULL };
	double w;
	int x, y, red = 0, outside = 0;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_source_rgb(cr, 1, 0, 0);
	w = plot_caption(cr, 190, 30, 20, 1, "Hello \xff", 1);
	CHECK(w > 40 && w < 180);
	CHECK_EQ_INT(cairo_status(cr), CAIRO_STATUS_SUCCESS);
	cairo_destroy(cr);
	cairo_surface_flush(s);
	png.stride = cairo_image_surface_get_stride(s);
	png.data = cairo_image_surface_get_data(s);
	for (y = 0; y < 40; y++)
		for (x = 0; x < 200; x++) {
			int in = x >= 190 - w - 1 && x <= 191;

			red += in && png_rgb(&png, x, y) == 0xff0000;
			outside += !in && png_rgb(&png, x, y) != 0xffffff;
		}
	CHECK(red > 50);
	CHECK_EQ_INT(outside, 0);
	cairo_surface_destroy(s);
}

/* A legend of many entries takes a fifth of the panel at most, the rest
 * "+N more": seven traces' legend took 70% of their latency panel. */
static void test_legend_rows_take_a_fifth_at_most(void)
{
	const char *path = tmp_path("legendcap.png");
	struct iow_error err = { "" };
	const char *labels[40];
	int colors[40], i;
	char names[40][48];
	struct plot_rect a;
	struct plot_page *p;
	struct plot_panel *pp;

	for (i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "nvme0n1-run-%d read D2C", i);
		labels[i] = names[i];
		colors[i] = i;
	}
	p = plot_page_open(path, PLOT_PNG, 400, 300, NULL, &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	pp = plot_panel_add(p, 0, 0, 400, 300, "Device latency", "x", "y");
	plot_legend(pp, labels, colors, 40);
	a = plot_panel_area(pp);
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	CHECK(a.y < 300 * 0.2 + 30);	/* title row + a fifth */
	CHECK(a.h > 300 * 0.55);
}

/* mix_on_white: the mix of colours a and b (an evenly shared cell) at
 * the dots' 0.85 over white. */
static uint32_t mix_on_white(int a, int b)
{
	struct plot_rgb m = plot_mix_color(a, b);
	struct plot_rgb w = { 1 - 0.85 + 0.85 * m.r, 1 - 0.85 + 0.85 * m.g,
			      1 - 0.85 + 0.85 * m.b };

	return hex_of(w);
}

static int near_rgb(uint32_t a, uint32_t b, int tol)
{
	int s;

	for (s = 0; s <= 16; s += 8)
		if (abs(channel(a, s) - channel(b, s)) > tol)
			return 0;
	return 1;
}

/*
 * Reads and writes in one cell mix; the legend says what the mix is: its
 * swatch is the colour of a shared dot.
 */
static void test_mixed_cell_colour_is_in_the_legend(void)
{
	const char *path = tmp_path("mix.png");
	static uint32_t reads[500 * 500], writes[500 * 500];
	struct iow_error err = { "" };
	const char *labels[2] = { "read", "write" };
	int colors[2] = { 0, 1 }, x, y, above = 0, inside = 0;
	uint32_t want = mix_on_white(0, 1);
	struct plot_rect a;
	struct plot_page *p;
	struct plot_panel *pp;
	struct png png;

	reads[250 * 500 + 250] = writes[250 * 500 + 250] = 3;
	p = plot_page_open(path, PLOT_PNG, 400, 300, NULL, &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	pp = plot_panel_add(p, 0, 0, 400, 300, "I/O offsets", "x", "y");
	plot_panel_set_x(pp, 0, 500);
	plot_panel_set_y_exact(pp, 0, 500);
	plot_raster(pp, reads, 500, 500, 0, 500, 0, 500, 0);
	plot_raster(pp, writes, 500, 500, 0, 500, 0, 500, 1);
	plot_legend(pp, labels, colors, 2);
	plot_legend_mix(pp, "read + write", 0, 1);
	a = plot_panel_area(pp);
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	if (png_load(&png, path)) {
		CHECK(0);
		return;
	}
	for (y = 0; y < png.h; y++)
		for (x = 0; x < png.w; x++) {
			if (!near_rgb(png_rgb(&png, x, y), want, 3))
				continue;
			if (y < a.y)
				above++;
			else
				inside++;
		}
	CHECK(above >= 50);		/* the swatch, 10x10 px less corners */
	CHECK(inside >= 12);		/* the dot of both */
	cairo_surface_destroy(png.s);
}

/* A size axis's ticks fall on round numbers of its binary unit: 10 KiB,
 * 20 KiB (decimal steps of bytes made 9.77 KiB, 19.5 KiB). */
static void test_binary_axis_ticks_on_round_units(void)
{
	struct iow_error err = { "" };
	const struct plot_axis_ticks *t;
	struct plot_page *p;
	struct plot_panel *pp;
	int i;

	p = plot_page_open(tmp_path("binary.png"), PLOT_PNG, 400, 300, NULL,
			   &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	pp = plot_panel_add(p, 0, 0, 400, 300, "sizes", "x", "size");
	plot_panel_set_y(pp, 0, 66 * 1024);
	plot_panel_set_y_binary(pp);
	plot_panel_set_y_format(pp, plot_format_bytes);
	t = plot_panel_y_ticks(pp);
	CHECK(t->n >= 3);
	for (i = 0; i < t->n; i++) {
		double units = t->value[i] / 1024;

		CHECK_NEAR(units, round(units / 10) * 10, 1e-9);
		CHECK(strstr(t->label[i], " KiB") != NULL);
	}
	/* past 1000 units the next one: 0.5 MiB, not 500 KiB steps */
	pp = plot_panel_add(p, 0, 0, 400, 300, "big", "x", "size");
	plot_panel_set_y(pp, 0, 2.6 * 1048576);
	plot_panel_set_y_binary(pp);
	plot_panel_set_y_format(pp, plot_format_bytes);
	t = plot_panel_y_ticks(pp);
	for (i = 0; i < t->n; i++) {
		double units = t->value[i] / 1048576;

		CHECK_NEAR(units * 2, round(units * 2), 1e-9);
		CHECK(strstr(t->label[i], " MiB") != NULL);
	}
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
}

/* Swatches sit above the plot area: on rows reserved below the title
 * when the legend is known early, beside the title when it comes late. */
static void test_legend_never_covers_plot_area(void)
{
	static const char *const names[] = {
		"a long series name", "another long name", "third series",
		"fourth series", "the fifth", "last: writes",
	};
	static const int early_colors[] = { 0, 2, 3, 4, 5, 1 };
	static const int late_colors[] = { 1 };
	const char *path = tmp_path("legend.png");
	uint32_t counts[4] = { 3, 0, 0, 7 }, want = hex_of(plot_color(1));
	struct iow_error err = { "" };
	struct plot_rect early_area, late_area;
	struct plot_page *p;
	struct plot_panel *early, *late;
	struct png png;
	int x, y, above = 0, inside = 0;

	p = plot_page_open(path, PLOT_PNG, 600, 260, NULL, &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	early = plot_panel_add(p, 0, 0, 300, 260, "Early", "x", "y");
	plot_legend(early, names, early_colors, 6);
	early_area = plot_panel_area(early);
	late = plot_panel_add(p, 300, 0, 300, 260, "Late", "x", "y");
	late_area = plot_panel_area(late);	/* fixes the layout */
	plot_raster(late, counts, 2, 2, 0, 1, 0, 1, 0);
	plot_legend(late, names + 5, late_colors, 1);
	CHECK_EQ_INT(plot_page_close(p, &err), 0);
	if (png_load(&png, path)) {
		CHECK(0);
		return;
	}
	for (y = 0; y < png.h; y++) {
		for (x = 0; x < png.w; x++) {
			const struct plot_rect *a = x < 300 ? &early_area :
							      &late_area;

			if (png_rgb(&png, x, y) != want)
				continue;
			if (y < a->y)
				above++;
			else
				inside++;
		}
	}
	CHECK(above >= 2 * 50);		/* both swatches, 10x10 px */
	CHECK_EQ_INT(inside, 0);
	CHECK(early_area.y > late_area.y);	/* the early one got a row */
	cairo_surface_destroy(png.s);
}

/* Whatever the width and the numbers, x tick labels keep apart and
 * inside the panel, and y tick labels keep apart too. */
static void test_tick_labels_never_overlap(void)
{
	static const double widths[] = { 120, 200, 333, 640, 1000 };
	static const double maxes[] = { 1, 7.3, 1234567, 9.87e9, 0.0015 };
	struct iow_error err = { "" };
	const struct plot_axis_ticks *t;
	struct plot_page *p;
	struct plot_panel *pp;
	size_t w, m;
	int i, bad = 0, total = 0;

	p = plot_page_open(tmp_path("ticks.png"), PLOT_PNG, 1000, 400, NULL,
			   &err);
	if (!p) {
		CHECK(p != NULL);
		return;
	}
	for (w = 0; w < 5; w++) {
		for (m = 0; m < 5; m++) {
			pp = plot_panel_add(p, 0, 0, widths[w], 60 + 70 * m,
					    "t", "x", "y");
			plot_panel_set_x(pp, maxes[m] * 1000.3, maxes[m] * 1003);
			plot_panel_set_y(pp, 0, maxes[m]);
			if (m == 4)
				plot_panel_set_x_format(pp, plot_format_seconds);
			t = plot_panel_x_ticks(pp);
			total += t->n;
			for (i = 1; i < t->n; i++)
				bad += t->pos[i] - t->pos[i - 1] <
				       (t->extent[i] + t->extent[i - 1]) / 2;
			for (i = 0; i < t->n; i++)	/* inside the panel */
				bad += t->pos[i] - t->extent[i] / 2 < 0 ||
				       t->pos[i] + t->extent[i] / 2 > widths[w];
			t = plot_panel_y_ticks(pp);
			for (i = 1; i < t->n; i++)
				bad += t->pos[i - 1] - t->pos[i] <
				       t->extent[i];
		}
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(total >= 25);
	plot_page_abort(p);
}

/* ---- The demo page ---- */

static void demo_latency(struct plot_page *p, struct plot_rect r)
{
	enum { COLS = 120, ROWS = 48 };
	static uint32_t counts[COLS * ROWS];
	struct plot_panel *pp;
	double centre;
	int c, row, k;

	srand(3);
	for (c = 0; c < COLS; c++) {
		centre = ROWS * (0.35 + 0.1 * sin(c / 9.0));
		for (k = 0; k < 400; k++) {
			row = (int)(centre + (rand() % 1000 - 500) / 500.0 *
					     (rand() % 100 < 90 ? 4 : 14));
			if (row >= 0 && row < ROWS)
				counts[row * COLS + c]++;
		}
	}
	pp = plot_panel_add(p, r.x, r.y, r.w, r.h, "Completion latency (D2C)",
			    "Time", "Latency");
	plot_panel_set_x(pp, 0, 60);
	plot_panel_set_x_format(pp, plot_format_seconds);
	plot_panel_set_y_log(pp, 1e3, 1e9);
	plot_panel_set_y_format(pp, plot_format_ns);
	/* Rows cover 1 us .. 1 s log-spaced: 8 rows per decade. */
	plot_heatmap(pp, counts, COLS, ROWS, 0, 60, 1e3, 1e9, "I/Os");
}

static void demo_offsets(struct plot_page *p, struct plot_rect r)
{
	enum { COLS = 200, ROWS = 100 };
	static uint32_t reads[COLS * ROWS], writes[COLS * ROWS];
	static const char *const names[] = { "reads", "writes" };
	static const int colors[] = { 0, 1 };
	struct plot_panel *pp;
	int c, k;

	srand(5);
	for (c = 0; c < COLS; c++) {
		for (k = 0; k < 30; k++)
			reads[(rand() % ROWS) * COLS + c] += 1 + rand() % 3;
		writes[((c / 2 + k) % ROWS) * COLS + c] += 20;
		writes[((c * 3) % ROWS) * COLS + c] += 2;
	}
	pp = plot_panel_add(p, r.x, r.y, r.w, r.h, "Device offset",
			    "Time", "Offset (MB)");
	plot_panel_set_x(pp, 0, 60);
	plot_panel_set_x_format(pp, plot_format_seconds);
	plot_panel_set_y_exact(pp, 0, 476940);
	plot_raster(pp, reads, COLS, ROWS, 0, 60, 0, 476940, 0);
	plot_raster(pp, writes, COLS, ROWS, 0, 60, 0, 476940, 1);
	/* Only now known (which classes had I/O): rasters wait for it. */
	plot_legend(pp, names, colors, 2);
}

static void demo_queue(struct plot_page *p, struct plot_rect r)
{
	static const char *const names[] = { "queue depth" };
	static const int colors[] = { 2 };
	double x[600], y[600];
	struct plot_panel *pp;
	int i;

	for (i = 0; i < 600; i++) {
		x[i] = i * 0.0025;
		y[i] = round(2 + 1.8 * sin(i / 35.0) + (i % 23 == 0));
	}
	pp = plot_panel_add(p, r.x, r.y, r.w, r.h, "Queue depth", "Time",
			    "Requests");
	plot_legend(pp, names, colors, 1);
	plot_panel_set_x(pp, 0, 1.5);
	plot_panel_set_x_format(pp, plot_format_seconds);
	plot_panel_set_y(pp, 0, 5);
	plot_step(pp, x, y, 600, 2, 1.25);
}

static void demo_empty(struct plot_page *p, struct plot_rect r)
{
	struct plot_panel *pp;

	pp = plot_panel_add(p, r.x, r.y, r.w, r.h,
			    "A panel whose title is much too long to fit in "
			    "the space it has been given", "Time", "IOPS");
	plot_panel_set_x(pp, 0, 0);
	plot_panel_note(pp, "no data in range");
}

static int write_demo(const char *path, enum plot_format fmt,
		      struct iow_error *err)
{
	struct plot_page *p;

	p = plot_page_open(path, fmt, 1000, 1050, "iowatcher: fio randrw",
			   err);
	if (!p)
		return -1;
	draw_sample(p, plot_page_cell(p, 3, 2, 0, 0));
	demo_offsets(p, plot_page_cell(p, 3, 2, 0, 1));
	demo_latency(p, plot_page_cell(p, 3, 2, 1, 0));
	demo_queue(p, plot_page_cell(p, 3, 2, 1, 1));
	demo_empty(p, plot_page_cell(p, 3, 2, 2, 1));
	return plot_page_close(p, err);
}

static void test_demo_page_renders_in_every_format(void)
{
	const char *demo = getenv("PLOT_DEMO");
	struct iow_error err = { "" };
	struct output_type t;

	CHECK_EQ_INT(write_demo(tmp_path("demo.png"), PLOT_PNG, &err), 0);
	CHECK_EQ_INT(write_demo(tmp_path("demo.svg"), PLOT_SVG, &err), 0);
	CHECK_EQ_INT(write_demo(tmp_path("demo.pdf"), PLOT_PDF, &err), 0);
	if (demo && output_type_of(demo, &t, &err) == 0 &&
	    t.kind == OUTPUT_PICTURE)
		CHECK_EQ_INT(write_demo(demo, t.picture, &err), 0);
	if (err.msg[0])
		fprintf(stderr, "  %s\n", err.msg);
}

static void remove_tmp_dir(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	run_quiet(cmd);
}

int main(void)
{
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_palette_is_okabe_ito_and_distinct);
	RUN_TEST(test_ciede2000_matches_published_pairs);
	RUN_TEST(test_palette_stays_apart_for_colour_blind_readers);
	RUN_TEST(test_tag_colours_stay_apart);
	RUN_TEST(test_mixed_cells_stay_apart_and_between);
	RUN_TEST(test_ramp_runs_dark_to_light);
	RUN_TEST(test_png_written_via_rename_and_decodes);
	RUN_TEST(test_unwritable_dir_is_error_not_crash);
	RUN_TEST(test_write_failure_is_error_and_removes_temp);
	RUN_TEST(test_abort_removes_temp_and_leaves_old_file);
	RUN_TEST(test_null_panel_calls_are_harmless);
	RUN_TEST(test_svg_output_is_valid_xml);
	RUN_TEST(test_pdf_has_one_page);
	RUN_TEST(test_dense_line_keeps_svg_small);
	RUN_TEST(test_raster_cells_coloured_only_where_counts);
	RUN_TEST(test_raster_finer_than_pixels_loses_no_cell);
	RUN_TEST(test_overlaid_rasters_both_stay_visible);
	RUN_TEST(test_uneven_cell_leans_to_its_larger_share);
	RUN_TEST(test_rasters_on_two_grids_before_layout_both_drawn);
	RUN_TEST(test_sparse_dot_at_the_edge_shows_whole);
	RUN_TEST(test_heatmap_uses_ramp_and_leaves_empty_cells_white);
	RUN_TEST(test_line_leaves_gap_at_nan);
	RUN_TEST(test_line_draws_lone_points_as_dots);
	RUN_TEST(test_lighter_lines_are_dashed);
	RUN_TEST(test_page_on_surface_draws_over_callers_pixels);
	RUN_TEST(test_page_on_surface_needs_an_image);
	RUN_TEST(test_caption_draws_where_asked);
	RUN_TEST(test_binary_axis_ticks_on_round_units);
	RUN_TEST(test_legend_never_covers_plot_area);
	RUN_TEST(test_legend_rows_take_a_fifth_at_most);
	RUN_TEST(test_mixed_cell_colour_is_in_the_legend);
	RUN_TEST(test_tick_labels_never_overlap);
	RUN_TEST(test_demo_page_renders_in_every_format);
	remove_tmp_dir();
	return check_report();
}
