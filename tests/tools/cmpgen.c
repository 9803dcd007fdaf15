/*
 * cmpgen: writes a trace (a dump of blktrace records in time order) of a
 * steady made-up workload, and the same workload changed in one known
 * way, for the tests of --compare: whatever --compare names as the cause
 * of B's difference must be the change made here.
 *
 *   cmpgen OUT.dump [--seed N] [--ios N] [--seconds S]
 *          [--delay-band LO:HI:US] [--delay-pid PID:US]
 *          [--delay-class r|w:US] [--delay-time S0:S1:US]
 *          [--extra BYTES:N] [--writer PID:BYTES:N] [--device MAJ,MIN]
 *
 * The workload: --ios I/Os (default 20000) evenly over --seconds
 * (default 20), each from pid 100, 200 or 300, a read (70%) or a write,
 * 4 KiB (80%) or 16 KiB, at a random sector of a 1 GiB device 8,0;
 * Q2D 20 us plus up to 40 us, D2C 60 us to 300 us, both at random
 * (--seed); --device puts it on another device. The changes: completions of the I/Os at sectors [LO, HI),
 * of one pid, of one class, or queued from S0 to S1 s, US microseconds
 * later; or N more reads of BYTES, evenly over the run. The random
 * draws of the workload are the same with and without a change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tracebuild.h"

struct change {
	uint64_t band_lo, band_hi, band_us;
	uint32_t pid, pid_us;
	int class_dir, class_us;	/* class_dir: 'r' or 'w' */
	double t0, t1;
	uint64_t time_us;
	uint32_t extra_bytes, extra_n;
	uint32_t extra_pid, extra_dir;	/* --writer: its pid, W */
};

static uint64_t rng_state;
static uint32_t device = DEV(8, 0);

static uint64_t next_random(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(void)
{
	return (double)(next_random() >> 11) / 9007199254740992.0;
}

static struct rec *recs;
static size_t n_recs, cap_recs;

static void add(const struct rec *r)
{
	if (n_recs == cap_recs) {
		cap_recs = cap_recs ? cap_recs * 2 : 65536;
		recs = realloc(recs, cap_recs * sizeof(*recs));
		if (!recs) {
			perror("cmpgen");
			exit(1);
		}
	}
	recs[n_recs++] = *r;
}

static int by_time(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;

	return (a->t > b->t) - (a->t < b->t);
}

/* Q, G, D and C of one I/O. */
static void one_io(uint64_t t, uint64_t sector, uint32_t bytes, uint32_t pid,
		   uint32_t dir, uint64_t q2d, uint64_t d2c)
{
	struct rec q = { .t = t, .sector = sector, .bytes = bytes,
			 .pid = pid, .dev = device };
	struct rec g = q, d = q, c = q;

	q.action = ACT(BLK_TA_QUEUE, BLK_TC_QUEUE | dir);
	g.t = t + 500;
	g.action = ACT(BLK_TA_GETRQ, BLK_TC_QUEUE | dir);
	d.t = t + q2d;
	d.action = ACT(BLK_TA_ISSUE, BLK_TC_ISSUE | dir);
	c.t = d.t + d2c;
	c.action = ACT(BLK_TA_COMPLETE, BLK_TC_COMPLETE | dir);
	add(&q);
	add(&g);
	add(&d);
	add(&c);
}

static uint64_t delay_ns(const struct change *ch, double t_s,
			 uint64_t sector, uint32_t pid, uint32_t dir)
{
	uint64_t us = 0;

	if (ch->band_us && sector >= ch->band_lo && sector < ch->band_hi)
		us += ch->band_us;
	if (ch->pid_us && pid == ch->pid)
		us += ch->pid_us;
	if (ch->class_us && (dir == W) == (ch->class_dir == 'w'))
		us += (uint64_t)ch->class_us;
	if (ch->time_us && t_s >= ch->t0 && t_s < ch->t1)
		us += ch->time_us;
	return us * 1000;
}

static void workload(long n, double seconds, const struct change *ch)
{
	static const uint32_t pids[3] = { 100, 200, 300 };
	double step = seconds / (double)n;
	long i;

	for (i = 0; i < n; i++) {
		double t_s = 0.001 + (double)i * step;
		uint32_t pid = pids[next_random() % 3];
		uint32_t dir = uniform() < 0.7 ? R : W;
		uint32_t bytes = uniform() < 0.8 ? 4096 : 16384;
		uint64_t sector = (next_random() % (2097152 / 32)) * 32;
		uint64_t q2d = 20000 + (uint64_t)(uniform() * 40000);
		uint64_t d2c = 60000 + (uint64_t)(uniform() * 240000);

		d2c += delay_ns(ch, t_s, sector, pid, dir);
		one_io((uint64_t)(t_s * 1e9), sector, bytes, pid, dir, q2d,
		       d2c);
	}
	for (i = 0; i < (long)ch->extra_n; i++) {
		double t_s = 0.001 + step / 2 + (double)i * seconds /
					 (double)ch->extra_n;
		/* sectors of their own, apart from the workload's */
		uint64_t sector = 2097152 + (uint64_t)i * 2048;

		one_io((uint64_t)(t_s * 1e9), sector, ch->extra_bytes,
		       ch->extra_pid ? ch->extra_pid : 100,
		       ch->extra_pid ? ch->extra_dir : R, 30000, 400000);
	}
}

static int parse(int argc, char **argv, long *n, double *seconds,
		 uint64_t *seed, struct change *ch)
{
	int i;

	for (i = 2; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];
		unsigned long long a, b, c;
		double x, y;
		char k;

		if (!strcmp(o, "--seed"))
			*seed = strtoull(v, NULL, 10);
		else if (!strcmp(o, "--ios"))
			*n = atol(v);
		else if (!strcmp(o, "--seconds"))
			*seconds = atof(v);
		else if (!strcmp(o, "--delay-band") &&
			 sscanf(v, "%llu:%llu:%llu", &a, &b, &c) == 3) {
			ch->band_lo = a;
			ch->band_hi = b;
			ch->band_us = c;
		} else if (!strcmp(o, "--delay-pid") &&
			   sscanf(v, "%llu:%llu", &a, &b) == 2) {
			ch->pid = (uint32_t)a;
			ch->pid_us = (uint32_t)b;
		} else if (!strcmp(o, "--delay-class") &&
			   sscanf(v, "%c:%llu", &k, &a) == 2) {
			ch->class_dir = k;
			ch->class_us = (int)a;
		} else if (!strcmp(o, "--delay-time") &&
			   sscanf(v, "%lf:%lf:%llu", &x, &y, &a) == 3) {
			ch->t0 = x;
			ch->t1 = y;
			ch->time_us = a;
		} else if (!strcmp(o, "--device") &&
			   sscanf(v, "%llu,%llu", &a, &b) == 2) {
			device = DEV(a, b);
		} else if (!strcmp(o, "--extra") &&
			   sscanf(v, "%llu:%llu", &a, &b) == 2) {
			ch->extra_bytes = (uint32_t)a;
			ch->extra_n = (uint32_t)b;
		} else if (!strcmp(o, "--writer") &&
			   sscanf(v, "%llu:%llu:%llu", &a, &b, &c) == 3) {
			/* another process's writes beside the workload */
			ch->extra_pid = (uint32_t)a;
			ch->extra_dir = W;
			ch->extra_bytes = (uint32_t)b;
			ch->extra_n = (uint32_t)c;
		} else {
			fprintf(stderr, "cmpgen: %s %s: not understood\n", o, v);
			return -1;
		}
	}
	return i == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct change ch;
	double seconds = 20;
	uint64_t seed = 1;
	long n = 20000;
	FILE *f;
	size_t i;

	memset(&ch, 0, sizeof(ch));
	if (argc < 2 || parse(argc, argv, &n, &seconds, &seed, &ch) < 0 ||
	    n <= 0 || seconds <= 0) {
		fprintf(stderr, "usage: cmpgen OUT.dump [--seed N] [--ios N] [--seconds S] [--delay-band LO:HI:US] [--delay-pid PID:US] [--delay-class r|w:US] [--delay-time S0:S1:US] [--extra BYTES:N] [--writer PID:BYTES:N] [--device MAJ,MIN]\n");
		return 2;
	}
	rng_state = seed;
	workload(n, seconds, &ch);
	qsort(recs, n_recs, sizeof(*recs), by_time);
	f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	for (i = 0; i < n_recs; i++)
		tb_write(f, 7, 0, (uint32_t)i + 1, &recs[i]);
	free(recs);
	return fclose(f) ? 1 : 0;
}
