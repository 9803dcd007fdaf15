/*
 * outputs.h: the table of what a run can write, one row (struct
 * output_ops, base/outkind.h) per output, each defined in the file that
 * writes it. The pipeline (iowatcher.c) loops over the rows a run
 * chose; --help, the man page's check and -o's messages read them.
 */
#ifndef IOWATCHER_OUTPUTS_H
#define IOWATCHER_OUTPUTS_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "base/outkind.h"
#include "options.h"
#include "trace_result.h"

/* At most this many rows. */
#define OUTPUTS_MAX	16

extern const struct output_ops *const output_table[];
extern const size_t output_table_len;

/*
 * What path names, by its extension (case-insensitive): 0, or -1 when
 * no row takes it (t->kind is then OUTPUT_NONE and err names every
 * row's extensions).
 */
int output_type_of(const char *path, struct output_type *t,
		   struct iow_error *err);
/* The extensions of kind k's row, for messages: ".svg, .png or .pdf". */
const char *output_extensions(enum output_kind k);
/* --help's list of the outputs. */
void outputs_print_help(FILE *f);
/* What the chosen outputs ask of the tag stage (OUTPUT_NEEDS_*), and
 * the graphs -O names (io-flame draws the stacks). */
unsigned outputs_needs(const struct options *o);

/* The outputs a run writes, in the table's order, each with its state;
 * rows: those of them that take the analysis's rows. */
struct chosen_output {
	const struct output_ops *ops;
	void *w;
};

struct outputs {
	struct chosen_output items[OUTPUTS_MAX];
	size_t n;
	struct chosen_output rows[OUTPUTS_MAX];
	size_t n_rows;
	unsigned needs;		/* OUTPUT_NEEDS_* of them all */
};

/* The rows o chooses, each opened, for n traces (outs zeroed before);
 * -1 with err, outs then to be aborted. */
int outputs_open(struct outputs *outs, const struct options *o, size_t n,
		 struct iow_error *err);
/* Trace i's analysis configuration, as each output asks (its rows to
 * those that take them, first). */
int outputs_prepare(struct outputs *outs, const struct options *o, size_t i,
		    struct trace_result *res, struct analysis_config *cfg,
		    struct iow_error *err);
/* The rows that follow are of res (its causes: the tag stage's). */
void outputs_trace(struct outputs *outs, const struct trace_result *res,
		   const struct cause_table *causes);
/* Every output written, in turn; an interrupt stops them (what was not
 * written is then aborted: no file). */
int outputs_finish(struct outputs *outs, const struct options *o,
		   struct trace_result *traces, size_t n,
		   struct iow_error *err);
/* What the outputs kept in res. */
void outputs_free_trace(const struct outputs *outs, struct trace_result *res);
/* Those not finished freed, leaving no file. */
void outputs_abort(struct outputs *outs);

#endif
