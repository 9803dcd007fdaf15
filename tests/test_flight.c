/*
 * test_flight.c: the flight recorder's engine (record/flight.c) on
 * records made here, no kernel needed: the triggers' language, one
 * spike one capture (whole, its window's records, its note), none
 * without a spike, triggers close together joining one capture and far
 * apart making two, a percentile over a second firing on 5% slow I/O
 * and not on 0.5%, the queue depth, a class scope, and the memory bound.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "record/flight.h"
#include "record/tracefs.h"

#define MS	1000000ull
#define DEV	((7u << 20) | 99u)

static char dir[64];
/* whether the last capture read says the memory bound took its start */
static int mem_noted;

struct feed {
	struct blk_io_trace *recs;
	size_t n, cap;
};

static void put(struct feed *f, uint64_t t, unsigned code, unsigned cat,
		uint64_t sector)
{
	struct blk_io_trace *r;

	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 1024;
		f->recs = realloc(f->recs, f->cap * sizeof(*f->recs));
	}
	r = &f->recs[f->n++];
	memset(r, 0, sizeof(*r));
	r->magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7;
	r->time = t;
	r->sector = sector;
	r->bytes = 4096;
	r->action = code | BLK_TC_ACT(cat);
	r->pid = 42;
	r->device = DEV;
}

/* One request: queued at t, issued 10 us later, done d2c after. */
static void io(struct feed *f, uint64_t t, uint64_t d2c, uint64_t sector,
	       unsigned dir_cat)
{
	put(f, t, BLK_TA_QUEUE, dir_cat | BLK_TC_QUEUE, sector);
	put(f, t + 10000, BLK_TA_ISSUE, dir_cat | BLK_TC_ISSUE, sector);
	put(f, t + 10000 + d2c, BLK_TA_COMPLETE, dir_cat | BLK_TC_COMPLETE,
	    sector);
}

static int by_time(const void *a, const void *b)
{
	const struct blk_io_trace *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static void clean_dir(void)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' || strstr(de->d_name, "partial")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
}

static unsigned count_captures(void)
{
	char path[512];
	unsigned n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "%s/t-%u.blktrace.0", dir, n + 1);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

/* Runs the records (sorted, in drains of 100 ms) through a flight
 * recorder of these options; the result in *r. */
static void run(struct feed *f, struct flight_opts *o,
		struct flight_result *r)
{
	struct record_device dev = { .path = "/dev/fake99", .dev = DEV };
	uint32_t devices[1] = { DEV };
	struct iow_error err = { "" };
	struct flight *fl;
	size_t i = 0;
	uint64_t until;

	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	/* the captures say one line each on stderr: not this test's */
	fflush(stderr);
	dup2(null, 2);
	clean_dir();
	qsort(f->recs, f->n, sizeof(*f->recs), by_time);
	fl = flight_new(o, dir, "t", &dev, devices, 1, 1, 0, &err);
	if (!fl) {
		dup2(saved, 2);
		CHECK(fl != NULL);
		return;
	}
	for (until = 100 * MS; i < f->n; until += 100 * MS) {
		const struct blk_io_trace *batch[4096];
		const struct blk_io_trace *const *per_cpu[1] = { batch };
		size_t n = 0;

		while (i < f->n && f->recs[i].time < until && n < 4096)
			batch[n++] = &f->recs[i++];
		CHECK_EQ_INT(flight_take(fl, per_cpu, &n, until, &err), 0);
	}
	CHECK_EQ_INT(flight_finish(fl, &err), 0);
	flight_result(fl, r);
	flight_free(fl);
	f->n = 0;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
}

static void opts(struct flight_opts *o, struct flight_trigger *t,
		 const char *const *exprs, size_t n)
{
	char why[512];
	size_t i;

	memset(o, 0, sizeof(*o));
	o->window_ns = 5000 * MS;
	o->mem_bytes = 64ull << 20;
	o->before_ns = UINT64_MAX;
	o->after_ns = 500 * MS;
	for (i = 0; i < n; i++)
		CHECK_EQ_INT(flight_trigger_parse(exprs[i], &t[i], why,
						  sizeof(why)), 0);
	o->triggers = t;
	o->n_triggers = n;
}

/* 3 s of reads every 10 ms, 1 ms each, with slow ones at these times */
static void steady(struct feed *f, const uint64_t *slow_ms, size_t n_slow,
		   uint64_t slow_d2c)
{
	uint64_t t;
	size_t k;

	for (t = 1000 * MS; t < 4000 * MS; t += 10 * MS)
		io(f, t, MS, 1000 + t / MS * 8, BLK_TC_READ);
	for (k = 0; k < n_slow; k++)
		io(f, slow_ms[k] * MS + 5 * MS, slow_d2c, 8, BLK_TC_READ);
}

static void test_parse(void)
{
	static const char *const good[] = {
		"d2c>10ms", "q2c>500us", "q2d>2s", "p99(q2c)>5ms",
		"p99.9(d2c)>1ms", "depth>64", "read.d2c>20ms", "sdb.depth>32",
		"sdb.write.q2c>1ms",
	};
	static const char *const bad[] = {
		"", "d2c", "d2c>", "d2c>10", "d2c>-1ms", "d2c>0ms", "x>1ms",
		"p100(d2c)>1ms", "p99(depth)>3", "read.depth>4", "depth>0",
		"read.write.d2c>1ms", "write.sdb.d2c>1ms", "d2c<1ms",
		"p99q2c>1ms", ".d2c>1ms",
	};
	struct flight_trigger t;
	char why[512];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK_EQ_INT(flight_trigger_parse(good[i], &t, why,
						  sizeof(why)), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CHECK_EQ_INT(flight_trigger_parse(bad[i], &t, why,
						  sizeof(why)), -1);
		CHECK(strstr(why, "expected [DEVICE.]") != NULL);
	}
	flight_trigger_parse("sdb.write.p99(q2c)>1.5ms", &t, why, sizeof(why));
	CHECK(!strcmp(t.device, "sdb"));
	CHECK_EQ_INT(t.cls, FLIGHT_WRITE);
	CHECK_EQ_INT(t.metric, FLIGHT_Q2C);
	CHECK_NEAR(t.pct, 99, 1e-9);
	CHECK_EQ_INT(t.threshold, 1500000);
}

/* A capture's file of CPU 0: its I/O records' times, its note. */
static void read_capture(unsigned n, uint64_t *first, uint64_t *last,
			 size_t *events, int *noted)
{
	char path[512], text[400];
	struct blk_io_trace t;
	FILE *f;

	snprintf(path, sizeof(path), "%s/t-%u.blktrace.0", dir, n);
	f = fopen(path, "rb");
	*first = UINT64_MAX;
	*last = *events = 0;
	*noted = 0;
	mem_noted = 0;
	while (f && fread(&t, sizeof(t), 1, f) == 1) {
		size_t len = t.pdu_len < sizeof(text) - 1 ? t.pdu_len :
			     sizeof(text) - 1;

		if (fread(text, 1, t.pdu_len, f) != t.pdu_len && t.pdu_len <= len)
			break;
		text[len] = '\0';
		if (blk_is_note(t.action)) {
			if (strstr(text, "flight capture t-") &&
			    strstr(text, "d2c>20ms"))
				*noted = 1;
			if (strstr(text, "memory bound"))
				mem_noted = 1;
			continue;
		}
		if (t.time < *first)
			*first = t.time;
		if (t.time > *last)
			*last = t.time;
		++*events;
	}
	if (f)
		fclose(f);
}

static void test_one_spike(void)
{
	static const char *const e[] = { "d2c>20ms" };
	static const uint64_t slow[] = { 2500 };
	struct flight_trigger t[1];
	struct flight_opts o;
	struct flight_result r;
	struct feed f = { 0 };
	uint64_t first, last;
	size_t events;
	int noted;

	opts(&o, t, e, 1);
	steady(&f, slow, 1, 50 * MS);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 1);
	CHECK_EQ_INT(count_captures(), 1);
	read_capture(1, &first, &last, &events, &noted);
	CHECK(noted);
	/* fired 2.555 s into a 5 s window, nothing let go: the note does
	 * not blame the memory bound (it did while the window's start was
	 * before the clock's 0) */
	CHECK(!mem_noted);
	/* all kept before (from 1 s, the first record), 0.5 s after the
	 * completion at 2.555 s */
	CHECK_EQ_INT(first, 1000 * MS);
	CHECK(last <= 2555 * MS + 10000 + 500 * MS);
	CHECK(last >= 2555 * MS + 10000 + 400 * MS);
	free(f.recs);
}

static void test_none_and_scopes(void)
{
	static const char *const e[] = { "d2c>20ms", "write.d2c>1ms",
					 "fake99.q2c>60ms" };
	static const uint64_t slow[] = { 2500 };
	struct flight_trigger t[3];
	struct flight_opts o;
	struct flight_result r;
	struct feed f = { 0 };

	opts(&o, t, e, 3);
	steady(&f, NULL, 0, 0);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 0);
	CHECK_EQ_INT(count_captures(), 0);
	/* a 50 ms read spike: the read trigger, not the write one nor the
	 * device's q2c one past 60 ms */
	opts(&o, t, e + 1, 2);
	steady(&f, slow, 1, 50 * MS);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 0);
	free(f.recs);
}

static void test_join_and_two(void)
{
	static const char *const e[] = { "d2c>20ms" };
	static const uint64_t close_by[] = { 2000, 2200 };
	static const uint64_t far[] = { 1500, 3000 };
	struct flight_trigger t[1];
	struct flight_opts o;
	struct flight_result r;
	struct feed f = { 0 };

	opts(&o, t, e, 1);
	steady(&f, close_by, 2, 50 * MS);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 1);
	CHECK_EQ_INT(r.joined, 1);
	steady(&f, far, 2, 50 * MS);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 2);
	CHECK_EQ_INT(count_captures(), 2);
	free(f.recs);
}

static void test_percentile(void)
{
	static const char *const e[] = { "p99(d2c)>20ms" };
	struct flight_trigger t[1];
	struct flight_opts o;
	struct flight_result r;
	struct feed f = { 0 };
	uint64_t slow[60];
	size_t k;

	/* 1 in 200 slow (0.5%): the p99 stays fast */
	for (k = 0; k < 3; k++)
		slow[k] = 1200 + k * 1000;
	opts(&o, t, e, 1);
	steady(&f, slow, 3, 50 * MS);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 0);
	/* 5% slow in the second from 2 s: the p99 is slow, as long as
	 * they are in the sliding second (to 3.9 s): one capture, the
	 * later firings inside its 2 s after joining it */
	for (k = 0; k < 10; k++)
		slow[k] = 2000 + k * 100;
	o.after_ns = 2000 * MS;
	steady(&f, slow, 10, 50 * MS);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 1);
	free(f.recs);
}

static void test_depth(void)
{
	static const char *const e[] = { "depth>4" };
	struct flight_trigger t[1];
	struct flight_opts o;
	struct flight_result r;
	struct feed f = { 0 };
	unsigned k;

	opts(&o, t, e, 1);
	for (k = 0; k < 4; k++)	/* 4 at once: not past 4 */
		io(&f, 1000 * MS + k * 1000, 5 * MS, 8 * k, BLK_TC_READ);
	io(&f, 2000 * MS, MS, 800, BLK_TC_READ);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 0);
	for (k = 0; k < 5; k++)	/* 5 at once */
		io(&f, 1000 * MS + k * 1000, 5 * MS, 8 * k, BLK_TC_READ);
	io(&f, 2000 * MS, MS, 800, BLK_TC_READ);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 1);
	free(f.recs);
}

static void test_memory_bound(void)
{
	static const char *const e[] = { "d2c>20ms" };
	static const uint64_t slow[] = { 3900 };
	struct flight_trigger t[1];
	struct flight_opts o;
	struct flight_result r;
	struct feed f = { 0 };
	uint64_t tm, first, last;
	size_t events;
	int noted;

	opts(&o, t, e, 1);
	o.mem_bytes = FLIGHT_MIN_MEM;
	/* 3 s of 48-byte records at 30,000 a second: 4.3 MB */
	for (tm = 1000 * MS; tm < 4000 * MS; tm += MS / 10)
		io(&f, tm, MS / 20, 1000 + tm / 1000 * 8, BLK_TC_READ);
	io(&f, slow[0] * MS, 50 * MS, 8, BLK_TC_READ);
	run(&f, &o, &r);
	CHECK(r.mem_bound);
	CHECK(r.peak_bytes <= FLIGHT_MIN_MEM);
	CHECK(r.evicted_by_mem > 0);
	CHECK_EQ_INT(r.captures, 1);
	read_capture(1, &first, &last, &events, &noted);
	CHECK(noted);
	CHECK(first > 1000 * MS);	/* the oldest went for the bound */
	CHECK(mem_noted);		/* and the note says so */
	CHECK(events > 1000);
	free(f.recs);
}

/*
 * Compact records: what a capture holds reads back as the records taken,
 * field by field (times, large sectors, odd sizes, pids, errors, many
 * actions, another device's), in under half the bytes. (Payloads and
 * notes: t_flight's captures of the kernel's records.)
 */
static void test_compact(void)
{
	static const char *const e[] = { "d2c>20ms" };
	struct flight_trigger t[1];
	struct flight_opts o;
	struct flight_result r;
	struct feed f = { 0 };
	struct blk_io_trace *in, got;
	char path[512], pdu[1024];
	size_t n_in, k, i, matched = 0, bad = 0;
	FILE *fp;

	opts(&o, t, e, 1);
	o.after_ns = 100 * MS;
	for (k = 0; k < 3000; k++) {
		uint64_t tm = 1000 * MS + k * 333333 + (k % 7) * 11;

		put(&f, tm, (unsigned)(k % 15) + 1, (unsigned)1 << (k % 10),
		    (k % 5 == 0 ? (1ull << 41) : 0) + k * 8 + (k % 3));
		f.recs[f.n - 1].bytes = k % 4 == 0 ? 0 : (uint32_t)(k * 513);
		f.recs[f.n - 1].pid = 1000 + (uint32_t)(k / 10) * 77777;
		f.recs[f.n - 1].error = k % 11 == 0 ? (uint16_t)-5 : 0;
		f.recs[f.n - 1].device = k % 13 == 0 ? ((8u << 20) | 1) : DEV;
	}
	/* the spike that fires, at 2 s: all 3000 are in the window */
	io(&f, 1990 * MS, 30 * MS, 999999, BLK_TC_READ);
	n_in = f.n;
	in = malloc(n_in * sizeof(*in));
	memcpy(in, f.recs, n_in * sizeof(*in));
	qsort(in, n_in, sizeof(*in), by_time);
	run(&f, &o, &r);
	CHECK_EQ_INT(r.captures, 1);
	CHECK(r.records >= n_in);
	/* 48 bytes each as blktrace's, under half of it held */
	CHECK(r.compact_bytes * 2 < r.raw_bytes);
	snprintf(path, sizeof(path), "%s/t-1.blktrace.0", dir);
	fp = fopen(path, "rb");
	CHECK(fp != NULL);
	i = 0;
	while (fp && fread(&got, sizeof(got), 1, fp) == 1) {
		if (got.pdu_len > sizeof(pdu) ||
		    fread(pdu, 1, got.pdu_len, fp) != got.pdu_len)
			break;
		if (blk_is_note(got.action))
			continue;
		while (i < n_in && in[i].time < got.time)
			i++;
		if (i < n_in && in[i].time == got.time &&
		    in[i].sector == got.sector && in[i].bytes == got.bytes &&
		    in[i].action == got.action && in[i].pid == got.pid &&
		    in[i].device == got.device && in[i].error == got.error &&
		    in[i].cpu == got.cpu && got.pdu_len == 0) {
			matched++;
			i++;
		} else {
			bad++;
		}
	}
	if (fp)
		fclose(fp);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(matched, n_in);
	free(in);
	free(f.recs);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_flight.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_parse);
	RUN_TEST(test_one_spike);
	RUN_TEST(test_none_and_scopes);
	RUN_TEST(test_join_and_two);
	RUN_TEST(test_percentile);
	RUN_TEST(test_depth);
	RUN_TEST(test_memory_bound);
	RUN_TEST(test_compact);
	clean_dir();
	rmdir(dir);
	return check_report();
}
