/*
 * tracedat_own.c: the common trace.dat read here, without libtracecmd
 * (tracedat_own.h). A second process for libtracecmd (the fence,
 * tracedat.c) costs a small trace more than its whole read; the file
 * most users have, trace-cmd record's, needs little of the library:
 * its headers (trace-cmd.dat(5)), the events' formats (the offsets of a
 * block event's fields), the saved names of pids and the ring buffer's
 * pages. Those are read here, each size against its room, and the
 * records come out as the fenced child writes them (tracedat_wire.h):
 * the same kinds, times, CPUs, missed events, pids and names, in the
 * order tracecmd_iterate_events_multi gives them (the lowest time
 * first, the first CPU on a tie).
 *
 * A file is taken whole or not at all: anything this reader does not
 * know (a version other than 6 or 7, compressed sections, big-endian
 * or 32-bit pages, an instance's buffer, a latency trace, options that
 * move time, a format or a name line it cannot parse, a page whose
 * events run past it) sends the file to libtracecmd, as before. Every
 * page is walked before the first record goes, so a file taken is not
 * given up halfway.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/tracedat_own.h"

#include "reader/tracedat_check.h"
#include "reader/tracedat_wire.h"

/* a section of formats or names read whole: a larger one is
 * libtracecmd's */
#define OWN_TEXT_MAX		(64u << 20)
#define OWN_EVENTS_MAX		(1 << 16)
#define OWN_CPUS_MAX		4096
#define OWN_PAGE_MIN		4096
#define OWN_PAGE_MAX		(1u << 20)
#define OWN_NAME_MAX		256
/* a page buffer for each CPU with data: a file asking for more is
 * libtracecmd's (under the child's memory limit) */
#define OWN_PAGES_MAX		(256u << 20)

/* the ring buffer's page (the kernel's, as libtraceevent's kbuffer
 * reads it): a 64-bit time, a 64-bit commit word, then the events */
#define PAGE_HEAD		16
#define COMMIT_MASK		((1u << 27) - 1)
#define MISSED_EVENTS		(1ull << 31)
#define MISSED_STORED		(1ull << 30)
#define TYPE_PADDING		29
#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP		31
#define TS_SHIFT		27
#define TS_MSB			(0xf8ull << 56)

/* trace-cmd's options (trace-cmd.dat(5)) */
enum {
	OPT_DONE = 0, OPT_DATE = 1, OPT_BUFFER = 3, OPT_OFFSET = 7,
	OPT_TIME_SHIFT = 12, OPT_TSC2NSEC = 14, OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17, OPT_EVENT_FORMATS = 18, OPT_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22, OPT_LAST = 25,
};
#define SECTION_COMPRESSED	1

struct own_event {
	int id;
	int is_block;
	uint32_t kind;		/* its number once described, NO_KIND before */
	char *name;
	struct wire_field f[N_FIELDS];
};

struct own_comm {
	int pid;
	char comm[COMM_MAX];
};

struct own_cpu {
	int id;
	uint64_t off, size;	/* its data in the file */
	uint64_t page_at;	/* the page held: its byte in the file */
	int loaded;
	unsigned char *page;
	uint32_t commit;	/* bytes of events on it */
	uint32_t next;		/* the next event's header, in its data */
	uint64_t ts;
	int64_t missed;		/* before its next record (-1: a count unknown) */
	/* its next record, when has */
	int has;
	uint64_t r_ts, r_offset;
	int64_t r_missed;
	uint32_t r_at, r_size;
	struct own_event *r_ev;	/* its event, NULL: of no format */
};

struct tracedat_own {
	int fd;
	uint64_t fsize;
	uint32_t page_size;
	struct own_event *events;	/* by id */
	size_t n_events;
	struct own_event *last_event;
	int type_off, type_size, pid_off, pid_size;	/* common_type, common_pid */
	struct own_comm *comms;		/* by pid */
	size_t n_comms;
	struct own_cpu *cpus;
	size_t n_cpus;
	uint32_t n_kinds;
	int state;		/* 0 before OPEN, 1 records, 2 ended */
	struct own_cpu *pending;	/* a record whose kind went first */
	int last_pid;
	char last_comm[COMM_MAX];
	unsigned char *msg;
	size_t msg_cap;
	/* while opening: why it is not taken */
	char *why;
	size_t why_size;
};

static int refuse(struct tracedat_own *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The file is not this reader's: why, for IOWATCHER_TRACEDAT=own. 0. */
static int refuse(struct tracedat_own *o, const char *fmt, ...)
{
	va_list ap;

	if (o->why && o->why_size) {
		va_start(ap, fmt);
		vsnprintf(o->why, o->why_size, fmt, ap);
		va_end(ap);
	}
	return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* ---- the headers, read by offset ---- */

struct fcur {
	int fd;
	uint64_t at, end;
};

static int fc_read(struct fcur *c, void *buf, size_t n)
{
	unsigned char *to = buf;

	if (n > c->end || c->at > c->end - n)
		return -1;
	while (n) {
		ssize_t got = pread(c->fd, to, n, (off_t)c->at);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		to += got;
		n -= (size_t)got;
		c->at += (uint64_t)got;
	}
	return 0;
}

static int fc_num(struct fcur *c, int n, uint64_t *v)
{
	unsigned char b[8];

	if (fc_read(c, b, (size_t)n))
		return -1;
	*v = le(b, n);
	return 0;
}

/* A NUL-terminated string of at most cap - 1 bytes into buf. */
static int fc_str(struct fcur *c, char *buf, size_t cap)
{
	uint64_t room = c->end - c->at;
	size_t n = room < cap ? (size_t)room : cap;
	struct fcur peek = *c;
	char *nul;

	if (!n || fc_read(&peek, buf, n))
		return -1;
	nul = memchr(buf, '\0', n);
	if (!nul)
		return -1;
	c->at += (uint64_t)(nul - buf) + 1;
	return 0;
}

/* n bytes (a size read before them), NUL-terminated, in *out. */
static int fc_blob(struct fcur *c, uint64_t n, char **out)
{
	char *b;

	if (n > OWN_TEXT_MAX || n > c->end - c->at)
		return -1;
	if (!(b = malloc((size_t)n + 1)))
		return -2;
	if (fc_read(c, b, (size_t)n)) {
		free(b);
		return -1;
	}
	b[n] = '\0';
	*out = b;
	return 0;
}

/* ---- the formats ---- */

/* The line at *p (to end): its start and length, *p past its newline. */
static int next_line(const char **p, const char *end, const char **line,
		     size_t *len)
{
	const char *nl;

	if (*p >= end)
		return -1;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*len = (size_t)((nl ? nl : end) - *p);
	*p = nl ? nl + 1 : end;
	return 0;
}

static int is_ident(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/* A decimal number of at most 9 digits at *p, then the byte stop. */
static int number_then(const char **p, const char *end, char stop, int *v)
{
	const char *s = *p;
	long n = 0;
	int digits = 0;

	while (s < end && *s >= '0' && *s <= '9' && digits < 10) {
		n = n * 10 + (*s++ - '0');
		digits++;
	}
	if (!digits || digits > 9 || s >= end || *s != stop)
		return -1;
	*p = s + 1;
	*v = (int)n;
	return 0;
}

/* [s, e) a decimal number of at most 9 digits, nothing else */
static int whole_number(const char *s, const char *e, int *v)
{
	long n = 0;

	if (s == e || e - s > 9)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
	}
	*v = (int)n;
	return 0;
}

static int word(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *p) < n || memcmp(*p, w, n))
		return -1;
	*p += n;
	return 0;
}

struct own_field {
	char name[OWN_NAME_MAX];
	int offset, size;
	uint32_t flags;
};

/*
 * "\tfield:TYPE NAME;\toffset:N;\tsize:N;[\tsigned:N;]" as the kernel
 * writes it: the name is the last word of the declaration (before its
 * "[N]" for an array). 0, or -1 when the line is not one.
 */
static int field_line(const char *line, size_t len, struct own_field *f)
{
	const char *p = line, *end = line + len, *decl, *semi, *e, *s;
	int sign = 0;

	memset(f, 0, sizeof(*f));
	if (word(&p, end, "\tfield:"))
		return -1;
	decl = p;
	semi = memchr(p, ';', (size_t)(end - p));
	if (!semi)
		return -1;
	e = semi;
	while (e > decl && e[-1] == ' ')
		e--;
	if (e > decl && e[-1] == ']') {	/* "[N]" or "[]", N in digits */
		f->flags |= WIRE_FIELD_IS_ARRAY;
		for (e--; e > decl && e[-1] >= '0' && e[-1] <= '9'; e--)
			;
		if (e == decl || e[-1] != '[')
			return -1;
		e--;
	}
	s = e;
	while (s > decl && is_ident((unsigned char)s[-1]))
		s--;
	if (s == e || (size_t)(e - s) >= sizeof(f->name) || s == decl ||
	    (s[-1] != ' ' && s[-1] != '\t' && s[-1] != ']'))
		return -1;
	memcpy(f->name, s, (size_t)(e - s));
	while (decl < s && (*decl == ' ' || *decl == '\t'))
		decl++;
	if (semi - decl >= 10 && !memcmp(decl, "__data_loc", 10))
		f->flags |= WIRE_FIELD_IS_DYNAMIC;
	else if (semi - decl >= 9 && !memcmp(decl, "__rel_loc", 9))
		f->flags |= WIRE_FIELD_IS_DYNAMIC | WIRE_FIELD_IS_RELATIVE;
	p = semi + 1;
	if (word(&p, end, "\toffset:") || number_then(&p, end, ';', &f->offset) ||
	    word(&p, end, "\tsize:") || number_then(&p, end, ';', &f->size))
		return -1;
	if (p < end) {
		if (word(&p, end, "\tsigned:") ||
		    number_then(&p, end, ';', &sign) || sign > 1)
			return -1;
		if (sign)
			f->flags |= WIRE_FIELD_IS_SIGNED;
	}
	return p == end ? 0 : -1;
}

/* header_page: a 64-bit time at 0, a 64-bit commit at 8, data at 16
 * (what a 64-bit kernel writes); anything else is libtracecmd's. */
static int header_page(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *line;
	struct own_field f;
	size_t n;
	int seen = 0;

	while (next_line(&p, end, &line, &n) == 0) {
		if (!n)
			continue;
		/* "\tfield: u64 timestamp;": a space after the colon */
		if (n > 7 && !memcmp(line, "\tfield: ", 8)) {
			char copy[256];

			if (n >= sizeof(copy))
				return -1;
			memcpy(copy, "\tfield:", 7);
			memcpy(copy + 7, line + 8, n - 8);
			if (field_line(copy, n - 1, &f))
				return -1;
		} else if (field_line(line, n, &f)) {
			return -1;
		}
		if (!strcmp(f.name, "timestamp"))
			seen |= (f.offset == 0 && f.size == 8) ? 1 : 8;
		else if (!strcmp(f.name, "commit"))
			seen |= (f.offset == 8 && f.size == 8) ? 2 : 8;
		else if (!strcmp(f.name, "data"))
			seen |= (f.offset == PAGE_HEAD) ? 4 : 8;
	}
	return seen == 7 ? 0 : -1;
}

/*
 * Every field a block event's print format names (REC->NAME) is one of
 * its format's: a format that contradicts itself is damaged (one such,
 * a field renamed, crashes libtraceevent), and is libtracecmd's to
 * refuse. text[0, fmt) holds the field lines. 1, or 0 refused.
 */
static int print_fields_known(struct tracedat_own *o, const char *event,
			      const char *text, const char *fmt,
			      const char *end)
{
	const char *p = fmt, *line, *lp;
	struct own_field f;
	size_t n, len;

	while ((p = memmem(p, (size_t)(end - p), "REC->", 5))) {
		const char *name = p += 5;
		int found = 0;

		while (p < end && is_ident((unsigned char)*p))
			p++;
		len = (size_t)(p - name);
		for (lp = text; !found && next_line(&lp, fmt, &line, &n) == 0;)
			found = n && !field_line(line, n, &f) &&
				strlen(f.name) == len && !memcmp(f.name, name, len);
		if (!found)
			return refuse(o, "block:%s: its print format names a field REC->%.*s it does not have",
				      event, (int)(len < 64 ? len : 64), name);
	}
	return 1;
}

/*
 * One event's format. The common fields (common_type, common_pid) must
 * sit alike in every format (libtraceevent reads them from one); a
 * block event's own fields are all read, strictly; another event's only
 * name, id and common fields matter here. 1 taken, 0 refused, -2 out of
 * memory.
 */
static int add_format(struct tracedat_own *o, const char *text, size_t len,
		      const char *system)
{
	const char *p = text, *end = text + len, *line, *q;
	struct own_event *ev, *grown;
	struct own_field f;
	char name[OWN_NAME_MAX];
	int id, i, tof = -1, tsz = 0, pof = -1, psz = 0, is_block;
	size_t n;

	is_block = !strcmp(system, "block");
	if (next_line(&p, end, &line, &n) || (q = line, word(&q, line + n, "name: ")))
		return refuse(o, "an event's format has no name line");
	if ((size_t)(line + n - q) >= sizeof(name) || line + n == q)
		return refuse(o, "an event's name is too long");
	memcpy(name, q, (size_t)(line + n - q));
	name[line + n - q] = '\0';
	for (i = 0; name[i]; i++)
		if (!is_ident((unsigned char)name[i]))
			return refuse(o, "an event's name is not a word");
	if (next_line(&p, end, &line, &n) || (q = line, word(&q, line + n, "ID: ")) ||
	    whole_number(q, line + n, &id) ||
	    next_line(&p, end, &line, &n) || n != 7 || memcmp(line, "format:", 7))
		return refuse(o, "event %s: its format's head is not name, ID, format", name);
	/* the common fields, to a blank line */
	for (;;) {
		if (next_line(&p, end, &line, &n))
			return refuse(o, "event %s: its format ends in its common fields", name);
		if (!n)
			break;
		if (field_line(line, n, &f))
			return refuse(o, "event %s: a common field line it cannot read", name);
		if (!strcmp(f.name, "common_type")) {
			tof = f.offset;
			tsz = f.size;
		} else if (!strcmp(f.name, "common_pid")) {
			pof = f.offset;
			psz = f.size;
		}
	}
	if (tof < 0 || pof < 0 || (tsz != 1 && tsz != 2 && tsz != 4 && tsz != 8) ||
	    (psz != 1 && psz != 2 && psz != 4 && psz != 8))
		return refuse(o, "event %s: no common_type or common_pid of 1, 2, 4 or 8 bytes", name);
	if (!o->type_size) {
		o->type_off = tof;
		o->type_size = tsz;
		o->pid_off = pof;
		o->pid_size = psz;
	} else if (o->type_off != tof || o->type_size != tsz ||
		   o->pid_off != pof || o->pid_size != psz) {
		return refuse(o, "event %s: its common fields sit elsewhere than another's", name);
	}
	if (o->n_events >= OWN_EVENTS_MAX)
		return refuse(o, "more than %d events' formats", OWN_EVENTS_MAX);
	grown = realloc(o->events, (o->n_events + 1) * sizeof(*grown));
	if (!grown)
		return -2;
	o->events = grown;
	ev = &o->events[o->n_events];
	memset(ev, 0, sizeof(*ev));
	ev->id = id;
	ev->is_block = is_block;
	ev->kind = NO_KIND;
	if (!(ev->name = strdup(name)))
		return -2;
	o->n_events++;
	if (!is_block)
		return 1;
	/* a block event's fields, to a blank line, then its print format */
	for (;;) {
		if (next_line(&p, end, &line, &n))
			return refuse(o, "block:%s: its format ends in its fields", name);
		if (!n)
			break;
		if (field_line(line, n, &f))
			return refuse(o, "block:%s: a field line it cannot read", name);
		for (i = 0; i < N_FIELDS; i++) {
			if (strcmp(f.name, field_names[i]))
				continue;
			if (ev->f[i].present)
				return refuse(o, "block:%s: the field %s twice", name, f.name);
			ev->f[i].present = 1;
			ev->f[i].offset = f.offset;
			ev->f[i].size = f.size;
			ev->f[i].flags = f.flags;
		}
	}
	if (next_line(&p, end, &line, &n) || n < 10 || memcmp(line, "print fmt:", 10))
		return refuse(o, "block:%s: no print format after its fields", name);
	return print_fields_known(o, name, text, line, end);
}

static int by_id(const void *a, const void *b)
{
	const struct own_event *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int by_pid(const void *a, const void *b)
{
	const struct own_comm *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * The saved names: "PID NAME" a line, as libtraceevent's
 * tep_parse_saved_cmdlines reads them, up to the first NUL. A line of
 * another shape, or a pid named twice differently, is libtracecmd's.
 */
static int add_comms(struct tracedat_own *o, const char *text)
{
	const char *p = text, *end = text + strlen(text), *line, *q;
	size_t n, i, cap = 0;
	int pid;

	while (next_line(&p, end, &line, &n) == 0) {
		struct own_comm *c;

		if (!n)
			continue;
		q = line;
		if (number_then(&q, line + n, ' ', &pid) || q >= line + n ||
		    *q == ' ' || *q == '\t' || *q == '\r' || *q == '\v' ||
		    *q == '\f')
			return refuse(o, "a saved pid's name line it cannot read");
		if (o->n_comms == cap) {
			struct own_comm *grown;

			cap = cap ? cap * 2 : 256;
			if (!(grown = realloc(o->comms, cap * sizeof(*grown))))
				return -2;
			o->comms = grown;
		}
		c = &o->comms[o->n_comms++];
		memset(c, 0, sizeof(*c));
		c->pid = pid;
		n = (size_t)(line + n - q);
		/* its first 15 bytes, as the child sends them */
		memcpy(c->comm, q, n < COMM_MAX - 1 ? n : COMM_MAX - 1);
	}
	if (o->n_comms)
		qsort(o->comms, o->n_comms, sizeof(*o->comms), by_pid);
	for (i = 1; i < o->n_comms; i++)
		if (o->comms[i].pid == o->comms[i - 1].pid &&
		    memcmp(o->comms[i].comm, o->comms[i - 1].comm, COMM_MAX))
			return refuse(o, "pid %d saved with two names", o->comms[i].pid);
	return 1;
}

/* ---- the headers: version 6 and version 7 ---- */

/* A sized format (8 bytes of size, then the text) of system. */
static int read_format(struct tracedat_own *o, struct fcur *c,
		       const char *system)
{
	uint64_t size;
	char *text;
	int r;

	if (fc_num(c, 8, &size))
		return refuse(o, "an event's format is cut short");
	if ((r = fc_blob(c, size, &text)) < 0)
		return r == -2 ? -2 : refuse(o, "an event's format is too big or cut short");
	r = add_format(o, text, (size_t)size, system);
	free(text);
	return r;
}

/* header_page and header_event, each a name and a sized text */
static int read_header_info(struct tracedat_own *o, struct fcur *c)
{
	char name[16], *text;
	uint64_t size;
	int r;

	if (fc_str(c, name, sizeof(name)) || strcmp(name, "header_page") ||
	    fc_num(c, 8, &size))
		return refuse(o, "no header_page");
	if ((r = fc_blob(c, size, &text)) < 0)
		return r == -2 ? -2 : refuse(o, "header_page cut short");
	r = header_page(text, (size_t)size);
	free(text);
	if (r)
		return refuse(o, "header_page is not a 64-bit kernel's (a 64-bit time and commit word, data at 16)");
	if (fc_str(c, name, sizeof(name)) || strcmp(name, "header_event") ||
	    fc_num(c, 8, &size) || size > c->end - c->at)
		return refuse(o, "no header_event");
	c->at += size;
	return 1;
}

static int read_ftrace(struct tracedat_own *o, struct fcur *c)
{
	uint64_t count, i;
	int r;

	if (fc_num(c, 4, &count))
		return refuse(o, "ftrace's formats cut short");
	for (i = 0; i < count; i++)
		if ((r = read_format(o, c, "ftrace")) <= 0)
			return r;
	return 1;
}

static int read_systems(struct tracedat_own *o, struct fcur *c)
{
	uint64_t systems, events, i, j;
	char system[OWN_NAME_MAX];
	int r;

	if (fc_num(c, 4, &systems))
		return refuse(o, "the systems' formats cut short");
	for (i = 0; i < systems; i++) {
		if (fc_str(c, system, sizeof(system)) || fc_num(c, 4, &events))
			return refuse(o, "a system's formats cut short");
		for (j = 0; j < events; j++)
			if ((r = read_format(o, c, system)) <= 0)
				return r;
	}
	return 1;
}

static int read_comms(struct tracedat_own *o, struct fcur *c)
{
	uint64_t size;
	char *text;
	int r;

	if (fc_num(c, 8, &size))
		return refuse(o, "the saved names cut short");
	if ((r = fc_blob(c, size, &text)) < 0)
		return r == -2 ? -2 : refuse(o, "the saved names too big or cut short");
	r = add_comms(o, text);
	free(text);
	return r;
}

/* An option that changes nothing read here (the time, the buffers). */
static int harmless(unsigned id)
{
	switch (id) {
	case OPT_DATE:
	case OPT_BUFFER:
	case OPT_OFFSET:
	case OPT_TIME_SHIFT:
	case OPT_TSC2NSEC:
	case OPT_BUFFER_TEXT:
		return 0;
	}
	return id <= OPT_LAST;
}

static int add_cpu(struct tracedat_own *o, int id, uint64_t off,
		   uint64_t size)
{
	struct own_cpu *c;

	if (o->n_cpus >= OWN_CPUS_MAX)
		return refuse(o, "more than %d CPUs", OWN_CPUS_MAX);
	if (size % o->page_size || off % o->page_size ||
	    (size && (off > o->fsize || size > o->fsize - off)))
		return refuse(o, "CPU %d's data is not whole pages inside the file", id);
	c = &o->cpus[o->n_cpus++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->off = off;
	c->size = size;
	return 1;
}

static int read_v6(struct tracedat_own *o, struct fcur *c)
{
	uint64_t n, size, cpus, i, off, len;
	char word10[10];
	int r;

	if ((r = read_header_info(o, c)) <= 0 || (r = read_ftrace(o, c)) <= 0 ||
	    (r = read_systems(o, c)) <= 0)
		return r;
	/* kallsyms and printk's formats: not needed */
	for (i = 0; i < 2; i++) {
		if (fc_num(c, 4, &size) || size > c->end - c->at)
			return refuse(o, "kallsyms or printk cut short");
		c->at += size;
	}
	if ((r = read_comms(o, c)) <= 0)
		return r;
	if (fc_num(c, 4, &cpus) || cpus > OWN_CPUS_MAX)
		return refuse(o, "no count of CPUs, or too many");
	for (;;) {
		if (fc_read(c, word10, 10))
			return refuse(o, "no CPU data");
		if (memcmp(word10, "options  ", 10))
			break;
		for (;;) {
			if (fc_num(c, 2, &n))
				return refuse(o, "options cut short");
			if (!n)
				break;
			if (fc_num(c, 4, &len) || len > c->end - c->at)
				return refuse(o, "an option cut short");
			if (!harmless((unsigned)n))
				return refuse(o, "option %u (time offsets, buffers or unknown)", (unsigned)n);
			c->at += len;
		}
	}
	if (memcmp(word10, "flyrecord", 10))
		return refuse(o, "a latency trace");
	if (!(o->cpus = calloc(cpus ? cpus : 1, sizeof(*o->cpus))))
		return -2;
	for (i = 0; i < cpus; i++) {
		if (fc_num(c, 8, &off) || fc_num(c, 8, &size))
			return refuse(o, "the CPUs' offsets cut short");
		if ((r = add_cpu(o, (int)i, off, size)) <= 0)
			return r;
	}
	return 1;
}

/* A section's head at off (id, flags, string, size): c limited to it. */
static int v7_section(struct tracedat_own *o, uint64_t off, int want,
		      struct fcur *c)
{
	uint64_t id, flags, string, size;

	c->fd = o->fd;
	c->at = off;
	c->end = o->fsize;
	if (fc_num(c, 2, &id) || fc_num(c, 2, &flags) || fc_num(c, 4, &string) ||
	    fc_num(c, 8, &size) || size > c->end - c->at)
		return refuse(o, "a section at byte %llu cut short", (unsigned long long)off);
	if (flags & SECTION_COMPRESSED)
		return refuse(o, "compressed sections");
	if (want >= 0 && (int)id != want)
		return refuse(o, "the section at byte %llu is not the one its option names", (unsigned long long)off);
	c->end = c->at + size;
	return 1;
}

static int read_v7(struct tracedat_own *o, struct fcur *c)
{
	uint64_t next, opt, len, sec[OPT_CMDLINES + 1] = { 0 };
	uint64_t boff = 0, page, cpus, i, id, off, size;
	struct fcur s, b;
	char text[OWN_NAME_MAX];
	int r, sections = 0, top = 0;

	if (fc_str(c, text, sizeof(text)) || strcmp(text, "none"))
		return refuse(o, "compressed (%s)", text);
	if (fc_str(c, text, sizeof(text)) || fc_num(c, 8, &next))
		return refuse(o, "its headers cut short");
	while (next) {
		if (++sections > 256)
			return refuse(o, "more than 256 option sections");
		if ((r = v7_section(o, next, OPT_DONE, &s)) <= 0)
			return r;
		next = 0;
		for (;;) {
			if (fc_num(&s, 2, &opt) || fc_num(&s, 4, &len) ||
			    len > s.end - s.at)
				return refuse(o, "an option cut short");
			b = s;
			b.end = s.at + len;
			s.at += len;
			if (opt == OPT_DONE) {
				if (fc_num(&b, 8, &next))
					next = 0;
				break;
			}
			if (opt >= OPT_HEADER_INFO && opt <= OPT_CMDLINES) {
				if (fc_num(&b, 8, &sec[opt]))
					return refuse(o, "option %u cut short", (unsigned)opt);
				continue;
			}
			if (opt != OPT_BUFFER) {
				if (!harmless((unsigned)opt))
					return refuse(o, "option %u (time offsets, a latency trace or unknown)", (unsigned)opt);
				continue;
			}
			if (fc_num(&b, 8, &boff) || fc_str(&b, text, sizeof(text)))
				return refuse(o, "a buffer option cut short");
			if (text[0] || top++)
				return refuse(o, "more than one buffer (trace-cmd record -B)");
			if (fc_str(&b, text, sizeof(text)) || fc_num(&b, 4, &page) ||
			    fc_num(&b, 4, &cpus))
				return refuse(o, "a buffer option cut short");
			if (page != o->page_size)
				return refuse(o, "the buffer's page size is not the file's");
			if (cpus > OWN_CPUS_MAX)
				return refuse(o, "more than %d CPUs", OWN_CPUS_MAX);
			if (!(o->cpus = calloc(cpus ? cpus : 1, sizeof(*o->cpus))))
				return -2;
			for (i = 0; i < cpus; i++) {
				if (fc_num(&b, 4, &id) || fc_num(&b, 8, &off) ||
				    fc_num(&b, 8, &size))
					return refuse(o, "a buffer option cut short");
				if ((r = add_cpu(o, (int)(uint32_t)id, off, size)) <= 0)
					return r;
			}
		}
	}
	if (!top)
		return refuse(o, "no buffer of CPU data");
	if ((r = v7_section(o, boff, -1, &s)) <= 0)
		return r;
	for (i = OPT_HEADER_INFO; i <= OPT_CMDLINES; i++)
		if (!sec[i])
			return refuse(o, "section %u missing", (unsigned)i);
	if ((r = v7_section(o, sec[OPT_HEADER_INFO], OPT_HEADER_INFO, &s)) <= 0 ||
	    (r = read_header_info(o, &s)) <= 0 ||
	    (r = v7_section(o, sec[OPT_FTRACE_EVENTS], OPT_FTRACE_EVENTS, &s)) <= 0 ||
	    (r = read_ftrace(o, &s)) <= 0 ||
	    (r = v7_section(o, sec[OPT_EVENT_FORMATS], OPT_EVENT_FORMATS, &s)) <= 0 ||
	    (r = read_systems(o, &s)) <= 0 ||
	    (r = v7_section(o, sec[OPT_CMDLINES], OPT_CMDLINES, &s)) <= 0 ||
	    (r = read_comms(o, &s)) <= 0)
		return r;
	return 1;
}

/* ---- the pages ---- */

static struct own_event *find_event(struct tracedat_own *o, int id)
{
	struct own_event key = { .id = id };

	if (o->last_event && o->last_event->id == id)
		return o->last_event;
	o->last_event = bsearch(&key, o->events, o->n_events,
				sizeof(*o->events), by_id);
	return o->last_event;
}

/* c's page at byte at: 1, 0 when it cannot be read or is not whole. */
static int page_load(struct tracedat_own *o, struct own_cpu *c, uint64_t at)
{
	struct fcur f = { o->fd, at, o->fsize };
	uint64_t commit, stored;
	int64_t missed = 0;

	c->loaded = 0;
	if (fc_read(&f, c->page, o->page_size))
		return 0;
	c->page_at = at;
	c->ts = le(c->page, 8);
	commit = le(c->page + 8, 8);
	c->commit = (uint32_t)commit & COMMIT_MASK;
	if (c->commit > o->page_size - PAGE_HEAD)
		return 0;
	if (commit & MISSED_EVENTS) {
		missed = -1;
		if (commit & MISSED_STORED) {
			if (o->page_size - PAGE_HEAD - c->commit < 8)
				return 0;
			stored = le(c->page + PAGE_HEAD + c->commit, 8);
			missed = (int64_t)stored < 0 ? -1 : (int64_t)stored;
		}
	}
	/* what was missed before a page without a record goes on to the
	 * next record of that CPU (libtracecmd drops it) */
	if (missed < 0 || c->missed < 0)
		c->missed = -1;
	else
		c->missed += missed;
	c->next = 0;
	c->loaded = 1;
	return 1;
}

/*
 * c's next record on its page (kbuffer's walk: time extends and stamps
 * move the time, padding is stepped over): 1 with c's r_ fields, 0 at
 * the page's end, -1 when an event runs past the page or a record is too
 * short for the fields read of it.
 */
static int page_record(struct tracedat_own *o, struct own_cpu *c)
{
	const unsigned char *d = c->page + PAGE_HEAD;
	uint32_t cap = o->page_size - PAGE_HEAD;

	for (;;) {
		uint32_t at = c->next, head, type_len, delta, a0, index;
		uint64_t length, ext;
		struct own_event *ev;
		int type;

		if (at >= c->commit)
			return 0;
		if (cap - at < 4)
			return -1;
		head = (uint32_t)le(d + at, 4);
		type_len = head & 31;
		delta = head >> 5;
		if (type_len >= TYPE_PADDING || type_len == 0) {
			if (cap - at < 8) {
				if (type_len == TYPE_PADDING)
					return 0;
				return -1;
			}
			a0 = (uint32_t)le(d + at + 4, 4);
		} else {
			a0 = 0;
		}
		switch (type_len) {
		case TYPE_PADDING:
			c->ts += delta;
			length = (uint64_t)at + 4 + a0;
			if (a0 >= (1u << 31))
				return -1;
			c->next = length >= c->commit ? c->commit : (uint32_t)length;
			continue;
		case TYPE_TIME_EXTEND:
			ext = ((uint64_t)a0 << TS_SHIFT) + delta;
			c->ts += ext;
			c->next = at + 8;
			continue;
		case TYPE_TIME_STAMP:
			ext = ((uint64_t)a0 << TS_SHIFT) + delta;
			c->ts = ext | (c->ts & TS_MSB);
			c->next = at + 8;
			continue;
		case 0:
			if (a0 < 8)
				return -1;
			length = ((uint64_t)a0 - 4 + 3) & ~3ull;
			index = at + 8;
			break;
		default:
			length = (uint64_t)type_len * 4;
			index = at + 4;
			break;
		}
		c->ts += delta;
		if (length > c->commit || index > c->commit - length)
			return -1;
		if (length < (uint64_t)o->type_off + (uint64_t)o->type_size)
			return -1;
		type = (int)le(d + index + o->type_off, o->type_size);
		ev = find_event(o, type);
		if (ev && ev->is_block &&
		    length < (uint64_t)o->pid_off + (uint64_t)o->pid_size)
			return -1;
		c->r_ev = ev;
		c->r_ts = c->ts;
		c->r_offset = c->page_at + PAGE_HEAD + at;
		c->r_missed = c->missed;
		c->missed = 0;
		c->r_at = index;
		c->r_size = (uint32_t)length;
		c->next = index + (uint32_t)length;
		return 1;
	}
}

/* c's next record, from its page or the pages after: 1, 0 none left,
 * -1 a page it cannot read whole. */
static int cpu_advance(struct tracedat_own *o, struct own_cpu *c)
{
	int r;

	for (;;) {
		if (c->loaded) {
			r = page_record(o, c);
			if (r)
				return r;
			if (c->page_at + o->page_size >= c->off + c->size) {
				c->loaded = 0;
				c->page_at = c->off + c->size;
				return 0;
			}
			if (!page_load(o, c, c->page_at + o->page_size))
				return -1;
			continue;
		}
		if (!c->size || c->page_at == c->off + c->size)
			return 0;
		if (!page_load(o, c, c->off))
			return -1;
	}
}

static void cpu_rewind(struct tracedat_own *o, struct own_cpu *c)
{
	(void)o;
	c->loaded = 0;
	c->page_at = 0;
	c->missed = 0;
	c->has = 0;
}

/* ---- opening ---- */

int tracedat_own_open(int fd, struct tracedat_own **out, char *why,
		      size_t why_size, struct iow_error *err)
{
	struct tracedat_own *o = calloc(1, sizeof(*o));
	unsigned char head[TRACEDAT_MAGIC_LEN + 2 + 2 + 4];
	struct fcur c = { fd, 0, 0 };
	struct stat st;
	size_t i;
	uint64_t held;
	int r = 0;

	*out = NULL;
	if (why && why_size)
		why[0] = '\0';
	if (!o)
		return iow_fail(err, "out of memory");
	o->fd = fd;
	o->why = why;
	o->why_size = why_size;
	o->last_pid = -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		r = refuse(o, "not a regular file");
		goto out;
	}
	o->fsize = (uint64_t)st.st_size;
	c.end = o->fsize;
	if (fc_read(&c, head, sizeof(head)) ||
	    memcmp(head, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN) ||
	    head[TRACEDAT_MAGIC_LEN + 1] != '\0' ||
	    (head[TRACEDAT_MAGIC_LEN] != '6' && head[TRACEDAT_MAGIC_LEN] != '7')) {
		r = refuse(o, "not version 6 or 7");
		goto out;
	}
	if (head[TRACEDAT_MAGIC_LEN + 2] != 0 || head[TRACEDAT_MAGIC_LEN + 3] != 8 ||
	    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		r = refuse(o, "big-endian or 32-bit");
		goto out;
	}
	o->page_size = (uint32_t)le(head + TRACEDAT_MAGIC_LEN + 4, 4);
	if (o->page_size < OWN_PAGE_MIN || o->page_size > OWN_PAGE_MAX ||
	    (o->page_size & (o->page_size - 1))) {
		r = refuse(o, "a page size of %u", o->page_size);
		goto out;
	}
	r = head[TRACEDAT_MAGIC_LEN] == '6' ? read_v6(o, &c) : read_v7(o, &c);
	if (r <= 0)
		goto out;
	if (o->n_events)
		qsort(o->events, o->n_events, sizeof(*o->events), by_id);
	for (i = 1; i < o->n_events; i++)
		if (o->events[i].id == o->events[i - 1].id) {
			r = refuse(o, "two formats of id %d", o->events[i].id);
			goto out;
		}
	o->msg_cap = sizeof(struct wire_rec) + o->page_size;
	if (o->msg_cap < sizeof(struct wire_kind) + OWN_NAME_MAX + 1)
		o->msg_cap = sizeof(struct wire_kind) + OWN_NAME_MAX + 1;
	if (!(o->msg = malloc(o->msg_cap))) {
		r = -2;
		goto out;
	}
	/* every page walked before a record goes: a file taken is read to
	 * its end */
	for (i = 0, held = 0; i < o->n_cpus; i++) {
		struct own_cpu *cp = &o->cpus[i];
		int got;

		if (!cp->size)
			continue;
		held += o->page_size;
		if (held > OWN_PAGES_MAX) {
			r = refuse(o, "more CPUs with data than %u MiB of pages hold",
				   OWN_PAGES_MAX >> 20);
			goto out;
		}
		if (!(cp->page = malloc(o->page_size))) {
			r = -2;
			goto out;
		}
		while ((got = cpu_advance(o, cp)) == 1)
			;
		if (got < 0) {
			r = refuse(o, "a page of CPU %d at byte %llu that kbuffer's walk would not read whole",
				   cp->id, (unsigned long long)cp->page_at);
			goto out;
		}
		cpu_rewind(o, cp);
	}
	o->why = NULL;
	*out = o;
	return 1;
out:
	o->why = NULL;
	tracedat_own_free(o);
	if (r == -2)
		return iow_fail(err, "out of memory");
	return 0;
}

/* ---- the messages ---- */

static const char *comm_of(struct tracedat_own *o, int pid)
{
	struct own_comm key = { .pid = pid }, *c;

	if (!pid)
		return "<idle>";
	c = bsearch(&key, o->comms, o->n_comms, sizeof(*o->comms), by_pid);
	return c ? c->comm : "<...>";
}

/* the record whose kind is described first: its kind's message */
static void kind_msg(struct tracedat_own *o, struct own_event *ev,
		     const unsigned char **p, uint32_t *len)
{
	struct wire_kind w;
	size_t n = strlen(ev->name) + 1;

	memset(&w, 0, sizeof(w));
	ev->kind = o->n_kinds++;
	w.id = ev->kind;
	w.is_block = (uint32_t)ev->is_block;
	if (ev->is_block)
		memcpy(w.f, ev->f, sizeof(w.f));
	memcpy(o->msg, &w, sizeof(w));
	memcpy(o->msg + sizeof(w), ev->name, n);
	*p = o->msg;
	*len = (uint32_t)(sizeof(w) + n);
}

static void record_msg(struct tracedat_own *o, struct own_cpu *c,
		       struct own_event *ev, const unsigned char **p,
		       uint32_t *len)
{
	const unsigned char *data = c->page + PAGE_HEAD + c->r_at;
	struct wire_rec w;

	memset(&w, 0, sizeof(w));
	w.ts = c->r_ts;
	w.offset = c->r_offset;
	w.missed = c->r_missed;
	w.cpu = c->id;
	w.kind = ev ? ev->kind : NO_KIND;
	if (ev && ev->is_block) {
		w.pid = (int)le(data + o->pid_off, o->pid_size);
		if (w.pid != o->last_pid || !o->last_comm[0]) {
			const char *name = comm_of(o, w.pid);

			o->last_pid = w.pid;
			memset(o->last_comm, 0, COMM_MAX);
			memcpy(o->last_comm, name, strnlen(name, COMM_MAX - 1));
		}
		memcpy(w.comm, o->last_comm, COMM_MAX);
		w.size = c->r_size;
	}
	memcpy(o->msg, &w, sizeof(w));
	memcpy(o->msg + sizeof(w), data, w.size);
	*p = o->msg;
	*len = (uint32_t)sizeof(w) + w.size;
}

int tracedat_own_next(struct tracedat_own *o, uint32_t *type,
		      const unsigned char **p, uint32_t *len,
		      struct iow_error *err)
{
	static const uint32_t little = 0;
	struct own_cpu *best = NULL;
	struct own_event *ev;
	size_t i;

	if (o->state == 0) {
		o->state = 1;
		*type = MSG_OPEN;
		*p = (const unsigned char *)&little;
		*len = sizeof(little);
		return 0;
	}
	if (o->state == 2)
		return iow_fail(err, "trace.dat: read past its end");
	if (o->pending) {
		best = o->pending;
		o->pending = NULL;
		goto record;
	}
	for (i = 0; i < o->n_cpus; i++) {
		struct own_cpu *c = &o->cpus[i];

		if (!c->has) {
			int r = cpu_advance(o, c);

			if (r < 0)
				return iow_fail(err, "the trace.dat changed while it was read: CPU %d's page at byte %llu is no longer whole",
						c->id, (unsigned long long)c->page_at);
			if (r == 0)
				continue;
			c->has = 1;
		}
		if (!best || c->r_ts < best->r_ts)
			best = c;
	}
	if (!best) {
		o->state = 2;
		*type = MSG_END;
		*p = (const unsigned char *)"";
		*len = 1;
		return 0;
	}
	ev = best->r_ev;
	if (ev && ev->kind == NO_KIND) {
		o->pending = best;
		*type = MSG_KIND;
		kind_msg(o, ev, p, len);
		return 0;
	}
record:
	ev = best->r_ev;
	*type = MSG_RECORD;
	record_msg(o, best, ev, p, len);
	best->has = 0;
	return 0;
}

void tracedat_own_free(struct tracedat_own *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->n_events; i++)
		free(o->events[i].name);
	free(o->events);
	free(o->comms);
	for (i = 0; o->cpus && i < o->n_cpus; i++)
		free(o->cpus[i].page);
	free(o->cpus);
	free(o->msg);
	free(o);
}
