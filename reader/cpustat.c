/*
 * cpustat.c: reading `mpstat -P ALL 1` text into per-CPU series, an
 * input beside the trace (the graphs, the report and the fuzzers read
 * it; the recorder runs mpstat), line by line through textlines.h. The
 * column header names the columns, so older and newer sysstat versions
 * read alike; times may be 24h or 12h with AM/PM, and may wrap at
 * midnight.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "cpustat.h"
#include "textlines.h"

#define MAX_TOKENS	32
#define MAX_CPUS	8192
#define DAY_S		86400

static const char *const field_names[CPUSTAT_N_FIELDS] = {
	[CPUSTAT_USR] = "usr",		[CPUSTAT_NICE] = "nice",
	[CPUSTAT_SYS] = "sys",		[CPUSTAT_IOWAIT] = "iowait",
	[CPUSTAT_IRQ] = "irq",		[CPUSTAT_SOFT] = "soft",
	[CPUSTAT_STEAL] = "steal",	[CPUSTAT_GUEST] = "guest",
	[CPUSTAT_GNICE] = "gnice",	[CPUSTAT_IDLE] = "idle",
};

struct mpstat_reader {
	const char *path;
	unsigned line_no;
	struct cpustat *out;
	int have_date;
	struct tm date;
	int columns[MAX_TOKENS];	/* field of each value, -1: ignored */
	size_t n_columns;		/* 0 until a header is read */
	int have_first;
	long first_tod, prev_tod;	/* seconds since midnight */
	long days;			/* midnights passed */
};

const char *cpustat_field_name(enum cpustat_field field)
{
	return field < CPUSTAT_N_FIELDS ? field_names[field] : "?";
}

static int fail_at(const struct mpstat_reader *r, struct iow_error *err,
		   const char *what, const char *token)
{
	return iow_fail(err, "%s:%u: %s '%s'", r->path, r->line_no, what,
			token);
}

static size_t split(char *line, char **tok)
{
	size_t n = 0;
	char *save, *t;

	for (t = strtok_r(line, " \t\r\n", &save); t && n < MAX_TOKENS;
	     t = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = t;
	return n;
}

/* "%usr" -> CPUSTAT_USR; the names of sysstat before 8.1 too. */
static int column_field(const char *name)
{
	int f;

	if (name[0] != '%')
		return -1;
	name++;
	if (!strcmp(name, "user"))
		return CPUSTAT_USR;
	if (!strcmp(name, "system"))
		return CPUSTAT_SYS;
	for (f = 0; f < CPUSTAT_N_FIELDS; f++)
		if (!strcmp(name, field_names[f]))
			return f;
	return -1;
}

/* "2026-11-22", "11/22/26" or "11/22/2026" */
static int parse_date(const char *s, struct tm *tm)
{
	int y, m, d, len = 0;

	memset(tm, 0, sizeof(*tm));
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &len) == 3 && !s[len])
		;
	else if (sscanf(s, "%2d/%2d/%4d%n", &m, &d, &y, &len) == 3 && !s[len])
		y += y < 100 ? 2000 : 0;
	else
		return -1;
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return -1;
	tm->tm_year = y - 1900;
	tm->tm_mon = m - 1;
	tm->tm_mday = d;
	return 0;
}

/* "Linux 6.18.44 (host) \t2026-11-22 \t_x86_64_\t(2 CPU)" */
static void read_banner(struct mpstat_reader *r, char **tok, size_t n)
{
	size_t i;

	for (i = 1; i < n && !r->have_date; i++)
		r->have_date = parse_date(tok[i], &r->date) == 0;
}

/* "03:06:55" or "03:06:55 AM": seconds since midnight, tokens used. */
static int parse_time(char **tok, size_t n, long *tod)
{
	int h, m, s, len = 0;

	if (sscanf(tok[0], "%2d:%2d:%2d%n", &h, &m, &s, &len) != 3 ||
	    tok[0][len] || h > 23 || m > 59 || s > 60 || h < 0 || m < 0 ||
	    s < 0)
		return 0;
	if (n > 1 && (!strcmp(tok[1], "AM") || !strcmp(tok[1], "PM"))) {
		if (h < 1 || h > 12)
			return 0;
		h = h % 12 + (tok[1][0] == 'P' ? 12 : 0);
		*tod = h * 3600L + m * 60 + s;
		return 2;
	}
	*tod = h * 3600L + m * 60 + s;
	return 1;
}

/* "CPU %usr %nice ...": which field each later row's value is */
static int read_header(struct mpstat_reader *r, char **tok, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		r->columns[i] = column_field(tok[i]);
		if (r->columns[i] >= 0)
			r->out->fields |= 1u << r->columns[i];
	}
	r->n_columns = n;
	return 0;
}

static int series_push(struct cpustat_series *s,
		       const struct cpustat_sample *sample)
{
	if (s->n == s->cap) {
		struct cpustat_sample *p = vec_grow(s->samples, &s->cap,
						    s->n + 1, sizeof(*p), 64);

		if (!p)
			return -1;
		s->samples = p;
	}
	s->samples[s->n++] = *sample;
	return 0;
}

static struct cpustat_series *series_for(struct cpustat *cs,
					 const char *cpu)
{
	struct cpustat_series *cpus;
	unsigned long n;
	char *end;

	if (!strcmp(cpu, "all"))
		return &cs->all;
	errno = 0;
	n = strtoul(cpu, &end, 10);
	if (*end || end == cpu || errno || n >= MAX_CPUS)
		return NULL;
	if (n >= cs->n_cpus) {
		cpus = realloc(cs->cpus, (n + 1) * sizeof(*cpus));
		if (!cpus)
			return NULL;
		memset(cpus + cs->n_cpus, 0,
		       (n + 1 - cs->n_cpus) * sizeof(*cpus));
		cs->cpus = cpus;
		cs->n_cpus = n + 1;
	}
	return &cs->cpus[n];
}

/* "0.50", or "0,50" from a locale with a decimal comma */
static int parse_pct(char *s, float *pct)
{
	char *comma = strchr(s, ','), *end;
	double v;

	if (comma)
		*comma = '.';
	v = strtod(s, &end);
	if (end == s || *end || v < 0 || v > 100.001)
		return -1;
	*pct = (float)v;
	return 0;
}

static void note_time(struct mpstat_reader *r, long tod)
{
	if (!r->have_first) {
		r->have_first = 1;
		r->first_tod = r->prev_tod = tod;
		if (r->have_date) {
			struct tm tm = r->date;

			tm.tm_sec = (int)tod;	/* mktime normalises */
			tm.tm_isdst = -1;
			r->out->start_time = mktime(&tm);
		}
	}
	if (tod < r->prev_tod)
		r->days++;
	r->prev_tod = tod;
}

static int read_row(struct mpstat_reader *r, long tod, char **tok, size_t n,
		    struct iow_error *err)
{
	struct cpustat_sample sample = { 0 };
	struct cpustat_series *s;
	size_t i;
	int f;

	if (!r->n_columns)
		return fail_at(r, err, "a row before any column header:", tok[0]);
	if (n != r->n_columns)
		return iow_fail(err, "%s:%u: %zu columns, the header has %zu",
				r->path, r->line_no, n, r->n_columns);
	for (i = 1; i < n; i++) {
		f = r->columns[i];
		if (f >= 0 && parse_pct(tok[i], &sample.pct[f]))
			return fail_at(r, err, "not a percentage:", tok[i]);
	}
	s = series_for(r->out, tok[0]);
	if (!s)
		return fail_at(r, err, "not a CPU:", tok[0]);
	note_time(r, tod);
	sample.time_s = (double)(tod - r->first_tod + r->days * DAY_S);
	if (series_push(s, &sample))
		return iow_fail(err, "out of memory");
	return 0;
}

static int read_line(void *ctx, char *line, unsigned line_no,
		     struct iow_error *err)
{
	struct mpstat_reader *r = ctx;
	char *tok[MAX_TOKENS];
	size_t n = split(line, tok), used;
	long tod;

	r->line_no = line_no;
	if (n == 0 || !strcmp(tok[0], "Average:"))
		return 0;
	if (!strcmp(tok[0], "Linux")) {
		read_banner(r, tok, n);
		return 0;
	}
	used = (size_t)parse_time(tok, n, &tod);
	if (!used)
		return fail_at(r, err, "expected a time, got", tok[0]);
	if (used == n)
		return fail_at(r, err, "nothing after the time", tok[0]);
	if (!strcmp(tok[used], "CPU"))
		return read_header(r, tok + used, n - used);
	return read_row(r, tod, tok + used, n - used, err);
}

int cpustat_load(const char *path, struct cpustat *out,
		 struct iow_error *err)
{
	struct mpstat_reader r = { .path = path, .out = out };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = textlines_read(path, read_line, &r, err);
	if (!rc && !r.have_date && !r.n_columns)
		rc = iow_fail(err, "%s: not mpstat output (no banner, no "
			      "column header)", path);
	if (rc)
		cpustat_free(out);
	return rc;
}

void cpustat_free(struct cpustat *cs)
{
	size_t i;

	free(cs->all.samples);
	for (i = 0; i < cs->n_cpus; i++)
		free(cs->cpus[i].samples);
	free(cs->cpus);
	memset(cs, 0, sizeof(*cs));
}
