/*
 * csv.h: --csv DIR, one CSV file per selected graph with exactly the
 * series it draws, for gnuplot, pandas or a spreadsheet.
 */
#ifndef IOWATCHER_CSV_H
#define IOWATCHER_CSV_H

#include <stdio.h>

#include "base/error.h"
#include "graphs/graphs.h"
#include "options.h"
#include "summary.h"

int csv_export(const struct options *o, const struct trace_result *traces,
	       size_t n, struct iow_error *err);

/* The CSV files, a row of the outputs' table. */
extern const struct output_ops csv_output;

#endif
