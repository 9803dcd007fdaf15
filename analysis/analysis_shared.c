/*
 * analysis_shared.c: what the analysis's parts share and a leaf of them
 * (it calls none of analysis.c, analysis_holes.c, analysis_loss.c): the
 * loss list's growth, and the removal of a request's depth from bins
 * over a stretch it was not in flight (a loss window's forgotten
 * requests, a hole's superseded ones). The hub's own helpers that the
 * parts call reach them through its table (analysis_hub.h), so calls run
 * one way: analysis.c to its parts, its parts to this file.
 */
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "base/vec.h"
#include "reader/lossnote.h"
#include "analysis_int.h"

/* Appends w to the trace's loss windows (a recorder's or an inferred
 * hole's); -1: out of memory. */
int loss_window_append(struct analysis *a, const struct loss_window *w)
{
	if (a->n_loss == a->cap_loss) {
		struct loss_window *more = vec_grow(a->loss, &a->cap_loss,
						    a->n_loss + 1,
						    sizeof(*more), 8);

		if (!more)
			return -1;
		a->loss = more;
	}
	a->loss[a->n_loss++] = *w;
	return 0;
}

/* Subtracts one request's depth over [from, to) (clipped to -x), from
 * the bins at sink, stride bytes apart, and at sink2. */
double depth_remove(struct analysis *a, uint64_t from, uint64_t to,
		    char *sink, size_t stride, char *sink2, size_t stride2)
{
	double total = 0;
	size_t i;

	if (a->cfg.has_time_range) {
		if (from < a->cfg.time_min_ns)
			from = a->cfg.time_min_ns;
		if (to > a->cfg.time_max_ns)
			to = a->cfg.time_max_ns;
	}
	/* a device's area (its bins the sink): told to cfg.on_depth_removed */
	for (i = 0; a->cfg.on_depth_removed && !a->part_device && from < to &&
		    from >= a->bin_origin_ns && i < a->n_devices; i++)
		if (sink == (char *)a->devices[i].depth_bins) {
			a->cfg.on_depth_removed(a->cfg.depth_ctx,
						a->devices[i].device, from, to);
			break;
		}
	while (from < to && from >= a->bin_origin_ns) {
		uint64_t end;
		size_t bin = bin_part(a, from, to, &end);

		double *at, take;

		if (bin >= a->n_bins)
			break;
		at = (double *)(sink + bin * stride);
		/* never more than the bin holds: a request a loss note had
		 * already taken out of the depth (its in-flight count reset)
		 * and a rule then judges lost would take its time twice (a
		 * fuzzed perf text: a bin's depth -0.6) */
		take = (double)(end - from) < *at ? (double)(end - from) : *at;
		if (take < 0)
			take = 0;
		*at -= take;
		if (sink2) {
			double *at2 = (double *)(sink2 + bin * stride2);

			*at2 -= take < *at2 ? take : (*at2 > 0 ? *at2 : 0);
		}
		total += take;
		from = end;
	}
	return total;
}
