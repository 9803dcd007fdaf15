/*
 * trace_result.h: what one trace came to, read and analysed: its label
 * and source, its analysis, and what was read beside it (causes, mpstat,
 * fio logs) or kept for a picture (latency points, the report's I/O map).
 * The pipeline's stages after the analysis (graphs, summary, CSV, the
 * report, a movie, a comparison) all read it.
 */
#ifndef IOWATCHER_TRACE_RESULT_H
#define IOWATCHER_TRACE_RESULT_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "reader/fiolog.h"
#include "reader/recnote.h"

struct cause_table;
struct cpustat;
struct latency_points;
struct zoommap;

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
	/* where and when it was recorded, as far as the trace says */
	struct trace_facts facts;
	struct cpustat *cpu;	/* NAME.mpstat beside the trace, or NULL */
	struct fio_input *fio;	/* -F logs (on the first trace), n_fio */
	size_t n_fio;
	/* each I/O's D2C, when the latency scatter is drawn; else NULL */
	struct latency_points *points;
	/* the I/O map at a report's detail, for a report; else NULL */
	struct zoommap *zoom;
};

#endif
