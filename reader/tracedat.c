/*
 * tracedat.c: trace-cmd's trace.dat as blktrace records (a
 * blocktp_input: blocktp.h).
 * The file's sizes are checked against its length first
 * (tracedat_check.c); then the file trace-cmd record writes is read in
 * this process (tracedat_own.c), and any other by libtracecmd, in a
 * child process of its own (the fence, below), which hands the file's
 * events in time order across its buffers and CPUs
 * (tracecmd_iterate_events_multi) back over a pipe; both give the same
 * messages (tracedat_wire.h). Each block event's fields are read here
 * by name from the format the file itself holds, so a kernel that moves
 * them is read alike, and become the records of blocktp.c.
 *
 * Trace-cmd's recording (trace.dat, its versions 6 and 7,
 * sections compressed or not), read through libtracecmd as a trace: each
 * block tracepoint's event becomes the blktrace records blocktp.c makes
 * of it, with a loss note where the kernel said events were lost before
 * a page (libtracecmd's missed_events), so the reader reads them as it
 * reads a blkparse -d dump. Every buffer of the file is read, merged by
 * time. libtracecmd reads a file by offsets, so a trace.dat given
 * compressed by gzip, xz or zstd, or on standard input, is first copied
 * to an unlinked temporary file in $TMPDIR (or /tmp).
 *
 * libtracecmd is never loaded here: it runs in iowatcher-tracedat
 * (tracedat_helper.c), a program of its own. Built without it (make
 * TRACECMD=0, or without libtracecmd-dev), or where the helper is missing
 * or cannot load it, the common file is read all the same, and opening
 * another says why it was not read here and what to do instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blocktp.h"
#include "tracedat_check.h"

struct tracedat;
static void tracedat_free(struct tracedat *t);


/* Whether p[0, len), the data's start, is a trace.dat's. */
static int tracedat_looks(const unsigned char *p, size_t len)
{
	return len >= TRACEDAT_MAGIC_LEN &&
	       !memcmp(p, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN);
}

#ifdef HAVE_TRACECMD
#include <pthread.h>
#include <spawn.h>
#endif

#include "base/child.h"
#include "reader/tracedat_own.h"
#include "reader/tracedat_wire.h"

#ifndef IOWATCHER_LIBEXECDIR
#define IOWATCHER_LIBEXECDIR "/usr/local/lib/iowatcher"
#endif

/*
 * libtracecmd (and libtraceevent and libtracefs under it) runs in a
 * program of its own, iowatcher-tracedat (tracedat_helper.c, linked with
 * them): this process never loads them. It is found as the taggers are:
 * beside the program (the build), in the build's top directory for its
 * tests and fuzzers (one down), in ../lib/iowatcher beside the program
 * (installed, wherever it was moved), then in the libexec directory it
 * was built for. Looked up once for the process.
 */
static struct {
	char *path;		/* NULL: none found */
	char why[300];
} helper;

#ifdef HAVE_TRACECMD
static void helper_find(void)
{
	char exe[4096], *slash, *cand = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *rel[] = { "", "../", "../lib/iowatcher/" };
	size_t i;

	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')))
			slash[1] = '\0';
		for (i = 0; slash && i < sizeof(rel) / sizeof(rel[0]); i++) {
			if (asprintf(&cand, "%s%s%s", exe, rel[i],
				     TRACEDAT_HELPER) < 0)
				break;
			if (!access(cand, X_OK)) {
				helper.path = cand;
				return;
			}
			free(cand);
		}
	}
	if (asprintf(&cand, "%s/%s", IOWATCHER_LIBEXECDIR,
		     TRACEDAT_HELPER) >= 0 && !access(cand, X_OK)) {
		helper.path = cand;
		return;
	}
	free(cand);
	snprintf(helper.why, sizeof(helper.why),
		 "not beside the program (%.*s) nor in %s", (int)(n > 0 ? n : 1),
		 n > 0 ? exe : "?", IOWATCHER_LIBEXECDIR);
}

static int helper_ready(const char *path, struct iow_error *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, helper_find);
	if (helper.path)
		return 0;
	return iow_fail(err, "%s: a trace-cmd recording (trace.dat), and libtracecmd's reader %s is missing (%s): build it (make) or install it (make install), or give the text of its block events as perf script prints them (perf record -e 'block:*')",
			path, TRACEDAT_HELPER, helper.why);
}
#endif

#define COPY_CHUNK	(256 * 1024)
#define RWBS_MAX	16	/* the kernel's RWBS_LEN is 10 */

/* ---- opening ---- */

/*
 * libtracecmd reads by offset: a file read as it is is opened again by
 * its name; decompressed data or standard input is copied, first bytes
 * and all, to an unlinked file in $TMPDIR. The descriptor, or -1.
 */
static int seekable_copy(struct byte_source *src, const unsigned char *first,
			 size_t n, const char *path, struct iow_error *err)
{
	const char *dir = getenv("TMPDIR");
	unsigned char *chunk = NULL;
	char name[4096];
	ssize_t got = (ssize_t)n;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(name, sizeof(name), "%s/iowatcher-trace.dat.XXXXXX",
			 dir);
		fd = mkostemp(name, O_CLOEXEC);
		if (fd >= 0)
			unlink(name);
	}
	if (fd < 0 || !(chunk = malloc(COPY_CHUNK)))
		goto fail;
	for (;;) {
		const unsigned char *p = first;

		while (got > 0) {
			ssize_t w = write(fd, p, (size_t)got);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				goto fail;
			p += w;
			got -= w;
		}
		got = bytesrc_read(src, chunk, COPY_CHUNK, err);
		if (got < 0)
			goto out_err;
		if (got == 0)
			break;
		first = chunk;
	}
	free(chunk);
	if (lseek(fd, 0, SEEK_SET) < 0)
		goto fail;
	return fd;
fail:
	iow_fail(err, "%s: cannot copy the trace.dat to a temporary file in %s (a trace.dat is read by offsets): %s; set TMPDIR to a directory with room, or give the file uncompressed",
		 path, dir, strerror(errno ? errno : ENOSPC));
out_err:
	free(chunk);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* ---- the fence: libtracecmd in a process of its own ---- */

/*
 * libtracecmd and libtraceevent parse the file's own description of its
 * events, and a damaged one crashes them (a NULL strcmp, a heap
 * overflow, a terabyte's allocation). So they run in a child process,
 * iowatcher-tracedat (tracedat_helper.c), started by posix_spawn (no
 * page of ours copied), under a memory limit it sets itself (RLIMIT_AS:
 * what it has at its start and FENCE_MEM_BASE plus FENCE_MEM_PER_BYTE x
 * the file's size more) and a time limit kept here (FENCE_QUIET_S
 * without a byte from it, or $IOWATCHER_TRACEDAT_TIMEOUT seconds): its
 * stdin, stdout and stderr are /dev/null (the library's own lines are not
 * ours), and it writes the events back over a pipe in the compact form of
 * tracedat_wire.h. Every field is read from those bytes here, checked
 * against the record's size: the child runs nothing of ours but the
 * writing. A child that dies before its last message is one line,
 * "libtracecmd crashed reading ...", and a child that stops answering is
 * killed and said to.
 */
#define FENCE_QUIET_S		60
/* the pipe's bytes are read into FENCE_IN_FIRST bytes for the first
 * FENCE_IN_SMALL (as the helper writes them: a small trace's pages are
 * few), then into FENCE_IN_BUF (a large trace's reads are few), or more
 * for a longer message */
#define FENCE_IN_FIRST		(64 * 1024)
#define FENCE_IN_SMALL		(1024 * 1024)
#define FENCE_IN_BUF		(256 * 1024)

/* A kind of event as the child described it. */
struct event_kind {
	char *name;
	int is_block, checked;
	const struct blocktp_event *be;	/* NULL: not a block event */
	struct wire_field f[N_FIELDS];
};

/* One record, as it came. */
struct fenced_rec {
	struct wire_rec w;
	const unsigned char *data;
};

struct tracedat {
	const char *path;
	pid_t pid;		/* the child, 0 once reaped */
	int fd;			/* its pipe */
	int swap;		/* the file's numbers are the other endian */
	int quiet_ms;
	unsigned char *in;	/* what came from the pipe: in[pos, len) */
	size_t in_pos, in_len, in_cap;
	uint64_t in_total;	/* bytes read from the pipe */
	struct blocktp_out records;
	uint64_t other_events, n_records;
	struct event_kind *kinds;
	size_t n_kinds;
	struct wire_rec last;	/* the last record, for messages */
	int opened;		/* its first message came */
	int at_end;
	/* the file read here instead (tracedat_own.c), on own_fd */
	struct tracedat_own *own;
	int own_fd;
};

static void fence_stop(struct tracedat *t)
{
	int status;

	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		while (waitpid(t->pid, &status, 0) < 0 && errno == EINTR)
			;
		t->pid = 0;
	}
	if (t->fd >= 0) {
		close(t->fd);
		t->fd = -1;
	}
}

/* Where the child was: for a message. */
static void fence_where(const struct tracedat *t, char *buf, size_t size)
{
	if (!t->n_records)
		snprintf(buf, size, "in its headers");
	else
		snprintf(buf, size, "after the event at byte %llu (CPU %d, %llu ns, event %llu)",
			 (unsigned long long)t->last.offset, t->last.cpu,
			 (unsigned long long)t->last.ts,
			 (unsigned long long)t->n_records);
}

/* The child's pipe ended before its last message. */
static int fence_died(struct tracedat *t, struct iow_error *err)
{
	char where[160], how[96];
	int status = 0;

	close(t->fd);
	t->fd = -1;
	if (!child_wait(t->pid, &status, 5000))
		status = child_stop(t->pid, SIGKILL, 0);
	t->pid = 0;
	fence_where(t, where, sizeof(where));
	/* before its first message, exit 127: the loader's (the helper's
	 * libraries are missing), or its own when the reader was gone */
	if (!t->opened && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return iow_fail(err, "%s: a trace-cmd recording (trace.dat), and libtracecmd's reader %s could not start (exit status 127: libtracecmd.so.1 cannot be loaded): install Debian's libtracecmd1, or give the text of its block events as perf script prints them (perf record -e 'block:*')",
				t->path, helper.path);
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "signal %d, %s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		child_describe(status, how, sizeof(how));
	return iow_fail(err, "libtracecmd crashed reading %s %s (%s): the file is damaged; nothing was drawn",
			t->path, where, how);
}

/* in[pos, pos + need) filled from the pipe: 0, or -1 with err. */
static int fence_fill(struct tracedat *t, size_t need, struct iow_error *err)
{
	while (t->in_len - t->in_pos < need) {
		struct pollfd p = { .fd = t->fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (t->in_pos) {
			memmove(t->in, t->in + t->in_pos, t->in_len - t->in_pos);
			t->in_len -= t->in_pos;
			t->in_pos = 0;
		}
		if (t->in_cap < need ||
		    t->in_cap - t->in_len < FENCE_IN_FIRST / 4 ||
		    (t->in_total >= FENCE_IN_SMALL && t->in_cap < FENCE_IN_BUF)) {
			size_t cap = t->in_cap ? t->in_cap * 2 : FENCE_IN_FIRST;
			unsigned char *in;

			while (cap < need)
				cap *= 2;
			if (!(in = realloc(t->in, cap)))
				return iow_fail(err, "out of memory");
			t->in = in;
			t->in_cap = cap;
		}
		r = poll(&p, 1, t->quiet_ms);
		if (r < 0 && errno == EINTR) {
			if (iow_interrupted)
				return iow_fail(err, "%s: interrupted while reading it",
						t->path);
			continue;
		}
		if (r == 0) {
			char where[160];

			fence_where(t, where, sizeof(where));
			fence_stop(t);
			return iow_fail(err, "libtracecmd stopped answering reading %s %s (nothing for %d s; killed): the file is damaged or its disk stalled; nothing was drawn (IOWATCHER_TRACEDAT_TIMEOUT=SECONDS waits longer)",
					t->path, where, t->quiet_ms / 1000);
		}
		n = read(t->fd, t->in + t->in_len, t->in_cap - t->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return iow_fail(err, "%s: reading libtracecmd's events: %s",
					t->path, strerror(errno));
		if (n == 0)
			return fence_died(t, err);
		t->in_len += (size_t)n;
		t->in_total += (uint64_t)n;
	}
	return 0;
}

/* The next message: its type, its bytes in *p (len of them). */
static int fence_next(struct tracedat *t, uint32_t *type,
		      const unsigned char **p, uint32_t *len,
		      struct iow_error *err)
{
	struct wire_head h;

	if (fence_fill(t, sizeof(h), err) < 0)
		return -1;
	memcpy(&h, t->in + t->in_pos, sizeof(h));
	if (h.len > FENCE_MSG_MAX) {
		fence_stop(t);
		return iow_fail(err, "libtracecmd crashed reading %s: its child sent a message of %u bytes: the file is damaged; nothing was drawn",
				t->path, h.len);
	}
	if (fence_fill(t, sizeof(h) + h.len, err) < 0)
		return -1;
	*type = h.type;
	*len = h.len;
	*p = t->in + t->in_pos + sizeof(h);
	t->in_pos += sizeof(h) + h.len;
	return 0;
}

/* The next message, from the file read here or from the child. */
static int next_msg(struct tracedat *t, uint32_t *type,
		    const unsigned char **p, uint32_t *len,
		    struct iow_error *err)
{
	if (t->own)
		return tracedat_own_next(t->own, type, p, len, err);
	return fence_next(t, type, p, len, err);
}

/* An error the child said: the path, then its line. */
static int fence_error(struct tracedat *t, const unsigned char *p,
		       uint32_t len, struct iow_error *err)
{
	int n = (int)(len ? len - 1 : 0);

	fence_stop(t);
	return iow_fail(err, "%s: %.*s", t->path, n, (const char *)p);
}

#ifdef HAVE_TRACECMD
/* fd as one numbered min or above, close-on-exec: -1 on an error */
static int fd_above(int fd, int min)
{
	return fd >= min ? fd : fcntl(fd, F_DUPFD_CLOEXEC, min);
}

extern char **environ;

/*
 * The helper, reading fd's trace.dat (a copy when copied) and writing
 * the events to a pipe, its time limit taken from the environment.
 */
static int fence_start(struct tracedat *t, int fd, int copied,
		       struct iow_error *err)
{
	const char *quiet = getenv("IOWATCHER_TRACEDAT_TIMEOUT");
	char wire[32], parent[48], size[48], copy[16];
	char *argv[] = { helper.path, wire, parent, size, copy,
			 (char *)t->path, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int pipefd[2], ffd = -1, wfd = -1, rc, i;
	static const int deflt[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
				     SIGTRAP, SIGSYS, SIGTERM, SIGPIPE };
	sigset_t sigs;
	struct stat st;

	t->quiet_ms = FENCE_QUIET_S * 1000;
	if (quiet) {
		char *end;
		long s = strtol(quiet, &end, 10);

		if (end == quiet || *end || s < 1 || s > 86400)
			return iow_fail(err, "IOWATCHER_TRACEDAT_TIMEOUT=%.40s: give a number of seconds from 1 to 86400 (or unset it: 60)",
					quiet);
		t->quiet_ms = (int)s * 1000;
	}
	if (fstat(fd, &st))
		st.st_size = 0;
	if (pipe2(pipefd, O_CLOEXEC))
		return iow_fail(err, "%s: cannot start libtracecmd's process: %s",
				t->path, strerror(errno));
	snprintf(wire, sizeof(wire), "--wire=%d", TRACEDAT_WIRE_VERSION);
	snprintf(parent, sizeof(parent), "--parent=%ld", (long)getpid());
	snprintf(size, sizeof(size), "--size=%lld", (long long)st.st_size);
	snprintf(copy, sizeof(copy), "--copied=%d", !!copied);
	/* both above the fds they become, so that neither dup2 closes the
	 * other's */
	ffd = fd_above(fd, TRACEDAT_HELPER_OUT_FD + 1);
	wfd = fd_above(pipefd[1], TRACEDAT_HELPER_OUT_FD + 1);
	rc = ffd < 0 || wfd < 0 ? errno : 0;
	if (!rc) {
		posix_spawn_file_actions_init(&fa);
		posix_spawnattr_init(&attr);
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
		posix_spawn_file_actions_adddup2(&fa, ffd,
						 TRACEDAT_HELPER_FILE_FD);
		posix_spawn_file_actions_adddup2(&fa, wfd,
						 TRACEDAT_HELPER_OUT_FD);
		/* every signal held until it has set its own actions (SIGINT
		 * ignored: a ^C is ours to decide), the deadly ones and
		 * SIGPIPE at their defaults whatever ours are */
		sigemptyset(&sigs);
		for (i = 0; i < (int)(sizeof(deflt) / sizeof(deflt[0])); i++)
			sigaddset(&sigs, deflt[i]);
		posix_spawnattr_setsigdefault(&attr, &sigs);
		sigfillset(&sigs);
		posix_spawnattr_setsigmask(&attr, &sigs);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF |
					 POSIX_SPAWN_SETSIGMASK);
		rc = posix_spawn(&t->pid, helper.path, &fa, &attr, argv,
				 environ);
		posix_spawnattr_destroy(&attr);
		posix_spawn_file_actions_destroy(&fa);
	}
	if (ffd >= 0 && ffd != fd)
		close(ffd);
	if (wfd >= 0 && wfd != pipefd[1])
		close(wfd);
	close(pipefd[1]);
	if (rc) {
		t->pid = 0;
		close(pipefd[0]);
		return iow_fail(err, "%s: cannot start libtracecmd's process %s: %s",
				t->path, helper.path, strerror(rc));
	}
	t->fd = pipefd[0];
	/* fewer, larger reads */
	fcntl(t->fd, F_SETPIPE_SZ, 1 << 20);
	return 0;
}

/* The file through libtracecmd's child; why: why this process did not
 * read it. */
static int fence_open(struct tracedat *t, int fd, int copied,
		      const char *why, struct iow_error *err)
{
	(void)why;
	if (helper_ready(t->path, err) < 0)
		return -1;
	return fence_start(t, fd, copied, err);
}
#else
static int fence_open(struct tracedat *t, int fd, int copied,
		      const char *why, struct iow_error *err)
{
	(void)fd, (void)copied;
	return iow_fail(err, "%s: a trace-cmd recording (trace.dat) that iowatcher does not read itself (%s), and this iowatcher was built without libtracecmd: install libtracecmd-dev and rebuild, or give the text of trace-cmd's events as perf script prints them (perf record -e 'block:*')",
			t->path, why);
}
#endif

/*
 * The common file is read here (tracedat_own.c: a second process costs
 * a small trace more than its read), the rest by libtracecmd in the
 * fence. IOWATCHER_TRACEDAT=libtracecmd sends every file to the fence;
 * IOWATCHER_TRACEDAT=own refuses one this process would not read, saying
 * why. 1 read here, 0 the fence's, -1 with err.
 */
static int read_here(struct tracedat *t, int fd, char *why, size_t why_size,
		     struct iow_error *err)
{
	const char *mode = getenv("IOWATCHER_TRACEDAT");
	int r;

	if (mode && *mode && strcmp(mode, "own") && strcmp(mode, "libtracecmd"))
		return iow_fail(err, "IOWATCHER_TRACEDAT=%s: give own, libtracecmd or leave it unset",
				mode);
	snprintf(why, why_size, "IOWATCHER_TRACEDAT=libtracecmd asked for libtracecmd");
	if (mode && !strcmp(mode, "libtracecmd"))
		return 0;
	r = tracedat_own_open(fd, &t->own, why, why_size, err);
	if (r == 0 && mode && !strcmp(mode, "own"))
		return iow_fail(err, "%s: not read without libtracecmd (IOWATCHER_TRACEDAT=own): %s",
				t->path, why);
	return r;
}

/*
 * Reads src's trace.dat (its first bytes, first[0, n), already taken
 * from src); path names it in messages.
 */
static struct tracedat *tracedat_open(struct byte_source *src,
			       const unsigned char *first, size_t n,
			       const char *path, struct iow_error *err)
{
	const unsigned char *p;
	struct tracedat *t;
	uint32_t type, len, big;
	char why[200];
	int copied, fd, r;

	t = calloc(1, sizeof(*t));
	if (!t) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	t->path = path;
	t->fd = -1;
	t->own_fd = -1;
	copied = src->ops->name || src->is_stdin;
	if (!copied)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	else
		fd = seekable_copy(src, first, n, path, err);
	if (fd < 0) {
		if (!copied)
			iow_fail(err, "%s: %s", path, strerror(errno));
		free(t);
		return NULL;
	}
	if (tracedat_sizes_ok(fd, path, err) < 0 ||
	    (r = read_here(t, fd, why, sizeof(why), err)) < 0 ||
	    (!r && fence_open(t, fd, copied, why, err) < 0)) {
		close(fd);
		free(t);
		return NULL;
	}
	if (r)
		t->own_fd = fd;
	else
		close(fd);
	if (next_msg(t, &type, &p, &len, err) < 0)
		goto fail;
	if (type == MSG_ERROR) {
		fence_error(t, p, len, err);
		goto fail;
	}
	if (type != MSG_OPEN || len != sizeof(big)) {
		fence_stop(t);
		iow_fail(err, "libtracecmd crashed reading %s in its headers: its child said no more: the file is damaged; nothing was drawn",
			 path);
		goto fail;
	}
	t->opened = 1;
	memcpy(&big, p, sizeof(big));
	t->swap = !!big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	return t;
fail:
	tracedat_free(t);
	return NULL;
}

/* ---- one record ---- */

/* The fields a block event's shape needs, or -1 where one is missing
 * (the name of the first in *missing). */
static int find_fields(const struct event_kind *ek, const char **missing)
{
	enum blocktp_shape shape = ek->be->shape;

#define NEED(i) \
	do { if (!ek->f[i].present) { *missing = field_names[i]; \
		return -1; } } while (0)
	if (shape == BLOCKTP_SKIP)
		return 0;
	NEED(F_DEV);
	NEED(F_SECTOR);
	NEED(F_RWBS);
	if (shape == BLOCKTP_SPLIT) {
		NEED(F_NEW_SECTOR);
		return 0;
	}
	NEED(F_NR_SECTOR);
	if (shape == BLOCKTP_RQ)
		NEED(F_BYTES);
	if (shape == BLOCKTP_RQ || shape == BLOCKTP_RQ_DONE)
		NEED(F_CMD);
	if (shape == BLOCKTP_BIO_DONE)
		NEED(F_ERROR);
	if (shape == BLOCKTP_REMAP) {
		NEED(F_OLD_DEV);
		NEED(F_OLD_SECTOR);
	}
#undef NEED
	return 0;
}

static int record_fail(struct tracedat *t, const struct wire_rec *rec,
		       struct iow_error *err, const char *fmt, const char *a,
		       const char *b)
{
	char what[256];

	snprintf(what, sizeof(what), fmt, a, b);
	return iow_fail(err, "%s: the event at byte %llu (CPU %d, %llu ns): %s",
			t->path, (unsigned long long)rec->offset, rec->cpu,
			(unsigned long long)rec->ts, what);
}

/* A field the record holds whole: where it is, or NULL. The sums are
 * 64-bit: a format's offset of 2^31 - 1 does not wrap. */
static const unsigned char *field_at(const struct event_kind *ek, int i,
				     const struct fenced_rec *r)
{
	const struct wire_field *f = &ek->f[i];

	if (!f->present || f->offset < 0 || f->size <= 0 ||
	    (int64_t)f->offset + f->size > (int64_t)r->w.size)
		return NULL;
	return r->data + f->offset;
}

/* A number field of 1, 2, 4 or 8 bytes, in the file's byte order (as
 * libtraceevent's tep_read_number_field reads it). */
static int number(const struct tracedat *t, const struct event_kind *ek,
		  int i, const struct fenced_rec *r, uint64_t *v)
{
	const unsigned char *p = field_at(ek, i, r);
	uint16_t v16;
	uint32_t v32;

	if (!p)
		return -1;
	switch (ek->f[i].size) {
	case 1:
		*v = *p;
		return 0;
	case 2:
		memcpy(&v16, p, 2);
		*v = t->swap ? __builtin_bswap16(v16) : v16;
		return 0;
	case 4:
		memcpy(&v32, p, 4);
		*v = t->swap ? __builtin_bswap32(v32) : v32;
		return 0;
	case 8:
		memcpy(v, p, 8);
		if (t->swap)
			*v = __builtin_bswap64(*v);
		return 0;
	}
	return -1;
}

/* A char array field, NUL-terminated into buf (size bytes). */
static int text(const struct event_kind *ek, int i,
		const struct fenced_rec *r, char *buf, size_t size)
{
	const unsigned char *p = field_at(ek, i, r);
	size_t n;

	if (!p)
		return -1;
	n = (size_t)ek->f[i].size < size - 1 ? (size_t)ek->f[i].size :
						 size - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

/* cmd, a __data_loc string: a passthrough command's bytes, empty for
 * file system I/O. Its offset and length are 16 bits each, added in 64. */
static int passthrough(const struct tracedat *t, const struct event_kind *ek,
		       const struct fenced_rec *r, int *yes)
{
	const struct wire_field *f = &ek->f[F_CMD];
	uint64_t loc, offset, len;

	if (number(t, ek, F_CMD, r, &loc) < 0)
		return -1;
	offset = loc & 0xffff;
	len = (loc >> 16) & 0xffff;
	if (f->flags & WIRE_FIELD_IS_RELATIVE)
		offset += (uint64_t)f->offset + (uint64_t)f->size;
	if (offset + len > r->w.size)
		return -1;
	*yes = len > 1 && r->data[offset] != '\0';
	return 0;
}

static int read_fields(const struct tracedat *t, const struct event_kind *ek,
		       const struct fenced_rec *r, struct blocktp_fields *f,
		       char *rwbs)
{
	uint64_t v = 0;
	const char *p = rwbs;
	int pass = 0;

	memset(f, 0, sizeof(*f));
	if (number(t, ek, F_DEV, r, &v) < 0)
		return -1;
	f->dev = (uint32_t)v;
	if (number(t, ek, F_SECTOR, r, &v) < 0)
		return -1;
	f->sector = v;
	if (text(ek, F_RWBS, r, rwbs, RWBS_MAX) < 0)
		return -1;
	if (blocktp_rwbs(&p, &f->what) < 0 || *p)
		return -2;
	if (ek->be->shape == BLOCKTP_SPLIT)
		return number(t, ek, F_NEW_SECTOR, r, &f->rest_sector);
	if (number(t, ek, F_NR_SECTOR, r, &f->nr_sector) < 0)
		return -1;
	if (ek->be->shape == BLOCKTP_RQ) {
		if (number(t, ek, F_BYTES, r, &f->bytes) < 0)
			return -1;
		f->has_bytes = 1;
	}
	if ((ek->be->shape == BLOCKTP_RQ || ek->be->shape == BLOCKTP_RQ_DONE) &&
	    passthrough(t, ek, r, &pass) < 0)
		return -1;
	f->passthrough = pass;
	if (ek->be->shape == BLOCKTP_BIO_DONE ||
	    (ek->be->shape == BLOCKTP_RQ_DONE && ek->f[F_ERROR].present)) {
		if (number(t, ek, F_ERROR, r, &v) < 0)
			return -1;
		f->error = (uint16_t)v;
	}
	if (ek->be->shape == BLOCKTP_REMAP) {
		if (number(t, ek, F_OLD_DEV, r, &v) < 0 ||
		    number(t, ek, F_OLD_SECTOR, r, &f->from_sector) < 0)
			return -1;
		f->from_dev = (uint32_t)v;
	}
	return 0;
}

/* A kind the child described. */
static int add_kind(struct tracedat *t, const unsigned char *p, uint32_t len,
		    struct iow_error *err)
{
	struct event_kind *ek;
	struct wire_kind w;
	size_t name_len;

	if (len <= sizeof(w) || p[len - 1] != '\0')
		goto bad;
	memcpy(&w, p, sizeof(w));
	if (w.id != t->n_kinds)
		goto bad;
	ek = realloc(t->kinds, (t->n_kinds + 1) * sizeof(*ek));
	if (!ek)
		return iow_fail(err, "out of memory");
	t->kinds = ek;
	ek += t->n_kinds;
	memset(ek, 0, sizeof(*ek));
	name_len = len - sizeof(w) - 1;
	if (!(ek->name = malloc(name_len + 1)))
		return iow_fail(err, "out of memory");
	memcpy(ek->name, p + sizeof(w), name_len + 1);
	ek->is_block = !!w.is_block;
	memcpy(ek->f, w.f, sizeof(ek->f));
	t->n_kinds++;
	return 0;
bad:
	fence_stop(t);
	return iow_fail(err, "libtracecmd crashed reading %s: its child described an event wrongly: the file is damaged; nothing was drawn",
			t->path);
}

static int translate(struct tracedat *t, const unsigned char *p, uint32_t len,
		     struct iow_error *err)
{
	struct event_kind *ek;
	struct fenced_rec r;
	struct blocktp_fields f;
	struct blocktp_task task;
	char rwbs[RWBS_MAX], comm[COMM_MAX] = "";
	const char *missing = NULL;
	uint32_t cpu;
	int n;

	if (len < sizeof(r.w))
		goto bad;
	memcpy(&r.w, p, sizeof(r.w));
	if (len - sizeof(r.w) != r.w.size ||
	    (r.w.kind != NO_KIND && r.w.kind >= t->n_kinds))
		goto bad;
	r.data = p + sizeof(r.w);
	r.w.comm[COMM_MAX - 1] = '\0';
	t->last = r.w;
	t->n_records++;
	cpu = (uint32_t)r.w.cpu;
	if (r.w.missed &&
	    blocktp_lost(&t->records, cpu, r.w.ts,
			 r.w.missed > 0 ? (uint64_t)r.w.missed : 0,
			 r.w.missed > 0) < 0)
		return record_fail(t, &r.w, err, "out of memory%s%s", "", "");
	if (r.w.kind == NO_KIND)
		return record_fail(t, &r.w, err,
				   "an event of no format the file holds%s%s",
				   "", "");
	ek = &t->kinds[r.w.kind];
	if (ek->is_block && !ek->checked) {
		ek->be = blocktp_find(ek->name, strlen(ek->name));
		if (!ek->be)
			return record_fail(t, &r.w, err, "an unknown block event block:%s (iowatcher reads block_bio_queue, block_rq_issue, block_rq_complete and the rest of Linux 6's block events)%s",
					   ek->name, "");
		if (find_fields(ek, &missing) < 0)
			return record_fail(t, &r.w, err, "block:%s has no field '%s' in the format this file holds",
					   ek->name, missing);
		ek->checked = 1;
	}
	if (!ek->be) {
		t->other_events++;
		if (blocktp_see_cpu(&t->records, cpu, r.w.ts) < 0)
			return record_fail(t, &r.w, err, "out of memory%s%s",
					   "", "");
		return 0;
	}
	memset(&f, 0, sizeof(f));
	if (ek->be->shape != BLOCKTP_SKIP &&
	    (n = read_fields(t, ek, &r, &f, rwbs)) < 0)
		return record_fail(t, &r.w, err, n == -2 ?
				   "block:%s's rwbs \"%s\" is not one the kernel writes" :
				   "block:%s is shorter than its format's fields%s",
				   ek->name, n == -2 ? rwbs : "");
	/* the task's name: the event's own (the task it ran in), else the
	 * one trace-cmd saved for its pid */
	if (ek->f[F_COMM].present && text(ek, F_COMM, &r, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	task.pid = (uint32_t)r.w.pid;
	if (!comm[0])
		snprintf(comm, sizeof(comm), "%s", r.w.comm);
	task.time_ns = r.w.ts;
	task.cpu = cpu;
	task.comm = comm;
	task.comm_len = strlen(comm);
	if (blocktp_emit(&t->records, ek->be, &f, &task) < 0)
		return record_fail(t, &r.w, err, "out of memory%s%s", "", "");
	return 0;
bad:
	fence_stop(t);
	return iow_fail(err, "libtracecmd crashed reading %s: its child sent a record wrongly: the file is damaged; nothing was drawn",
			t->path);
}

/* ---- reading ---- */

/* Up to len bytes of records: how many, 0 at the end, -1 on an error. */
static ssize_t tracedat_read(struct tracedat *t, unsigned char *buf, size_t len,
		      struct iow_error *err)
{
	while (!t->at_end && blocktp_pending(&t->records) < len) {
		const unsigned char *p;
		uint32_t type, n;

		if (next_msg(t, &type, &p, &n, err) < 0)
			return -1;
		switch (type) {
		case MSG_KIND:
			if (add_kind(t, p, n, err) < 0)
				return -1;
			break;
		case MSG_RECORD:
			if (translate(t, p, n, err) < 0) {
				fence_stop(t);
				return -1;
			}
			break;
		case MSG_ERROR:
			return fence_error(t, p, n, err);
		case MSG_END:	/* the child is ending: reaped when closed */
			t->at_end = 1;
			break;
		default:
			fence_stop(t);
			return iow_fail(err, "libtracecmd crashed reading %s: its child sent a message of no kind: the file is damaged; nothing was drawn",
					t->path);
		}
	}
	if (!blocktp_pending(&t->records) && !t->records.block_events)
		return iow_fail(err, t->other_events ?
				"%s: trace-cmd's trace.dat holds no block events (record them with trace-cmd record -e block)" :
				"%s: trace-cmd's trace.dat holds no events",
				t->path);
	return (ssize_t)blocktp_take(&t->records, buf, len);
}

static void tracedat_free(struct tracedat *t)
{
	size_t i;

	if (!t)
		return;
	fence_stop(t);
	tracedat_own_free(t->own);
	if (t->own_fd >= 0)
		close(t->own_fd);
	free(t->in);
	blocktp_out_free(&t->records);
	for (i = 0; i < t->n_kinds; i++)
		free(t->kinds[i].name);
	free(t->kinds);
	free(t);
}

static void *input_open(struct byte_source *src, const unsigned char *first,
			size_t n, const char *path, struct iow_error *err)
{
	return tracedat_open(src, first, n, path, err);
}

static ssize_t input_read(void *input, unsigned char *buf, size_t len,
			  struct iow_error *err)
{
	return tracedat_read(input, buf, len, err);
}

static void input_free(void *input)
{
	tracedat_free(input);
}

const struct blocktp_input tracedat_input = {
	tracedat_looks, input_open, input_read, input_free,
};
