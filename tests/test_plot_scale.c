/*
 * test_plot_scale.c: the arithmetic of axes (plot_scale.c), pure
 * functions tested without a surface: ranges made usable, ticks on
 * 1-2-5 steps and log decades, units taken from a range, and labels that
 * never repeat.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plot.h"

static int labels_distinct(char labels[][PLOT_LABEL_LEN], int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(labels[i], labels[j]) == 0)
				return 0;
	return 1;
}

static void format_ticks(plot_format_fn fn, double min, double max,
			 int max_ticks, char labels[][PLOT_LABEL_LEN], int *n)
{
	double ticks[PLOT_MAX_TICKS];
	struct plot_tick_context ctx = { min, max, 0, 0 };

	ctx.step = plot_ticks(min, max, max_ticks, ticks, n);
	plot_format_labels(fn, &ctx, ticks, *n, labels);
}

/* ---- Ticks ---- */

static int is_nice_step(double step)
{
	double m = step / pow(10, floor(log10(step) + 1e-9));

	return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6;
}

static void test_ticks_are_nice_steps_inside_range(void)
{
	double t[PLOT_MAX_TICKS], step;
	int n;

	step = plot_ticks(0, 10, 6, t, &n);
	CHECK_NEAR(step, 2, 1e-12);
	CHECK_EQ_INT(n, 6);
	CHECK_NEAR(t[0], 0, 0);
	CHECK_NEAR(t[5], 10, 1e-12);
	step = plot_ticks(0.5, 9.5, 5, t, &n);
	CHECK_NEAR(step, 2, 1e-12);
	CHECK_EQ_INT(n, 4);
	CHECK_NEAR(t[0], 2, 1e-12);
	step = plot_ticks(-3, 7, 3, t, &n);
	CHECK_NEAR(step, 5, 1e-12);
	CHECK_EQ_INT(n, 2);
	CHECK_NEAR(t[0], 0, 0);
}

/* Many ranges, every max_ticks: increasing, inside, few enough, labels
 * distinct with both formatters. */
static void test_ticks_never_repeat_and_never_exceed_max(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	double t[PLOT_MAX_TICKS], lo, hi, step;
	int i, k, max_ticks, n, bad = 0;

	srand(7);
	for (i = 0; i < 3000; i++) {
		lo = (rand() % 2000 - 1000) * pow(10, rand() % 24 - 12);
		hi = lo + (rand() % 1000 + 1) * pow(10, rand() % 24 - 12);
		max_ticks = 1 + rand() % 15;
		step = plot_ticks(lo, hi, max_ticks, t, &n);
		plot_sanitize_range(&lo, &hi);	/* tiny ranges widen */
		if (n < 1)
			bad++;
		if (n > max_ticks || !is_nice_step(step))
			bad++;
		for (k = 0; k < n; k++) {
			if (k && !(t[k] > t[k - 1]))
				bad++;
			if (t[k] < lo - step * 1e-6 || t[k] > hi + step * 1e-6)
				bad++;
		}
		format_ticks(plot_format_si, lo, hi, max_ticks, labels, &n);
		bad += !labels_distinct(labels, n);
		format_ticks(plot_format_seconds, lo, hi, max_ticks, labels, &n);
		bad += !labels_distinct(labels, n);
	}
	CHECK_EQ_INT(bad, 0);
}

static void test_ticks_never_repeat_labels(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	int n;

	/* The old iowatcher printed "0 0 0 1" on a queue-depth axis. */
	format_ticks(plot_format_si, 0, 1, 4, labels, &n);
	CHECK_EQ_INT(n, 3);
	CHECK(strcmp(labels[0], "0") == 0);
	CHECK(strcmp(labels[1], "0.5") == 0);
	CHECK(strcmp(labels[2], "1") == 0);
	format_ticks(plot_format_si, 0, 1, 11, labels, &n);
	CHECK_EQ_INT(n, 11);
	CHECK(strcmp(labels[1], "0.1") == 0);
	CHECK(labels_distinct(labels, n));
	format_ticks(plot_format_si, 1000, 1001, 6, labels, &n);
	CHECK(labels_distinct(labels, n));
	CHECK(strcmp(labels[1], "1.0002K") == 0);
}

static void test_si_suffixes(void)
{
	struct plot_tick_context ctx = { 0, 2e6, 500, 0 };
	char buf[PLOT_LABEL_LEN];

	plot_format_si(1500, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "1.5K") == 0);
	plot_format_si(2000000, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "2M") == 0);
	plot_format_si(-1500, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "-1.5K") == 0);
	plot_format_si(0, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "0") == 0);
	ctx.step = 0.5;
	plot_format_si(0.5, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "0.5") == 0);
	plot_format_si(3e9, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "3G") == 0);
	plot_format_si(1234, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "1.23K") == 0);
	plot_format_si(-1e-13, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "0") == 0);	/* never "-0" */
}

/* Offsets of a big device: TiB and up, never "1.18K GiB". */
static void test_bytes_unit_keeps_numbers_below_1000(void)
{
	double scale;

	CHECK_EQ_INT(plot_bytes_unit(256.0 * (1 << 20), 2, &scale), 2);
	CHECK_EQ_INT((long)scale, 1 << 20);
	CHECK(strcmp(plot_bytes_unit_name(2), "MiB") == 0);
	/* 999 GiB stays GiB; 1000 GiB is 0.98 TiB */
	CHECK_EQ_INT(plot_bytes_unit(999 * pow(2, 30), 2, &scale), 3);
	CHECK_EQ_INT(plot_bytes_unit(1000 * pow(2, 30), 2, &scale), 4);
	CHECK(strcmp(plot_bytes_unit_name(4), "TiB") == 0);
	CHECK_EQ_INT(plot_bytes_unit(1.18 * 1024 * pow(2, 30), 2, &scale), 4);
	CHECK_NEAR(scale, pow(2, 40), 1);
	CHECK_EQ_INT(plot_bytes_unit(3 * pow(2, 50), 2, &scale), 5);
	CHECK(strcmp(plot_bytes_unit_name(5), "PiB") == 0);
	/* the last sector a trace can name: 8 EiB, the largest unit */
	CHECK_EQ_INT(plot_bytes_unit(pow(2, 63), 2, &scale), 6);
	CHECK(strcmp(plot_bytes_unit_name(6), "EiB") == 0);
	CHECK_EQ_INT(plot_bytes_unit(1e30, 2, &scale), 6);
	/* never below the smallest unit asked for */
	CHECK_EQ_INT(plot_bytes_unit(4096, 2, &scale), 2);
	CHECK_EQ_INT(plot_bytes_unit(0, 0, &scale), 0);
	CHECK(strcmp(plot_bytes_unit_name(0), "bytes") == 0);
	CHECK_EQ_INT(plot_bytes_unit(NAN, 2, &scale), 2);
}

/* Throughput: GB/s from 1000 MB/s up, never "4K MB/s". */
static void test_rate_axis_takes_its_unit_from_the_range(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN], buf[PLOT_LABEL_LEN];
	int n, i;

	format_ticks(plot_format_mb_per_s, 0, 4000, 5, labels, &n);
	CHECK_EQ_INT(n, 5);
	CHECK(strcmp(labels[0], "0 GB/s") == 0);
	CHECK(strcmp(labels[1], "1 GB/s") == 0);
	CHECK(strcmp(labels[4], "4 GB/s") == 0);
	format_ticks(plot_format_mb_per_s, 0, 2500, 6, labels, &n);
	CHECK(strcmp(labels[1], "0.5 GB/s") == 0);
	format_ticks(plot_format_mb_per_s, 0, 500, 6, labels, &n);
	CHECK(strcmp(labels[1], "100 MB/s") == 0);
	format_ticks(plot_format_mb_per_s, 0, 0.25, 6, labels, &n);
	CHECK(strcmp(labels[1], "50 kB/s") == 0);
	format_ticks(plot_format_mb_per_s, 0, 3e6, 4, labels, &n);
	CHECK(strcmp(labels[1], "1 TB/s") == 0);
	for (i = 0; i < n; i++)
		CHECK(strchr(labels[i], 'K') == NULL);
	plot_format_mb_per_s(1500, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "1.5 GB/s") == 0);
	plot_format_bytes_per_s(512, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "512 B/s") == 0);
}

/* Sizes: the request size axis read "2.5K KiB"; now "2.5 MiB". */
static void test_size_labels_take_a_binary_unit(void)
{
	struct plot_tick_context ctx = { 0, 3 * 1048576.0, 524288, 0 };
	char buf[PLOT_LABEL_LEN];

	plot_format_bytes(2.5 * 1048576, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "2.5 MiB") == 0);
	plot_format_bytes(0, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "0 MiB") == 0);
	ctx = (struct plot_tick_context){ 0, 70 * 1024.0, 10240, 0 };
	plot_format_bytes(20 * 1024, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "20 KiB") == 0);
	/* lone values (a colour bar's ends): three digits in their unit */
	plot_format_kib(2100, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "2.05 MiB") == 0);
	plot_format_kib(1, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "1 KiB") == 0);
	plot_format_kib(1000, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "0.977 MiB") == 0);
	plot_format_bytes(512, NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "512 bytes") == 0);
	plot_format_bytes(3.0 * (1ull << 40), NULL, buf, sizeof(buf));
	CHECK(strcmp(buf, "3 TiB") == 0);
}

static void test_time_axis_uses_seconds_from_two_seconds(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	int n;

	format_ticks(plot_format_seconds, 0, 10, 6, labels, &n);
	CHECK_EQ_INT(n, 6);
	CHECK(strcmp(labels[0], "0 s") == 0);
	CHECK(strcmp(labels[1], "2 s") == 0);
	CHECK(strcmp(labels[2], "4 s") == 0);
	format_ticks(plot_format_seconds, 100, 101, 3, labels, &n);
	CHECK(strcmp(labels[1], "100.5 s") == 0);
}

static void test_time_axis_uses_ms_under_two_seconds(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	int n;

	format_ticks(plot_format_seconds, 0, 1.5, 4, labels, &n);
	CHECK_EQ_INT(n, 4);
	CHECK(strcmp(labels[0], "0 ms") == 0);
	CHECK(strcmp(labels[1], "500 ms") == 0);
	CHECK(strcmp(labels[3], "1500 ms") == 0);
	format_ticks(plot_format_seconds, 0, 1, 6, labels, &n);
	CHECK(strcmp(labels[1], "200 ms") == 0);
}

static void test_time_axis_uses_us_under_two_ms(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	int n;

	format_ticks(plot_format_seconds, 0, 0.0012, 4, labels, &n);
	CHECK(strcmp(labels[1], "500 \xc2\xb5s") == 0);
	format_ticks(plot_format_ns, 0, 1.5e9, 4, labels, &n);
	CHECK(strcmp(labels[1], "500 ms") == 0);
}

/* The old iowatcher ran "0.000.50" together on a time axis. */
static void test_time_labels_carry_units_and_differ(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	int n, i;

	format_ticks(plot_format_seconds, 0, 0.5, 11, labels, &n);
	CHECK_EQ_INT(n, 11);
	CHECK(labels_distinct(labels, n));
	for (i = 0; i < n; i++)
		CHECK(strstr(labels[i], " ms") != NULL);
	CHECK(strcmp(labels[10], "500 ms") == 0);
	format_ticks(plot_format_seconds, 2.0, 2.001, 6, labels, &n);
	CHECK(labels_distinct(labels, n));
}

static void test_degenerate_range_gives_unit_axis(void)
{
	double t[PLOT_MAX_TICKS], lo, hi, step;
	int n;

	step = plot_ticks(0, 0, 6, t, &n);
	CHECK(n >= 2 && step > 0);
	CHECK_NEAR(t[0], 0, 0);
	CHECK_NEAR(t[n - 1], 1, 1e-12);
	plot_ticks(NAN, NAN, 6, t, &n);
	CHECK(n >= 2 && t[n - 1] == 1);
	plot_ticks(-INFINITY, INFINITY, 6, t, &n);
	CHECK(n >= 2 && t[n - 1] == 1);
	lo = 5;
	hi = 5;
	plot_sanitize_range(&lo, &hi);
	CHECK(lo == 0 && hi == 10);
	lo = -2;
	hi = -2;
	plot_sanitize_range(&lo, &hi);
	CHECK(lo == -4 && hi == 0);
	lo = 3;
	hi = NAN;
	plot_sanitize_range(&lo, &hi);
	CHECK(lo == 0 && hi == 6);
	plot_ticks(0, 1, 0, t, &n);	/* max_ticks 0 is taken as 1 */
	CHECK_EQ_INT(n, 1);
	plot_ticks(-1e308, 1e308, 5, t, &n);
	CHECK(n >= 1 && n <= 5);
}

static void test_reversed_range_is_swapped(void)
{
	double lo = 10, hi = 0;

	plot_sanitize_range(&lo, &hi);
	CHECK(lo == 0 && hi == 10);
}

static void test_nice_range_ends_on_ticks(void)
{
	double lo = 0, hi = 137, step;

	step = plot_nice_range(&lo, &hi, 9, 0);
	CHECK_NEAR(step, 20, 1e-12);
	CHECK_NEAR(lo, 0, 0);
	CHECK_NEAR(hi, 140, 1e-9);
	lo = -0.3;
	hi = 0.7;
	step = plot_nice_range(&lo, &hi, 7, 0);
	CHECK_NEAR(step, 0.2, 1e-12);
	CHECK_NEAR(lo, -0.4, 1e-12);
	CHECK_NEAR(hi, 0.8, 1e-12);
	lo = 0;
	hi = 0;
	plot_nice_range(&lo, &hi, 6, 0);
	CHECK(lo == 0 && hi == 1);
}

static void test_integer_axis_has_no_fractional_ticks(void)
{
	double t[PLOT_MAX_TICKS], step;
	int n;

	step = plot_ticks_min_step(0, 2, 10, 1, t, &n);
	CHECK_NEAR(step, 1, 0);
	CHECK_EQ_INT(n, 3);
	step = plot_ticks_min_step(0, 0.5, 10, 1, t, &n);
	CHECK_EQ_INT(n, 1);
	CHECK_NEAR(t[0], 0, 0);
	plot_ticks_min_step(0.2, 0.8, 1, 1, t, &n);	/* no whole number */
	CHECK_EQ_INT(n, 0);
}

static void test_log_ticks_at_powers_of_ten(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	struct plot_tick_context ctx = { 1e3, 1e9, 0, 1 };
	double t[PLOT_MAX_TICKS];
	int n;

	plot_log_ticks(1e3, 1e9, 10, t, &n);	/* 1 us .. 1 s in ns */
	CHECK_EQ_INT(n, 7);
	CHECK_NEAR(t[0], 1e3, 1e-6);
	CHECK_NEAR(t[6], 1e9, 1e-3);
	plot_format_labels(plot_format_ns, &ctx, t, n, labels);
	CHECK(strcmp(labels[0], "1 \xc2\xb5s") == 0);
	CHECK(strcmp(labels[1], "10 \xc2\xb5s") == 0);
	CHECK(strcmp(labels[2], "100 \xc2\xb5s") == 0);
	CHECK(strcmp(labels[3], "1 ms") == 0);
	CHECK(strcmp(labels[6], "1 s") == 0);
	plot_format_labels(plot_format_si, &ctx, t, n, labels);
	CHECK(strcmp(labels[0], "1K") == 0);
	CHECK(strcmp(labels[1], "10K") == 0);
}

static void test_log_ticks_thin_out_when_many_decades(void)
{
	double t[PLOT_MAX_TICKS];
	int n, i;

	plot_log_ticks(1e-9, 1e9, 5, t, &n);
	CHECK(n >= 2 && n <= 5);
	for (i = 1; i < n; i++)
		CHECK_NEAR(log10(t[i]) - log10(t[i - 1]),
			   log10(t[1]) - log10(t[0]), 1e-9);
	plot_log_ticks(2, 40, 8, t, &n);	/* under two decades: 1-2-5 */
	CHECK_EQ_INT(n, 4);
	CHECK_NEAR(t[0], 2, 1e-12);
	CHECK_NEAR(t[1], 5, 1e-12);
	CHECK_NEAR(t[3], 20, 1e-12);
}

static void test_log_range_repairs_nonpositive(void)
{
	double lo = 0, hi = 500;

	plot_log_range(&lo, &hi, 1);
	CHECK(lo > 0 && lo < hi);
	CHECK_NEAR(hi, 1000, 1e-9);
	lo = -1;
	hi = -1;
	plot_log_range(&lo, &hi, 1);
	CHECK(lo > 0 && hi > lo);
	lo = 100;
	hi = 100;
	plot_log_range(&lo, &hi, 1);
	CHECK(lo < 100 && hi >= 100);
}

static void lossy_format(double v, const struct plot_tick_context *ctx,
			 char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "%.0f", v);
}

static void test_label_fallback_when_formatter_repeats(void)
{
	char labels[PLOT_MAX_TICKS][PLOT_LABEL_LEN];
	int n;

	format_ticks(lossy_format, 0, 1, 5, labels, &n);	/* "0 0 1" */
	CHECK_EQ_INT(n, 3);
	CHECK(labels_distinct(labels, n));
	CHECK(strcmp(labels[1], "0.5") == 0);
}

static void test_log_range_widens_to_decades_only_when_nice(void)
{
	double lo = 3, hi = 700;

	plot_log_range(&lo, &hi, 0);
	CHECK_NEAR(lo, 3, 1e-12);
	CHECK_NEAR(hi, 700, 1e-9);
	plot_log_range(&lo, &hi, 1);
	CHECK_NEAR(lo, 1, 1e-12);
	CHECK_NEAR(hi, 1000, 1e-9);
}

/* On a log axis every label takes the unit that suits it. */
static void test_log_axis_labels_take_a_unit_each(void)
{
	struct plot_tick_context ctx = { 1e-6, 1, 0, 1 };
	char buf[PLOT_LABEL_LEN];

	plot_format_seconds(1e-6, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "1 \xc2\xb5s") == 0);
	plot_format_seconds(0.1, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "100 ms") == 0);
	plot_format_seconds(1, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "1 s") == 0);
	ctx.min = 1e3;
	ctx.max = 1e9;
	plot_format_bytes_per_s(1e3, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "1 kB/s") == 0);
	plot_format_bytes_per_s(2e9, &ctx, buf, sizeof(buf));
	CHECK(strcmp(buf, "2 GB/s") == 0);
}

int main(void)
{
	RUN_TEST(test_ticks_are_nice_steps_inside_range);
	RUN_TEST(test_ticks_never_repeat_and_never_exceed_max);
	RUN_TEST(test_ticks_never_repeat_labels);
	RUN_TEST(test_si_suffixes);
	RUN_TEST(test_bytes_unit_keeps_numbers_below_1000);
	RUN_TEST(test_rate_axis_takes_its_unit_from_the_range);
	RUN_TEST(test_size_labels_take_a_binary_unit);
	RUN_TEST(test_time_axis_uses_seconds_from_two_seconds);
	RUN_TEST(test_time_axis_uses_ms_under_two_seconds);
	RUN_TEST(test_time_axis_uses_us_under_two_ms);
	RUN_TEST(test_time_labels_carry_units_and_differ);
	RUN_TEST(test_degenerate_range_gives_unit_axis);
	RUN_TEST(test_reversed_range_is_swapped);
	RUN_TEST(test_nice_range_ends_on_ticks);
	RUN_TEST(test_integer_axis_has_no_fractional_ticks);
	RUN_TEST(test_log_ticks_at_powers_of_ten);
	RUN_TEST(test_log_ticks_thin_out_when_many_decades);
	RUN_TEST(test_log_range_repairs_nonpositive);
	RUN_TEST(test_label_fallback_when_formatter_repeats);
	RUN_TEST(test_log_range_widens_to_decades_only_when_nice);
	RUN_TEST(test_log_axis_labels_take_a_unit_each);
	return check_report();
}
