/*
 * test_cpustat.c: reading mpstat output. The main case is a real file,
 * `mpstat -P ALL 1` (sysstat 12.6.1, LC_ALL=C S_TIME_FORMAT=ISO) recorded
 * beside samples/fio-randrw; the others are small variations on it.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "reader/cpustat.h"

#define REAL_MPSTAT "tests/data/mpstat-2cpu.txt"

static const char banner[] =
	"Linux 6.18.44-fc-v657 (vm) \t2026-11-22 \t_x86_64_\t(2 CPU)\n\n";
static const char header[] =
	"03:17:24     CPU    %usr   %nice    %sys %iowait    %irq   %soft  "
	"%steal  %guest  %gnice   %idle\n";

static char tmp_path[64];

/* Writes text to a fresh temporary file; its name is in tmp_path. */
static const char *temp_file(const char *text)
{
	FILE *f;
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/test_cpustat.XXXXXX");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return "/nonexistent";
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return tmp_path;
}

static int load_text(const char *text, struct cpustat *cs,
		     struct iow_error *err)
{
	int rc = cpustat_load(temp_file(text), cs, err);

	unlink(tmp_path);
	return rc;
}

static void test_real_file_gives_five_seconds_for_all_and_each_cpu(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };
	size_t i;

	CHECK_EQ_INT(cpustat_load(REAL_MPSTAT, &cs, &err), 0);
	CHECK_EQ_INT(cs.n_cpus, 2);
	CHECK_EQ_INT(cs.all.n, 5);	/* "Average:" rows are not samples */
	if (cs.n_cpus != 2 || cs.all.n != 5)
		return;
	CHECK_EQ_INT(cs.cpus[0].n, 5);
	CHECK_EQ_INT(cs.cpus[1].n, 5);
	for (i = 0; i < cs.all.n; i++)
		CHECK_NEAR(cs.all.samples[i].time_s, (double)i, 1e-9);
	CHECK_EQ_INT(cs.fields, (1u << CPUSTAT_N_FIELDS) - 1);
	cpustat_free(&cs);
}

static void test_real_file_values_land_in_their_columns(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };
	const struct cpustat_sample *s;

	if (cpustat_load(REAL_MPSTAT, &cs, &err) || cs.n_cpus < 2) {
		CHECK(0);
		return;
	}
	/* 03:17:25 all 27.41 0.00 36.55 0.00 0.00 1.02 9.64 0.00 0.00 25.38 */
	s = &cs.all.samples[0];
	CHECK_NEAR(s->pct[CPUSTAT_USR], 27.41, 1e-4);
	CHECK_NEAR(s->pct[CPUSTAT_SYS], 36.55, 1e-4);
	CHECK_NEAR(s->pct[CPUSTAT_SOFT], 1.02, 1e-4);
	CHECK_NEAR(s->pct[CPUSTAT_STEAL], 9.64, 1e-4);
	CHECK_NEAR(s->pct[CPUSTAT_IDLE], 25.38, 1e-4);
	/* 03:17:28 all ... %iowait 1.00 */
	CHECK_NEAR(cs.all.samples[3].pct[CPUSTAT_IOWAIT], 1.0, 1e-4);
	/* 03:17:25 1 26.53 0.00 32.65 0.00 0.00 2.04 9.18 0.00 0.00 29.59 */
	s = &cs.cpus[1].samples[0];
	CHECK_NEAR(s->pct[CPUSTAT_USR], 26.53, 1e-4);
	CHECK_NEAR(s->pct[CPUSTAT_SOFT], 2.04, 1e-4);
	CHECK_NEAR(s->pct[CPUSTAT_IDLE], 29.59, 1e-4);
	cpustat_free(&cs);
}

static void test_start_time_is_banner_date_plus_first_row_time(void)
{
	struct tm tm = { .tm_year = 126, .tm_mon = 10, .tm_mday = 22,
			 .tm_hour = 3, .tm_min = 17, .tm_sec = 25,
			 .tm_isdst = -1 };
	struct cpustat cs;
	struct iow_error err = { "" };

	if (cpustat_load(REAL_MPSTAT, &cs, &err)) {
		CHECK(0);
		return;
	}
	CHECK_EQ_INT(cs.start_time, mktime(&tm));
	cpustat_free(&cs);
}

static void test_banner_only_gives_empty_series(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text(banner, &cs, &err), 0);
	CHECK_EQ_INT(cs.all.n, 0);
	CHECK_EQ_INT(cs.n_cpus, 0);
	cpustat_free(&cs);
}

static void test_am_pm_times_and_midnight_wrap(void)
{
	char text[1024];
	struct cpustat cs;
	struct iow_error err = { "" };

	snprintf(text, sizeof(text), "%s%s%s%s", banner,
		 "11:59:58 PM  CPU %usr %sys %idle\n",
		 "11:59:59 PM  all 1.00 2.00 97.00\n",
		 "12:00:01 AM  all 3.00 4.00 93.00\n");
	CHECK_EQ_INT(load_text(text, &cs, &err), 0);
	CHECK_EQ_INT(cs.all.n, 2);
	if (cs.all.n == 2) {
		CHECK_NEAR(cs.all.samples[1].time_s, 2.0, 1e-9);
		CHECK_NEAR(cs.all.samples[1].pct[CPUSTAT_SYS], 4.0, 1e-4);
	}
	cpustat_free(&cs);
}

static void test_24h_midnight_wrap(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text("23:59:58  CPU %usr %idle\n"
			       "23:59:59  all 1.00 99.00\n"
			       "00:00:00  all 1.00 99.00\n", &cs, &err), 0);
	CHECK_EQ_INT(cs.all.n, 2);
	if (cs.all.n == 2)
		CHECK_NEAR(cs.all.samples[1].time_s, 1.0, 1e-9);
	CHECK_EQ_INT(cs.start_time, 0);	/* no banner, no date */
	cpustat_free(&cs);
}

static void test_old_column_names_and_missing_columns(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text("10:00:00 CPU %user %nice %system %iowait "
			       "%irq %soft %steal %idle\n"
			       "10:00:01 0 5.00 0.00 6.00 7.00 0.00 0.00 "
			       "0.00 82.00\n", &cs, &err), 0);
	CHECK_EQ_INT(cs.n_cpus, 1);
	CHECK(!(cs.fields & (1u << CPUSTAT_GNICE)));
	CHECK(cs.fields & (1u << CPUSTAT_IOWAIT));
	if (cs.n_cpus == 1 && cs.cpus[0].n == 1) {
		CHECK_NEAR(cs.cpus[0].samples[0].pct[CPUSTAT_USR], 5.0, 1e-4);
		CHECK_NEAR(cs.cpus[0].samples[0].pct[CPUSTAT_SYS], 6.0, 1e-4);
		CHECK_NEAR(cs.cpus[0].samples[0].pct[CPUSTAT_IOWAIT], 7.0,
			   1e-4);
	}
	cpustat_free(&cs);
}

static void test_decimal_comma(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text("10:00:00 CPU %usr %idle\n"
			       "10:00:01 all 0,50 99,50\n", &cs, &err), 0);
	if (cs.all.n == 1)
		CHECK_NEAR(cs.all.samples[0].pct[CPUSTAT_USR], 0.5, 1e-4);
	cpustat_free(&cs);
}

/* Bad input: one line naming the file and the line. */
static void check_rejected(const char *text, const char *what)
{
	char want[128];
	struct cpustat cs;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text(text, &cs, &err), -1);
	snprintf(want, sizeof(want), "%s:", tmp_path);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(strstr(err.msg, what) != NULL);
	CHECK(strchr(err.msg, '\n') == NULL);
	CHECK_EQ_INT(cs.all.n, 0);	/* nothing half-loaded is left */
}

static void test_bad_value_names_file_line_and_token(void)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s%s%s", banner, header,
		 "03:17:25 all 1.00 0.00 abc 0.00 0.00 0.00 0.00 0.00 0.00 "
		 "99.00\n");
	check_rejected(text, ":4: not a percentage: 'abc'");
}

static void test_short_row_is_rejected(void)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s%s%s", banner, header,
		 "03:17:25 all 1.00 0.00\n");
	check_rejected(text, ":4: 3 columns, the header has 11");
}

static void test_row_before_header_is_rejected(void)
{
	check_rejected("03:17:25 all 1.00 0.00\n", ":1: a row before any");
}

static void test_bad_cpu_and_bad_time_are_rejected(void)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s%s%s", banner, header,
		 "03:17:25 x 1 0 0 0 0 0 0 0 0 99\n");
	check_rejected(text, ":4: not a CPU: 'x'");
	snprintf(text, sizeof(text), "%s%s%s", banner, header,
		 "03:77:25 all 1 0 0 0 0 0 0 0 0 99\n");
	check_rejected(text, ":4: expected a time, got '03:77:25'");
}

static void test_other_text_is_not_mpstat(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text("", &cs, &err), -1);
	CHECK(strstr(err.msg, "not mpstat output") != NULL);
	check_rejected("hello world\n", ":1: expected a time, got 'hello'");
}

static void test_missing_file_is_one_line(void)
{
	struct cpustat cs;
	struct iow_error err = { "" };

	CHECK_EQ_INT(cpustat_load("/nonexistent/x.mpstat", &cs, &err), -1);
	CHECK(strstr(err.msg, "/nonexistent/x.mpstat: No such file") != NULL);
}

static void test_field_names(void)
{
	CHECK(!strcmp(cpustat_field_name(CPUSTAT_IOWAIT), "iowait"));
	CHECK(!strcmp(cpustat_field_name(CPUSTAT_N_FIELDS), "?"));
}

int main(void)
{
	RUN_TEST(test_real_file_gives_five_seconds_for_all_and_each_cpu);
	RUN_TEST(test_real_file_values_land_in_their_columns);
	RUN_TEST(test_start_time_is_banner_date_plus_first_row_time);
	RUN_TEST(test_banner_only_gives_empty_series);
	RUN_TEST(test_am_pm_times_and_midnight_wrap);
	RUN_TEST(test_24h_midnight_wrap);
	RUN_TEST(test_old_column_names_and_missing_columns);
	RUN_TEST(test_decimal_comma);
	RUN_TEST(test_bad_value_names_file_line_and_token);
	RUN_TEST(test_short_row_is_rejected);
	RUN_TEST(test_row_before_header_is_rejected);
	RUN_TEST(test_bad_cpu_and_bad_time_are_rejected);
	RUN_TEST(test_other_text_is_not_mpstat);
	RUN_TEST(test_missing_file_is_one_line);
	RUN_TEST(test_field_names);
	return check_report();
}
