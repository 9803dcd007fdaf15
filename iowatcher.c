/*
 * iowatcher.c: the pipeline: read the command line (cli.c), record if
 * asked (live/live_record.c), find the traces, run each through reader
 * -> tag stage (tag/tagstage.c) -> analysis, then write what the run
 * chose (the outputs' table, outputs.c). Only this file exits.
 */
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "reader/cpustat.h"
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

/* Reader -> tag stage -> analysis, for one trace. */

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
	facts->notes_off_clock = origin.notes_off_clock;
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

/* Reader -> tag stage -> analysis, for one trace. */
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
	char note[256];
	int r, w, cut;

	/* completions the recorder never saw: known from the start; a set
	 * cut short may have lost the notes that say so with its end, and a
	 * completion matched to the oldest request of its sector would then
	 * time one left by an unseen completion (0.8 s where the whole
	 * trace's longest D2C is 2 ms, in t_cut): matched as if some were */
	feed_unlocated_losses(src, &unseen, &cut);
	cfg.missing_completions = unseen > 0 || cut;
	/* what each output asks of the analysis */
	if (outputs_prepare(outs, o, index, res, &cfg, err) < 0)
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
	outputs_trace(outs, res, ts.causes);
	/* Reading runs beside the analysis or before it (feed_pipe.h). */
	pipe = feed_start_pipe(f, cpu_to_spare(&ts), err);
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
			iow_stop_signals(), &old_mask);
	while ((r = feed_pipe_next(pipe, &ev, &n, err)) > 0) {
		if (iow_interrupted) {
			r = -1;
			break;
		}
		for (i = 0, w = 0; i < n && !w; i++) {
			take_facts(o, src, f, &res->facts, &ev[i]);
			if ((w = live_watch(live, &ev[i], err)) < 0 ||
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
	if (r == 0) {
		int e = analysis_window_empty(&res->analysis, o, src->name,
					      note, sizeof(note), err);

		if (e < 0)
			r = -1;
		else if (e)
			fprintf(stderr, "iowatcher: %s: %s\n", src->name, note);
	}
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
	if (r == 0)
		r = analysis_check_loss(&res->analysis, src->name, err);
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

/* -F's logs, on the first trace. */
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
		res->n_fio = i + 1;
		if (fio_input_load(o->fio_logs[i], &res->fio[i], err) < 0)
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
		char found[1024];

		if (feed_find_traces(o->trace_args[i], &run->sources, err) < 0)
			return -1;
		/* a directory: which traces, of which kinds, it read */
		if (trace_list_found(&run->sources, before, o->trace_args[i],
				     found, sizeof(found)))
			fprintf(stderr, "iowatcher: %s\n", found);
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
			fio_input_free(&r->fio[j]);
		}
		free(r->fio);
		outputs_free_trace(&run->outs, r);
	}
	free(run->results);
	free(run->labels);
	trace_list_free(&run->sources);
	outputs_abort(&run->outs);
}

int main(int argc, char **argv)
{
	struct options opts;
	struct iow_error err = { "" };
	struct run run;
	struct record_result recorded;
	char record_path[4096], word[64];
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
	iow_catch_stop_signals();
	if (opts.n_merge_paths) {
		if (summary_merge_as(stdout, opts.merge_paths,
				     opts.n_merge_paths,
				     opts.merge_concurrent,
				     opts.summary == SUMMARY_JSON,
				  opts.top_tags > 0 ? (size_t)opts.top_tags :
						      TOP_TAGS_DEFAULT,
				  &err) < 0)
			goto fail;
		goto out;
	}
	if (opts.n_devices) {
		if (live_record(&opts, opts.prog_argv ?
				cli_misplaced_option(opts.prog_argv, word,
						     sizeof(word)) : NULL,
				&recorded, &err, record_path,
				sizeof(record_path)) < 0)
			goto fail;
		/* a stop signal is how a recording ends: then it is drawn */
		iow_interrupted = 0;
		if (opts.flight_s > 0)
			goto out;	/* the captures are the output */
	}
	if (find_sources(&opts, &run, &err) < 0)
		goto fail;
	run.results = calloc(run.sources.n, sizeof(*run.results));
	if (!run.results) {
		iow_fail(&err, "out of memory");
		goto fail;
	}
	if (outputs_open(&run.outs, &opts, run.sources.n, &err) < 0)
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
	if (outputs_finish(&run.outs, &opts, run.results, run.n_done,
			   &err) < 0)
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
