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

#include "compare_int.h"
#include "graphs/flame_tree.h"
#include "graphs/graphs.h"
#include "plot.h"

#define MIN_ROW_PX	12
#define MIN_BOX_PX	3

/* t seconds of trace s along comm, then the stack's frames outer first. */
static int add_path(struct flame_node *root, const char *comm,
		    const char *stack, int s, double t)
{
	struct flame_node *n = flame_kid(root, comm, strlen(comm), 0);

	root->value[s] += t;
	if (!n)
		return -1;
	n->value[s] += t;
	return flame_add_stack(n, stack, s, t);
}

/* Each cause's latency-seconds in trace s, then its path once. */
static int add_trace(struct flame_node *root, const struct compare *c, int s)
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

/* Red as B spent more, blue as less, white alike (Gregg's colours). */
static struct plot_rgb diff_color(const struct flame_node *n)
{
	double sum = n->value[0] + n->value[1];
	double d = sum > 0 ? (n->value[1] - n->value[0]) / sum : 0;
	double fade = 1 - 0.75 * fabs(d);

	if (d > 0)
		return (struct plot_rgb){ 1, fade, fade };
	return (struct plot_rgb){ fade, fade, 1 };
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
	struct flame_node root = { 0 };
	struct flame_boxes boxes = { 0 };
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
	if (root.value[0] + root.value[1] <= 0) {
		plot_panel_note(pp, "no timed I/O");
		ret = 0;
		goto out;
	}
	area = plot_panel_area(pp);
	rows = (int)(area.h / MIN_ROW_PX);
	depth = flame_depth(&root) + 1;
	if (rows > depth)
		rows = depth;
	snprintf(label, sizeof(label), "all: A %.3g s, B %.3g s",
		 root.value[0], root.value[1]);
	if (flame_box(&boxes, 0, 1, 0, label, diff_color(&root)) < 0 ||
	    flame_layout(&boxes, &root, 0,
			 1 / (root.value[0] + root.value[1]), 1, rows,
			 MIN_BOX_PX / area.w, diff_color) < 0)
		goto out;
	plot_icicle(pp, boxes.items, boxes.n, rows);
	if (depth > rows) {
		snprintf(label, sizeof(label),
			 "the %d innermost levels not shown", depth - rows);
		plot_legend_text(pp, label);
	}
	ret = 0;
out:
	flame_clear(&root);
	flame_boxes_free(&boxes);
	return ret;
}
