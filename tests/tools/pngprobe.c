/*
 * pngprobe: what a test needs to know of a rendered PNG.
 *   pngprobe FILE                  prints "WIDTH HEIGHT"
 *   pngprobe FILE X0 Y0 X1 Y1      prints the number of coloured (not
 *                                  grey, white or black) pixels in the
 *                                  rectangle: series, not axes or text
 *   pngprobe FILE X0 Y0 X1 Y1 RRGGBB [TOL]
 *                                  pixels within TOL (40 if not given)
 *                                  of that colour in each channel
 *   pngprobe -r FILE X0 Y0 X1 Y1 [RRGGBB [TOL]]
 *                                  the runs of rows holding such pixels,
 *                                  top down, one "FIRST-LAST" each
 */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int coloured(unsigned r, unsigned g, unsigned b)
{
	unsigned max = r > g ? (r > b ? r : b) : (g > b ? g : b);
	unsigned min = r < g ? (r < b ? r : b) : (g < b ? g : b);

	return max - min > 50;
}

static int near(unsigned r, unsigned g, unsigned b, unsigned long want,
		int tol)
{
	int dr = (int)r - (int)((want >> 16) & 255);
	int dg = (int)g - (int)((want >> 8) & 255);
	int db = (int)b - (int)(want & 255);

	return abs(dr) <= tol && abs(dg) <= tol && abs(db) <= tol;
}

int main(int argc, char **argv)
{
	cairo_surface_t *s;
	int w, h, x0, y0, x1, y1, x, y, stride;
	unsigned char *data;
	unsigned long want = 0;
	long count = 0, run_start = -1;
	int tol = 40, runs = 0;

	if (argc > 1 && !strcmp(argv[1], "-r")) {
		runs = 1;
		argv++;
		argc--;
	}
	if ((argc != 2 || runs) && argc != 6 && argc != 7 && argc != 8) {
		fprintf(stderr, "usage: pngprobe [-r] FILE [X0 Y0 X1 Y1 [RRGGBB [TOL]]]\n");
		return 2;
	}
	s = cairo_image_surface_create_from_png(argv[1]);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "pngprobe: %s: %s\n", argv[1],
			cairo_status_to_string(cairo_surface_status(s)));
		return 1;
	}
	w = cairo_image_surface_get_width(s);
	h = cairo_image_surface_get_height(s);
	if (argc == 2) {
		printf("%d %d\n", w, h);
		return 0;
	}
	x0 = atoi(argv[2]);
	y0 = atoi(argv[3]);
	x1 = atoi(argv[4]);
	y1 = atoi(argv[5]);
	if (argc >= 7)
		want = strtoul(argv[6], NULL, 16);
	if (argc == 8)
		tol = atoi(argv[7]);
	data = cairo_image_surface_get_data(s);
	stride = cairo_image_surface_get_stride(s);
	for (y = y0 < 0 ? 0 : y0; y < y1 && y < h; y++) {
		long before = count;

		for (x = x0 < 0 ? 0 : x0; x < x1 && x < w; x++) {
			unsigned px = *(unsigned *)(data + y * stride + x * 4);
			unsigned r = (px >> 16) & 255, g = (px >> 8) & 255;
			unsigned b = px & 255;

			if (argc >= 7 ? near(r, g, b, want, tol) :
					coloured(r, g, b))
				count++;
		}
		if (runs && count > before && run_start < 0)
			run_start = y;
		if (runs && count == before && run_start >= 0) {
			printf("%ld-%d\n", run_start, y - 1);
			run_start = -1;
		}
	}
	if (runs && run_start >= 0)
		printf("%ld-%d\n", run_start, y - 1);
	if (!runs)
		printf("%ld\n", count);
	cairo_surface_destroy(s);
	return 0;
}
