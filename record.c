/*
 * record.c: record_run(), what the CLI's record mode calls. Checks the
 * devices, starts a tracer (Debian's blktrace, or the ftrace 'blk' tracer
 * of ftrace_rec.c where blktrace cannot start), then mpstat and the
 * workload; waits for the workload or a SIGINT/SIGTERM/SIGHUP; stops it all
 * in order and leaves the kernel's tracing state as it found it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blktrace.h"
#include "child.h"
#include "ftrace_rec.h"
#include "record.h"

#define PUMP_MS			100
#define LATE_COMPLETION_MS	200	/* after the workload, before stop */
#define WORKLOAD_STOP_MS	5000	/* after forwarding the signal */
#define HELPER_STOP_MS		10000	/* blktrace flushing its buffers */
#define BLKTRACE_START_MS	3000
#define BLKTRACE_SETTLE_MS	250
#define TAIL_BUF_SIZE		(128 * 1024)	/* > a record's 48 + 65535 */

extern char **environ;

/*
 * Set by the SIGINT/SIGTERM/SIGHUP handler record_run installs: a
 * handler can only reach a file-level variable, and this is the only one.
 */
static volatile sig_atomic_t record_stop_signal;

struct blktrace_proc {
	pid_t pid;
	int out_fd;			/* its stdout and stderr */
	char out[256];			/* the start of what it said */
	size_t out_len;
};

/* One of blktrace's per-CPU files, read as it grows for a tap. */
struct tail_file {
	int fd;
	int bad;		/* not records: no longer read */
	size_t len;
	unsigned char buf[TAIL_BUF_SIZE];
};

struct record_session {
	const struct record_opts *o;
	struct record_result *res;
	const char *dir, *name;
	struct record_device *devs;
	struct tracefs tfs;
	int tfs_ready;
	const struct record_backend *backend;
	struct ftrace_rec *ftrace;
	struct blktrace_proc blktrace;
	struct tail_file **tails;	/* blktrace's files, with a tap */
	size_t n_tails;
	uint64_t tail_events;
	pid_t mpstat_pid, workload_pid;
	int signals_caught;
	struct sigaction old_int, old_term, old_hup;
};

/* A way of tracing: the session starts one and pumps it until stop. */
struct record_backend {
	enum record_tracer tracer;
	const char *name;
	int (*start)(struct record_session *s, struct iow_error *err);
	int (*pump)(struct record_session *s, int timeout_ms,
		    struct iow_error *err);
	int (*stop)(struct record_session *s, struct iow_error *err);
};

const char *record_tracer_name(enum record_tracer tracer)
{
	switch (tracer) {
	case RECORD_BLKTRACE:
		return "blktrace";
	case RECORD_FTRACE:
		return "ftrace";
	case RECORD_AUTO:
		break;
	}
	return "auto";
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal cuts it short, as it should */
}

/* ---- child processes (child.c) ---- */

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
	if (!envp)
		return iow_fail(err, "out of memory");
	snprintf(path, sizeof(path), "%s/%s.mpstat", s->dir, s->name);
	rc = spawn_child(&c, &s->mpstat_pid, err);
	free(envp);
	return rc;
}

/* ---- blktrace ---- */

/* Keeps the start of what blktrace says, for an error message. */
static void blktrace_collect_output(struct blktrace_proc *b)
{
	char chunk[512];
	ssize_t n;
	size_t room;

	if (b->out_fd < 0)
		return;
	while ((n = read(b->out_fd, chunk, sizeof(chunk))) > 0) {
		room = sizeof(b->out) - 1 - b->out_len;
		if ((size_t)n < room)
			room = (size_t)n;
		memcpy(b->out + b->out_len, chunk, room);
		b->out_len += room;
		b->out[b->out_len] = '\0';
	}
	if (n == 0) {
		/* it closed its output: poll would now never wait */
		close(b->out_fd);
		b->out_fd = -1;
	}
}

static const char *blktrace_first_line(struct blktrace_proc *b)
{
	b->out[strcspn(b->out, "\n")] = '\0';
	return b->out[0] ? b->out : "no message";
}

static int blktrace_spawn(struct record_session *s, struct iow_error *err)
{
	char kb[32];
	char *argv[] = { "blktrace", "-d", (char *)s->o->devices[0],
			 "-o", (char *)s->name, "-D", (char *)s->dir,
			 NULL, NULL, NULL };
	struct child_spec c;
	int fds[2];

	child_spec_init(&c, argv);
	c.stdin_null = 1;
	if (s->o->buffer_kb) {
		snprintf(kb, sizeof(kb), "%zu", s->o->buffer_kb);
		argv[7] = "-b";
		argv[8] = kb;
	}
	if (pipe2(fds, O_CLOEXEC))
		return iow_fail(err, "pipe: %s", strerror(errno));
	c.fd[1] = c.fd[2] = fds[1];
	if (spawn_child(&c, &s->blktrace.pid, err)) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	s->blktrace.out_fd = fds[0];
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	return 0;
}

static int blktrace_has_files(const struct record_session *s)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.blktrace.0", s->dir, s->name);
	return access(path, F_OK) == 0;
}

/*
 * blktrace opens its per-CPU output files once it runs; where the relay
 * files are refused it says so and exits at once, without them.
 */
static int blktrace_wait_running(struct record_session *s,
				 struct iow_error *err)
{
	struct blktrace_proc *b = &s->blktrace;
	long long deadline = now_ms() + BLKTRACE_START_MS;
	int status;

	while (now_ms() < deadline && !blktrace_has_files(s)) {
		blktrace_collect_output(b);
		if (child_reaped(b->pid, &status)) {
			b->pid = 0;
			return iow_fail(err, "blktrace did not start: %s",
					blktrace_first_line(b));
		}
		sleep_ms(20);
	}
	sleep_ms(BLKTRACE_SETTLE_MS);
	blktrace_collect_output(b);
	if (child_reaped(b->pid, &status)) {
		b->pid = 0;
		return iow_fail(err, "blktrace did not start: %s",
				blktrace_first_line(b));
	}
	if (!blktrace_has_files(s))
		return iow_fail(err, "blktrace did not start within %d ms",
				BLKTRACE_START_MS);
	return 0;
}

static void blktrace_release(struct blktrace_proc *b)
{
	if (b->pid > 0)
		child_stop(b->pid, SIGINT, HELPER_STOP_MS);
	if (b->out_fd >= 0)
		close(b->out_fd);
	b->pid = 0;
	b->out_fd = -1;
}

static int blktrace_start(struct record_session *s, struct iow_error *err)
{
	s->blktrace.out_fd = -1;
	if (s->o->n_devices != 1)
		return iow_fail(err, "blktrace writes NAME.blktrace.N for one "
				"device only, not %zu", s->o->n_devices);
	if (blktrace_spawn(s, err))
		return -1;
	if (blktrace_wait_running(s, err)) {
		blktrace_release(&s->blktrace);
		return -1;
	}
	return 0;
}

/* Hands the whole records at the start of t's buffer to the tap. */
static void tail_records(struct record_session *s, struct tail_file *t)
{
	const struct record_tap *tap = s->o->tap;
	struct blk_io_trace rec;
	size_t pos = 0, size;

	while (t->len - pos >= sizeof(rec)) {
		memcpy(&rec, t->buf + pos, sizeof(rec));
		if ((rec.magic & BLK_IO_TRACE_MAGIC_MASK) !=
		    BLK_IO_TRACE_MAGIC) {
			t->bad = 1;
			return;
		}
		size = sizeof(rec) + rec.pdu_len;
		if (t->len - pos < size)
			break;
		tap->record(tap->ctx, &rec, t->buf + pos + sizeof(rec));
		if (!blk_is_note(rec.action))
			s->tail_events++;
		pos += size;
	}
	memmove(t->buf, t->buf + pos, t->len - pos);
	t->len -= pos;
}

static struct tail_file *tail_open(struct record_session *s, unsigned cpu)
{
	struct tail_file **more, *t;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.blktrace.%u", s->dir, s->name,
		 cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	more = realloc(s->tails, (s->n_tails + 1) * sizeof(*more));
	t = calloc(1, sizeof(*t));
	if (more)
		s->tails = more;
	if (!more || !t) {
		free(t);
		close(fd);
		return NULL;
	}
	t->fd = fd;
	s->tails[s->n_tails++] = t;
	return t;
}

/* Reads what blktrace added to its files since the last time. */
static void tail_pump(struct record_session *s)
{
	struct tail_file *t;
	unsigned cpu;
	ssize_t n;

	if (!s->o->tap)
		return;
	for (cpu = 0;; cpu++) {
		t = cpu < s->n_tails ? s->tails[cpu] : tail_open(s, cpu);
		if (!t)
			return;
		while (!t->bad && (n = read(t->fd, t->buf + t->len,
					    sizeof(t->buf) - t->len)) > 0) {
			t->len += (size_t)n;
			tail_records(s, t);
		}
	}
}

static void tail_close(struct record_session *s)
{
	size_t i;

	for (i = 0; i < s->n_tails; i++) {
		close(s->tails[i]->fd);
		free(s->tails[i]);
	}
	free(s->tails);
	s->tails = NULL;
	s->n_tails = 0;
}

static int blktrace_pump(struct record_session *s, int timeout_ms,
			 struct iow_error *err)
{
	struct blktrace_proc *b = &s->blktrace;
	struct pollfd pfd = { .fd = b->out_fd, .events = POLLIN };
	int status;

	if (b->out_fd >= 0)
		poll(&pfd, 1, timeout_ms);
	else
		sleep_ms(timeout_ms);
	blktrace_collect_output(b);
	tail_pump(s);
	if (!record_stop_signal && child_reaped(b->pid, &status)) {
		b->pid = 0;
		return iow_fail(err, "blktrace stopped by itself: %s",
				blktrace_first_line(b));
	}
	return 0;
}

/* Counts I/O records (not notes) in DIR/NAME.blktrace.0, .1, ... */
static int count_events(const struct record_session *s, uint64_t *events,
			struct iow_error *err)
{
	struct blk_io_trace t;
	char path[4096];
	unsigned cpu;
	FILE *f;

	*events = 0;
	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s/%s.blktrace.%u", s->dir,
			 s->name, cpu);
		f = fopen(path, "re");
		if (!f)
			return 0;
		while (fread(&t, sizeof(t), 1, f) == 1) {
			if ((t.magic & BLK_IO_TRACE_MAGIC_MASK) !=
			    BLK_IO_TRACE_MAGIC) {
				fclose(f);
				return iow_fail(err, "%s: bad trace magic "
						"0x%08x", path, t.magic);
			}
			if (!blk_is_note(t.action))
				(*events)++;
			fseek(f, t.pdu_len, SEEK_CUR);
		}
		fclose(f);
	}
}

static int blktrace_stop(struct record_session *s, struct iow_error *err)
{
	blktrace_release(&s->blktrace);
	tail_pump(s);	/* what it wrote as it stopped */
	tail_close(s);
	return count_events(s, &s->res->events_written, err);
}

/* ---- ftrace ---- */

static int ftrace_start(struct record_session *s, struct iow_error *err)
{
	s->ftrace = ftrace_rec_start(&s->tfs, s->devs, s->o->n_devices,
				     s->dir, s->name, s->o->buffer_kb, err);
	if (s->ftrace && s->o->tap)
		ftrace_conv_set_tap(ftrace_rec_conv(s->ftrace),
				    s->o->tap->record, s->o->tap->ctx);
	return s->ftrace ? 0 : -1;
}

static int ftrace_pump(struct record_session *s, int timeout_ms,
		       struct iow_error *err)
{
	return ftrace_rec_pump(s->ftrace, timeout_ms, err);
}

static int ftrace_stop(struct record_session *s, struct iow_error *err)
{
	struct ftrace_conv_stats st = { 0 };
	int rc = ftrace_rec_stop(s->ftrace, &st, err);

	s->ftrace = NULL;
	s->res->events_written = st.events;
	s->res->events_lost = st.lost;
	s->res->bytes_skipped = st.bytes_skipped + st.bytes_truncated;
	return rc;
}

/* RECORD_AUTO tries these in order. */
static const struct record_backend backends[] = {
	{ RECORD_BLKTRACE, "blktrace", blktrace_start, blktrace_pump,
	  blktrace_stop },
	{ RECORD_FTRACE, "ftrace", ftrace_start, ftrace_pump, ftrace_stop },
};
#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

static int start_tracer(struct record_session *s, struct iow_error *err)
{
	enum record_tracer want = s->o->tracer;
	char *why = s->res->fallback_reason;
	size_t i, why_size = sizeof(s->res->fallback_reason);
	struct iow_error e;

	for (i = 0; i < N_BACKENDS; i++) {
		const struct record_backend *b = &backends[i];

		if (want != RECORD_AUTO && want != b->tracer)
			continue;
		if (b->start(s, want == RECORD_AUTO ? &e : err) == 0) {
			s->backend = b;
			s->res->used = b->tracer;
			return 0;
		}
		if (want != RECORD_AUTO)
			return -1;
		snprintf(why + strlen(why), why_size - strlen(why), "%s%s",
			 why[0] ? "; " : "", e.msg);
	}
	if (want == RECORD_AUTO)
		return iow_fail(err, "no tracer could start: %s", why);
	return iow_fail(err, "unknown tracer %d", (int)want);
}

/* ---- the session ---- */

static void on_stop_signal(int sig)
{
	record_stop_signal = sig;
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
	s->signals_caught = 1;
}

static void signals_release(struct record_session *s)
{
	if (!s->signals_caught)
		return;
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	sigaction(SIGHUP, &s->old_hup, NULL);
	s->signals_caught = 0;
}

/*
 * A recording replaces NAME's per-CPU files: one left from a machine with
 * more CPUs would otherwise be read with the new ones. Done only once the
 * devices are known to be traceable.
 */
static int prepare_output(const char *dir, const char *name,
			  struct iow_error *err)
{
	char prefix[512], path[4096];
	size_t len = (size_t)snprintf(prefix, sizeof(prefix), "%s.blktrace.",
				      name);
	struct dirent *de;
	DIR *d;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return iow_fail(err, "cannot create %s: %s", dir,
				strerror(errno));
	d = opendir(dir);
	if (!d)
		return iow_fail(err, "cannot read %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		const char *cpu = de->d_name + len;

		if (strncmp(de->d_name, prefix, len) || !*cpu ||
		    cpu[strspn(cpu, "0123456789")])
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
	s->blktrace.out_fd = -1;
	if (!o->n_devices)
		return iow_fail(err, "no device to trace");
	s->dir = o->dir ? o->dir : ".";
	s->name = o->name ? o->name : default_name(o->devices[0]);
	s->devs = calloc(o->n_devices, sizeof(*s->devs));
	if (!s->devs)
		return iow_fail(err, "out of memory");
	for (i = 0; i < o->n_devices; i++) {
		if (record_device_resolve(&s->devs[i], o->devices[i], err))
			return -1;
	}
	return 0;
}

/* A tap's tick, with how far the recording got; it may end it. */
static void tick(struct record_session *s)
{
	const struct record_tap *tap = s->o->tap;
	struct record_progress p = { s->backend->tracer, s->tail_events,
				     s->res->events_lost };
	struct ftrace_conv_stats st;

	if (!tap || !tap->tick)
		return;
	if (s->res->events_written)	/* stopped: the final count */
		p.events = s->res->events_written;
	if (s->ftrace) {
		ftrace_conv_stats(ftrace_rec_conv(s->ftrace), &st);
		p.events = st.events;
		p.lost = st.lost;
	}
	if (tap->tick(tap->ctx, &p) && !record_stop_signal)
		record_stop_signal = SIGINT;
}

static int pump(struct record_session *s, int timeout_ms,
		struct iow_error *err)
{
	int rc = s->backend->pump(s, timeout_ms, err);

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
			until = now_ms() + LATE_COMPLETION_MS;
			while (now_ms() < until && !record_stop_signal)
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
	long long deadline = now_ms() + WORKLOAD_STOP_MS;

	if (s->workload_pid <= 0)
		return;
	kill(-s->workload_pid, sig);
	while (now_ms() < deadline) {
		if (child_reaped(s->workload_pid, &s->res->workload_status)) {
			/* what it started goes too, as with ^C at a shell */
			kill(-s->workload_pid, SIGKILL);
			s->workload_pid = 0;
			return;
		}
		if (!tracing || pump(s, PUMP_MS / 2, NULL))
			sleep_ms(PUMP_MS / 2);
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

	if (s->o->with_mpstat)
		rc = start_mpstat(s, err);
	if (!rc && s->o->prog_argv && !record_stop_signal)
		rc = spawn_workload(s, err);
	if (!rc)
		rc = wait_until_done(s, err);
	end_workload(s, !rc);
	if (s->mpstat_pid > 0)
		child_stop(s->mpstat_pid, SIGINT, HELPER_STOP_MS);
	s->mpstat_pid = 0;
	return rc;
}

int record_run(const struct record_opts *o, struct record_result *res,
	       struct iow_error *err)
{
	struct record_session s;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (geteuid() != 0)
		return iow_fail(err, "recording needs root: blktrace and the "
				"kernel's blk tracer are root-only");
	if (session_init(&s, o, res, err))
		goto out;
	if (tracefs_setup(&s.tfs, err))
		goto out;
	s.tfs_ready = 1;
	if (ftrace_check_idle(&s.tfs, s.devs, o->n_devices, err) ||
	    prepare_output(s.dir, s.name, err))
		goto out;
	signals_catch(&s);
	if (start_tracer(&s, err))
		goto out;
	rc = run_workload(&s, err);
	if (s.backend->stop(&s, rc ? NULL : err))
		rc = -1;
	res->stop_signal = record_stop_signal;
	if (!rc)
		tick(&s);	/* with the last records the stop drained */
out:
	signals_release(&s);
	if (s.tfs_ready)
		tracefs_release(&s.tfs);
	free(s.devs);
	return rc;
}
