/*
 * compare_flame.c: --compare's differential I/O flame graph, where both
 * traces were recorded with kernel stacks: one icicle (root at the top)
 * of the latency-seconds of A and B together by comm, then the kernel
 * stack from its outer frames in; each box as wide as A's and B's time
 * there together, so a path either lacks is still shown, red where B
 * spent more there, blue where less, white where the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "compare_int.h"
#include "graphs/graphs.h"
#include "plot.h"

#define MIN_ROW_PX	12
#define MIN_BOX_PX	3

struct dnode {
	char *name;
	double t_s[2];		/* A's and B's latency-seconds under it */
	struct dnode **kids;
	size_t n_kids;
};

static struct dnode *kid(struct dnode *n, const char *name, size_t len)
{
	struct dnode **more, *k;
	size_t i;

	for (i = 0; i < n->n_kids; i++)
		if (strlen(n->kids[i]->name) == len &&
		    !strncmp(n->kids[i]->name, name, len))
			return n->kids[i];
	more = realloc(n->kids, (n->n_kids + 1) * sizeof(*more));
	if (!more)
		return NULL;
	n->kids = more;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->name = strndup(name, len))) {
		free(k);
		return NULL;
	}
	n->kids[n->n_kids++] = k;
	return k;
}

static void dnode_free(struct dnode *n)
{
	size_t i;

	for (i = 0; i < n->n_kids; i++) {
		dnode_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

/* t seconds of trace s along comm, then the stack's frames outer first. */
static int add_path(struct dnode *root, const char *comm, const char *stack,
		    int s, double t)
{
	struct dnode *n = kid(root, comm, strlen(comm));
	const char *p, *end;

	root->t_s[s] += t;
	if (!n)
		return -1;
	n->t_s[s] += t;
	if (!stack)
		stack = "[no kernel stack]";
	for (p = stack; *p; p = end + 1) {
		size_t len;

		end = strchr(p, ';');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!cause_generic_frame(p, len)) {
			n = kid(n, p, len);
			if (!n)
				return -1;
			n->t_s[s] += t;
		}
		if (!end)
			break;
	}
	return 0;
}

/* Each cause's latency-seconds in trace s, then its path once. */
static int add_trace(struct dnode *root, const struct compare *c, int s)
{
	const struct cmp_trace *t = &c->t[s];
	uint32_t max_id = 0;
	double *by_id;
	size_t i;
	int r = 0;

	for (i = 0; i < t->side->n; i++)
		if (t->side->ios[i].cause > max_id)
			max_id = t->side->ios[i].cause;
	by_id = calloc((size_t)max_id + 1, sizeof(*by_id));
	if (!by_id)
		return -1;
	for (i = 0; i < t->side->n; i++)
		if (t->group[i] >= 0 &&
		    (t->side->ios[i].has & (1u << CM_LAT)))
			by_id[t->side->ios[i].cause] +=
				t->side->ios[i].lat_ns[CM_LAT] / 1e9;
	for (i = 0; i <= max_id && r == 0; i++) {
		const struct cause *cs = cause_get(t->causes, (uint32_t)i);
		const char *comm = NULL;

		if (!by_id[i])
			continue;
		if (cs)
			comm = cause_comm(t->causes, cause_credited_pid(cs));
		r = add_path(root, comm && comm[0] ? comm : "[unknown]",
			     cs ? cause_kstack(t->causes, cs) : NULL, s,
			     by_id[i]);
	}
	free(by_id);
	return r;
}

struct boxes {
	struct plot_box *items;
	size_t n, cap;
	int depth;
};

static int box_add(struct boxes *b, double x0, double x1, int depth,
		   const char *label, struct plot_rgb color)
{
	if (b->n == b->cap) {
		struct plot_box *more = vec_grow(b->items, &b->cap, b->n + 1,
						 sizeof(*more), 256);

		if (!more)
			return -1;
		b->items = more;
	}
	b->items[b->n++] = (struct plot_box){ x0, x1, depth, label, color };
	if (depth + 1 > b->depth)
		b->depth = depth + 1;
	return 0;
}

/* Red as B spent more, blue as less, white alike (Gregg's colours). */
static struct plot_rgb diff_color(const struct dnode *n)
{
	double sum = n->t_s[0] + n->t_s[1];
	double d = sum > 0 ? (n->t_s[1] - n->t_s[0]) / sum : 0;
	double fade = 1 - 0.75 * fabs(d);

	if (d > 0)
		return (struct plot_rgb){ 1, fade, fade };
	return (struct plot_rgb){ fade, fade, 1 };
}

static int by_time(const void *pa, const void *pb)
{
	const struct dnode *a = *(struct dnode *const *)pa;
	const struct dnode *b = *(struct dnode *const *)pb;
	double x = a->t_s[0] + a->t_s[1], y = b->t_s[0] + b->t_s[1];

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* n's children side by side from x0, widest first; the too narrow
 * together in one grey box. */
static int layout(struct boxes *b, struct dnode *n, double x0, double scale,
		  int depth, int max_depth, double min_w)
{
	double x = x0, merged = 0;
	size_t i;

	if (depth >= max_depth || !n->n_kids)
		return 0;
	qsort(n->kids, n->n_kids, sizeof(*n->kids), by_time);
	for (i = 0; i < n->n_kids; i++) {
		struct dnode *k = n->kids[i];
		double w = (k->t_s[0] + k->t_s[1]) * scale;

		if (w < min_w) {
			merged += w;
			continue;
		}
		if (box_add(b, x, x + w, depth, k->name, diff_color(k)) < 0 ||
		    layout(b, k, x, scale, depth + 1, max_depth, min_w) < 0)
			return -1;
		x += w;
	}
	if (merged > 0)
		return box_add(b, x, x + merged, depth, NULL,
			       (struct plot_rgb){ 0.82, 0.82, 0.82 });
	return 0;
}

static int tree_depth(const struct dnode *n)
{
	int d = 0, k;
	size_t i;

	for (i = 0; i < n->n_kids; i++)
		if ((k = 1 + tree_depth(n->kids[i])) > d)
			d = k;
	return d;
}

int cmp_has_stacks(const struct compare *c)
{
	return c->t[0].causes && c->t[1].causes &&
	       cause_table_kept(c->t[0].causes, CAUSE_PART_STACKS) &&
	       cause_table_kept(c->t[1].causes, CAUSE_PART_STACKS);
}

static void format_share(double v, const struct plot_tick_context *ctx,
			 char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "%.0f%%", v);
}

int cmp_flame_panel(struct plot_page *page, struct plot_rect r,
		    const struct compare *c)
{
	struct dnode root = { 0 };
	struct boxes boxes = { 0 };
	struct plot_panel *pp;
	struct plot_rect area;
	char label[96];
	int rows, depth, ret = -1;

	pp = plot_panel_add(page, r.x, r.y, r.w, r.h,
			    "Differential I/O flame graph: latency-seconds of A and B by comm and kernel stack (red: more in B, blue: less)",
			    "share of A's and B's latency-seconds", NULL);
	plot_panel_set_x(pp, 0, 100);
	plot_panel_set_x_format(pp, format_share);
	plot_panel_set_y_none(pp);
	if (add_trace(&root, c, 0) < 0 || add_trace(&root, c, 1) < 0)
		goto out;
	if (root.t_s[0] + root.t_s[1] <= 0) {
		plot_panel_note(pp, "no timed I/O");
		ret = 0;
		goto out;
	}
	area = plot_panel_area(pp);
	rows = (int)(area.h / MIN_ROW_PX);
	depth = tree_depth(&root) + 1;
	if (rows > depth)
		rows = depth;
	snprintf(label, sizeof(label), "all: A %.3g s, B %.3g s",
		 root.t_s[0], root.t_s[1]);
	if (box_add(&boxes, 0, 1, 0, label, diff_color(&root)) < 0 ||
	    layout(&boxes, &root, 0, 1 / (root.t_s[0] + root.t_s[1]), 1,
		   rows, MIN_BOX_PX / area.w) < 0)
		goto out;
	plot_icicle(pp, boxes.items, boxes.n, rows);
	if (depth > rows) {
		snprintf(label, sizeof(label),
			 "the %d innermost levels not shown", depth - rows);
		plot_legend_text(pp, label);
	}
	ret = 0;
out:
	dnode_free(&root);
	free(boxes.items);
	return ret;
}
