/*
 * summary.h: --summary output, a readable table or JSON, from the
 * analyses of every trace.
 */
#ifndef IOWATCHER_SUMMARY_H
#define IOWATCHER_SUMMARY_H

#include <stdio.h>

#include "trace_result.h"

/*
 * The latency histograms' scheme, as the document's "histogram" names it:
 * log-linear (histogram.h) at LAT_SUM_BITS over values below
 * 2^LAT_SUM_MAX_BITS ns. A new scheme or bucket layout is a new version;
 * merging refuses summaries of another (merge.c).
 */
#define SUMMARY_HIST_SCHEME	"log-linear"
#define SUMMARY_HIST_VERSION	1

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
/* One device's figures as in the JSON summary, without the braces of
 * its object (a line of another document starts them). */
void summary_json_device_fields(FILE *out, const struct analysis *a,
				const struct device_stats *d);

/* The summary, a row of the outputs' table. */
extern const struct output_ops summary_output;

#endif
