/*
 * graph_causes.h: the pictures of causes, io-flame and top-files (rows
 * of graphs.c's table; graph_causes.c).
 */
#ifndef IOWATCHER_GRAPH_CAUSES_H
#define IOWATCHER_GRAPH_CAUSES_H

#include "graphs.h"

size_t flame_panels(const struct graph_ctx *ctx);
void title_flame(const struct graph_ctx *ctx, size_t p, char *buf,
		 size_t len);
int draw_flame(const struct graph_ctx *ctx, size_t p, struct plot_panel *pp,
	       struct iow_error *err);

size_t top_files_panels(const struct graph_ctx *ctx);
void title_top_files(const struct graph_ctx *ctx, size_t p, char *buf,
		     size_t len);
int draw_top_files(const struct graph_ctx *ctx, size_t p,
		   struct plot_panel *pp, struct iow_error *err);

#endif
