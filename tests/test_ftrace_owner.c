/*
 * test_ftrace_owner.c: putting back what a killed recording left on,
 * from the lines of the blk tracer's owner file (ftrace_owner.c): the
 * devices' tracing off first, then each setting in the order written,
 * only under the tracing directory and /sys, a line it does not know
 * refused in one line, a failed write named.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "record/ftrace_owner.h"

struct writes {
	char log[1024];
	int fail_at;		/* 1-based; 0: none fails */
	int n;
};

static int record_write(void *ctx, const char *path, const char *value)
{
	struct writes *w = ctx;
	size_t len = strlen(w->log);

	if (++w->n == w->fail_at) {
		errno = EBUSY;
		return -1;
	}
	snprintf(w->log + len, sizeof(w->log) - len, "%s=%s;", path, value);
	return 0;
}

static void test_devices_go_off_first_then_settings_in_order(void)
{
	struct writes w = { "", 0, 0 };
	struct iow_error err = { "" };
	long pid = 0;

	CHECK_EQ_INT(ftrace_owner_put_back(
		"pid 4242\n"
		"set current_tracer nop\n"
		"enable /sys/dev/block/7:0/trace\n"
		"set trace_clock local\n"
		"enable /sys/dev/block/7:1/trace\n"
		"set buffer_size_kb 1408\n", "/T", record_write, &w, &pid,
		&err), 0);
	CHECK_EQ_INT(pid, 4242);
	CHECK(!strcmp(w.log,
		"/sys/dev/block/7:0/trace/enable=0;"
		"/sys/dev/block/7:1/trace/enable=0;"
		"/T/current_tracer=nop;/T/trace_clock=local;"
		"/T/buffer_size_kb=1408;"));
}

static void test_an_option_keeps_its_path(void)
{
	struct writes w = { "", 0, 0 };
	struct iow_error err = { "" };
	long pid = 0;

	CHECK_EQ_INT(ftrace_owner_put_back("pid 7\nset options/blk_cgroup 1\n",
					   "/T", record_write, &w, &pid, &err),
		     0);
	CHECK(!strcmp(w.log, "/T/options/blk_cgroup=1;"));
}

static void test_lines_without_a_pid_are_a_dead_recording_still(void)
{
	struct writes w = { "", 0, 0 };
	struct iow_error err = { "" };
	long pid = 0;

	CHECK_EQ_INT(ftrace_owner_put_back("set current_tracer nop", "/T",
					   record_write, &w, &pid, &err), 0);
	CHECK_EQ_INT(pid, -1);
	CHECK(!strcmp(w.log, "/T/current_tracer=nop;"));
}

static void refused(const char *lines, const char *what)
{
	struct writes w = { "", 0, 0 };
	struct iow_error err = { "" };
	long pid = 0;

	CHECK_EQ_INT(ftrace_owner_put_back(lines, "/T", record_write, &w,
					   &pid, &err), -1);
	CHECK(strstr(err.msg, "a line that is no setting of the tracer") &&
	      strstr(err.msg, what));
	CHECK(!strchr(err.msg, '\n'));
}

static void test_paths_outside_the_tracer_are_refused(void)
{
	refused("pid 1\nset ../../etc/passwd x\n", "../../etc/passwd");
	refused("pid 1\nset /etc/passwd x\n", "/etc/passwd");
	refused("pid 1\nenable /etc\n", "enable /etc");
	refused("pid 1\nenable /sys/../etc\n", "enable /sys/../etc");
	refused("pid 1\nhello\n", "hello");
	refused("pid 1\nset current_tracer\n", "set current_tracer");
}

static void test_a_failed_write_is_named(void)
{
	struct writes w = { "", 2, 0 };
	struct iow_error err = { "" };
	long pid = 0;

	CHECK_EQ_INT(ftrace_owner_put_back(
		"pid 9\nset current_tracer nop\nset trace_clock local\n",
		"/T", record_write, &w, &pid, &err), -1);
	CHECK(strstr(err.msg, "cannot put back the tracing state a killed "
		     "recording left ('local' to /T/trace_clock: Device or "
		     "resource busy)") != NULL);
	CHECK(!strcmp(w.log, "/T/current_tracer=nop;"));
}

int main(void)
{
	RUN_TEST(test_devices_go_off_first_then_settings_in_order);
	RUN_TEST(test_an_option_keeps_its_path);
	RUN_TEST(test_lines_without_a_pid_are_a_dead_recording_still);
	RUN_TEST(test_paths_outside_the_tracer_are_refused);
	RUN_TEST(test_a_failed_write_is_named);
	return check_report();
}
