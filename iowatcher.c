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
#include "analysis/latpoints.h"
#include "blkparse_feed.h"
#include "cli.h"
#include "compare/compare.h"
#include "graphs/graphs.h"
#include "live/live.h"
#include "movie/movie.h"
#include "options.h"
#include "output/csv.h"
#include "output/events.h"
#include "output/pftrace.h"
#include "output/merge.h"
#include "output/summary.h"
#include "reader/blktrace.h"
#include "reader/feed_pipe.h"
#include "record/cpustat.h"
#include "record/record.h"
#include "report/report.h"
#include "tag/cause.h"
#include "tag/causetag.h"
#include "tagger.h"

/*
 * The stages after the reader: the causes (when something reads them),
 * then --by, a -T tagger, or nothing.
 */
struct tag_stage {
	struct cause_table *causes;
	struct cause_tags *by_cause;
	struct tagger *tagger;
};

/* Whether a graph asked for draws the stacks (io-flame). */
static int asks_flame(const struct options *o)
{
	return (graphs_needs(o) & GRAPH_NEEDS_STACKS) != 0;
}

/* Whether -o names a trace for Perfetto, whose slices carry the causes. */
static int asks_perfetto(const struct options *o)
{
	return o->output && o->output_type.kind == OUTPUT_PERFETTO;
}

/* Whether anything reads the causes: --by, --events, --summary=stacks,
 * -O io-flame, a Perfetto trace, --compare. */
static int causes_wanted(const struct options *o)
{
	return o->by || o->events_path || o->summary == SUMMARY_STACKS ||
	       asks_flame(o) || asks_perfetto(o) || o->compare;
}

/* --by file and stack need what only a recorder that saw them kept. */
static int causes_recorded(const struct options *o,
			   const struct trace_source *src,
			   const struct cause_table *ct, struct iow_error *err)
{
	enum cause_part part = o->by == BY_FILE ? CAUSE_PART_FILES
						: CAUSE_PART_STACKS;
	const char *what = o->by == BY_FILE ? "files" : "stacks", *why;

	if ((o->by != BY_FILE && o->by != BY_STACK &&
	     o->summary != SUMMARY_STACKS && !asks_flame(o)) ||
	    cause_table_kept(ct, part))
		return 0;
	why = cause_table_unrecorded(ct, part);
	if (why)
		return iow_fail(err, "%s: %s were not recorded with this trace (%s; --by process, comm and cgroup work on it)",
				src->name, what, why);
	return iow_fail(err, "%s: %s were not recorded with this trace (only the bpf recorder keeps them, in NAME.cause.N beside the per-CPU files: record with --tracer bpf; --by process, comm and cgroup work on any trace)",
			src->name, what);
}

static int tag_stage_start(const struct options *o,
			   const struct trace_source *src,
			   struct tag_stage *ts, struct analysis *a,
			   struct iow_error *err)
{
	memset(ts, 0, sizeof(*ts));
	/* the causes a recorder kept are read whenever they are there: the
	 * summary names the files; else only when something asks */
	if (causes_wanted(o) || (src->kind == TRACE_PERCPU &&
				 cause_files_beside(src->name))) {
		ts->causes = cause_table_open(src->kind == TRACE_PERCPU ?
					      src->name : NULL, err);
		if (!ts->causes || causes_recorded(o, src, ts->causes, err))
			return -1;
		/* the log's pid and cgroup of each bio, from the records */
		if (o->events_path || asks_perfetto(o) || o->compare)
			cause_table_intern_plain(ts->causes);
		a->cfg.cause_ledger = cause_table_recorded(ts->causes) ||
				      o->summary == SUMMARY_STACKS;
	}
	if (o->by) {
		ts->by_cause = causetag_new((enum cause_by)o->by, ts->causes);
		if (!ts->by_cause)
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
	return n - 1 - (ts->tagger != NULL) > 0;
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
	if (ts->causes && cause_table_event(ts->causes, ev, err) < 0)
		return -1;
	if (ts->by_cause && causetag_event(ts->by_cause, ev, a, err) < 0)
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
	causetag_free(ts->by_cause);
	cause_table_free(ts->causes);
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
/*
 * A window that holds no event: -x beyond the trace or a --device it
 * does not have is an error (a summary of nothing would read as a quiet
 * disk); -x on an idle stretch inside the trace, or -y that holds no
 * I/O, is said once and drawn.
 */
static int empty_window(const struct options *o, const char *name,
			const struct analysis *a, struct iow_error *err)
{
	double first = a->n_events_all ? (double)a->first_ns / 1e9 : 0;
	double last = (double)a->last_ns / 1e9;
	char devs[128] = "", one[24];
	size_t i;

	/* --compare says it of the trace it cannot compare, as an error */
	if (a->n_events || o->compare ||
	    (!o->has_x_range && !o->has_y_range && !o->n_only_devices))
		return 0;
	if (!a->n_events_all && o->n_only_devices) {
		for (i = 0; i < a->n_other_devices; i++) {
			snprintf(one, sizeof(one), "%s%u,%u", i ? " " : "",
				 blk_dev_major(a->other_devices[i]),
				 blk_dev_minor(a->other_devices[i]));
			strncat(devs, one, sizeof(devs) - strlen(devs) - 1);
		}
		if (!a->n_other_devices)
			return iow_fail(err, "%s: no event on the --device given: the trace has no I/O event at all",
					name);
		return iow_fail(err, "%s: no event on the --device given: the trace's device%s %s (%s)",
				name, a->n_other_devices > 1 ? "s are" : " is",
				devs, a->n_other_devices > 1 ?
				"give -d one of them, or several -d" :
				"give -d that one, or no -d");
	}
	/* beyond the trace: an error; an idle stretch inside it is an
	 * answer (no I/O then), said once */
	if (o->has_x_range && (o->x_min_s >= last || o->x_max_s <= first))
		return iow_fail(err, "%s: no event in -x %g:%g: the trace runs from %.3f to %.3f s (give -x a range inside it)",
				name, o->x_min_s, o->x_max_s, first, last);
	if (o->has_x_range) {
		fprintf(stderr, "iowatcher: %s: no event in -x %g:%g, an idle stretch of the trace (it runs from %.3f to %.3f s)\n",
			name, o->x_min_s, o->x_max_s, first, last);
		return 0;
	}
	fprintf(stderr, "iowatcher: %s: no I/O in -y %g:%g MiB\n", name,
		o->y_min_mib, o->y_max_mib);
	return 0;
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

/* What takes the analysis's rows: the per-I/O log, a Perfetto trace. */
struct row_sinks {
	struct events_log *log;
	struct pftrace *perfetto;
};

static void row_to_sinks(void *ctx, const struct analysis_row *r)
{
	struct row_sinks *s = ctx;

	if (s->log)
		events_row(s->log, r);
	if (s->perfetto)
		pftrace_row(s->perfetto, r);
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
			 struct trace_result *res, struct row_sinks *sinks,
			 struct compare_side *compared, size_t index,
			 struct iow_error *err)
{
	struct live *live = NULL;
	struct feed_pipe *pipe;
	struct tag_stage ts;
	struct io_event *ev;
	sigset_t old_mask;
	struct feed *f;
	size_t n;
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
	if (sinks->log || sinks->perfetto) {
		cfg.on_row = row_to_sinks;
		cfg.row_ctx = sinks;
	}
	if (compared)
		compare_attach(o, index, compared, &cfg);
	if (graphs_want_points(o)) {
		/* the scatter's points, every D2C as it is counted */
		res->points = calloc(1, sizeof(*res->points));
		if (!res->points)
			return iow_fail(err, "out of memory");
		cfg.on_sample = latency_points_sample;
		cfg.sample_ctx = res->points;
	}
	if (report_prepare(o, res, &cfg, err) < 0)
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
	if (tag_stage_start(o, src, &ts, &res->analysis, err) < 0) {
		tag_stage_free(&ts);
		live_close(live);
		feed_close(f);
		return -1;
	}
	if (sinks->log)
		events_trace(sinks->log, res->label, &res->analysis, ts.causes,
			     &res->facts);
	if (sinks->perfetto)
		pftrace_trace(sinks->perfetto, res->label, &res->analysis,
			      ts.causes, &res->facts);
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
		size_t i;

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
		r = empty_window(o, src->name, &res->analysis, err);
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
	struct row_sinks rows;	/* --events, -o NAME.pftrace */
	struct compare_side *compared[2];	/* --compare: A's, B's I/Os */
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
		latency_points_free(r->points);
		free(r->points);
		report_trace_free(r);
	}
	free(run->results);
	free(run->labels);
	trace_list_free(&run->sources);
	events_abort(run->rows.log);
	pftrace_abort(run->rows.perfetto);
	compare_side_free(run->compared[0]);
	compare_side_free(run->compared[1]);
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
	opt = cli_misplaced_option(o->prog_argv, word, sizeof(word));
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

/* "of /dev/loop0", "of /dev/sda and /dev/sdb", "of 3 devices" */
static void devices_phrase(const struct options *o, char *buf, size_t size)
{
	if (o->n_devices == 1)
		snprintf(buf, size, "%s", o->devices[0]);
	else if (o->n_devices == 2)
		snprintf(buf, size, "%s and %s", o->devices[0], o->devices[1]);
	else
		snprintf(buf, size, "%zu devices", o->n_devices);
}

/*
 * "the trace holds all 12,000 completions the kernel counted", per
 * device with more than one: the recording's account (account.h).
 */
static void accounts_phrase(const struct options *o,
			    const struct record_result *res, char *buf,
			    size_t size)
{
	uint64_t in_windows = res->events_lost - res->lost_unlocated;
	char sentence[512];
	struct account acc;
	size_t i, len = 0;

	buf[0] = '\0';
	if (res->events_lost < res->lost_unlocated)
		in_windows = 0;
	for (i = 0; i < res->n_account && len < size; i++) {
		const struct record_account *r = &res->account[i];

		if (!r->counted)
			continue;
		account_compare(&r->note, r->trace, in_windows, &acc);
		account_sentence(&acc, sentence, sizeof(sentence));
		if (res->n_account == 1)
			len += (size_t)snprintf(buf + len, size - len,
						"; the trace %s", sentence);
		else
			len += (size_t)snprintf(buf + len, size - len,
						"%s %s: %s", len ? "," : ";",
						o->devices[i], sentence);
	}
}

/*
 * The end of a recording in one line: what (events, devices, tracer and
 * why not the ones before it), where (the files, the buffer, the CPU it
 * took), what was lost, or that nothing was, and the account of the
 * completions the kernel counted.
 */
static void print_recorded(const struct options *o,
			   const struct record_result *res, const char *path)
{
	char devices[256], files[64], buffer[48] = "", lost[160];
	char accounts[2048];

	if (res->mpstat_missing)
		fprintf(stderr, "iowatcher: no mpstat on PATH (Debian's "
			"sysstat package): recorded without the CPU panel's "
			"NAME.mpstat\n");
	if (res->reclaimed_pid > 0)
		fprintf(stderr, "iowatcher: first put back the kernel's "
			"tracing state that a killed recording (pid %ld) had "
			"left on\n", res->reclaimed_pid);
	else if (res->reclaimed_pid < 0)
		fprintf(stderr, "iowatcher: first put back the kernel's "
			"tracing state that a killed recording had left on\n");

	devices_phrase(o, devices, sizeof(devices));
	if (res->n_files > 1)
		snprintf(files, sizeof(files), ".blktrace.{0..%u}%s",
			 res->n_files - 1, res->causes ? " and .cause*" : "");
	else
		snprintf(files, sizeof(files), ".blktrace.0%s",
			 res->causes ? " and .cause*" : "");
	if (res->buffer_kb % 1024 == 0 && res->buffer_kb)
		snprintf(buffer, sizeof(buffer), "%zu MiB buffer per CPU, ",
			 res->buffer_kb / 1024);
	else if (res->buffer_kb)
		snprintf(buffer, sizeof(buffer), "%zu KiB buffer per CPU, ",
			 res->buffer_kb);
	if (!res->loss_windows)
		snprintf(lost, sizeof(lost), "nothing lost");
	else
		snprintf(lost, sizeof(lost), "the kernel lost %s%llu event%s "
			 "in %llu window%s (loss notes in the trace)",
			 res->lost_unknown ? "at least " : "",
			 (unsigned long long)res->events_lost,
			 res->events_lost == 1 ? "" : "s",
			 (unsigned long long)res->loss_windows,
			 res->loss_windows == 1 ? "" : "s");
	accounts_phrase(o, res, accounts, sizeof(accounts));
	fprintf(stderr, "iowatcher: recorded %llu events of %s with %s%s%s%s "
		"in %s%s (%s%.2f s of CPU); %s%s\n",
		(unsigned long long)res->events_written, devices,
		record_tracer_name(res->used),
		res->fallback_reason[0] ? " (not " : "",
		res->fallback_reason, res->fallback_reason[0] ? ")" : "",
		path, files, buffer, res->cpu_user_s + res->cpu_sys_s, lost,
		accounts);
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
	char first_file[4096 + 16];

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
	if (check_workload(o, res, path, err) < 0)
		return -1;
	print_recorded(o, res, path);
	o->trace_args[0] = path;
	return 0;
}

/* --compare: two traces found (a directory may hold more), each kept. */
static int start_compare(struct run *run, struct iow_error *err)
{
	if (run->sources.n != 2)
		return iow_fail(err, "--compare compares two traces: -t A -t B found %zu",
				run->sources.n);
	run->compared[0] = compare_side_new();
	run->compared[1] = compare_side_new();
	if (!run->compared[0] || !run->compared[1])
		return iow_fail(err, "out of memory");
	return 0;
}

/* What -o names (cli.c worked out which), written. */
static int render_output(const struct options *o,
			 struct trace_result *traces, size_t n,
			 struct iow_error *err)
{
	/* --compare draws its own pictures */
	if (!o->output || o->compare)
		return 0;
	switch (o->output_type.kind) {
	case OUTPUT_PICTURE:
		return graphs_render(o, traces, n, err);
	case OUTPUT_MOVIE:
		return movie_render(o, traces, n, err);
	case OUTPUT_REPORT:
		/* it widens the bins to the pictures' as it goes */
		return report_render(o, traces, n, err);
	default:
		return 0;
	}
}

int main(int argc, char **argv)
{
	struct options opts;
	struct iow_error err = { "" };
	struct run run = { { NULL, 0 }, NULL, NULL, 0, { NULL, NULL },
			   { NULL, NULL } };
	struct record_result recorded;
	char record_path[4096];
	int status = 0, replacing;
	size_t i;

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
	if (opts.events_path &&
	    !(run.rows.log = events_open(opts.events_path, &err)))
		goto fail;
	if (asks_perfetto(&opts) &&
	    !(run.rows.perfetto = pftrace_open(opts.output, &err)))
		goto fail;
	if (opts.compare && start_compare(&run, &err) < 0)
		goto fail;
	for (i = 0; i < run.sources.n; i++) {
		struct trace_result *res = &run.results[i];

		res->label = run.labels[i];
		res->source = run.sources.items[i].name;
		if (opts.n_devices)
			res->recorder = record_tracer_name(recorded.used);
		run.n_done = i + 1;
		if (analyse_trace(&opts, &run.sources.items[i], res,
				  &run.rows, opts.compare ? run.compared[i] : NULL,
				  i, &err) < 0 ||
		    load_cpustat(&run.sources.items[i], res, &err) < 0 ||
		    (i == 0 && load_fio_logs(&opts, res, &err) < 0))
			goto fail;
	}
	/* a picture the user did not name is never replaced unsaid */
	replacing = opts.output == opts.default_output &&
		    access(opts.output, F_OK) == 0;
	if (render_output(&opts, run.results, run.n_done, &err) < 0)
		goto fail;
	if (replacing)
		fprintf(stderr, "iowatcher: %s replaced: an earlier run had drawn it (-o FILE names the picture)\n",
			opts.output);
	if (opts.csv_dir && csv_export(&opts, run.results, run.n_done,
				       &err) < 0)
		goto fail;
	if (iow_interrupted)
		goto fail;
	if (run.rows.log) {
		struct events_log *log = run.rows.log;

		run.rows.log = NULL;
		if (events_close(log, &err) < 0)
			goto fail;
	}
	if (run.rows.perfetto) {
		struct pftrace *pf = run.rows.perfetto;

		run.rows.perfetto = NULL;
		if (pftrace_close(pf, &err) < 0)
			goto fail;
	}
	if (opts.compare && compare_print(stdout, &opts, run.results,
					  run.compared, &err) < 0)
		goto fail;
	if (opts.summary == SUMMARY_JSON)
		summary_print_json(stdout, run.results, run.n_done,
				   opts.live == LIVE_JSON);
	else if (opts.summary == SUMMARY_STACKS)
		summary_print_stacks(stdout, run.results, run.n_done);
	else if (opts.summary == SUMMARY_TEXT)
		summary_print_text(stdout, run.results, run.n_done,
				   opts.top_tags > 0 ? (size_t)opts.top_tags :
						       TOP_TAGS_DEFAULT);
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
