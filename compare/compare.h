/*
 * compare.h: --compare, "why is run B slower than run A". Each of the two
 * traces' timed I/Os is kept as the analysis counts it (cfg.on_row);
 * then, per paired device and class, the counts, rates, queue depth and
 * latency quantiles of A and B with the difference and a 95% interval
 * from a block bootstrap over time windows (compare_boot.c), the change
 * in latency-seconds split among strata into mix and rate
 * (compare_split.c), and one verdict, as text or JSON (compare_print.c).
 */
#ifndef IOWATCHER_COMPARE_H
#define IOWATCHER_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "base/error.h"
#include "options.h"
#include "trace_result.h"

struct compare_side;

struct compare_side *compare_side_new(void);
void compare_side_free(struct compare_side *side);

/*
 * Trace i's analysis configuration for --compare: its I/Os go to side
 * (and on to whatever cfg->on_row told before), and trace 1 takes the
 * second -x where two were given.
 */
void compare_attach(const struct options *o, size_t i,
		    struct compare_side *side, struct analysis_config *cfg);

/*
 * The comparison of traces[0] (A) and traces[1] (B), to out, and to -o
 * (pictures, or the report of both traces with the comparison in it: it
 * widens their bins as report_render does); -1 with err on input that
 * has nothing to compare (no device in common, no I/O).
 */
int compare_print(FILE *out, const struct options *o,
		  struct trace_result traces[2],
		  struct compare_side *const sides[2], struct iow_error *err);

/*
 * --compare of groups (--vs): traces[0 .. o->vs_at - 1) are A's runs,
 * the rest B's; per paired device and class each run's measures, and of
 * the runs' values B's mean against A's with Welch's interval (the
 * run-to-run variation), Benjamini-Hochberg across the table, as text
 * or JSON (compare_groups.c).
 */
int compare_groups_print(FILE *out, const struct options *o,
			 struct trace_result *traces, size_t n,
			 struct compare_side *const *sides,
			 struct iow_error *err);

/* The comparison, a row of the outputs' table. */
extern const struct output_ops compare_output;

#endif
