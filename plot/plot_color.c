/*
 * plot_color.c: the colours of the pictures: the palette and its lighter
 * and darker shades, the order tag classes take them in, the heat maps'
 * ramp, and the colour of a raster cell that holds two classes, mixed in
 * CIELAB so that it stays apart from both. The palette's distances, as
 * readers with each kind of dichromacy see them, are checked in
 * tests/test_plot.c.
 */
#include <math.h>

#include "plot.h"
#include "plot_internal.h"

/* ---- The palette ---- */

int plot_color_cycle(int index)
{
	if (index < 0)
		index = -index;
	return (index / 8) % 3;
}

/*
 * Okabe and Ito's blue, vermilion, bluish green, reddish purple and sky
 * blue, and black; their orange and yellow gave way to a dark red and
 * Paul Tol's sand yellow: orange and yellow were 7 apart (CIEDE2000) for
 * a deuteranope, and the yellow barely showed on white. Every pair is at
 * least 12 apart for normal, protan, deutan and tritan vision (Machado et
 * al. 2009 at full severity): test_palette_stays_apart_for_colour_blind.
 */
struct plot_rgb plot_color(int index)
{
	static const unsigned palette[8] = {
		0x0072B2, 0xD55E00, 0x009E73, 0xAA0000,
		0xCC79A7, 0x56B4E9, 0xCCBB44, 0x000000,
	};
	struct plot_rgb c;
	int cycle = plot_color_cycle(index);

	if (index < 0)
		index = -index;
	c = rgb_hex(palette[index % 8]);
	if (cycle == 1)
		return rgb_mix(c, rgb_hex(0xFFFFFF), 0.45);
	if (cycle == 2)
		return rgb_mix(c, rgb_hex(0x000000), 0.4);
	return c;
}

/*
 * The palette's seven hues, then the shades that stay furthest from all
 * before them (the lighter blue was 4 apart from the sky blue: the eighth
 * tag looked like the sixth): chosen greedily by CIEDE2000 distance for
 * normal vision from the hues, black ("other") and grey ("untagged").
 */
int plot_category_color(int k)
{
	static const int after_hues[] = {
		20, 18, 22, 9, 16, 10, 12, 11, 19, 17, 14, 13, 21, 8,
	};
	const int n = (int)(sizeof(after_hues) / sizeof(after_hues[0]));

	if (k < 0)
		k = 0;
	if (k < 7)
		return k;
	return after_hues[(k - 7) % n];
}

struct plot_rgb plot_ramp(double t)
{
	static const unsigned viridis[] = {
		0x440154, 0x472D7B, 0x3B528B, 0x2C728E, 0x21918C,
		0x28AE80, 0x5EC962, 0xADDC30, 0xFDE725,
	};
	const int last = (int)(sizeof(viridis) / sizeof(viridis[0])) - 1;
	double pos;
	int i;

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	pos = t * last;
	i = (int)pos;
	if (i >= last)
		return rgb_hex(viridis[last]);
	return rgb_mix(rgb_hex(viridis[i]), rgb_hex(viridis[i + 1]), pos - i);
}

/* ---- CIELAB (D65), for mixing ---- */

struct lab {
	double l, a, b;
};

static double to_linear(double c)
{
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double from_linear(double c)
{
	if (!(c > 0))
		return 0;
	if (c >= 1)
		return 1;
	return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
}

static double lab_f(double t)
{
	return t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116;
}

static double lab_f_inv(double t)
{
	double t3 = t * t * t;

	return t3 > 216.0 / 24389 ? t3 : (116 * t - 16) / (24389.0 / 27);
}

#define WHITE_X 0.95047
#define WHITE_Z 1.08883

static struct lab rgb_to_lab(struct plot_rgb c)
{
	double r = to_linear(c.r), g = to_linear(c.g), b = to_linear(c.b);
	double x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
	double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
	double z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b;
	double fx = lab_f(x / WHITE_X), fy = lab_f(y), fz = lab_f(z / WHITE_Z);
	struct lab out = { 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz) };

	return out;
}

/* Out-of-gamut colours are clipped channel by channel. */
static struct plot_rgb lab_to_rgb(struct lab c)
{
	double fy = (c.l + 16) / 116, fx = fy + c.a / 500, fz = fy - c.b / 200;
	double x = WHITE_X * lab_f_inv(fx), y = lab_f_inv(fy);
	double z = WHITE_Z * lab_f_inv(fz);
	struct plot_rgb out = {
		from_linear(3.2404542 * x - 1.5371385 * y - 0.4985314 * z),
		from_linear(-0.9692660 * x + 1.8760108 * y + 0.0415560 * z),
		from_linear(0.0556434 * x - 0.2040259 * y + 1.0572252 * z),
	};

	return out;
}

static struct lab lab_mix(struct lab a, struct lab b, double t)
{
	struct lab m = { a.l + (b.l - a.l) * t, a.a + (b.a - a.a) * t,
			 a.b + (b.b - a.b) * t };

	return m;
}

/* ---- Two classes in one cell ---- */

/* How much darker than the darker of the two their mix is, and how much
 * of their mean chroma it keeps. */
#define MIX_DARKER	20.0
#define MIX_DARKEST	15.0
#define MIX_CHROMA	0.8

/*
 * What a cell of a and b in equal shares looks like: the hue halfway
 * between theirs the short way round (blue and vermilion: a plum),
 * darker than either. Averaging the colours themselves gives a grey or
 * a mud that reads as neither (blue and vermilion multiplied, as the
 * rasters did: a dark green, a third class); lightness is what sets the
 * mix apart from both for readers who cannot tell the hues apart.
 */
static struct lab pair_mix(struct lab a, struct lab b)
{
	double ca = hypot(a.a, a.b), cb = hypot(b.a, b.b);
	double hx = (ca > 0 ? a.a / ca : 0) + (cb > 0 ? b.a / cb : 0);
	double hy = (ca > 0 ? a.b / ca : 0) + (cb > 0 ? b.b / cb : 0);
	double h = atan2(hy, hx), c = (ca + cb) / 2 * MIX_CHROMA;
	struct lab m;

	m.l = fmax(MIX_DARKEST, fmin(a.l, b.l) - MIX_DARKER);
	m.a = hx == 0 && hy == 0 ? 0 : c * cos(h);
	m.b = hx == 0 && hy == 0 ? 0 : c * sin(h);
	return m;
}

struct plot_rgb plot_mix_color(int a, int b)
{
	return lab_to_rgb(pair_mix(rgb_to_lab(plot_color(a)),
				   rgb_to_lab(plot_color(b))));
}

/*
 * A cell of a and b where share_b of the I/O is b's: the dominant
 * class's colour, towards the mix as the cell is more evenly shared
 * (by the square root, so that a tenth of writes among reads already
 * shows), the mix itself half and half.
 */
struct plot_rgb plot_mix_share(int a, int b, double share_b)
{
	struct lab la = rgb_to_lab(plot_color(a)), lb = rgb_to_lab(plot_color(b));
	double minor;

	if (!(share_b > 0))
		return plot_color(a);
	if (share_b >= 1)
		return plot_color(b);
	minor = share_b < 0.5 ? share_b : 1 - share_b;
	return lab_to_rgb(lab_mix(share_b < 0.5 ? la : lb, pair_mix(la, lb),
				  sqrt(2 * minor)));
}
