/*
 * cli.c: the command line. One table, cli_options, holds every option;
 * getopt's arrays, --help (cli_help.c) and the range and choice errors
 * are made from it. options_parse reads argv into struct options, checks the options
 * against each other and returns what went wrong as a value: only main
 * prints and exits.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "reader/discover.h"
#include "tag/causetag.h"
#include "cli.h"
#include "graphs/graphs.h"
#include "live/live.h"
#include "movie/movie.h"
#include "outputs.h"
#include "plot.h"
#include "record/record.h"

/* The state of one parse, for the rows that read their own argument. */
struct cli_parse {
	struct options *o;
	int argc;
	char **argv;
	const char *typed;	/* the option as the user typed it */
	struct iow_error *err;
	/* per row of a choice, the value given + 1 (0: not yet): a second
	 * one that differs is refused, never kept silently */
	int chosen[160];
};

static enum cli_result usage(struct iow_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum cli_result usage(struct iow_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	iow_error_escape(err);
	return CLI_USAGE;
}

static void *field(struct options *o, size_t offset)
{
	return (char *)o + offset;
}

static int append(const char ***list, size_t *n, const char *item)
{
	const char **more = realloc(*list, (*n + 1) * sizeof(**list));

	if (!more)
		return -1;
	more[(*n)++] = item;
	*list = more;
	return 0;
}

/* ---- the rows that read their own argument ---- */

/*
 * -d MAJ,MIN names a traced device whose I/O alone is counted (a path or
 * a name is a device to record): 1 when arg was one.
 */
static int is_dev_t(const char *arg, unsigned long *major,
		    unsigned long *minor)
{
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		return 0;
	*major = strtoul(arg, &end, 10);
	if (*end != ',' || !isdigit((unsigned char)end[1]))
		return 0;
	*minor = strtoul(end + 1, &end, 10);
	return *end == '\0';
}

static enum cli_result parse_device(struct cli_parse *p,
				    const struct cli_option *row,
				    const char *arg)
{
	struct options *o = p->o;
	unsigned long major, minor;

	(void)row;
	if (!is_dev_t(arg, &major, &minor)) {
		if (append(&o->devices, &o->n_devices, arg))
			return usage(p->err, "%s", "out of memory");
		return CLI_OK;
	}
	if (major > 0xfff || minor > 0xfffff)
		return usage(p->err, "--device %s: a major up to 4095 and a minor up to 1048575",
			     arg);
	if (o->n_only_devices == MAX_ONLY_DEVICES)
		return usage(p->err, "--device %s: at most 64 devices", arg);
	o->only_devices[o->n_only_devices++] =
		(uint32_t)(major << 20 | minor);
	return CLI_OK;
}

static int parse_range(const char *arg, double *lo, double *hi)
{
	char *end;

	errno = 0;
	*lo = strtod(arg, &end);
	if (end == arg || *end != ':' || errno)
		return -1;
	arg = end + 1;
	*hi = strtod(arg, &end);
	if (end == arg || *end || errno)
		return -1;
	if (!isfinite(*lo) || !isfinite(*hi) || *lo < 0 || *hi <= *lo)
		return -1;
	return 0;
}

/* -x MIN:MAX; with --compare, a second -x is the second trace's. */
static enum cli_result parse_xzoom(struct cli_parse *p,
				   const struct cli_option *row,
				   const char *arg)
{
	struct options *o = p->o;
	int second = o->has_x_range;

	(void)row;
	if (o->has_x2_range)
		return usage(p->err, "%s %s: -x at most twice (with --compare, the second is the second trace's window)",
			     p->typed, arg);
	if (parse_range(arg, second ? &o->x2_min_s : &o->x_min_s,
			second ? &o->x2_max_s : &o->x_max_s))
		return usage(p->err, "%s %s: give MIN:MAX seconds with 0 <= MIN < MAX",
			     p->typed, arg);
	*(second ? &o->has_x2_range : &o->has_x_range) = 1;
	return CLI_OK;
}

/* --pair MAJ,MIN=MAJ,MIN: a device of the first trace is one of the
 * second's (--compare). */
static enum cli_result parse_pair(struct cli_parse *p,
				  const struct cli_option *row,
				  const char *arg)
{
	struct options *o = p->o;
	unsigned long ma, mi, mb, nb;
	char a[64], *eq;

	(void)row;
	snprintf(a, sizeof(a), "%s", arg);
	eq = strchr(a, '=');
	if (eq)
		*eq = '\0';
	if (!eq || !is_dev_t(a, &ma, &mi) || !is_dev_t(eq + 1, &mb, &nb) ||
	    ma > 0xfff || mi > 0xfffff || mb > 0xfff || nb > 0xfffff)
		return usage(p->err, "%s %s: give the first trace's device and the second's as MAJ,MIN=MAJ,MIN (as 8,0=259,0)",
			     p->typed, arg);
	if (o->n_pairs == MAX_COMPARE_PAIRS)
		return usage(p->err, "%s %s: at most %d pairs", p->typed, arg,
			     MAX_COMPARE_PAIRS);
	o->pairs[o->n_pairs][0] = (uint32_t)(ma << 20 | mi);
	o->pairs[o->n_pairs++][1] = (uint32_t)(mb << 20 | nb);
	return CLI_OK;
}

/* --min-change PCT: the smallest change --compare calls faster, slower,
 * higher or lower, in per cent of the first trace's value. */
static enum cli_result parse_min_change(struct cli_parse *p,
					const struct cli_option *row,
					const char *arg)
{
	char *end;
	double v;

	(void)row;
	errno = 0;
	v = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (end == arg || *end || errno || !(v >= 0) || v > 1000)
		return usage(p->err, "%s %s: give a change in per cent of the first trace's value, 0 to 1000 (as 5 or 2.5%%)",
			     p->typed, arg);
	p->o->min_change = v / 100;
	p->o->has_min_change = 1;
	return CLI_OK;
}

/* --vs: the -t before it are the first group of runs, those after it
 * the second (--compare of groups). */
static enum cli_result parse_vs(struct cli_parse *p,
				const struct cli_option *row, const char *arg)
{
	(void)row, (void)arg;
	if (p->o->vs_at)
		return usage(p->err, "%s", "--vs given twice: -t A1 -t A2 -t A3 --vs -t B1 -t B2 -t B3");
	p->o->vs_at = p->o->n_trace_args + 1;
	return CLI_OK;
}

static enum cli_result parse_yzoom(struct cli_parse *p,
				   const struct cli_option *row,
				   const char *arg)
{
	(void)row;
	if (parse_range(arg, &p->o->y_min_mib, &p->o->y_max_mib))
		return usage(p->err, "%s %s: give MIN:MAX MiB with 0 <= MIN < MAX",
			     p->typed, arg);
	p->o->has_y_range = 1;
	return CLI_OK;
}

/* -O and -N: a graph's name, into the row's array of picks. */
static enum cli_result parse_graph_pick(struct cli_parse *p,
					const struct cli_option *row,
					const char *arg)
{
	const char **list = field(p->o, row->offset);
	size_t *n = field(p->o, row->count_offset);

	if (!graph_find(arg))
		return usage(p->err, "%s: no such graph (iowatcher --help lists them)",
			     arg);
	if (*n < MAX_GRAPH_PICKS)
		list[(*n)++] = arg;
	return CLI_OK;
}

static int parse_seconds(const char *arg, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(*v) || *v <= 0)
		return -1;
	return 0;
}

/* --movie-length SECONDS of video, or N/s: frames per second of trace. */
static enum cli_result parse_movie_length(struct cli_parse *p,
					  const struct cli_option *row,
					  const char *arg)
{
	struct options *o = p->o;
	size_t len = strlen(arg);
	char *end;

	(void)row;
	if (len < 2 || strcmp(arg + len - 2, "/s")) {
		if (parse_seconds(arg, &o->movie_length_s))
			return usage(p->err, "%s %s: a positive number of seconds",
				     p->typed, arg);
		o->movie_frames_per_s = 0;
		return CLI_OK;
	}
	errno = 0;
	o->movie_frames_per_s = strtod(arg, &end);
	if (end != arg + len - 2 || errno ||
	    !isfinite(o->movie_frames_per_s) || o->movie_frames_per_s <= 0)
		return usage(p->err, "%s %s: N/s is a positive number of frames per second of trace",
			     p->typed, arg);
	o->movie_length_s = 0;
	return CLI_OK;
}

/* A quoted workload's shell (a workload of words runs as it is). */
static char shell_path[] = "/bin/sh";

/*
 * -p PROG [ARGS...]: the rest of the command line is the workload. One
 * word with spaces ("fio job.fio") runs through the shell, so it cannot
 * be followed by more: those are iowatcher's options typed too late.
 */
static enum cli_result parse_workload(struct cli_parse *p,
				      const struct cli_option *row,
				      const char *prog)
{
	static char dash_c[] = "-c";
	struct options *o = p->o;
	int n = p->argc - optind, i;
	int shell = strpbrk(prog, " \t;|&<>$'\"") != NULL;

	(void)row;
	if (shell && n > 0)
		return usage(p->err, "-p takes the rest of the command line, so '%s' cannot follow the quoted workload: put iowatcher's options before -p",
			     p->argv[optind]);
	o->prog_argv = calloc((size_t)n + 4, sizeof(*o->prog_argv));
	if (!o->prog_argv)
		return usage(p->err, "%s", "out of memory");
	if (shell) {
		o->prog_argv[0] = shell_path;
		o->prog_argv[1] = dash_c;
		o->prog_argv[2] = (char *)prog;
	} else {
		o->prog_argv[0] = (char *)prog;
		for (i = 0; i < n; i++)
			o->prog_argv[i + 1] = p->argv[optind + i];
	}
	optind = p->argc;
	return CLI_OK;
}

/*
 * --merge-summaries A.json B.json ...: the words after it that are no
 * options are more summaries (as a shell's glob gives them).
 */
static enum cli_result parse_merge_paths(struct cli_parse *p,
					 const struct cli_option *row,
					 const char *first)
{
	struct options *o = p->o;

	(void)row;
	if (append(&o->merge_paths, &o->n_merge_paths, first))
		return usage(p->err, "%s", "out of memory");
	while (optind < p->argc && p->argv[optind][0] != '-')
		if (append(&o->merge_paths, &o->n_merge_paths,
			   p->argv[optind++]))
			return usage(p->err, "%s", "out of memory");
	return CLI_OK;
}

#define BUFFER_MIN_KB	64
#define BUFFER_MAX_KB	(1024 * 1024)

/* --buffer SIZE: per CPU, in KiB, MiB or GiB (a bare number is KiB). */
static enum cli_result parse_buffer(struct cli_parse *p,
				    const struct cli_option *row,
				    const char *arg)
{
	unsigned long long v;
	char *end;

	(void)row;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end == arg || errno || !isdigit((unsigned char)arg[0]))
		v = 0;
	else if ((*end == 'M' || *end == 'm') && !end[1])
		v = v > BUFFER_MAX_KB ? 0 : v * 1024;
	else if ((*end == 'G' || *end == 'g') && !end[1])
		v = v > 1 ? 0 : v * 1024 * 1024;
	else if (((*end == 'K' || *end == 'k') && !end[1]) || !*end)
		;
	else
		v = 0;
	if (v < BUFFER_MIN_KB || v > BUFFER_MAX_KB)
		return usage(p->err, "%s %s: a size per CPU from 64K to 1G (as 512K, 16M or 1G)",
			     p->typed, arg);
	p->o->record_buffer_kb = (size_t)v;
	return CLI_OK;
}

/* --flight[=SECONDS]: the seconds kept in memory (30 bare). */
static enum cli_result parse_flight(struct cli_parse *p,
				    const struct cli_option *row,
				    const char *arg)
{
	if (!arg)
		arg = row->bare;
	if (parse_seconds(arg, &p->o->flight_s) || p->o->flight_s > 86400)
		return usage(p->err, "%s=%s: the seconds kept, from above 0 to 86400 (a day)",
			     p->typed, arg);
	return CLI_OK;
}

/* --flight-mem SIZE: as 64M or 1G (a bare number is bytes). */
static enum cli_result parse_flight_mem(struct cli_parse *p,
					const struct cli_option *row,
					const char *arg)
{
	unsigned long long v, mul = 1;
	char *end;

	(void)row;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	if (mul > 1)
		end++;
	if (end == arg || *end || errno || !isdigit((unsigned char)arg[0]) ||
	    v > (1ull << 44) / mul || v * mul < FLIGHT_MIN_MEM)
		return usage(p->err, "%s %s: the memory for the records, from 1M up (as 64M or 1G)",
			     p->typed, arg);
	p->o->flight_mem = v * mul;
	return CLI_OK;
}

static enum cli_result want_help(struct cli_parse *p,
				 const struct cli_option *row, const char *arg)
{
	(void)p, (void)row, (void)arg;
	return CLI_HELP;
}

static enum cli_result want_version(struct cli_parse *p,
				    const struct cli_option *row,
				    const char *arg)
{
	(void)p, (void)row, (void)arg;
	return CLI_VERSION;
}

/* ---- the table ---- */

#define FIELD(f)	.offset = offsetof(struct options, f), \
			.size = sizeof(((struct options *)0)->f)
#define COUNT(f)	.count_offset = offsetof(struct options, f)

/*
 * The smallest graph that can be drawn: its title, legend, tick labels
 * and axis labels around a plot that still shows something.
 */
#define MIN_GRAPH_WIDTH		200
#define MIN_GRAPH_HEIGHT	150
#define MAX_GRAPH_SIZE		20000

static const struct cli_choice actions[] = {
	{ "Q", BLK_TA_QUEUE }, { "D", BLK_TA_ISSUE },
	{ "C", BLK_TA_COMPLETE }, { NULL, 0 },
};
static const struct cli_choice summary_formats[] = {
	{ "text", SUMMARY_TEXT }, { "json", SUMMARY_JSON },
	{ "stacks", SUMMARY_STACKS }, { NULL, 0 },
};
static const struct cli_choice compare_formats[] = {
	{ "text", COMPARE_TEXT }, { "json", COMPARE_JSON }, { NULL, 0 },
};
static const struct cli_choice causes[] = {
	{ "process", BY_PROCESS }, { "comm", BY_COMM },
	{ "cgroup", BY_CGROUP }, { "file", BY_FILE }, { "stack", BY_STACK },
	{ NULL, 0 },
};
/* bit n shows op n (io_op): rw also shows flushes, discards, zone
 * management and write-zeroes */
static const struct cli_choice latency_dirs[] = {
	{ "r", 1 }, { "w", 2 }, { "rw", 0x3f }, { NULL, 0 },
};
static const struct cli_choice merge_modes[] = {
	{ "sequential", 0 }, { "concurrent", 1 }, { NULL, 0 },
};
static const struct cli_choice latency_axes[] = {
	{ "auto", LATENCY_AXIS_AUTO }, { "log", LATENCY_AXIS_LOG },
	{ "linear", LATENCY_AXIS_LINEAR }, { NULL, 0 },
};
static const struct cli_choice tracers[] = {
	{ "bpf", RECORD_BPF }, { "blktrace", RECORD_BLKTRACE },
	{ "ftrace", RECORD_FTRACE }, { "auto", RECORD_AUTO }, { NULL, 0 },
};
static const struct cli_choice stack_kinds[] = {
	{ "kernel", STACKS_KERNEL }, { "user", STACKS_USER },
	{ "none", STACKS_NONE }, { NULL, 0 },
};
static const struct cli_choice live_formats[] = {
	{ "screen", LIVE_SCREEN }, { "text", LIVE_TEXT },
	{ "json", LIVE_JSON }, { NULL, 0 },
};
static const struct cli_choice movie_styles[] = {
	{ "spindle", MOVIE_SPINDLE }, { "rect", MOVIE_RECT }, { NULL, 0 },
};

/* In the order --help lists them, which is also the order of the
 * candidates named for an ambiguous abbreviation. */
const struct cli_option cli_options[] = {
	/* Input */
	{ .name = "trace", .letter = 't', .type = CLI_LIST,
	  FIELD(trace_args), COUNT(n_trace_args),
	  .help = { { CLI_INPUT, "TRACE",
		"a trace: the base name of blktrace's per-CPU files\n"
		"(NAME.blktrace.N), one of those files, a blkparse -d\n"
		"dump, trace-cmd's trace.dat, perf script's text, a\n"
		"directory of traces (of any of these kinds), or - for\n"
		"stdin (blkparse -i NAME -d - -o /dev/null | iowatcher -t -);\n"
		"any of them gzip-, xz- or zstd-compressed (sda.dump.xz,\n"
		"NAME.blktrace.N.zst); repeat to compare traces (Inputs,\n"
		"below)" } } },
	{ .name = "label", .letter = 'l', .type = CLI_LIST,
	  FIELD(labels), COUNT(n_labels),
	  .help = { { CLI_INPUT, "LABEL",
		"label of the trace given in the same position" } } },
	/* Analysis */
	{ .name = "bin-ms", .type = CLI_INT, FIELD(bin_ms),
	  .min = 1, .max = 86400000, .what = "a whole number of milliseconds",
	  .help = { { CLI_ANALYSIS, "N",
		"time bin width in milliseconds (default: from the\n"
		"trace's duration, 1-2-5 steps, at most 1024 bins)" } } },
	{ .name = "xzoom", .letter = 'x', .type = CLI_CUSTOM,
	  .parse = parse_xzoom,
	  .help = { { CLI_ANALYSIS, "MIN:MAX",
		"count only events from MIN to MAX seconds; with\n"
		"--compare, a second -x is the second trace's" } } },
	{ .name = "yzoom", .letter = 'y', .type = CLI_CUSTOM,
	  .parse = parse_yzoom,
	  .help = { { CLI_ANALYSIS, "MIN:MAX",
		"count only I/O at offsets from MIN to MAX MiB" } } },
	{ .name = "action", .letter = 'a', .type = CLI_CHOICE,
	  FIELD(analysis.iomap_action), .choices = actions, .def = "D",
	  .what = "the action is ",
	  .help = { { CLI_ANALYSIS, "Q|D|C",
		"the action the io graph plots (default D, issue)" } } },
	{ .name = "device", .letter = 'd', .type = CLI_CUSTOM,
	  .parse = parse_device,
	  .help = { { CLI_ANALYSIS, "MAJ,MIN",
		"count only this device's I/O (repeat for several)" },
		{ CLI_RECORDING, "DEV",
		"trace this block device (repeat for several)" } } },
	{ .name = "per-device", .type = CLI_FLAG, FIELD(per_device),
	  .help = { { CLI_ANALYSIS, NULL,
		"draw each line graph once per device" } } },
	/* Output */
	{ .name = "output", .letter = 'o', .type = CLI_STRING, FIELD(output),
	  .help = { { CLI_OUTPUT, "FILE",
		"the picture: .svg, .png or .pdf by its name, or\n"
		"the report: .html, one page to zoom in, or\n"
		"a trace for Perfetto's UI: .pftrace\n"
		"(default NAME.svg, after -t NAME; not drawn with --summary alone)" } } },
	{ .name = "summary", .type = CLI_CHOICE, FIELD(summary),
	  .choices = summary_formats, .bare = "text",
	  .what = "the format is ",
	  .help = { { CLI_OUTPUT, "text|json|stacks",
		"print statistics per trace and device;\n"
		"stacks: bytes per device, kernel stack and process" } } },
	{ .name = "compare", .type = CLI_CHOICE, FIELD(compare),
	  .choices = compare_formats, .bare = "text",
	  .what = "the format is ",
	  .help = { { CLI_OUTPUT, "text|json",
		"why the second trace is slower or faster than the\n"
		"first: per device and class the difference with\n"
		"95% intervals, the verdict, and where the change\n"
		"in latency comes from (mix and rate per stratum)" } } },
	{ .name = "pair", .type = CLI_CUSTOM, .parse = parse_pair,
	  .help = { { CLI_OUTPUT, "MAJ,MIN=MAJ,MIN",
		"--compare: this device of the first trace is that\n"
		"of the second (repeat; others pair by number)" } } },
	{ .name = "vs", .type = CLI_ACTION, .parse = parse_vs,
	  .help = { { CLI_OUTPUT, NULL,
		"--compare of groups of runs: -t A1 -t A2 -t A3 --vs\n"
		"-t B1 -t B2 -t B3 (3 or more a side); intervals from\n"
		"the runs' variation" } } },
	{ .name = "min-change", .type = CLI_CUSTOM, .parse = parse_min_change,
	  .help = { { CLI_OUTPUT, "PCT",
		"--compare: changes smaller than PCT per cent of the\n"
		"first trace's value are not called faster or\n"
		"slower (default 5)" } } },
	{ .name = "title", .type = CLI_STRING, FIELD(title),
	  .help = { { CLI_OUTPUT, "TEXT", "the page title" } } },
	{ .name = "only-graph", .letter = 'O', .type = CLI_CUSTOM,
	  FIELD(only_graphs), COUNT(n_only), .parse = parse_graph_pick,
	  .help = { { CLI_OUTPUT, "NAME",
		"draw only these graphs (repeat)" } } },
	{ .name = "no-graph", .letter = 'N', .type = CLI_CUSTOM,
	  FIELD(no_graphs), COUNT(n_no), .parse = parse_graph_pick,
	  .help = { { CLI_OUTPUT, "NAME",
		"draw all but these graphs (repeat)" } } },
	{ .name = "width", .letter = 'w', .type = CLI_INT, FIELD(graph_width),
	  .min = MIN_GRAPH_WIDTH, .max = MAX_GRAPH_SIZE,
	  .what = "a width in pixels",
	  .why_min = " (the narrowest graph that can be drawn)",
	  .help = { { CLI_OUTPUT, "PX",
		"width of one graph (default 760, at least {min})" } } },
	{ .name = "height", .letter = 'h', .type = CLI_INT,
	  FIELD(graph_height),
	  .min = MIN_GRAPH_HEIGHT, .max = MAX_GRAPH_SIZE,
	  .what = "a height in pixels",
	  .why_min = " (the lowest graph that can be drawn)",
	  .help = { { CLI_OUTPUT, "PX",
		"height of one graph (default 300, at least {min})" } } },
	{ .name = "columns", .letter = 'c', .type = CLI_INT, FIELD(columns),
	  .min = 1, .max = 16, .what = "a number of columns",
	  .help = { { CLI_OUTPUT, "N",
		"graphs per row (default 2 from four graphs up)" } } },
	{ .name = "rolling", .letter = 'r', .type = CLI_SECONDS,
	  FIELD(rolling_s),
	  .help = { { CLI_OUTPUT, "SECONDS",
		"rolling average over the lines" } } },
	{ .name = "top", .type = CLI_INT, FIELD(top_tags),
	  .min = 1, .max = 64, .what = "a number of tags",
	  .help = { { CLI_OUTPUT, "N",
		"with tags, the N with most bytes get colours,\n"
		"and the summary names them (default 8)" } } },
	{ .name = "events", .type = CLI_STRING, FIELD(events_path),
	  .help = { { CLI_OUTPUT, "FILE",
		"a row per I/O: time, device, class, sector (of\n"
		"512 bytes), bytes, Q2D, D2C, Q2C, pid, comm, cgroup,\n"
		"file, tag, io, host, device_name, wall_time;\n"
		"FILE.csv or FILE.jsonl by its name, - for stdout" } } },
	{ .name = "host", .type = CLI_STRING, FIELD(host),
	  .help = { { CLI_OUTPUT, "NAME",
		"the host column of --events for traces that do\n"
		"not name the machine they were recorded on" } } },
	{ .name = "merge-summaries", .type = CLI_CUSTOM,
	  .parse = parse_merge_paths,
	  .help = { { CLI_OUTPUT, "FILE...",
		"merge --summary=json documents (of many hosts,\n"
		"say) into one, exactly: counts and latency\n"
		"histograms add up; printed as --summary says" } } },
	{ .name = "merge-as", .type = CLI_CHOICE, FIELD(merge_concurrent),
	  .choices = merge_modes, .def = "sequential",
	  .help = { { CLI_OUTPUT, "MODE",
		"how --merge-summaries' traces ran: sequential\n"
		"(the default: one after another, rates over the\n"
		"summed durations) or concurrent (side by side,\n"
		"as hosts at once: rates and depths add)" } } },
	{ .name = "csv", .type = CLI_STRING, FIELD(csv_dir),
	  .help = { { CLI_OUTPUT, "DIR",
		"also write each graph's series as DIR/GRAPH.csv" } } },
	{ .name = "dir", .type = CLI_CHOICE, FIELD(latency_dirs),
	  .choices = latency_dirs, .def = "rw",
	  .help = { { CLI_OUTPUT, "r|w|rw",
		"directions the latency graphs show (default rw:\n"
		"also flushes and discards)" } } },
	{ .name = "latency-axis", .type = CLI_CHOICE, FIELD(latency_axis),
	  .choices = latency_axes, .def = "auto",
	  .help = { { CLI_OUTPUT, "MODE",
		"the latency graphs' axis: auto (the default:\n"
		"log where the lines span over two decades),\n"
		"log or linear" } } },
	/* Recording (-d's second help entry is there too) */
	{ .name = "dir-out", .letter = 'D', .type = CLI_STRING,
	  FIELD(record_dir),
	  .help = { { CLI_RECORDING, "DIR",
		"where the recorded NAME.blktrace.N files go (.)" } } },
	{ .name = "prog", .letter = 'p', .type = CLI_CUSTOM,
	  .parse = parse_workload,
	  .help = { { CLI_RECORDING, "PROG [ARGS...]",
		"run the workload while tracing: the rest of\n"
		"the command line (iowatcher's options go before\n"
		"-p); one quoted word runs through sh; without -p,\n"
		"record until interrupted; if it fails, nothing is\n"
		"drawn" } } },
	{ .name = "tracer", .type = CLI_CHOICE, FIELD(tracer),
	  .choices = tracers,
	  .help = { { CLI_RECORDING, "bpf|blktrace|ftrace|auto",
		"how to trace (auto: the cheapest that runs:\n"
		"BPF on the block tracepoints, blktrace, the\n"
		"kernel's ftrace blk tracer)" } } },
	{ .name = "buffer", .type = CLI_CUSTOM, .parse = parse_buffer,
	  .help = { { CLI_RECORDING, "SIZE",
		"trace buffer per CPU, as 512K, 16M or 1G\n"
		"(default 16M)" } } },
	{ .name = "no-causes", .type = CLI_FLAG, FIELD(no_causes),
	  .help = { { CLI_RECORDING, NULL,
		"keep only the trace: not who and what caused\n"
		"each I/O (the bpf recorder keeps the task, cgroup,\n"
		"file and stack in NAME.cause*, for --by; ftrace\n"
		"the task and cgroup)" } } },
	{ .name = "stacks", .type = CLI_CHOICE, FIELD(stacks),
	  .choices = stack_kinds,
	  .what = "the stacks are ",
	  .help = { { CLI_RECORDING, "kernel|user|none",
		"the stacks kept with each I/O's cause: none\n"
		"(the default: a walk per bio costs the workload),\n"
		"kernel, user (kernel and user; the program\n"
		"needs frame pointers)" } } },
	{ .name = "live", .type = CLI_CHOICE, FIELD(live),
	  .choices = live_formats, .bare = "screen",
	  .what = "the format is ",
	  .help = { { CLI_RECORDING, "text|json",
		"while recording (or reading -t -), show each\n"
		"interval's figures: full screen (keys: q quit and\n"
		"plot, p pause, i/b/l sort, ? keys), or a text line\n"
		"per device (when stdout is not a terminal), or a\n"
		"JSON object; -p's output goes to DIR/NAME.out" } } },
	{ .name = "interval", .type = CLI_SECONDS, FIELD(live_interval_s),
	  .help = { { CLI_RECORDING, "SECONDS",
		"the live view's interval (default 1)" } } },
	{ .name = "flight", .type = CLI_CUSTOM, .parse = parse_flight,
	  .bare = "30",
	  .help = { { CLI_RECORDING, "SECONDS",
		"the flight recorder: keep the last SECONDS\n"
		"(default 30) in memory, write nothing until a\n"
		"--trigger fires (or SIGUSR1, or the live view's\n"
		"key c), then the capture DIR/NAME-N (bpf only)" } } },
	{ .name = "flight-mem", .type = CLI_CUSTOM,
	  .parse = parse_flight_mem,
	  .help = { { CLI_RECORDING, "SIZE",
		"--flight's memory bound, as 64M or 1G (default\n"
		"256M): the oldest records go first" } } },
	{ .name = "trigger", .type = CLI_LIST, FIELD(triggers),
	  COUNT(n_triggers),
	  .help = { { CLI_RECORDING, "EXPR",
		"--flight: capture when, as d2c>10ms, q2c>..., q2d>...,\n"
		"p99(q2c)>5ms (over a sliding second), depth>64,\n"
		"per class or device: read.d2c>20ms, sdb.depth>32;\n"
		"repeat for more (any fires)" } } },
	{ .name = "before", .type = CLI_SECONDS, FIELD(before_s),
	  .help = { { CLI_RECORDING, "SECONDS",
		"a capture's seconds before its trigger (default:\n"
		"all kept, at most --flight's)" } } },
	{ .name = "after", .type = CLI_SECONDS, FIELD(after_s),
	  .help = { { CLI_RECORDING, "SECONDS",
		"a capture's seconds after its trigger (default 2)" } } },
	{ .name = "fio-log", .letter = 'F', .type = CLI_LIST,
	  FIELD(fio_logs), COUNT(n_fio_logs),
	  .help = { { CLI_RECORDING, "FILE[@SECONDS]",
		"add a fio bandwidth log (write_bw_log) as\n"
		"a graph; @SECONDS: the job started that late" } } },
	/* Movies */
	{ .name = "movie", .type = CLI_CHOICE, FIELD(movie),
	  .choices = movie_styles, .bare = "spindle",
	  .what = "the style is ",
	  .help = { { CLI_MOVIES, "spindle|rect",
		"a video of the I/O as it happened; -o names\n"
		"it: .mp4 (H.264), .webm (VP9), .ogv or .ogg\n"
		"(Theora), .gif" } } },
	{ .name = "fps", .type = CLI_INT, FIELD(fps),
	  .min = 1, .max = 120, .what = "frames per second",
	  .help = { { CLI_MOVIES, "N", "frames per second (default 20)" } } },
	{ .name = "movie-length", .type = CLI_CUSTOM,
	  .parse = parse_movie_length,
	  .help = { { CLI_MOVIES, "SECONDS",
		"length of the video (default: the trace's,\n"
		"10 to 60 s); N/s: N frames per second of trace" } } },
	{ .name = "keep-frames", .letter = 'K', .type = CLI_STRING,
	  FIELD(keep_frames_dir),
	  .help = { { CLI_MOVIES, "DIR",
		"also keep every frame as DIR/frame-NNNNNN.png" } } },
	/* Tagging */
	{ .name = "by", .type = CLI_CHOICE, FIELD(by), .choices = causes,
	  .what = "the cause is ",
	  .help = { { CLI_TAGGING, "process|comm|cgroup|file|stack",
		"tag I/O by its cause: the process (a writeback's\n"
		"dirtier where recorded with bpf), its name, its\n"
		"cgroup, the file it carries, its kernel stack" } } },
	{ .name = "per-process", .letter = 'P', .type = CLI_FLAG,
	  FIELD(tag_by_process),
	  .help = { { CLI_TAGGING, NULL,
		"tag I/O by the process that caused it (--by process)" } } },
	{ .name = "merge-comm", .type = CLI_FLAG, FIELD(merge_comm),
	  .help = { { CLI_TAGGING, NULL,
		"with -P, one tag per process name (--by comm)" } } },
	{ .name = "tagger", .letter = 'T', .type = CLI_STRING, FIELD(tagger),
	  .help = { { CLI_TAGGING, "'COMMAND [ARGS]'",
		"tag I/O with an external tagger program\n"
		"(shipped: tag-by-pid, tag-by-range, tag-by-size,\n"
		"tag-example; else found on PATH)" } } },
	{ .name = "tagger-timeout", .type = CLI_SECONDS,
	  FIELD(tagger_timeout_s),
	  .help = { { CLI_TAGGING, "SECONDS",
		"a tagger silent this long is an error (30)" } } },
	/* Other */
	{ .name = "help", .type = CLI_ACTION, .parse = want_help,
	  .help = { { CLI_OTHER, NULL, "this text (so is -h alone)" } } },
	{ .name = "version", .type = CLI_ACTION, .parse = want_version,
	  .help = { { CLI_OTHER, NULL, "the version" } } },
};

#define N_ROWS	(sizeof(cli_options) / sizeof(cli_options[0]))
_Static_assert(N_ROWS <= sizeof(((struct cli_parse *)0)->chosen) /
		       sizeof(int), "cli_parse.chosen: a place per row");

const size_t cli_n_options = N_ROWS;

/* ---- reading one option ---- */

/* "Q, D or C" */
static void choice_list(const struct cli_choice *c, char *buf, size_t size)
{
	size_t used = 0, i;

	buf[0] = '\0';
	for (i = 0; c[i].word && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 !i ? "" : c[i + 1].word ? ", " : " or ",
					 c[i].word);
}

static const struct cli_choice *choice_find(const struct cli_choice *c,
					    const char *word)
{
	for (; c->word; c++)
		if (!strcmp(c->word, word))
			return c;
	return NULL;
}

/* The first word of a choice's value (for saying which was given). */
static const char *choice_word(const struct cli_choice *c, int value)
{
	for (; c->word; c++)
		if (c->value == value)
			return c->word;
	return "?";
}

static enum cli_result parse_choice(struct cli_parse *p,
				    const struct cli_option *row,
				    const char *arg)
{
	const struct cli_choice *c = choice_find(row->choices,
						 arg ? arg : row->bare);
	char list[128];
	size_t i;

	if (!c) {
		choice_list(row->choices, list, sizeof(list));
		return usage(p->err, "%s%s%s: %s%s", p->typed,
			     cli_takes_optional_argument(row) ? "=" : " ", arg,
			     row->what ? row->what : "", list);
	}
	i = (size_t)(row - cli_options);
	if (i < sizeof(p->chosen) / sizeof(p->chosen[0])) {
		if (p->chosen[i] && p->chosen[i] != c->value + 1)
			return usage(p->err, "--%s given twice, as %s and as %s: give it once",
				     row->name,
				     choice_word(row->choices, p->chosen[i] - 1),
				     c->word);
		p->chosen[i] = c->value + 1;
	}
	*(int *)field(p->o, row->offset) = c->value;
	return CLI_OK;
}

/* A whole number from row->min to row->max, into the row's int. */
static enum cli_result parse_int(struct cli_parse *p,
				 const struct cli_option *row,
				 const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v < row->min || v > row->max)
		return usage(p->err, "%s %s: %s from %ld%s to %ld", p->typed,
			     arg, row->what, row->min,
			     row->why_min ? row->why_min : "", row->max);
	*(int *)field(p->o, row->offset) = (int)v;
	return CLI_OK;
}

static enum cli_result parse_row(struct cli_parse *p,
				 const struct cli_option *row,
				 const char *arg)
{
	void *dest = field(p->o, row->offset);

	switch (row->type) {
	case CLI_FLAG:
		*(int *)dest = 1;
		return CLI_OK;
	case CLI_INT:
		return parse_int(p, row, arg);
	case CLI_SECONDS:
		if (parse_seconds(arg, dest))
			return usage(p->err, "%s %s: a positive number of seconds",
				     p->typed, arg);
		return CLI_OK;
	case CLI_STRING:
		*(const char **)dest = arg;
		return CLI_OK;
	case CLI_LIST:
		if (append(dest, field(p->o, row->count_offset), arg))
			return usage(p->err, "%s", "out of memory");
		return CLI_OK;
	case CLI_CHOICE:
		return parse_choice(p, row, arg);
	case CLI_CUSTOM:
	case CLI_ACTION:
		return row->parse(p, row, arg);
	}
	return usage(p->err, "%s: not understood", p->typed);
}

/* ---- getopt ---- */

/* getopt's value for a long option without a letter: this plus its row. */
#define LONG_ONLY_BASE	256

struct cli_getopt {
	struct option longs[N_ROWS + 1];
	/* "+:" and per row a letter and up to two colons, then a NUL */
	char shorts[2 + 3 * N_ROWS + 1];
};

static int has_arg(const struct cli_option *row)
{
	if (row->type == CLI_FLAG || row->type == CLI_ACTION)
		return no_argument;
	return cli_takes_optional_argument(row) ? optional_argument :
					      required_argument;
}

static void build_getopt(struct cli_getopt *g)
{
	char *s = g->shorts;
	size_t i;

	/* "+": stop at the first word that is not an option (-p PROG
	 * ARGS...); ":": a missing argument is told from an unknown one */
	*s++ = '+';
	*s++ = ':';
	for (i = 0; i < N_ROWS; i++) {
		const struct cli_option *row = &cli_options[i];

		g->longs[i] = (struct option){ row->name, has_arg(row), NULL,
			row->letter ? row->letter : LONG_ONLY_BASE + (int)i };
		if (!row->letter)
			continue;
		*s++ = row->letter;
		if (has_arg(row) != no_argument)
			*s++ = ':';
		if (has_arg(row) == optional_argument)
			*s++ = ':';
	}
	*s = '\0';
	g->longs[N_ROWS] = (struct option){ NULL, 0, NULL, 0 };
}

static const struct cli_option *row_of(int c)
{
	size_t i;

	if (c >= LONG_ONLY_BASE)
		return &cli_options[c - LONG_ONLY_BASE];
	for (i = 0; i < N_ROWS; i++)
		if (cli_options[i].letter == c)
			return &cli_options[i];
	return NULL;
}

/*
 * The option c in argv word `word`, as the user typed it, for messages: a
 * long one as typed (abbreviated or not) without its =VALUE, a short one
 * as -C even inside a group (-Pw 10), else the whole word.
 */
static void option_typed(char *buf, size_t size, const char *word, int c)
{
	if (!strncmp(word, "--", 2))
		snprintf(buf, size, "%.*s", (int)strcspn(word, "="), word);
	else if (c > 0 && c < 128 && isgraph(c))
		snprintf(buf, size, "-%c", c);
	else
		snprintf(buf, size, "%s", word);
}

/* "--mo" could be --movie or --movie-length: the names it abbreviates. */
static size_t long_option_matches(const char *typed, char *list,
				  size_t size)
{
	size_t len = strlen(typed + 2), n = 0, used = 0, i;

	list[0] = '\0';
	for (i = 0; i < N_ROWS; i++) {
		if (strncmp(cli_options[i].name, typed + 2, len))
			continue;
		if (used < size)
			used += (size_t)snprintf(list + used, size - used,
						 "%s--%s", n ? ", " : "",
						 cli_options[i].name);
		n++;
	}
	return n;
}

/* The edit distance of a and b (letters added, dropped, changed or
 * swapped), counted no further than limit + 1. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t prev2[64], prev[64], cur[64];

	if (la >= 64 || lb >= 64)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		memcpy(prev2, prev, sizeof(prev));
		memcpy(prev, cur, sizeof(cur));
	}
	return prev[lb] <= limit ? prev[lb] : limit + 1;
}

/* The long option "--sumary" was meant to be (one or two letters off,
 * and only one such), or NULL. */
static const char *meant_option(const char *typed)
{
	const char *best = NULL;
	size_t best_d = 3, i, d;
	int ties = 0;

	for (i = 0; i < N_ROWS; i++) {
		d = edit_distance(typed + 2, cli_options[i].name, 2);
		/* a short name two letters off is another word */
		if (d > 2 || (d == 2 && strlen(cli_options[i].name) < 5))
			continue;
		if (d < best_d) {
			best = cli_options[i].name;
			best_d = d;
			ties = 0;
		} else if (d == best_d) {
			ties++;
		}
	}
	return ties ? NULL : best;
}

/* getopt's complaints: ':' a missing argument, '?' anything else. */
static enum cli_result bad_option(int c, const char *typed,
				  struct iow_error *err)
{
	char names[256];

	if (c == ':')
		return usage(err, "%s needs an argument%s", typed,
			     strcmp(typed, "-h") ? "" :
			     " (-h is the graph height; the help is --help)");
	if (strncmp(typed, "--", 2)) {
		/* the original iowatcher's -m */
		return usage(err, "%s: unknown option%s", typed,
			     strcmp(typed, "-m") ? "" : " (a movie is --movie)");
	}
	if (optopt)
		return usage(err, "%s takes no argument", typed);
	if (long_option_matches(typed, names, sizeof(names)) > 1)
		return usage(err, "%s: ambiguous, it could be %s", typed,
			     names);
	if (meant_option(typed))
		return usage(err, "%s: unknown option (did you mean --%s?)",
			     typed, meant_option(typed));
	return usage(err, "%s: unknown option", typed);
}

static enum cli_result read_options(struct cli_parse *p)
{
	struct cli_getopt g;
	char typed[64];
	enum cli_result r;
	int c, word;

	build_getopt(&g);
	p->typed = typed;
	opterr = 0;
	optind = 0;	/* glibc: a new scan, whatever the last one left */
	for (;;) {
		/* getopt stays on a word while it reads a group (-Pw 10) */
		word = optind ? optind : 1;
		c = getopt_long(p->argc, p->argv, g.shorts, g.longs, NULL);
		if (c == -1)
			break;
		option_typed(typed, sizeof(typed), p->argv[word],
			     c == '?' || c == ':' ? optopt : c);
		if (c == '?' || c == ':' || !row_of(c))
			return bad_option(c, typed, p->err);
		r = parse_row(p, row_of(c), optarg);
		if (r != CLI_OK)
			return r;
	}
	if (optind < p->argc)
		return usage(p->err, "%s: unexpected argument",
			     p->argv[optind]);
	return CLI_OK;
}

/* ---- the options together ---- */

/* Whether DIR/NAME is a trace already: a file, a directory or a set. */
static int trace_exists(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) == 0)
		return 1;
	snprintf(path, sizeof(path), "%s/%s.blktrace.0", dir, name);
	return stat(path, &st) == 0;
}

/*
 * -t NAME given with -d DEV names the trace to record. Where NAME is a
 * trace already, the user meant to read it (and -d to pick a device of
 * it): a run never records over or beside its input. The hint gives the
 * device as MAJ,MIN where it is a block device.
 */
static enum cli_result refuse_recording_over(struct options *o,
					     struct iow_error *err)
{
	const char *dir = o->record_dir ? o->record_dir : ".";
	const char *dev = o->devices[0];
	char as_dev_t[64] = "MAJ,MIN";
	struct stat st;

	if (!trace_exists(dir, o->trace_args[0]))
		return CLI_OK;
	if (stat(dev, &st) == 0 && S_ISBLK(st.st_mode))
		snprintf(as_dev_t, sizeof(as_dev_t), "%u,%u",
			 major(st.st_rdev), minor(st.st_rdev));
	return usage(err, "-t %s is a trace already, and -d %s would record a new one: to read only that device's I/O of the trace, give -d %s; to record, give a new name with -t (or none)",
		     o->trace_args[0], dev, as_dev_t);
}

/* Recording writes NAME.blktrace.N: NAME from -t, or the device's name. */
static enum cli_result recording_defaults(struct options *o,
					  struct iow_error *err)
{
	const char *base = strrchr(o->devices[0], '/');

	if (o->n_trace_args > 1)
		return usage(err, "%s", "recording writes one trace: give at most one -t NAME");
	if (o->n_trace_args && refuse_recording_over(o, err) != CLI_OK)
		return CLI_USAGE;
	if (!o->n_trace_args &&
	    append(&o->trace_args, &o->n_trace_args,
		   base ? base + 1 : o->devices[0]))
		return usage(err, "%s", "out of memory");
	if (strchr(o->trace_args[0], '/'))
		return usage(err, "-t %s: with -d, -t is a name; give the directory with -D",
			     o->trace_args[0]);
	return CLI_OK;
}

static enum cli_result check_movie_args(struct options *o,
					struct iow_error *err)
{
	if (!o->output)
		return usage(err, "--movie needs -o FILE (%s)",
			     output_extensions(OUTPUT_MOVIE));
	if (output_type_of(o->output, &o->output_type, NULL) < 0 ||
	    o->output_type.kind != OUTPUT_MOVIE)
		return usage(err, "%s: a movie is %s", o->output,
			     output_extensions(OUTPUT_MOVIE));
	if ((o->graph_width & 1) || (o->graph_height & 1))
		return usage(err, "%s", "movie frames need an even -w and -h (the encoder's yuv420p halves them)");
	if (!o->fps)
		o->fps = 20;
	return CLI_OK;
}

/* -o names a picture (the trace's name .svg unless only text or CSV is
 * asked for). */
static enum cli_result check_picture_args(struct options *o,
					  struct iow_error *err)
{
	if (!o->output && o->summary == SUMMARY_NONE && !o->csv_dir &&
	    !o->events_path && !o->compare) {
		default_picture_name(o->trace_args, o->n_trace_args,
				     o->default_output,
				     sizeof(o->default_output));
		o->output = o->default_output;
	}
	if (!o->output)
		return CLI_OK;
	if (output_type_of(o->output, &o->output_type, err) < 0)
		return CLI_USAGE;
	if (o->output_type.kind == OUTPUT_MOVIE)
		return usage(err, "%s: a movie's name: add --movie (a picture is %s)",
			     o->output, output_extensions(OUTPUT_PICTURE));
	return CLI_OK;
}

/* --live watches a recording or a stream: the screen needs a terminal. */
static enum cli_result check_live_args(struct options *o,
				       struct iow_error *err)
{
	if (o->live_interval_s > 0 && !o->live)
		return usage(err, "%s", "--interval goes with --live");
	if (!o->live)
		return CLI_OK;
	if (o->live_interval_s > 0 &&
	    (o->live_interval_s < 0.01 || o->live_interval_s > 3600))
		return usage(err, "--interval %g: from 0.01 to 3600 seconds",
			     o->live_interval_s);
	if (!o->n_devices && (o->n_trace_args != 1 ||
			      strcmp(o->trace_args[0], "-")))
		return usage(err, "%s", "--live watches a recording (-d DEVICE) or a trace read from stdin (-t -)");
	if (o->live == LIVE_SCREEN && !isatty(1))
		o->live = LIVE_TEXT;
	/* a stream stays one format: JSON lines to the end */
	if (o->live == LIVE_JSON && (o->summary == SUMMARY_TEXT ||
				     o->summary == SUMMARY_STACKS))
		return usage(err, "%s", "--live=json writes JSON lines: --summary=json ends them with the summary as one more line (a text --summary would break the stream)");
	return CLI_OK;
}

/* --flight and what goes with it: each trigger understood, before any
 * recording starts. */
static enum cli_result check_flight_args(struct options *o,
					 struct iow_error *err)
{
	struct flight_trigger t;
	size_t i, k;

	if (!o->flight_s) {
		if (o->flight_mem || o->n_triggers || o->before_s > 0 ||
		    o->after_s > 0)
			return usage(err, "%s", "--flight-mem, --trigger, --before and --after go with --flight");
		return CLI_OK;
	}
	if (!o->n_devices)
		return usage(err, "%s", "--flight records: give the devices with -d DEVICE");
	if (o->tracer == RECORD_BLKTRACE || o->tracer == RECORD_FTRACE)
		return usage(err, "%s", "--flight keeps the bpf recorder's records in memory: --tracer bpf or auto (the ftrace overwrite-mode flight recorder is not built)");
	if (o->stacks)
		return usage(err, "%s", "--flight keeps no causes or stacks: leave --stacks out");
	if (o->before_s > o->flight_s)
		return usage(err, "--before %g: at most the %g s --flight keeps",
			     o->before_s, o->flight_s);
	if (o->n_triggers > FLIGHT_MAX_TRIGGERS)
		return usage(err, "at most %d --trigger", FLIGHT_MAX_TRIGGERS);
	if (o->output || o->summary || o->csv_dir || o->events_path ||
	    o->movie || o->compare)
		return usage(err, "%s", "--flight draws nothing itself: it writes captures DIR/NAME-N, each read as a trace (iowatcher -t DIR/NAME-1 -o x.svg, --summary, ...)");
	for (i = 0; i < o->n_triggers; i++) {
		if (flight_trigger_parse(o->triggers[i], &t, err->msg,
					 sizeof(err->msg)))
			return CLI_USAGE;
		if (!t.device[0])
			continue;
		for (k = 0; k < o->n_devices; k++) {
			const char *s = strrchr(o->devices[k], '/');

			if (!strcmp(t.device, s ? s + 1 : o->devices[k]))
				break;
		}
		if (k == o->n_devices)
			return usage(err, "--trigger %s: %s is no device -d names (a scope is read, write or a device's name, as sdb.depth>32)",
				     o->triggers[i], t.device);
	}
	return CLI_OK;
}

/* --compare takes two traces; a second -x and --pair go with it. */
static enum cli_result check_compare_args(struct options *o,
					  struct iow_error *err)
{
	if (!o->compare) {
		if (o->has_x2_range)
			return usage(err, "%s", "-x given twice: the second is the second trace's window, with --compare (else give one -x)");
		if (o->n_pairs)
			return usage(err, "%s", "--pair goes with --compare");
		if (o->has_min_change)
			return usage(err, "%s", "--min-change goes with --compare");
		if (o->vs_at)
			return usage(err, "%s", "--vs goes with --compare: -t A1 -t A2 -t A3 --vs -t B1 -t B2 -t B3 --compare");
		return CLI_OK;
	}
	if (o->vs_at) {
		size_t na = o->vs_at - 1, nb = o->n_trace_args - na;

		if (na < 3 || nb < 3)
			return usage(err, "--compare of groups needs 3 runs a side or more (%zu before --vs, %zu after): run-to-run variation from fewer is no interval; give -t A1 -t A2 -t A3 --vs -t B1 -t B2 -t B3, or two traces without --vs",
				     na, nb);
		if (o->summary)
			return usage(err, "%s", "--compare and --summary both print to standard output: give one");
		if (o->has_x2_range || o->n_pairs || o->output || o->n_devices)
			return usage(err, "%s", "--compare of groups (--vs) takes neither -o, a second -x, --pair nor -d: compare recorded runs, devices paired by number");
		return CLI_OK;
	}
	if (o->n_trace_args != 2)
		return usage(err, "--compare compares two traces: give -t A -t B (%zu given)",
			     o->n_trace_args);
	if (o->summary)
		return usage(err, "%s", "--compare and --summary both print to standard output: give one");
	if (o->n_devices)
		return usage(err, "%s", "--compare reads two traces: record them first (-d), then compare them");
	if (o->movie || (o->output &&
			 output_type_of(o->output, &o->output_type, NULL) == 0 &&
			 o->output_type.kind != OUTPUT_PICTURE &&
			 o->output_type.kind != OUTPUT_REPORT))
		return usage(err, "-o %s: --compare draws a picture (%s) or a page (.html)",
			     o->output ? o->output : "", output_extensions(OUTPUT_PICTURE));
	return CLI_OK;
}

/* --merge-summaries reads summaries, not traces: only --summary and
 * --top go with it. */
static enum cli_result check_merge_args(struct options *o,
					struct iow_error *err)
{
	if (o->n_trace_args || o->n_devices || o->output || o->compare ||
	    o->csv_dir || o->events_path || o->movie || o->live ||
	    o->n_labels || o->fio_logs || o->host)
		return usage(err, "%s", "--merge-summaries merges summaries written by --summary=json, alone: give it the files and at most --summary[=json] and --top (summarise traces in a run of their own)");
	if (o->summary == SUMMARY_STACKS)
		return usage(err, "%s", "--merge-summaries: the summaries hold no stacks; --summary or --summary=json");
	return CLI_OK;
}

static enum cli_result check_options(struct options *o, struct iow_error *err)
{
	if (o->n_merge_paths)
		return check_merge_args(o, err);
	if (o->merge_concurrent)
		return usage(err, "%s", "--merge-as says how --merge-summaries' traces ran: give it with --merge-summaries FILE...");
	if (o->n_devices) {
		if (recording_defaults(o, err) != CLI_OK)
			return CLI_USAGE;
	} else if (o->prog_argv || o->record_dir || o->tracer ||
		   o->record_buffer_kb || o->no_causes || o->stacks) {
		return usage(err, "%s", "-p, -D, --tracer, --buffer, --no-causes and --stacks go with -d DEVICE (recording)");
	}
	if (o->no_causes && o->stacks)
		return usage(err, "%s", "--stacks keeps stacks with the causes, which --no-causes leaves out: give one of them");
	if (o->stacks && (o->tracer == RECORD_BLKTRACE ||
			  o->tracer == RECORD_FTRACE))
		return usage(err, "%s", "--stacks: only the bpf recorder keeps causes and stacks (--tracer bpf or auto)");
	if (o->n_devices && (graphs_needs(o) & GRAPH_NEEDS_STACKS) &&
	    o->stacks != STACKS_KERNEL && o->stacks != STACKS_USER)
		return usage(err, "%s", "-O io-flame draws kernel stacks, which only the bpf recorder keeps, with --stacks kernel: add it (or leave -O io-flame out)");
	if (check_flight_args(o, err) != CLI_OK)
		return CLI_USAGE;
	if (!o->n_trace_args)
		return usage(err, "%s", "no trace: give one with -t");
	if (check_live_args(o, err) != CLI_OK)
		return CLI_USAGE;
	if (o->n_labels > o->n_trace_args)
		return usage(err, "%s", "more -l labels than -t traces");
	if (o->merge_comm && !o->tag_by_process)
		return usage(err, "%s", "--merge-comm goes with -P");
	if (o->tag_by_process && o->by)
		return usage(err, "%s", "-P and --by both tag: -P is --by process (and -P --merge-comm --by comm): give one");
	if (o->tag_by_process)
		o->by = o->merge_comm ? BY_COMM : BY_PROCESS;
	if (o->by && o->tagger)
		return usage(err, "%s%s and -T both tag: give one of them",
			     o->tag_by_process ? "-P" : "--by ",
			     o->tag_by_process ? "" : cause_by_name(o->by));
	/* one format to a stream: the log's CSV alone on stdout */
	if (o->events_path && !strcmp(o->events_path, "-") &&
	    (o->summary || o->live == LIVE_TEXT || o->live == LIVE_JSON))
		return usage(err, "--events - writes CSV to standard output, as %s would: give --events a file (.csv or .jsonl)",
			     o->summary ? "--summary" : "--live");
	if (o->host && !o->events_path)
		return usage(err, "%s", "--host names the host column of the per-I/O log: give --events FILE too");
	if (o->host && !o->host[0])
		return usage(err, "%s", "--host: give the machine's name (as uname -n prints it)");
	if (check_compare_args(o, err) != CLI_OK)
		return CLI_USAGE;
	if (o->movie)
		return check_movie_args(o, err);
	if (o->fps || o->movie_length_s > 0 || o->movie_frames_per_s > 0 ||
	    o->keep_frames_dir)
		return usage(err, "%s", "--fps, --movie-length and -K go with --movie");
	return check_picture_args(o, err);
}

/* v >= 0 as a count, UINT64_MAX from 2^64 up: -x 0:1e300 is "to the end". */
static uint64_t saturate_u64(double v)
{
	return v < 18446744073709551616.0 ? (uint64_t)v : UINT64_MAX;
}

/* What the analysis is told, from the options. */
static void analysis_options(struct options *o)
{
	struct analysis_config *a = &o->analysis;

	a->bin_width_ns = (uint64_t)o->bin_ms * 1000000ull;
	/* Only pictures and CSV read the I/O map and per-bin histograms. */
	a->stats_only = !o->output && !o->csv_dir && !o->movie;
	if (o->has_x_range) {
		a->has_time_range = 1;
		/* to the nearest ns: 2.84 s is 2839999999.9999995 ns as a
		 * double, and the report's -x of a bin edge must be it */
		a->time_min_ns = saturate_u64(o->x_min_s * 1e9 + 0.5);
		a->time_max_ns = saturate_u64(o->x_max_s * 1e9 + 0.5);
	}
	if (o->has_y_range) {
		a->has_offset_range = 1;
		a->offset_min = saturate_u64(o->y_min_mib * 1048576.0);
		a->offset_max = saturate_u64(o->y_max_mib * 1048576.0);
	}
	a->only_devices = o->only_devices;
	a->n_only_devices = o->n_only_devices;
	a->per_device = o->per_device;
}

/* Everything zero, but the choices that have a default. */
static void options_defaults(struct options *o)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->min_change = 0.05;
	for (i = 0; i < N_ROWS; i++) {
		const struct cli_option *row = &cli_options[i];

		if (row->type == CLI_CHOICE && row->def)
			*(int *)field(o, row->offset) =
				choice_find(row->choices, row->def)->value;
	}
}

enum cli_result options_parse(int argc, char **argv, struct options *o,
			      struct iow_error *err)
{
	struct cli_parse p = { o, argc, argv, NULL, err, { 0 } };
	enum cli_result r;

	options_defaults(o);
	/* -h is the height here, but alone it is what newcomers type */
	if (argc == 2 && !strcmp(argv[1], "-h"))
		return CLI_HELP;
	r = read_options(&p);
	if (r == CLI_OK)
		r = check_options(o, err);
	if (r != CLI_OK) {
		options_free(o);
		return r;
	}
	analysis_options(o);
	return CLI_OK;
}

void options_free(struct options *o)
{
	free(o->trace_args);
	free(o->labels);
	free(o->devices);
	free(o->prog_argv);
	free(o->merge_paths);
	free(o->fio_logs);
	free(o->triggers);
	o->triggers = NULL;
	o->n_triggers = 0;
	o->trace_args = o->labels = o->devices = o->fio_logs = NULL;
	o->n_trace_args = o->n_labels = o->n_devices = o->n_fio_logs = 0;
	o->prog_argv = NULL;
	o->merge_paths = NULL;
	o->n_merge_paths = 0;
}

const char *cli_misplaced_option(char *const *argv, char *buf, size_t size)
{
	size_t i, len, k;

	if (argv[0] == shell_path)
		return NULL;
	for (i = 1; argv[i]; i++) {
		const char *w = argv[i];

		if (w[0] != '-' || !w[1] || w[1] == ':')
			continue;
		len = strcspn(w + 2, "=");
		for (k = 0; k < N_ROWS; k++) {
			const struct cli_option *row = &cli_options[k];

			if (w[1] != '-' && row->letter == w[1])
				return w;
			if (w[1] == '-' && strlen(row->name) == len &&
			    !strncmp(row->name, w + 2, len)) {
				snprintf(buf, size, "%.*s", (int)len + 2, w);
				return buf;
			}
		}
	}
	return NULL;
}
