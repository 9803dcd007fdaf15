/*
 * latpoints.c: the latency scatter's points, as the analysis tells of
 * each D2C it counts (latpoints.h).
 */
#include <string.h>

#include "latpoints.h"

void latency_points_sample(void *ctx, const struct analysis_sample *s)
{
	struct latency_points *p = ctx;
	struct latency_point pt;

	if (!(s->what & ANALYSIS_D2C) || s->op >= N_DATA_OPS || p->failed)
		return;
	memset(&pt, 0, sizeof(pt));
	pt.time_s = (float)((double)s->time_ns / 1e9);
	pt.d2c_ns = (float)s->d2c_ns;
	pt.tag = s->tag;
	pt.op = (uint8_t)s->op;
	if (bytebuf_append(&p->buf, &pt, sizeof(pt)) < 0)
		p->failed = 1;
}

void latency_points_free(struct latency_points *p)
{
	if (!p)
		return;
	bytebuf_free(&p->buf);
	p->failed = 0;
}
