/*
 * live_record.c: the recording step of a run (live.h): -d's devices
 * traced while the workload runs, watched with --live as it goes; and
 * the events of -t - --live watched as they are read.
 */
#include <stdio.h>
#include <unistd.h>

#include "live.h"

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
	if (o->prog_argv && o->live == LIVE_SCREEN)
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

int live_watch(struct live *live, const struct io_event *ev,
		       struct iow_error *err)
{
	if (!live)
		return 0;
	if (live_event(live, ev, err) < 0)
		return -1;
	/* the keys and the screen, every so many events */
	return ev->index % 4096 == 0 && live_poll(live);
}
