/*
 * latpoints.h: every D2C the analysis counts, kept with its time, op and
 * tag, for the latency scatter: it places each I/O at its own latency,
 * which the per-bin histograms hold to an eighth of an octave only.
 * Kept only when the scatter is drawn (16 bytes an I/O).
 */
#ifndef IOWATCHER_LATPOINTS_H
#define IOWATCHER_LATPOINTS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "base/bytebuf.h"

struct latency_point {
	float time_s;		/* the completion's, from the trace's start */
	float d2c_ns;
	int32_t tag;		/* the event's tag id, as the analysis's */
	uint8_t op;		/* enum io_op: data ops only */
};

struct latency_points {
	struct bytebuf buf;	/* struct latency_point, in order */
	int failed;		/* out of memory: some are missing */
};

/* An analysis_config.on_sample: ctx is a struct latency_points. */
void latency_points_sample(void *ctx, const struct analysis_sample *s);

static inline size_t latency_points_n(const struct latency_points *p)
{
	return p ? p->buf.len / sizeof(struct latency_point) : 0;
}

static inline const struct latency_point *
latency_points_items(const struct latency_points *p)
{
	return (const struct latency_point *)p->buf.data;
}

void latency_points_free(struct latency_points *p);

#endif
