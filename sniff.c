/*
 * sniff.c: what data that is not a trace looks like (see sniff.h): a
 * table of looks, each a magic number at an offset or a test of the
 * first line, tried in order; plain text last.
 */
#include <string.h>

#include "sniff.h"

#define USUAL_FILE "give blktrace's NAME.blktrace.N files or a blkparse -d dump"
#define USUAL_STDIN "pipe a blkparse dump: blkparse -i NAME -d - -o /dev/null | iowatcher -t -"

#define FIO_INSTEAD "record a trace while fio runs: iowatcher -d DEV -p \"fio JOB.fio\""

/* How much of the start the tests below look at. */
#define SNIFF_LEN	1024

struct look {
	struct sniffed sniffed;
	const char *magic;	/* at offset; or NULL and matches */
	size_t magic_len, offset;
	int (*matches)(const unsigned char *p, size_t len);
};

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Moves *p past at least min characters of class (returns 0 if fewer). */
static int skip_class(const unsigned char **p, const unsigned char *end,
		      int (*in_class)(unsigned char), size_t min)
{
	size_t n = 0;

	while (*p < end && in_class(**p)) {
		(*p)++;
		n++;
	}
	return n >= min;
}

static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static int is_letter(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int skip_char(const unsigned char **p, const unsigned char *end,
		     unsigned char c)
{
	if (*p == end || **p != c)
		return 0;
	(*p)++;
	return 1;
}

/* The end of the first line (or of the data). */
static const unsigned char *line_end(const unsigned char *p, size_t len)
{
	const unsigned char *nl = memchr(p, '\n', len);

	return nl ? nl : p + len;
}

/*
 * blkparse's default line: "%3d,%-3d %2c %8s %5T.%9t %5p %2a %3d ...",
 * as in "  8,0    1        1     0.000000000  1234  Q   W 123 + 8 [dd]".
 */
int sniff_blkparse_text(const unsigned char *p, size_t len)
{
	const unsigned char *end = line_end(p, len), *t = p;
	int i;

	skip_class(&t, end, is_blank, 0);
	if (!skip_class(&t, end, is_digit, 1) || !skip_char(&t, end, ',') ||
	    !skip_class(&t, end, is_digit, 1))
		return 0;
	/* CPU, sequence */
	for (i = 0; i < 2; i++)
		if (!skip_class(&t, end, is_blank, 1) ||
		    !skip_class(&t, end, is_digit, 1))
			return 0;
	/* seconds.nanoseconds */
	if (!skip_class(&t, end, is_blank, 1) ||
	    !skip_class(&t, end, is_digit, 1) || !skip_char(&t, end, '.') ||
	    !skip_class(&t, end, is_digit, 6))
		return 0;
	/* pid, action */
	return skip_class(&t, end, is_blank, 1) &&
	       skip_class(&t, end, is_digit, 1) &&
	       skip_class(&t, end, is_blank, 1) &&
	       skip_class(&t, end, is_letter, 1) &&
	       (t == end || is_blank(*t));
}

/* blkparse's text, after the "Input file" lines it starts with when its
 * standard output is a file. */
static int blkparse_text(const unsigned char *p, size_t len)
{
	static const char added[] = "Input file ";

	while (len > sizeof(added) && !memcmp(p, added, sizeof(added) - 1)) {
		const unsigned char *nl = memchr(p, '\n', len);

		if (!nl)
			return 0;
		len -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	return sniff_blkparse_text(p, len);
}

/* p's first line holds the string s. */
static int first_line_has(const unsigned char *p, size_t len, const char *s)
{
	return memmem(p, (size_t)(line_end(p, len) - p), s, strlen(s)) != NULL;
}

/* "job: (g=0): rw=randrw, bs=..." */
static int fio_output(const unsigned char *p, size_t len)
{
	return first_line_has(p, len, ": (g=") &&
	       first_line_has(p, len, "rw=");
}

/* "396, 1202, 0, 0, 0": time, value, direction, size[, offset...] */
static int fio_log(const unsigned char *p, size_t len)
{
	const unsigned char *end = line_end(p, len), *t = p;
	int i;

	for (i = 0; i < 4; i++) {
		if (i && (!skip_char(&t, end, ',') ||
			  !skip_class(&t, end, is_blank, 0)))
			return 0;
		if (!skip_class(&t, end, is_digit, 1))
			return 0;
	}
	return 1;
}

/* "Linux 6.1.0 (host) 	2026-11-22 	_x86_64_	(2 CPU)" */
static int mpstat(const unsigned char *p, size_t len)
{
	return len > 6 && !memcmp(p, "Linux ", 6) &&
	       first_line_has(p, len, " CPU)");
}

/* The first character that is not white space. */
static int first_char(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!p[i] || !strchr(" \t\r\n", p[i]))
			return p[i];
	return -1;
}

static int fio_json(const unsigned char *p, size_t len)
{
	return first_char(p, len) == '{' &&
	       memmem(p, len, "\"fio version\"", 13) != NULL;
}

static int json(const unsigned char *p, size_t len)
{
	int c = first_char(p, len);

	return c == '{' || c == '[';
}

static int svg(const unsigned char *p, size_t len)
{
	return first_char(p, len) == '<' && memmem(p, len, "<svg", 4);
}

static int html(const unsigned char *p, size_t len)
{
	return first_char(p, len) == '<' &&
	       (memmem(p, len, "<html", 5) || memmem(p, len, "<HTML", 5) ||
		memmem(p, len, "<!DOCTYPE html", 14));
}

/* Printable ASCII, white space, and UTF-8's bytes: no control bytes. */
static int text(const unsigned char *p, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++)
		if (p[i] < 0x20 && (!p[i] || !strchr("\t\r\n\f", p[i])))
			return 0;
	return 1;
}

static const struct look looks[] = {
	{ { "blkparse's text output",
	    "give blktrace's files NAME.blktrace.N, or a dump made with blkparse -i NAME -d NAME.dump",
	    "blkparse writes its text to standard output unless given -o: blkparse -i NAME -d - -o /dev/null | iowatcher -t -" },
	  NULL, 0, 0, blkparse_text },
	{ { "fio's output", FIO_INSTEAD, NULL }, NULL, 0, 0, fio_output },
	{ { "fio's JSON output", FIO_INSTEAD, NULL }, NULL, 0, 0, fio_json },
	{ { "a fio log", "fio's logs are given with -F, beside a trace",
	    NULL }, NULL, 0, 0, fio_log },
	{ { "mpstat's output",
	    "NAME.mpstat beside the trace NAME is read with it", NULL },
	  NULL, 0, 0, mpstat },
	{ { "a PNG image", NULL, NULL }, "\x89PNG\r\n\x1a\n", 8, 0, NULL },
	{ { "a JPEG image", NULL, NULL }, "\xff\xd8\xff", 3, 0, NULL },
	{ { "a GIF image", NULL, NULL }, "GIF8", 4, 0, NULL },
	{ { "a PDF document", NULL, NULL }, "%PDF-", 5, 0, NULL },
	{ { "a zip archive", NULL, NULL }, "PK\x03\x04", 4, 0, NULL },
	{ { "a tar archive", NULL, NULL }, "ustar", 5, 257, NULL },
	{ { "a 7-Zip archive", NULL, NULL }, "7z\xbc\xaf\x27\x1c", 6, 0, NULL },
	{ { "an ELF program or library", NULL, NULL }, "\x7f" "ELF", 4, 0,
	  NULL },
	{ { "an MP4 video", NULL, NULL }, "ftyp", 4, 4, NULL },
	{ { "a Matroska or WebM video", NULL, NULL }, "\x1a\x45\xdf\xa3", 4,
	  0, NULL },
	{ { "an SVG image", NULL, NULL }, NULL, 0, 0, svg },
	{ { "an HTML page", NULL, NULL }, NULL, 0, 0, html },
	{ { "a JSON document", NULL, NULL }, NULL, 0, 0, json },
	{ { "text", NULL, NULL }, NULL, 0, 0, text },
};

const struct sniffed *sniff(const unsigned char *p, size_t len)
{
	size_t i;

	if (len > SNIFF_LEN)
		len = SNIFF_LEN;
	for (i = 0; i < sizeof(looks) / sizeof(looks[0]); i++) {
		const struct look *l = &looks[i];

		if (l->magic ? len >= l->offset + l->magic_len &&
			       !memcmp(p + l->offset, l->magic, l->magic_len) :
			       l->matches(p, len))
			return &l->sniffed;
	}
	return NULL;
}

const char *sniff_instead(const struct sniffed *s, int is_stdin)
{
	const char *instead = !s ? NULL : is_stdin ? s->instead_stdin :
				s->instead_file;

	if (instead)
		return instead;
	return is_stdin ? USUAL_STDIN : USUAL_FILE;
}
