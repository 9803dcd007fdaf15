/*
 * test_cli.c: the options table and options_parse. Every row is in the
 * man page and in --help; values land in their fields; out-of-range and
 * unknown-choice errors come from the rows' limits and choices; lists keep
 * the order given; the options are checked against each other. Run from
 * the top of the checkout (it reads iowatcher.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/blktrace.h"
#include "check.h"
#include "cli.h"
#include "record/record.h"

#define ARGV(...)	((char *[]){ "iowatcher", __VA_ARGS__, NULL })
#define ARGC(argv)	((int)(sizeof(argv) / sizeof(char *)) - 1)

/* options_parse on a literal argv: PARSE(&o, &err, "-t", "x", ...) */
#define PARSE(o, err, ...) \
	options_parse(ARGC(ARGV(__VA_ARGS__)), ARGV(__VA_ARGS__), o, err)

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t size = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &size, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* "per-device" as the man page writes it: "\-\-per\-device". */
static void man_escape(const char *name, char *buf, size_t size)
{
	size_t n = 0;

	for (; *name && n + 3 < size; name++) {
		if (*name == '-')
			buf[n++] = '\\';
		buf[n++] = *name;
	}
	buf[n] = '\0';
}

/*
 * The line after a .TP (the heading of a tagged paragraph) that names
 * --NAME, and -L before it for a row with a letter.
 */
static int man_has_entry(const char *man, const struct cli_option *row)
{
	char name[64], want[80];
	const char *tp, *line, *end, *at;

	man_escape(row->name, name, sizeof(name));
	if (row->letter)
		snprintf(want, sizeof(want), "\\-%c \", \" \\-\\-%s",
			 row->letter, name);
	else
		snprintf(want, sizeof(want), " \\-\\-%s", name);
	for (tp = strstr(man, "\n.TP\n"); tp; tp = strstr(line, "\n.TP\n")) {
		line = tp + strlen("\n.TP\n");
		end = strchr(line, '\n');
		at = strstr(line, want);
		if (!at || (end && at > end))
			continue;
		at += strlen(want);
		/* not a longer name: --movie is not --movie-length */
		if (*at == '\n' || *at == ' ' || *at == '[')
			return 1;
	}
	return 0;
}

static void test_every_option_has_an_entry_in_the_man_page(void)
{
	char *man = read_file("iowatcher.1");
	size_t i;

	CHECK(man != NULL);
	if (!man)
		return;
	for (i = 0; i < cli_n_options; i++) {
		if (!man_has_entry(man, &cli_options[i])) {
			fprintf(stderr, "  iowatcher.1 has no entry for --%s\n",
				cli_options[i].name);
			CHECK(!"an option missing from the man page");
		}
	}
	free(man);
}

static void test_every_option_is_in_the_help(void)
{
	char *help = NULL, want[64];
	size_t size = 0, i;
	FILE *f = open_memstream(&help, &size);

	cli_print_help(f);
	fclose(f);
	for (i = 0; i < cli_n_options; i++) {
		const struct cli_option *row = &cli_options[i];

		if (row->letter)
			snprintf(want, sizeof(want), "\n  -%c, --%s",
				 row->letter, row->name);
		else
			snprintf(want, sizeof(want), "\n      --%s", row->name);
		if (!strstr(help, want)) {
			fprintf(stderr, "  --help has no line for --%s\n",
				row->name);
			CHECK(!"an option missing from --help");
		}
	}
	/* the help's minimum is the row's */
	CHECK(strstr(help, "-w, --width PX        width of one graph (default 760, at least 200)\n"));
	free(help);
}

/* A row writes through its offset as its type says: the field must fit. */
static void test_every_field_has_the_size_its_type_writes(void)
{
	size_t i;

	for (i = 0; i < cli_n_options; i++) {
		const struct cli_option *row = &cli_options[i];

		switch (row->type) {
		case CLI_FLAG:
		case CLI_INT:
		case CLI_CHOICE:
			CHECK_EQ_INT(row->size, sizeof(int));
			break;
		case CLI_SECONDS:
			CHECK_EQ_INT(row->size, sizeof(double));
			break;
		case CLI_STRING:
		case CLI_LIST:
			CHECK_EQ_INT(row->size, sizeof(char *));
			break;
		case CLI_CUSTOM:
		case CLI_ACTION:
			CHECK(row->parse != NULL);
			break;
		}
		CHECK(row->help[0].text != NULL);
	}
}

static void test_values_land_in_their_fields(void)
{
	struct iow_error err = { "" };
	struct options o;

	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a", "-w", "300", "--height=200",
			   "-c3", "--bin-ms", "10", "-r", "0.5", "-a", "Q",
			   "--dir", "w", "--summary=json", "-o", "x.png",
			   "--title", "T", "-x", "1:2.5", "-d", "8,16", "-P",
			   "--top", "5", "--csv", "out"), CLI_OK);
	CHECK_EQ_INT(o.n_trace_args, 1);
	CHECK(o.n_trace_args == 1 && !strcmp(o.trace_args[0], "a"));
	CHECK_EQ_INT(o.graph_width, 300);
	CHECK_EQ_INT(o.graph_height, 200);
	CHECK_EQ_INT(o.columns, 3);
	CHECK_EQ_INT(o.analysis.bin_width_ns, 10000000);
	CHECK_NEAR(o.rolling_s, 0.5, 0);
	CHECK_EQ_INT(o.analysis.iomap_action, BLK_TA_QUEUE);
	CHECK_EQ_INT(o.latency_dirs, 2);
	CHECK_EQ_INT(o.summary, SUMMARY_JSON);
	CHECK(!strcmp(o.output, "x.png") && !strcmp(o.title, "T"));
	CHECK(!strcmp(o.csv_dir, "out"));
	CHECK_EQ_INT(o.analysis.has_time_range, 1);
	CHECK_EQ_INT(o.analysis.time_min_ns, 1000000000);
	CHECK_EQ_INT(o.analysis.time_max_ns, 2500000000u);
	CHECK_EQ_INT(o.n_only_devices, 1);
	CHECK_EQ_INT(o.only_devices[0], 8 << 20 | 16);
	CHECK(o.analysis.only_devices == o.only_devices);
	CHECK_EQ_INT(o.tag_by_process, 1);
	CHECK_EQ_INT(o.top_tags, 5);
	CHECK_EQ_INT(o.analysis.stats_only, 0);
	options_free(&o);
}

/* -x in seconds, to the nearest ns (2.84 is 2839999999.9999995 ns as a
 * double): a report's "-x" of its bins' edges counts what they count. */
static void test_xzoom_seconds_are_the_nearest_nanosecond(void)
{
	struct iow_error err = { "" };
	struct options o;

	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a", "-x", "2.84:4.27"), CLI_OK);
	CHECK_EQ_INT(o.analysis.time_min_ns, 2840000000u);
	CHECK_EQ_INT(o.analysis.time_max_ns, 4270000000u);
	options_free(&o);
	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a", "-x",
			   "0.5004:4.271399999"), CLI_OK);
	CHECK_EQ_INT(o.analysis.time_min_ns, 500400000);
	CHECK_EQ_INT(o.analysis.time_max_ns, 4271399999u);
	options_free(&o);
}

static void test_defaults_come_from_the_rows(void)
{
	struct iow_error err = { "" };
	struct options o;

	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a"), CLI_OK);
	CHECK_EQ_INT(o.analysis.iomap_action, BLK_TA_ISSUE);
	CHECK_EQ_INT(o.latency_dirs, 0x3f);	/* every class: read, write, discard, flush, zone-mgmt, write-zeroes */
	CHECK_EQ_INT(o.summary, SUMMARY_NONE);
	CHECK_EQ_INT(o.analysis.bin_width_ns, 0);
	/* the picture is named after the trace */
	CHECK(!strcmp(o.output, "a.svg"));
	options_free(&o);
	/* an optional argument left out: the row's bare word */
	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a", "--summary"), CLI_OK);
	CHECK_EQ_INT(o.summary, SUMMARY_TEXT);
	CHECK(o.output == NULL);
	CHECK_EQ_INT(o.analysis.stats_only, 1);
	options_free(&o);
	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a", "--movie", "-o", "m.mp4"),
		     CLI_OK);
	CHECK_EQ_INT(o.movie, MOVIE_SPINDLE);
	CHECK_EQ_INT(o.fps, 20);
	options_free(&o);
}

static void test_repeated_options_keep_their_order(void)
{
	struct iow_error err = { "" };
	struct options o;

	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a", "--trace=b", "-l", "A",
			   "-F", "f1", "-F", "f2@3", "-O", "io", "-O", "tput",
			   "-N", "iops", "-d", "8,0", "--device", "9,1"),
		     CLI_OK);
	CHECK_EQ_INT(o.n_trace_args, 2);
	CHECK(!strcmp(o.trace_args[0], "a") && !strcmp(o.trace_args[1], "b"));
	CHECK(o.n_labels == 1 && !strcmp(o.labels[0], "A"));
	CHECK_EQ_INT(o.n_fio_logs, 2);
	CHECK(!strcmp(o.fio_logs[0], "f1") && !strcmp(o.fio_logs[1], "f2@3"));
	CHECK_EQ_INT(o.n_only, 2);
	CHECK(!strcmp(o.only_graphs[0], "io") &&
	      !strcmp(o.only_graphs[1], "tput"));
	CHECK(o.n_no == 1 && !strcmp(o.no_graphs[0], "iops"));
	CHECK_EQ_INT(o.n_only_devices, 2);
	CHECK_EQ_INT(o.only_devices[1], 9 << 20 | 1);
	options_free(&o);
}

/* CHECK_ERR(text, args...): a usage error that reads text exactly. */
#define CHECK_ERR(text, ...) do { \
	struct iow_error e = { "" }; \
	struct options eo; \
	CHECK_EQ_INT(PARSE(&eo, &e, __VA_ARGS__), CLI_USAGE); \
	if (strcmp(e.msg, text)) { \
		fprintf(stderr, "  %s:%d: got \"%s\"\n", __FILE__, __LINE__, \
			e.msg); \
		CHECK(!"the error text"); \
	} \
	options_free(&eo); \
} while (0)

static void test_range_errors_name_the_rows_limits(void)
{
	CHECK_ERR("-w 10: a width in pixels from 200 (the narrowest graph that can be drawn) to 20000",
		  "-t", "a", "-w", "10");
	CHECK_ERR("--fps 121: frames per second from 1 to 120",
		  "-t", "a", "--movie", "-o", "m.mp4", "--fps=121");
	CHECK_ERR("--col x: a number of columns from 1 to 16",
		  "-t", "a", "--col", "x");
	CHECK_ERR("--bin-ms 86400001: a whole number of milliseconds from 1 to 86400000",
		  "-t", "a", "--bin-ms", "86400001");
	CHECK_ERR("-r 0: a positive number of seconds", "-t", "a", "-r", "0");
}

static void test_choice_errors_list_the_rows_choices(void)
{
	CHECK_ERR("--dir x: r, w or rw", "-t", "a", "--dir", "x");
	CHECK_ERR("-a Z: the action is Q, D or C", "-t", "a", "-a", "Z");
	CHECK_ERR("--tracer x: bpf, blktrace, ftrace or auto",
		  "-d", "/dev/x", "--tracer", "x");
	CHECK_ERR("--summary=xml: the format is text, json or stacks",
		  "-t", "a", "--summary=xml");
	CHECK_ERR("--movie=x: the style is spindle or rect",
		  "-t", "a", "--movie=x");
}

static void test_getopt_errors_name_the_option_as_typed(void)
{
	CHECK_ERR("-h needs an argument (-h is the graph height; the help is --help)",
		  "-t", "a", "-h");
	CHECK_ERR("--mo: ambiguous, it could be --movie, --movie-length",
		  "-t", "a", "--mo");
	CHECK_ERR("--help takes no argument", "--help=x");
	CHECK_ERR("-m: unknown option (a movie is --movie)", "-t", "a", "-Pm");
	CHECK_ERR("word: unexpected argument", "-t", "a", "word");
}

static void test_buffer_takes_a_size_per_cpu(void)
{
	struct iow_error err = { "" };
	struct options o;

	CHECK(PARSE(&o, &err, "-d", "/dev/x", "--buffer", "16M") == CLI_OK);
	CHECK_EQ_INT(o.record_buffer_kb, 16384);
	options_free(&o);
	CHECK(PARSE(&o, &err, "-d", "/dev/x", "--buffer", "512k") == CLI_OK);
	CHECK_EQ_INT(o.record_buffer_kb, 512);
	options_free(&o);
	CHECK(PARSE(&o, &err, "-d", "/dev/x", "--buffer", "1G") == CLI_OK);
	CHECK_EQ_INT(o.record_buffer_kb, 1048576);
	options_free(&o);
	CHECK(PARSE(&o, &err, "-d", "/dev/x", "--buffer", "128") == CLI_OK);
	CHECK_EQ_INT(o.record_buffer_kb, 128);
	options_free(&o);
	CHECK(PARSE(&o, &err, "-d", "/dev/x", "--tracer", "bpf") == CLI_OK);
	CHECK_EQ_INT(o.tracer, RECORD_BPF);
	CHECK_EQ_INT(o.record_buffer_kb, 0);
	options_free(&o);
	CHECK_ERR("--buffer 32K: a size per CPU from 64K to 1G (as 512K, 16M or 1G)",
		  "-d", "/dev/x", "--buffer", "32K");
	CHECK_ERR("--buffer 2G: a size per CPU from 64K to 1G (as 512K, 16M or 1G)",
		  "-d", "/dev/x", "--buffer", "2G");
	CHECK_ERR("--buffer 1.5M: a size per CPU from 64K to 1G (as 512K, 16M or 1G)",
		  "-d", "/dev/x", "--buffer", "1.5M");
	CHECK_ERR("--buffer -1M: a size per CPU from 64K to 1G (as 512K, 16M or 1G)",
		  "-d", "/dev/x", "--buffer", "-1M");
	CHECK_ERR("--buffer 16MB: a size per CPU from 64K to 1G (as 512K, 16M or 1G)",
		  "-d", "/dev/x", "--buffer", "16MB");
}

static void test_causes_and_stacks_are_kept_unless_asked(void)
{
	struct iow_error err = { "" };
	struct options o;

	CHECK(PARSE(&o, &err, "-d", "/dev/x") == CLI_OK);
	CHECK_EQ_INT(o.no_causes, 0);
	CHECK_EQ_INT(o.stacks, STACKS_DEFAULT);
	options_free(&o);
	CHECK(PARSE(&o, &err, "-d", "/dev/x", "--stacks", "user") == CLI_OK);
	CHECK_EQ_INT(o.stacks, STACKS_USER);
	options_free(&o);
	CHECK(PARSE(&o, &err, "-d", "/dev/x", "--no-causes", "--tracer",
		    "ftrace") == CLI_OK);
	CHECK_EQ_INT(o.no_causes, 1);
	options_free(&o);
	CHECK_ERR("--stacks keeps stacks with the causes, which --no-causes leaves out: give one of them",
		  "-d", "/dev/x", "--no-causes", "--stacks", "kernel");
	CHECK_ERR("--stacks: only the bpf recorder keeps causes and stacks (--tracer bpf or auto)",
		  "-d", "/dev/x", "--tracer", "ftrace", "--stacks", "none");
	CHECK_ERR("--stacks x: the stacks are kernel, user or none",
		  "-d", "/dev/x", "--stacks", "x");
	/* a recording drawn as a flame graph needs its stacks */
	CHECK_ERR("-O io-flame draws kernel stacks, which only the bpf recorder keeps, with --stacks kernel: add it (or leave -O io-flame out)",
		  "-d", "/dev/x", "-O", "io-flame");
	CHECK(PARSE(&o, &err, "-d", "/dev/x", "-O", "io-flame", "--stacks",
		    "kernel") == CLI_OK);
	options_free(&o);
	CHECK(PARSE(&o, &err, "-t", "x", "-O", "io-flame") == CLI_OK);
	options_free(&o);
}

static void test_options_are_checked_together(void)
{
	CHECK_ERR("--merge-comm goes with -P", "-t", "a", "--merge-comm");
	CHECK_ERR("-p, -D, --tracer, --buffer, --no-causes and --stacks go with -d DEVICE (recording)",
		  "-t", "a", "-D", "dir");
	CHECK_ERR("-p, -D, --tracer, --buffer, --no-causes and --stacks go with -d DEVICE (recording)",
		  "-t", "a", "--buffer", "16M");
	CHECK_ERR("-p, -D, --tracer, --buffer, --no-causes and --stacks go with -d DEVICE (recording)",
		  "-t", "a", "--stacks", "kernel");
	CHECK_ERR("no trace: give one with -t", "-o", "x.png");
	CHECK_ERR("--fps, --movie-length and -K go with --movie",
		  "-t", "a", "--fps", "10");
	CHECK_ERR("out.mp4: a movie's name: add --movie (a picture is .svg, .png or .pdf)",
		  "-t", "a", "-o", "out.mp4");
	CHECK_ERR("-p takes the rest of the command line, so '-o' cannot follow the quoted workload: put iowatcher's options before -p",
		  "-d", "/dev/x", "-p", "sleep 1", "-o", "a.png");
}

static void test_help_and_version_are_results(void)
{
	struct iow_error err = { "" };
	struct options o;

	CHECK_EQ_INT(PARSE(&o, &err, "-h"), CLI_HELP);
	CHECK_EQ_INT(PARSE(&o, &err, "-t", "a", "--help"), CLI_HELP);
	CHECK_EQ_INT(PARSE(&o, &err, "--vers"), CLI_VERSION);
	options_free(&o);
}

static void test_workload_takes_the_rest_and_names_misplaced_options(void)
{
	struct iow_error err = { "" };
	struct options o;
	char buf[64];

	CHECK_EQ_INT(PARSE(&o, &err, "-d", "/dev/sdz", "-p", "fio", "job",
			   "--summary=json", "-w", "10"), CLI_OK);
	CHECK(o.n_devices == 1 && !strcmp(o.devices[0], "/dev/sdz"));
	/* the recording is named after the device */
	CHECK(o.n_trace_args == 1 && !strcmp(o.trace_args[0], "sdz"));
	CHECK(!strcmp(o.prog_argv[0], "fio") &&
	      !strcmp(o.prog_argv[3], "-w") && !o.prog_argv[5]);
	CHECK_EQ_INT(o.summary, SUMMARY_NONE);
	CHECK(!strcmp(cli_misplaced_option(o.prog_argv, buf, sizeof(buf)),
		      "--summary"));
	options_free(&o);
	CHECK_EQ_INT(PARSE(&o, &err, "-d", "/dev/sdz", "-p", "dd", "-x"),
		     CLI_OK);
	CHECK(!strcmp(cli_misplaced_option(o.prog_argv, buf, sizeof(buf)),
		      "-x"));
	options_free(&o);
	/* a quoted workload runs through sh: nothing after it is misplaced */
	CHECK_EQ_INT(PARSE(&o, &err, "-d", "/dev/sdz", "-p", "fio --x"),
		     CLI_OK);
	CHECK(!strcmp(o.prog_argv[0], "/bin/sh") &&
	      !strcmp(o.prog_argv[2], "fio --x"));
	CHECK(cli_misplaced_option(o.prog_argv, buf, sizeof(buf)) == NULL);
	options_free(&o);
}

int main(void)
{
	RUN_TEST(test_every_option_has_an_entry_in_the_man_page);
	RUN_TEST(test_every_option_is_in_the_help);
	RUN_TEST(test_every_field_has_the_size_its_type_writes);
	RUN_TEST(test_values_land_in_their_fields);
	RUN_TEST(test_xzoom_seconds_are_the_nearest_nanosecond);
	RUN_TEST(test_defaults_come_from_the_rows);
	RUN_TEST(test_repeated_options_keep_their_order);
	RUN_TEST(test_range_errors_name_the_rows_limits);
	RUN_TEST(test_choice_errors_list_the_rows_choices);
	RUN_TEST(test_getopt_errors_name_the_option_as_typed);
	RUN_TEST(test_buffer_takes_a_size_per_cpu);
	RUN_TEST(test_causes_and_stacks_are_kept_unless_asked);
	RUN_TEST(test_options_are_checked_together);
	RUN_TEST(test_help_and_version_are_results);
	RUN_TEST(test_workload_takes_the_rest_and_names_misplaced_options);
	return check_report();
}
