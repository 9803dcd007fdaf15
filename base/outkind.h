/*
 * outkind.h: what -o names, by its extension: a picture (and its
 * format), a movie (and its container), the report (an HTML page) or
 * a trace for Perfetto.
 * One table, read once by cli.c;
 * the answer is kept in the options (options.output_type), so the
 * stages that write the file never look at the name again.
 */
#ifndef IOWATCHER_OUTKIND_H
#define IOWATCHER_OUTKIND_H

#include <stddef.h>

#include "error.h"

enum output_kind {
	OUTPUT_NONE, OUTPUT_PICTURE, OUTPUT_MOVIE, OUTPUT_REPORT, OUTPUT_PERFETTO
};
/* A picture's format (plot.c draws it), a movie's container (movie.c). */
enum plot_format { PLOT_SVG, PLOT_PNG, PLOT_PDF };
enum movie_container { MOVIE_MP4, MOVIE_WEBM, MOVIE_OGV, MOVIE_GIF };

struct output_type {
	enum output_kind kind;
	enum plot_format picture;	/* OUTPUT_PICTURE: its format */
	enum movie_container movie;	/* OUTPUT_MOVIE: its container */
};

/*
 * What path names, by its extension (case-insensitive): 0, or -1 when
 * no kind takes it (t->kind is then OUTPUT_NONE and err says which
 * extensions a picture takes).
 */
int output_type_of(const char *path, struct output_type *t,
		   struct iow_error *err);
/*
 * The picture's name when -o names none, from the traces' names: -t
 * dir/a gives a.svg, a per-CPU file or a dump its trace's name
 * (a.blktrace.0 and a.dump.zst: a.svg), several traces theirs joined by
 * '+' (a+b.svg), standard input trace.svg. So two traces drawn in one
 * directory never draw over each other's picture.
 */
void default_picture_name(const char *const *traces, size_t n, char *buf,
			  size_t size);
/* The extensions kind k takes, for messages: ".svg, .png or .pdf". */
const char *output_extensions(enum output_kind k);

#endif
