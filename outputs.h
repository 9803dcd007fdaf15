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

#endif
