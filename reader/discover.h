/*
 * discover.h: what -t names, as traces to read. A trace is one of
 * blktrace's per-CPU sets (NAME.blktrace.N, merged by the front door,
 * blkparse_feed.c), or one file the reader tells by its first bytes: a
 * blkparse -d dump, trace-cmd's trace.dat or perf script's text of the
 * block tracepoints (read as the records they stand for: blocktp.h), or
 * standard input; any of these files may be compressed (gzip, xz, zstd:
 * bytesrc.h). The input kinds are one table (input_kinds), which
 * --help, a directory's search and the reader read.
 */
#ifndef IOWATCHER_READER_DISCOVER_H
#define IOWATCHER_READER_DISCOVER_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "blocktp.h"

/* One kind of input the reader reads: a row of input_kinds. */
struct input_kind {
	const char *name;	/* "trace.dat": --help's and messages' word */
	const char *what;	/* "trace-cmd's trace.dat" */
	const char *help;	/* how to make one, for --help */
	/* a file of tracepoints, read as records (NULL: records as they
	 * are); chosen by its looks at the data's first bytes */
	const struct blocktp_input *tracepoints;
};

extern const struct input_kind input_kinds[];
/* The rows by what they are: input_kinds[INPUT_...]. */
enum input_row {
	INPUT_PERCPU,
	INPUT_DUMP,
	INPUT_TRACEDAT,
	INPUT_PERFTEXT,
	INPUT_STDIN,
};

/* The input of tracepoints whose data starts with p[0, len), or NULL
 * (blktrace's records, or not a trace). */
const struct blocktp_input *input_tracepoints(const unsigned char *p,
					      size_t len);

/* The input kinds for --help: a title and a line each. */
void input_print_help(FILE *f);

enum trace_kind {
	TRACE_PERCPU,	/* NAME.blktrace.0 .. N (each maybe .gz, .xz, .zst) */
	TRACE_DUMP,	/* one file: a dump, a trace.dat or perf text */
	TRACE_STDIN,	/* a stream on standard input */
};

struct trace_source {
	enum trace_kind kind;
	char *name;	/* what the user would call it: base name, file, "-" */
	char *label;	/* default label: the base name without directories */
	char **paths;	/* the files, CPU order for a per-CPU set */
	size_t n_paths;
	/* what it was found to be (a directory's files are looked at);
	 * NULL for a file named by -t, told when it is read */
	const struct input_kind *input;
};

struct trace_list {
	struct trace_source *items;
	size_t n;
};

/*
 * Resolve a -t argument into traces and append them to list: a base name
 * or one file of a per-CPU set, a file of another kind, a directory
 * (every trace inside, of every kind: each its own trace), or "-" for
 * stdin.
 */
int feed_find_traces(const char *arg, struct trace_list *list,
		     struct iow_error *err);
/*
 * What a directory's search found, the list's items from first on, in
 * one line into buf ("DIR: 2 traces: sda (blktrace's per-CPU files, 4
 * CPUs), run.dat (trace-cmd's trace.dat)"); 0 when arg is not a
 * directory.
 */
int trace_list_found(const struct trace_list *list, size_t first,
		     const char *arg, char *buf, size_t size);
void trace_list_free(struct trace_list *list);

#endif
