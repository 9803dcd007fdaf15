/*
 * tagger.c: runs an external tagger program and sets each event's tag
 * from its answers (the protocol: the man page's "WRITING A TAGGER").
 *
 * One thread, non-blocking pipes: events are encoded into an outgoing
 * buffer and written in batches; answers are read whenever we write and
 * whenever we wait, so neither side can block the other with a full pipe.
 * Events wait in a ring until their answer has been read and the caller
 * has taken them with tagger_next.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/vec.h"
#include "reader/blktrace.h"
#include "base/bytebuf.h"
#include "base/child.h"
#include "tagger.h"

#ifndef IOWATCHER_LIBEXECDIR
#define IOWATCHER_LIBEXECDIR "/usr/local/lib/iowatcher"
#endif

/* Write to the tagger once this much more is waiting (a default pipe). */
#define BATCH_BYTES		(64 * 1024)
/* ... or when this long has passed, so a slow live source still flows. */
#define BATCH_NS		(100 * 1000000LL)
/* Asked of both pipes: fewer wake-ups, about 25% faster with tag-example. */
#define PIPE_BYTES		(1024 * 1024)
/* Room for the largest response: a NEW_TAG with the longest label. */
#define IN_BUF_BYTES		(64 * 1024)
#define FIRST_RING_CAP		1024
/* How long a tagger gets between SIGTERM and SIGKILL. */
#define KILL_GRACE_NS		(300 * 1000000LL)

struct held_event {
	struct io_event ev;
	unsigned char *pdu;
	size_t pdu_cap;
};

struct tagger {
	char *cmd;		/* for messages: as given, on one line */
	pid_t pid;		/* 0 once reaped */
	int status;		/* wait status, once reaped */
	int to_fd;		/* the tagger's stdin; -1 once closed */
	int from_fd;		/* the tagger's stdout; -1 after EOF */
	int64_t timeout_ns;
	unsigned pushes_since_clock;	/* pushes since the clock was read */
	bool finishing;		/* close to_fd once everything is written */
	bool input_lost;	/* EPIPE: the tagger closed its stdin */
	bool failed;
	struct iow_error error;	/* the failure, repeated on every call */

	/* Events not yet taken by tagger_next: answered ones first. */
	struct held_event *ring;
	size_t ring_cap;	/* a power of two */
	size_t head, n_held, n_answered;
	bool pushed_any;
	uint64_t last_index;	/* io_event.index of the last push */

	unsigned char *out;	/* encoded events not yet written */
	size_t out_start, out_len, out_cap;
	size_t out_len_at_io;	/* out_len after the last exchange */
	int64_t last_io_ns;

	unsigned char *in;	/* bytes read, not yet a whole response */
	size_t in_start, in_len;
	uint64_t bytes_read;
	int32_t answer_tag;	/* last TAG_IO of the answer being read */

	struct tag_label *tags;	/* in definition order */
	size_t n_tags, tags_cap;
	uint32_t *tag_slots;	/* open addressing: position + 1, 0 free */
	size_t n_tag_slots;	/* a power of two */

	unsigned char *taken_pdu; /* payload of the event last taken */
	size_t taken_pdu_cap;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static size_t in_flight(const struct tagger *t)
{
	return t->n_held - t->n_answered;
}

/* ---- the child process ---- */

/* Waits up to wait_ns for the tagger to exit; true once it is reaped. */
static bool reap(struct tagger *t, int64_t wait_ns)
{
	if (t->pid > 0 && !child_wait(t->pid, &t->status,
				      (long)(wait_ns / 1000000)))
		return false;
	t->pid = 0;
	return true;
}

static void close_pipes(struct tagger *t)
{
	if (t->to_fd >= 0)
		close(t->to_fd);
	if (t->from_fd >= 0)
		close(t->from_fd);
	t->to_fd = t->from_fd = -1;
}

/* SIGTERM to the tagger's process group, SIGKILL if that is not enough. */
static void stop_child(struct tagger *t)
{
	close_pipes(t);
	if (t->pid <= 0)
		return;
	t->status = child_stop(t->pid, SIGTERM, KILL_GRACE_NS / 1000000);
	t->pid = 0;
}

/* ---- errors ---- */

/* Which event an error is about: the oldest one still unanswered. */
static void describe_position(const struct tagger *t, char *buf, size_t size)
{
	if (in_flight(t)) {
		size_t i = (t->head + t->n_answered) & (t->ring_cap - 1);

		snprintf(buf, size, "event %" PRIu64, t->ring[i].ev.index);
	} else if (t->pushed_any) {
		snprintf(buf, size, "after event %" PRIu64, t->last_index);
	} else {
		snprintf(buf, size, "before the first event");
	}
}

/*
 * Records the failure as one line, kills and reaps the tagger; every call
 * after this returns the same error. Returns -1.
 */
static int tagger_fail(struct tagger *t, struct iow_error *err,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int tagger_fail(struct tagger *t, struct iow_error *err,
		       const char *fmt, ...)
{
	char what[320], where[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	describe_position(t, where, sizeof(where));
	iow_fail(&t->error, "tagger '%.160s': %s: %s", t->cmd, where, what);
	stop_child(t);
	t->failed = true;
	if (err)
		*err = t->error;
	return -1;
}

static int repeat_failure(const struct tagger *t, struct iow_error *err)
{
	if (err)
		*err = t->error;
	return -1;
}

/* Its stdout ended (or its stdin broke) with events still unanswered. */
static int fail_exited_early(struct tagger *t, struct iow_error *err)
{
	char status[96];

	if (!reap(t, t->timeout_ns))
		return tagger_fail(t, err, "closed its output without "
				   "answering");
	child_describe(t->status, status, sizeof(status));
	return tagger_fail(t, err, "exited before answering (%s)", status);
}

/* ---- tags ---- */

static size_t tag_slot_of(int32_t id, size_t n_slots)
{
	return ((uint32_t)id * 0x9e3779b1u) & (n_slots - 1);
}

/* Position of tag id in t->tags, or -1. */
static ssize_t find_tag(const struct tagger *t, int32_t id)
{
	size_t mask = t->n_tag_slots - 1, i;

	if (!t->n_tag_slots || id < 0)
		return -1;
	for (i = tag_slot_of(id, t->n_tag_slots); t->tag_slots[i];
	     i = (i + 1) & mask) {
		size_t pos = t->tag_slots[i] - 1;

		if (t->tags[pos].id == id)
			return (ssize_t)pos;
	}
	return -1;
}

static void index_tag(struct tagger *t, size_t pos)
{
	size_t mask = t->n_tag_slots - 1;
	size_t i = tag_slot_of(t->tags[pos].id, t->n_tag_slots);

	while (t->tag_slots[i])
		i = (i + 1) & mask;
	t->tag_slots[i] = (uint32_t)pos + 1;
}

/* Keeps the index at most half full. */
static int grow_tag_index(struct tagger *t)
{
	size_t n = t->n_tag_slots ? t->n_tag_slots * 2 : 64, pos;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	free(t->tag_slots);
	t->tag_slots = slots;
	t->n_tag_slots = n;
	for (pos = 0; pos < t->n_tags; pos++)
		index_tag(t, pos);
	return 0;
}

static int add_tag(struct tagger *t, int32_t id, char *label)
{
	if (t->n_tags == t->tags_cap) {
		struct tag_label *tags = vec_grow(t->tags, &t->tags_cap,
						  t->n_tags + 1, sizeof(*tags),
						  16);

		if (!tags)
			return -1;
		t->tags = tags;
	}
	if ((t->n_tags + 1) * 2 > t->n_tag_slots && grow_tag_index(t))
		return -1;
	t->tags[t->n_tags] = (struct tag_label){ id, label };
	index_tag(t, t->n_tags++);
	return 0;
}

/* NEW_TAG: a tag defined again gets the new label. */
static int define_tag(struct tagger *t, uint32_t id, const unsigned char *p,
		      uint32_t len, struct iow_error *err)
{
	ssize_t pos;
	char *label;

	if (id > INT32_MAX)
		return tagger_fail(t, err, "NEW_TAG with tag %" PRIu32
				   " (tags are 0 to %d)", id, INT32_MAX);
	if (len == 0 || p[len - 1] != '\0')
		return tagger_fail(t, err, "NEW_TAG %" PRIu32 ": label of %"
				   PRIu32 " bytes without its NUL", id, len);
	label = strdup((const char *)p);
	if (!label)
		return tagger_fail(t, err, "out of memory");
	pos = find_tag(t, (int32_t)id);
	if (pos >= 0) {
		free(t->tags[pos].label);
		t->tags[pos].label = label;
		return 0;
	}
	if (add_tag(t, (int32_t)id, label)) {
		free(label);
		return tagger_fail(t, err, "out of memory");
	}
	return 0;
}

/* ---- answers ---- */

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int answer_tag_io(struct tagger *t, uint32_t id, struct iow_error *err)
{
	if (id > INT32_MAX || find_tag(t, (int32_t)id) < 0)
		return tagger_fail(t, err, "TAG_IO names tag %" PRIu32
				   ", never defined by NEW_TAG", id);
	t->answer_tag = (int32_t)id;
	return 0;
}

static int answer_end(struct tagger *t, struct iow_error *err)
{
	size_t i;

	if (!in_flight(t))
		return tagger_fail(t, err, "END with no event waiting for "
				   "an answer");
	i = (t->head + t->n_answered) & (t->ring_cap - 1);
	t->ring[i].ev.tag = t->answer_tag;
	t->answer_tag = IO_EVENT_NO_TAG;
	t->n_answered++;
	return 0;
}

/*
 * One whole response at p (avail bytes): its size, 0 if it is not all
 * there yet, -1 on error.
 */
static ssize_t take_response(struct tagger *t, const unsigned char *p,
			     size_t avail, struct iow_error *err)
{
	uint32_t type = get_u32(p), len;

	switch (type) {
	case TAG_RESP_END:
		return answer_end(t, err) ? -1 : 4;
	case TAG_RESP_TAG_IO:
		if (avail < 8)
			return 0;
		return answer_tag_io(t, get_u32(p + 4), err) ? -1 : 8;
	case TAG_RESP_NEW_TAG:
		if (avail < 12)
			return 0;
		len = get_u32(p + 8);
		if (len > TAGGER_MAX_LABEL)
			return tagger_fail(t, err, "NEW_TAG %" PRIu32
					   ": label of %" PRIu32 " bytes (at "
					   "most %d)", get_u32(p + 4), len,
					   TAGGER_MAX_LABEL);
		if (avail < 12 + (size_t)len)
			return 0;
		if (define_tag(t, get_u32(p + 4), p + 12, len, err))
			return -1;
		return 12 + (ssize_t)len;
	}
	return tagger_fail(t, err, "unknown response type %" PRIu32
			   " (0x%08" PRIx32 ")", type, type);
}

static int take_responses(struct tagger *t, struct iow_error *err)
{
	while (t->in_len >= 4) {
		ssize_t used = take_response(t, t->in + t->in_start,
					     t->in_len, err);

		if (used < 0)
			return -1;
		if (used == 0)
			break;
		t->in_start += (size_t)used;
		t->in_len -= (size_t)used;
	}
	return 0;
}

/* ---- pipe I/O ---- */

static int read_answers(struct tagger *t, struct iow_error *err)
{
	while (t->from_fd >= 0) {
		ssize_t n;

		if (t->in_start) {
			memmove(t->in, t->in + t->in_start, t->in_len);
			t->in_start = 0;
		}
		n = read(t->from_fd, t->in + t->in_len,
			 IN_BUF_BYTES - t->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return tagger_fail(t, err, "reading its answers: %s",
					   strerror(errno));
		if (n == 0) {
			close(t->from_fd);
			t->from_fd = -1;
			return 0;
		}
		t->in_len += (size_t)n;
		t->bytes_read += (uint64_t)n;
		if (take_responses(t, err))
			return -1;
	}
	return 0;
}

static int write_events(struct tagger *t, struct iow_error *err)
{
	while (t->to_fd >= 0 && t->out_len) {
		ssize_t n = write(t->to_fd, t->out + t->out_start, t->out_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0 && errno == EPIPE) {
			/* It closed its stdin: wait for its exit. */
			close(t->to_fd);
			t->to_fd = -1;
			t->out_len = 0;
			t->input_lost = true;
			return 0;
		}
		if (n < 0)
			return tagger_fail(t, err, "writing events: %s",
					   strerror(errno));
		t->out_start += (size_t)n;
		t->out_len -= (size_t)n;
	}
	if (!t->out_len)
		t->out_start = 0;
	if (t->finishing && !t->out_len && t->to_fd >= 0) {
		close(t->to_fd);
		t->to_fd = -1;
	}
	return 0;
}

/* Writes and reads what the pipes take without waiting. */
static int exchange(struct tagger *t, struct iow_error *err)
{
	t->last_io_ns = now_ns();
	if (write_events(t, err) || read_answers(t, err))
		return -1;
	t->out_len_at_io = t->out_len;
	if (t->from_fd < 0 && in_flight(t))
		return fail_exited_early(t, err);
	return 0;
}

/* iow_interrupted may be set by another thread: looked at this often. */
#define INTERRUPT_POLL_MS	100

static void wait_for_pipes(const struct tagger *t, int64_t wait_ns)
{
	struct pollfd fds[2];
	nfds_t n = 0;
	int ms = (int)((wait_ns + 999999) / 1000000);

	if (ms > INTERRUPT_POLL_MS)
		ms = INTERRUPT_POLL_MS;
	if (t->to_fd >= 0 && t->out_len)
		fds[n++] = (struct pollfd){ .fd = t->to_fd, .events = POLLOUT };
	if (t->from_fd >= 0)
		fds[n++] = (struct pollfd){ .fd = t->from_fd, .events = POLLIN };
	if (n)
		poll(fds, n, ms > 0 ? ms : 1);
}

static bool window_open(const struct tagger *t)
{
	return in_flight(t) < TAGGER_WINDOW;
}

static bool output_ended(const struct tagger *t)
{
	return t->from_fd < 0;
}

/*
 * Exchanges with the tagger until done(t); an error if no answer comes
 * for the timeout.
 */
static int wait_until(struct tagger *t, bool (*done)(const struct tagger *),
		      struct iow_error *err)
{
	int64_t since = now_ns();

	for (;;) {
		uint64_t seen = t->bytes_read;
		int64_t now;

		if (iow_interrupted)
			return tagger_fail(t, err, "interrupted");
		if (exchange(t, err))
			return -1;
		if (done(t))
			return 0;
		now = now_ns();
		if (t->bytes_read != seen)
			since = now;
		else if (now - since >= t->timeout_ns)
			break;
		wait_for_pipes(t, since + t->timeout_ns - now);
	}
	if (in_flight(t))
		return tagger_fail(t, err, "no answer for %g s",
				   t->timeout_ns / 1e9);
	return tagger_fail(t, err, "still running %g s after the end of its "
			   "input", t->timeout_ns / 1e9);
}

/* ---- events in ---- */

static int grow_ring(struct tagger *t)
{
	size_t cap = t->ring_cap ? t->ring_cap * 2 : FIRST_RING_CAP, i;
	struct held_event *ring = calloc(cap, sizeof(*ring));

	if (!ring)
		return -1;
	/* Only called when full: every old slot is held, in order. */
	for (i = 0; i < t->n_held; i++)
		ring[i] = t->ring[(t->head + i) & (t->ring_cap - 1)];
	free(t->ring);
	t->ring = ring;
	t->ring_cap = cap;
	t->head = 0;
	return 0;
}

static int hold_event(struct tagger *t, const struct io_event *ev)
{
	struct held_event *h;

	if (t->n_held == t->ring_cap && grow_ring(t))
		return -1;
	h = &t->ring[(t->head + t->n_held) & (t->ring_cap - 1)];
	if (ev->pdu_len > h->pdu_cap) {
		unsigned char *pdu = realloc(h->pdu, ev->pdu_len);

		if (!pdu)
			return -1;
		h->pdu = pdu;
		h->pdu_cap = ev->pdu_len;
	}
	h->ev = *ev;
	h->ev.tag = IO_EVENT_NO_TAG;
	if (ev->pdu_len)
		memcpy(h->pdu, ev->pdu, ev->pdu_len);
	t->n_held++;
	return 0;
}

static int reserve_out(struct tagger *t, size_t need)
{
	if (t->out_start && t->out_start + t->out_len + need > t->out_cap) {
		memmove(t->out, t->out + t->out_start, t->out_len);
		t->out_start = 0;
	}
	/* (compacted: the bytes in use start at 0 when it has to grow) */
	return bytebuf_grow(&t->out, &t->out_cap, t->out_start + t->out_len,
			    need);
}

_Static_assert(sizeof(struct blk_io_trace) == BLK_IO_TRACE7_SIZE,
	       "struct blk_io_trace is the 48-byte version 7 record");

/* A version 7 record in native byte order, then the payload. */
static int encode_event(struct tagger *t, const struct io_event *ev)
{
	struct blk_io_trace rec = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
		.sequence = ev->sequence,
		.time = ev->time_ns,
		.sector = ev->sector,
		.bytes = ev->bytes,
		.action = ev->action,
		.pid = ev->pid,
		.device = ev->device,
		.cpu = ev->cpu,
		.error = ev->error,
		.pdu_len = ev->pdu_len,
	};
	unsigned char *p;

	if (reserve_out(t, sizeof(rec) + ev->pdu_len))
		return -1;
	p = t->out + t->out_start + t->out_len;
	memcpy(p, &rec, sizeof(rec));
	if (ev->pdu_len)
		memcpy(p + sizeof(rec), ev->pdu, ev->pdu_len);
	t->out_len += sizeof(rec) + ev->pdu_len;
	return 0;
}

int tagger_push(struct tagger *t, const struct io_event *ev,
		struct iow_error *err)
{
	if (t->failed)
		return repeat_failure(t, err);
	if (t->finishing)
		return iow_fail(err, "tagger '%.160s': event pushed after "
				"tagger_finish", t->cmd);
	if (hold_event(t, ev) || encode_event(t, ev))
		return tagger_fail(t, err, "out of memory");
	t->pushed_any = true;
	t->last_index = ev->index;
	/*
	 * Exchange per batch of new events, not per event when it lags. The
	 * clock is read every 64 pushes only: a syscall-priced vDSO call per
	 * event was a tenth of a tagged run.
	 */
	if (t->out_len >= t->out_len_at_io + BATCH_BYTES || !window_open(t) ||
	    ((++t->pushes_since_clock & 63) == 0 &&
	     now_ns() - t->last_io_ns >= BATCH_NS) || t->input_lost) {
		if (exchange(t, err))
			return -1;
	}
	if (t->input_lost)
		return wait_until(t, output_ended, err);
	if (!window_open(t))
		return wait_until(t, window_open, err);
	return 0;
}

/* ---- events out ---- */

int tagger_next(struct tagger *t, struct io_event *out, struct iow_error *err)
{
	struct held_event *h;
	unsigned char *pdu;
	size_t cap;

	if (t->failed)
		return repeat_failure(t, err);
	if (!t->n_answered)
		return 0;
	h = &t->ring[t->head];
	/* The payload moves out of the ring so the next push can't clobber it. */
	pdu = h->pdu;
	cap = h->pdu_cap;
	h->pdu = t->taken_pdu;
	h->pdu_cap = t->taken_pdu_cap;
	t->taken_pdu = pdu;
	t->taken_pdu_cap = cap;
	*out = h->ev;
	out->pdu = h->ev.pdu_len ? pdu : NULL;
	t->head = (t->head + 1) & (t->ring_cap - 1);
	t->n_held--;
	t->n_answered--;
	return 1;
}

int tagger_finish(struct tagger *t, struct iow_error *err)
{
	char status[96];

	if (t->failed)
		return repeat_failure(t, err);
	t->finishing = true;
	if (wait_until(t, output_ended, err))
		return -1;
	if (t->answer_tag != IO_EVENT_NO_TAG)
		return tagger_fail(t, err, "TAG_IO without its END");
	if (t->in_len)
		return tagger_fail(t, err, "%zu bytes of an incomplete "
				   "response at the end", t->in_len);
	if (!reap(t, t->timeout_ns))
		return tagger_fail(t, err, "closed its output but did not "
				   "exit for %g s", t->timeout_ns / 1e9);
	if (t->status != 0) {
		child_describe(t->status, status, sizeof(status));
		return tagger_fail(t, err, "exited with %s", status);
	}
	return 0;
}

/* ---- tags out ---- */

const char *tagger_label(const struct tagger *t, int32_t tag)
{
	ssize_t pos = find_tag(t, tag);

	return pos < 0 ? NULL : t->tags[pos].label;
}

size_t tagger_n_tags(const struct tagger *t)
{
	return t->n_tags;
}

const struct tag_label *tagger_tag_at(const struct tagger *t, size_t i)
{
	return i < t->n_tags ? &t->tags[i] : NULL;
}

/* ---- finding the program ---- */

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* s in single quotes, as the shell reads it back; malloc'd. */
static char *shell_quote(const char *s, size_t len)
{
	char *q = malloc(len * 4 + 3), *p = q;
	size_t i;

	if (!q)
		return NULL;
	*p++ = '\'';
	for (i = 0; i < len; i++) {
		if (s[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = s[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/* path of the first dir holding an executable file named word, or NULL. */
static char *find_in_dirs(const char *word, size_t len,
			  const char *const *dirs)
{
	for (; dirs && *dirs; dirs++) {
		char *path;

		if (asprintf(&path, "%s/%.*s", *dirs, (int)len, word) < 0)
			return NULL;
		if (is_executable_file(path))
			return path;
		free(path);
	}
	return NULL;
}

static int is_shell_word(const char *word, size_t len)
{
	static const char *const words[] = {
		"exec", "eval", "cd", ".", ":", "set", "export", "exit",
		"read", "printf", "echo", "test", "true", "false", "if", "for",
		"while", "until", "case", "time", "command", "trap", "wait",
		"ulimit", "umask", "unset", "shift", "return", "kill", NULL,
	};
	size_t i;

	for (i = 0; words[i]; i++)
		if (strlen(words[i]) == len && !strncmp(words[i], word, len))
			return 1;
	return 0;
}

/* Whether an executable named word is in a directory of $PATH. */
static int on_path(const char *word, size_t len)
{
	const char *p = getenv("PATH");
	char file[PATH_MAX];

	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t dlen = strcspn(p, ":");

		if (snprintf(file, sizeof(file), "%.*s/%.*s",
			     dlen ? (int)dlen : 1, dlen ? p : ".", (int)len,
			     word) < (int)sizeof(file) &&
		    is_executable_file(file))
			return 1;
		p += dlen;
		if (*p == ':')
			p++;
	}
	return 0;
}

char *tagger_resolve(const char *cmd, const char *const *dirs,
		     struct iow_error *err)
{
	/* A first word with any of these is the shell's business. */
	static const char shell_chars[] = "'\"\\$`;&|<>(){}[]*?~=#!";
	const char *word = cmd + strspn(cmd, " \t\n");
	size_t len = strcspn(word, " \t\n"), i;
	char *path, *quoted, *resolved;

	for (i = 0; i < len; i++)
		if (strchr(shell_chars, word[i]))
			return strdup(cmd);
	if (len == 0)
		return strdup(cmd);
	if (memchr(word, '/', len)) {
		char *file = strndup(word, len);
		int ok = file && is_executable_file(file);

		free(file);
		if (!ok) {
			iow_fail(err, "tagger '%.*s': not an executable "
				 "file", (int)len, word);
			return NULL;
		}
		return strdup(cmd);
	}
	path = find_in_dirs(word, len, dirs);
	if (!path) {
		/* Say "not found" ourselves: the shell's own line would
		 * make two. Builtins and keywords are the shell's. The
		 * original iowatcher's -T was the title: say where it is. */
		if (!is_shell_word(word, len) && !on_path(word, len)) {
			iow_fail(err, "tagger '%.*s': command not found "
				 "(not a shipped tagger, not on PATH; "
				 "the title is --title)",
				 (int)len, word);
			return NULL;
		}
		return strdup(cmd);
	}
	quoted = shell_quote(path, strlen(path));
	free(path);
	if (!quoted || asprintf(&resolved, "%s%s", quoted, word + len) < 0)
		resolved = NULL;
	free(quoted);
	return resolved;
}

/* scripts/ beside the running program, for a build tree; NULL if unknown. */
/*
 * A directory relative to the running program: "scripts" beside it (a
 * build tree) or "../lib/iowatcher" (an installation, wherever PREFIX and
 * DESTDIR put it). NULL if unknown.
 */
static char *beside_program(const char *rel)
{
	char exe[PATH_MAX], *slash, *dir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (asprintf(&dir, "%s/%s", exe, rel) < 0)
		return NULL;
	return dir;
}

/* ---- starting ---- */

static int spawn_tagger(struct tagger *t, const char *resolved,
			struct iow_error *err)
{
	int to_child[2] = { -1, -1 }, from_child[2] = { -1, -1 };
	char *argv[] = { "sh", "-c", (char *)resolved, NULL };
	struct child_spec c;
	int rc;

	if (pipe2(to_child, O_CLOEXEC) || pipe2(from_child, O_CLOEXEC)) {
		rc = errno;
		goto out_pipes;
	}
	child_spec_init(&c, argv);
	c.path = "/bin/sh";
	c.fd[0] = to_child[0];
	c.fd[1] = from_child[1];
	rc = child_start(&c, &t->pid);
	if (rc)
		goto out_pipes;
	close(to_child[0]);
	close(from_child[1]);
	t->to_fd = to_child[1];
	t->from_fd = from_child[0];
	/* Best effort: the limit is /proc/sys/fs/pipe-max-size. */
	fcntl(t->to_fd, F_SETPIPE_SZ, PIPE_BYTES);
	fcntl(t->from_fd, F_SETPIPE_SZ, PIPE_BYTES);
	fcntl(t->to_fd, F_SETFL, O_NONBLOCK);
	fcntl(t->from_fd, F_SETFL, O_NONBLOCK);
	return 0;

out_pipes:
	for (int i = 0; i < 2; i++) {
		if (to_child[i] >= 0)
			close(to_child[i]);
		if (from_child[i] >= 0)
			close(from_child[i]);
	}
	return iow_fail(err, "tagger '%.160s': cannot start /bin/sh: %s",
			t->cmd, strerror(rc));
}

/* cmd with control characters as spaces, so that messages stay one line. */
static char *printable_copy(const char *cmd)
{
	char *copy = strdup(cmd), *p;

	for (p = copy; p && *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	return copy;
}

/*
 * A command of plain words is exec'd by the shell: the tagger is then the
 * process we started, so that its death by a signal is reported as such
 * and no shell adds a "Killed" line of its own. Lists, pipelines, groups,
 * assignments and builtins stay the shell's. cmd is used up; NULL when
 * out of memory.
 */
static char *exec_if_plain(char *cmd)
{
	const char *word = cmd + strspn(cmd, " \t");
	size_t len = strcspn(word, " \t");
	char *plain;

	if (!len || strpbrk(cmd, ";&|\n(){}") ||
	    (word[0] != '\'' && (memchr(word, '=', len) || word[0] == '!' ||
				 is_shell_word(word, len))))
		return cmd;
	if (asprintf(&plain, "exec %s", cmd) < 0)
		plain = NULL;
	free(cmd);
	return plain;
}

static char *resolve_shipped(const char *cmd, struct iow_error *err)
{
	char *own = beside_program("scripts");
	char *installed = beside_program("../lib/iowatcher");
	const char *dirs[] = { own ? own : IOWATCHER_LIBEXECDIR,
			       installed ? installed : IOWATCHER_LIBEXECDIR,
			       IOWATCHER_LIBEXECDIR, NULL };
	char *resolved = tagger_resolve(cmd, dirs, err);

	free(own);
	free(installed);
	if (resolved && !(resolved = exec_if_plain(resolved)))
		iow_fail(err, "tagger '%.160s': out of memory", cmd);
	return resolved;
}

struct tagger *tagger_start(const char *cmd, double timeout_s,
			    struct iow_error *err)
{
	struct tagger *t = calloc(1, sizeof(*t));
	char *resolved = NULL;

	if (!t)
		goto out_nomem;
	t->to_fd = t->from_fd = -1;
	t->answer_tag = IO_EVENT_NO_TAG;
	t->timeout_ns = (int64_t)((timeout_s > 0 ? timeout_s :
				   TAGGER_DEFAULT_TIMEOUT_S) * 1e9);
	t->cmd = printable_copy(cmd);
	t->in = malloc(IN_BUF_BYTES);
	if (!t->cmd || !t->in || grow_ring(t))
		goto out_nomem;
	resolved = resolve_shipped(cmd, err);
	if (!resolved)
		goto out_free;
	signal(SIGPIPE, SIG_IGN);
	if (spawn_tagger(t, resolved, err))
		goto out_free;
	free(resolved);
	t->last_io_ns = now_ns();
	return t;

out_nomem:
	iow_fail(err, "tagger '%.160s': out of memory", cmd);
out_free:
	free(resolved);
	tagger_free(t);
	return NULL;
}

void tagger_free(struct tagger *t)
{
	size_t i;

	if (!t)
		return;
	stop_child(t);
	for (i = 0; i < t->ring_cap; i++)
		free(t->ring[i].pdu);
	free(t->ring);
	for (i = 0; i < t->n_tags; i++)
		free(t->tags[i].label);
	free(t->tags);
	free(t->tag_slots);
	free(t->out);
	free(t->in);
	free(t->taken_pdu);
	free(t->cmd);
	free(t);
}
