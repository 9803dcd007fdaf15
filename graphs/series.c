/* series.c: quantities and series sets (see series.h). */
#include <stdlib.h>

#include "series.h"

static const struct quantity_def quantities[N_QUANTITIES] = {
	[QTY_NUMBER] = { "number", NULL, 1, AXIS_NUMBER, -1 },
	[QTY_SECONDS] = { "time", "s", 1, AXIS_SECONDS, 9 },
	[QTY_LATENCY] = { "latency", "us", 1e-3, AXIS_NS, 3 },
	[QTY_MB_PER_S] = { "throughput", "mb_per_s", 1, AXIS_MB_PER_S, 6 },
	[QTY_IOS_PER_S] = { "I/O rate", "ios_per_s", 1, AXIS_NUMBER, 3 },
	[QTY_IOS] = { "I/Os", "ios", 1, AXIS_NUMBER, 0 },
	/* a mean depth: time-weighted, a few thousandths on an idle disk */
	[QTY_REQUESTS] = { "requests", "requests", 1, AXIS_NUMBER, 6 },
	[QTY_SEEKS_PER_S] = { "seek rate", "seeks_per_s", 1, AXIS_NUMBER, 3 },
	/* mpstat writes two decimals; a share of a million I/Os needs 4 */
	[QTY_PERCENT] = { "percent", "pct", 1, AXIS_PERCENT, 4 },
	/* a byte is 0.0009765625 KiB */
	[QTY_SIZE] = { "size", "kib", 1.0 / 1024, AXIS_BYTES, 10 },
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
