/*
 * clock.h: the monotonic clock (CLOCK_MONOTONIC, the one blktrace, BPF's
 * ktime and the ftrace blk tracer's "mono" clock stamp events with), in
 * milliseconds and nanoseconds, and a sleep a signal cuts short.
 */
#ifndef IOWATCHER_CLOCK_H
#define IOWATCHER_CLOCK_H

#include <stdint.h>

long long clock_now_ms(void);
uint64_t clock_now_ns(void);
/* Sleeps ms milliseconds, or less where a signal comes first. */
void clock_sleep_ms(int ms);

#endif
