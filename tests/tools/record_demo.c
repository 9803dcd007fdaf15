/*
 * record_demo.c: drives record_run() from the command line, for the
 * recorder's tests and for making the sample traces, until the CLI's
 * record mode exists.
 *
 *   record_demo -d DEV [-d DEV...] [-D DIR] [-t NAME] [-T auto|bpf|blktrace|ftrace] [-X TRACER]
 *               [-X TRACER] [-m] [-b KB] [-c CAUSES] [-- PROG ARGS...]
 *
 * -X: auto does not try TRACER (to test what comes after it).
 * -c: the causes to keep (enum record_causes: 1 task, cgroup and file,
 *     3 and kernel stacks, 7 and user stacks; default none).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record.h"

#define MAX_DEVICES 16

static int usage(void)
{
	fprintf(stderr, "usage: record_demo -d DEV [-d DEV...] [-D DIR] "
		"[-t NAME] [-T auto|bpf|blktrace|ftrace] [-X TRACER] [-m] [-b KB] "
		"[-c CAUSES] [-- PROG ARGS...]\n");
	return 2;
}

static int parse_tracer(const char *s, enum record_tracer *t)
{
	if (!strcmp(s, "auto"))
		*t = RECORD_AUTO;
	else if (!strcmp(s, "blktrace"))
		*t = RECORD_BLKTRACE;
	else if (!strcmp(s, "ftrace"))
		*t = RECORD_FTRACE;
	else if (!strcmp(s, "bpf"))
		*t = RECORD_BPF;
	else
		return -1;
	return 0;
}

static void print_result(const struct record_result *res, int workload)
{
	printf("tracer %s, %llu events", record_tracer_name(res->used),
	       (unsigned long long)res->events_written);
	if (res->events_lost || res->loss_windows)
		printf(", %llu lost in %llu windows",
		       (unsigned long long)res->events_lost,
		       (unsigned long long)res->loss_windows);
	if (res->bytes_skipped)
		printf(", %llu bytes skipped",
		       (unsigned long long)res->bytes_skipped);
	if (res->stop_signal)
		printf(", stopped by signal %d", res->stop_signal);
	if (!workload)
		;
	else if (WIFEXITED(res->workload_status))
		printf(", workload exit %d", WEXITSTATUS(res->workload_status));
	else if (WIFSIGNALED(res->workload_status))
		printf(", workload killed by signal %d",
		       WTERMSIG(res->workload_status));
	printf(", cpu %.2f user %.2f sys\n", res->cpu_user_s, res->cpu_sys_s);
	if (res->fallback_reason[0])
		printf("not used: %s\n", res->fallback_reason);
}

int main(int argc, char **argv)
{
	const char *devices[MAX_DEVICES];
	struct record_opts o = { .devices = devices };
	struct record_result res;
	struct iow_error err;
	int c;

	enum record_tracer skip;

	while ((c = getopt(argc, argv, "d:D:t:T:X:mb:c:")) != -1) {
		switch (c) {
		case 'd':
			if (o.n_devices == MAX_DEVICES)
				return usage();
			devices[o.n_devices++] = optarg;
			break;
		case 'D':
			o.dir = optarg;
			break;
		case 't':
			o.name = optarg;
			break;
		case 'T':
			if (parse_tracer(optarg, &o.tracer))
				return usage();
			break;
		case 'X':	/* auto skips this one */
			if (parse_tracer(optarg, &skip))
				return usage();
			o.auto_skips |= 1u << skip;
			break;
		case 'm':
			o.with_mpstat = 1;
			break;
		case 'b':
			o.buffer_kb = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			o.causes = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			return usage();
		}
	}
	if (!o.n_devices)
		return usage();
	if (optind < argc)
		o.prog_argv = argv + optind;
	if (record_run(&o, &res, &err)) {
		fprintf(stderr, "record_demo: %s\n", err.msg);
		return 1;
	}
	print_result(&res, o.prog_argv != NULL);
	return 0;
}
