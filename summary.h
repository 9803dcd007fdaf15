/*
 * summary.h: --summary output, a readable table or JSON, from the
 * analyses of every trace.
 */
#ifndef IOWATCHER_SUMMARY_H
#define IOWATCHER_SUMMARY_H

#include <stdio.h>

#include "analysis.h"

struct trace_result {
	const char *label;
	const char *source;
	const char *recorder;	/* "blktrace" or "ftrace" when recorded */
	struct analysis analysis;
};

void summary_print_text(FILE *out, const struct trace_result *traces,
			size_t n);
void summary_print_json(FILE *out, const struct trace_result *traces,
			size_t n);

#endif
