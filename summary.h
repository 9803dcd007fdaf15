/*
 * summary.h: --summary output, a readable table or JSON, from the
 * analyses of every trace.
 */
#ifndef IOWATCHER_SUMMARY_H
#define IOWATCHER_SUMMARY_H

#include <stdio.h>

#include "analysis.h"
#include "cpustat.h"
#include "fiolog.h"
#include "latpoints.h"

/* A fio log given with -F, drawn beside the traces. */
struct fio_input {
	char *path;
	double offset_s;	/* -F FILE@SECONDS: when the job started */
	struct fiolog log;
};

struct cause_table;

struct trace_result {
	const char *label;
	const char *source;
	/* who and what caused its I/O (cause.h), where anything asked */
	struct cause_table *causes;
	const char *recorder;	/* "blktrace" or "ftrace" when recorded */
	/* what the tags' names are, where the causes say ("cgroups of the
	 * io controller's v1 blkio hierarchy at ..."), or "" */
	char tags_source[300];
	struct analysis analysis;
	struct cpustat *cpu;	/* NAME.mpstat beside the trace, or NULL */
	struct fio_input *fio;	/* -F logs (on the first trace), n_fio */
	size_t n_fio;
	/* each I/O's D2C, when the latency scatter is drawn; else NULL */
	struct latency_points *points;
	/* the I/O map at a report's detail, for a report; else NULL */
	struct zoommap *zoom;
};

/*
 * The table: per trace, its devices (latency a row per class), then its
 * tags, most bytes first (analysis_rank_tags),
 * top_tags of them by name and the others in one line.
 */
void summary_print_text(FILE *out, const struct trace_result *traces,
			size_t n, size_t top_tags);
/* The document, every tag in it; one_line: no newline but the last (a
 * line of a JSON-lines stream). */
void summary_print_json(FILE *out, const struct trace_result *traces,
			size_t n, int one_line);
/* --summary=stacks: bytes per device, kernel stack and process. */
void summary_print_stacks(FILE *out, const struct trace_result *traces,
			  size_t n);

#endif
