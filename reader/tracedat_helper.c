/*
 * tracedat_helper.c: iowatcher-tracedat, the process libtracecmd runs in
 * (the fence of tracedat.c). libtracecmd and libtraceevent parse the
 * file's own description of its events, and a damaged one crashes them
 * (a NULL strcmp, a heap overflow, a terabyte's allocation), so they
 * never run in iowatcher: the reader starts this small program
 * (posix_spawn: no page of iowatcher's is copied, and iowatcher never
 * loads libtracecmd), which opens the trace.dat, iterates its events in
 * time order across its buffers and CPUs (tracecmd_iterate_events_multi)
 * and writes them to its fd 4 in the form tracedat_wire.h describes. It
 * runs nothing of iowatcher's: every field is read back, and checked, in
 * the reader.
 *
 * It runs under a memory limit (RLIMIT_AS: what it has at its start,
 * libtracecmd loaded, and FENCE_MEM_BASE plus FENCE_MEM_PER_BYTE x the
 * file's size more); the reader holds the time limit, and kills it when
 * it stops answering. It dies with the reader (PR_SET_PDEATHSIG), ignores
 * SIGINT (the reader decides), and a crash is the default's: a signal the
 * reader reports in one line.
 *
 * Usage (the reader's, not a user's):
 *   iowatcher-tracedat --wire=VERSION --parent=PID --size=BYTES
 *                      --copied=0|1 PATH
 * the trace.dat read by its PATH, or from fd 3 when --copied=1 (a
 * decompressed copy or standard input; PATH then names it in messages).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "reader/tracedat_check.h"
#include "reader/tracedat_wire.h"

_Static_assert(TEP_FIELD_IS_ARRAY == WIRE_FIELD_IS_ARRAY &&
	       TEP_FIELD_IS_SIGNED == WIRE_FIELD_IS_SIGNED &&
	       TEP_FIELD_IS_DYNAMIC == WIRE_FIELD_IS_DYNAMIC &&
	       TEP_FIELD_IS_RELATIVE == WIRE_FIELD_IS_RELATIVE,
	       "the wire's field flags are libtraceevent's");

/* the records are written FENCE_OUT_FIRST bytes at a time for the
 * first FENCE_OUT_SMALL bytes (a small trace's pages, and the reader's,
 * are few: 100 fewer page faults on the sample than 256 KiB), then
 * FENCE_OUT_BUF at a time (a large trace's writes are few: 64 KiB all
 * along cost 7% more CPU on 600k events) */
#define FENCE_OUT_FIRST		(64 * 1024)
#define FENCE_OUT_SMALL		(1024 * 1024)
#define FENCE_OUT_BUF		(256 * 1024)
/* the heap's first bytes, mapped in one call at the start: the
 * sample's formats, names and pages take about 90 pages of it, each a
 * page fault of its own otherwise */
#define FENCE_HEAP_START	(512 * 1024)

struct fence_child {
	int fd;
	unsigned since;		/* records since the clock was looked at */
	struct timespec flushed;	/* when the buffer was last sent */
	int last_pid;		/* the saved name last looked up */
	char last_comm[COMM_MAX];
	struct tep_handle *tep;
	struct tep_event **kinds;
	size_t n_kinds;
	size_t n, cap;
	uint64_t sent;
	unsigned char *buf;	/* small, then big */
	unsigned char small[FENCE_OUT_FIRST], big[FENCE_OUT_BUF];
};

static void child_flush(struct fence_child *k)
{
	size_t at = 0;

	while (at < k->n) {
		ssize_t w = write(k->fd, k->buf + at, k->n - at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)	/* the reader has stopped reading */
			_exit(0);
		at += (size_t)w;
	}
	k->sent += k->n;
	k->n = 0;
	if (k->sent >= FENCE_OUT_SMALL) {
		k->buf = k->big;
		k->cap = sizeof(k->big);
	}
	clock_gettime(CLOCK_MONOTONIC, &k->flushed);
}

static void child_put(struct fence_child *k, const void *p, size_t len)
{
	while (len) {
		size_t room = k->cap - k->n;
		size_t n = len < room ? len : room;

		memcpy(k->buf + k->n, p, n);
		k->n += n;
		p = (const char *)p + n;
		len -= n;
		if (k->n == k->cap)
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
	char msg[FENCE_ERROR_LEN];
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
		struct tep_format_field *f = tep_find_field(e, field_names[i]);

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
	struct tep_event *e = tep_find_event_by_record(k->tep, rec);
	struct wire_rec w;

	(void)handle, (void)cpu;
	memset(&w, 0, sizeof(w));
	w.ts = rec->ts;
	w.offset = rec->offset;
	w.missed = rec->missed_events;
	w.cpu = rec->cpu;
	w.kind = e ? child_kind(k, e) : NO_KIND;
	if (e && e->system && !strcmp(e->system, "block")) {
		w.pid = tep_data_pid(k->tep, rec);
		if (w.pid != k->last_pid || !k->last_comm[0]) {
			const char *c = tep_data_comm_from_pid(k->tep, w.pid);

			k->last_pid = w.pid;
			strncpy(k->last_comm, c ? c : "", COMM_MAX - 1);
		}
		memcpy(w.comm, k->last_comm, COMM_MAX);
		if (rec->size > 0 && rec->data)
			w.size = (uint32_t)rec->size < FENCE_DATA_MAX ?
				 (uint32_t)rec->size : FENCE_DATA_MAX;
	}
	child_msg(k, MSG_RECORD, &w, sizeof(w), rec->data, w.size);
	/* a slow file is still news to the reader's time limit: what is
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

/* What this process may have: what it has now and budget more. */
static void child_limit_memory(uint64_t budget)
{
	unsigned long long pages = 0;
	struct rlimit rl;
	char buf[64];
	ssize_t n = -1;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

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

/*
 * The heap as the program's own (iowatcher.c: large blocks from the heap
 * too, none given back), its first FENCE_HEAP_START bytes mapped by one
 * madvise instead of a page fault each: 671 page faults for the sample
 * read through this process, 580 so (568 in-process, 68f314e).
 * MADV_POPULATE_WRITE is Linux 5.14's: before it, the faults come as
 * they did.
 */
static void child_heap(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t at, end;
	char *p;

	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_TOP_PAD, FENCE_HEAP_START);
	if (page <= 0 || !(p = malloc(FENCE_HEAP_START)))
		return;
	at = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	end = ((uintptr_t)p + FENCE_HEAP_START) & ~((uintptr_t)page - 1);
	if (end > at)
		madvise((void *)at, end - at, MADV_POPULATE_WRITE);
	free(p);
}

/* Sanitizers' reports of a crash here are not the program's (the
 * library is not ours; stderr is /dev/null, as the reader started it). */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
extern void __sanitizer_set_death_callback(void (*callback)(void))
	__attribute__((weak));

/* --NAME=NUMBER's number, or -1 when arg is not it. */
static long long option(const char *arg, const char *name)
{
	size_t n = strlen(name);
	char *end;
	long long v;

	if (strncmp(arg, name, n) || arg[n] != '=')
		return -1;
	errno = 0;
	v = strtoll(arg + n + 1, &end, 10);
	return end == arg + n + 1 || *end || errno || v < 0 ? -1 : v;
}

int main(int argc, char **argv)
{
	static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				      SIGABRT, SIGTRAP, SIGSYS };
	static struct fence_child child;
	struct fence_child *k = &child;
	struct tracecmd_input *handle, **buffers;
	long long wire, parent, size, copied;
	char lib_path[64];
	const char *path;
	sigset_t none;
	uint32_t big;
	int n, i, r;
	size_t j;

	/* a crash is the default's: no handler of a sanitizer's reports
	 * it as the program's */
	for (j = 0; j < sizeof(deadly) / sizeof(deadly[0]); j++)
		signal(deadly[j], SIG_DFL);
	signal(SIGINT, SIG_IGN);	/* the reader decides */
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* started with every signal held, so that none came before */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (__sanitizer_set_report_fd)
		__sanitizer_set_report_fd((void *)(intptr_t)2);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	if (argc != 6 ||
	    (wire = option(argv[1], "--wire")) < 0 ||
	    (parent = option(argv[2], "--parent")) < 0 ||
	    (size = option(argv[3], "--size")) < 0 ||
	    (copied = option(argv[4], "--copied")) < 0 || copied > 1) {
		fprintf(stderr, "%s: iowatcher's reader of trace.dat files runs this (libtracecmd in a process of its own); run iowatcher -t FILE.dat instead\n",
			argv[0]);
		return 2;
	}
	path = argv[5];
	/* the reader may have died before the death signal was asked for */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != (pid_t)parent)
		_exit(1);
	k->fd = TRACEDAT_HELPER_OUT_FD;
	k->buf = k->small;
	k->cap = sizeof(k->small);
	if (wire != TRACEDAT_WIRE_VERSION)
		child_fail(k, "this program's reader of trace.dat (%s) is of another version (wire %lld, not %d): install iowatcher again (make install)",
			   argv[0], wire, TRACEDAT_WIRE_VERSION);
	child_heap();
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	tracefs_set_loglevel(TEP_LOG_NONE);
	child_limit_memory(FENCE_MEM_BASE + FENCE_MEM_PER_BYTE * (uint64_t)size);
	snprintf(lib_path, sizeof(lib_path), "/proc/self/fd/%d",
		 TRACEDAT_HELPER_FILE_FD);
	/*
	 * Its headers, then its CPUs' data: libtracecmd 1.3 crashes when
	 * it closes a file whose CPU data it failed to set up (as
	 * tracecmd_open does then), so nothing is closed here: the process
	 * ends.
	 */
	handle = tracecmd_open_head(copied ? lib_path : path,
				    TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle || tracecmd_init_data(handle) < 0)
		child_fail(k, "libtracecmd cannot read this trace.dat (%s, damaged, or a version it does not know): trace-cmd report -i %s says more",
			   handle ? "its CPU data cut short" : "cut short",
			   copied ? "FILE (decompressed)" : path);
	k->tep = tracecmd_get_tep(handle);
	/* the top buffer and every instance's (trace-cmd record -B NAME) */
	n = tracecmd_buffer_instances(handle);
	buffers = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*buffers));
	if (!buffers)
		child_fail(k, "out of memory");
	buffers[0] = handle;
	for (i = 0; i < n; i++)
		if (!(buffers[i + 1] = tracecmd_buffer_instance_handle(handle, i)))
			child_fail(k, "libtracecmd cannot read the buffer '%s' of this trace.dat (cut short or damaged)",
				   tracecmd_buffer_instance_name(handle, i));
	big = tep_is_file_bigendian(k->tep);
	child_msg(k, MSG_OPEN, &big, sizeof(big), NULL, 0);
	child_flush(k);
	r = tracecmd_iterate_events_multi(buffers, n + 1, child_record, k);
	if (r < 0)
		child_fail(k, "libtracecmd could not read the events (out of memory)");
	child_msg(k, MSG_END, "", 1, NULL, 0);
	child_flush(k);
	_exit(0);
}
