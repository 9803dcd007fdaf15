/*
 * analysis_hub.h: analysis.c's helpers as its parts (analysis_holes.c,
 * analysis_loss.c, analysis_end.c) call them: through the table the hub
 * sets up in analysis_init (struct analysis_hub, analysis_int.h), so
 * that no part names a function of the hub and calls run one way between
 * the files (tests/t_calls.sh). The parts call them in a loss window's
 * events, a loss note, the holes' rules and the finish, never in the
 * hub's own per-event path, which calls them directly. Included by the
 * parts only: analysis.c defines these names, static.
 */
#ifndef IOWATCHER_ANALYSIS_HUB_H
#define IOWATCHER_ANALYSIS_HUB_H

#include "analysis_int.h"

static inline void bare_row(struct analysis *a, const struct io_event *ev,
			    int counted, uint64_t rows_before)
{
	priv(a)->hub->bare_row(a, ev, counted, rows_before);
}

static inline int count_completion(struct analysis *a, struct device_stats *d,
				   const struct io_event *ev, int op,
				   int32_t tag, size_t bin)
{
	return priv(a)->hub->count_completion(a, d, ev, op, tag, bin);
}

static inline void depth_change(struct analysis *a, struct device_stats *d,
				uint64_t t, int delta)
{
	priv(a)->hub->depth_change(a, d, t, delta);
}

static inline struct device_stats *device_get(struct analysis *a,
					      uint32_t device, size_t *slot)
{
	return priv(a)->hub->device_get(a, device, slot);
}

static inline int device_wanted(const struct analysis *a, uint32_t device)
{
	return priv(a)->hub->device_wanted(a, device);
}

static inline void map_issue_or_queue(struct analysis *a, size_t slot,
				      const struct io_event *ev)
{
	priv(a)->hub->map_issue_or_queue(a, slot, ev);
}

static inline void tag_depth_change(struct analysis *a, int32_t tag,
				    uint64_t t, int delta)
{
	priv(a)->hub->tag_depth_change(a, tag, t, delta);
}

static inline int flush_held_apply(struct analysis *a)
{
	return priv(a)->hub->flush_held_apply(a);
}

static inline long tag_index_find(const struct analysis_private *p,
				  int32_t id)
{
	return p->hub->tag_index_find(p, id);
}

#endif
