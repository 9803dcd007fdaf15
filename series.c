/* series.c: quantities and series sets (see series.h). */
#include <stdlib.h>

#include "series.h"

static const struct quantity_def quantities[N_QUANTITIES] = {
	[QTY_NUMBER] = { "number", NULL, 1, AXIS_NUMBER },
	[QTY_SECONDS] = { "time", "s", 1, AXIS_SECONDS },
	[QTY_LATENCY] = { "latency", "us", 1e-3, AXIS_NS },
	[QTY_MB_PER_S] = { "throughput", "mb_per_s", 1, AXIS_MB_PER_S },
	[QTY_IOS_PER_S] = { "I/O rate", "ios_per_s", 1, AXIS_NUMBER },
	[QTY_IOS] = { "I/Os", "ios", 1, AXIS_NUMBER },
	[QTY_REQUESTS] = { "requests", "requests", 1, AXIS_NUMBER },
	[QTY_SEEKS_PER_S] = { "seek rate", "seeks_per_s", 1, AXIS_NUMBER },
	[QTY_PERCENT] = { "percent", "pct", 1, AXIS_PERCENT },
	[QTY_SIZE] = { "size", "kib", 1.0 / 1024, AXIS_BYTES },
};

const struct quantity_def *quantity_of(enum quantity q)
{
	return &quantities[q < N_QUANTITIES ? q : QTY_NUMBER];
}

void series_set_free(struct series_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->items[i].label);
		free(s->items[i].x);
		free(s->items[i].y);
	}
	free(s->items);
	s->items = NULL;
	s->n = 0;
}
