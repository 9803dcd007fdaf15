/*
 * tracedat.c: trace-cmd's trace.dat as blktrace records (a
 * blocktp_input: blocktp.h).
 * The file's sizes are checked against its length first
 * (tracedat_check.c); then libtracecmd, in a child process of its own (the
 * fence, below), hands the file's events in time order across its
 * buffers and CPUs (tracecmd_iterate_events_multi) back over a pipe;
 * each block event's fields are read here by name from the format the
 * file itself holds, so a kernel that moves them is read alike, and
 * become the records of blocktp.c.
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
 * libtracecmd is loaded when a trace.dat is first read. Built without it
 * (make TRACECMD=0, or without libtracecmd-dev), or where it cannot be
 * loaded, the file is still recognised, and opening it says so and what
 * to do instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

#ifndef HAVE_TRACECMD

struct tracedat {
	int unused;
};

/*
 * Reads src's trace.dat (its first bytes, first[0, n), already taken
 * from src); path names it in messages.
 */
static struct tracedat *tracedat_open(struct byte_source *src,
			       const unsigned char *first, size_t n,
			       const char *path, struct iow_error *err)
{
	(void)src, (void)first, (void)n;
	iow_fail(err, "%s: a trace-cmd recording (trace.dat), and this iowatcher was built without libtracecmd: install libtracecmd-dev and rebuild, or give the text of trace-cmd's events as perf script prints them (perf record -e 'block:*')",
		 path);
	return NULL;
}

/* Up to len bytes of records: how many, 0 at the end, -1 on an error. */
static ssize_t tracedat_read(struct tracedat *t, unsigned char *buf, size_t len,
		      struct iow_error *err)
{
	(void)t, (void)buf, (void)len;
	return iow_fail(err, "trace.dat: not read in this build");
}

static void tracedat_free(struct tracedat *t)
{
	free(t);
}

#else

#include <dlfcn.h>
#include <pthread.h>
#include <trace-cmd.h>

#include "base/child.h"

/*
 * libtracecmd (and libtraceevent and libtracefs under it) is loaded when
 * a trace.dat is first read, not linked: linked, their four shared
 * libraries cost every start of the program (--version 300 times on the
 * project's 2-core VM: 1.33 ms a start, 1.1-1.2 ms without), and a
 * program built here still starts where they are not installed. Its
 * entry points, loaded once for the process.
 */
#define TRACECMD_LIBRARY	"libtracecmd.so.1"
#define LIB_FUNCS(X) \
	X(tracecmd_open_head) X(tracecmd_init_data) X(tracecmd_close) \
	X(tracecmd_get_tep) \
	X(tracecmd_iterate_events_multi) X(tracecmd_buffer_instances) \
	X(tracecmd_buffer_instance_handle) X(tracecmd_buffer_instance_name) \
	X(tracecmd_set_loglevel) \
	X(tep_set_loglevel) X(tracefs_set_loglevel) \
	X(tep_find_event_by_record) X(tep_find_field) X(tep_is_file_bigendian) \
	X(tep_data_pid) X(tep_data_comm_from_pid)
#define LIB_MEMBER(name)	__typeof__(name) *name;

static struct tracecmd_lib {
	LIB_FUNCS(LIB_MEMBER)
	char why[256];		/* empty when loaded */
} lib;

static void lib_load(void)
{
	void *dl = dlopen(TRACECMD_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	if (!dl) {
		snprintf(lib.why, sizeof(lib.why), "%s", dlerror());
		return;
	}
#define LIB_LOAD(name) \
	if (!(*(void **)&lib.name = dlsym(dl, #name))) { \
		snprintf(lib.why, sizeof(lib.why), "%s has no %s", \
			 TRACECMD_LIBRARY, #name); \
		return; \
	}
	LIB_FUNCS(LIB_LOAD)
#undef LIB_LOAD
	/* the library's own complaints would be lines of their own: the
	 * one line is ours */
	lib.tracecmd_set_loglevel(TEP_LOG_NONE);
	lib.tep_set_loglevel(TEP_LOG_NONE);
	lib.tracefs_set_loglevel(TEP_LOG_NONE);
}

static int lib_ready(const char *path, struct iow_error *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, lib_load);
	if (!lib.why[0])
		return 0;
	return iow_fail(err, "%s: a trace-cmd recording (trace.dat), and libtracecmd cannot be loaded (%s): install Debian's libtracecmd1, or give the text of its block events as perf script prints them (perf record -e 'block:*')",
			path, lib.why);
}

#define COPY_CHUNK	(256 * 1024)
#define RWBS_MAX	16	/* the kernel's RWBS_LEN is 10 */
#define COMM_MAX	16

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
	iow_fail(err, "%s: cannot copy the trace.dat to a temporary file in %s (libtracecmd reads a file it can seek in): %s; set TMPDIR to a directory with room, or give the file uncompressed",
		 path, dir, strerror(errno ? errno : ENOSPC));
out_err:
	free(chunk);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* ---- the fence: libtracecmd in a child of its own ---- */

/*
 * libtracecmd and libtraceevent parse the file's own description of its
 * events, and a damaged one crashes them (a NULL strcmp, a heap
 * overflow, a terabyte's allocation). So they run in a forked child,
 * under a memory limit (RLIMIT_AS: what the child has at its start and
 * FENCE_MEM_BASE plus FENCE_MEM_PER_BYTE x the file's size more) and a
 * time limit (FENCE_QUIET_S without a byte from it, or
 * $IOWATCHER_TRACEDAT_TIMEOUT seconds): its stdout and stderr go to
 * /dev/null (the library's own lines are not ours), and it writes the
 * events back over a pipe in a compact form: each kind of event once
 * (whether a block event, its name, where its fields lie), then each
 * record (its kind, CPU, time, missed events, the task's pid and saved
 * name, and a block event's raw bytes). Every field is read from those
 * bytes here, in the parent, checked against the record's size: the
 * child runs nothing of ours but the writing. A child that dies before
 * its last message is one line, "libtracecmd crashed reading ...", and
 * a child that stops answering is killed and said to.
 */
#define FENCE_QUIET_S		60
#define FENCE_OUT_BUF		(256 * 1024)
#define FENCE_DATA_MAX		(1u << 20)	/* a record's bytes sent */
#define FENCE_MSG_MAX		(FENCE_DATA_MAX + 4096)
#define NO_KIND			UINT32_MAX

enum fence_msg {
	MSG_OPEN = 'O',		/* u32: the file is big-endian */
	MSG_KIND = 'K',		/* struct wire_kind, then its name */
	MSG_RECORD = 'R',	/* struct wire_rec, then size bytes */
	MSG_ERROR = 'E',	/* a message (a line, no path) */
	MSG_END = 'Z',		/* every event sent */
};

struct wire_head {
	uint32_t type, len;
};

/* The fields blocktp needs, by name, in this order. */
enum { F_DEV, F_SECTOR, F_NR_SECTOR, F_BYTES, F_ERROR, F_RWBS, F_COMM,
       F_CMD, F_NEW_SECTOR, F_OLD_DEV, F_OLD_SECTOR, N_FIELDS };
static const char *const field_names[N_FIELDS] = {
	"dev", "sector", "nr_sector", "bytes", "error", "rwbs", "comm",
	"cmd", "new_sector", "old_dev", "old_sector",
};

struct wire_field {
	int32_t offset, size;
	uint32_t flags, present;
};

struct wire_kind {
	uint32_t id, is_block;
	struct wire_field f[N_FIELDS];
};

struct wire_rec {
	uint64_t ts, offset;
	int64_t missed;
	uint32_t kind;
	int32_t cpu, pid;
	uint32_t size;
	char comm[COMM_MAX];
};

/* -- in the child -- */

struct fence_child {
	int fd;
	unsigned since;		/* records since the clock was looked at */
	struct timespec flushed;	/* when the buffer was last sent */
	int last_pid;		/* the saved name last looked up */
	char last_comm[COMM_MAX];
	struct tep_handle *tep;
	struct tep_event **kinds;
	size_t n_kinds;
	size_t n;
	unsigned char buf[FENCE_OUT_BUF];
};

static void child_flush(struct fence_child *k)
{
	size_t at = 0;

	while (at < k->n) {
		ssize_t w = write(k->fd, k->buf + at, k->n - at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)	/* the parent has stopped reading */
			_exit(0);
		at += (size_t)w;
	}
	k->n = 0;
	clock_gettime(CLOCK_MONOTONIC, &k->flushed);
}

static void child_put(struct fence_child *k, const void *p, size_t len)
{
	while (len) {
		size_t room = sizeof(k->buf) - k->n;
		size_t n = len < room ? len : room;

		memcpy(k->buf + k->n, p, n);
		k->n += n;
		p = (const char *)p + n;
		len -= n;
		if (k->n == sizeof(k->buf))
			child_flush(k);
	}
}

static void child_msg(struct fence_child *k, uint32_t type, const void *a,
		      size_t alen, const void *b, size_t blen)
{
	struct wire_head h = { type, (uint32_t)(alen + blen) };

	child_put(k, &h, sizeof(h));
	child_put(k, a, alen);
	if (blen)
		child_put(k, b, blen);
}

static __attribute__((noreturn, format(printf, 2, 3)))
void child_fail(struct fence_child *k, const char *fmt, ...)
{
	char msg[IOW_ERROR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	child_msg(k, MSG_ERROR, msg, strlen(msg) + 1, NULL, 0);
	child_flush(k);
	_exit(0);
}

static uint32_t child_kind(struct fence_child *k, struct tep_event *e)
{
	struct tep_event **grown;
	struct wire_kind w;
	size_t i;

	for (i = 0; i < k->n_kinds; i++)
		if (k->kinds[i] == e)
			return (uint32_t)i;
	grown = realloc(k->kinds, (k->n_kinds + 1) * sizeof(*grown));
	if (!grown)
		child_fail(k, "out of memory");
	k->kinds = grown;
	k->kinds[k->n_kinds] = e;
	memset(&w, 0, sizeof(w));
	w.id = (uint32_t)k->n_kinds;
	w.is_block = e->system && !strcmp(e->system, "block");
	for (i = 0; w.is_block && i < N_FIELDS; i++) {
		struct tep_format_field *f =
			lib.tep_find_field(e, field_names[i]);

		if (!f)
			continue;
		w.f[i].present = 1;
		w.f[i].offset = f->offset;
		w.f[i].size = f->size;
		w.f[i].flags = f->flags;
	}
	child_msg(k, MSG_KIND, &w, sizeof(w), e->name ? e->name : "",
		  strlen(e->name ? e->name : "") + 1);
	return (uint32_t)k->n_kinds++;
}

static int child_record(struct tracecmd_input *handle, struct tep_record *rec,
			int cpu, void *data)
{
	struct fence_child *k = data;
	struct tep_event *e = lib.tep_find_event_by_record(k->tep, rec);
	struct wire_rec w;

	(void)handle, (void)cpu;
	memset(&w, 0, sizeof(w));
	w.ts = rec->ts;
	w.offset = rec->offset;
	w.missed = rec->missed_events;
	w.cpu = rec->cpu;
	w.kind = e ? child_kind(k, e) : NO_KIND;
	if (e && e->system && !strcmp(e->system, "block")) {
		w.pid = lib.tep_data_pid(k->tep, rec);
		if (w.pid != k->last_pid || !k->last_comm[0]) {
			const char *c = lib.tep_data_comm_from_pid(k->tep,
								   w.pid);

			k->last_pid = w.pid;
			strncpy(k->last_comm, c ? c : "", COMM_MAX - 1);
		}
		memcpy(w.comm, k->last_comm, COMM_MAX);
		if (rec->size > 0 && rec->data)
			w.size = (uint32_t)rec->size < FENCE_DATA_MAX ?
				 (uint32_t)rec->size : FENCE_DATA_MAX;
	}
	child_msg(k, MSG_RECORD, &w, sizeof(w), rec->data, w.size);
	/* a slow file is still news to the parent's time limit: what is
	 * buffered goes at least once a second */
	if (++k->since >= 256) {
		struct timespec now;

		k->since = 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > k->flushed.tv_sec + 1)
			child_flush(k);
	}
	return 0;
}

/* What the child may have: what it has now and budget more. */
static void child_limit_memory(uint64_t budget)
{
	unsigned long long pages = 0;
	struct rlimit rl;
	char buf[64];
	ssize_t n = -1;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	/* read, not stdio's: no buffer to allocate in the child */
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n > 0) {
		buf[n] = '\0';
		pages = strtoull(buf, NULL, 10);
	}
	rl.rlim_cur = rl.rlim_max =
		(rlim_t)(pages * (uint64_t)sysconf(_SC_PAGESIZE) + budget);
	setrlimit(RLIMIT_AS, &rl);
}

/* Sanitizers' reports of the child's crash are not the program's, nor
 * is their death callback (a fuzzer's, which would keep the input as a
 * crash of the program's). */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
extern void __sanitizer_set_death_callback(void (*callback)(void))
	__attribute__((weak));

static __attribute__((noreturn))
void child_run(int out, int fd, const char *path, int copied, uint64_t fsize)
{
	static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				      SIGABRT, SIGTRAP, SIGSYS };
	struct fence_child *k = calloc(1, sizeof(*k));
	struct tracecmd_input *handle, **buffers;
	char lib_path[64];
	uint32_t big;
	int null, n, i, r;
	size_t j;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* a crash is the default's: no handler of a fuzzer's or a
	 * sanitizer's reports it as ours */
	for (j = 0; j < sizeof(deadly) / sizeof(deadly[0]); j++)
		signal(deadly[j], SIG_DFL);
	signal(SIGINT, SIG_IGN);	/* the parent decides */
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
		if (__sanitizer_set_report_fd)
			__sanitizer_set_report_fd((void *)(intptr_t)null);
	}
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	if (!k)
		_exit(1);
	k->fd = out;
	child_limit_memory(FENCE_MEM_BASE + FENCE_MEM_PER_BYTE * fsize);
	snprintf(lib_path, sizeof(lib_path), "/proc/self/fd/%d", fd);
	/*
	 * Its headers, then its CPUs' data: libtracecmd 1.3 crashes when
	 * it closes a file whose CPU data it failed to set up (as
	 * tracecmd_open does then), so nothing is closed here: the child
	 * ends.
	 */
	handle = lib.tracecmd_open_head(copied ? lib_path : path,
					TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle || lib.tracecmd_init_data(handle) < 0)
		child_fail(k, "libtracecmd cannot read this trace.dat (%s, damaged, or a version it does not know): trace-cmd report -i %s says more",
			   handle ? "its CPU data cut short" : "cut short",
			   copied ? "FILE (decompressed)" : path);
	k->tep = lib.tracecmd_get_tep(handle);
	/* the top buffer and every instance's (trace-cmd record -B NAME) */
	n = lib.tracecmd_buffer_instances(handle);
	buffers = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*buffers));
	if (!buffers)
		child_fail(k, "out of memory");
	buffers[0] = handle;
	for (i = 0; i < n; i++)
		if (!(buffers[i + 1] =
		      lib.tracecmd_buffer_instance_handle(handle, i)))
			child_fail(k, "libtracecmd cannot read the buffer '%s' of this trace.dat (cut short or damaged)",
				   lib.tracecmd_buffer_instance_name(handle, i));
	big = lib.tep_is_file_bigendian(k->tep);
	child_msg(k, MSG_OPEN, &big, sizeof(big), NULL, 0);
	child_flush(k);
	r = lib.tracecmd_iterate_events_multi(buffers, n + 1, child_record, k);
	if (r < 0)
		child_fail(k, "libtracecmd could not read the events (out of memory)");
	child_msg(k, MSG_END, "", 1, NULL, 0);
	child_flush(k);
	_exit(0);
}

/* -- in the parent -- */

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
	struct blocktp_out records;
	uint64_t other_events, n_records;
	struct event_kind *kinds;
	size_t n_kinds;
	struct wire_rec last;	/* the last record, for messages */
	int at_end;
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
		if (t->in_cap < need || t->in_cap - t->in_len < COPY_CHUNK / 4) {
			size_t cap = t->in_cap ? t->in_cap * 2 : COPY_CHUNK;
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

/* An error the child said: the path, then its line. */
static int fence_error(struct tracedat *t, const unsigned char *p,
		       uint32_t len, struct iow_error *err)
{
	int n = (int)(len ? len - 1 : 0);

	fence_stop(t);
	return iow_fail(err, "%s: %.*s", t->path, n, (const char *)p);
}

static int fence_start(struct tracedat *t, int fd, int copied,
		       struct iow_error *err)
{
	const char *quiet = getenv("IOWATCHER_TRACEDAT_TIMEOUT");
	int pipefd[2];
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
	t->pid = fork();
	if (t->pid < 0) {
		t->pid = 0;
		close(pipefd[0]);
		close(pipefd[1]);
		return iow_fail(err, "%s: cannot start libtracecmd's process: %s",
				t->path, strerror(errno));
	}
	if (t->pid == 0) {
		close(pipefd[0]);
		child_run(pipefd[1], fd, t->path, copied, (uint64_t)st.st_size);
	}
	close(pipefd[1]);
	t->fd = pipefd[0];
	/* fewer, larger reads */
	fcntl(t->fd, F_SETPIPE_SZ, 1 << 20);
	return 0;
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
	int copied, fd;

	if (lib_ready(path, err) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	t->path = path;
	t->fd = -1;
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
	    fence_start(t, fd, copied, err) < 0) {
		close(fd);
		free(t);
		return NULL;
	}
	close(fd);
	if (fence_next(t, &type, &p, &len, err) < 0)
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
	if (f->flags & TEP_FIELD_IS_RELATIVE)
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

		if (fence_next(t, &type, &p, &n, err) < 0)
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
	free(t->in);
	blocktp_out_free(&t->records);
	for (i = 0; i < t->n_kinds; i++)
		free(t->kinds[i].name);
	free(t->kinds);
	free(t);
}

#endif

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
