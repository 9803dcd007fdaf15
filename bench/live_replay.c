/*
 * live_replay.c: the live view's own cost, without the noise of a
 * recording: a recorded trace's per-CPU files are handed to the live
 * view as the recorder hands them over (merged by time, a tick every
 * 100 ms of trace time), and the CPU time it takes is compared with the
 * trace's duration.
 *
 *   bench/live_replay [-m text|json|screen] [-i SECONDS] [-o FILE] DIR/NAME
 *
 * The screen is drawn to /dev/null at 80x24 (every interval, so more
 * often than a real run's once a second); text and JSON go there too,
 * or to FILE (to check them against --summary -x).
 * Prints records, trace seconds, CPU seconds, records per CPU second and
 * the share of one core the view would take at the trace's own rate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "live/live.h"

#define TICK_NS		100000000ull

struct cpu_file {
	unsigned char *data;
	size_t len, pos;
};

static int load(const char *path, struct cpu_file *f)
{
	FILE *in = fopen(path, "rb");
	long size;

	if (!in)
		return -1;
	fseek(in, 0, SEEK_END);
	size = ftell(in);
	rewind(in);
	f->data = malloc((size_t)size + 1);
	f->len = f->data ? fread(f->data, 1, (size_t)size, in) : 0;
	fclose(in);
	return f->data ? 0 : -1;
}

/* The record at f's position (records are not aligned in the file). */
static int head(const struct cpu_file *f, struct blk_io_trace *t)
{
	if (f->pos + sizeof(*t) > f->len)
		return 0;
	memcpy(t, f->data + f->pos, sizeof(*t));
	return 1;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct live_opts o = { .mode = LIVE_TEXT, .interval_s = 1,
			       .trace_path = "replay", .key_fd = -1 };
	struct record_progress prog = { .tracer = RECORD_FTRACE,
					.kernel_completed = UINT64_MAX };
	struct cpu_file files[256];
	struct record_tap tap;
	struct iow_error err;
	uint64_t first = UINT64_MAX, last = 0, next_tick = 0, n = 0;
	size_t n_files = 0, i;
	char path[4096];
	struct live *l;
	double t0;
	int c;

	const char *out = "/dev/null";

	while ((c = getopt(argc, argv, "m:i:o:")) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'm')
			o.mode = !strcmp(optarg, "json") ? LIVE_JSON :
				 !strcmp(optarg, "screen") ? LIVE_SCREEN :
							     LIVE_TEXT;
		else
			o.interval_s = atof(optarg);
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: live_replay [-m text|json|screen] "
			"[-i SECONDS] [-o FILE] DIR/NAME\n");
		return 2;
	}
	for (n_files = 0; n_files < 256; n_files++) {
		snprintf(path, sizeof(path), "%s.blktrace.%zu", argv[optind],
			 n_files);
		if (load(path, &files[n_files]))
			break;
	}
	o.out = fopen(out, "w");
	l = live_open(&o, &err);
	if (!n_files || !o.out || !l) {
		fprintf(stderr, "live_replay: %s\n",
			n_files ? err.msg : "no trace files");
		return 1;
	}
	live_tap(l, &tap);
	t0 = cpu_now();
	for (;;) {
		struct blk_io_trace t, rec, *best = NULL;
		size_t b = 0;

		for (i = 0; i < n_files; i++)
			if (head(&files[i], &t) &&
			    (!best || t.time < best->time)) {
				rec = t;
				best = &rec;
				b = i;
			}
		if (!best)
			break;
		if (best->time >= next_tick) {
			if (next_tick)
				tap.tick(tap.ctx, &prog);
			next_tick = best->time + TICK_NS;
		}
		tap.record(tap.ctx, best, files[b].data + files[b].pos +
			   sizeof(*best));
		files[b].pos += sizeof(*best) + best->pdu_len;
		if (!blk_is_note(best->action)) {
			prog.events = ++n;
			if (best->time < first)
				first = best->time;
			if (best->time > last)
				last = best->time;
		}
	}
	tap.tick(tap.ctx, &prog);
	if (live_finish(l, &err) < 0) {
		fprintf(stderr, "live_replay: %s\n", err.msg);
		return 1;
	}
	t0 = cpu_now() - t0;
	live_close(l);
	fclose(o.out);
	for (i = 0; i < n_files; i++)
		free(files[i].data);
	printf("%llu records, %.2f s of trace, %.3f s CPU, %.0f records/s, "
	       "%.1f%% of a core at the trace's rate\n",
	       (unsigned long long)n, (double)(last - first) / 1e9, t0,
	       (double)n / t0, 100 * t0 / ((double)(last - first) / 1e9));
	return 0;
}
