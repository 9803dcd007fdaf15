/*
 * movie.h: --movie: a video of the I/O as it happened. Frames are drawn
 * with cairo into an image surface and written as raw video to ffmpeg's
 * standard input; the container follows the output's extension.
 */
#ifndef IOWATCHER_MOVIE_H
#define IOWATCHER_MOVIE_H

#include "error.h"
#include "options.h"
#include "summary.h"

enum movie_container { MOVIE_MP4, MOVIE_WEBM, MOVIE_OGV, MOVIE_GIF };

/* By extension: .mp4, .webm, .ogv/.ogg, .gif; anything else fails. */
int movie_container_from_name(const char *path, enum movie_container *c,
			      struct iow_error *err);

/* Draw o->output as a movie of the traces (o->movie_style etc.). */
int movie_render(const struct options *o, const struct trace_result *traces,
		 size_t n, struct iow_error *err);

#endif
