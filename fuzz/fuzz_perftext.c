/*
 * fuzz_perftext.c: the text perf script prints for the block tracepoints
 * (reader/perftext.c), through the analysis to every output a run of
 * iowatcher -t X.perf.txt --summary=json --events X.jsonl -o X.pftrace
 * writes, and one input in four (by its length) the HTML report too.
 * The input is the text. A run that fails gives one line; one that
 * succeeds must hold fuzz_props.h's properties (valid JSON, no
 * impossible numbers) in its summary, events log and report (its
 * document, its summary the same, the arrays of its binary block), and
 * its Perfetto trace must be written whole. Seeds: fuzz/seeds/perftext (slices of
 * samples/perf-fio.perf.txt.xz and issue #40's reproducers,
 * fuzz/make-seeds.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "blkparse_feed.h"
#include "output/events.h"
#include "output/pftrace.h"
#include "options.h"
#include "outputs.h"
#include "report/report.h"
#include "fuzz_common.h"
#include "fuzz_props.h"

struct fz_sinks {
	struct events_log *log;
	struct pftrace *pf;
};

static void fz_rows(void *ctx, const struct analysis_row *r)
{
	struct fz_sinks *s = ctx;

	events_row(s->log, r);
	pftrace_row(s->pf, r);
}

static int fz_read(const struct trace_source *src, struct analysis *a,
		   struct iow_error *err)
{
	struct io_event ev[32];
	struct feed *f = feed_open(src, err);
	long n, i;
	int r = 0;

	if (!f)
		return -1;
	while (r == 0 && (n = feed_next_batch(f, ev, 32, 65536, err)) != 0) {
		if (n < 0)
			r = -1;
		for (i = 0; i < n && r == 0; i++)
			r = analysis_add(a, &ev[i], err);
	}
	feed_close(f);
	analysis_finish(a);
	if (r == 0)
		r = analysis_check_loss(a, src->name, err);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_list list = { NULL, 0 };
	struct analysis_config cfg = { 0 };
	struct trace_facts facts;
	struct trace_result res;
	struct fz_sinks s;
	struct iow_error err = { "" };
	char path[512], log_path[512], pf_path[512], html_path[512];
	struct options o;
	int html = size % 4 == 0, r;

	fuzz_write_file("x.perf.txt", data, size, path, sizeof(path));
	snprintf(log_path, sizeof(log_path), "%s/x.jsonl", fuzz_scratch());
	snprintf(pf_path, sizeof(pf_path), "%s/x.pftrace", fuzz_scratch());
	snprintf(html_path, sizeof(html_path), "%s/x.html", fuzz_scratch());
	unlink(log_path);
	unlink(pf_path);
	unlink(html_path);
	memset(&o, 0, sizeof(o));
	o.graph_width = 240;
	o.graph_height = 120;
	o.latency_dirs = 3;
	o.output = html_path;
	if (output_type_of(html_path, &o.output_type, &err) < 0)
		abort();
	if (feed_find_traces(path, &list, &err) < 0) {
		fuzz_check_error(&err, "feed_find_traces");
		trace_list_free(&list);
		return 0;
	}
	memset(&facts, 0, sizeof(facts));
	memset(&res, 0, sizeof(res));
	s.log = events_open(log_path, &err);
	s.pf = s.log ? pftrace_open(pf_path, &err) : NULL;
	if (!s.pf)
		abort();
	cfg.on_row = fz_rows;
	cfg.row_ctx = &s;
	res.label = list.items[0].label;
	res.source = list.items[0].name;
	if (html && report_prepare(&o, &res, &cfg, &err) < 0)
		abort();
	o.analysis = cfg;
	if (analysis_init(&res.analysis, &cfg, &err) < 0)
		abort();
	events_trace(s.log, res.label, &res.analysis, NULL, &facts);
	pftrace_trace(s.pf, res.label, &res.analysis, NULL, &facts);
	r = fz_read(&list.items[0], &res.analysis, &err);
	if (r < 0) {
		fuzz_check_error(&err, "reading");
		events_abort(s.log);
		pftrace_abort(s.pf);
	} else {
		fuzz_props_summary(&res, 1);
		if (events_close(s.log, &err) < 0)
			fuzz_check_error(&err, "events_close");
		else
			fuzz_props_events(log_path,
					  analysis_duration_s(&res.analysis));
		if (pftrace_close(s.pf, &err) < 0)
			fuzz_check_error(&err, "pftrace_close");
		else if (access(pf_path, F_OK) < 0)
			fuzz_props_fail("the Perfetto trace is written", NULL);
		if (html && report_render(&o, &res, 1, &err) < 0)
			fuzz_check_error(&err, "report_render");
		else if (html && access(html_path, F_OK) < 0)
			fuzz_props_fail("the report is written", NULL);
		else if (html)
			fuzz_props_report(html_path, &res, 1);
	}
	if (html)
		report_trace_free(&res);
	fuzz_check_no_tmp("outputs");
	analysis_free(&res.analysis);
	trace_list_free(&list);
	return 0;
}
