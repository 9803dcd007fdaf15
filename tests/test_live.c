/* test_live.c: the live view's merge of the recorder's records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/live.h"
#include "check.h"
#include "tracebuild.h"

#define MS 1000000ull
#define N_IOS 600	/* one every 5 ms: 3 s */

static uint64_t base_ns;

/* I/O i: Q and D on CPU i % 2, its C on the other CPU 1 ms later. */
static int make_records(struct blk_io_trace *r)
{
	int i, n = 0;

	for (i = 0; i < N_IOS; i++) {
		uint64_t t = base_ns + (uint64_t)i * 5 * MS;
		struct blk_io_trace io = {
			.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
			.sector = (uint64_t)i * 8, .bytes = 4096,
			.pid = 42, .device = DEV(8, 0), .cpu = (uint32_t)i % 2,
		};

		io.time = t;
		io.action = ACT(BLK_TA_QUEUE, BLK_TC_QUEUE | R);
		r[n++] = io;
		io.time = t + MS / 10;
		io.action = ACT(BLK_TA_ISSUE, BLK_TC_ISSUE | R);
		r[n++] = io;
		io.time = t + MS;
		io.cpu = 1 - io.cpu;
		io.action = ACT(BLK_TA_COMPLETE, BLK_TC_COMPLETE | R);
		r[n++] = io;
	}
	return n;
}

static int by_time(const void *x, const void *y)
{
	const struct blk_io_trace *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return (int)a->cpu - (int)b->cpu;
}

/*
 * The records as a recorder would hand them over, a tick after every
 * 100 ms: each CPU's in time order, CPU 1's held back lag_ms; with
 * tells, each tick says how far all are handed over (complete_ns).
 * Returns what the view printed in mode (JSON lines, a screen).
 */
static char *watch_told(const struct blk_io_trace *recs, int n,
			uint64_t lag_ms, int tells, enum live_mode mode)
{
	struct record_progress prog = { .tracer = RECORD_FTRACE,
					.kernel_completed = UINT64_MAX };
	struct live_opts o = { .mode = mode, .interval_s = 1,
			       .trace_path = "t", .key_fd = -1 };
	struct record_tap tap;
	struct iow_error err;
	char *text = NULL;
	size_t size = 0;
	uint64_t tick = base_ns;
	int i0 = 0, i1 = 0;
	struct live *l;

	/* the screen writes to the file's descriptor */
	o.out = mode == LIVE_SCREEN ? tmpfile() :
					    open_memstream(&text, &size);
	CHECK(o.out != NULL);
	l = live_open(&o, &err);
	CHECK(l != NULL);
	live_tap(l, &tap);
	/* the records of each CPU up to the tick (CPU 1's lag_ms older) */
	while (i0 < n || i1 < n) {
		tick += 100 * MS;
		for (; i0 < n && (recs[i0].cpu != 0 || recs[i0].time < tick);
		     i0++)
			if (recs[i0].cpu == 0)
				tap.record(tap.ctx, &recs[i0], NULL);
		for (; i1 < n && (recs[i1].cpu != 1 ||
				  recs[i1].time + lag_ms * MS < tick); i1++)
			if (recs[i1].cpu == 1)
				tap.record(tap.ctx, &recs[i1], NULL);
		if (tells)
			prog.complete_ns = tick - lag_ms * MS;
		tap.tick(tap.ctx, &prog);
	}
	CHECK(live_finish(l, &err) == 0);
	live_close(l);
	if (mode == LIVE_SCREEN) {
		size = (size_t)ftell(o.out);
		text = calloc(1, size + 1);
		rewind(o.out);
		CHECK(text && fread(text, 1, size, o.out) == size);
	}
	fclose(o.out);
	return text;
}

static char *watch(const struct blk_io_trace *recs, int n, uint64_t lag_ms)
{
	return watch_told(recs, n, lag_ms, 0, LIVE_JSON);
}

/* Whether the JSON lines of a and b but the last have the same
 * "devices" each (the last one's span may differ). */
static int same_devices(const char *a, const char *b)
{
	const char *da, *db, *ea, *eb;

	for (;;) {
		da = strstr(a, "\"devices\": ");
		db = strstr(b, "\"devices\": ");
		if (!da || !db)
			return !da && !db;
		ea = strchr(da, '\n');
		eb = strchr(db, '\n');
		if (ea && eb && !strchr(ea + 1, '\n') &&
		    !strchr(eb + 1, '\n'))
			return 1;
		if (!ea || !eb || ea - da != eb - db ||
		    memcmp(da, db, (size_t)(ea - da)))
			return 0;
		a = ea;
		b = eb;
	}
}

/* queue_depth_mean of the last JSON line */
static double last_depth(const char *text)
{
	const char *p = text, *found = NULL;

	while ((p = strstr(p, "\"queue_depth_mean\": ")))
		found = p++;
	return found ? strtod(found + 20, NULL) : -1;
}

/* late_records of the last JSON line */
static long last_late(const char *text)
{
	const char *p = text, *found = NULL;

	while ((p = strstr(p, "\"late_records\": ")))
		found = p++;
	return found ? strtol(found + 16, NULL, 10) : -1;
}

static void test_cpus_late_within_the_window_merge_as_the_files_do(void)
{
	static struct blk_io_trace recs[3 * N_IOS];
	int n = make_records(recs);
	char *sorted, *late;

	qsort(recs, (size_t)n, sizeof(*recs), by_time);
	sorted = watch(recs, n, 0);
	late = watch(recs, n, LIVE_REORDER_MS - 20);
	CHECK(strstr(sorted, "\"start_s\": 2.000000") != NULL);
	CHECK(last_late(sorted) == 0);
	CHECK(strstr(sorted, "\"read\": {\"ios\": 200, \"bytes\": 819200}") !=
	      NULL);
	CHECK(strcmp(sorted, late) == 0);
	free(sorted);
	free(late);
}

static void test_records_later_than_the_window_are_counted_late(void)
{
	static struct blk_io_trace recs[3 * N_IOS];
	int n = make_records(recs);
	char *late;

	qsort(recs, (size_t)n, sizeof(*recs), by_time);
	late = watch(recs, n, LIVE_REORDER_MS + 150);
	/* the last interval's count is the whole run's */
	CHECK(last_late(late) > 0);
	/* each I/O is 0.9 ms on the device every 5 ms: 0.18 once none
	 * comes late. A late issue analysed after its completion stayed in
	 * flight for ever: the depth climbed from interval to interval */
	CHECK(last_depth(late) > 0.17 && last_depth(late) < 0.19);
	free(late);
}

static void test_the_screen_says_records_came_late(void)
{
	static struct blk_io_trace recs[3 * N_IOS];
	int n = make_records(recs);
	char *screen;

	qsort(recs, (size_t)n, sizeof(*recs), by_time);
	screen = watch_told(recs, n, LIVE_REORDER_MS + 150, 0, LIVE_SCREEN);
	/* on a line of its own: at the header's end it was cut off */
	CHECK(strstr(screen, "\r\n\033[1m 72 records came late (72 in it): "
		      "the figures may differ from -x") != NULL);
	free(screen);
}

static void test_a_recorder_that_tells_how_far_it_is_whole_has_none_late(void)
{
	static struct blk_io_trace recs[3 * N_IOS];
	int n = make_records(recs);
	char *sorted, *told;

	qsort(recs, (size_t)n, sizeof(*recs), by_time);
	sorted = watch(recs, n, 0);
	/* CPU 1 four times the window behind: merged only as far as told */
	told = watch_told(recs, n, 4 * LIVE_REORDER_MS, 1, LIVE_JSON);
	CHECK(last_late(told) == 0);
	/* the figures of each interval alike (an interval closes at the
	 * tick, before the next record: "records" may differ; the last
	 * ends at its full width, the recording idle past it) */
	CHECK(same_devices(sorted, told));
	free(sorted);
	free(told);
}

/* A zoned device's zone reset of a 256 MiB zone, told with its zone
 * category (a version-8 recording's action bits 32-63): the view counts
 * it as zone management that moved no bytes, not as a 256 MiB write. */
static void test_a_zone_reset_told_with_its_category_moves_no_bytes(void)
{
	struct live_opts o = { .mode = LIVE_JSON, .interval_s = 1,
			       .trace_path = "t", .key_fd = -1 };
	struct record_progress prog = { .tracer = RECORD_BPF,
					.kernel_completed = UINT64_MAX };
	struct blk_io_trace io = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
		.sector = 524288, .bytes = 256u << 20, .pid = 42,
		.device = DEV(8, 16),
	};
	static const unsigned codes[3][2] = {
		{ BLK_TA_QUEUE, BLK_TC_QUEUE }, { BLK_TA_ISSUE, BLK_TC_ISSUE },
		{ BLK_TA_COMPLETE, BLK_TC_COMPLETE },
	};
	struct record_tap tap;
	struct iow_error err;
	char *text = NULL;
	size_t size = 0;
	struct live *l;
	int i;

	o.out = open_memstream(&text, &size);
	CHECK(o.out != NULL);
	l = live_open(&o, &err);
	CHECK(l != NULL);
	live_tap(l, &tap);
	CHECK(tap.record_hi != NULL);
	for (i = 0; i < 3; i++) {
		io.time = base_ns + (uint64_t)i * MS;
		io.action = ACT(codes[i][0], codes[i][1] | W);
		tap.record_hi(tap.ctx, &io, BLK_TC2_ZONE_RESET, NULL);
	}
	prog.complete_ns = base_ns + 2 * 1000 * MS;
	tap.tick(tap.ctx, &prog);
	CHECK(live_finish(l, &err) == 0);
	live_close(l);
	fclose(o.out);
	CHECK(text && strstr(text, "\"write\": {\"ios\": 0, \"bytes\": 0}"));
	CHECK(text && strstr(text, "\"zone-mgmt\": {\"ios\": 1, \"bytes\": 0}"));
	free(text);
}

/* The JSON line of the interval that starts at start_s ("1.000000"). */
static const char *interval_line(const char *text, const char *start_s)
{
	char key[64];

	snprintf(key, sizeof(key), "{\"start_s\": %s", start_s);
	return strstr(text, key);
}

/* a number after key in line (up to its end), or -1 */
static double line_number(const char *line, const char *key)
{
	const char *end = strchr(line, '\n'), *p = strstr(line, key);

	return p && (!end || p < end) ? strtod(p + strlen(key), NULL) : -1;
}

/*
 * I/O 190's completion is lost (issued at 0.950 s); I/O 210 (1.050 s) is
 * of its sector: its completion finds 190 out 100 ms, a hundred times
 * the usual 0.9 ms, so 190 is judged lost there (analysis_holes.c). The
 * interval 1-2 s names it, and its depth is the intact 0.18: neither
 * 190's time in it nor its time before it (already in interval 0's
 * figure) taken off this one's. The screen says HOLE.
 */
static void test_a_request_judged_lost_is_said_and_leaves_the_depth(void)
{
	static struct blk_io_trace recs[3 * N_IOS];
	int n = make_records(recs), i, k = 0;
	const char *line;
	char *json, *screen;

	for (i = 0; i < n; i++) {
		if (recs[i].sector == 190 * 8 &&
		    (recs[i].action & 0xffff) == BLK_TA_COMPLETE)
			continue;
		if (recs[i].sector == 210 * 8)
			recs[i].sector = 190 * 8;
		recs[k++] = recs[i];
	}
	qsort(recs, (size_t)k, sizeof(*recs), by_time);
	json = watch_told(recs, k, 0, 1, LIVE_JSON);
	line = interval_line(json, "1.000000");
	CHECK(line != NULL);
	if (line) {
		CHECK(line_number(line, "\"orphan_requests\": ") == 1);
		CHECK(line_number(line, "\"lossy_s\": ") == 0);
		CHECK(line_number(line, "\"queue_depth_mean\": ") > 0.17 &&
		      line_number(line, "\"queue_depth_mean\": ") < 0.19);
		CHECK(strstr(line, "\"inferred_windows\": [{\"device\": \"8,0\", "
			     "\"kind\": \"orphan_requests\"") != NULL);
	}
	line = interval_line(json, "0.000000");
	CHECK(line && line_number(line, "\"orphan_requests\": ") == 0);
	free(json);
	screen = watch_told(recs, k, 0, 1, LIVE_SCREEN);
	CHECK(strstr(screen, " HOLE inferred on 8,0 in this interval: 1 "
		     "request whose completion was lost") != NULL);
	free(screen);
}

int main(void)
{
	struct timespec ts;

	/* an hour ahead of the clock: never taken for records of now */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	base_ns = ((uint64_t)ts.tv_sec + 3600) * 1000000000ull;
	RUN_TEST(test_cpus_late_within_the_window_merge_as_the_files_do);
	RUN_TEST(test_records_later_than_the_window_are_counted_late);
	RUN_TEST(test_a_recorder_that_tells_how_far_it_is_whole_has_none_late);
	RUN_TEST(test_the_screen_says_records_came_late);
	RUN_TEST(test_a_zone_reset_told_with_its_category_moves_no_bytes);
	RUN_TEST(test_a_request_judged_lost_is_said_and_leaves_the_depth);
	return check_report();
}
