/*
 * merge.h: --merge-summaries, the summaries of many traces (of many
 * hosts, say) as one, exactly: their --summary=json documents read back,
 * counts and sums added and the latency histograms added bucket by bucket,
 * so the merged percentiles are those of all the I/O read in one pass.
 */
#ifndef IOWATCHER_MERGE_H
#define IOWATCHER_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

/*
 * Reads the summaries at paths (every trace of each) and prints their
 * merge to out, as --summary=json (json) or the --summary table (naming
 * top_tags tags). -1 with err saying which file and what was wrong (not
 * a summary, another histogram scheme, no histograms), nothing printed.
 */
int summary_merge(FILE *out, const char *const *paths, size_t n, int json,
		  size_t top_tags, struct iow_error *err);
/*
 * The same, saying how the traces ran: concurrent (side by side, as hosts
 * at once: the merge spans the longest, each device its longest span, so
 * rates and depths add) or not (one after another: durations add).
 */
int summary_merge_as(FILE *out, const char *const *paths, size_t n,
		     int concurrent, int json, size_t top_tags,
		     struct iow_error *err);

#endif
