/*
 * textlines.h: a text file read line by line, for the readers of the
 * texts beside a trace (mpstat's output: cpustat.c; fio's logs:
 * fiolog.c): each line to the caller's parser with its number, errors
 * of opening and reading said with the file's name.
 */
#ifndef IOWATCHER_READER_TEXTLINES_H
#define IOWATCHER_READER_TEXTLINES_H

#include "base/error.h"

/*
 * A line of the file (its newline kept, NUL-terminated; the parser may
 * change it) and its number from 1: 0 to go on, -1 (err set) to stop.
 */
typedef int (*textline_fn)(void *ctx, char *line, unsigned line_no,
			   struct iow_error *err);

/*
 * Each line of path to each(ctx, ...), in order, until one returns -1:
 * 0 when every line was read, -1 with err ("PATH: why" where the file
 * cannot be opened or read, else the parser's).
 */
int textlines_read(const char *path, textline_fn each, void *ctx,
		   struct iow_error *err);

#endif
