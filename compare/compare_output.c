/*
 * compare_output.c: --compare as a row of the outputs' table
 * (base/outkind.h): each trace's side kept as it is read (two traces, or
 * --vs's groups of runs), then the comparison of two (compare.c) or of
 * the groups (compare_groups.c) printed, with -o's picture or page.
 */
#include <stdio.h>
#include <stdlib.h>

#include "compare.h"
#include "options.h"
#include "report/report.h"

static int compare_chosen(const struct options *o)
{
	return o->compare != 0;
}

static unsigned compare_needs(const struct options *o)
{
	(void)o;
	/* each I/O's pid and cgroup, kept with it */
	return OUTPUT_NEEDS_CAUSES | OUTPUT_NEEDS_CAUSE_IDS;
}

/* --compare's state: each trace's side (two, or --vs's groups). */
struct compare_sides {
	struct compare_side **side;
	size_t n;
};

/* The two traces found (a directory may hold more), or --vs's runs, each
 * side kept. */
static int compare_open(void **w, const struct options *o, size_t n,
			struct iow_error *err)
{
	struct compare_sides *cs;
	size_t i;

	if (o->vs_at && n != o->n_trace_args)
		return iow_fail(err, "--compare of groups: the %zu -t given found %zu traces (a directory holding several?): name each run's trace",
				o->n_trace_args, n);
	if (!o->vs_at && n != 2)
		return iow_fail(err, "--compare compares two traces: -t A -t B found %zu",
				n);
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return iow_fail(err, "out of memory");
	*w = cs;
	cs->side = calloc(n, sizeof(*cs->side));
	if (!cs->side)
		return iow_fail(err, "out of memory");
	for (i = 0; i < n; i++) {
		cs->side[i] = compare_side_new();
		if (!cs->side[i])
			return iow_fail(err, "out of memory");
		cs->n = i + 1;
	}
	return 0;
}

static int compare_prepare(void *w, const struct options *o, size_t i,
			   struct trace_result *res,
			   struct analysis_config *cfg, struct iow_error *err)
{
	struct compare_sides *cs = w;

	compare_attach(o, i, cs->side[i], cfg);
	/* the report of both traces, with the comparison in it */
	return report_prepare(o, res, cfg, err);
}

static void compare_abort(void *w)
{
	struct compare_sides *cs = w;

	if (!cs)
		return;
	while (cs->n)
		compare_side_free(cs->side[--cs->n]);
	free(cs->side);
	free(cs);
}

static int compare_finish(void *w, const struct options *o,
			  struct trace_result *traces, size_t n,
			  struct iow_error *err)
{
	struct compare_sides *cs = w;
	int r;

	if (o->vs_at)
		r = compare_groups_print(stdout, o, traces, n, cs->side, err);
	else
		r = compare_print(stdout, o, traces, cs->side, err);
	compare_abort(w);
	return r;
}

const struct output_ops compare_output = {
	.name = "compare",
	.help = "why the second trace is slower or faster, on standard output (and -o's picture or page)",
	.kind = OUTPUT_NONE,
	.option = "--compare",
	.chosen = compare_chosen,
	.needs = compare_needs,
	.open = compare_open,
	.prepare = compare_prepare,
	.finish = compare_finish,
	.free_trace = report_trace_free,
	.abort = compare_abort,
};
