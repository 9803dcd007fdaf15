/* events.c: the per-I/O log (events.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "events.h"
#include "options.h"
#include "trace_result.h"
#include "base/outfile.h"
#include "base/utf8.h"

enum events_format { EVENTS_CSV, EVENTS_JSONL };

struct events_log {
	enum events_format format;
	struct outfile out;	/* a file, written aside (none: stdout) */
	int to_stdout;
	FILE *f;
	int failed;		/* a write failed: errno in write_errno */
	int write_errno;
	const char *trace;
	const struct analysis *a;
	const struct cause_table *causes;
	const struct trace_facts *facts;
	/* the wall clock's date and second last written, and its second */
	char wall_second[32];
	time_t wall_sec;
};

static const char *const columns[] = {
	"trace", "time_s", "device", "class", "sector", "bytes", "q2d_us",
	"d2c_us", "q2c_us", "pid", "comm", "cgroup", "file", "tag", "io",
	/* added later, so at the end: scripts read the columns before */
	"host", "device_name", "wall_time",
};
#define N_COLUMNS (sizeof(columns) / sizeof(columns[0]))

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n > m && !strcmp(s + n - m, tail);
}

struct events_log *events_open(const char *path, struct iow_error *err)
{
	struct events_log *l = calloc(1, sizeof(*l));
	size_t i;

	if (!l) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	l->out.fd = -1;
	if (!strcmp(path, "-")) {
		l->to_stdout = 1;
		l->f = stdout;
	} else if (ends_with(path, ".csv") || ends_with(path, ".jsonl")) {
		l->format = ends_with(path, ".csv") ? EVENTS_CSV : EVENTS_JSONL;
		if (outfile_open(&l->out, path, NULL, err) < 0) {
			free(l);
			return NULL;
		}
		l->f = fdopen(l->out.fd, "w");
		if (!l->f) {
			iow_fail(err, "cannot write %s: %s", path,
				 strerror(errno));
			outfile_abort(&l->out);
			free(l);
			return NULL;
		}
		l->out.fd = -1;	/* the stream owns it now */
	} else {
		iow_fail(err, "--events %s: name the file .csv or .jsonl (or give -, CSV on standard output)",
			 path);
		free(l);
		return NULL;
	}
	if (l->format == EVENTS_CSV)
		for (i = 0; i < N_COLUMNS; i++)
			fprintf(l->f, "%s%s", columns[i],
				i + 1 < N_COLUMNS ? "," : "\n");
	return l;
}

void events_trace(struct events_log *l, const char *label,
		  const struct analysis *a, const struct cause_table *causes,
		  const struct trace_facts *facts)
{
	l->trace = label;
	l->a = a;
	l->causes = causes;
	l->facts = facts;
}

/* A text field: CSV quotes it when it must; JSON always, escaped. */
static void put_text(struct events_log *l, const char *s)
{
	char fixed[1024];

	if (!s) {
		if (l->format == EVENTS_JSONL)
			fputs("null", l->f);
		return;
	}
	s = utf8_clean(s, fixed, sizeof(fixed));
	if (l->format == EVENTS_JSONL) {
		fputc('"', l->f);
		for (; *s; s++) {
			if (*s == '"' || *s == '\\')
				fprintf(l->f, "\\%c", *s);
			else if ((unsigned char)*s < 0x20)
				fprintf(l->f, "\\u%04x", (unsigned char)*s);
			else
				fputc(*s, l->f);
		}
		fputc('"', l->f);
		return;
	}
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, l->f);
		return;
	}
	fputc('"', l->f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', l->f);
		fputc(*s, l->f);
	}
	fputc('"', l->f);
}

static void put_sep(struct events_log *l, const char *name, int first)
{
	if (l->format == EVENTS_CSV) {
		if (!first)
			fputc(',', l->f);
		return;
	}
	fprintf(l->f, "%s\"%s\": ", first ? "{" : ", ", name);
}

static void put_us(struct events_log *l, const char *name, int has,
		   uint64_t ns)
{
	put_sep(l, name, 0);
	if (has)
		fprintf(l->f, "%.3f", (double)ns / 1e3);
	else if (l->format == EVENTS_JSONL)
		fputs("null", l->f);
}

/*
 * The wall clock as ISO 8601 in UTC to the nanosecond
 * (2026-11-22T03:17:24.589526706Z): DuckDB reads it as a timestamp,
 * pandas too, and it sorts as text. The date and second are made once
 * per second of the trace, not per row.
 */
static void put_wall(struct events_log *l, int64_t wall_ns)
{
	time_t sec = (time_t)(wall_ns / 1000000000);
	long nsec = (long)(wall_ns % 1000000000);
	struct tm tm;

	if (nsec < 0) {
		nsec += 1000000000;
		sec--;
	}
	if (!l->wall_second[0] || sec != l->wall_sec) {
		gmtime_r(&sec, &tm);
		strftime(l->wall_second, sizeof(l->wall_second),
			 "%Y-%m-%dT%H:%M:%S", &tm);
		l->wall_sec = sec;
	}
	fprintf(l->f, l->format == EVENTS_JSONL ? "\"%s.%09ldZ\"" : "%s.%09ldZ",
		l->wall_second, nsec);
}

/* What a fleet's logs are told apart and lined up by: the host, the
 * device's name, the completion's wall-clock time; empty where the
 * trace does not say. */
static void put_fleet(struct events_log *l, const struct analysis_row *r)
{
	const struct trace_facts *facts = l->facts;
	int64_t wall_ns;

	put_sep(l, "host", 0);
	put_text(l, facts && facts->host[0] ? facts->host : NULL);
	put_sep(l, "device_name", 0);
	put_text(l, facts ? trace_facts_device(facts, r->device) : NULL);
	put_sep(l, "wall_time", 0);
	if (facts && trace_facts_wall_ns(facts, r->time_ns, &wall_ns))
		put_wall(l, wall_ns);
	else
		put_text(l, NULL);
}

/*
 * The task a row is credited to: its bio's cause's, or a flush's issuer
 * (a flush has no QUEUE, so no cause; the trace has the task its D ran
 * in, as blkparse shows it). A row of no known task (an I/O queued
 * before the trace) has 0, as blktrace names interrupt context, so that
 * the column stays one of integers.
 */
static uint32_t row_pid(const struct analysis_row *r, const struct cause *c)
{
	if (c)
		return cause_credited_pid(c);
	return r->op == OP_FLUSH ? r->issuer_pid : 0;
}

void events_row(void *ctx, const struct analysis_row *r)
{
	struct events_log *l = ctx;
	const struct cause *c = l->causes ? cause_get(l->causes, r->cause)
					  : NULL;
	char dev[32], buf[512];
	uint32_t pid = row_pid(r, c);

	if (l->failed)
		return;
	put_sep(l, columns[0], 1);
	put_text(l, l->trace);
	put_sep(l, "time_s", 0);
	fprintf(l->f, "%.9f", (double)r->time_ns / 1e9);
	snprintf(dev, sizeof(dev), "%u,%u", blk_dev_major(r->device),
		 blk_dev_minor(r->device));
	put_sep(l, "device", 0);
	put_text(l, dev);
	put_sep(l, "class", 0);
	put_text(l, io_op_name(r->op));
	put_sep(l, "sector", 0);
	fprintf(l->f, "%llu", (unsigned long long)r->sector);
	put_sep(l, "bytes", 0);
	fprintf(l->f, "%u", r->bytes);
	put_us(l, "q2d_us", r->has & ANALYSIS_HAS_Q2D, r->q2d_ns);
	put_us(l, "d2c_us", r->has & ANALYSIS_HAS_D2C, r->d2c_ns);
	put_us(l, "q2c_us", r->has & ANALYSIS_HAS_Q2C, r->q2c_ns);
	put_sep(l, "pid", 0);
	fprintf(l->f, "%u", pid);
	put_sep(l, "comm", 0);
	put_text(l, pid && l->causes ? cause_comm(l->causes, pid) : NULL);
	put_sep(l, "cgroup", 0);
	put_text(l, c && c->cgroup ? cause_cgroup_label(l->causes, c, buf,
							 sizeof(buf)) : NULL);
	put_sep(l, "file", 0);
	put_text(l, c && cause_table_kept(l->causes, CAUSE_PART_FILES) ?
			    cause_file_label(l->causes, c, buf, sizeof(buf)) :
			    NULL);
	put_sep(l, "tag", 0);
	put_text(l, r->tag != IO_EVENT_NO_TAG && l->a ?
			    analysis_tag_label(l->a, r->tag) : NULL);
	put_sep(l, "io", 0);
	fprintf(l->f, "%llu", (unsigned long long)r->io);
	put_fleet(l, r);
	fputs(l->format == EVENTS_JSONL ? "}\n" : "\n", l->f);
	if (ferror(l->f)) {
		l->failed = 1;
		l->write_errno = errno ? errno : EIO;
	}
}

int events_close(struct events_log *l, struct iow_error *err)
{
	int rc = 0;

	if (!l)
		return 0;
	if (fflush(l->f) || ferror(l->f) || l->failed) {
		rc = iow_fail(err, "cannot write %s: %s",
			      l->to_stdout ? "the events to standard output" :
					     l->out.path,
			      strerror(l->write_errno ? l->write_errno :
				       errno ? errno : EIO));
	}
	if (l->to_stdout) {
		free(l);
		return rc;
	}
	/* the stream's descriptor goes; the outfile syncs its name */
	if (fclose(l->f) && !rc)
		rc = iow_fail(err, "cannot write %s: %s", l->out.path,
			      strerror(errno));
	if (rc)
		outfile_abort(&l->out);
	else
		rc = outfile_commit(&l->out, err);
	free(l);
	return rc;
}

void events_abort(struct events_log *l)
{
	if (!l)
		return;
	if (!l->to_stdout) {
		fclose(l->f);
		outfile_abort(&l->out);
	} else {
		fflush(l->f);
	}
	free(l);
}

/* ---- the per-I/O log as an output (base/outkind.h) ---- */

static int events_chosen(const struct options *o)
{
	return o->events_path != NULL;
}

static unsigned events_needs(const struct options *o)
{
	(void)o;
	/* the pid, cgroup and file of each row */
	return OUTPUT_NEEDS_CAUSES | OUTPUT_NEEDS_CAUSE_IDS;
}

static int events_open_row(void **w, const struct options *o, size_t n,
			   struct iow_error *err)
{
	(void)n;
	*w = events_open(o->events_path, err);
	return *w ? 0 : -1;
}

static void events_trace_row(void *w, const struct trace_result *res,
			     const struct cause_table *causes)
{
	events_trace(w, res->label, &res->analysis, causes, &res->facts);
}

static int events_finish(void *w, const struct options *o,
			 struct trace_result *traces, size_t n,
			 struct iow_error *err)
{
	(void)o;
	(void)traces;
	(void)n;
	return events_close(w, err);
}

static void events_abort_row(void *w)
{
	events_abort(w);
}

const struct output_ops events_output = {
	.name = "events",
	.help = "the per-I/O log, one row per I/O, CSV or JSON lines",
	.kind = OUTPUT_NONE,
	.option = "--events FILE",
	.chosen = events_chosen,
	.needs = events_needs,
	.open = events_open_row,
	.trace = events_trace_row,
	.row = events_row,
	.finish = events_finish,
	.abort = events_abort_row,
};
