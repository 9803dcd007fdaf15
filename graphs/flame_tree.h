/*
 * flame_tree.h: the tree of a flame graph and its boxes, one for io-flame
 * (graph_causes.c) and --compare's differential flame graph
 * (compare_flame.c): paths of frames, each node summing a value (or two:
 * A's and B's), laid out as an icicle's boxes, widest first, the too
 * narrow together in one grey box.
 */
#ifndef IOWATCHER_FLAME_TREE_H
#define IOWATCHER_FLAME_TREE_H

#include <stddef.h>

#include "plot.h"

struct flame_node {
	char *name;
	double value[2];	/* one trace's in [0], or A's and B's */
	int is_task;		/* a process, not a frame */
	struct flame_node **kids;
	size_t n_kids;
};

/* n's child of that name and kind, added if it has none; NULL: no memory */
struct flame_node *flame_kid(struct flame_node *n, const char *name,
			     size_t len, int is_task);
/* Under n, value v in slot s along the frames of a stack ("f1;f2;...",
 * outer first, the generic ones skipped), or "[no kernel stack]" when
 * frames is NULL; n itself is not counted. -1: no memory. */
int flame_add_stack(struct flame_node *n, const char *frames, int s,
		    double v);
/* The deepest level under n (n's own is 0). */
int flame_depth(const struct flame_node *n);
/* n's children and name freed (n itself is the caller's). */
void flame_clear(struct flame_node *n);

struct flame_boxes {
	struct plot_box *items;
	char **labels;		/* the items' labels, owned */
	size_t n, cap;
	int depth;		/* rows used */
};

/* A box of [x0, x1) at depth, its label copied. -1: no memory. */
int flame_box(struct flame_boxes *b, double x0, double x1, int depth,
	      const char *label, struct plot_rgb color);
/*
 * n's children from x0 on, widest first (value[0] + value[1] times
 * scale), each with color(kid) and its own children under it, down to
 * max_depth; those narrower than min_w together, one grey box ("N
 * more"). -1: no memory.
 */
int flame_layout(struct flame_boxes *b, struct flame_node *n, double x0,
		 double scale, int depth, int max_depth, double min_w,
		 struct plot_rgb (*color)(const struct flame_node *));
void flame_boxes_free(struct flame_boxes *b);

#endif
