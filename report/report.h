/*
 * report.h: -o NAME.html, the report: one self-contained page showing
 * every graph of the picture, zoomable from the whole run to the finest
 * bins the analysis kept, with the summary's table above it.
 */
#ifndef IOWATCHER_REPORT_H
#define IOWATCHER_REPORT_H

#include "base/error.h"
#include "options.h"
#include "trace_result.h"

/*
 * Before a trace is analysed for a report: its analysis config gets the
 * report's fine bins, and res->zoom the I/O map at the report's detail,
 * fed by the analysis. 0, or -1 with err.
 */
int report_prepare(const struct options *o, struct trace_result *res,
		   struct analysis_config *cfg, struct iow_error *err);
/*
 * Writes o->output. It widens every trace's bins, step by step, to the
 * pictures' own: after it, the analyses are as a picture leaves them.
 */
int report_render(const struct options *o, struct trace_result *traces,
		  size_t n, struct iow_error *err);
/*
 * What a stage above the report adds to it (--compare's answer): html,
 * a fragment written into the page as it is (readable without script;
 * the page's script puts it under the header and wires what it marks:
 * an element with data-x0/data-x1 zooms every panel to that time, one
 * with data-devs (devices "8,0 8,16") and data-lo/data-hi (MiB) shows
 * that band of those devices' I/O maps).
 */
struct report_section {
	const char *html;
};

/* report_render with a section (NULL: none). */
int report_render_with(const struct options *o, struct trace_result *traces,
		       size_t n, const struct report_section *section,
		       struct iow_error *err);
void report_trace_free(struct trace_result *res);

/* The report, a row of the outputs' table. */
extern const struct output_ops report_output;

#endif
