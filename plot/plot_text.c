/*
 * plot_text.c: the plot's fonts and text: a font per role (tick labels,
 * axis labels, titles, legends, notes), text measured and drawn with its
 * left, centre or right at a point, and cut with an ellipsis to a width.
 * Labels with bad UTF-8 (a process name) are repaired first: cairo would
 * fail the whole page on them.
 */
#include <stdio.h>
#include <string.h>

#include <cairo.h>

#include "base/utf8.h"
#include "plot.h"
#include "plot_internal.h"

#define FONT_FAMILY	"DejaVu Sans"
#define TEXT_MAX	1024	/* a label with bad UTF-8 is repaired up to this */

struct font_spec {
	double size;
	int bold, italic;
	unsigned color;
};

static const struct font_spec fonts[] = {
	[FONT_TICK] = { 10.5, 0, 0, 0x444444 },
	[FONT_AXIS] = { 11.5, 0, 0, 0x222222 },
	[FONT_TITLE] = { 13, 1, 0, 0x111111 },
	[FONT_PAGE_TITLE] = { 16, 1, 0, 0x111111 },
	[FONT_LEGEND] = { 11, 0, 0, 0x222222 },
	[FONT_NOTE] = { 12.5, 0, 1, 0x777777 },
};

void plot_set_hex(cairo_t *cr, unsigned hex)
{
	struct plot_rgb c = rgb_hex(hex);

	cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

void plot_use_font(cairo_t *cr, enum font_role role)
{
	const struct font_spec *f = &fonts[role];

	cairo_select_font_face(cr, FONT_FAMILY,
			       f->italic ? CAIRO_FONT_SLANT_ITALIC :
					   CAIRO_FONT_SLANT_NORMAL,
			       f->bold ? CAIRO_FONT_WEIGHT_BOLD :
					 CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, f->size);
	plot_set_hex(cr, f->color);
}

double plot_text_width(cairo_t *cr, const char *s)
{
	cairo_text_extents_t te;
	char clean[TEXT_MAX];

	cairo_text_extents(cr, utf8_clean(s, clean, sizeof(clean)), &te);
	return te.x_advance;
}

/* Height of a capital: what "centred on a tick" should centre. */
double plot_cap_height(cairo_t *cr)
{
	cairo_text_extents_t te;

	cairo_text_extents(cr, "H", &te);
	return te.height;
}

/* Ascent plus descent: the height of a line of text. */
double plot_line_height(cairo_t *cr)
{
	cairo_font_extents_t fe;

	cairo_font_extents(cr, &fe);
	return fe.ascent + fe.descent;
}

double plot_font_ascent(cairo_t *cr)
{
	cairo_font_extents_t fe;

	cairo_font_extents(cr, &fe);
	return fe.ascent;
}

/* Text with its left (0), centre (0.5) or right (1) at x, baseline y. */
void plot_draw_text(cairo_t *cr, double x, double y, const char *s,
		    double halign)
{
	char clean[TEXT_MAX];

	/* invalid UTF-8 (a process name) would fail the whole page */
	s = utf8_clean(s, clean, sizeof(clean));
	cairo_move_to(cr, x - plot_text_width(cr, s) * halign, y);
	cairo_show_text(cr, s);
}

/* Text whose capitals are centred vertically on y. */
void plot_draw_text_mid(cairo_t *cr, double x, double y, const char *s,
			double halign)
{
	plot_draw_text(cr, x, y + plot_cap_height(cr) / 2, s, halign);
}

double plot_caption(cairo_t *cr, double x, double y, double size, int bold,
		    const char *text, double halign)
{
	cairo_select_font_face(cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD :
				      CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	plot_draw_text(cr, x, y, text, halign);
	return plot_text_width(cr, text);
}

/* Copies s into buf, cut at a character and ended with an ellipsis if
 * it is wider than max_w. */
void plot_fit_text(cairo_t *cr, const char *s, double max_w, char *buf,
		   size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", s);
	if (plot_text_width(cr, buf) <= max_w)
		return;
	n = strlen(buf);
	while (n > 0) {
		do
			n--;
		while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80);
		if (n + 4 > len)
			continue;
		memcpy(buf + n, "\xe2\x80\xa6", 4);	/* U+2026 */
		if (plot_text_width(cr, buf) <= max_w)
			return;
	}
	buf[0] = '\0';
}
