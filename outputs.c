/* outputs.c: the table of outputs (outputs.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "compare/compare.h"
#include "graphs/graphs.h"
#include "movie/movie.h"
#include "output/csv.h"
#include "output/devlog.h"
#include "output/events.h"
#include "output/pftrace.h"
#include "output/summary.h"
#include "outputs.h"
#include "report/report.h"

/*
 * In the order they are written at the end: the files first, then what
 * goes to standard output (the comparison, then the summary), last.
 */
const struct output_ops *const output_table[] = {
	&picture_output, &movie_output, &report_output, &csv_output,
	&events_output, &perfetto_output, &devlog_output, &compare_output,
	&summary_output,
};
const size_t output_table_len =
	sizeof(output_table) / sizeof(output_table[0]);

int output_type_of(const char *path, struct output_type *t,
		   struct iow_error *err)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	char list[768];
	size_t i, k, used = 0, n_named = 0;

	for (i = 0; dot && i < output_table_len; i++) {
		const struct output_ops *ops = output_table[i];

		for (k = 0; k < OUTPUT_MAX_EXTS && ops->exts[k].ext; k++)
			if (!strcasecmp(dot, ops->exts[k].ext)) {
				memset(t, 0, sizeof(*t));
				t->kind = ops->kind;
				t->picture = (enum plot_format)ops->exts[k].format;
				t->movie = (enum movie_container)ops->exts[k].format;
				t->ops = ops;
				return 0;
			}
	}
	memset(t, 0, sizeof(*t));
	for (i = 0; i < output_table_len; i++)
		n_named += output_table[i]->exts[0].ext != NULL;
	list[0] = '\0';
	for (i = 0, k = 0; i < output_table_len && used < sizeof(list); i++) {
		const struct output_ops *ops = output_table[i];

		if (!ops->exts[0].ext)
			continue;
		k++;
		used += (size_t)snprintf(list + used, sizeof(list) - used,
					 "%s%s for %s",
					 k == 1 ? "" : k == n_named ? ", or " : ", ",
					 output_extensions(ops->kind), ops->noun);
	}
	return iow_fail(err, "%s: unknown output format (the name must end in %s)",
			path ? path : "(null)", list);
}

const char *output_extensions(enum output_kind k)
{
	static char text[OUTPUT_OTHER + 1][128];
	const struct output_ops *ops = NULL;
	size_t i, n = 0, used = 0;

	if ((unsigned)k > OUTPUT_OTHER)
		return "";
	for (i = 0; i < output_table_len && !ops; i++)
		if (output_table[i]->kind == k && output_table[i]->exts[0].ext)
			ops = output_table[i];
	if (!ops || text[k][0])
		return ops ? text[k] : "";
	while (n < OUTPUT_MAX_EXTS && ops->exts[n].ext)
		n++;
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(text[k] + used, sizeof(text[k]) - used,
					 "%s%s",
					 !i ? "" : i + 1 == n ? " or " : ", ",
					 ops->exts[i].ext);
	return text[k];
}

void outputs_print_help(FILE *f)
{
	size_t i, k;

	fprintf(f, "Outputs (chosen by -o's extension or their option)\n");
	for (i = 0; i < output_table_len; i++) {
		const struct output_ops *ops = output_table[i];
		char how[128];
		size_t used = 0;

		how[0] = '\0';
		for (k = 0; k < OUTPUT_MAX_EXTS && ops->exts[k].ext; k++)
			used += (size_t)snprintf(how + used, sizeof(how) - used,
						 "%s%s", k ? "|" : "-o NAME.",
						 ops->exts[k].ext + 1);
		if (ops->option)
			snprintf(how + used, sizeof(how) - used, "%s%s",
				 used ? ", " : "", ops->option);
		fprintf(f, "  %-16s %s (%s)\n", ops->name, ops->help, how);
	}
}

unsigned outputs_needs(const struct options *o)
{
	unsigned needs = 0;
	size_t i;

	for (i = 0; i < output_table_len; i++)
		if (output_table[i]->needs && output_table[i]->chosen(o))
			needs |= output_table[i]->needs(o);
	/* -O io-flame, whatever draws it */
	if (graphs_needs(o) & GRAPH_NEEDS_STACKS)
		needs |= OUTPUT_NEEDS_CAUSES | OUTPUT_NEEDS_STACKS;
	return needs;
}

int outputs_open(struct outputs *outs, const struct options *o, size_t n,
		 struct iow_error *err)
{
	size_t i;

	outs->needs = outputs_needs(o);
	for (i = 0; i < output_table_len; i++) {
		const struct output_ops *ops = output_table[i];
		struct chosen_output *c = &outs->items[outs->n];

		if (!ops->chosen(o))
			continue;
		c->ops = ops;
		c->w = NULL;
		outs->n++;
		if (ops->open && ops->open(&c->w, o, n, err) < 0)
			return -1;
		if (ops->row)
			outs->rows[outs->n_rows++] = *c;
	}
	return 0;
}

static void outputs_to_rows(void *ctx, const struct analysis_row *r)
{
	const struct outputs *outs = ctx;
	size_t i;

	for (i = 0; i < outs->n_rows; i++)
		outs->rows[i].ops->row(outs->rows[i].w, r);
}

int outputs_prepare(struct outputs *outs, const struct options *o, size_t i,
		    struct trace_result *res, struct analysis_config *cfg,
		    struct iow_error *err)
{
	size_t k;

	if (outs->n_rows) {
		cfg->on_row = outputs_to_rows;
		cfg->row_ctx = outs;
	}
	for (k = 0; k < outs->n; k++)
		if (outs->items[k].ops->prepare &&
		    outs->items[k].ops->prepare(outs->items[k].w, o, i, res,
						cfg, err) < 0)
			return -1;
	return 0;
}

void outputs_trace(struct outputs *outs, const struct trace_result *res,
		   const struct cause_table *causes)
{
	size_t k;

	for (k = 0; k < outs->n; k++)
		if (outs->items[k].ops->trace)
			outs->items[k].ops->trace(outs->items[k].w, res,
						  causes);
}

int outputs_finish(struct outputs *outs, const struct options *o,
		   struct trace_result *traces, size_t n,
		   struct iow_error *err)
{
	size_t k;

	for (k = 0; k < outs->n; k++) {
		struct chosen_output *c = &outs->items[k];
		void *w = c->w;

		if (iow_interrupted)
			return -1;
		/* finish frees it, written or not */
		c->w = NULL;
		if (c->ops->finish(w, o, traces, n, err) < 0)
			return -1;
	}
	return 0;
}

void outputs_free_trace(const struct outputs *outs, struct trace_result *res)
{
	size_t k;

	for (k = 0; k < outs->n; k++)
		if (outs->items[k].ops->free_trace)
			outs->items[k].ops->free_trace(res);
}

void outputs_abort(struct outputs *outs)
{
	size_t k;

	for (k = 0; k < outs->n; k++)
		if (outs->items[k].ops->abort && outs->items[k].w)
			outs->items[k].ops->abort(outs->items[k].w);
	outs->n = outs->n_rows = 0;
}
