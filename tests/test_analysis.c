/* test_analysis.c: matching, counting, binning on constructed events. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "reader/blktrace.h"
#include "analysis/ioset.h"
#include "check.h"
#include "reader/lossnote.h"
#include "tracebuild.h"

#define MS 1000000ull
#define S 1000000000ull

static struct analysis a;
static uint64_t n_ev;

static void start(const struct analysis_config *cfg)
{
	struct analysis_config zero = { 0 };
	struct iow_error err;

	n_ev = 0;
	CHECK(analysis_init(&a, cfg ? cfg : &zero, &err) == 0);
}

static void ev(uint64_t t, unsigned code, int write, uint64_t sector,
	       uint32_t bytes, int32_t tag)
{
	static const unsigned cat[] = {
		[BLK_TA_QUEUE] = BLK_TC_QUEUE, [BLK_TA_BACKMERGE] = BLK_TC_QUEUE,
		[BLK_TA_FRONTMERGE] = BLK_TC_QUEUE, [BLK_TA_ISSUE] = BLK_TC_ISSUE,
		[BLK_TA_COMPLETE] = BLK_TC_COMPLETE, [BLK_TA_REQUEUE] = BLK_TC_REQUEUE,
	};
	struct io_event e = { 0 };
	struct iow_error err;

	e.time_ns = t;
	e.sector = sector;
	e.bytes = bytes;
	e.action = code | BLK_TC_ACT(cat[code] | (write ? W : R));
	e.device = DEV(8, 0);
	e.index = n_ev++;
	e.tag = tag;
	CHECK(analysis_add(&a, &e, &err) == 0);
}

/* One I/O: Q at q, D at d, C at c. */
static void io(uint64_t q, uint64_t d, uint64_t c, int write, uint64_t sector,
	       uint32_t bytes)
{
	ev(q, BLK_TA_QUEUE, write, sector, bytes, IO_EVENT_NO_TAG);
	ev(d, BLK_TA_ISSUE, write, sector, bytes, IO_EVENT_NO_TAG);
	ev(c, BLK_TA_COMPLETE, write, sector, bytes, IO_EVENT_NO_TAG);
}

static void test_completions_counted_per_direction(void)
{
	start(NULL);
	io(0, 1 * MS, 2 * MS, 0, 0, 4096);
	io(3 * MS, 4 * MS, 6 * MS, 1, 100, 8192);
	io(7 * MS, 8 * MS, 9 * MS, 1, 200, 512);
	analysis_finish(&a);
	CHECK_EQ_INT(a.n_devices, 1);
	CHECK_EQ_INT(a.devices[0].ios[DIR_READ], 1);
	CHECK_EQ_INT(a.devices[0].bytes[DIR_READ], 4096);
	CHECK_EQ_INT(a.devices[0].ios[DIR_WRITE], 2);
	CHECK_EQ_INT(a.devices[0].bytes[DIR_WRITE], 8704);
	CHECK_EQ_INT(a.devices[0].d2c.n, 3);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].d2c), (1 + 2 + 1) * MS / 3.0, 1);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].q2c), (2 + 3 + 2) * MS / 3.0, 1);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].q2d), 1 * MS, 1);
	analysis_free(&a);
}

static void test_merged_bio_takes_request_issue_and_completion(void)
{
	start(NULL);
	/* bio A at 0 (8 sectors), bio B back-merged at 8, request D 0+16 */
	ev(0, BLK_TA_QUEUE, 1, 0, 4096, IO_EVENT_NO_TAG);
	ev(1 * MS, BLK_TA_QUEUE, 1, 8, 4096, IO_EVENT_NO_TAG);
	ev(1 * MS, BLK_TA_BACKMERGE, 1, 8, 4096, IO_EVENT_NO_TAG);
	ev(2 * MS, BLK_TA_ISSUE, 1, 0, 8192, IO_EVENT_NO_TAG);
	ev(5 * MS, BLK_TA_COMPLETE, 1, 0, 8192, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	CHECK_EQ_INT(a.devices[0].ios[DIR_WRITE], 1);
	CHECK_EQ_INT(a.devices[0].merges[DIR_WRITE], 1);
	CHECK_EQ_INT(a.devices[0].d2c.n, 2);	/* per bio, as btt */
	CHECK_NEAR(latency_mean_ns(&a.devices[0].d2c), 3 * MS, 1);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].q2c), (5 + 4) * MS / 2.0, 1);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].q2d), (2 + 1) * MS / 2.0, 1);
	analysis_free(&a);
}

static void test_front_merge_matches_from_new_start(void)
{
	start(NULL);
	ev(0, BLK_TA_QUEUE, 0, 8, 4096, IO_EVENT_NO_TAG);
	ev(1 * MS, BLK_TA_QUEUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(1 * MS, BLK_TA_FRONTMERGE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(2 * MS, BLK_TA_ISSUE, 0, 0, 8192, IO_EVENT_NO_TAG);
	ev(4 * MS, BLK_TA_COMPLETE, 0, 0, 8192, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	CHECK_EQ_INT(a.devices[0].d2c.n, 2);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].q2c), (4 + 3) * MS / 2.0, 1);
	analysis_free(&a);
}

static void test_completion_without_queue_still_gives_d2c(void)
{
	start(NULL);
	ev(0, BLK_TA_ISSUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(3 * MS, BLK_TA_COMPLETE, 0, 0, 4096, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	CHECK_EQ_INT(a.devices[0].d2c.n, 1);
	CHECK_EQ_INT(a.devices[0].q2c.n, 0);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].d2c), 3 * MS, 1);
	analysis_free(&a);
}

static void test_queue_depth_is_time_weighted_exactly(void)
{
	start(NULL);
	/* depth 1 over [0,1), 2 over [1,2), 1 over [2,4): area 5 s */
	ev(0, BLK_TA_ISSUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(1 * S, BLK_TA_ISSUE, 0, 100, 4096, IO_EVENT_NO_TAG);
	ev(2 * S, BLK_TA_COMPLETE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(4 * S, BLK_TA_COMPLETE, 0, 100, 4096, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	CHECK_NEAR(a.devices[0].depth_area_ns / 1e9, 5.0, 1e-9);
	CHECK_NEAR(analysis_duration_s(&a), 4.0, 1e-9);
	{
		double area = 0;
		size_t i;

		for (i = 0; i < a.n_bins; i++)
			area += a.bins[i].depth_area_ns;
		CHECK_NEAR(area / 1e9, 5.0, 1e-6);
		/* the bin holding t = 1.5 s has depth 2 throughout */
		i = (size_t)(1.5e9 / (double)a.bin_width_ns);
		CHECK_NEAR(a.bins[i].depth_area_ns / (double)a.bin_width_ns,
			   2.0, 1e-9);
	}
	analysis_free(&a);
}

/* The reader's note that cpu's file ends early at t (to the set's end). */
static void file_end_note(uint64_t t, unsigned cpu, uint64_t end)
{
	struct lossnote n = { 0, 0, cpu, t, end };
	char text[LOSSNOTE_TEXT_MAX];
	struct io_event e = { 0 };
	struct iow_error err;

	e.time_ns = t;
	e.action = LOSSNOTE_ACTION;
	e.cpu = cpu;
	e.pdu_len = lossnote_format_file_end(&n, text);
	e.pdu = (const unsigned char *)text;
	e.index = n_ev++;
	e.tag = IO_EVENT_NO_TAG;
	CHECK(analysis_add(&a, &e, &err) == 0);
}

static void test_file_cut_short_leaves_no_stall(void)
{
	double area = 0;
	size_t i;

	start(NULL);
	/* depth 1 over [0, 1 s), 3 over [0.5, 1 s): two requests in flight
	 * when cpu 1's file ends at 1 s (their completions were in it),
	 * one issued after: none of them is a stall to the end at 4 s */
	ev(0, BLK_TA_QUEUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(0, BLK_TA_ISSUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(S / 2, BLK_TA_QUEUE, 0, 100, 4096, IO_EVENT_NO_TAG);
	ev(S / 2, BLK_TA_ISSUE, 0, 100, 4096, IO_EVENT_NO_TAG);
	ev(S / 2, BLK_TA_QUEUE, 1, 200, 4096, IO_EVENT_NO_TAG);
	ev(S / 2, BLK_TA_ISSUE, 1, 200, 4096, IO_EVENT_NO_TAG);
	ev(1 * S, BLK_TA_COMPLETE, 0, 0, 4096, IO_EVENT_NO_TAG);
	file_end_note(1 * S, 1, 4 * S);
	ev(2 * S, BLK_TA_QUEUE, 0, 300, 4096, IO_EVENT_NO_TAG);
	ev(2 * S, BLK_TA_ISSUE, 0, 300, 4096, IO_EVENT_NO_TAG);
	ev(3 * S, BLK_TA_COMPLETE, 0, 100, 4096, IO_EVENT_NO_TAG);
	ev(4 * S, BLK_TA_COMPLETE, 0, 300, 4096, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	/* 1 s at depth 1, 0.5 s at 2 more: the area before the cut */
	CHECK_NEAR(a.devices[0].depth_area_ns / 1e9, 2.0, 1e-9);
	for (i = 0; i < a.n_bins; i++)
		area += a.bins[i].depth_area_ns;
	CHECK_NEAR(area / 1e9, 2.0, 1e-6);
	CHECK_EQ_INT(a.devices[0].lost_in_flight, 2);
	CHECK_EQ_INT(a.n_loss, 1);
	CHECK_EQ_INT(a.loss[0].from_ns, 1 * S);
	CHECK_EQ_INT(a.loss[0].to_ns, 4 * S);
	CHECK_EQ_INT(a.loss[0].ended_cpu_mask, 1u << 1);
	CHECK_NEAR(analysis_clean_s(&a), 1.0, 1e-9);
	/* the first I/O alone is timed; the completions after are counted */
	CHECK_EQ_INT(a.devices[0].d2c.n, 1);
	CHECK_EQ_INT(a.devices[0].ios[OP_READ], 3);
	analysis_free(&a);
}

static void test_requeue_leaves_the_queue(void)
{
	start(NULL);
	ev(0, BLK_TA_ISSUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(1 * S, BLK_TA_REQUEUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(3 * S, BLK_TA_ISSUE, 0, 0, 4096, IO_EVENT_NO_TAG);
	ev(4 * S, BLK_TA_COMPLETE, 0, 0, 4096, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	CHECK_NEAR(a.devices[0].depth_area_ns / 1e9, 2.0, 1e-9);
	CHECK_NEAR(latency_mean_ns(&a.devices[0].d2c), 1.0 * S, 1);
	analysis_free(&a);
}

static void test_seeks_count_non_contiguous_issues(void)
{
	start(NULL);
	io(0, 1, 2, 0, 0, 4096);	/* 0..8 */
	io(3, 4, 5, 0, 8, 4096);	/* contiguous */
	io(6, 7, 8, 0, 1000, 4096);	/* seek */
	io(9, 10, 11, 0, 16, 4096);	/* seek back */
	analysis_finish(&a);
	CHECK_EQ_INT(a.devices[0].seeks, 2);
	analysis_free(&a);
}

static void test_bins_of_a_six_second_trace_are_10ms(void)
{
	uint64_t t;

	start(NULL);
	for (t = 0; t < 6 * S; t += 5 * MS)
		io(t, t + MS / 2, t + MS, 1, t / MS * 8, 4096);
	analysis_finish(&a);
	CHECK_EQ_INT(a.bin_width_ns, 10 * MS);
	CHECK(a.n_bins > 500 && a.n_bins <= 601);
	analysis_free(&a);
}

/* The map's columns: 10 us for a 9 ms trace, the bins' 10 ms for 6 s. */
static void test_map_columns_follow_the_trace_length(void)
{
	uint64_t t, ios = 0;
	size_t i = 0;
	struct iomap_point p;

	start(NULL);
	for (t = 0; t < 9 * MS; t += MS / 4)
		io(t, t + 10000, t + 20000, 1, t / 1000, 4096);
	analysis_finish(&a);
	CHECK_EQ_INT(a.map_width_ns, 10000);
	CHECK_EQ_INT(analysis_map_cols(&a), (9 * MS - MS / 4 + 10000) / 10000 + 1);
	CHECK_EQ_INT(a.bin_width_ns, MS);
	analysis_free(&a);

	start(NULL);
	for (t = 0; t < 6 * S; t += 5 * MS)
		io(t, t + MS / 2, t + MS, 1, t / MS * 8, 4096);
	analysis_finish(&a);
	CHECK_EQ_INT(a.map_width_ns, a.bin_width_ns);
	CHECK(analysis_map_cols(&a) <= IOMAP_COLS);
	while (iomap_next(&a.iomaps[0], &i, &p)) {
		CHECK(p.col < analysis_map_cols(&a));
		ios += p.count;
	}
	CHECK_EQ_INT(ios, 6 * S / (5 * MS));	/* every issue mapped once */
	analysis_free(&a);
}

static void test_coarsening_keeps_every_total(void)
{
	uint64_t t, ios = 0, bytes = 0, seeks = 0, d2c = 0;
	size_t i;

	start(NULL);
	for (t = 0; t < 100 * S; t += 7 * MS) {
		io(t, t + MS, t + 3 * MS, (t / MS) & 1, (t / MS) * 64, 4096);
	}
	analysis_finish(&a);
	for (i = 0; i < a.n_bins; i++) {
		ios += a.bins[i].ios[0] + a.bins[i].ios[1];
		bytes += a.bins[i].bytes[0] + a.bins[i].bytes[1];
		seeks += a.bins[i].seeks;
		d2c += a.bins[i].d2c_n[0] + a.bins[i].d2c_n[1];
	}
	CHECK_EQ_INT(ios, a.devices[0].ios[0] + a.devices[0].ios[1]);
	CHECK_EQ_INT(bytes, a.devices[0].bytes[0] + a.devices[0].bytes[1]);
	CHECK_EQ_INT(seeks, a.devices[0].seeks);
	CHECK_EQ_INT(d2c, a.devices[0].d2c.n);
	CHECK(a.n_bins <= ANALYSIS_MAX_BINS);
	CHECK_EQ_INT(a.bin_width_ns, 100 * MS);	/* 1000 bins */
	/* per-bin latency quantile: every I/O took 2 ms */
	CHECK_NEAR(analysis_bin_latency_q(&a, 3, -1, 0.5), 2.0 * MS,
		   2.0 * MS / 16);
	analysis_free(&a);
}

/*
 * The report's bins: a trace analysed with fine bins (10 us, up to 16384
 * of them), then widened step by step until analysis_bins_usual, has the
 * bins of the same trace analysed as usual, bin for bin.
 */
static void feed_mixed(uint64_t length_ns)
{
	uint64_t t;

	for (t = 0; t < length_ns; t += 3 * MS + (t / MS) % 7 * 100000) {
		int w = (t / MS) & 1;

		io(t, t + (t / MS) % 5 * 100000 + 1000,
		   t + (t / MS) % 5 * 300000 + 50000, w,
		   (t / MS) * 64 % 100000, 4096u << (t / MS % 3));
	}
}

static void check_fine_bins_widen_to_usual(uint64_t length_ns)
{
	struct analysis_config fine = { .first_bin_ns = 10000,
					.max_bins = 16384 };
	struct analysis usual;
	size_t i, steps = 0;
	int op;

	start(NULL);
	feed_mixed(length_ns);
	analysis_finish(&a);
	usual = a;
	start(&fine);
	feed_mixed(length_ns);
	analysis_finish(&a);
	CHECK(a.bin_width_ns < usual.bin_width_ns);
	while (!analysis_bins_usual(&a) && steps++ < 40)
		analysis_coarsen(&a);
	CHECK_EQ_INT(a.bin_width_ns, usual.bin_width_ns);
	CHECK_EQ_INT(a.n_bins, usual.n_bins);
	for (i = 0; i < a.n_bins && i < usual.n_bins; i++) {
		const struct bin *x = &a.bins[i], *y = &usual.bins[i];

		for (op = 0; op < N_OPS; op++) {
			const uint32_t *hx = analysis_bin_lat_hist(&a, i, op);
			const uint32_t *hy = analysis_bin_lat_hist(&usual, i,
								   op);

			CHECK_EQ_INT(x->ios[op], y->ios[op]);
			CHECK_EQ_INT(x->bytes[op], y->bytes[op]);
			CHECK_EQ_INT(x->d2c_n[op], y->d2c_n[op]);
			CHECK_EQ_INT(x->d2c_sum_ns[op], y->d2c_sum_ns[op]);
			CHECK_EQ_INT(x->d2c_max_ns[op], y->d2c_max_ns[op]);
			CHECK_EQ_INT(x->q2c_sum_ns[op], y->q2c_sum_ns[op]);
			CHECK((hx == NULL) == (hy == NULL));
			if (hx && hy)
				CHECK(!memcmp(hx, hy, LAT_BIN_BUCKETS *
					      sizeof(*hx)));
		}
		CHECK_EQ_INT(x->seeks, y->seeks);
		CHECK_NEAR(x->depth_area_ns, y->depth_area_ns,
			   1e-9 * y->depth_area_ns + 1e-3);
		CHECK_NEAR(a.devices[0].depth_bins[i],
			   usual.devices[0].depth_bins[i],
			   1e-9 * usual.devices[0].depth_bins[i] + 1e-3);
	}
	analysis_free(&a);
	analysis_free(&usual);
}

static void test_fine_bins_widen_to_the_usual_ones(void)
{
	check_fine_bins_widen_to_usual(6 * S);	/* 10 ms bins */
	check_fine_bins_widen_to_usual(100 * MS);	/* 1 ms: never finer */
	check_fine_bins_widen_to_usual(3 * S + 7 * MS);
}

static void test_time_range_counts_only_inside(void)
{
	struct analysis_config cfg = { 0 };

	cfg.has_time_range = 1;
	cfg.time_min_ns = 1 * S;
	cfg.time_max_ns = 2 * S;
	start(&cfg);
	io(0, MS, 2 * MS, 0, 0, 4096);
	io(S + 1, S + MS, S + 2 * MS, 0, 100, 4096);
	io(S + 10 * MS, S + 11 * MS, 2 * S + 1, 0, 200, 4096);
	analysis_finish(&a);
	CHECK_EQ_INT(a.devices[0].ios[DIR_READ], 1);
	CHECK_NEAR(analysis_bin_start_s(&a, 0), 1.0, 1e-9);
	analysis_free(&a);
}

static void test_offset_range_counts_only_inside(void)
{
	struct analysis_config cfg = { 0 };

	cfg.has_offset_range = 1;
	cfg.offset_min = 1 << 20;
	cfg.offset_max = 2 << 20;
	start(&cfg);
	io(0, MS, 2 * MS, 0, 0, 4096);
	io(3 * MS, 4 * MS, 5 * MS, 0, (1 << 20) / 512 + 8, 4096);
	io(6 * MS, 7 * MS, 8 * MS, 0, (2 << 20) / 512, 4096);
	analysis_finish(&a);
	CHECK_EQ_INT(a.devices[0].ios[DIR_READ], 1);
	analysis_free(&a);
}

static void test_tag_of_queue_wins_over_issue(void)
{
	start(NULL);
	analysis_enable_tags(&a);
	ev(0, BLK_TA_QUEUE, 1, 0, 4096, 5);
	ev(MS, BLK_TA_ISSUE, 1, 0, 4096, 9);
	ev(2 * MS, BLK_TA_COMPLETE, 1, 0, 4096, IO_EVENT_NO_TAG);
	/* no tag at Q: the issue's tag */
	ev(3 * MS, BLK_TA_QUEUE, 1, 100, 4096, IO_EVENT_NO_TAG);
	ev(4 * MS, BLK_TA_ISSUE, 1, 100, 4096, 9);
	ev(5 * MS, BLK_TA_COMPLETE, 1, 100, 8192, IO_EVENT_NO_TAG);
	/* no tag at all */
	io(6 * MS, 7 * MS, 8 * MS, 0, 300, 512);
	analysis_finish(&a);
	CHECK_EQ_INT(a.n_tags, 3);
	{
		size_t i;

		for (i = 0; i < a.n_tags; i++) {
			const struct tag_stats *t = &a.tags[i];

			if (t->id == 5)
				CHECK_EQ_INT(t->bytes[DIR_WRITE], 4096);
			else if (t->id == 9)
				CHECK_EQ_INT(t->bytes[DIR_WRITE], 8192);
			else
				CHECK(t->id == IO_EVENT_NO_TAG &&
				      t->bytes[DIR_READ] == 512 &&
				      !strcmp(t->label, "untagged"));
		}
	}
	analysis_free(&a);
}

/* One write of bytes at sector, tagged tag all along. */
static void tagged_write(uint64_t t, uint64_t sector, uint32_t bytes,
			 int32_t tag)
{
	ev(t, BLK_TA_QUEUE, 1, sector, bytes, tag);
	ev(t + 1000, BLK_TA_ISSUE, 1, sector, bytes, tag);
	ev(t + 2000, BLK_TA_COMPLETE, 1, sector, bytes, tag);
}

static void test_tags_rank_by_bytes_then_ios_then_first_seen(void)
{
	size_t slots[8];
	int32_t want[] = { 2, 3, 1, 5, 4 }, got[5];
	long n, i, k;

	start(NULL);
	analysis_enable_tags(&a);
	for (k = 0; k < 5; k++)		/* many small I/Os: 2560 bytes */
		tagged_write((uint64_t)k * MS, 1000 + (uint64_t)k * 8, 512, 1);
	tagged_write(10 * MS, 2000, 4096, 2);	/* one big: 4096 */
	tagged_write(11 * MS, 3000, 4096, 3);	/* as big, seen later */
	tagged_write(12 * MS, 4000, 512, 4);	/* 512 in one I/O */
	tagged_write(13 * MS, 5000, 256, 5);	/* 512 in two */
	tagged_write(14 * MS, 5100, 256, 5);
	analysis_finish(&a);
	n = analysis_rank_tags(&a, slots);
	CHECK_EQ_INT(n, 5);
	for (i = 0; i < n && i < 5; i++)
		got[i] = a.tags[slots[i]].id;
	for (i = 0; i < 5; i++)
		CHECK_EQ_INT(got[i], want[i]);
	analysis_free(&a);
}

static void test_inflight_memory_is_swept_when_completions_are_lost(void)
{
	uint64_t i;

	start(NULL);
	/* 300k queued bios that never complete, spread over 10 minutes */
	for (i = 0; i < 300000; i++)
		ev(i * 2 * MS, BLK_TA_QUEUE, 0, i * 8, 4096, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	/* more than 120 s old are forgotten: at most ~60k+65k remain */
	CHECK(((struct ioset *)a.private)->len < 140000);
	analysis_free(&a);
}

static void test_io_map_rows_cover_offsets(void)
{
	size_t i, total = 0;
	int rows_seen_low = 0, rows_seen_high = 0;
	struct iomap_point p;

	start(NULL);
	io(0, MS, 2 * MS, 1, 0, 4096);
	io(3 * MS, 4 * MS, 5 * MS, 1, 2000000000ull, 4096); /* ~1 TB */
	analysis_finish(&a);
	i = 0;
	while (iomap_next(&a.iomaps[0], &i, &p)) {
		uint64_t lo, hi;

		total += p.count;
		analysis_map_row_bytes(&a, 0, p.row, &lo, &hi);
		if (lo == 0)
			rows_seen_low = 1;
		if (lo <= 2000000000ull * 512 && hi > 2000000000ull * 512)
			rows_seen_high = 1;
		CHECK_EQ_INT(p.dir, DIR_WRITE);
		CHECK_EQ_INT(p.bytes, 4096);
	}
	CHECK_EQ_INT(total, 2);
	CHECK(rows_seen_low && rows_seen_high);
	analysis_free(&a);
}

static void test_request_size_quantiles_are_exact_for_powers_of_two(void)
{
	int i;

	start(NULL);
	for (i = 0; i < 10; i++)
		io(i * 10000, i * 10000 + 1, i * 10000 + 2, 1, i * 1000,
		   i < 7 ? 4096 : 65536);
	analysis_finish(&a);
	CHECK_EQ_INT(analysis_bin_size_q(&a, 0, DIR_WRITE, 0.5), 4096);
	CHECK_EQ_INT(analysis_bin_size_q(&a, 0, DIR_WRITE, 0.9), 65536);
	analysis_free(&a);
}

/* The map of an untagged trace is dense: its size does not grow. */
static void test_io_map_memory_is_fixed_and_totals_survive_merging(void)
{
	uint64_t t, sum = 0, bytes = 0;
	struct iomap_point p;
	size_t i = 0;

	start(NULL);
	for (t = 0; t < 300 * S; t += 3 * MS)
		io(t, t + 10, t + 20, (t / MS) & 1, (t * 7919) % 100000000, 4096);
	analysis_finish(&a);
	CHECK(a.iomaps[0].cells == NULL);	/* nothing sparse */
	while (iomap_next(&a.iomaps[0], &i, &p)) {
		sum += p.count;
		bytes += p.bytes;
		CHECK(p.col < analysis_map_cols(&a));
	}
	CHECK_EQ_INT(sum, a.devices[0].ios[0] + a.devices[0].ios[1]);
	CHECK_EQ_INT(bytes, a.devices[0].bytes[0] + a.devices[0].bytes[1]);
	analysis_free(&a);
}

struct sample_log {
	unsigned n_completions, n_d2c, n_q2c, n_d2c_only;
	uint64_t bytes, d2c_sum, q2c_sum, last_time;
};

static void log_sample(void *ctx, const struct analysis_sample *s)
{
	struct sample_log *l = ctx;

	if (s->what == ANALYSIS_COMPLETION) {
		l->n_completions++;
		l->bytes += s->bytes;
		l->last_time = s->time_ns;
		return;
	}
	if (s->what & ANALYSIS_D2C) {
		l->n_d2c++;
		l->d2c_sum += s->d2c_ns;
	}
	if (s->what & ANALYSIS_Q2C) {
		l->n_q2c++;
		l->q2c_sum += s->q2c_ns;
	}
	if (s->what == ANALYSIS_D2C)
		l->n_d2c_only++;
}

static void test_sample_hook_sees_what_the_summary_counts(void)
{
	struct sample_log log = { 0 };
	struct analysis_config cfg = { .on_sample = log_sample,
				       .sample_ctx = &log, .per_device = 1 };

	start(&cfg);
	io(0, 1 * MS, 2 * MS, 0, 0, 4096);
	io(3 * MS, 4 * MS, 7 * MS, 1, 100, 8192);
	/* queued before the trace: a D2C without a Q2C */
	ev(8 * MS, BLK_TA_ISSUE, 0, 500, 4096, IO_EVENT_NO_TAG);
	ev(9 * MS, BLK_TA_COMPLETE, 0, 500, 4096, IO_EVENT_NO_TAG);
	analysis_finish(&a);
	/* told once, though the per-device part counts them too */
	CHECK_EQ_INT(log.n_completions, 3);
	CHECK_EQ_INT(log.bytes, 4096 + 8192 + 4096);
	CHECK_EQ_INT(log.last_time, 9 * MS);
	CHECK_EQ_INT(log.n_d2c, a.devices[0].d2c.n);
	CHECK_EQ_INT(log.n_q2c, a.devices[0].q2c.n);
	CHECK_EQ_INT(log.n_d2c_only, 1);
	CHECK_NEAR((double)log.d2c_sum, a.devices[0].d2c.sum_ns, 1);
	CHECK_NEAR((double)log.q2c_sum, a.devices[0].q2c.sum_ns, 1);
	analysis_free(&a);
}

int main(void)
{
	RUN_TEST(test_sample_hook_sees_what_the_summary_counts);
	RUN_TEST(test_completions_counted_per_direction);
	RUN_TEST(test_merged_bio_takes_request_issue_and_completion);
	RUN_TEST(test_front_merge_matches_from_new_start);
	RUN_TEST(test_completion_without_queue_still_gives_d2c);
	RUN_TEST(test_queue_depth_is_time_weighted_exactly);
	RUN_TEST(test_requeue_leaves_the_queue);
	RUN_TEST(test_seeks_count_non_contiguous_issues);
	RUN_TEST(test_bins_of_a_six_second_trace_are_10ms);
	RUN_TEST(test_map_columns_follow_the_trace_length);
	RUN_TEST(test_coarsening_keeps_every_total);
	RUN_TEST(test_fine_bins_widen_to_the_usual_ones);
	RUN_TEST(test_time_range_counts_only_inside);
	RUN_TEST(test_offset_range_counts_only_inside);
	RUN_TEST(test_tag_of_queue_wins_over_issue);
	RUN_TEST(test_tags_rank_by_bytes_then_ios_then_first_seen);
	RUN_TEST(test_inflight_memory_is_swept_when_completions_are_lost);
	RUN_TEST(test_io_map_rows_cover_offsets);
	RUN_TEST(test_io_map_memory_is_fixed_and_totals_survive_merging);
	RUN_TEST(test_request_size_quantiles_are_exact_for_powers_of_two);
	RUN_TEST(test_file_cut_short_leaves_no_stall);
	return check_report();
}
