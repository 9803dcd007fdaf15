/*
 * picture.c: the picture as an output (base/outkind.h): -o NAME.svg,
 * .png or .pdf, every graph -O and -N leave, drawn by graph_draw.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/latpoints.h"
#include "graphs.h"

static int picture_chosen(const struct options *o)
{
	/* --compare draws its own pictures */
	return o->output && o->output_type.kind == OUTPUT_PICTURE &&
	       !o->compare;
}

/* The scatter's points, every D2C as it is counted. */
static int picture_prepare(void *w, const struct options *o, size_t i,
			   struct trace_result *res,
			   struct analysis_config *cfg, struct iow_error *err)
{
	(void)w;
	(void)i;
	if (!graphs_want_points(o))
		return 0;
	res->points = calloc(1, sizeof(*res->points));
	if (!res->points)
		return iow_fail(err, "out of memory");
	cfg->on_sample = latency_points_sample;
	cfg->sample_ctx = res->points;
	return 0;
}

static int picture_finish(void *w, const struct options *o,
			  struct trace_result *traces, size_t n,
			  struct iow_error *err)
{
	/* a picture the user did not name is never replaced unsaid */
	int replacing = o->output == o->default_output &&
			access(o->output, F_OK) == 0;

	(void)w;
	if (graphs_render(o, traces, n, err) < 0)
		return -1;
	if (replacing)
		fprintf(stderr, "iowatcher: %s replaced: an earlier run had drawn it (-o FILE names the picture)\n",
			o->output);
	return 0;
}

static void picture_free_trace(struct trace_result *res)
{
	latency_points_free(res->points);
	free(res->points);
	res->points = NULL;
}

const struct output_ops picture_output = {
	.name = "picture",
	.help = "the graphs, one panel each (the default: NAME.svg)",
	.kind = OUTPUT_PICTURE,
	.noun = "a picture",
	.exts = { { ".svg", PLOT_SVG }, { ".png", PLOT_PNG },
		  { ".pdf", PLOT_PDF } },
	.chosen = picture_chosen,
	.prepare = picture_prepare,
	.finish = picture_finish,
	.free_trace = picture_free_trace,
};
