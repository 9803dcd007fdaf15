/*
 * bimodal: writes a dump of N I/Os (default 1000) whose device time is
 * 100 us for even I/Os and 10 ms for odd ones, one I/O issued every
 * 20 ms on alternating directions, for tests of latency graphs with a
 * known answer: two bands in the heat map, p50 at 100 us, p99 at 10 ms.
 *   bimodal OUT.dump [N]
 */
#include <stdio.h>
#include <stdlib.h>

#include "../tracebuild.h"

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000, i;
	uint32_t seq = 1;
	FILE *f;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: bimodal OUT.dump [N]\n");
		return 2;
	}
	f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	/*
	 * Events in time order: the slow I/O of step i completes after the
	 * next ones are queued, so write per 1 ms slot from a schedule.
	 */
	for (i = 0; i < n; i++) {
		uint64_t t = 1000000 + (uint64_t)i * 20000000ull;
		uint64_t d2c = (i & 1) ? 10000000ull : 100000ull;
		uint32_t dir = (i / 2) & 1 ? W : R;
		struct rec q = { .t = t, .sector = (uint64_t)i * 64,
				 .bytes = 4096, .pid = 42, .dev = DEV(8, 0) };
		struct rec d = q, c = q;

		q.action = ACT(BLK_TA_QUEUE, BLK_TC_QUEUE | dir);
		d.t = t + 50000;
		d.action = ACT(BLK_TA_ISSUE, BLK_TC_ISSUE | dir);
		c.t = d.t + d2c;
		c.action = ACT(BLK_TA_COMPLETE, BLK_TC_COMPLETE | dir);
		tb_write(f, 7, 0, seq++, &q);
		tb_write(f, 7, 0, seq++, &d);
		tb_write(f, 7, 0, seq++, &c);
	}
	return fclose(f) ? 1 : 0;
}
