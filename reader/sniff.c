/*
 * sniff.c: what data that is not a trace looks like (see sniff.h): a
 * table of looks, each a magic number at an offset or a test of the
 * first line, tried in order; plain text last.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sniff.h"

#define USUAL_FILE "give blktrace's NAME.blktrace.N files or a blkparse -d dump"
#define USUAL_STDIN "pipe a blkparse dump: blkparse -i NAME -d - -o /dev/null | iowatcher -t -"

#define FIO_INSTEAD "record a trace while fio runs: iowatcher -d DEV -p \"fio JOB.fio\""
/* what reads a kernel trace of another tool: iowatcher reads perf
 * script's text of the block events, not yet the others */
#define RECORD_INSTEAD "iowatcher cannot read it yet; record the device with iowatcher -d DEV, or with blktrace -d DEV"
#define PERF_INSTEAD "give perf script's text of it: perf script -i perf.data > perf.txt; iowatcher -t perf.txt (record with perf record -e 'block:*')"
#define CAUSE_INSTEAD "a recording's causes are read with its trace: give -t NAME, the name before .cause"

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

/* A line of its own, "[name]": a fio job file's section. */
static int is_section_line(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *t = p;

	skip_class(&t, end, is_blank, 0);
	/* a JSON array's first value is a number, a string, [ or { */
	if (!skip_char(&t, end, '[') || t == end || is_digit(*t) ||
	    *t == '-')
		return 0;
	while (t < end && *t != ']' && *t != '[' && *t != '"' && *t != '{' &&
	       *t != ',' && *t >= 0x20)
		t++;
	if (t == p + 1 || !skip_char(&t, end, ']'))
		return 0;
	skip_class(&t, end, is_blank, 0);
	return t == end || *t == '\r';
}

/*
 * A fio job file: its first line not a comment (';' or '#') nor blank
 * opens a section, "[global]" or "[job1]" (JSON's '[' starts no such
 * line).
 */
static int fio_job(const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;

	while (p < end) {
		const unsigned char *eol = line_end(p, (size_t)(end - p));
		const unsigned char *t = p;

		skip_class(&t, eol, is_blank, 0);
		if (t < eol && *t != ';' && *t != '#' && *t != '\r')
			return eol < end && is_section_line(t, eol);
		p = eol < end ? eol + 1 : end;
	}
	return 0;
}

/* Whether the line at p starts with s. */
static int line_starts(const unsigned char *p, const unsigned char *end,
		       const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

/* Past the header lines ftrace's and trace-cmd's text start with
 * ("# tracer: nop", "cpus=2"); NULL if nothing follows them. */
static const unsigned char *past_header(const unsigned char *p,
					const unsigned char *end)
{
	while (p < end && (*p == '#' || line_starts(p, end, "cpus="))) {
		const unsigned char *eol = line_end(p, (size_t)(end - p));

		if (eol == end)
			return NULL;
		p = eol + 1;
	}
	return p < end ? p : NULL;
}

/*
 * The text of a kernel trace: ftrace's (tracefs's trace or trace_pipe),
 * trace-cmd report's or perf script's lines, as in
 * "  dd-1234  [001] ..... 12.345678: block_rq_issue: ..." or
 * "  dd  1234 [001] 12.345678: block:block_rq_issue: ...": a CPU in
 * brackets, then a time in seconds ending in ':'.
 */
static int kernel_trace_text(const unsigned char *p, size_t len)
{
	const unsigned char *end, *t;

	if (line_starts(p, p + len, "# tracer: "))
		return 1;
	if (!(t = past_header(p, p + len)))
		return 0;
	end = line_end(t, (size_t)(p + len - t));
	t = memchr(t, '[', (size_t)(end - t));
	if (!t || !skip_char(&t, end, '[') ||
	    !skip_class(&t, end, is_digit, 1) || !skip_char(&t, end, ']'))
		return 0;
	/* irq flags ("d..1." or "....") may come before the time */
	for (;;) {
		skip_class(&t, end, is_blank, 1);
		if (t == end || is_digit(*t))
			break;
		while (t < end && !is_blank(*t))
			t++;
	}
	/* seconds to the microsecond at least */
	return skip_class(&t, end, is_digit, 1) && skip_char(&t, end, '.') &&
	       skip_class(&t, end, is_digit, 6) && skip_char(&t, end, ':');
}

/* "iowatcher causes 1": NAME.cause, the causes' dictionary. */
static int cause_dictionary(const unsigned char *p, size_t len)
{
	static const char head[] = "iowatcher causes ";

	return len >= sizeof(head) - 1 && !memcmp(p, head, sizeof(head) - 1);
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

/*
 * A Perfetto trace: TracePackets, each field 1 of the Trace message
 * (tag 0x0a) and a varint length that fits what follows or runs on
 * beyond what was read.
 */
static int pftrace(const unsigned char *p, size_t len)
{
	uint64_t n = 0;
	size_t i;

	if (len < 3 || p[0] != 0x0a)
		return 0;
	for (i = 1; i < len && i < 11; i++) {
		n |= (uint64_t)(p[i] & 0x7f) << (7 * (i - 1));
		if (!(p[i] & 0x80))
			break;
	}
	/* a packet of 2 bytes or more, and the next byte a field's tag
	 * (field 1 and up, wire types 0-5) */
	return i < len && i < 11 && n >= 2 && i + 1 < len &&
	       p[i + 1] >= 0x08 && (p[i + 1] & 7) <= 5;
}

/* This program's own: its packets name the block devices' tracks. */
static int own_pftrace(const unsigned char *p, size_t len)
{
	return pftrace(p, len) && memmem(p, len, "block device ", 13);
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
	    "blkparse writes its text to standard output unless given -o: blkparse -i NAME -d - -o /dev/null | iowatcher -t -", NULL },
	  NULL, 0, 0, blkparse_text },
	{ { "fio's output", FIO_INSTEAD, NULL, NULL }, NULL, 0, 0, fio_output },
	{ { "fio's JSON output", FIO_INSTEAD, NULL, NULL }, NULL, 0, 0, fio_json },
	{ { "a fio job file", FIO_INSTEAD, NULL, NULL }, NULL, 0, 0, fio_job },
	{ { "a fio log", "fio's logs are given with -F, beside a trace",
	    NULL, NULL }, NULL, 0, 0, fio_log },
	{ { "mpstat's output",
	    "NAME.mpstat beside the trace NAME is read with it", NULL, NULL },
	  NULL, 0, 0, mpstat },
	{ { "iowatcher's causes file (NAME.cause)", CAUSE_INSTEAD, NULL,
	    ".cause" },
	  NULL, 0, 0, cause_dictionary },
	{ { "iowatcher's per-CPU causes file (NAME.cause.N)", CAUSE_INSTEAD,
	    NULL, ".cause." }, "IOWCAUS", 7, 0, NULL },
	{ { "a trace-cmd recording (trace.dat)",
	    "give it with -t: iowatcher reads trace-cmd's block events",
	    NULL, NULL }, "\x17\x08\x44tracing", 10, 0, NULL },
	{ { "a perf recording (perf.data: perf script prints it)",
	    PERF_INSTEAD, NULL, NULL }, "PERFILE2", 8, 0, NULL },
	{ { "the text of a kernel trace (ftrace's or trace-cmd report's)",
	    RECORD_INSTEAD, NULL, NULL }, NULL, 0, 0, kernel_trace_text },
	{ { "a PNG image", NULL, NULL, NULL }, "\x89PNG\r\n\x1a\n", 8, 0, NULL },
	{ { "a JPEG image", NULL, NULL, NULL }, "\xff\xd8\xff", 3, 0, NULL },
	{ { "a GIF image", NULL, NULL, NULL }, "GIF8", 4, 0, NULL },
	{ { "a PDF document", NULL, NULL, NULL }, "%PDF-", 5, 0, NULL },
	{ { "a zip archive", NULL, NULL, NULL }, "PK\x03\x04", 4, 0, NULL },
	{ { "a tar archive", NULL, NULL, NULL }, "ustar", 5, 257, NULL },
	{ { "a 7-Zip archive", NULL, NULL, NULL }, "7z\xbc\xaf\x27\x1c", 6, 0, NULL },
	{ { "an ELF program or library", NULL, NULL, NULL }, "\x7f" "ELF", 4, 0,
	  NULL },
	{ { "an MP4 video", NULL, NULL, NULL }, "ftyp", 4, 4, NULL },
	{ { "a Matroska or WebM video", NULL, NULL, NULL }, "\x1a\x45\xdf\xa3", 4,
	  0, NULL },
	{ { "iowatcher's own Perfetto trace (written by -o NAME.pftrace)",
	    "open it at ui.perfetto.dev; give -t the trace it was made from",
	    NULL, NULL }, NULL, 0, 0, own_pftrace },
	{ { "a Perfetto trace", "open it at ui.perfetto.dev; iowatcher reads blktrace's files, a blkparse -d dump, trace.dat or perf script's text",
	    NULL, NULL }, NULL, 0, 0, pftrace },
	{ { "an SVG image", NULL, NULL, NULL }, NULL, 0, 0, svg },
	{ { "an HTML page", NULL, NULL, NULL }, NULL, 0, 0, html },
	{ { "a JSON document", NULL, NULL, NULL }, NULL, 0, 0, json },
	{ { "text", NULL, NULL, NULL }, NULL, 0, 0, text },
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

const char *sniff_name_instead(const struct sniffed *s, const char *path,
			       char *buf, size_t size)
{
	const char *at, *last = NULL;

	if (!s || !s->after_name || !path)
		return NULL;
	for (at = strstr(path, s->after_name); at;
	     at = strstr(at + 1, s->after_name))
		last = at;
	if (!last || last == path)
		return NULL;
	snprintf(buf, size, "give -t %.*s: a recording's causes are read "
		 "with its trace", (int)(last - path), path);
	return buf;
}
