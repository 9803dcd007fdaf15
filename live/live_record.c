/*
 * live_record.c: the recording step of a run (live.h): -d's devices
 * traced while the workload runs, watched with --live as it goes; and
 * the events of -t - --live watched as they are read.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"
#include "record/flight.h"

/*
 * record_run, with --live watched as it goes: the view ends before
 * anything else is said, and the workload's output goes to PATH.out.
 */
static int live_record_watched(const struct options *o,
			       struct record_opts *ro,
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
	if (o->prog_argv && o->live == LIVE_SCREEN && res->workload_started)
		fprintf(stderr, "iowatcher: the workload's output is in %s\n",
			out_path);
	return rc;
}

/* What to keep of each I/O's cause (enum record_causes). */
static unsigned live_record_causes(const struct options *o)
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

/* --flight's options as the flight recorder takes them. */
static void live_flight_options(const struct options *o,
				struct flight_opts *fo,
				struct flight_trigger *triggers)
{
	size_t i;

	memset(fo, 0, sizeof(*fo));
	fo->window_ns = (uint64_t)(o->flight_s * 1e9 + 0.5);
	fo->mem_bytes = o->flight_mem ? o->flight_mem : FLIGHT_DEFAULT_MEM;
	fo->before_ns = o->before_s > 0 ? (uint64_t)(o->before_s * 1e9 + 0.5)
					: UINT64_MAX;
	fo->after_ns = (uint64_t)((o->after_s > 0 ? o->after_s :
				   FLIGHT_DEFAULT_AFTER_S) * 1e9 + 0.5);
	/* cli.c checked each */
	for (i = 0; i < o->n_triggers && i < FLIGHT_MAX_TRIGGERS; i++)
		flight_trigger_parse(o->triggers[i], &triggers[i], NULL, 0);
	fo->triggers = triggers;
	fo->n_triggers = i;
}

/*
 * --flight: armed until the workload ends or a stop signal; the
 * captures are the output, nothing is drawn. A failing workload fails
 * the run, its captures kept.
 */
static int live_record_flight(const struct options *o,
			      struct record_opts *ro,
			      struct record_result *res, const char *path,
			      struct iow_error *err)
{
	struct flight_trigger triggers[FLIGHT_MAX_TRIGGERS];
	struct flight_opts fo;
	int st;

	live_flight_options(o, &fo, triggers);
	/* a SIGUSR1 before the recorder is armed is not a capture, nor
	 * the end of the program (its default) */
	signal(SIGUSR1, SIG_IGN);
	ro->flight = &fo;
	ro->with_mpstat = 0;
	if (o->live != LIVE_SCREEN)
		fprintf(stderr, "iowatcher: flight recorder armed on %s%s: the last %g s kept in memory (at most %.0f MiB), %zu trigger%s%s\n",
			o->devices[0], o->n_devices > 1 ? " and more" : "",
			o->flight_s, (double)fo.mem_bytes / 1048576.0,
			o->n_triggers, o->n_triggers == 1 ? "" : "s",
			o->prog_argv ? "; SIGUSR1 captures" :
				       "; SIGUSR1 captures, Ctrl-C stops");
	if (live_record_watched(o, ro, res, path, err) < 0)
		return -1;
	flight_print_end(stderr, &res->flight, &fo, path,
			 res->cpu_user_s + res->cpu_sys_s);
	st = res->workload_status;
	if (o->prog_argv && !res->stop_signal && WIFEXITED(st) &&
	    WEXITSTATUS(st))
		return iow_fail(err, "the workload exited with status %d; the flight recorder's %u capture%s kept",
				WEXITSTATUS(st), res->flight.captures,
				res->flight.captures == 1 ? " is" : "s are");
	if (o->prog_argv && !res->stop_signal && WIFSIGNALED(st))
		return iow_fail(err, "the workload was killed by signal %d (%s); the flight recorder's %u capture%s kept",
				WTERMSIG(st), strsignal(WTERMSIG(st)),
				res->flight.captures,
				res->flight.captures == 1 ? " is" : "s are");
	return 0;
}

int live_record(struct options *o, const char *misplaced,
		struct record_result *res, struct iow_error *err, char *path,
		size_t path_len)
{
	struct record_opts ro = {
		.devices = o->devices,
		.n_devices = o->n_devices,
		.dir = o->record_dir ? o->record_dir : ".",
		.name = o->trace_args[0],
		.prog_argv = o->prog_argv,
		.tracer = (enum record_tracer)o->tracer,
		.buffer_kb = o->record_buffer_kb,
		.causes = live_record_causes(o),
		.with_mpstat = 1,
	};
	char first_file[4096 + 16];

	snprintf(path, path_len, "%s/%s", ro.dir, o->trace_args[0]);
	if (o->flight_s > 0)
		return live_record_flight(o, &ro, res, path, err);
	/* only the device's own name can be there (cli.c refuses a -t
	 * naming a trace): a recording replaces the last one, and says so */
	snprintf(first_file, sizeof(first_file), "%s.blktrace.0", path);
	if (access(first_file, F_OK) == 0)
		fprintf(stderr, "iowatcher: replacing the earlier recording %s.blktrace.* (-t NAME records beside it)\n",
			path);
	if (!o->prog_argv && o->live != LIVE_SCREEN)
		fprintf(stderr, "iowatcher: recording %s until interrupted (Ctrl-C)\n",
			o->devices[0]);
	if (live_record_watched(o, &ro, res, path, err) < 0)
		return -1;
	if (record_check_workload(res, o->prog_argv != NULL, misplaced, path,
				  err) < 0)
		return -1;
	record_print_result((const char *const *)o->devices, o->n_devices,
			    res, path);
	o->trace_args[0] = path;
	return 0;
}

int live_watch_event(struct live *live, const struct io_event *ev,
		     struct iow_error *err)
{
	if (live_event(live, ev, err) < 0)
		return -1;
	/* the keys and the screen, every so many events */
	return ev->index % 4096 == 0 && live_poll(live);
}
