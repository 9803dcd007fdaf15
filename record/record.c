/*
 * record.c: record_run(), what the CLI's record mode calls. Checks the
 * devices, starts the first recorder that works (recorder.h: BPF, then
 * blktrace, then the ftrace 'blk' tracer), then mpstat and the
 * workload; waits for the workload or a SIGINT/SIGTERM/SIGHUP; stops it
 * all in order and leaves the kernel's tracing state as it found it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/child.h"
#include "record.h"
#include "recorder.h"

#define PUMP_MS			100
#define LATE_COMPLETION_MS	200	/* after the workload, before stop */
#define WORKLOAD_STOP_MS	5000	/* after forwarding the signal */
#define HELPER_STOP_MS		10000	/* mpstat */
#define DEFAULT_BUFFER_KB	(16 * 1024)
#define ALL_BUFFERS_KB		(512 * 1024)

extern char **environ;

/*
 * Set by the SIGINT/SIGTERM/SIGHUP handler record_run installs: a
 * handler can only reach a file-level variable, and this is the only one.
 */
static volatile sig_atomic_t record_stop_signal;
/* SIGUSR1s taken while a flight recorder is armed: a capture each */
static volatile sig_atomic_t record_fire_requests;

/* RECORD_AUTO tries these in order: the cheapest first (bench/README.md:
 * BPF costs least here; blktrace cannot run here, its kernel side is
 * known to cost less than the ftrace tracer read through trace_pipe). */
static const struct record_ops *const recorders[] = {
	&record_bpf_ops,
	&record_blktrace_ops,
	&record_ftrace_ops,
};
#define N_RECORDERS (sizeof(recorders) / sizeof(recorders[0]))

struct record_session {
	const struct record_opts *o;
	struct record_result *res;
	const char *dir, *name;
	struct record_device *devs;
	struct tracefs tfs;
	int tfs_ready;
	const struct record_ops *ops;	/* the recorder running */
	void *rec;			/* its state */
	struct rec_account *account;	/* per device (rec_account.h) */
	pid_t mpstat_pid, workload_pid;
	int signals_caught;
	struct sigaction old_int, old_term, old_hup, old_usr1;
};

const char *record_tracer_name(enum record_tracer tracer)
{
	size_t i;

	for (i = 0; i < N_RECORDERS; i++)
		if (recorders[i]->tracer == tracer)
			return recorders[i]->name;
	return "auto";
}

size_t record_default_buffer_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	size_t kb = DEFAULT_BUFFER_KB;

	if (cpus > 0 && kb * (size_t)cpus > ALL_BUFFERS_KB)
		kb = ALL_BUFFERS_KB / (size_t)cpus;
	return kb < 1024 ? 1024 : kb;
}

/* Starts c, or says which program could not run. */
static int spawn_child(const struct child_spec *c, pid_t *pid,
		       struct iow_error *err)
{
	int rc = child_start(c, pid);

	if (rc)
		return iow_fail(err, "cannot run %s: %s", c->argv[0],
				strerror(rc));
	return 0;
}

/* environ with LC_ALL=C and S_TIME_FORMAT=ISO: the format cpustat reads */
static char **mpstat_environ(void)
{
	static char lc_all[] = "LC_ALL=C", time_format[] = "S_TIME_FORMAT=ISO";
	size_t n = 0, i, j = 0;
	char **envp;

	while (environ[n])
		n++;
	envp = calloc(n + 3, sizeof(*envp));
	if (!envp)
		return NULL;
	for (i = 0; i < n; i++) {
		if (strncmp(environ[i], "LC_ALL=", 7) &&
		    strncmp(environ[i], "S_TIME_FORMAT=", 14))
			envp[j++] = environ[i];
	}
	envp[j++] = lc_all;
	envp[j] = time_format;
	return envp;
}

static int start_mpstat(struct record_session *s, struct iow_error *err)
{
	static char *argv[] = { "mpstat", "-P", "ALL", "1", NULL };
	char path[4096];
	char **envp = mpstat_environ();
	struct child_spec c;
	int rc;

	child_spec_init(&c, argv);
	c.stdout_path = path;
	c.stdin_null = 1;
	c.envp = envp;
	c.die_with_parent = 1;	/* a recording killed: no mpstat left */
	if (!envp)
		return iow_fail(err, "out of memory");
	snprintf(path, sizeof(path), "%s/%s.mpstat", s->dir, s->name);
	rc = child_start(&c, &s->mpstat_pid);
	free(envp);
	if (rc == ENOENT) {
		/* the CPU panel is a bonus: record without it, and say so;
		 * an older recording's would be drawn with this one */
		s->res->mpstat_missing = 1;
		if (unlink(path) && errno != ENOENT)
			return iow_fail(err, "cannot remove %s: %s", path,
					strerror(errno));
		return 0;
	}
	if (rc)
		return iow_fail(err, "cannot run mpstat: %s", strerror(rc));
	return 0;
}

/* ---- the recorder ---- */

static int start_tracer(struct record_session *s, struct iow_error *err)
{
	enum record_tracer want = s->o->tracer;
	char *why = s->res->fallback_reason;
	size_t i, why_size = sizeof(s->res->fallback_reason);
	struct recorder_env env = {
		.tfs = &s->tfs,
		.devs = s->devs,
		.n_devs = s->o->n_devices,
		.dir = s->dir,
		.name = s->name,
		.buffer_kb = s->o->buffer_kb ? s->o->buffer_kb :
					       record_default_buffer_kb(),
		.causes = s->o->causes,
		.tap = s->o->tap,
		.stopping = &record_stop_signal,
		.account = s->account,
		.flight = s->o->flight,
		.flight_res = &s->res->flight,
		.fire_requests = &record_fire_requests,
	};
	struct iow_error e;

	/* the flight recorder keeps the BPF recorder's records */
	if (s->o->flight && want != RECORD_AUTO && want != RECORD_BPF)
		return iow_fail(err, "--flight records with the bpf recorder "
				"(--tracer bpf or auto), not %s: the ftrace "
				"overwrite-mode flight recorder is not built",
				record_tracer_name(want));
	if (s->o->flight && want == RECORD_AUTO) {
		s->rec = record_bpf_ops.start(&env, &e);
		if (!s->rec)
			return iow_fail(err, "--flight needs the bpf recorder "
					"(the ftrace overwrite-mode flight "
					"recorder is not built), which could "
					"not start: %s", e.msg);
		s->ops = &record_bpf_ops;
		s->res->used = RECORD_BPF;
		return 0;
	}

	for (i = 0; i < N_RECORDERS; i++) {
		const struct record_ops *ops = recorders[i];

		if (want != RECORD_AUTO ? want != ops->tracer :
		    (s->o->auto_skips >> ops->tracer) & 1)
			continue;
		if (ops->tracer == RECORD_BLKTRACE &&
		    tracefs_need_debugfs(&s->tfs,
					 want == RECORD_AUTO ? &e : err) < 0)
			s->rec = NULL;
		else
			s->rec = ops->start(&env, want == RECORD_AUTO ? &e : err);
		if (s->rec) {
			s->ops = ops;
			s->res->used = ops->tracer;
			return 0;
		}
		if (want != RECORD_AUTO)
			return -1;
		snprintf(why + strlen(why), why_size - strlen(why), "%s%s: %s",
			 why[0] ? "; " : "", ops->name, e.msg);
	}
	if (want == RECORD_AUTO)
		return iow_fail(err, "no tracer could start: %s", why);
	return iow_fail(err, "unknown tracer %d", (int)want);
}

/* Each device's account as the recorder left it (none from a recorder
 * that reads no counts: the blktrace one, whose files blktrace writes). */
static void take_account(struct record_session *s)
{
	size_t i, n = s->o->n_devices;
	struct record_result *res = s->res;

	if (n > RECORD_ACCOUNT_MAX)
		n = RECORD_ACCOUNT_MAX;
	for (i = 0; i < n; i++) {
		struct rec_account *a = &s->account[i];
		struct record_account *r = &res->account[i];

		if (!a->noted)
			rec_account_settle(a);
		r->device = a->device;
		r->counted = a->have_start && a->have_attached && a->have_end;
		r->noted = a->noted;
		r->note = a->note;
		memcpy(r->trace, a->trace, sizeof(r->trace));
	}
	res->n_account = n;
}

static int stop_tracer(struct record_session *s, struct iow_error *err)
{
	struct recorder_stats st;
	int rc = s->ops->stop(s->rec, &st, err);

	s->rec = NULL;
	take_account(s);
	s->res->lost_unlocated = st.lost_unlocated;
	s->res->events_written = st.events;
	s->res->events_lost = st.lost;
	s->res->loss_windows = st.loss_windows;
	s->res->lost_unknown = st.lost_unknown;
	s->res->bytes_skipped = st.bytes_skipped;
	s->res->buffer_kb = st.buffer_kb;
	s->res->n_files = st.n_files;
	s->res->causes = st.causes;
	if (s->o->flight)
		s->res->flight.captures = st.captures;
	return rc;
}

/* ---- the session ---- */

static void on_stop_signal(int sig)
{
	record_stop_signal = sig;
}

static void on_fire_signal(int sig)
{
	(void)sig;
	record_fire_requests++;
}

static void signals_catch(struct record_session *s)
{
	/* no SA_RESTART: poll and sleeps return at once to see the flag */
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	/* one that came while the recording was being set up counts too */
	record_stop_signal = iow_interrupted;
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	/* the terminal closed (a live view's, a killed tmux): stop cleanly
	 * rather than die with the tracer on */
	sigaction(SIGHUP, &sa, &s->old_hup);
	if (s->o->flight) {
		sa.sa_handler = on_fire_signal;
		sigaction(SIGUSR1, &sa, &s->old_usr1);
	}
	s->signals_caught = 1;
}

static void signals_release(struct record_session *s)
{
	if (!s->signals_caught)
		return;
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	sigaction(SIGHUP, &s->old_hup, NULL);
	if (s->o->flight)
		sigaction(SIGUSR1, &s->old_usr1, NULL);
	s->signals_caught = 0;
}

/* Whether file is one of a recording's: NAME.blktrace.N, NAME.cause.N
 * or NAME.cause. */
static int recording_file(const char *file, const char *name)
{
	static const char *const kinds[] = { ".blktrace.", ".cause." };
	size_t len = strlen(name), i;
	const char *rest;

	if (strncmp(file, name, len))
		return 0;
	rest = file + len;
	if (!strcmp(rest, ".cause"))
		return 1;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t k = strlen(kinds[i]);

		if (!strncmp(rest, kinds[i], k) && rest[k] &&
		    !rest[k + strspn(rest + k, "0123456789")])
			return 1;
	}
	return 0;
}

/* The flight recorder's directory: its captures number on from what
 * is there. */
static int make_dir(const char *dir, struct iow_error *err)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		return iow_fail(err, "cannot create %s: %s", dir,
				strerror(errno));
	return 0;
}

/*
 * A recording replaces NAME's per-CPU files and the causes beside them:
 * one left from a machine with more CPUs, or causes from a recorder
 * that kept them, would otherwise be read with the new ones. Done only
 * once the devices are known to be traceable.
 */
static int prepare_output(const char *dir, const char *name,
			  struct iow_error *err)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return iow_fail(err, "cannot create %s: %s", dir,
				strerror(errno));
	d = opendir(dir);
	if (!d)
		return iow_fail(err, "cannot read %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!recording_file(de->d_name, name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && errno != ENOENT) {
			iow_fail(err, "cannot remove %s: %s", path,
				 strerror(errno));
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static const char *default_name(const char *device)
{
	const char *slash = strrchr(device, '/');

	return slash ? slash + 1 : device;
}

static int session_init(struct record_session *s, const struct record_opts *o,
			struct record_result *res, struct iow_error *err)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->res = res;
	if (!o->n_devices)
		return iow_fail(err, "no device to trace");
	s->dir = o->dir ? o->dir : ".";
	s->name = o->name ? o->name : default_name(o->devices[0]);
	s->devs = calloc(o->n_devices, sizeof(*s->devs));
	s->account = calloc(o->n_devices, sizeof(*s->account));
	if (!s->devs || !s->account)
		return iow_fail(err, "out of memory");
	for (i = 0; i < o->n_devices; i++) {
		if (record_device_resolve(&s->devs[i], o->devices[i], err))
			return -1;
		s->account[i].device = s->devs[i].dev;
	}
	return 0;
}

/* What the kernel completed on the devices since the tracer attached,
 * for a watcher: UINT64_MAX where a count is missing. */
static uint64_t kernel_completed(const struct record_session *s)
{
	uint64_t n = 0;
	struct diskstat now;
	size_t i, c;

	for (i = 0; i < s->o->n_devices; i++) {
		const struct rec_account *a = &s->account[i];

		if (!a->have_attached || diskstat_read(a->device, &now))
			return UINT64_MAX;
		for (c = 0; c < N_ACCT; c++)
			if ((a->attached.known & now.known) >> c & 1)
				n += now.ios[c] - a->attached.ios[c];
	}
	return n;
}

/* A tap's tick, with how far the recording got; it may end it. */
static void tick(struct record_session *s)
{
	const struct record_tap *tap = s->o->tap;
	struct record_progress p = { .tracer = s->ops->tracer,
				     .events = s->res->events_written,
				     .lost = s->res->events_lost,
				     .kernel_completed = UINT64_MAX };
	struct recorder_stats st;

	if (!tap || !tap->tick)
		return;
	p.flight_armed = s->o->flight && s->rec;
	if (s->rec)	/* at the stop the account note has the count */
		p.kernel_completed = kernel_completed(s);
	if (s->rec) {	/* still running; else stopped: the final count */
		s->ops->progress(s->rec, &st);
		p.events = st.events;
		p.lost = st.lost;
		p.complete_ns = st.complete_ns;
		p.captures = st.captures;
		p.flight_held_ns = st.flight_held_ns;
		p.flight_held_bytes = st.flight_held_bytes;
	} else {
		p.captures = s->res->flight.captures;
	}
	if (tap->tick(tap->ctx, &p) && !record_stop_signal)
		record_stop_signal = SIGINT;
}

static int pump(struct record_session *s, int timeout_ms,
		struct iow_error *err)
{
	int rc = s->ops->pump(s->rec, timeout_ms, err);

	tick(s);
	return rc;
}

/* Traces until the workload exits or a signal asks us to stop. */
static int wait_until_done(struct record_session *s, struct iow_error *err)
{
	long long until;

	while (!record_stop_signal) {
		if (s->workload_pid > 0 &&
		    child_reaped(s->workload_pid, &s->res->workload_status)) {
			s->workload_pid = 0;
			/* completions still on their way are kept */
			until = clock_now_ms() + LATE_COMPLETION_MS;
			while (clock_now_ms() < until && !record_stop_signal)
				if (pump(s, PUMP_MS / 2, err))
					return -1;
			return 0;
		}
		if (pump(s, PUMP_MS, err))
			return -1;
	}
	return 0;
}

/* Passes the stop signal on and keeps tracing while the workload ends. */
static void end_workload(struct record_session *s, int tracing)
{
	int sig = record_stop_signal ? record_stop_signal : SIGTERM;
	long long deadline = clock_now_ms() + WORKLOAD_STOP_MS;

	if (s->workload_pid <= 0)
		return;
	kill(-s->workload_pid, sig);
	while (clock_now_ms() < deadline) {
		if (child_reaped(s->workload_pid, &s->res->workload_status)) {
			/* what it started goes too, as with ^C at a shell */
			kill(-s->workload_pid, SIGKILL);
			s->workload_pid = 0;
			return;
		}
		if (!tracing || pump(s, PUMP_MS / 2, NULL))
			clock_sleep_ms(PUMP_MS / 2);
	}
	s->res->workload_status = child_stop(s->workload_pid, SIGKILL, 0);
	s->workload_pid = 0;
}

/* The workload's output in a file of its own (it must not draw over a
 * live view), or ours. */
static int spawn_workload(struct record_session *s, struct iow_error *err)
{
	const char *path = s->o->workload_output;
	struct child_spec c;
	int fd, rc;

	child_spec_init(&c, s->o->prog_argv);
	if (!path)
		return spawn_child(&c, &s->workload_pid, err);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return iow_fail(err, "cannot create %s: %s", path,
				strerror(errno));
	c.fd[1] = c.fd[2] = fd;
	c.stdin_null = 1;
	rc = spawn_child(&c, &s->workload_pid, err);
	close(fd);
	return rc;
}

static int run_workload(struct record_session *s, struct iow_error *err)
{
	int rc = 0;

	/* stopped before it began (a Ctrl-C during the set-up): no CPU
	 * panel to draw, no workload to start */
	if (s->o->with_mpstat && !record_stop_signal)
		rc = start_mpstat(s, err);
	if (!rc && s->o->prog_argv && !record_stop_signal) {
		rc = spawn_workload(s, err);
		s->res->workload_started = !rc;
	}
	if (!rc)
		rc = wait_until_done(s, err);
	end_workload(s, !rc);
	if (s->mpstat_pid > 0)
		child_stop(s->mpstat_pid, SIGINT, HELPER_STOP_MS);
	s->mpstat_pid = 0;
	return rc;
}

static double cpu_seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* What this process (the recorder, not its children) used since before. */
static void cpu_used(const struct rusage *before, struct record_result *res)
{
	struct rusage now;

	if (getrusage(RUSAGE_SELF, &now))
		return;
	res->cpu_user_s = cpu_seconds(&now.ru_utime) -
			  cpu_seconds(&before->ru_utime);
	res->cpu_sys_s = cpu_seconds(&now.ru_stime) -
			 cpu_seconds(&before->ru_stime);
}

int record_run(const struct record_opts *o, struct record_result *res,
	       struct iow_error *err)
{
	struct rusage start_usage;
	struct record_session s;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	getrusage(RUSAGE_SELF, &start_usage);
	if (geteuid() != 0)
		return iow_fail(err, "recording needs root: BPF, blktrace and "
				"the kernel's blk tracer are root-only");
	if (session_init(&s, o, res, err))
		goto out;
	/* from here on: a stop signal during the set-up stops the recording
	 * as it begins, and a second one cannot kill the program with the
	 * tracing state half changed or a live view's terminal raw */
	signals_catch(&s);
	if (tracefs_setup(&s.tfs, err))
		goto out;
	s.tfs_ready = 1;
	if (ftrace_check_idle(&s.tfs, s.devs, o->n_devices,
			      &res->reclaimed_pid, err) ||
	    (o->flight ? make_dir(s.dir, err) :
	     prepare_output(s.dir, s.name, err)))
		goto out;
	if (start_tracer(&s, err))
		goto out;
	rc = run_workload(&s, err);
	if (stop_tracer(&s, rc ? NULL : err))
		rc = -1;
	res->stop_signal = record_stop_signal;
	if (!rc)
		tick(&s);	/* with the last records the stop drained */
	cpu_used(&start_usage, res);
out:
	signals_release(&s);
	if (s.tfs_ready)
		tracefs_release(&s.tfs);
	free(s.devs);
	free(s.account);
	return rc;
}
