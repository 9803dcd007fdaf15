/*
 * iowatcher.c: the orchestration of the pipeline: read the command line
 * (cli.c), record if asked, find the traces, run each through reader ->
 * tagger -> analysis, then print the summary and draw the graphs. Only
 * this file exits.
 */
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "blkparse_feed.h"
#include "cli.h"
#include "live/live.h"
#include "options.h"
#include "output/merge.h"
#include "outputs.h"
#include "reader/blktrace.h"
#include "reader/feed_pipe.h"
#include "record/cpustat.h"
#include "record/record.h"
#include "tag/tagstage.h"
#include "trace_result.h"

/*
 * Whether a reader thread would have a CPU of its own: not where a
 * tagger's process takes the second of two (or there is one CPU).
 */
static int cpu_to_spare(const struct tag_stage *ts)
{
	cpu_set_t set;
	int n = 2;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	return n - 1 - tag_stage_has_process(ts) > 0;
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

	/* --compare says it of the trace it cannot compare, as an error */
	if (a->n_events || o->compare ||
	    (!o->has_x_range && !o->has_y_range && !o->n_only_devices))
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

/* The outputs this run writes, in the table's order, each with its
 * state; rows: those of them that take the analysis's rows. */
struct chosen_output {
	const struct output_ops *ops;
	void *w;
};

struct outputs {
	struct chosen_output items[OUTPUTS_MAX];
	size_t n;
	struct chosen_output rows[OUTPUTS_MAX];
	size_t n_rows;
	unsigned needs;		/* OUTPUT_NEEDS_* of them all */
};

static void rows_to_outputs(void *ctx, const struct analysis_row *r)
{
	const struct outputs *outs = ctx;
	size_t i;

	for (i = 0; i < outs->n_rows; i++)
		outs->rows[i].ops->row(outs->rows[i].w, r);
}

/*
 * What the trace knows of where and when it was recorded: its recorder's
 * notes (recnote.h) as they come, and at its first event that is not a
 * note, where time 0 is (feed_origin, read once that event was handed
 * out), the device a set of blktrace's own files is named after
 * (sda.blktrace.0: the one it traced), and --host where no note named one.
 */
static void take_facts(const struct options *o,
		       const struct trace_source *src, const struct feed *f,
		       struct trace_facts *facts, const struct io_event *ev)
{
	struct feed_origin origin;

	if (blk_is_note(ev->action)) {
		recnote_take(facts, ev);
		return;
	}
	if (facts->has_origin || !feed_origin(f, &origin))
		return;
	facts->has_origin = 1;
	facts->origin_ns = origin.clock_ns;
	facts->has_wall = origin.wall_known;
	facts->wall_at_origin_ns = origin.wall_ns;
	if (!facts->n_devices && src->kind == TRACE_PERCPU &&
	    recnote_is_device_name(src->label)) {
		facts->devices[0].device = ev->device;
		snprintf(facts->devices[0].name,
			 sizeof(facts->devices[0].name), "%s", src->label);
		facts->n_devices = 1;
	}
	if (!facts->host[0] && o->host)
		snprintf(facts->host, sizeof(facts->host), "%s", o->host);
}

/*
 * A per-CPU file that ends early, one line each: which, where it ends
 * and how, and what the figures do about it (the loss it is).
 */
static void warn_cut_files(const struct feed *f)
{
	const struct feed_cut *cuts;
	size_t i, n = feed_cuts(f, &cuts);

	for (i = 0; i < n; i++) {
		const struct feed_cut *c = &cuts[i];
		char how[160];

		if (c->compressed_cut && !c->bytes_read)
			snprintf(how, sizeof(how),
				 "its %s data cut short before any of it could be decompressed",
				 c->compression);
		else if (c->compressed_cut)
			snprintf(how, sizeof(how),
				 "its %s data cut short after decompressed byte %llu",
				 c->compression, (unsigned long long)c->bytes_read);
		else if (c->no_end_mark)
			snprintf(how, sizeof(how),
				 "cut at a record's end, byte %llu: the others have their recorder's end mark, it has not",
				 (unsigned long long)c->bytes_read);
		else
			snprintf(how, sizeof(how), "cut inside a record at byte %llu",
				 (unsigned long long)c->offset);
		if (c->no_record)
			fprintf(stderr, "iowatcher: warning: %s holds no whole record (%s) while the set's other files go on: cpu %u's events are all lost; nothing is timed or in the queue depth (a loss window)\n",
				c->path, how, c->cpu);
		else
			fprintf(stderr, "iowatcher: warning: %s ends at %.3f s (%s) while the set's other files go on to %.3f s: cpu %u's events after it are lost; from %.3f s nothing is timed or in the queue depth (a loss window)\n",
				c->path, c->at_s, how, c->trace_end_s, c->cpu,
				c->at_s);
	}
}

static int analyse_trace(const struct options *o,
			 const struct trace_source *src,
			 struct trace_result *res, struct outputs *outs,
			 size_t index, struct iow_error *err)
{
	struct live *live = NULL;
	struct feed_pipe *pipe;
	struct tag_stage ts;
	struct io_event *ev;
	sigset_t old_mask;
	struct feed *f;
	size_t n, i;
	struct analysis_config cfg = o->analysis;
	uint64_t unseen;
	int r, w, cut;

	/* completions the recorder never saw: known from the start; a set
	 * cut short may have lost the notes that say so with its end, and a
	 * completion matched to the oldest request of its sector would then
	 * time one left by an unseen completion (0.8 s where the whole
	 * trace's longest D2C is 2 ms, in t_cut): matched as if some were */
	feed_unlocated_losses(src, &unseen, &cut);
	cfg.missing_completions = unseen > 0 || cut;
	if (outs->n_rows) {
		cfg.on_row = rows_to_outputs;
		cfg.row_ctx = outs;
	}
	/* what each output asks of the analysis */
	for (i = 0; i < outs->n; i++)
		if (outs->items[i].ops->prepare &&
		    outs->items[i].ops->prepare(outs->items[i].w, o, index,
						res, &cfg, err) < 0)
			return -1;
	if (analysis_init(&res->analysis, &cfg, err) < 0)
		return -1;
	f = feed_open(src, err);
	if (!f)
		return -1;
	if (o->live && src->kind == TRACE_STDIN &&
	    !(live = live_start(o, "-", NULL, err))) {
		feed_close(f);
		return -1;
	}
	if (tag_stage_start(o, src, outs->needs, &ts, &res->analysis,
			    err) < 0) {
		tag_stage_free(&ts);
		live_close(live);
		feed_close(f);
		return -1;
	}
	for (i = 0; i < outs->n; i++)
		if (outs->items[i].ops->trace)
			outs->items[i].ops->trace(outs->items[i].w, res,
						  ts.causes);
	/* Reading runs beside the analysis or before it (feed_pipe.h). */
	pipe = feed_pipe_start(f, cpu_to_spare(&ts), err);
	if (!pipe) {
		live_close(live);
		tag_stage_free(&ts);
		feed_close(f);
		return -1;
	}
	/*
	 * Meanwhile SIGINT and SIGTERM of a stream go to its reader thread,
	 * where they cut a read of a stalled stdin short; here the flag is
	 * seen. Files may be read in this thread: it takes them itself.
	 */
	pthread_sigmask(feed_is_stream(f) ? SIG_BLOCK : SIG_UNBLOCK,
			&stop_signals, &old_mask);
	while ((r = feed_pipe_next(pipe, &ev, &n, err)) > 0) {
		if (iow_interrupted) {
			r = -1;
			break;
		}
		for (i = 0, w = 0; i < n && !w; i++) {
			take_facts(o, src, f, &res->facts, &ev[i]);
			if ((w = watch_event(live, &ev[i], err)) < 0 ||
			    tag_stage_event(&ts, &ev[i], &res->analysis,
					    err) < 0) {
				w = -1;
				break;
			}
		}
		if (w) {
			r = w < 0 ? -1 : 0;
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
	if (r == 0)
		warn_cut_files(f);
	if (r == 0 && res->analysis.warning[0])
		fprintf(stderr, "iowatcher: warning: %s: %s\n", src->name,
			res->analysis.warning);
	if (r == 0)
		warn_empty_window(o, src->name, &res->analysis);
	if (r == 0 && ts.causes && cause_table_warning(ts.causes))
		fprintf(stderr, "iowatcher: warning: %s\n",
			cause_table_warning(ts.causes));
	feed_close(f);
	/* the causes name what the summary and pictures show */
	if (o->by == BY_CGROUP && ts.causes)
		cause_table_cgroup_source(ts.causes, res->tags_source,
					  sizeof(res->tags_source));
	res->causes = ts.causes;
	ts.causes = NULL;
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
	struct outputs outs;	/* what this run writes */
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
		cause_table_free(r->causes);
		if (r->cpu)
			cpustat_free(r->cpu);
		free(r->cpu);
		for (j = 0; j < r->n_fio; j++) {
			fiolog_free(&r->fio[j].log);
			free(r->fio[j].path);
		}
		free(r->fio);
		for (j = 0; j < run->outs.n; j++)
			if (run->outs.items[j].ops->free_trace)
				run->outs.items[j].ops->free_trace(r);
	}
	free(run->results);
	free(run->labels);
	trace_list_free(&run->sources);
	for (i = 0; i < run->outs.n; i++)
		if (run->outs.items[i].ops->abort)
			run->outs.items[i].ops->abort(run->outs.items[i].w);
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

/* What to keep of each I/O's cause (enum record_causes). */
static unsigned record_causes_wanted(const struct options *o)
{
	if (o->no_causes)
		return 0;
	/* stacks on request: a walk per bio cost one fio job at queue
	 * depth 32 about 0.27 more of its IOPS (bench/README.md) */
	if (o->stacks == STACKS_KERNEL)
		return RECORD_CAUSES | RECORD_KSTACKS;
	if (o->stacks == STACKS_USER)
		return RECORD_CAUSES | RECORD_KSTACKS | RECORD_USTACKS;
	return RECORD_CAUSES;
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
		.buffer_kb = o->record_buffer_kb,
		.causes = record_causes_wanted(o),
		.with_mpstat = 1,
	};
	char first_file[4096 + 16], word[64];
	const char *misplaced = NULL;

	snprintf(path, path_len, "%s/%s", ro.dir, o->trace_args[0]);
	/* only the device's own name can be there (cli.c refuses a -t
	 * naming a trace): a recording replaces the last one, and says so */
	snprintf(first_file, sizeof(first_file), "%s.blktrace.0", path);
	if (access(first_file, F_OK) == 0)
		fprintf(stderr, "iowatcher: replacing the earlier recording %s.blktrace.* (-t NAME records beside it)\n",
			path);
	if (!o->prog_argv && o->live != LIVE_SCREEN)
		fprintf(stderr, "iowatcher: recording %s until interrupted (Ctrl-C)\n",
			o->devices[0]);
	if (record_watched(o, &ro, res, path, err) < 0)
		return -1;
	if (o->prog_argv)
		misplaced = cli_misplaced_option(o->prog_argv, word,
						 sizeof(word));
	if (record_check_workload(res, o->prog_argv != NULL, misplaced, path,
				  err) < 0)
		return -1;
	record_print_result((const char *const *)o->devices, o->n_devices,
			    res, path);
	o->trace_args[0] = path;
	return 0;
}

/*
 * The outputs this run writes, each opened (in the table's order, as
 * they are written at the end), for n traces.
 */
static int open_outputs(const struct options *o, size_t n,
			struct outputs *outs, struct iow_error *err)
{
	size_t i;

	outs->needs = outputs_needs(o);
	for (i = 0; i < output_table_len; i++) {
		const struct output_ops *ops = output_table[i];
		struct chosen_output *c = &outs->items[outs->n];

		if (!ops->chosen(o))
			continue;
		c->ops = ops;
		c->w = NULL;
		outs->n++;
		if (ops->open && ops->open(&c->w, o, n, err) < 0)
			return -1;
		if (ops->row)
			outs->rows[outs->n_rows++] = *c;
	}
	return 0;
}

/*
 * Every output written, in turn; an interrupt stops them (what was not
 * written is then aborted: no file).
 */
static int finish_outputs(const struct options *o, struct run *run,
			  struct iow_error *err)
{
	size_t i;

	for (i = 0; i < run->outs.n; i++) {
		struct chosen_output *c = &run->outs.items[i];
		void *w = c->w;

		if (iow_interrupted)
			return -1;
		if (!c->ops->finish)
			continue;
		/* finish frees it, written or not */
		c->w = NULL;
		if (c->ops->finish(w, o, run->results, run->n_done, err) < 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opts;
	struct iow_error err = { "" };
	struct run run;
	struct record_result recorded;
	char record_path[4096];
	int status = 0;
	size_t i;

	memset(&run, 0, sizeof(run));
	/*
	 * Memory once touched is kept and reused: a page the kernel maps
	 * anew cost 12-13 us on this project's VM, and the drawing's big
	 * buffers (cairo's SVG text, its image copies) would each come fresh
	 * from mmap, or from a heap trimmed back after the analysis (the
	 * recorded benchmark trace's SVG: 1346 page faults, 1084 with this).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	switch (options_parse(argc, argv, &opts, &err)) {
	case CLI_OK:
		break;
	case CLI_HELP:
		cli_print_help(stdout);
		return 0;
	case CLI_VERSION:
		printf("iowatcher %s\n", IOWATCHER_VERSION);
		return 0;
	case CLI_USAGE:
		cli_print_usage_error(stderr, &err);
		return CLI_EXIT_USAGE;
	}
	catch_stop_signals();
	if (opts.n_merge_paths) {
		if (summary_merge(stdout, opts.merge_paths, opts.n_merge_paths,
				  opts.summary == SUMMARY_JSON,
				  opts.top_tags > 0 ? (size_t)opts.top_tags :
						      TOP_TAGS_DEFAULT,
				  &err) < 0)
			goto fail;
		goto out;
	}
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
	if (open_outputs(&opts, run.sources.n, &run.outs, &err) < 0)
		goto fail;
	for (i = 0; i < run.sources.n; i++) {
		struct trace_result *res = &run.results[i];

		res->label = run.labels[i];
		res->source = run.sources.items[i].name;
		if (opts.n_devices)
			res->recorder = record_tracer_name(recorded.used);
		run.n_done = i + 1;
		if (analyse_trace(&opts, &run.sources.items[i], res,
				  &run.outs, i, &err) < 0 ||
		    load_cpustat(&run.sources.items[i], res, &err) < 0 ||
		    (i == 0 && load_fio_logs(&opts, res, &err) < 0))
			goto fail;
	}
	if (finish_outputs(&opts, &run, &err) < 0)
		goto fail;
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
	options_free(&opts);
	run_free(&run);
	if (iow_interrupted) {
		/* as the shell expects of an interrupted program */
		signal(iow_interrupted, SIG_DFL);
		raise(iow_interrupted);
	}
	return status;
}
