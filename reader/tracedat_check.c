/*
 * tracedat_check.c: a trace.dat's sizes checked against the file before
 * libtracecmd sees it (tracedat_check.h): version 6's headers and CPU
 * data, version 7's sections and their compressed sizes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracedat_check.h"

/*
 * A version-6 file whose CPU data is cut short makes libtracecmd 1.3
 * print "File possibly truncated" to standard output (and crash, were
 * the file closed: tracedat_open), so the ends of that data are checked
 * here first, from the headers trace-cmd.dat(5) describes: each
 * section's size, then the CPUs' offsets and sizes after "flyrecord".
 * Version 7 keeps them in sections that a cut loses first, which
 * libtracecmd notices before it looks at the CPUs.
 */
struct v6_cursor {
	struct precheck_page *page;	/* the page last read */
	int fd, swap;
	uint64_t at, size;
	/* a size past its bounds: where it is written, what it says, and
	 * where its room ends (0: none found) */
	uint64_t bad_at, bad_size, bad_end;
	uint64_t nul_at;	/* a NUL inside a text, 0 none */
	uint64_t past_at;	/* a section placed past the end, 0 none */
	uint64_t bad_raw;	/* a compressed section's size too big */
};

/*
 * The headers are read a page at a time (from a size's or a string's
 * first byte to its page's end), not a read for each number or each
 * byte of a name: never a page more than the walk itself reaches (what
 * follows the headers, the CPUs' data, is libtracecmd's to read, under
 * the fence's time limit).
 */
#define PRECHECK_PAGE	4096

struct precheck_page {
	uint64_t off;
	size_t len;
	unsigned char b[PRECHECK_PAGE];
};

/* The bytes from c->at on that the page holds (read if need be), at
 * most to c->size: their count, 0 at the end or on an error. */
static size_t v6_span(struct v6_cursor *c, const unsigned char **p)
{
	struct precheck_page *pg = c->page;
	uint64_t lim = c->size;
	ssize_t got;
	size_t n;

	if (c->at >= lim)
		return 0;
	if (c->at < pg->off || c->at >= pg->off + pg->len) {
		n = PRECHECK_PAGE - (size_t)(c->at % PRECHECK_PAGE);
		do
			got = pread(c->fd, pg->b, n, (off_t)c->at);
		while (got < 0 && errno == EINTR);
		pg->off = c->at;
		pg->len = got > 0 ? (size_t)got : 0;
		if (!pg->len)
			return 0;
	}
	if (lim > pg->off + pg->len)
		lim = pg->off + pg->len;
	*p = pg->b + (c->at - pg->off);
	return (size_t)(lim - c->at);
}

static int v6_bytes(struct v6_cursor *c, void *buf, size_t n)
{
	const unsigned char *p;
	unsigned char *to = buf;
	size_t got;

	if (n > c->size || c->at > c->size - n)
		return -1;
	while (n) {
		got = v6_span(c, &p);
		if (!got)
			return -1;
		if (got > n)
			got = n;
		memcpy(to, p, got);
		to += got;
		n -= got;
		c->at += got;
	}
	return 0;
}

static int v6_number(struct v6_cursor *c, size_t n, uint64_t *v)
{
	uint32_t v32;

	if (n == 4) {
		if (v6_bytes(c, &v32, 4))
			return -1;
		*v = c->swap ? __builtin_bswap32(v32) : v32;
		return 0;
	}
	if (v6_bytes(c, v, 8))
		return -1;
	if (c->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

/* Steps over a size (n bytes) and the data it counts. */
static int v6_skip_sized(struct v6_cursor *c, size_t n)
{
	uint64_t size;

	if (v6_number(c, n, &size))
		return -1;
	if (size > c->size - c->at) {
		c->bad_at = c->at - n;
		c->bad_size = size;
		c->bad_end = c->size;
		return -1;
	}
	c->at += size;
	return 0;
}

/*
 * Steps over a size (4 bytes) and the text it counts (kallsyms, printk's
 * formats): a NUL inside the text, which libtraceevent reads past, is
 * damage (c->nul_at says where); NULs at its end are not.
 */
static int v6_skip_text(struct v6_cursor *c)
{
	unsigned char chunk[4096];
	uint64_t size, at, end, nul = 0;
	size_t i, n;

	if (v6_number(c, 4, &size))
		return -1;
	if (size > c->size - c->at) {
		c->bad_at = c->at - 4;
		c->bad_size = size;
		c->bad_end = c->size;
		return -1;
	}
	for (at = c->at, end = c->at + size; at < end; at += n) {
		const unsigned char *p = chunk;

		n = end - at < sizeof(chunk) ? (size_t)(end - at) : sizeof(chunk);
		if (pread(c->fd, chunk, n, (off_t)at) != (ssize_t)n)
			return -1;
		/* text without a NUL is the usual case */
		if (!nul && !memchr(p, 0, n))
			continue;
		for (i = 0; i < n; i++) {
			if (!p[i]) {
				if (!nul)
					nul = at + i + 1;
			} else if (nul) {
				c->nul_at = nul - 1;
				return -1;
			}
		}
	}
	c->at = end;
	return 0;
}

static int v6_skip_string(struct v6_cursor *c)
{
	const unsigned char *nul, *p;
	size_t n;

	while ((n = v6_span(c, &p)) > 0) {
		nul = memchr(p, 0, n);
		if (nul) {
			c->at += (uint64_t)(nul - p) + 1;
			return 0;
		}
		c->at += n;
	}
	return -1;
}

/* Steps over the headers up to the number of CPUs; 0, or -1 cut short. */
static int v6_headers(struct v6_cursor *c, uint64_t *cpus)
{
	uint64_t count, events, i, j;
	char word[6];

	c->at = TRACEDAT_MAGIC_LEN;
	if (v6_skip_string(c) || v6_bytes(c, word, 6))	/* version, sizes */
		return -1;
	/* header_page and header_event, each a name and a sized blob */
	for (i = 0; i < 2; i++)
		if (v6_skip_string(c) || v6_skip_sized(c, 8))
			return -1;
	if (v6_number(c, 4, &count))	/* ftrace's own events */
		return -1;
	for (i = 0; i < count; i++)
		if (v6_skip_sized(c, 8))
			return -1;
	if (v6_number(c, 4, &count))	/* the systems' events */
		return -1;
	for (i = 0; i < count; i++) {
		if (v6_skip_string(c) || v6_number(c, 4, &events))
			return -1;
		for (j = 0; j < events; j++)
			if (v6_skip_sized(c, 8))
				return -1;
	}
	/* kallsyms, printk's formats, the saved pids' names */
	return v6_skip_text(c) || v6_skip_text(c) ||
	       v6_skip_sized(c, 8) || v6_number(c, 4, cpus) ? -1 : 0;
}

#define V6_OPTION_BUFFER	3	/* an instance's buffer: its offset */
#define V6_BUFFERS_MAX		64

/*
 * A buffer's options and CPU table, at c->at: the options' BUFFER
 * offsets into buffers (room for V6_BUFFERS_MAX, *n_buffers of them; NULL
 * for an instance's), then each CPU's data checked against the file's
 * end. 0, 1 for a latency trace (no CPU data), -1 cut in the headers, -2
 * a CPU's data past the end (*cpu, *end say which).
 */
static int v6_buffer(struct v6_cursor *c, uint64_t cpus, uint64_t *buffers,
		     size_t *n_buffers, uint64_t *cpu, uint64_t *end)
{
	uint64_t size, offset;
	uint16_t id;
	char word[10];

	if (v6_bytes(c, word, 10))
		return -1;
	while (!strncmp(word, "options", 7)) {
		for (;;) {
			if (v6_bytes(c, &id, 2))
				return -1;
			if (!id)
				break;
			if (c->swap)
				id = __builtin_bswap16(id);
			if (v6_number(c, 4, &size) || size > c->size - c->at)
				return -1;
			if (id == V6_OPTION_BUFFER && buffers && size >= 8 &&
			    *n_buffers < V6_BUFFERS_MAX &&
			    v6_number(c, 8, &buffers[(*n_buffers)++]) == 0)
				size -= 8;
			c->at += size;
		}
		if (v6_bytes(c, word, 10))
			return -1;
	}
	if (strncmp(word, "flyrecord", 9))
		return 1;
	for (*cpu = 0; *cpu < cpus; (*cpu)++) {
		if (v6_number(c, 8, &offset) || v6_number(c, 8, &size))
			return -1;
		*end = offset + size;
		if (size && (offset > c->size || size > c->size - offset))
			return -2;
	}
	return 0;
}

/* The file's first n bytes, from base (a cursor at 0 over the file). */
static int head_read(const struct v6_cursor *base, void *buf, size_t n)
{
	struct v6_cursor c = *base;

	c.at = 0;
	return v6_bytes(&c, buf, n);
}

static int v6_whole(const struct v6_cursor *base, const char *path,
		    struct iow_error *err)
{
	struct v6_cursor c = *base;
	unsigned char head[TRACEDAT_MAGIC_LEN + 8];
	uint64_t buffers[V6_BUFFERS_MAX], cpus, cpu = 0, end = 0;
	size_t n_buffers = 0, i;
	int r;

	if (head_read(base, head, sizeof(head)))
		return 0;	/* libtracecmd says what is wrong */
	if (memcmp(head + TRACEDAT_MAGIC_LEN, "6", 2))
		return 0;
	c.swap = head[TRACEDAT_MAGIC_LEN + 2] !=
		 (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	r = v6_headers(&c, &cpus);
	if (r == 0)
		r = v6_buffer(&c, cpus, buffers, &n_buffers, &cpu, &end);
	for (i = 0; r == 0 && i < n_buffers; i++) {
		c.at = buffers[i];
		r = v6_buffer(&c, cpus, NULL, NULL, &cpu, &end);
	}
	if (r == -2)
		return iow_fail(err, "%s: cut short: the data of CPU %llu ends at byte %llu, past the file's end (%llu bytes)",
				path, (unsigned long long)cpu,
				(unsigned long long)end,
				(unsigned long long)c.size);
	if (r < 0 && c.nul_at)
		return iow_fail(err, "%s: damaged: a NUL byte at byte %llu inside the text of trace-cmd's kallsyms or printk formats: libtracecmd was not asked to read it; nothing was drawn",
				path, (unsigned long long)c.nul_at);
	if (r < 0)
		return iow_fail(err, "%s: cut short at byte %llu, in trace-cmd's headers (%llu bytes)",
				path, (unsigned long long)c.at,
				(unsigned long long)c.size);
	return 0;
}


/*
 * Version 7 keeps its headers in sections (trace-cmd.dat(5)): a chain of
 * option sections, whose options give the offsets of the header
 * sections and of each buffer's CPU data. Every size they hold is
 * checked against the room its section (or the file) has before
 * libtracecmd sees it: the library allocates what a size says (a
 * changed byte asked it for a terabyte) and reads past what it
 * allocated. A section compressed by trace-cmd is checked as far as its
 * compressed size: what it holds is the library's to read, in the
 * fenced child (below).
 */
#define V7_SECTION_HEAD		16	/* id, flags, string id, size */
#define V7_FLAG_COMPRESSED	1
#define V7_OPTION_DONE		0
#define V7_OPTION_BUFFER	3
#define V7_OPTION_HEADER_INFO	16	/* 16 to 21: a header section */
#define V7_OPTION_CMDLINES	21
#define V7_OPTION_SECTIONS_MAX	256	/* option sections followed */

/* The room past a size that does not fit: noted in c, -1. */
static int v7_too_big(struct v6_cursor *c, uint64_t at, uint64_t size,
		      uint64_t end)
{
	c->bad_at = at;
	c->bad_size = size;
	c->bad_end = end;
	return -1;
}

/*
 * The section at off: its id, and c limited to its contents. 0, 1 when
 * it is compressed (not walked), -1 damaged.
 */
static int v7_section(struct v6_cursor *c, uint64_t off, uint64_t fsize,
		      uint16_t *id)
{
	uint64_t size, string, comp, raw;
	uint16_t flags;

	c->size = fsize;
	c->at = off;
	if (off > fsize || fsize - off < V7_SECTION_HEAD) {
		c->past_at = off;
		return -1;
	}
	if (v6_bytes(c, id, 2) || v6_bytes(c, &flags, 2) ||
	    v6_number(c, 4, &string) || v6_number(c, 8, &size))
		return -1;
	if (c->swap) {
		*id = __builtin_bswap16(*id);
		flags = __builtin_bswap16(flags);
	}
	if (size > fsize - c->at)
		return v7_too_big(c, c->at - 8, size, fsize);
	c->size = c->at + size;
	if (!(flags & V7_FLAG_COMPRESSED))
		return 0;
	if (v6_number(c, 4, &comp) || v6_number(c, 4, &raw))
		return -1;
	if (comp > c->size - c->at)
		return v7_too_big(c, c->at - 8, comp, c->size);
	/* what it holds uncompressed must fit the child's memory limit */
	if (raw > FENCE_MEM_BASE + FENCE_MEM_PER_BYTE * fsize) {
		c->bad_raw = raw;
		c->bad_at = c->at - 4;
		return -1;
	}
	return 1;
}

/* A header section (16 to 21), its sized parts inside it. */
static int v7_header(struct v6_cursor c, uint64_t off, uint64_t fsize,
		     struct v6_cursor *out)
{
	uint64_t count, events, i, j;
	uint16_t id;
	int r = v7_section(&c, off, fsize, &id);

	*out = c;
	if (r)
		return r < 0 ? -1 : 0;
	switch (id) {
	case 16:	/* header_page, header_event */
		for (i = 0; r == 0 && i < 2; i++)
			r = v6_skip_string(&c) || v6_skip_sized(&c, 8);
		break;
	case 17:	/* ftrace's own events */
		r = v6_number(&c, 4, &count);
		for (i = 0; r == 0 && i < count; i++)
			r = v6_skip_sized(&c, 8);
		break;
	case 18:	/* the systems' events */
		r = v6_number(&c, 4, &count);
		for (i = 0; r == 0 && i < count; i++) {
			r = v6_skip_string(&c) || v6_number(&c, 4, &events);
			for (j = 0; r == 0 && j < events; j++)
				r = v6_skip_sized(&c, 8);
		}
		break;
	case 19:	/* kallsyms */
	case 20:	/* printk's formats */
		r = v6_skip_text(&c);
		break;
	case 21:	/* the saved pids' names */
		r = v6_skip_sized(&c, 8);
		break;
	}
	*out = c;
	return r ? -1 : 0;
}

/* A BUFFER option's CPUs: their data inside the file (-2, as v6_buffer). */
static int v7_buffer(struct v6_cursor *c, uint64_t fsize, uint64_t *cpu,
		     uint64_t *end)
{
	uint64_t off, page, cpus, id, size;

	if (v6_number(c, 8, &off) || v6_skip_string(c) ||
	    v6_skip_string(c) || v6_number(c, 4, &page) ||
	    v6_number(c, 4, &cpus))
		return -1;
	for (*cpu = 0; *cpu < cpus; (*cpu)++) {
		if (v6_number(c, 4, &id) || v6_number(c, 8, &off) ||
		    v6_number(c, 8, &size))
			return -1;
		*end = off + size;
		if (size && (off > fsize || size > fsize - off)) {
			*cpu = id;
			return -2;
		}
	}
	return 0;
}

static int v7_whole(const struct v6_cursor *base, const char *path,
		    struct iow_error *err)
{
	struct v6_cursor c = *base, o;
	unsigned char head[TRACEDAT_MAGIC_LEN + 4];
	uint64_t off, next, fsize, opt_size, body, cpu = 0, end = 0;
	uint16_t id, opt;
	int r = 0, n, walk;

	if (head_read(base, head, sizeof(head)) ||
	    memcmp(head + TRACEDAT_MAGIC_LEN, "7", 2))
		return 0;	/* libtracecmd says what is wrong */
	fsize = c.size;
	c.swap = head[TRACEDAT_MAGIC_LEN + 2] !=
		 (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	c.at = TRACEDAT_MAGIC_LEN + 4 + 4;	/* version, sizes, page */
	if (v6_skip_string(&c) || v6_skip_string(&c) ||	/* compression */
	    v6_number(&c, 8, &off))
		r = -1;
	for (n = 0; r == 0 && off && n < V7_OPTION_SECTIONS_MAX; n++) {
		walk = v7_section(&c, off, fsize, &id);
		if (walk < 0)
			r = -1;
		if (walk != 0 || id != 0)	/* compressed, or not options */
			break;
		next = 0;
		while (r == 0 && c.at < c.size) {
			if (v6_bytes(&c, &opt, 2) ||
			    v6_number(&c, 4, &opt_size)) {
				r = -1;
				break;
			}
			if (c.swap)
				opt = __builtin_bswap16(opt);
			if (opt_size > c.size - c.at) {
				r = v7_too_big(&c, c.at - 4, opt_size, c.size);
				break;
			}
			body = c.at;
			o = c;
			o.size = body + opt_size;
			if (opt == V7_OPTION_DONE) {
				if (v6_number(&o, 8, &next))
					next = 0;
				break;
			}
			if (opt >= V7_OPTION_HEADER_INFO &&
			    opt <= V7_OPTION_CMDLINES &&
			    v6_number(&o, 8, &next) == 0) {
				r = v7_header(o, next, fsize, &o);
				next = 0;
			} else if (opt == V7_OPTION_BUFFER) {
				r = v7_buffer(&o, fsize, &cpu, &end);
				if (r == -1)	/* libtracecmd's to say */
					r = 0;
			}
			if (r < 0) {
				c = o;
				break;
			}
			c.at = body + opt_size;
		}
		off = next;
	}
	if (r == -2)
		return iow_fail(err, "%s: cut short: the data of CPU %llu ends at byte %llu, past the file's end (%llu bytes)",
				path, (unsigned long long)cpu,
				(unsigned long long)end,
				(unsigned long long)fsize);
	if (r < 0 && c.nul_at)
		return iow_fail(err, "%s: damaged: a NUL byte at byte %llu inside the text of trace-cmd's kallsyms or printk formats: libtracecmd was not asked to read it; nothing was drawn",
				path, (unsigned long long)c.nul_at);
	if (r < 0 && c.bad_raw)
		return iow_fail(err, "%s: damaged: a compressed section says at byte %llu that it holds %llu bytes, more than the %llu libtracecmd may have for a file of %llu: nothing was drawn",
				path, (unsigned long long)c.bad_at,
				(unsigned long long)c.bad_raw,
				(unsigned long long)(FENCE_MEM_BASE +
					FENCE_MEM_PER_BYTE * fsize),
				(unsigned long long)fsize);
	if (r < 0 && c.past_at)
		return iow_fail(err, "%s: cut short: trace-cmd's headers place a section at byte %llu, past the file's end (%llu bytes)",
				path, (unsigned long long)c.past_at,
				(unsigned long long)fsize);
	if (r < 0 && c.bad_end)
		return iow_fail(err, "%s: damaged: trace-cmd's headers give a size of %llu bytes at byte %llu, past the end of its room at byte %llu (the file has %llu): libtracecmd was not asked to read it; nothing was drawn",
				path, (unsigned long long)c.bad_size,
				(unsigned long long)c.bad_at,
				(unsigned long long)c.bad_end,
				(unsigned long long)fsize);
	if (r < 0)
		return iow_fail(err, "%s: cut short at byte %llu, in trace-cmd's headers (%llu bytes)",
				path, (unsigned long long)c.at,
				(unsigned long long)fsize);
	return 0;
}

/* Both checks, sharing the page read last. */
int tracedat_sizes_ok(int fd, const char *path, struct iow_error *err)
{
	struct v6_cursor base = { .fd = fd };
	struct precheck_page *pg = calloc(1, sizeof(*pg));
	struct stat st;
	int r;

	if (!pg)
		return iow_fail(err, "out of memory");
	if (fstat(fd, &st))
		st.st_size = 0;	/* libtracecmd says what is wrong */
	base.size = (uint64_t)st.st_size;
	base.page = pg;
	r = v6_whole(&base, path, err) < 0 || v7_whole(&base, path, err) < 0 ?
	    -1 : 0;
	free(pg);
	return r;
}
