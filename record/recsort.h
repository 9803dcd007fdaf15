/*
 * recsort.h: records of one CPU's batch put in time order, stably. They
 * come off a BPF ring nearly sorted: a record taken in an interrupt
 * that cut into another's reservation comes before the one it cut into
 * (rec_bpf.c). An insertion sort is linear on sorted input.
 */
#ifndef IOWATCHER_RECSORT_H
#define IOWATCHER_RECSORT_H

#include <stddef.h>
#include <stdint.h>

/* A record in a batch: its time and where it is. */
struct rec_time {
	uint64_t time;
	size_t offset;
};

static inline void rec_time_sort(struct rec_time *e, size_t n)
{
	struct rec_time moving;
	size_t i, j;

	for (i = 1; i < n; i++) {
		if (e[i].time >= e[i - 1].time)
			continue;
		moving = e[i];
		for (j = i; j > 0 && e[j - 1].time > moving.time; j--)
			e[j] = e[j - 1];
		e[j] = moving;
	}
}

#endif
