/*
 * perftext.c: perf script's text of the block tracepoints, as blktrace
 * records (perftext.h). A line at a time: its columns, its event, and
 * that event's fields in the tracepoint's print format, into the record
 * blktrace's kernel side writes for the same tracepoint (the action and
 * categories of kernel/trace/blktrace.c, as bpf/blkrec.bpf.c writes them
 * too), so that the same I/O read from perf's text, from blktrace or from
 * iowatcher's own recorders comes to the same statistics.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktrace.h"
#include "base/bytebuf.h"
#include "lossnote.h"
#include "perftext.h"
#include "base/u64map.h"

#define LINE_MAX_BYTES	4096
#define IN_CHUNK	(64 * 1024)
#define COMM_LEN	16	/* the kernel's TASK_COMM_LEN */

/* The shapes of the tracepoints' fields (their print formats). */
enum shape {
	SHAPE_BIO,	/* "%d,%d %s %llu + %u [%s]" */
	SHAPE_BIO_DONE,	/* "%d,%d %s %llu + %u [%d]": the error */
	SHAPE_RQ,	/* "%d,%d %s %u (%s) %llu + %u [prio] [%s]" */
	SHAPE_RQ_DONE,	/* "%d,%d %s (%s) %llu + %u [prio] [%d]" */
	SHAPE_SPLIT,	/* "%d,%d %s %llu / %llu [%s]" */
	SHAPE_REMAP,	/* "%d,%d %s %llu + %u <- (%d,%d) %llu[ %u]" */
	SHAPE_SKIP,	/* read by no statistic */
};

#define TC(c)	BLK_TC_ACT(BLK_TC_##c)

static const struct block_event {
	const char *name;
	enum shape shape;
	uint32_t action;
} block_events[] = {
	{ "block_bio_queue", SHAPE_BIO, BLK_TA_QUEUE | TC(QUEUE) },
	{ "block_getrq", SHAPE_BIO, BLK_TA_GETRQ | TC(QUEUE) },
	{ "block_bio_backmerge", SHAPE_BIO, BLK_TA_BACKMERGE | TC(QUEUE) },
	{ "block_bio_frontmerge", SHAPE_BIO, BLK_TA_FRONTMERGE | TC(QUEUE) },
	{ "block_bio_complete", SHAPE_BIO_DONE, BLK_TA_COMPLETE | TC(COMPLETE) },
	{ "block_rq_insert", SHAPE_RQ, BLK_TA_INSERT | TC(QUEUE) },
	{ "block_rq_issue", SHAPE_RQ, BLK_TA_ISSUE | TC(ISSUE) },
	/* a request merged into another: blktrace files it as a back merge */
	{ "block_rq_merge", SHAPE_RQ, BLK_TA_BACKMERGE | TC(QUEUE) },
	{ "block_rq_complete", SHAPE_RQ_DONE, BLK_TA_COMPLETE | TC(COMPLETE) },
	{ "block_rq_requeue", SHAPE_RQ_DONE, BLK_TA_REQUEUE | TC(REQUEUE) },
	{ "block_split", SHAPE_SPLIT, BLK_TA_SPLIT },
	{ "block_bio_remap", SHAPE_REMAP, BLK_TA_REMAP | TC(QUEUE) },
	{ "block_rq_remap", SHAPE_REMAP, BLK_TA_REMAP | TC(QUEUE) },
	/* no device in their text (plug, unplug), or no I/O of the block
	 * layer's (the accounting's start and end, buffer heads, the
	 * error a completion also reports, bounce buffers, zone plugs) */
	{ "block_plug", SHAPE_SKIP, 0 },
	{ "block_unplug", SHAPE_SKIP, 0 },
	{ "block_io_start", SHAPE_SKIP, 0 },
	{ "block_io_done", SHAPE_SKIP, 0 },
	{ "block_dirty_buffer", SHAPE_SKIP, 0 },
	{ "block_touch_buffer", SHAPE_SKIP, 0 },
	{ "block_rq_error", SHAPE_SKIP, 0 },
	{ "block_bio_bounce", SHAPE_SKIP, 0 },
	{ "blk_zone_append_update_request_bio", SHAPE_SKIP, 0 },
	{ "blk_zone_wplug_bio", SHAPE_SKIP, 0 },
	{ "blkdev_zone_mgmt", SHAPE_SKIP, 0 },
	{ "disk_zone_wplug_add_bio", SHAPE_SKIP, 0 },
};

/* One line's columns. */
struct perf_line {
	const char *comm;
	size_t comm_len;
	uint32_t pid, cpu;
	uint64_t time_ns;
	const char *event;	/* "block:block_bio_queue" */
	size_t event_len;
	const char *fields;	/* after the event's ": " */
	uint64_t lost;		/* PERF_RECORD_LOST's count */
	int is_lost;
};

struct perftext {
	struct byte_source *src;
	const char *path;
	char *in;
	size_t in_start, in_end, in_cap;
	int in_eof;
	struct bytebuf out;
	size_t out_start;
	uint64_t line_no;
	uint32_t sequence;
	uint64_t block_events, other_events;
	struct u64map comms;	/* (pid, device): a hash of the name noted */
	uint64_t *cpu_last_ns;	/* per CPU, its last event's time */
	size_t n_cpus;
	uint32_t *devices;	/* seen, for the loss notes */
	size_t n_devices;
};

/* ---- the columns ---- */

static int is_digits(const char *s, const char *end)
{
	if (s >= end)
		return 0;
	for (; s < end; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* "1067.142859" (microseconds) or "1067.142859123" (--ns) in ns. */
static int parse_time(const char *s, const char *end, uint64_t *ns)
{
	const char *dot = memchr(s, '.', (size_t)(end - s));
	uint64_t sec = 0, frac = 0;
	int digits = 0;
	const char *p;

	if (!dot || !is_digits(s, dot) || !is_digits(dot + 1, end) ||
	    end - dot - 1 > 9)
		return -1;
	for (p = s; p < dot; p++)
		sec = sec * 10 + (uint64_t)(*p - '0');
	for (p = dot + 1; p < end; p++, digits++)
		frac = frac * 10 + (uint64_t)(*p - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* The token ending just before end (after spaces): its start. */
static const char *token_before(const char *line, const char *end)
{
	while (end > line && end[-1] == ' ')
		end--;
	while (end > line && end[-1] != ' ')
		end--;
	return end;
}

static const char *token_end(const char *s)
{
	while (*s && *s != ' ')
		s++;
	return s;
}

/*
 * The columns of line (NUL-terminated, no newline): 0, or -1 when it is
 * not a line of perf script's (comm, [pid/]tid, [cpu], time, event).
 */
static int parse_columns(const char *line, struct perf_line *pl)
{
	const char *p, *t, *tend, *tok, *cpu_end;

	memset(pl, 0, sizeof(*pl));
	/* the time: the first "DIGITS.DIGITS: " */
	for (p = strstr(line, ": "); p; p = strstr(p + 1, ": ")) {
		t = token_before(line, p);
		if (t < p && parse_time(t, p, &pl->time_ns) == 0)
			break;
	}
	if (!p)
		return -1;
	tend = t;
	/* the event and its fields */
	p += 2;
	while (*p == ' ')
		p++;
	if (!strncmp(p, "PERF_RECORD_LOST", 16)) {
		const char *n = strstr(p, "lost ");

		pl->is_lost = 1;
		if (!n)
			return -1;
		pl->lost = strtoull(n + 5, NULL, 10);
	} else {
		const char *colon;

		/* a period may stand before the event (-F period) */
		if (isdigit((unsigned char)*p) && strchr(p, ' ') &&
		    is_digits(p, token_end(p)))
			p = token_end(p) + 1;
		while (*p == ' ')
			p++;
		pl->event = p;
		colon = strchr(p, ':');
		if (!colon || !(colon = strchr(colon + 1, ':')))
			return -1;
		pl->event_len = (size_t)(colon - p);
		pl->fields = colon[1] == ' ' ? colon + 2 : colon + 1;
	}
	/* backwards from the time: [cpu], then pid/tid or tid, then comm */
	tok = token_before(line, tend);
	cpu_end = tend;
	while (cpu_end > tok && cpu_end[-1] == ' ')
		cpu_end--;
	if (tok < cpu_end && *tok == '[' && cpu_end[-1] == ']' &&
	    is_digits(tok + 1, cpu_end - 1)) {
		pl->cpu = (uint32_t)strtoul(tok + 1, NULL, 10);
		tend = tok;
		tok = token_before(line, tend);
		cpu_end = tend;
		while (cpu_end > tok && cpu_end[-1] == ' ')
			cpu_end--;
	}
	if (tok >= cpu_end)
		return -1;
	{
		const char *slash = memchr(tok, '/', (size_t)(cpu_end - tok));
		const char *tid = slash ? slash + 1 : tok;

		if (!is_digits(tid, cpu_end) ||
		    (slash && !is_digits(tok, slash)))
			return -1;
		pl->pid = (uint32_t)strtoul(tid, NULL, 10);
	}
	pl->comm = line;
	while (*pl->comm == ' ')
		pl->comm++;
	pl->comm_len = tok > pl->comm ? (size_t)(tok - pl->comm) : 0;
	while (pl->comm_len && pl->comm[pl->comm_len - 1] == ' ')
		pl->comm_len--;
	return 0;
}

int perftext_looks(const unsigned char *p, size_t len)
{
	char line[LINE_MAX_BYTES];
	size_t i = 0;
	int lines = 0;

	while (i < len && lines < 4) {
		const unsigned char *nl = memchr(p + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (p + i)) : len - i;
		struct perf_line pl;

		if (!nl && lines)
			break;	/* a line cut by the look's end */
		if (n && p[i] != '#') {
			if (n >= sizeof(line) || memchr(p + i, '\0', n))
				return 0;
			memcpy(line, p + i, n);
			line[n] = '\0';
			return parse_columns(line, &pl) == 0;
		}
		i += n + 1;
		lines++;
	}
	return 0;
}

/* ---- the fields ---- */

/* "8,16": the device as blktrace numbers it (major << 20 | minor). */
static int parse_dev(const char **s, uint32_t *dev)
{
	char *end;
	unsigned long major, minor;

	major = strtoul(*s, &end, 10);
	if (end == *s || *end != ',')
		return -1;
	minor = strtoul(end + 1, &end, 10);
	if (major > 0xfff || minor > 0xfffff)
		return -1;
	*dev = (uint32_t)(major << 20 | minor);
	*s = end;
	return 0;
}

static int parse_u64(const char **s, uint64_t *v)
{
	char *end;

	while (**s == ' ')
		(*s)++;
	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno)
		return -1;
	*s = end;
	return 0;
}

static int expect(const char **s, const char *word)
{
	size_t n = strlen(word);

	while (**s == ' ')
		(*s)++;
	if (strncmp(*s, word, n))
		return -1;
	*s += n;
	return 0;
}

/* rwbs (blk_fill_rwbs) as blktrace's categories; -1 when not one. */
static int rwbs_categories(const char **s, uint32_t *what)
{
	const char *p;
	int preflush = 0;

	while (**s == ' ')
		(*s)++;
	p = *s;
	if (p[0] == 'F' && p[1] && strchr("WRDFN", p[1]))
		preflush = 1, p++;
	switch (*p) {
	case 'W':
	case 'N':	/* write zeroes and the like: the write direction */
		*what = TC(WRITE);
		break;
	case 'R':
		*what = TC(READ);
		break;
	case 'D':	/* discard, secure erase */
		*what = TC(WRITE) | TC(DISCARD);
		if (p[1] == 'E')
			p++;
		break;
	case 'F':	/* a flush request of its own */
		*what = TC(READ) | TC(FLUSH);
		break;
	default:
		return -1;
	}
	for (p++; *p && *p != ' '; p++) {
		switch (*p) {
		case 'F':
			*what |= TC(FUA);
			break;
		case 'A':
			*what |= TC(AHEAD);
			break;
		case 'S':
			*what |= TC(SYNC);
			break;
		case 'M':
			*what |= TC(META);
			break;
		case 'U':	/* atomic: no category */
			break;
		default:
			return -1;
		}
	}
	if (preflush)
		*what |= TC(FLUSH);
	*s = p;
	return 0;
}

/* "(cmd)": a passthrough command's bytes, empty for file system I/O. */
static int parse_cmd(const char **s, int *passthrough)
{
	const char *close;

	if (expect(s, "("))
		return -1;
	close = strchr(*s, ')');
	if (!close)
		return -1;
	*passthrough = close > *s;
	*s = close + 1;
	return 0;
}

/* Newer kernels print the I/O priority ("0x2,0,4", "RT,0,4") after the
 * sectors; older ones do not. */
static void skip_prio(const char **s)
{
	const char *p = *s;

	while (*p == ' ')
		p++;
	if (*p && *p != '[' && strchr(p, ',') && strchr(p, ',') < token_end(p))
		*s = token_end(p);
}

/* "[NUMBER]" (an error: negative errno) at the end. */
static int parse_error(const char **s, uint16_t *error)
{
	char *end;
	long v;

	if (expect(s, "["))
		return -1;
	v = strtol(*s, &end, 10);
	if (end == *s || *end != ']')
		return -1;
	*error = (uint16_t)v;
	*s = end + 1;
	return 0;
}

struct fields {
	uint32_t dev, what;
	uint64_t sector, nr_sector, rest_sector;
	uint64_t bytes;
	int has_bytes, passthrough;
	uint16_t error;
	uint32_t from_dev;
	uint64_t from_sector;
};

static int parse_fields(enum shape shape, const char *s, struct fields *f)
{
	memset(f, 0, sizeof(*f));
	while (*s == ' ')
		s++;
	if (parse_dev(&s, &f->dev) || rwbs_categories(&s, &f->what))
		return -1;
	if (shape == SHAPE_RQ) {
		if (parse_u64(&s, &f->bytes))
			return -1;
		f->has_bytes = 1;
	}
	if ((shape == SHAPE_RQ || shape == SHAPE_RQ_DONE) &&
	    parse_cmd(&s, &f->passthrough))
		return -1;
	if (parse_u64(&s, &f->sector))
		return -1;
	if (shape == SHAPE_SPLIT)
		return expect(&s, "/") || parse_u64(&s, &f->rest_sector);
	if (expect(&s, "+") || parse_u64(&s, &f->nr_sector))
		return -1;
	if (shape == SHAPE_REMAP) {
		if (expect(&s, "<-") || expect(&s, "(") ||
		    parse_dev(&s, &f->from_dev) || expect(&s, ")") ||
		    parse_u64(&s, &f->from_sector))
			return -1;
		return 0;
	}
	if (shape == SHAPE_RQ || shape == SHAPE_RQ_DONE)
		skip_prio(&s);
	if (shape == SHAPE_BIO_DONE || shape == SHAPE_RQ_DONE)
		return parse_error(&s, &f->error);
	return expect(&s, "[");
}

/* ---- records ---- */

static int emit(struct perftext *t, uint64_t time_ns, uint64_t sector,
		uint32_t bytes, uint32_t action, uint32_t pid, uint32_t dev,
		uint32_t cpu, uint16_t error, const void *pdu, uint16_t pdu_len)
{
	struct blk_io_trace r = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
		.sequence = ++t->sequence,
		.time = time_ns,
		.sector = sector,
		.bytes = bytes,
		.action = action,
		.pid = pid,
		.device = dev,
		.cpu = cpu,
		.error = error,
		.pdu_len = pdu_len,
	};

	if (bytebuf_append(&t->out, &r, sizeof(r)) ||
	    (pdu_len && bytebuf_append(&t->out, pdu, pdu_len)))
		return -1;
	return 0;
}

/* A PROCESS note where (pid, device)'s name is new, as blktrace notes a
 * task the first time it traces it. */
static int note_comm(struct perftext *t, const struct perf_line *pl,
		     uint32_t dev)
{
	char comm[COMM_LEN];
	uint64_t key = (uint64_t)pl->pid << 32 | dev;
	uint32_t seen, hash = 2166136261u;
	size_t n = pl->comm_len < COMM_LEN - 1 ? pl->comm_len : COMM_LEN - 1;
	size_t i;

	for (i = 0; i < n; i++)
		hash = (hash ^ (unsigned char)pl->comm[i]) * 16777619u;
	hash |= 1;
	if (u64map_get(&t->comms, key, &seen) && seen == hash)
		return 0;
	if (u64map_put(&t->comms, key, hash))
		return -1;
	memset(comm, 0, sizeof(comm));
	memcpy(comm, pl->comm, n);
	return emit(t, pl->time_ns, 0, 0, TC(NOTIFY) | BLK_TN_PROCESS,
		    pl->pid, dev, pl->cpu, 0, comm, (uint16_t)(n + 1));
}

static int see_device(struct perftext *t, uint32_t dev)
{
	uint32_t *d;
	size_t i;

	for (i = 0; i < t->n_devices; i++)
		if (t->devices[i] == dev)
			return 0;
	d = realloc(t->devices, (t->n_devices + 1) * sizeof(*d));
	if (!d)
		return -1;
	t->devices = d;
	d[t->n_devices++] = dev;
	return 0;
}

static int see_cpu(struct perftext *t, uint32_t cpu, uint64_t time_ns)
{
	if (cpu >= t->n_cpus) {
		size_t n = (size_t)cpu + 1;
		uint64_t *c = cpu > 65535 ? NULL :
			      realloc(t->cpu_last_ns, n * sizeof(*c));

		if (!c)
			return -1;
		memset(c + t->n_cpus, 0, (n - t->n_cpus) * sizeof(*c));
		t->cpu_last_ns = c;
		t->n_cpus = n;
	}
	t->cpu_last_ns[cpu] = time_ns;
	return 0;
}

/* perf lost events on a CPU: from its last event seen to here. */
static int lost(struct perftext *t, const struct perf_line *pl)
{
	struct lossnote n = {
		.count = pl->lost,
		.count_known = 1,
		.cpu = pl->cpu,
		.t0_ns = pl->cpu < t->n_cpus ? t->cpu_last_ns[pl->cpu] : 0,
		.t1_ns = pl->time_ns,
	};
	char text[LOSSNOTE_TEXT_MAX];
	uint16_t len = lossnote_format(&n, text);
	size_t i;

	for (i = 0; i < t->n_devices; i++) {
		struct blk_io_trace r;

		lossnote_header(&n, t->devices[i], len, &r);
		r.sequence = ++t->sequence;
		if (bytebuf_append(&t->out, &r, sizeof(r)) ||
		    bytebuf_append(&t->out, text, len))
			return -1;
	}
	return 0;
}

static int line_fail(struct perftext *t, struct iow_error *err,
		     const char *what, const char *line)
{
	return iow_fail(err, "%s: line %llu: %s: \"%.80s%s\"", t->path,
			(unsigned long long)t->line_no, what, line,
			strlen(line) > 80 ? "..." : "");
}

static int translate(struct perftext *t, char *line, struct iow_error *err)
{
	const struct block_event *be = NULL;
	struct perf_line pl;
	struct fields f;
	unsigned char pdu[BLK_REMAP_PDU_SIZE];
	uint16_t pdu_len = 0;
	uint32_t bytes, action;
	size_t i;

	if (!*line || *line == '#')
		return 0;
	if (parse_columns(line, &pl) < 0)
		return line_fail(t, err, "not a line of perf script's (comm, tid, cpu, time, event, fields: perf script prints them by default)", line);
	if (pl.is_lost)
		return lost(t, &pl) < 0 ? iow_fail(err, "out of memory") : 0;
	if (pl.event_len < 6 || strncmp(pl.event, "block:", 6)) {
		t->other_events++;
		return see_cpu(t, pl.cpu, pl.time_ns) < 0 ?
			       iow_fail(err, "out of memory") : 0;
	}
	for (i = 0; i < sizeof(block_events) / sizeof(block_events[0]); i++)
		if (pl.event_len - 6 == strlen(block_events[i].name) &&
		    !strncmp(pl.event + 6, block_events[i].name,
			     pl.event_len - 6)) {
			be = &block_events[i];
			break;
		}
	if (!be) {
		char what[160];

		snprintf(what, sizeof(what), "an unknown block event %.*s (iowatcher reads block_bio_queue, block_rq_issue, block_rq_complete and the rest of Linux 6's block events)",
			 (int)pl.event_len, pl.event);
		return line_fail(t, err, what, line);
	}
	if (see_cpu(t, pl.cpu, pl.time_ns) < 0)
		return iow_fail(err, "out of memory");
	t->block_events++;
	if (be->shape == SHAPE_SKIP)
		return 0;
	if (parse_fields(be->shape, pl.fields, &f) < 0) {
		char what[160];

		snprintf(what, sizeof(what), "the fields of %.*s are not in the layout this kernel's tracepoint prints",
			 (int)pl.event_len, pl.event);
		return line_fail(t, err, what, line);
	}
	bytes = (uint32_t)(f.has_bytes ? f.bytes : f.nr_sector << 9);
	action = be->action | f.what;
	if (be->shape == SHAPE_RQ || be->shape == SHAPE_RQ_DONE)
		action |= f.passthrough ? TC(PC) : TC(FS);
	if (be->shape == SHAPE_SPLIT) {
		uint64_t be64 = __builtin_bswap64(f.rest_sector);

		memcpy(pdu, &be64, 8);
		pdu_len = 8;
		bytes = 0;
	} else if (be->shape == SHAPE_REMAP) {
		uint32_t from = __builtin_bswap32(f.from_dev);
		uint32_t to = __builtin_bswap32(f.dev);
		uint64_t sector = __builtin_bswap64(f.from_sector);

		memcpy(pdu, &from, 4);
		memcpy(pdu + 4, &to, 4);
		memcpy(pdu + 8, &sector, 8);
		pdu_len = BLK_REMAP_PDU_SIZE;
	}
	if (see_device(t, f.dev) < 0 || note_comm(t, &pl, f.dev) < 0 ||
	    emit(t, pl.time_ns, f.sector, bytes, action, pl.pid, f.dev,
		 pl.cpu, f.error, pdu, pdu_len) < 0)
		return iow_fail(err, "out of memory");
	return 0;
}

/* ---- reading ---- */

struct perftext *perftext_open(struct byte_source *src,
			       const unsigned char *first, size_t n,
			       const char *path, struct iow_error *err)
{
	struct perftext *t = calloc(1, sizeof(*t));

	if (!t || !(t->in = malloc(IN_CHUNK + LINE_MAX_BYTES))) {
		free(t);
		iow_fail(err, "out of memory");
		return NULL;
	}
	t->in_cap = IN_CHUNK + LINE_MAX_BYTES;
	if (n > t->in_cap) {
		perftext_free(t);
		iow_fail(err, "out of memory");
		return NULL;
	}
	memcpy(t->in, first, n);
	t->in_end = n;
	t->src = src;
	t->path = path;
	return t;
}

/* The next line into *line (NUL-terminated in place): 1, 0 at the end,
 * -1 on an error. */
static int next_line(struct perftext *t, char **line, struct iow_error *err)
{
	for (;;) {
		char *start = t->in + t->in_start;
		char *nl = memchr(start, '\n', t->in_end - t->in_start);
		ssize_t got;

		if (nl || (t->in_eof && t->in_end > t->in_start)) {
			if (!nl)
				nl = t->in + t->in_end;	/* the last line */
			*nl = '\0';
			if (nl > start && nl[-1] == '\r')
				nl[-1] = '\0';
			t->in_start = (size_t)(nl - t->in) + 1;
			if (t->in_start > t->in_end)
				t->in_start = t->in_end;
			*line = start;
			t->line_no++;
			return 1;
		}
		if (t->in_eof)
			return 0;
		if (t->in_end - t->in_start >= LINE_MAX_BYTES)
			return iow_fail(err, "%s: line %llu: longer than %d bytes: not perf script's text",
					t->path,
					(unsigned long long)t->line_no + 1,
					LINE_MAX_BYTES);
		memmove(t->in, start, t->in_end - t->in_start);
		t->in_end -= t->in_start;
		t->in_start = 0;
		got = bytesrc_read(t->src, (unsigned char *)t->in + t->in_end,
				   t->in_cap - t->in_end - 1, err);
		if (got < 0)
			return -1;
		if (got == 0)
			t->in_eof = 1;
		t->in_end += (size_t)got;
	}
}

ssize_t perftext_read(struct perftext *t, unsigned char *buf, size_t len,
		      struct iow_error *err)
{
	size_t n;

	while (t->out.len - t->out_start < len) {
		char *line = NULL;
		int r;

		if (t->out_start && t->out_start == t->out.len)
			t->out.len = t->out_start = 0;
		r = next_line(t, &line, err);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		if (translate(t, line, err) < 0)
			return -1;
	}
	n = t->out.len - t->out_start;
	if (n > len)
		n = len;
	if (!n && !t->block_events)
		return iow_fail(err, t->other_events ?
				"%s: perf script's text holds no block events (record them with perf record -e 'block:*')" :
				"%s: perf script's text holds no events",
				t->path);
	if (!n)
		return 0;
	memcpy(buf, t->out.data + t->out_start, n);
	t->out_start += n;
	if (t->out_start == t->out.len)
		t->out.len = t->out_start = 0;
	return (ssize_t)n;
}

void perftext_free(struct perftext *t)
{
	if (!t)
		return;
	free(t->in);
	bytebuf_free(&t->out);
	u64map_free(&t->comms);
	free(t->cpu_last_ns);
	free(t->devices);
	free(t);
}
