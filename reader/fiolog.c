/*
 * fiolog.c: reading fio's bandwidth (and iops, latency) logs. fio 3.33
 * writes "msec, value, ddir, bs, offset" and, with log_prio=1, a sixth
 * field in hex ("0x0000"); later versions may add more. Only the first
 * four are read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "fiolog.h"
#include "textlines.h"

#define MIN_FIELDS	3	/* msec, value, ddir */
#define USED_FIELDS	4	/* and bs */

/* A field of digits between commas and blanks; -1 if not. */
static int parse_field(char *s, uint64_t *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	return *end || errno ? -1 : 0;
}

/*
 * Splits at commas into v[USED_FIELDS]; returns the number of fields or
 * -1 if a used one is not a number. Later fields (offset, and the prio
 * log_prio=1 writes in hex) are only counted.
 */
static int parse_fields(char *line, uint64_t *v)
{
	char *f;
	int n = 0;

	/* strsep, not strtok: "1000,,1" has an empty field, not two */
	while ((f = strsep(&line, ","))) {
		if (n < USED_FIELDS && parse_field(f, &v[n]))
			return -1;
		n++;
	}
	return n;
}

static int blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

static int push(struct fiolog *log, const struct fiolog_sample *s)
{
	if (log->n == log->cap) {
		struct fiolog_sample *p = vec_grow(log->samples, &log->cap,
						   log->n + 1, sizeof(*p), 256);

		if (!p)
			return -1;
		log->samples = p;
	}
	log->samples[log->n++] = *s;
	return 0;
}

/* Where a log is read: its samples, and its name for messages. */
struct fiolog_reader {
	struct fiolog *log;
	const char *path;
};

static int read_line(void *ctx, char *line, unsigned line_no,
		     struct iow_error *err)
{
	const struct fiolog_reader *r = ctx;
	const char *path = r->path;
	uint64_t v[USED_FIELDS] = { 0 };
	struct fiolog_sample s;
	char shown[64];
	int n;

	if (blank(line))
		return 0;
	snprintf(shown, sizeof(shown), "%.*s", (int)strcspn(line, "\r\n"),
		 line);
	n = parse_fields(line, v);
	if (n < MIN_FIELDS)
		return iow_fail(err, "%s:%u: expected 'msec, value, ddir, "
				"bs, ...', got '%s'", path, line_no, shown);
	if (v[2] > FIOLOG_TRIM)
		return iow_fail(err, "%s:%u: data direction %llu is not 0 "
				"(read), 1 (write) or 2 (trim)", path, line_no,
				(unsigned long long)v[2]);
	s.time_s = (double)v[0] / 1000.0;
	s.value = v[1];
	s.dir = (enum fiolog_dir)v[2];
	s.bs = (uint32_t)v[3];
	if (push(r->log, &s))
		return iow_fail(err, "out of memory");
	return 0;
}

int fiolog_load(const char *path, struct fiolog *out,
		struct iow_error *err)
{
	struct fiolog_reader r = { out, path };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = textlines_read(path, read_line, &r, err);
	if (rc)
		fiolog_free(out);
	return rc;
}

void fiolog_free(struct fiolog *log)
{
	free(log->samples);
	memset(log, 0, sizeof(*log));
}

int fio_input_load(const char *arg, struct fio_input *in,
		   struct iow_error *err)
{
	char *at, *end;

	in->path = strdup(arg);
	if (!in->path)
		return iow_fail(err, "out of memory");
	at = strrchr(in->path, '@');
	if (at && at[1]) {
		double off = strtod(at + 1, &end);

		if (*end == '\0' && isfinite(off) && off >= 0) {
			*at = '\0';
			in->offset_s = off;
		}
	}
	return fiolog_load(in->path, &in->log, err);
}

void fio_input_free(struct fio_input *in)
{
	fiolog_free(&in->log);
	free(in->path);
	in->path = NULL;
}
