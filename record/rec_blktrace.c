/*
 * rec_blktrace.c: recording with Debian's blktrace, where the kernel's
 * relay files can be opened. blktrace writes NAME.blktrace.<cpu> itself;
 * this runs it, reads its files as they grow for a tap (the live view),
 * counts what it wrote, and turns the events it says it dropped into a
 * loss note (lossnote.h). blktrace tells neither the CPU nor the time of
 * its drops: the note goes in CPU 0's file and spans the recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "reader/blktrace.h"
#include "base/child.h"
#include "reader/lossnote.h"
#include "recorder.h"

#define HELPER_STOP_MS		10000	/* blktrace flushing its buffers */
#define BLKTRACE_START_MS	3000
#define BLKTRACE_SETTLE_MS	250
#define BLKTRACE_BUFFERS	4	/* -n: its default */
#define OUTPUT_KEPT		8192	/* of what blktrace says */
#define TAIL_BUF_SIZE		(128 * 1024)	/* > a record's 48 + 65535 */

/* One of blktrace's per-CPU files, read as it grows for a tap. */
struct tail_file {
	int fd;
	int bad;		/* not records: no longer read */
	size_t len;
	unsigned char buf[TAIL_BUF_SIZE];
};

struct blktrace_rec {
	struct recorder_env env;
	pid_t pid;
	int out_fd;			/* its stdout and stderr */
	char out[OUTPUT_KEPT];		/* the start of what it said */
	size_t out_len;
	struct tail_file **tails;	/* its files, with a tap */
	size_t n_tails;
	uint64_t tail_events;
};

/* Keeps what blktrace says: its first line for an error, its closing
 * "Total: ... (dropped N)" for the loss. */
static void collect_output(struct blktrace_rec *b)
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

static const char *first_line(struct blktrace_rec *b)
{
	static char line[256];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(b->out, "\n"),
		 b->out);
	return line[0] ? line : "no message";
}

static int spawn(struct blktrace_rec *b, struct iow_error *err)
{
	char kb[32], nr[16];
	char *argv[] = { "blktrace", "-d", (char *)b->env.devs[0].node,
			 "-o", (char *)b->env.name, "-D", (char *)b->env.dir,
			 NULL, NULL, NULL, NULL, NULL };
	struct child_spec c;
	int fds[2], rc;

	if (!b->env.devs[0].node[0])
		return iow_fail(err, "blktrace needs a /dev node for %s, and it has none",
				b->env.devs[0].path);
	child_spec_init(&c, argv);
	c.stdin_null = 1;
	if (b->env.buffer_kb) {
		/* the size per CPU, in blktrace's four sub-buffers */
		snprintf(kb, sizeof(kb), "%zu",
			 (b->env.buffer_kb + BLKTRACE_BUFFERS - 1) /
				 BLKTRACE_BUFFERS);
		snprintf(nr, sizeof(nr), "%d", BLKTRACE_BUFFERS);
		argv[7] = "-b";
		argv[8] = kb;
		argv[9] = "-n";
		argv[10] = nr;
	}
	if (pipe2(fds, O_CLOEXEC))
		return iow_fail(err, "pipe: %s", strerror(errno));
	c.fd[1] = c.fd[2] = fds[1];
	rc = child_start(&c, &b->pid);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return iow_fail(err, "cannot run blktrace: %s", strerror(rc));
	}
	b->out_fd = fds[0];
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	return 0;
}

static int has_files(const struct blktrace_rec *b)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.blktrace.0", b->env.dir,
		 b->env.name);
	return access(path, F_OK) == 0;
}

/*
 * blktrace opens its per-CPU output files once it runs; where the relay
 * files are refused it says so and exits at once, without them.
 */
static int wait_running(struct blktrace_rec *b, struct iow_error *err)
{
	long long deadline = clock_now_ms() + BLKTRACE_START_MS;
	int status;

	while (clock_now_ms() < deadline && !has_files(b)) {
		collect_output(b);
		if (child_reaped(b->pid, &status)) {
			b->pid = 0;
			return iow_fail(err, "blktrace did not start: %s",
					first_line(b));
		}
		clock_sleep_ms(20);
	}
	clock_sleep_ms(BLKTRACE_SETTLE_MS);
	collect_output(b);
	if (child_reaped(b->pid, &status)) {
		b->pid = 0;
		return iow_fail(err, "blktrace did not start: %s",
				first_line(b));
	}
	if (!has_files(b))
		return iow_fail(err, "blktrace did not start within %d ms",
				BLKTRACE_START_MS);
	return 0;
}

static void release(struct blktrace_rec *b)
{
	if (b->pid > 0)
		child_stop(b->pid, SIGINT, HELPER_STOP_MS);
	collect_output(b);
	if (b->out_fd >= 0)
		close(b->out_fd);
	b->pid = 0;
	b->out_fd = -1;
}

static void *blktrace_start(const struct recorder_env *env,
			    struct iow_error *err)
{
	struct blktrace_rec *b;

	if (env->n_devs != 1) {
		iow_fail(err, "blktrace writes NAME.blktrace.N for one device "
			 "only, not %zu", env->n_devs);
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	b->env = *env;
	b->out_fd = -1;
	if (spawn(b, err) || wait_running(b, err)) {
		release(b);
		free(b);
		return NULL;
	}
	return b;
}

/* ---- the files as they grow, for a tap ---- */

/* Hands the whole records at the start of t's buffer to the tap. */
static void tail_records(struct blktrace_rec *b, struct tail_file *t)
{
	const struct record_tap *tap = b->env.tap;
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
			b->tail_events++;
		pos += size;
	}
	memmove(t->buf, t->buf + pos, t->len - pos);
	t->len -= pos;
}

static struct tail_file *tail_open(struct blktrace_rec *b, unsigned cpu)
{
	struct tail_file **more, *t;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.blktrace.%u", b->env.dir,
		 b->env.name, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	more = realloc(b->tails, (b->n_tails + 1) * sizeof(*more));
	t = calloc(1, sizeof(*t));
	if (more)
		b->tails = more;
	if (!more || !t) {
		free(t);
		close(fd);
		return NULL;
	}
	t->fd = fd;
	b->tails[b->n_tails++] = t;
	return t;
}

/* Reads what blktrace added to its files since the last time. */
static void tail_pump(struct blktrace_rec *b)
{
	struct tail_file *t;
	unsigned cpu;
	ssize_t n;

	if (!b->env.tap)
		return;
	for (cpu = 0;; cpu++) {
		t = cpu < b->n_tails ? b->tails[cpu] : tail_open(b, cpu);
		if (!t)
			return;
		while (!t->bad && (n = read(t->fd, t->buf + t->len,
					    sizeof(t->buf) - t->len)) > 0) {
			t->len += (size_t)n;
			tail_records(b, t);
		}
	}
}

static void tail_close(struct blktrace_rec *b)
{
	size_t i;

	for (i = 0; i < b->n_tails; i++) {
		close(b->tails[i]->fd);
		free(b->tails[i]);
	}
	free(b->tails);
	b->tails = NULL;
	b->n_tails = 0;
}

static int blktrace_pump(void *state, int timeout_ms, struct iow_error *err)
{
	struct blktrace_rec *b = state;
	struct pollfd pfd = { .fd = b->out_fd, .events = POLLIN };
	int status;

	if (b->out_fd >= 0)
		poll(&pfd, 1, timeout_ms);
	else
		clock_sleep_ms(timeout_ms);
	collect_output(b);
	tail_pump(b);
	if (!*b->env.stopping && child_reaped(b->pid, &status)) {
		b->pid = 0;
		return iow_fail(err, "blktrace stopped by itself: %s",
				first_line(b));
	}
	return 0;
}

static void blktrace_progress(void *state, struct recorder_stats *st)
{
	const struct blktrace_rec *b = state;

	memset(st, 0, sizeof(*st));
	st->events = b->tail_events;
}

/* ---- at the end ---- */

/* Counts I/O records (not notes) in NAME.blktrace.0, .1, ... and finds
 * the trace's last time. */
static int count_events(const struct blktrace_rec *b, struct recorder_stats *st,
			uint64_t *last_ns, struct iow_error *err)
{
	struct blk_io_trace t;
	char path[4096];
	unsigned cpu;
	FILE *f;

	*last_ns = 0;
	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s/%s.blktrace.%u", b->env.dir,
			 b->env.name, cpu);
		f = fopen(path, "re");
		if (!f) {
			st->n_files = cpu;
			return 0;
		}
		while (fread(&t, sizeof(t), 1, f) == 1) {
			if ((t.magic & BLK_IO_TRACE_MAGIC_MASK) !=
			    BLK_IO_TRACE_MAGIC) {
				fclose(f);
				return iow_fail(err, "%s: bad trace magic "
						"0x%08x", path, t.magic);
			}
			if (!blk_is_note(t.action))
				st->events++;
			if (t.time > *last_ns)
				*last_ns = t.time;
			fseek(f, t.pdu_len, SEEK_CUR);
		}
		fclose(f);
	}
}

/* "Total: ... (dropped 12), ..." as blktrace says at its end. */
static uint64_t dropped_count(const struct blktrace_rec *b)
{
	const char *p = strstr(b->out, "(dropped ");

	return p ? strtoull(p + 9, NULL, 10) : 0;
}

/* Appends the loss note of the dropped events to CPU 0's file, at the
 * trace's last time so that the file stays in time order. */
static int write_dropped(const struct blktrace_rec *b, uint64_t dropped,
			 uint64_t last_ns, struct recorder_stats *st,
			 struct iow_error *err)
{
	struct lossnote n = { dropped, 1, 0, 0, last_ns };
	char text[LOSSNOTE_TEXT_MAX], path[4096];
	struct blk_io_trace t;
	uint16_t len = lossnote_format(&n, text);
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s.blktrace.0", b->env.dir,
		 b->env.name);
	f = fopen(path, "ae");
	if (!f)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	lossnote_header(&n, b->env.devs[0].dev, len, &t);
	ok = fwrite(&t, sizeof(t), 1, f) == 1 && fwrite(text, len, 1, f) == 1;
	if (fclose(f) || !ok)
		return iow_fail(err, "cannot write %s: %s", path,
				strerror(errno));
	st->lost = dropped;
	st->loss_windows = 1;
	return 0;
}

static int blktrace_stop(void *state, struct recorder_stats *st,
			 struct iow_error *err)
{
	struct blktrace_rec *b = state;
	uint64_t last_ns, dropped;
	int rc;

	memset(st, 0, sizeof(*st));
	release(b);
	tail_pump(b);	/* what it wrote as it stopped */
	tail_close(b);
	rc = count_events(b, st, &last_ns, err);
	dropped = dropped_count(b);
	if (!rc && dropped)
		rc = write_dropped(b, dropped, last_ns, st, err);
	if (b->env.buffer_kb)
		st->buffer_kb = b->env.buffer_kb;
	free(b);
	return rc;
}

const struct record_ops record_blktrace_ops = {
	.tracer = RECORD_BLKTRACE,
	.name = "blktrace",
	.start = blktrace_start,
	.pump = blktrace_pump,
	.progress = blktrace_progress,
	.stop = blktrace_stop,
};
