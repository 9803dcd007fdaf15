/*
 * tracedat.c: trace-cmd's trace.dat as blktrace records (tracedat.h).
 * libtracecmd hands the file's events in time order across its buffers
 * and CPUs (tracecmd_iterate_events_multi, stopped whenever enough
 * records are made and resumed where it stopped); each block event's fields are read by name
 * from the format the file itself holds, so a kernel that moves them is
 * read alike, and become the records of blocktp.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blocktp.h"
#include "tracedat.h"

#define TRACEDAT_MAGIC		"\x17\x08\x44tracing"
#define TRACEDAT_MAGIC_LEN	10

int tracedat_looks(const unsigned char *p, size_t len)
{
	return len >= TRACEDAT_MAGIC_LEN &&
	       !memcmp(p, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN);
}

#ifndef HAVE_TRACECMD

struct tracedat {
	int unused;
};

struct tracedat *tracedat_open(struct byte_source *src,
			       const unsigned char *first, size_t n,
			       const char *path, struct iow_error *err)
{
	(void)src, (void)first, (void)n;
	iow_fail(err, "%s: a trace-cmd recording (trace.dat), and this iowatcher was built without libtracecmd: install libtracecmd-dev and rebuild, or give the text of trace-cmd's events as perf script prints them (perf record -e 'block:*')",
		 path);
	return NULL;
}

ssize_t tracedat_read(struct tracedat *t, unsigned char *buf, size_t len,
		      struct iow_error *err)
{
	(void)t, (void)buf, (void)len;
	return iow_fail(err, "trace.dat: not read in this build");
}

void tracedat_free(struct tracedat *t)
{
	free(t);
}

#else

#include <dlfcn.h>
#include <pthread.h>
#include <trace-cmd.h>

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
	X(tep_find_event_by_record) X(tep_find_field) \
	X(tep_read_number_field) X(tep_data_pid) X(tep_data_comm_from_pid)
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

/* A block event's fields as the file's format places them. */
struct event_fields {
	struct tep_event *event;
	const struct blocktp_event *be;	/* NULL: not a block event */
	struct tep_format_field *dev, *sector, *nr_sector, *bytes, *error,
		*rwbs, *comm, *cmd, *new_sector, *old_dev, *old_sector;
};

struct tracedat {
	const char *path;
	struct tracecmd_input *handle;
	/* the file's buffers: the top one, then its instances' */
	struct tracecmd_input **buffers;
	int n_buffers;
	struct tep_handle *tep;
	struct blocktp_out records;
	uint64_t other_events;
	struct event_fields *events;	/* the kinds met so far */
	size_t n_events;
	size_t want;		/* stop the iteration at this many bytes */
	int at_end;
	int failed;
	struct iow_error failure;
};

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

/*
 * A version-6 file whose CPU data is cut short makes libtracecmd 1.3
 * print "File possibly truncated" to standard output (and crash, were
 * the file closed: tracedat_open), so the ends of that data are checked
 * here first, from the headers trace-cmd.dat(5) describes: each
 * section's size, then the CPUs' offsets and sizes after "flyrecord".
 * Version 7 keeps them in sections that a cut loses first, which
 * libtracecmd notices before it looks at the CPUs.
 */
struct v6_cursor {
	int fd, swap;
	uint64_t at, size;
};

static int v6_bytes(struct v6_cursor *c, void *buf, size_t n)
{
	if (c->at + n > c->size ||
	    pread(c->fd, buf, n, (off_t)c->at) != (ssize_t)n)
		return -1;
	c->at += n;
	return 0;
}

static int v6_number(struct v6_cursor *c, size_t n, uint64_t *v)
{
	uint32_t v32;

	if (n == 4) {
		if (v6_bytes(c, &v32, 4))
			return -1;
		*v = c->swap ? __builtin_bswap32(v32) : v32;
		return 0;
	}
	if (v6_bytes(c, v, 8))
		return -1;
	if (c->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

/* Steps over a size (n bytes) and the data it counts. */
static int v6_skip_sized(struct v6_cursor *c, size_t n)
{
	uint64_t size;

	if (v6_number(c, n, &size) || size > c->size - c->at)
		return -1;
	c->at += size;
	return 0;
}

static int v6_skip_string(struct v6_cursor *c)
{
	char ch;

	do {
		if (v6_bytes(c, &ch, 1))
			return -1;
	} while (ch);
	return 0;
}

/* Steps over the headers up to the number of CPUs; 0, or -1 cut short. */
static int v6_headers(struct v6_cursor *c, uint64_t *cpus)
{
	uint64_t count, events, i, j;
	char word[6];

	c->at = TRACEDAT_MAGIC_LEN;
	if (v6_skip_string(c) || v6_bytes(c, word, 6))	/* version, sizes */
		return -1;
	/* header_page and header_event, each a name and a sized blob */
	for (i = 0; i < 2; i++)
		if (v6_skip_string(c) || v6_skip_sized(c, 8))
			return -1;
	if (v6_number(c, 4, &count))	/* ftrace's own events */
		return -1;
	for (i = 0; i < count; i++)
		if (v6_skip_sized(c, 8))
			return -1;
	if (v6_number(c, 4, &count))	/* the systems' events */
		return -1;
	for (i = 0; i < count; i++) {
		if (v6_skip_string(c) || v6_number(c, 4, &events))
			return -1;
		for (j = 0; j < events; j++)
			if (v6_skip_sized(c, 8))
				return -1;
	}
	/* kallsyms, printk's formats, the saved pids' names */
	return v6_skip_sized(c, 4) || v6_skip_sized(c, 4) ||
	       v6_skip_sized(c, 8) || v6_number(c, 4, cpus) ? -1 : 0;
}

#define V6_OPTION_BUFFER	3	/* an instance's buffer: its offset */
#define V6_BUFFERS_MAX		64

/*
 * A buffer's options and CPU table, at c->at: the options' BUFFER
 * offsets into buffers (room for V6_BUFFERS_MAX, *n_buffers of them; NULL
 * for an instance's), then each CPU's data checked against the file's
 * end. 0, 1 for a latency trace (no CPU data), -1 cut in the headers, -2
 * a CPU's data past the end (*cpu, *end say which).
 */
static int v6_buffer(struct v6_cursor *c, uint64_t cpus, uint64_t *buffers,
		     size_t *n_buffers, uint64_t *cpu, uint64_t *end)
{
	uint64_t size, offset;
	uint16_t id;
	char word[10];

	if (v6_bytes(c, word, 10))
		return -1;
	while (!strncmp(word, "options", 7)) {
		for (;;) {
			if (v6_bytes(c, &id, 2))
				return -1;
			if (!id)
				break;
			if (c->swap)
				id = __builtin_bswap16(id);
			if (v6_number(c, 4, &size) || size > c->size - c->at)
				return -1;
			if (id == V6_OPTION_BUFFER && buffers && size >= 8 &&
			    *n_buffers < V6_BUFFERS_MAX &&
			    v6_number(c, 8, &buffers[(*n_buffers)++]) == 0)
				size -= 8;
			c->at += size;
		}
		if (v6_bytes(c, word, 10))
			return -1;
	}
	if (strncmp(word, "flyrecord", 9))
		return 1;
	for (*cpu = 0; *cpu < cpus; (*cpu)++) {
		if (v6_number(c, 8, &offset) || v6_number(c, 8, &size))
			return -1;
		*end = offset + size;
		if (size && (offset > c->size || size > c->size - offset))
			return -2;
	}
	return 0;
}

static int v6_whole(int fd, const char *path, struct iow_error *err)
{
	struct v6_cursor c = { .fd = fd };
	unsigned char head[TRACEDAT_MAGIC_LEN + 8];
	uint64_t buffers[V6_BUFFERS_MAX], cpus, cpu = 0, end = 0;
	size_t n_buffers = 0, i;
	struct stat st;
	int r;

	if (fstat(fd, &st) ||
	    pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return 0;	/* libtracecmd says what is wrong */
	if (memcmp(head + TRACEDAT_MAGIC_LEN, "6", 2))
		return 0;
	c.size = (uint64_t)st.st_size;
	c.swap = head[TRACEDAT_MAGIC_LEN + 2] !=
		 (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	r = v6_headers(&c, &cpus);
	if (r == 0)
		r = v6_buffer(&c, cpus, buffers, &n_buffers, &cpu, &end);
	for (i = 0; r == 0 && i < n_buffers; i++) {
		c.at = buffers[i];
		r = v6_buffer(&c, cpus, NULL, NULL, &cpu, &end);
	}
	if (r == -2)
		return iow_fail(err, "%s: cut short: the data of CPU %llu ends at byte %llu, past the file's end (%llu bytes)",
				path, (unsigned long long)cpu,
				(unsigned long long)end,
				(unsigned long long)c.size);
	if (r < 0)
		return iow_fail(err, "%s: cut short at byte %llu, in trace-cmd's headers (%llu bytes)",
				path, (unsigned long long)c.at,
				(unsigned long long)c.size);
	return 0;
}

/* The top buffer and every instance's (trace-cmd record -B NAME). */
static int open_buffers(struct tracedat *t, struct iow_error *err)
{
	int n = lib.tracecmd_buffer_instances(t->handle), i;

	t->buffers = calloc((size_t)n + 1, sizeof(*t->buffers));
	if (!t->buffers)
		return iow_fail(err, "out of memory");
	t->buffers[t->n_buffers++] = t->handle;
	for (i = 0; i < n; i++) {
		struct tracecmd_input *b =
			lib.tracecmd_buffer_instance_handle(t->handle, i);

		if (!b)
			return iow_fail(err, "%s: libtracecmd cannot read the buffer '%s' of this trace.dat (cut short or damaged)",
					t->path, lib.tracecmd_buffer_instance_name(t->handle, i));
		t->buffers[t->n_buffers++] = b;
	}
	return 0;
}

struct tracedat *tracedat_open(struct byte_source *src,
			       const unsigned char *first, size_t n,
			       const char *path, struct iow_error *err)
{
	char lib_path[64];
	struct tracedat *t;
	int copied, fd;

	if (lib_ready(path, err) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	t->path = path;
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
	if (v6_whole(fd, path, err) < 0) {
		close(fd);
		free(t);
		return NULL;
	}
	/*
	 * Its headers, then its CPUs' data: libtracecmd 1.3 crashes when
	 * it closes a file whose CPU data it failed to set up (as
	 * tracecmd_open does then), so such a handle is left unclosed, the
	 * error being the end of the program's reading.
	 */
	snprintf(lib_path, sizeof(lib_path), "/proc/self/fd/%d", fd);
	t->handle = lib.tracecmd_open_head(copied ? lib_path : path,
					   TRACECMD_FL_LOAD_NO_PLUGINS);
	close(fd);
	if (!t->handle || lib.tracecmd_init_data(t->handle) < 0) {
		iow_fail(err, "%s: libtracecmd cannot read this trace.dat (%s, damaged, or a version it does not know): trace-cmd report -i %s says more",
			 path, t->handle ? "its CPU data cut short" : "cut short",
			 copied ? "FILE (decompressed)" : path);
		free(t);
		return NULL;
	}
	t->tep = lib.tracecmd_get_tep(t->handle);
	if (open_buffers(t, err) < 0) {
		tracedat_free(t);
		return NULL;
	}
	return t;
}

/* ---- one record ---- */

static struct tep_format_field *field(struct tep_event *event,
				      const char *name)
{
	return lib.tep_find_field(event, name);
}

/* The fields a block event's shape needs, or NULL where one is missing
 * (the name of the first in *missing). */
static int find_fields(struct event_fields *ef, const char **missing)
{
	struct tep_event *e = ef->event;
	enum blocktp_shape shape = ef->be->shape;

#define NEED(member, name) \
	do { if (!(ef->member = field(e, name))) { *missing = name; \
		return -1; } } while (0)
	if (shape == BLOCKTP_SKIP)
		return 0;
	NEED(dev, "dev");
	NEED(sector, "sector");
	NEED(rwbs, "rwbs");
	ef->comm = field(e, "comm");
	if (shape == BLOCKTP_SPLIT) {
		NEED(new_sector, "new_sector");
		return 0;
	}
	NEED(nr_sector, "nr_sector");
	if (shape == BLOCKTP_RQ)
		NEED(bytes, "bytes");
	if (shape == BLOCKTP_RQ || shape == BLOCKTP_RQ_DONE)
		NEED(cmd, "cmd");
	if (shape == BLOCKTP_BIO_DONE)
		NEED(error, "error");
	if (shape == BLOCKTP_RQ_DONE)
		ef->error = field(e, "error");	/* a requeue has none */
	if (shape == BLOCKTP_REMAP) {
		NEED(old_dev, "old_dev");
		NEED(old_sector, "old_sector");
	}
#undef NEED
	return 0;
}

static int record_fail(struct tracedat *t, const struct tep_record *rec,
		       const char *fmt, const char *a, const char *b)
{
	char what[256];

	snprintf(what, sizeof(what), fmt, a, b);
	t->failed = 1;
	return iow_fail(&t->failure, "%s: the event at byte %llu (CPU %d, %llu ns): %s",
			t->path, (unsigned long long)rec->offset, rec->cpu,
			(unsigned long long)rec->ts, what);
}

/* The kind of rec's event, its fields looked up once. NULL on an error. */
static struct event_fields *event_kind(struct tracedat *t,
				       struct tep_record *rec)
{
	struct tep_event *e = lib.tep_find_event_by_record(t->tep, rec);
	struct event_fields *ef;
	const char *missing = NULL;
	size_t i;

	if (!e) {
		record_fail(t, rec, "an event of no format the file holds%s%s",
			    "", "");
		return NULL;
	}
	for (i = 0; i < t->n_events; i++)
		if (t->events[i].event == e)
			return &t->events[i];
	ef = realloc(t->events, (t->n_events + 1) * sizeof(*ef));
	if (!ef) {
		record_fail(t, rec, "out of memory%s%s", "", "");
		return NULL;
	}
	t->events = ef;
	ef += t->n_events;
	memset(ef, 0, sizeof(*ef));
	ef->event = e;
	if (e->system && !strcmp(e->system, "block")) {
		ef->be = blocktp_find(e->name, strlen(e->name));
		if (!ef->be) {
			record_fail(t, rec, "an unknown block event block:%s (iowatcher reads block_bio_queue, block_rq_issue, block_rq_complete and the rest of Linux 6's block events)%s",
				    e->name, "");
			return NULL;
		}
		if (find_fields(ef, &missing) < 0) {
			record_fail(t, rec, "block:%s has no field '%s' in the format this file holds",
				    e->name, missing);
			return NULL;
		}
	}
	t->n_events++;
	return ef;
}

static int number(const struct tep_format_field *f, const struct tep_record *rec,
		  uint64_t *v)
{
	unsigned long long n;

	if (!f || f->offset < 0 || f->size <= 0 ||
	    f->offset + f->size > rec->size ||
	    lib.tep_read_number_field((struct tep_format_field *)f, rec->data, &n))
		return -1;
	*v = n;
	return 0;
}

/* A char array field, NUL-terminated into buf (size bytes). */
static int text(const struct tep_format_field *f, const struct tep_record *rec,
		char *buf, size_t size)
{
	size_t n;

	if (!f || f->offset < 0 || f->size <= 0 ||
	    f->offset + f->size > rec->size)
		return -1;
	n = (size_t)f->size < size - 1 ? (size_t)f->size : size - 1;
	memcpy(buf, (const char *)rec->data + f->offset, n);
	buf[n] = '\0';
	return 0;
}

/* cmd, a __data_loc string: a passthrough command's bytes, empty for
 * file system I/O. */
static int passthrough(const struct tep_format_field *f,
		       const struct tep_record *rec, int *yes)
{
	uint64_t loc;
	unsigned offset, len;

	if (number(f, rec, &loc) < 0)
		return -1;
	offset = (unsigned)(loc & 0xffff);
	len = (unsigned)(loc >> 16);
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		offset += (unsigned)(f->offset + f->size);
	if (offset + len > (unsigned)rec->size)
		return -1;
	*yes = len > 1 && ((const char *)rec->data)[offset] != '\0';
	return 0;
}

static int read_fields(const struct event_fields *ef,
		       const struct tep_record *rec, struct blocktp_fields *f,
		       char *rwbs)
{
	uint64_t v = 0;
	const char *p = rwbs;
	int pass = 0;

	memset(f, 0, sizeof(*f));
	if (number(ef->dev, rec, &v) < 0)
		return -1;
	f->dev = (uint32_t)v;
	if (number(ef->sector, rec, &v) < 0)
		return -1;
	f->sector = v;
	if (text(ef->rwbs, rec, rwbs, RWBS_MAX) < 0)
		return -1;
	if (blocktp_rwbs(&p, &f->what) < 0 || *p)
		return -2;
	if (ef->new_sector)
		return number(ef->new_sector, rec, &f->rest_sector);
	if (number(ef->nr_sector, rec, &f->nr_sector) < 0)
		return -1;
	if (ef->bytes) {
		if (number(ef->bytes, rec, &f->bytes) < 0)
			return -1;
		f->has_bytes = 1;
	}
	if (ef->cmd && passthrough(ef->cmd, rec, &pass) < 0)
		return -1;
	f->passthrough = pass;
	if (ef->error) {
		if (number(ef->error, rec, &v) < 0)
			return -1;
		f->error = (uint16_t)v;
	}
	if (ef->old_dev) {
		if (number(ef->old_dev, rec, &v) < 0 ||
		    number(ef->old_sector, rec, &f->from_sector) < 0)
			return -1;
		f->from_dev = (uint32_t)v;
	}
	return 0;
}

static int translate(struct tracedat *t, struct tep_record *rec)
{
	struct event_fields *ef;
	struct blocktp_fields f;
	struct blocktp_task task;
	char rwbs[RWBS_MAX], comm[COMM_MAX] = "";
	uint32_t cpu = (uint32_t)rec->cpu;
	int r;

	if (rec->missed_events &&
	    blocktp_lost(&t->records, cpu, rec->ts,
			 rec->missed_events > 0 ?
				 (uint64_t)rec->missed_events : 0,
			 rec->missed_events > 0) < 0)
		return record_fail(t, rec, "out of memory%s%s", "", "");
	if (!(ef = event_kind(t, rec)))
		return -1;
	if (!ef->be) {
		t->other_events++;
		if (blocktp_see_cpu(&t->records, cpu, rec->ts) < 0)
			return record_fail(t, rec, "out of memory%s%s", "", "");
		return 0;
	}
	memset(&f, 0, sizeof(f));
	if (ef->be->shape != BLOCKTP_SKIP &&
	    (r = read_fields(ef, rec, &f, rwbs)) < 0)
		return record_fail(t, rec, r == -2 ?
				   "block:%s's rwbs \"%s\" is not one the kernel writes" :
				   "block:%s is shorter than its format's fields%s",
				   ef->event->name, r == -2 ? rwbs : "");
	/* the task's name: the event's own (the task it ran in), else the
	 * one trace-cmd saved for its pid */
	if (ef->comm && text(ef->comm, rec, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	task.pid = (uint32_t)lib.tep_data_pid(t->tep, rec);
	if (!comm[0])
		snprintf(comm, sizeof(comm), "%s",
			 lib.tep_data_comm_from_pid(t->tep, (int)task.pid));
	task.time_ns = rec->ts;
	task.cpu = cpu;
	task.comm = comm;
	task.comm_len = strlen(comm);
	if (blocktp_emit(&t->records, ef->be, &f, &task) < 0)
		return record_fail(t, rec, "out of memory%s%s", "", "");
	return 0;
}

/* ---- reading ---- */

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	struct tracedat *t = data;

	(void)handle, (void)cpu;
	if (translate(t, rec) < 0)
		return -1;
	return blocktp_pending(&t->records) >= t->want;
}

ssize_t tracedat_read(struct tracedat *t, unsigned char *buf, size_t len,
		      struct iow_error *err)
{
	while (!t->at_end && blocktp_pending(&t->records) < len) {
		int r;

		t->want = len;
		r = lib.tracecmd_iterate_events_multi(t->buffers, t->n_buffers,
						      on_record, t);
		if (t->failed) {
			*err = t->failure;
			return -1;
		}
		if (r < 0)
			return iow_fail(err, "%s: libtracecmd could not read the events (out of memory)",
					t->path);
		if (r == 0)
			t->at_end = 1;
	}
	if (!blocktp_pending(&t->records) && !t->records.block_events)
		return iow_fail(err, t->other_events ?
				"%s: trace-cmd's trace.dat holds no block events (record them with trace-cmd record -e block)" :
				"%s: trace-cmd's trace.dat holds no events",
				t->path);
	return (ssize_t)blocktp_take(&t->records, buf, len);
}

void tracedat_free(struct tracedat *t)
{
	if (!t)
		return;
	while (t->n_buffers > 1)	/* an instance's holds the top's */
		lib.tracecmd_close(t->buffers[--t->n_buffers]);
	if (t->handle)
		lib.tracecmd_close(t->handle);
	free(t->buffers);
	blocktp_out_free(&t->records);
	free(t->events);
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
