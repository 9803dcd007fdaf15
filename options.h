/*
 * options.h: everything the command line says, in one struct filled by
 * cli.c and passed down to the stages that need it.
 */
#ifndef IOWATCHER_OPTIONS_H
#define IOWATCHER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "base/outkind.h"

/* --live's: the screen, text lines or JSON lines (live/live.h) */
enum live_mode { LIVE_OFF, LIVE_SCREEN, LIVE_TEXT, LIVE_JSON };
enum summary_mode { SUMMARY_NONE, SUMMARY_TEXT, SUMMARY_JSON,
		    SUMMARY_STACKS };
/* --compare: the difference of two traces (compare.h) */
enum compare_mode { COMPARE_NONE, COMPARE_TEXT, COMPARE_JSON };
enum movie_style { MOVIE_NONE, MOVIE_SPINDLE, MOVIE_RECT };
/* --latency-axis: log when the lines span more than two decades (auto) */
enum latency_axis { LATENCY_AXIS_AUTO, LATENCY_AXIS_LOG, LATENCY_AXIS_LINEAR };
/* --stacks: the stacks recorded with each I/O's cause (0: not given,
 * kernel) */
enum record_stacks { STACKS_DEFAULT, STACKS_KERNEL, STACKS_USER,
		     STACKS_NONE };

#define MAX_ONLY_DEVICES	64
#define TOP_TAGS_DEFAULT	8	/* --top: tags named, the rest "other" */
#define MAX_GRAPH_PICKS 64
#define MAX_COMPARE_PAIRS	64

struct options {
	const char **trace_args;	/* -t, in order */
	size_t n_trace_args;
	const char **labels;		/* -l, matching -t by position */
	size_t n_labels;
	enum summary_mode summary;
	const char *output;		/* -o, or default_output */
	/* the picture's name when -o is not given: the trace's (cli.c) */
	char default_output[256];
	struct output_type output_type;	/* what -o names (cli.c) */
	const char *title;		/* --title */
	struct analysis_config analysis;
	int bin_ms;			/* --bin-ms, 0: from the trace */
	/* graphs */
	const char *only_graphs[MAX_GRAPH_PICKS];	/* -O */
	size_t n_only;
	const char *no_graphs[MAX_GRAPH_PICKS];		/* -N */
	size_t n_no;
	int graph_width, graph_height;	/* -w, -h: one graph, px */
	int columns;			/* -c */
	double rolling_s;		/* -r */
	int per_device;			/* --per-device */
	uint32_t only_devices[MAX_ONLY_DEVICES];	/* --device */
	size_t n_only_devices;
	int has_x_range, has_y_range;
	double x_min_s, x_max_s;	/* -x, seconds */
	double y_min_mib, y_max_mib;	/* -y, MiB */
	/* --compare: a second -x is the second trace's window */
	int has_x2_range;
	double x2_min_s, x2_max_s;
	enum compare_mode compare;
	/* --pair A=B: device A of the first trace is B of the second */
	uint32_t pairs[MAX_COMPARE_PAIRS][2];
	size_t n_pairs;
	/* --min-change: the smallest change called, a fraction of A's */
	double min_change;
	int has_min_change;
	/* --vs: 1 + the -t given before it (0: not given) */
	size_t vs_at;
	/* tagging */
	int tag_by_process;		/* -P */
	int merge_comm;			/* --merge-comm */
	/* --by (enum cause_by): -P is --by process, -P --merge-comm
	 * --by comm */
	int by;
	const char *events_path;	/* --events: the per-I/O log */
	/* --host: the log's host where a trace does not name its own */
	const char *host;
	const char *tagger;		/* -T */
	double tagger_timeout_s;	/* --tagger-timeout */
	int top_tags;			/* --top */
	/* recording */
	const char **devices;		/* -d */
	size_t n_devices;
	const char *record_dir;		/* -D */
	char **prog_argv;		/* -p: the workload */
	int tracer;			/* --tracer: enum record_tracer */
	size_t record_buffer_kb;	/* --buffer, per CPU; 0: default */
	int no_causes;			/* --no-causes */
	int stacks;			/* --stacks: enum record_stacks */
	int live;			/* --live: enum live_mode */
	double live_interval_s;		/* --interval, default 1 */
	/* --flight[=SECONDS]: the flight recorder (record/flight.h) */
	double flight_s;		/* 0: off */
	unsigned long long flight_mem;	/* --flight-mem, bytes; 0: default */
	const char **triggers;		/* --trigger, in order */
	size_t n_triggers;
	double before_s, after_s;	/* --before, --after; 0: default */
	/* fio bandwidth logs, -F */
	const char **fio_logs;
	size_t n_fio_logs;
	/* movies */
	enum movie_style movie;		/* --movie[=spindle|rect] */
	int fps;			/* --fps, default 20 */
	double movie_length_s;		/* --movie-length S: video seconds */
	double movie_frames_per_s;	/* --movie-length N/s: frames per
					 * second of trace */
	const char *keep_frames_dir;	/* -K: also keep frames as PNG */
	/* export */
	const char *csv_dir;		/* --csv */
	/* --merge-summaries: --summary=json documents merged into one */
	const char **merge_paths;
	size_t n_merge_paths;
	int merge_concurrent;		/* --merge-as concurrent: side by
					 * side (rates add), not one after
					 * another */
	int latency_dirs;		/* --dir: bit n shows op n (io_op) */
	int latency_axis;		/* --latency-axis: enum latency_axis */
};

#endif
