/*
 * flight_capture.c: what writing a flight capture costs the program
 * itself, without a device or a recording beside it: IOS synthetic
 * requests (Q I D C, 4 KiB reads at random sectors, 30 s of them spread
 * evenly, issued on CPU 0 or 1 in turn, completed on CPU 1) go through
 * the flight recorder's engine (record/flight.c) in drains of 100 ms,
 * a capture is asked for at the end (as SIGUSR1 asks), and the
 * capture's own line says how long it took to write its files (in a
 * directory of its own made in DIR, removed afterwards).
 *
 *   bench/flight_capture [IOS] [DIR]     (default 2675000, /dev/shm)
 *
 * 2,675,000 requests are 10.7 million records: a 30 s window at
 * bench/flight.sh's rate. Set beside bench/flight.sh's window case,
 * the difference is what the machine adds (the pages the files take,
 * the workload beside it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/flight.h"
#include "record/tracefs.h"

#define MS	1000000ull
#define DEV	((7u << 20) | 99u)
#define SPAN	(30000 * MS)

static struct blk_io_trace *make(size_t ios)
{
	static const unsigned code[4] = { BLK_TA_QUEUE, BLK_TA_INSERT,
					  BLK_TA_ISSUE, BLK_TA_COMPLETE };
	static const unsigned cat[4] = { BLK_TC_QUEUE, BLK_TC_QUEUE,
					 BLK_TC_ISSUE, BLK_TC_COMPLETE };
	static const uint64_t at[4] = { 0, 1500, 2500, 12000 };
	struct blk_io_trace *r = calloc(ios * 4, sizeof(*r));
	size_t i, k;

	srand(1);
	for (i = 0; r && i < ios; i++) {
		uint64_t sector = (uint64_t)(rand() % 262144) * 8;

		for (k = 0; k < 4; k++) {
			struct blk_io_trace *t = &r[i * 4 + k];

			t->magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7;
			t->time = 1000 * MS + i * (SPAN / ios) + at[k];
			t->sector = sector;
			t->bytes = 4096;
			t->action = code[k] | BLK_TC_ACT(cat[k] | BLK_TC_READ);
			t->pid = k == 3 ? 0 : 4242;
			t->device = DEV;
			t->cpu = k == 3 ? 1 : (uint32_t)(i & 1);
			t->sequence = (uint32_t)(i * 4 + k);
		}
	}
	return r;
}

int main(int argc, char **argv)
{
	size_t ios = argc > 1 ? strtoul(argv[1], NULL, 10) : 2675000;
	const char *dir = argc > 2 ? argv[2] : "/dev/shm";
	struct record_device dev = { .path = "/dev/bench", .dev = DEV };
	uint32_t devices[1] = { DEV };
	const struct blk_io_trace **per[2];
	struct iow_error err = { "" };
	struct flight_trigger tr;
	struct flight_opts o;
	struct blk_io_trace *r;
	struct flight *fl;
	char why[256], path[4096];
	size_t n, pos = 0;
	uint64_t until;
	unsigned cpu;
	int fired = 0;
	char *tmp;

	if (!ios || ios > 100000000) {
		fprintf(stderr, "flight_capture: IOS from 1 to 100000000\n");
		return 2;
	}
	n = ios * 4;
	r = make(ios);
	per[0] = malloc(n * sizeof(*per[0]));
	per[1] = malloc(n * sizeof(*per[1]));
	if (!r || !per[0] || !per[1]) {
		fprintf(stderr, "flight_capture: out of memory\n");
		return 1;
	}
	memset(&o, 0, sizeof(o));
	flight_trigger_parse("d2c>10s", &tr, why, sizeof(why));
	o.window_ns = SPAN + 1000 * MS;
	o.mem_bytes = 8ull << 30;
	o.before_ns = SPAN;
	o.after_ns = 100 * MS;
	o.triggers = &tr;
	o.n_triggers = 1;
	snprintf(path, sizeof(path), "%s/flight-capture.XXXXXX", dir);
	if (!(tmp = mkdtemp(path))) {
		perror(dir);
		return 1;
	}
	fl = flight_new(&o, tmp, "c", &dev, devices, 1, 2, 0,
			&err);
	if (!fl) {
		fprintf(stderr, "flight_capture: %s\n", err.msg);
		return 1;
	}
	for (until = 1100 * MS; ; until += 100 * MS) {
		const struct blk_io_trace *const *batch[2] = { per[0], per[1] };
		size_t got[2] = { 0, 0 };

		while (pos < n && r[pos].time < until) {
			cpu = r[pos].cpu;
			per[cpu][got[cpu]++] = &r[pos++];
		}
		if (pos == n && until > r[n - 1].time + 200 * MS)
			break;
		if (pos == n && !fired++)
			flight_fire(fl, until, "the bench");
		if (flight_take(fl, batch, got, until, &err)) {
			fprintf(stderr, "flight_capture: %s\n", err.msg);
			return 1;
		}
	}
	if (flight_finish(fl, &err))
		fprintf(stderr, "flight_capture: %s\n", err.msg);
	flight_free(fl);
	for (cpu = 0; cpu < 2; cpu++) {
		char file[4200];

		snprintf(file, sizeof(file), "%s/c-1.blktrace.%u", tmp, cpu);
		unlink(file);
	}
	if (rmdir(tmp))
		perror(tmp);
	free(r);
	free(per[0]);
	free(per[1]);
	return 0;
}
