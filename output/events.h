/*
 * events.h: the per-I/O log (--events FILE): one row per bio the
 * latencies count, and one per completion that timed none, in the order
 * of completion, as the analysis tells them (analysis_row), with who and
 * what caused each (cause.h): for scripts, pandas and DuckDB. A .csv
 * file (a header, then rows; an empty field where a value is unknown),
 * a .jsonl file (an object a line; null where unknown), or - for CSV on
 * standard output. Streamed: constant memory whatever the trace's length.
 */
#ifndef IOWATCHER_EVENTS_H
#define IOWATCHER_EVENTS_H

#include "analysis/analysis.h"
#include "reader/recnote.h"
#include "tag/cause.h"
#include "base/error.h"

struct events_log;

/* NULL with err: a name that is neither .csv nor .jsonl, or no file. */
struct events_log *events_open(const char *path, struct iow_error *err);
/* The rows that follow are of this trace (a label; the analysis names
 * tags, the table causes, the facts host, devices and the wall clock,
 * filled as the trace is read; all outlive the trace's rows). */
void events_trace(struct events_log *l, const char *label,
		  const struct analysis *a, const struct cause_table *causes,
		  const struct trace_facts *facts);
/* analysis_config.on_row, with the log as ctx. */
void events_row(void *ctx, const struct analysis_row *r);
/* Puts the file in place (whole, or nothing on failure); frees l. */
int events_close(struct events_log *l, struct iow_error *err);
/* Frees l, leaving no file. */
void events_abort(struct events_log *l);

/* The per-I/O log, a row of the outputs' table. */
extern const struct output_ops events_output;

#endif
