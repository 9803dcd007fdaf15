/*
 * movie.h: --movie: a video of the I/O as it happened. Frames are drawn
 * with cairo into an image surface and written as raw video to ffmpeg's
 * standard input; the container follows the output's extension.
 */
#ifndef IOWATCHER_MOVIE_H
#define IOWATCHER_MOVIE_H

#include "base/error.h"
#include "options.h"
#include "trace_result.h"

/* Draw o->output as a movie of the traces (o->movie_style etc.). */
int movie_render(const struct options *o, const struct trace_result *traces,
		 size_t n, struct iow_error *err);

/* The movie, a row of the outputs' table. */
extern const struct output_ops movie_output;

#endif
