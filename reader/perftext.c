/*
 * perftext.c: perf script's text of the block tracepoints, as blktrace
 * records (a blocktp_input: blocktp.h). A line at a time: its
 * columns, its event, and that event's fields in the tracepoint's print format, into the records
 * blocktp.c makes of a block tracepoint, so that the same I/O read from
 * perf's text, from blktrace or from iowatcher's own recorders comes to
 * the same statistics.
 *
 * The text `perf script` prints for the kernel's block
 * tracepoints (recorded with perf record -e 'block:*'), read as a trace:
 * each line becomes the blktrace record the kernel's blktrace would have
 * written for that tracepoint (version 7, this machine's byte order),
 * with a PROCESS note where a task's name is first seen and a loss note
 * where perf says it lost events (PERF_RECORD_LOST, printed by perf
 * script --show-lost-events). The reader then reads those records as it
 * reads a blkparse -d dump, so every statistic is the same code's.
 *
 * The columns are perf's default ones (comm, tid, cpu, time, event and
 * its fields) or a -F choice keeping them (a pid/tid pair, --ns times);
 * the fields are the tracepoints' own print formats, with or without
 * the I/O priority newer kernels print.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocktp.h"

struct perftext;
static void perftext_free(struct perftext *t);

#define LINE_MAX_BYTES	4096
#define IN_CHUNK	(64 * 1024)
#define DUP_RING	64

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
	const char *lost_text;	/* and its text */
	int is_lost;
	int ns_time;		/* the time to the ns (--ns) */
};

struct perftext {
	struct byte_source *src;
	const char *path;
	char *in;
	size_t in_start, in_end, in_cap;
	int in_eof;
	uint64_t line_no;
	uint64_t other_events;
	struct blocktp_out records;
	/* the last block lines' hashes and times: an exact repeat (the
	 * same CPU, time, task, event and fields) is one record */
	uint64_t recent_hash[DUP_RING], recent_ns[DUP_RING];
	size_t n_recent;
	uint64_t duplicates, last_ns;
	int duplicates_said;
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
	for (p = s; p < dot; p++) {
		sec = sec * 10 + (uint64_t)(*p - '0');
		if (sec >= BLOCKTP_TIME_LIMIT_NS / 1000000000ull)
			sec = BLOCKTP_TIME_LIMIT_NS / 1000000000ull;
	}
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
	pl->ns_time = p - (const char *)memchr(t, '.', (size_t)(p - t)) == 10;
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
		pl->lost_text = n + 5;
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
		unsigned long long cpu = strtoull(tok + 1, NULL, 10);

		pl->cpu = cpu < BLOCKTP_CPU_LIMIT ? (uint32_t)cpu :
			  BLOCKTP_CPU_LIMIT;
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

/* Whether p[0, len), the data's start, is perf script's text (of any
 * events: one without block events is told apart when read). */
static int perftext_looks(const unsigned char *p, size_t len)
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

static int parse_fields(enum blocktp_shape shape, const char *s,
			struct blocktp_fields *f)
{
	memset(f, 0, sizeof(*f));
	while (*s == ' ')
		s++;
	if (parse_dev(&s, &f->dev) || blocktp_rwbs(&s, &f->what))
		return -1;
	if (shape == BLOCKTP_RQ) {
		if (parse_u64(&s, &f->bytes))
			return -1;
		f->has_bytes = 1;
	}
	if ((shape == BLOCKTP_RQ || shape == BLOCKTP_RQ_DONE) &&
	    parse_cmd(&s, &f->passthrough))
		return -1;
	if (parse_u64(&s, &f->sector))
		return -1;
	if (shape == BLOCKTP_SPLIT)
		return expect(&s, "/") || parse_u64(&s, &f->rest_sector);
	if (expect(&s, "+") || parse_u64(&s, &f->nr_sector))
		return -1;
	if (shape == BLOCKTP_REMAP) {
		if (expect(&s, "<-") || expect(&s, "(") ||
		    parse_dev(&s, &f->from_dev) || expect(&s, ")") ||
		    parse_u64(&s, &f->from_sector))
			return -1;
		return 0;
	}
	if (shape == BLOCKTP_RQ || shape == BLOCKTP_RQ_DONE)
		skip_prio(&s);
	if (shape == BLOCKTP_BIO_DONE || shape == BLOCKTP_RQ_DONE)
		return parse_error(&s, &f->error);
	return expect(&s, "[");
}

/* ---- records ---- */

/* perf lost events on a CPU: from its last event seen to here. */
static int lost(struct perftext *t, const struct perf_line *pl)
{
	return blocktp_lost(&t->records, pl->cpu, pl->time_ns, pl->lost, 1);
}

static int line_fail(struct perftext *t, struct iow_error *err,
		     const char *what, const char *line)
{
	return iow_fail(err, "%s: line %llu: %s: \"%.80s%s\"", t->path,
			(unsigned long long)t->line_no, what, line,
			strlen(line) > 80 ? "..." : "");
}

/*
 * The numbers of a line perf could not have printed: a CPU past any
 * machine's, a time past 2^62 ns (the clock starts at boot), a lost
 * count that is not a count (perf prints an unsigned one: "-5" or
 * 20 digits is damage), a loss noticed before that CPU's last event.
 */
static int check_numbers(struct perftext *t, const struct perf_line *pl,
			 const char *line, struct iow_error *err)
{
	char what[160];
	const char *p;
	int digits = 0;

	if (pl->cpu >= BLOCKTP_CPU_LIMIT) {
		snprintf(what, sizeof(what), "the CPU number is out of range (0 to %d)",
			 BLOCKTP_CPU_LIMIT - 1);
		return line_fail(t, err, what, line);
	}
	if (pl->time_ns >= BLOCKTP_TIME_LIMIT_NS)
		return line_fail(t, err, "the time is out of range (more than 146 years since boot)",
				 line);
	if (!pl->is_lost)
		return 0;
	for (p = pl->lost_text; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (!digits || digits > 16 || (*p && *p != ' '))
		return line_fail(t, err, "the lost count is not a count of events (0 to 9999999999999999)",
				 line);
	if (pl->cpu < t->records.n_cpus &&
	    pl->time_ns < t->records.cpu_last_ns[pl->cpu]) {
		snprintf(what, sizeof(what), "the loss is noticed at %.6f s, before its CPU's last event at %.6f s: the lines are out of order",
			 (double)pl->time_ns / 1e9,
			 (double)t->records.cpu_last_ns[pl->cpu] / 1e9);
		return line_fail(t, err, what, line);
	}
	return 0;
}

/* Whether line (of a block event at time_ns) repeats one of the last
 * DUP_RING block lines exactly; it is remembered if not. */
static int repeated(struct perftext *t, const char *line, uint64_t time_ns)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */
	size_t i, n = t->n_recent < DUP_RING ? t->n_recent : DUP_RING;

	for (; *line; line++)
		h = (h ^ (unsigned char)*line) * 1099511628211ull;
	for (i = 0; i < n; i++)
		if (t->recent_hash[i] == h && t->recent_ns[i] == time_ns)
			return 1;
	t->recent_hash[t->n_recent % DUP_RING] = h;
	t->recent_ns[t->n_recent++ % DUP_RING] = time_ns;
	return 0;
}

static int translate(struct perftext *t, char *line, struct iow_error *err)
{
	const struct blocktp_event *be;
	struct blocktp_fields f = { 0 };
	struct blocktp_task task;
	struct perf_line pl;

	if (!*line || *line == '#')
		return 0;
	if (parse_columns(line, &pl) < 0)
		return line_fail(t, err, "not a line of perf script's (comm, tid, cpu, time, event, fields: perf script prints them by default)", line);
	if (check_numbers(t, &pl, line, err) < 0)
		return -1;
	if (pl.is_lost)
		return lost(t, &pl) < 0 ? iow_fail(err, "out of memory") : 0;
	if (pl.event_len < 6 || strncmp(pl.event, "block:", 6)) {
		t->other_events++;
		return blocktp_see_cpu(&t->records, pl.cpu, pl.time_ns) < 0 ?
			       iow_fail(err, "out of memory") : 0;
	}
	/* (times in microseconds may tell two records apart no more) */
	if (pl.ns_time && repeated(t, line, pl.time_ns)) {
		t->duplicates++;
		return 0;
	}
	if (pl.time_ns > t->last_ns)
		t->last_ns = pl.time_ns;
	be = blocktp_find(pl.event + 6, pl.event_len - 6);
	if (!be) {
		char what[160];

		snprintf(what, sizeof(what), "an unknown block event %.*s (iowatcher reads block_bio_queue, block_rq_issue, block_rq_complete and the rest of Linux 6's block events)",
			 (int)pl.event_len, pl.event);
		return line_fail(t, err, what, line);
	}
	if (be->shape != BLOCKTP_SKIP &&
	    parse_fields(be->shape, pl.fields, &f) < 0) {
		char what[160];

		snprintf(what, sizeof(what), "the fields of %.*s are not in the layout this kernel's tracepoint prints",
			 (int)pl.event_len, pl.event);
		return line_fail(t, err, what, line);
	}
	task = (struct blocktp_task){ .time_ns = pl.time_ns, .pid = pl.pid,
				      .cpu = pl.cpu, .comm = pl.comm,
				      .comm_len = pl.comm_len };
	if (blocktp_emit(&t->records, be, &f, &task) < 0)
		return iow_fail(err, "out of memory");
	return 0;
}

/* ---- reading ---- */

/*
 * Reads src's text from here on, the bytes already taken from it first
 * (first[0, n), copied); path names it in messages.
 */
static struct perftext *perftext_open(struct byte_source *src,
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

/* Up to len bytes of records: how many, 0 at the end, -1 on an error. */
static ssize_t perftext_read(struct perftext *t, unsigned char *buf, size_t len,
		      struct iow_error *err)
{
	while (blocktp_pending(&t->records) < len) {
		char *line = NULL;
		int r = next_line(t, &line, err);

		if (r < 0)
			return -1;
		if (r == 0) {
			if (t->duplicates && !t->duplicates_said &&
			    blocktp_duplicates(&t->records, t->last_ns,
					       t->duplicates) < 0)
				return iow_fail(err, "out of memory");
			t->duplicates_said = 1;
			break;
		}
		if (translate(t, line, err) < 0)
			return -1;
	}
	if (!blocktp_pending(&t->records) && !t->records.block_events)
		return iow_fail(err, t->other_events ?
				"%s: perf script's text holds no block events (record them with perf record -e 'block:*')" :
				"%s: perf script's text holds no events",
				t->path);
	return (ssize_t)blocktp_take(&t->records, buf, len);
}

static void perftext_free(struct perftext *t)
{
	if (!t)
		return;
	free(t->in);
	blocktp_out_free(&t->records);
	free(t);
}

static void *input_open(struct byte_source *src, const unsigned char *first,
			size_t n, const char *path, struct iow_error *err)
{
	return perftext_open(src, first, n, path, err);
}

static ssize_t input_read(void *input, unsigned char *buf, size_t len,
			  struct iow_error *err)
{
	return perftext_read(input, buf, len, err);
}

static void input_free(void *input)
{
	perftext_free(input);
}

const struct blocktp_input perftext_input = {
	perftext_looks, input_open, input_read, input_free,
};
