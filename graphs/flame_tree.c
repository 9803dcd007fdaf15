/* flame_tree.c: a flame graph's tree and boxes (flame_tree.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "flame_tree.h"
#include "tag/cause.h"

struct flame_node *flame_kid(struct flame_node *n, const char *name,
			     size_t len, int is_task)
{
	struct flame_node **more, *k;
	size_t i;

	for (i = 0; i < n->n_kids; i++)
		if (strlen(n->kids[i]->name) == len &&
		    !strncmp(n->kids[i]->name, name, len) &&
		    n->kids[i]->is_task == is_task)
			return n->kids[i];
	more = realloc(n->kids, (n->n_kids + 1) * sizeof(*more));
	k = calloc(1, sizeof(*k));
	if (more)
		n->kids = more;
	if (!more || !k || !(k->name = strndup(name, len))) {
		free(k);
		return NULL;
	}
	k->is_task = is_task;
	n->kids[n->n_kids++] = k;
	return k;
}

int flame_add_stack(struct flame_node *n, const char *frames, int s,
		    double v)
{
	const char *p, *end;

	if (!frames) {
		n = flame_kid(n, "[no kernel stack]", 17, 0);
		if (!n)
			return -1;
		n->value[s] += v;
		return 0;
	}
	for (p = frames; *p; p = end + 1) {
		size_t len;

		end = strchr(p, ';');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!cause_generic_frame(p, len)) {
			n = flame_kid(n, p, len, 0);
			if (!n)
				return -1;
			n->value[s] += v;
		}
		if (!end)
			break;
	}
	return 0;
}

int flame_depth(const struct flame_node *n)
{
	int d = 0, k;
	size_t i;

	for (i = 0; i < n->n_kids; i++)
		if ((k = 1 + flame_depth(n->kids[i])) > d)
			d = k;
	return d;
}

void flame_clear(struct flame_node *n)
{
	size_t i;

	for (i = 0; i < n->n_kids; i++) {
		flame_clear(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
	n->kids = NULL;
	n->n_kids = 0;
	n->name = NULL;
}

int flame_box(struct flame_boxes *b, double x0, double x1, int depth,
	      const char *label, struct plot_rgb color)
{
	if (b->n == b->cap) {
		/* two arrays of one capacity: each grows from b->cap alike */
		size_t cap = b->cap, labels_cap = b->cap;
		struct plot_box *more = vec_grow(b->items, &cap, b->n + 1,
						 sizeof(*more), 256);
		char **labels = vec_grow(b->labels, &labels_cap, b->n + 1,
					 sizeof(*labels), 256);

		if (more)
			b->items = more;
		if (labels)
			b->labels = labels;
		if (!more || !labels)
			return -1;
		b->cap = cap;
	}
	b->labels[b->n] = label ? strdup(label) : NULL;
	if (label && !b->labels[b->n])
		return -1;
	b->items[b->n] = (struct plot_box){ x0, x1, depth, b->labels[b->n],
					    color };
	b->n++;
	if (depth + 1 > b->depth)
		b->depth = depth + 1;
	return 0;
}

static double width(const struct flame_node *n)
{
	return n->value[0] + n->value[1];
}

static int by_width(const void *pa, const void *pb)
{
	const struct flame_node *a = *(struct flame_node *const *)pa;
	const struct flame_node *b = *(struct flame_node *const *)pb;

	if (width(a) != width(b))
		return width(a) < width(b) ? 1 : -1;
	return strcmp(a->name, b->name);
}

int flame_layout(struct flame_boxes *b, struct flame_node *n, double x0,
		 double scale, int depth, int max_depth, double min_w,
		 struct plot_rgb (*color)(const struct flame_node *))
{
	double x = x0, merged = 0;
	size_t i, n_merged = 0;
	char label[64];

	if (depth >= max_depth || !n->n_kids)
		return 0;
	qsort(n->kids, n->n_kids, sizeof(*n->kids), by_width);
	for (i = 0; i < n->n_kids; i++) {
		struct flame_node *k = n->kids[i];
		double w = width(k) * scale;

		if (w < min_w) {
			merged += w;
			n_merged++;
			continue;
		}
		if (flame_box(b, x, x + w, depth, k->name, color(k)) < 0 ||
		    flame_layout(b, k, x, scale, depth + 1, max_depth, min_w,
				 color) < 0)
			return -1;
		x += w;
	}
	if (!n_merged)
		return 0;
	snprintf(label, sizeof(label), "%zu more", n_merged);
	return flame_box(b, x, x + merged, depth, n_merged > 1 ? label : NULL,
			 (struct plot_rgb){ 0.82, 0.82, 0.82 });
}

void flame_boxes_free(struct flame_boxes *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->labels[i]);
	free(b->labels);
	free(b->items);
}
