/*
 * test_fiolog.c: reading fio's bandwidth logs. The real logs are fio
 * 3.33's own: tests/data/fio_bw.log is samples/fio-randrw_bw.1.log
 * (log_avg_msec=250), fio_bw_per_io.log one line per I/O, fio_bw_prio.log
 * with log_offset=1 and log_prio=1.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "reader/fiolog.h"

static char tmp_path[64];

static int load_text(const char *text, struct fiolog *log,
		     struct iow_error *err)
{
	FILE *f;
	int fd, rc;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/test_fiolog.XXXXXX");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return -2;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	rc = fiolog_load(tmp_path, log, err);
	unlink(tmp_path);
	return rc;
}

static void test_averaged_log_alternates_read_and_write(void)
{
	struct fiolog log;
	struct iow_error err = { "" };
	size_t i;

	CHECK_EQ_INT(fiolog_load("tests/data/fio_bw.log", &log, &err), 0);
	CHECK_EQ_INT(log.n, 14);
	if (log.n != 14)
		return;
	/* 396, 1202, 0, 0, 0 and 396, 808, 1, 0, 0 */
	CHECK_NEAR(log.samples[0].time_s, 0.396, 1e-9);
	CHECK_EQ_INT(log.samples[0].value, 1202);
	CHECK_EQ_INT(log.samples[0].dir, FIOLOG_READ);
	CHECK_EQ_INT(log.samples[0].bs, 0);
	CHECK_EQ_INT(log.samples[1].value, 808);
	CHECK_EQ_INT(log.samples[1].dir, FIOLOG_WRITE);
	for (i = 2; i < log.n; i++)
		CHECK(log.samples[i].time_s >= log.samples[i - 2].time_s);
	fiolog_free(&log);
}

static void test_per_io_log_keeps_block_size(void)
{
	struct fiolog log;
	struct iow_error err = { "" };

	CHECK_EQ_INT(fiolog_load("tests/data/fio_bw_per_io.log", &log, &err),
		     0);
	CHECK_EQ_INT(log.n, 20);
	if (log.n != 20)
		return;
	/* 300, 83316, 0, 4096, 0 */
	CHECK_NEAR(log.samples[7].time_s, 0.3, 1e-9);
	CHECK_EQ_INT(log.samples[7].value, 83316);
	CHECK_EQ_INT(log.samples[7].bs, 4096);
	fiolog_free(&log);
}

static void test_offset_and_hex_prio_fields_are_skipped(void)
{
	struct fiolog log;
	struct iow_error err = { "" };

	CHECK_EQ_INT(fiolog_load("tests/data/fio_bw_prio.log", &log, &err), 0);
	CHECK_EQ_INT(log.n, 5);
	if (log.n == 5) {
		/* 800, 94237, 0, 8192, 107880448, 0x0000 */
		CHECK_NEAR(log.samples[4].time_s, 0.8, 1e-9);
		CHECK_EQ_INT(log.samples[4].value, 94237);
		CHECK_EQ_INT(log.samples[4].bs, 8192);
	}
	fiolog_free(&log);
}

static void test_three_fields_and_trim_and_blank_lines(void)
{
	struct fiolog log;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text("\n1500, 20, 2\r\n\n", &log, &err), 0);
	CHECK_EQ_INT(log.n, 1);
	if (log.n == 1) {
		CHECK_EQ_INT(log.samples[0].dir, FIOLOG_TRIM);
		CHECK_EQ_INT(log.samples[0].bs, 0);
	}
	fiolog_free(&log);
}

static void test_empty_log_has_no_samples(void)
{
	struct fiolog log;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text("", &log, &err), 0);
	CHECK_EQ_INT(log.n, 0);
	fiolog_free(&log);
}

/* Bad input: one line naming the file and the line. */
static void check_rejected(const char *text, const char *what)
{
	char want[128];
	struct fiolog log;
	struct iow_error err = { "" };

	CHECK_EQ_INT(load_text(text, &log, &err), -1);
	snprintf(want, sizeof(want), "%s%s", tmp_path, what);
	if (!strstr(err.msg, want))
		fprintf(stderr, "  got: %s\n", err.msg);
	CHECK(strstr(err.msg, want) != NULL);
	CHECK(strchr(err.msg, '\n') == NULL);
	CHECK_EQ_INT(log.n, 0);
}

static void test_text_is_rejected_with_line_number(void)
{
	check_rejected("0, 1, 0, 4096, 0\nhello\n",
		       ":2: expected 'msec, value, ddir, bs, ...', got 'hello'");
}

static void test_empty_field_is_rejected(void)
{
	check_rejected("1000,,1,0\n", ":1: expected");
}

static void test_too_few_fields_and_negative_numbers_are_rejected(void)
{
	check_rejected("1000, 5\n", ":1: expected");
	check_rejected("1000, -5, 0, 0\n", ":1: expected");
}

static void test_unknown_direction_is_rejected(void)
{
	check_rejected("0, 1, 0, 0\n0, 1, 7, 0\n",
		       ":2: data direction 7 is not 0");
}

static void test_missing_file_is_one_line(void)
{
	struct fiolog log;
	struct iow_error err = { "" };

	CHECK_EQ_INT(fiolog_load("/nonexistent/x_bw.1.log", &log, &err), -1);
	CHECK(strstr(err.msg, "/nonexistent/x_bw.1.log: No such file") != NULL);
}

int main(void)
{
	RUN_TEST(test_averaged_log_alternates_read_and_write);
	RUN_TEST(test_per_io_log_keeps_block_size);
	RUN_TEST(test_offset_and_hex_prio_fields_are_skipped);
	RUN_TEST(test_three_fields_and_trim_and_blank_lines);
	RUN_TEST(test_empty_log_has_no_samples);
	RUN_TEST(test_text_is_rejected_with_line_number);
	RUN_TEST(test_empty_field_is_rejected);
	RUN_TEST(test_too_few_fields_and_negative_numbers_are_rejected);
	RUN_TEST(test_unknown_direction_is_rejected);
	RUN_TEST(test_missing_file_is_one_line);
	return check_report();
}
