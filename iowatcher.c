/*
 * iowatcher.c: the command line and the orchestration of the pipeline:
 * find the traces, run each through reader -> tagger -> analysis, then
 * print the summary and draw the graphs. Only this file exits.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis.h"
#include "blkparse_feed.h"
#include "feed_pipe.h"
#include "blktrace.h"
#include "csv.h"
#include "graphs.h"
#include "live.h"
#include "movie.h"
#include "options.h"
#include "ptag.h"
#include "record.h"
#include "summary.h"
#include "tagger.h"

#define EXIT_USAGE 2

static const char usage_line[] =
	"usage: iowatcher -t TRACE [-t TRACE ...] [-l LABEL ...] [-o FILE] [--summary[=json]] [options]";

/*
 * The smallest graph that can be drawn: its title, legend, tick labels
 * and axis labels around a plot that still shows something.
 */
#define MIN_GRAPH_WIDTH		200
#define MIN_GRAPH_HEIGHT	150
#define MAX_GRAPH_SIZE		20000

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iowatcher: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s\n(iowatcher --help lists the options)\n",
		usage_line);
	exit(EXIT_USAGE);
}

static void print_help(void)
{
	size_t i;

	printf("%s\n\n", usage_line);
	fputs(
"Input\n"
"  -t, --trace TRACE     a trace: the base name of blktrace's per-CPU files\n"
"                        (NAME.blktrace.N), one of those files, a blkparse -d\n"
"                        dump, a directory of traces, or - for a dump on stdin;\n"
"                        repeat to compare traces\n"
"  -l, --label LABEL     label of the trace given in the same position\n"
"Analysis\n"
"      --bin-ms N        time bin width in milliseconds (default: from the\n"
"                        trace's duration, 1-2-5 steps, at most 1024 bins)\n"
"  -x, --xzoom MIN:MAX   count only events from MIN to MAX seconds\n"
"  -y, --yzoom MIN:MAX   count only I/O at offsets from MIN to MAX MiB\n"
"  -a, --action Q|D|C    the action the io graph plots (default D, issue)\n"
"  -d, --device MAJ,MIN  count only this device's I/O (repeat for several)\n"
"      --per-device      draw each line graph once per device\n"
"Output\n"
"  -o, --output FILE     the picture: .svg, .png or .pdf by its name\n"
"                        (default trace.svg; not drawn with --summary alone)\n"
"      --summary[=text|json]  print statistics per trace and device\n"
"      --title TEXT      the page title\n"
"  -O, --only-graph NAME draw only these graphs (repeat)\n"
"  -N, --no-graph NAME   draw all but these graphs (repeat)\n"
"  -w, --width PX        width of one graph (default 760, at least 200)\n"
"  -h, --height PX       height of one graph (default 300, at least 150)\n"
"  -c, --columns N       graphs per row (default 2 from four graphs up)\n"
"  -r, --rolling SECONDS rolling average over the lines\n"
"      --top N           with tags, the N largest get colours (default 8)\n"
"      --csv DIR         also write each graph's series as DIR/GRAPH.csv\n"
"      --dir r|w|rw      directions the latency graphs show (default rw:\n"
"                        also flushes and discards)\n"
"Recording (root)\n"
"  -d, --device DEV      trace this block device (repeat for several)\n"
"  -D, --dir-out DIR     where the recorded NAME.blktrace.N files go (.)\n"
"  -p, --prog PROG [ARGS...]  run the workload while tracing: the rest of\n"
"                        the command line (iowatcher's options go before\n"
"                        -p); one quoted word runs through sh; without -p,\n"
"                        record until interrupted; if it fails, nothing is\n"
"                        drawn\n"
"      --tracer blktrace|ftrace|auto  how to trace (auto: blktrace, else\n"
"                        the kernel's ftrace blk tracer)\n"
"      --live[=text|json]  while recording (or reading -t -), show each\n"
"                        interval's figures: full screen (keys: q quit and\n"
"                        plot, p pause, i/b/l sort, ? keys), or a text line\n"
"                        per device (when stdout is not a terminal), or a\n"
"                        JSON object; -p's output goes to DIR/NAME.out\n"
"      --interval SECONDS  the live view's interval (default 1)\n"
"  -F, --fio-log FILE[@SECONDS]  add a fio bandwidth log (write_bw_log) as\n"
"                        a graph; @SECONDS: the job started that late\n"
"Movies\n"
"      --movie[=spindle|rect]  a video of the I/O as it happened; -o names\n"
"                        it: .mp4 (H.264), .webm (VP9), .ogv or .ogg\n"
"                        (Theora), .gif\n"
"      --fps N           frames per second (default 20)\n"
"      --movie-length SECONDS  length of the video (default: the trace's,\n"
"                        10 to 60 s); N/s: N frames per second of trace\n"
"  -K, --keep-frames DIR also keep every frame as DIR/frame-NNNNNN.png\n"
"Tagging\n"
"  -P, --per-process     tag I/O by the process that queued it\n"
"      --merge-comm      with -P, one tag per process name, not per pid\n"
"  -T, --tagger 'COMMAND [ARGS]'  tag I/O with an external tagger program\n"
"                        (shipped: tag-by-pid, tag-by-range, tag-by-size,\n"
"                        tag-example; else found on PATH)\n"
"      --tagger-timeout SECONDS  a tagger silent this long is an error (30)\n"
"Other\n"
"      --help            this text (so is -h alone)\n"
"      --version         the version\n"
"Graphs (-O / -N names)\n", stdout);
	for (i = 0; i < graph_table_len; i++)
		printf("  %-16s %s%s\n", graph_table[i].name, graph_table[i].help,
		       graph_table[i].default_on ? "" : " (off by default)");
}

/*
 * -d MAJ,MIN names a traced device whose I/O alone is counted (a path or
 * a name is a device to record): 1 when arg was one.
 */
static int parse_dev_t(const char *arg, struct options *o)
{
	unsigned long major, minor;
	char *end;

	if (!isdigit((unsigned char)arg[0]))
		return 0;
	major = strtoul(arg, &end, 10);
	if (*end != ',' || !isdigit((unsigned char)end[1]))
		return 0;
	minor = strtoul(end + 1, &end, 10);
	if (*end)
		return 0;
	if (major > 0xfff || minor > 0xfffff)
		usage_error("--device %s: a major up to 4095 and a minor up to 1048575",
			    arg);
	if (o->n_only_devices == MAX_ONLY_DEVICES)
		usage_error("--device %s: at most 64 devices", arg);
	o->only_devices[o->n_only_devices++] =
		(uint32_t)(major << 20 | minor);
	return 1;
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

/*
 * A whole number from min to max, else a usage error for the option the
 * user typed as typed: "TYPED ARG: WHAT from MIN[WHY_MIN] to MAX".
 */
static long parse_count(const char *arg, const char *typed, const char *what,
			long min, const char *why_min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v < min || v > max)
		usage_error("%s %s: %s from %ld%s to %ld", typed, arg, what,
			    min, why_min, max);
	return v;
}

static long parse_positive(const char *arg, const char *typed,
			   const char *what, long max)
{
	return parse_count(arg, typed, what, 1, "", max);
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

enum long_only {
	OPT_SUMMARY = 256,
	OPT_BIN_MS,
	OPT_MERGE_COMM,
	OPT_HELP,
	OPT_VERSION,
	OPT_TITLE,
	OPT_TOP,
	OPT_CSV,
	OPT_DIR,
	OPT_TAGGER_TIMEOUT,
	OPT_MOVIE,
	OPT_FPS,
	OPT_MOVIE_LENGTH,
	OPT_TRACER,
	OPT_PER_DEVICE,
	OPT_LIVE,
	OPT_INTERVAL,
};

static const struct option long_options[] = {
	{ "trace", required_argument, NULL, 't' },
	{ "label", required_argument, NULL, 'l' },
	{ "summary", optional_argument, NULL, OPT_SUMMARY },
	{ "bin-ms", required_argument, NULL, OPT_BIN_MS },
	{ "xzoom", required_argument, NULL, 'x' },
	{ "yzoom", required_argument, NULL, 'y' },
	{ "action", required_argument, NULL, 'a' },
	{ "per-process", no_argument, NULL, 'P' },
	{ "tagger", required_argument, NULL, 'T' },
	{ "tagger-timeout", required_argument, NULL, OPT_TAGGER_TIMEOUT },
	{ "merge-comm", no_argument, NULL, OPT_MERGE_COMM },
	{ "output", required_argument, NULL, 'o' },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "only-graph", required_argument, NULL, 'O' },
	{ "no-graph", required_argument, NULL, 'N' },
	{ "width", required_argument, NULL, 'w' },
	{ "height", required_argument, NULL, 'h' },
	{ "columns", required_argument, NULL, 'c' },
	{ "rolling", required_argument, NULL, 'r' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "device", required_argument, NULL, 'd' },
	{ "per-device", no_argument, NULL, OPT_PER_DEVICE },
	{ "dir-out", required_argument, NULL, 'D' },
	{ "prog", required_argument, NULL, 'p' },
	{ "tracer", required_argument, NULL, OPT_TRACER },
	{ "live", optional_argument, NULL, OPT_LIVE },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "fio-log", required_argument, NULL, 'F' },
	{ "movie", optional_argument, NULL, OPT_MOVIE },
	{ "fps", required_argument, NULL, OPT_FPS },
	{ "movie-length", required_argument, NULL, OPT_MOVIE_LENGTH },
	{ "keep-frames", required_argument, NULL, 'K' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/*
 * "+": stop at the first word that is not an option (-p PROG ARGS...);
 * ":": a missing argument is told from an unknown option.
 */
static const char short_options[] = "+:t:l:x:y:a:PT:o:O:N:w:h:c:r:K:d:D:p:F:";

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
static size_t long_option_matches(const char *typed, char *list, size_t size)
{
	size_t len = strlen(typed + 2), n = 0, used = 0;
	const struct option *lo;

	list[0] = '\0';
	for (lo = long_options; lo->name; lo++) {
		if (strncmp(lo->name, typed + 2, len))
			continue;
		if (used < size)
			used += (size_t)snprintf(list + used, size - used,
						 "%s--%s", n ? ", " : "",
						 lo->name);
		n++;
	}
	return n;
}

/* getopt's complaints: ':' a missing argument, '?' anything else. */
static void bad_option(int c, const char *typed)
{
	char names[256];

	if (c == ':')
		usage_error("%s needs an argument%s", typed,
			    strcmp(typed, "-h") ? "" :
			    " (-h is the graph height; the help is --help)");
	if (strncmp(typed, "--", 2)) {
		/* the original iowatcher's -m */
		usage_error("%s: unknown option%s", typed,
			    strcmp(typed, "-m") ? "" : " (a movie is --movie)");
	}
	if (optopt)
		usage_error("%s takes no argument", typed);
	if (long_option_matches(typed, names, sizeof(names)) > 1)
		usage_error("%s: ambiguous, it could be %s", typed, names);
	usage_error("%s: unknown option", typed);
}

static double parse_seconds(const char *arg, const char *typed)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v <= 0)
		usage_error("%s %s: a positive number of seconds", typed, arg);
	return v;
}

static void pick_graph(struct options *o, int c, const char *name)
{
	const char **list = c == 'O' ? o->only_graphs : o->no_graphs;
	size_t *n = c == 'O' ? &o->n_only : &o->n_no;

	if (!graph_find(name))
		usage_error("%s: no such graph (iowatcher --help lists them)",
			    name);
	if (*n < MAX_GRAPH_PICKS)
		list[(*n)++] = name;
}

/* A quoted workload's shell (a workload of words runs as it is). */
static char shell_path[] = "/bin/sh";

/*
 * -p PROG [ARGS...]: the rest of the command line is the workload. One
 * word with spaces ("fio job.fio") runs through the shell, so it cannot
 * be followed by more: those are iowatcher's options typed too late.
 */
static void take_workload(struct options *o, int argc, char **argv,
			  const char *prog)
{
	static char dash_c[] = "-c";
	int n = argc - optind, i;
	int shell = strpbrk(prog, " \t;|&<>$'\"") != NULL;

	if (shell && n > 0)
		usage_error("-p takes the rest of the command line, so '%s' cannot follow the quoted workload: put iowatcher's options before -p",
			    argv[optind]);
	o->prog_argv = calloc((size_t)n + 4, sizeof(*o->prog_argv));
	if (!o->prog_argv)
		usage_error("%s", "out of memory");
	if (shell) {
		o->prog_argv[0] = shell_path;
		o->prog_argv[1] = dash_c;
		o->prog_argv[2] = (char *)prog;
	} else {
		o->prog_argv[0] = (char *)prog;
		for (i = 0; i < n; i++)
			o->prog_argv[i + 1] = argv[optind + i];
	}
	optind = argc;
}

static void parse_action(struct options *o, const char *arg,
			 const char *typed)
{
	if (!strcmp(arg, "Q"))
		o->analysis.iomap_action = BLK_TA_QUEUE;
	else if (!strcmp(arg, "D"))
		o->analysis.iomap_action = BLK_TA_ISSUE;
	else if (!strcmp(arg, "C"))
		o->analysis.iomap_action = BLK_TA_COMPLETE;
	else
		usage_error("%s %s: the action is Q, D or C", typed, arg);
}

/* Recording writes NAME.blktrace.N: NAME from -t, or the device's name. */
static void recording_defaults(struct options *o)
{
	const char *base = strrchr(o->devices[0], '/');

	if (o->n_trace_args > 1)
		usage_error("%s", "recording writes one trace: give at most one -t NAME");
	if (!o->n_trace_args &&
	    append(&o->trace_args, &o->n_trace_args,
		   base ? base + 1 : o->devices[0]))
		usage_error("%s", "out of memory");
	if (strchr(o->trace_args[0], '/'))
		usage_error("-t %s: with -d, -t is a name; give the directory with -D",
			    o->trace_args[0]);
}

/* v >= 0 as a count, UINT64_MAX from 2^64 up: -x 0:1e300 is "to the end". */
static uint64_t saturate_u64(double v)
{
	return v < 18446744073709551616.0 ? (uint64_t)v : UINT64_MAX;
}

static void check_movie_args(struct options *o)
{
	enum movie_container c;
	struct iow_error err;

	if (!o->output)
		usage_error("%s", "--movie needs -o FILE (.mp4, .webm, .ogv, .ogg or .gif)");
	if (movie_container_from_name(o->output, &c, &err) < 0)
		usage_error("%s", err.msg);
	if ((o->graph_width & 1) || (o->graph_height & 1))
		usage_error("%s", "movie frames need an even -w and -h (the encoder's yuv420p halves them)");
	if (!o->fps)
		o->fps = 20;
}

/* -o names a picture (trace.svg unless only text or CSV is asked for). */
static void check_picture_args(struct options *o)
{
	enum movie_container c;
	enum plot_format fmt;
	struct iow_error err;

	if (!o->output && o->summary == SUMMARY_NONE && !o->csv_dir)
		o->output = "trace.svg";
	if (!o->output || plot_format_from_name(o->output, &fmt, &err) == 0)
		return;
	if (movie_container_from_name(o->output, &c, NULL) == 0)
		usage_error("%s: a movie's name: add --movie (a picture is .svg, .png or .pdf)",
			    o->output);
	usage_error("%s", err.msg);
}

/* --live watches a recording or a stream: the screen needs a terminal. */
static void check_live_args(struct options *o)
{
	if (o->live_interval_s > 0 && !o->live)
		usage_error("%s", "--interval goes with --live");
	if (!o->live)
		return;
	if (!o->n_devices && (o->n_trace_args != 1 ||
			      strcmp(o->trace_args[0], "-")))
		usage_error("%s", "--live watches a recording (-d DEVICE) or a trace read from stdin (-t -)");
	if (o->live == LIVE_SCREEN && !isatty(1))
		o->live = LIVE_TEXT;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	char typed[64];
	int c, word;

	memset(o, 0, sizeof(*o));
	o->analysis.iomap_action = BLK_TA_ISSUE;
	o->latency_dirs = 0xf;
	/* -h is the height here, but alone it is what newcomers type */
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		print_help();
		exit(0);
	}
	opterr = 0;
	for (;;) {
		/* getopt stays on a word while it reads a group (-Pw 10) */
		word = optind;
		c = getopt_long(argc, argv, short_options, long_options, NULL);
		if (c == -1)
			break;
		option_typed(typed, sizeof(typed), argv[word],
			     c == '?' || c == ':' ? optopt : c);
		switch (c) {
		case 't':
			if (append(&o->trace_args, &o->n_trace_args, optarg))
				usage_error("%s", "out of memory");
			break;
		case 'l':
			if (append(&o->labels, &o->n_labels, optarg))
				usage_error("%s", "out of memory");
			break;
		case OPT_SUMMARY:
			if (!optarg || !strcmp(optarg, "text"))
				o->summary = SUMMARY_TEXT;
			else if (!strcmp(optarg, "json"))
				o->summary = SUMMARY_JSON;
			else
				usage_error("%s=%s: the format is text or json",
					    typed, optarg);
			break;
		case OPT_BIN_MS:
			o->analysis.bin_width_ns = (uint64_t)parse_positive(
				optarg, typed, "a whole number of milliseconds",
				86400000L) * 1000000ull;
			break;
		case 'x':
			if (parse_range(optarg, &o->x_min_s, &o->x_max_s))
				usage_error("%s %s: give MIN:MAX seconds with 0 <= MIN < MAX",
					    typed, optarg);
			o->has_x_range = 1;
			break;
		case 'y':
			if (parse_range(optarg, &o->y_min_mib, &o->y_max_mib))
				usage_error("%s %s: give MIN:MAX MiB with 0 <= MIN < MAX",
					    typed, optarg);
			o->has_y_range = 1;
			break;
		case 'a':
			parse_action(o, optarg, typed);
			break;
		case 'P':
			o->tag_by_process = 1;
			break;
		case 'T':
			o->tagger = optarg;
			break;
		case OPT_TAGGER_TIMEOUT:
			o->tagger_timeout_s = parse_seconds(optarg, typed);
			break;
		case OPT_MERGE_COMM:
			o->merge_comm = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_TITLE:
			o->title = optarg;
			break;
		case 'O':
		case 'N':
			pick_graph(o, c, optarg);
			break;
		case 'w':
			o->graph_width = (int)parse_count(optarg, typed,
				"a width in pixels", MIN_GRAPH_WIDTH,
				" (the narrowest graph that can be drawn)",
				MAX_GRAPH_SIZE);
			break;
		case 'h':
			o->graph_height = (int)parse_count(optarg, typed,
				"a height in pixels", MIN_GRAPH_HEIGHT,
				" (the lowest graph that can be drawn)",
				MAX_GRAPH_SIZE);
			break;
		case 'c':
			o->columns = (int)parse_positive(optarg, typed,
				"a number of columns", 16);
			break;
		case 'r':
			o->rolling_s = parse_seconds(optarg, typed);
			break;
		case OPT_TOP:
			o->top_tags = (int)parse_positive(optarg, typed,
				"a number of tags", 64);
			break;
		case OPT_CSV:
			o->csv_dir = optarg;
			break;
		case OPT_DIR:
			if (!strcmp(optarg, "r"))
				o->latency_dirs = 1;
			else if (!strcmp(optarg, "w"))
				o->latency_dirs = 2;
			else if (!strcmp(optarg, "rw"))
				o->latency_dirs = 0xf;
			else
				usage_error("%s %s: r, w or rw", typed, optarg);
			break;
		case 'd':
			if (parse_dev_t(optarg, o))
				break;
			if (append(&o->devices, &o->n_devices, optarg))
				usage_error("%s", "out of memory");
			break;
		case OPT_PER_DEVICE:
			o->per_device = 1;
			break;
		case 'D':
			o->record_dir = optarg;
			break;
		case 'p':
			take_workload(o, argc, argv, optarg);
			break;
		case OPT_LIVE:
			if (!optarg)
				o->live = LIVE_SCREEN;
			else if (!strcmp(optarg, "text"))
				o->live = LIVE_TEXT;
			else if (!strcmp(optarg, "json"))
				o->live = LIVE_JSON;
			else
				usage_error("%s=%s: the format is text or json (--live alone: the screen)",
					    typed, optarg);
			break;
		case OPT_INTERVAL:
			o->live_interval_s = parse_seconds(optarg, typed);
			if (o->live_interval_s < 0.01 ||
			    o->live_interval_s > 3600)
				usage_error("%s %s: from 0.01 to 3600 seconds",
					    typed, optarg);
			break;
		case OPT_TRACER:
			if (!strcmp(optarg, "blktrace"))
				o->tracer = RECORD_BLKTRACE;
			else if (!strcmp(optarg, "ftrace"))
				o->tracer = RECORD_FTRACE;
			else if (!strcmp(optarg, "auto"))
				o->tracer = RECORD_AUTO;
			else
				usage_error("%s %s: blktrace, ftrace or auto",
					    typed, optarg);
			break;
		case 'F':
			if (append(&o->fio_logs, &o->n_fio_logs, optarg))
				usage_error("%s", "out of memory");
			break;
		case OPT_MOVIE:
			if (!optarg || !strcmp(optarg, "spindle"))
				o->movie = MOVIE_SPINDLE;
			else if (!strcmp(optarg, "rect"))
				o->movie = MOVIE_RECT;
			else
				usage_error("%s=%s: the style is spindle or rect",
					    typed, optarg);
			break;
		case OPT_FPS:
			o->fps = (int)parse_positive(optarg, typed,
				"frames per second", 120);
			break;
		case OPT_MOVIE_LENGTH: {
			size_t len = strlen(optarg);

			if (len >= 2 && !strcmp(optarg + len - 2, "/s")) {
				char *end;

				errno = 0;
				o->movie_frames_per_s = strtod(optarg, &end);
				if (end != optarg + len - 2 || errno ||
				    !isfinite(o->movie_frames_per_s) ||
				    o->movie_frames_per_s <= 0)
					usage_error("%s %s: N/s is a positive number of frames per second of trace",
						    typed, optarg);
				o->movie_length_s = 0;
			} else {
				o->movie_length_s = parse_seconds(optarg, typed);
				o->movie_frames_per_s = 0;
			}
			break;
		}
		case 'K':
			o->keep_frames_dir = optarg;
			break;
		case OPT_HELP:
			print_help();
			exit(0);
		case OPT_VERSION:
			printf("iowatcher %s\n", IOWATCHER_VERSION);
			exit(0);
		default:
			bad_option(c, typed);
		}
	}
	if (optind < argc)
		usage_error("%s: unexpected argument", argv[optind]);
	if (o->n_devices)
		recording_defaults(o);
	else if (o->prog_argv || o->record_dir || o->tracer)
		usage_error("%s", "-p, -D and --tracer go with -d DEVICE (recording)");
	check_live_args(o);
	if (!o->n_trace_args)
		usage_error("%s", "no trace: give one with -t");
	if (o->n_labels > o->n_trace_args)
		usage_error("%s", "more -l labels than -t traces");
	if (o->merge_comm && !o->tag_by_process)
		usage_error("%s", "--merge-comm goes with -P");
	if (o->tag_by_process && o->tagger)
		usage_error("%s", "-P and -T both tag: give one of them");
	if (o->movie)
		check_movie_args(o);
	else if (o->fps || o->movie_length_s > 0 ||
		 o->movie_frames_per_s > 0 || o->keep_frames_dir)
		usage_error("%s", "--fps, --movie-length and -K go with --movie");
	else
		check_picture_args(o);
	/* Only pictures and CSV read the I/O map and per-bin histograms. */
	o->analysis.stats_only = !o->output && !o->csv_dir && !o->movie;
	if (o->has_x_range) {
		o->analysis.has_time_range = 1;
		o->analysis.time_min_ns = saturate_u64(o->x_min_s * 1e9);
		o->analysis.time_max_ns = saturate_u64(o->x_max_s * 1e9);
	}
	if (o->has_y_range) {
		o->analysis.has_offset_range = 1;
		o->analysis.offset_min = saturate_u64(o->y_min_mib * 1048576.0);
		o->analysis.offset_max = saturate_u64(o->y_max_mib * 1048576.0);
	}
	o->analysis.only_devices = o->only_devices;
	o->analysis.n_only_devices = o->n_only_devices;
	o->analysis.per_device = o->per_device;
}

/* The stage after the reader: -P, a -T tagger, or nothing. */
struct tag_stage {
	struct process_tags *by_process;
	struct tagger *tagger;
};

static int tag_stage_start(const struct options *o, struct tag_stage *ts,
			   struct analysis *a, struct iow_error *err)
{
	memset(ts, 0, sizeof(*ts));
	if (o->tag_by_process) {
		ts->by_process = ptag_new(o->merge_comm);
		if (!ts->by_process)
			return iow_fail(err, "out of memory");
		analysis_enable_tags(a);
	} else if (o->tagger) {
		ts->tagger = tagger_start(o->tagger, o->tagger_timeout_s, err);
		if (!ts->tagger)
			return -1;
		analysis_enable_tags(a);
	}
	return 0;
}

/* Hand every answered event to the analysis. */
static int drain_tagger(struct tagger *t, struct analysis *a,
			struct iow_error *err)
{
	struct io_event tagged;
	int r;

	while ((r = tagger_next(t, &tagged, err)) == 1)
		if (analysis_add(a, &tagged, err) < 0)
			return -1;
	return r;
}

static int tag_stage_event(struct tag_stage *ts, struct io_event *ev,
			   struct analysis *a, struct iow_error *err)
{
	if (ts->by_process && ptag_event(ts->by_process, ev, a, err) < 0)
		return -1;
	if (!ts->tagger)
		return analysis_add(a, ev, err);
	if (tagger_push(ts->tagger, ev, err) < 0)
		return -1;
	return drain_tagger(ts->tagger, a, err);
}

/* The tagger's last answers and its labels. */
static int tag_stage_finish(struct tag_stage *ts, struct analysis *a,
			    struct iow_error *err)
{
	size_t i;

	if (!ts->tagger)
		return 0;
	if (tagger_finish(ts->tagger, err) < 0 ||
	    drain_tagger(ts->tagger, a, err) < 0)
		return -1;
	for (i = 0; i < tagger_n_tags(ts->tagger); i++) {
		const struct tag_label *l = tagger_tag_at(ts->tagger, i);

		if (analysis_set_tag_label(a, l->id, l->label, err) < 0)
			return -1;
	}
	return 0;
}

static void tag_stage_free(struct tag_stage *ts)
{
	ptag_free(ts->by_process);
	tagger_free(ts->tagger);
}

static sigset_t stop_signals;	/* SIGINT, SIGTERM */

static void on_stop_signal(int sig)
{
	iow_interrupted = sig;
}

/*
 * SIGINT and SIGTERM set iow_interrupted, on which the stages stop and
 * clean up (no SA_RESTART: a blocked read returns to look at it); main
 * then says so and dies of the signal. A second one kills at once
 * (SA_RESETHAND), should a stage be slow to look. Not when ignored, as
 * in a script's background job. Recording installs its own while it
 * runs.
 */
static void catch_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = on_stop_signal,
				.sa_flags = SA_RESETHAND }, old;
	size_t i;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&stop_signals);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaddset(&stop_signals, sigs[i]);
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

/* Reader -> tag stage -> analysis, for one trace. */
/* A window (-x, -y, --device) that holds no event: say so, once. */
static void warn_empty_window(const struct options *o, const char *name,
			      const struct analysis *a)
{
	double first = a->n_events_all ? (double)a->first_ns / 1e9 : 0;
	double last = (double)a->last_ns / 1e9;

	if (a->n_events || (!o->has_x_range && !o->has_y_range &&
			    !o->n_only_devices))
		return;
	if (!a->n_events_all && o->n_only_devices)
		fprintf(stderr, "iowatcher: %s: no event on the --device given\n",
			name);
	else if (o->has_x_range)
		fprintf(stderr, "iowatcher: %s: no event in -x %g:%g (the trace "
			"runs from %.3f to %.3f s)\n", name, o->x_min_s,
			o->x_max_s, first, last);
	else
		fprintf(stderr, "iowatcher: %s: no I/O in -y %g:%g MiB\n",
			name, o->y_min_mib, o->y_max_mib);
}

/*
 * -t - --live: each event is watched too; 1 when q asks to stop reading
 * (what was read is then drawn), -1 on an error.
 */
static int watch_event(struct live *live, const struct io_event *ev,
		       struct iow_error *err)
{
	if (!live)
		return 0;
	if (live_event(live, ev, err) < 0)
		return -1;
	/* the keys and the screen, every so many events */
	return ev->index % 4096 == 0 && live_poll(live);
}

static int analyse_trace(const struct options *o,
			 const struct trace_source *src,
			 struct trace_result *res, struct iow_error *err)
{
	struct live *live = NULL;
	struct feed_pipe *pipe;
	struct tag_stage ts;
	struct io_event *ev;
	sigset_t old_mask;
	struct feed *f;
	int r, w;

	if (analysis_init(&res->analysis, &o->analysis, err) < 0)
		return -1;
	f = feed_open(src, err);
	if (!f)
		return -1;
	if (o->live && src->kind == TRACE_STDIN &&
	    !(live = live_start(o, "-", NULL, err))) {
		feed_close(f);
		return -1;
	}
	if (tag_stage_start(o, &ts, &res->analysis, err) < 0) {
		live_close(live);
		feed_close(f);
		return -1;
	}
	/* Reading runs in a thread of its own, beside the analysis. */
	pipe = feed_pipe_start(f, err);
	if (!pipe) {
		live_close(live);
		tag_stage_free(&ts);
		feed_close(f);
		return -1;
	}
	/*
	 * Meanwhile SIGINT and SIGTERM go to the reader, where they cut a
	 * read of a stalled stdin short; here the flag is seen.
	 */
	pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);
	while ((r = feed_pipe_next(pipe, &ev, err)) > 0) {
		if (iow_interrupted || (w = watch_event(live, ev, err)) < 0 ||
		    tag_stage_event(&ts, ev, &res->analysis, err) < 0) {
			r = -1;
			break;
		}
		if (w) {
			r = 0;
			break;
		}
	}
	feed_pipe_stop(pipe);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (live && r == 0 && live_finish(live, err) < 0)
		r = -1;
	live_close(live);
	if (r == 0)
		r = tag_stage_finish(&ts, &res->analysis, err);
	if (r == 0 && feed_warning(f))
		fprintf(stderr, "iowatcher: warning: %s\n", feed_warning(f));
	if (r == 0 && res->analysis.warning[0])
		fprintf(stderr, "iowatcher: warning: %s: %s\n", src->name,
			res->analysis.warning);
	if (r == 0)
		warn_empty_window(o, src->name, &res->analysis);
	feed_close(f);
	tag_stage_free(&ts);
	analysis_finish(&res->analysis);
	return r;
}

/* NAME.mpstat beside a trace (recorded with it): CPU graphs. */
static int load_cpustat(const struct trace_source *src,
			struct trace_result *res, struct iow_error *err)
{
	char path[4096];
	const char *dot;
	size_t len = strlen(src->name);

	if (src->kind == TRACE_STDIN)
		return 0;
	dot = strrchr(src->name, '.');
	if (src->kind == TRACE_DUMP && dot && !strchr(dot, '/'))
		len = (size_t)(dot - src->name);
	snprintf(path, sizeof(path), "%.*s.mpstat", (int)len, src->name);
	if (access(path, F_OK) < 0)
		return 0;
	res->cpu = calloc(1, sizeof(*res->cpu));
	if (!res->cpu)
		return iow_fail(err, "out of memory");
	return cpustat_load(path, res->cpu, err);
}

static int load_fio_logs(const struct options *o, struct trace_result *res,
			 struct iow_error *err)
{
	size_t i;

	if (!o->n_fio_logs)
		return 0;
	res->fio = calloc(o->n_fio_logs, sizeof(*res->fio));
	if (!res->fio)
		return iow_fail(err, "out of memory");
	for (i = 0; i < o->n_fio_logs; i++) {
		struct fio_input *in = &res->fio[i];
		char *at, *end;

		/* fio stamps a job's log from that job's start (after its
		 * startdelay): FILE@SECONDS says where that is. */
		in->path = strdup(o->fio_logs[i]);
		if (!in->path)
			return iow_fail(err, "out of memory");
		res->n_fio = i + 1;
		at = strrchr(in->path, '@');
		if (at && at[1]) {
			double off = strtod(at + 1, &end);

			if (*end == '\0' && isfinite(off) && off >= 0) {
				*at = '\0';
				in->offset_s = off;
			}
		}
		if (fiolog_load(in->path, &in->log, err) < 0)
			return -1;
	}
	return 0;
}

struct run {
	struct trace_list sources;
	const char **labels;	/* per source */
	struct trace_result *results;
	size_t n_done;
};

static int find_sources(const struct options *o, struct run *run,
			struct iow_error *err)
{
	size_t i, j;

	for (i = 0; i < o->n_trace_args; i++) {
		size_t before = run->sources.n;

		if (feed_find_traces(o->trace_args[i], &run->sources, err) < 0)
			return -1;
		run->labels = realloc(run->labels,
				      run->sources.n * sizeof(*run->labels));
		if (!run->labels)
			return iow_fail(err, "out of memory");
		for (j = before; j < run->sources.n; j++)
			run->labels[j] = i < o->n_labels &&
						 run->sources.n - before == 1 ?
					 o->labels[i] :
					 run->sources.items[j].label;
	}
	return 0;
}

static void run_free(struct run *run)
{
	size_t i;

	for (i = 0; i < run->n_done; i++) {
		struct trace_result *r = &run->results[i];
		size_t j;

		analysis_free(&r->analysis);
		if (r->cpu)
			cpustat_free(r->cpu);
		free(r->cpu);
		for (j = 0; j < r->n_fio; j++) {
			fiolog_free(&r->fio[j].log);
			free(r->fio[j].path);
		}
		free(r->fio);
	}
	free(run->results);
	free(run->labels);
	trace_list_free(&run->sources);
}

/*
 * A word of an argv-form workload that is one of iowatcher's options (up
 * to its =VALUE), or NULL: typed after -p, it went to the workload.
 */
static const char *misplaced_option(char *const *argv, char *buf,
				    size_t size)
{
	const struct option *lo;
	size_t i, len;

	if (argv[0] == shell_path)
		return NULL;
	for (i = 1; argv[i]; i++) {
		const char *w = argv[i];

		if (w[0] != '-' || !w[1] || w[1] == ':')
			continue;
		if (w[1] != '-') {
			if (strchr(short_options + 2, w[1]))
				return w;
			continue;
		}
		len = strcspn(w + 2, "=");
		for (lo = long_options; lo->name; lo++)
			if (strlen(lo->name) == len &&
			    !strncmp(lo->name, w + 2, len)) {
				snprintf(buf, size, "%.*s", (int)len + 2, w);
				return buf;
			}
	}
	return NULL;
}

/*
 * A workload that fails (not stopped by the user) has traced its failure,
 * not the work: nothing is drawn, and what was recorded is kept, to be
 * looked at or drawn all the same.
 */
static int check_workload(const struct options *o,
			  const struct record_result *res, const char *path,
			  struct iow_error *err)
{
	int st = res->workload_status;
	char how[96], hint[192] = "", word[64];
	const char *opt;

	if (!o->prog_argv || res->stop_signal)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st))
		snprintf(how, sizeof(how), "exited with status %d",
			 WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "was killed by signal %d (%s)",
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		return 0;
	opt = misplaced_option(o->prog_argv, word, sizeof(word));
	if (opt)
		snprintf(hint, sizeof(hint), " (-p takes the rest of the command line: if %s was meant for iowatcher, put it before -p)",
			 opt);
	if (!res->events_written)
		return iow_fail(err, "the workload %s%s, so nothing is drawn; no I/O was recorded (the trace files are %s.blktrace.*)",
				how, hint, path);
	return iow_fail(err, "the workload %s%s, so nothing is drawn; the %llu events recorded are kept in %s.blktrace.* (iowatcher -t %s draws them)",
			how, hint, (unsigned long long)res->events_written,
			path, path);
}

/*
 * record_run, with --live watched as it goes: the view ends before
 * anything else is said, and the workload's output goes to PATH.out.
 */
static int record_watched(const struct options *o, struct record_opts *ro,
			  struct record_result *res, const char *path,
			  struct iow_error *err)
{
	char out_path[4096 + 8];
	struct record_tap tap;
	struct live *live;
	int rc;

	if (!o->live)
		return record_run(ro, res, err);
	snprintf(out_path, sizeof(out_path), "%s.out", path);
	if (o->prog_argv)
		ro->workload_output = out_path;
	if (o->prog_argv && o->live != LIVE_SCREEN)
		fprintf(stderr, "iowatcher: the workload's output goes to %s\n",
			out_path);
	live = live_start(o, path, ro->workload_output, err);
	if (!live)
		return -1;
	live_tap(live, &tap);
	ro->tap = &tap;
	rc = record_run(ro, res, err);
	if (rc == 0 && live_finish(live, err) < 0)
		rc = -1;
	live_close(live);
	ro->tap = NULL;
	ro->workload_output = NULL;
	if (o->prog_argv && o->live == LIVE_SCREEN)
		fprintf(stderr, "iowatcher: the workload's output is in %s\n",
			out_path);
	return rc;
}

/*
 * -d: trace the devices while the workload runs, then read what was
 * recorded as -t DIR/NAME. Tracing failures end the run, and so does a
 * workload that fails.
 */
static int record(struct options *o, struct record_result *res,
		  struct iow_error *err, char *path, size_t path_len)
{
	struct record_opts ro = {
		.devices = o->devices,
		.n_devices = o->n_devices,
		.dir = o->record_dir ? o->record_dir : ".",
		.name = o->trace_args[0],
		.prog_argv = o->prog_argv,
		.tracer = (enum record_tracer)o->tracer,
		.with_mpstat = 1,
	};

	snprintf(path, path_len, "%s/%s", ro.dir, o->trace_args[0]);
	if (!o->prog_argv && o->live != LIVE_SCREEN)
		fprintf(stderr, "iowatcher: recording %s until interrupted (Ctrl-C)\n",
			o->devices[0]);
	if (record_watched(o, &ro, res, path, err) < 0)
		return -1;
	if (check_workload(o, res, path, err) < 0)
		return -1;
	fprintf(stderr, "iowatcher: recorded %llu events with %s%s%s",
		(unsigned long long)res->events_written,
		record_tracer_name(res->used),
		res->fallback_reason[0] ? " (blktrace: " : "",
		res->fallback_reason[0] ? res->fallback_reason : "");
	fprintf(stderr, "%s\n", res->fallback_reason[0] ? ")" : "");
	if (res->events_lost)
		fprintf(stderr, "iowatcher: warning: the kernel lost %llu events\n",
			(unsigned long long)res->events_lost);
	o->trace_args[0] = path;
	return 0;
}

int main(int argc, char **argv)
{
	struct options opts;
	struct iow_error err = { "" };
	struct run run = { { NULL, 0 }, NULL, NULL, 0 };
	struct record_result recorded;
	char record_path[4096];
	int status = 0;
	size_t i;

	parse_args(argc, argv, &opts);
	catch_stop_signals();
	if (opts.n_devices) {
		if (record(&opts, &recorded, &err, record_path,
			   sizeof(record_path)) < 0)
			goto fail;
		/* a stop signal is how a recording ends: then it is drawn */
		iow_interrupted = 0;
	}
	if (find_sources(&opts, &run, &err) < 0)
		goto fail;
	run.results = calloc(run.sources.n, sizeof(*run.results));
	if (!run.results) {
		iow_fail(&err, "out of memory");
		goto fail;
	}
	for (i = 0; i < run.sources.n; i++) {
		struct trace_result *res = &run.results[i];

		res->label = run.labels[i];
		res->source = run.sources.items[i].name;
		if (opts.n_devices)
			res->recorder = record_tracer_name(recorded.used);
		run.n_done = i + 1;
		if (analyse_trace(&opts, &run.sources.items[i], res, &err) < 0 ||
		    load_cpustat(&run.sources.items[i], res, &err) < 0 ||
		    (i == 0 && load_fio_logs(&opts, res, &err) < 0))
			goto fail;
	}
	if (opts.movie && movie_render(&opts, run.results, run.n_done,
				       &err) < 0)
		goto fail;
	if (!opts.movie && opts.output &&
	    graphs_render(&opts, run.results, run.n_done, &err) < 0)
		goto fail;
	if (opts.csv_dir && csv_export(&opts, run.results, run.n_done,
				       &err) < 0)
		goto fail;
	if (iow_interrupted)
		goto fail;
	if (opts.summary == SUMMARY_JSON)
		summary_print_json(stdout, run.results, run.n_done);
	else if (opts.summary == SUMMARY_TEXT)
		summary_print_text(stdout, run.results, run.n_done);
	goto out;
fail:
	/* after an interrupt, what failed is only its consequence */
	if (iow_interrupted)
		fprintf(stderr, "iowatcher: interrupted by %s\n",
			iow_interrupted == SIGINT ? "SIGINT" : "SIGTERM");
	else
		fprintf(stderr, "iowatcher: %s\n", err.msg);
	status = 1;
out:
	free(opts.trace_args);
	free(opts.labels);
	free(opts.devices);
	free(opts.prog_argv);
	free(opts.fio_logs);
	run_free(&run);
	if (iow_interrupted) {
		/* as the shell expects of an interrupted program */
		signal(iow_interrupted, SIG_DFL);
		raise(iow_interrupted);
	}
	return status;
}
