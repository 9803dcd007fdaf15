/* clock.c: the monotonic clock and a sleep (clock.h). */
#include <time.h>

#include "clock.h"

uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

long long clock_now_ms(void)
{
	return (long long)(clock_now_ns() / 1000000ull);
}

void clock_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal cuts it short, as it should */
}
