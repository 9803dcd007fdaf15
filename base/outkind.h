/*
 * outkind.h: what a run writes. An output is a row of the table in
 * outputs.c (struct output_ops, below), written by its own file (a
 * picture: graphs/graph_draw.c; the per-I/O log: output/events.c; ...):
 * what -o's extension or the option that chooses it, what it asks of
 * the analysis, and what it does per trace, per row and at the end.
 * What -o names is worked out once, by cli.c (outputs.h's
 * output_type_of), and kept in the options (options.output_type), so
 * the stages that write the file never look at the name again.
 */
#ifndef IOWATCHER_OUTKIND_H
#define IOWATCHER_OUTKIND_H

#include <stddef.h>

#include "error.h"

/* The kinds other stages ask about (a report's bins, a movie's frames);
 * OUTPUT_OTHER: a row no other stage needs to know of. */
enum output_kind {
	OUTPUT_NONE, OUTPUT_PICTURE, OUTPUT_MOVIE, OUTPUT_REPORT, OUTPUT_PERFETTO,
	OUTPUT_OTHER
};
/* A picture's format (plot.c draws it), a movie's container (movie.c). */
enum plot_format { PLOT_SVG, PLOT_PNG, PLOT_PDF };
enum movie_container { MOVIE_MP4, MOVIE_WEBM, MOVIE_OGV, MOVIE_GIF };

struct output_ops;

struct output_type {
	enum output_kind kind;
	enum plot_format picture;	/* OUTPUT_PICTURE: its format */
	enum movie_container movie;	/* OUTPUT_MOVIE: its container */
	const struct output_ops *ops;	/* the row -o named */
};

struct options;
struct trace_result;
struct analysis_config;
struct analysis_row;
struct cause_table;

/* What an output asks of the tag stage, beyond the analysis's bins. */
enum output_needs {
	OUTPUT_NEEDS_CAUSES = 1,	/* the causes a recorder kept */
	OUTPUT_NEEDS_CAUSE_IDS = 2,	/* each row's pid and cgroup */
	OUTPUT_NEEDS_STACKS = 4,	/* kernel stacks (only bpf keeps them) */
	OUTPUT_NEEDS_LEDGER = 8,	/* sums per device, cause and class */
};

/* An extension -o takes, and the format it means (enum plot_format,
 * enum movie_container, or 0). */
struct output_ext {
	const char *ext;
	int format;
};

#define OUTPUT_MAX_EXTS	6

/*
 * One output. Every hook but chosen may be NULL (nothing to do then).
 * The pipeline (iowatcher.c) opens each chosen output once the traces
 * are found, prepares each trace's analysis through it, tells it each
 * trace and each row, and at the end calls finish, which frees w
 * whether it succeeds or not; abort frees a w never finished.
 */
struct output_ops {
	const char *name;	/* one word, for --help and the man page */
	const char *help;	/* what it is, one line for --help */
	enum output_kind kind;	/* what its extensions set in output_type */
	const char *noun;	/* in -o's messages: "a picture" */
	struct output_ext exts[OUTPUT_MAX_EXTS];	/* -o's, or none */
	const char *option;	/* else the option that asks for it */
	/* whether this run writes it */
	int (*chosen)(const struct options *o);
	/* OUTPUT_NEEDS_* of this run */
	unsigned (*needs)(const struct options *o);
	/* its state in *w (may stay NULL), for n traces */
	int (*open)(void **w, const struct options *o, size_t n,
		    struct iow_error *err);
	/* trace i's analysis configuration, before the trace is read */
	int (*prepare)(void *w, const struct options *o, size_t i,
		       struct trace_result *res, struct analysis_config *cfg,
		       struct iow_error *err);
	/* the rows that follow are of this trace (its causes: the tag
	 * stage's, not yet in res) */
	void (*trace)(void *w, const struct trace_result *res,
		      const struct cause_table *causes);
	/* each timed I/O, as the analysis counts it (cfg.on_row) */
	void (*row)(void *w, const struct analysis_row *r);
	/* write it, with every trace analysed; frees w */
	int (*finish)(void *w, const struct options *o,
		      struct trace_result *traces, size_t n,
		      struct iow_error *err);
	/* what prepare kept in res */
	void (*free_trace)(struct trace_result *res);
	/* frees w, leaving no file */
	void (*abort)(void *w);
};
/*
 * The picture's name when -o names none, from the traces' names: -t
 * dir/a gives a.svg, a per-CPU file or a dump its trace's name
 * (a.blktrace.0 and a.dump.zst: a.svg), several traces theirs joined by
 * '+' (a+b.svg), standard input trace.svg. So two traces drawn in one
 * directory never draw over each other's picture.
 */
void default_picture_name(const char *const *traces, size_t n, char *buf,
			  size_t size);

#endif
