/*
 * ftrace_rec.c: recording through the kernel's ftrace 'blk' tracer, for
 * machines where blktrace's relay files are refused. Switches the tracer
 * on (saving every setting it touches), turns the binary trace_pipe into
 * blktrace's per-CPU files, and puts every setting back.
 *
 * What trace_pipe carries with 'bin' set, as dumped on Linux 6.18: a
 * 16-byte prefix (i32 pid, i32 cpu, u64 timestamp), then a v7 record
 * whose time equals the prefix timestamp, whose cpu is already filled in
 * and whose sequence is 0; no notes. Lost events arrive as text lines
 * "CPU:N [LOST M EVENTS]" inside the binary stream, other enabled ftrace
 * events as a bare prefix; both are stepped over.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blktrace.h"
#include "bytebuf.h"
#include "ftrace_rec.h"
#include "rec_out.h"
#include "recorder.h"

#define DEBUGFS_DIR		"/sys/kernel/debug"
#define TRACEFS_DIR		"/sys/kernel/tracing"
#define BLK_V7_MAGIC		(BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7)
#define PIPE_RECORD_MIN		(FTRACE_PIPE_PREFIX_SIZE + BLK_IO_TRACE7_SIZE)
#define LOST_LINE_MAX		96
#define CPU_LIMIT		8192
#define PID_LIMIT		(1u << 22)	/* the kernel's PID_MAX_LIMIT */
#define READS_PER_PUMP		64
#define DRAIN_PUMPS_MAX		1024	/* 256 MiB, should the stop fail */

_Static_assert(sizeof(struct blk_io_trace) == BLK_IO_TRACE7_SIZE,
	       "struct blk_io_trace must match the on-disk v7 record");

/* ---- tracefs and the devices ---- */

static int is_fs(const char *path, long magic)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && (long)sfs.f_type == magic;
}

static int use_if_tracefs(struct tracefs *t, const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/trace_pipe", dir);
	if (access(path, F_OK))
		return 0;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	return 1;
}

int tracefs_setup(struct tracefs *t, struct iow_error *err)
{
	int debugfs_errno = 0;

	memset(t, 0, sizeof(*t));
	/* blktrace needs debugfs; ftrace is happy with tracefs alone */
	if (!is_fs(DEBUGFS_DIR, DEBUGFS_MAGIC)) {
		if (mount("debugfs", DEBUGFS_DIR, "debugfs", 0, NULL) == 0)
			t->mounted_debugfs = 1;
		else
			debugfs_errno = errno;
	}
	if (use_if_tracefs(t, TRACEFS_DIR) ||
	    use_if_tracefs(t, DEBUGFS_DIR "/tracing"))
		return 0;
	if (mount("tracefs", TRACEFS_DIR, "tracefs", 0, NULL) == 0) {
		t->mounted_tracefs = 1;
		if (use_if_tracefs(t, TRACEFS_DIR))
			return 0;
		errno = ENOENT;
	}
	iow_fail(err, "cannot mount tracefs on %s: %s%s%s", TRACEFS_DIR,
		 strerror(errno), debugfs_errno ? "; debugfs: " : "",
		 debugfs_errno ? strerror(debugfs_errno) : "");
	tracefs_release(t);
	return -1;
}

void tracefs_release(struct tracefs *t)
{
	if (t->mounted_tracefs)
		umount2(TRACEFS_DIR, MNT_DETACH);
	if (t->mounted_debugfs) {
		/* the kernel automounts tracefs inside debugfs */
		umount2(DEBUGFS_DIR "/tracing", MNT_DETACH);
		umount2(DEBUGFS_DIR, MNT_DETACH);
	}
	t->mounted_tracefs = t->mounted_debugfs = 0;
}

int tracefs_read(const char *path, char *buf, size_t size,
		 struct iow_error *err)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int saved_errno = errno;

		iow_fail(err, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		errno = saved_errno;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int tracefs_write(const char *path, const char *value,
		  struct iow_error *err)
{
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	if (write(fd, value, len) != (ssize_t)len) {
		int saved_errno = errno;

		iow_fail(err, "cannot write '%s' to %s: %s", value, path,
			 strerror(errno));
		close(fd);
		errno = saved_errno;
		return -1;
	}
	close(fd);
	return 0;
}

static void tfs_path(const struct tracefs *t, const char *file, char *path)
{
	snprintf(path, PATH_MAX, "%s/%s", t->dir, file);
}

/* A bare name's MAJ:MIN from /sys/class/block/NAME/dev (a device with no
 * /dev node: in a container); 0, or -1. */
static int sysfs_dev(const char *name, unsigned *maj, unsigned *min)
{
	char path[PATH_MAX], value[32];

	if (strchr(name, '/') || !name[0] || name[0] == '.')
		return -1;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (tracefs_read(path, value, sizeof(value), NULL) ||
	    sscanf(value, "%u:%u", maj, min) != 2)
		return -1;
	return 0;
}

int record_device_resolve(struct record_device *d, const char *path,
			  struct iow_error *err)
{
	struct stat st;
	unsigned maj, min;
	int found;

	memset(d, 0, sizeof(*d));
	d->path = path;
	found = stat(path, &st) == 0;
	/* a bare name, as the man page says: /dev/NAME, else sysfs's */
	if (!found && !strchr(path, '/')) {
		snprintf(d->node, sizeof(d->node), "/dev/%s", path);
		found = stat(d->node, &st) == 0;
		if (!found && sysfs_dev(path, &maj, &min) == 0) {
			d->node[0] = '\0';
			goto have_dev;
		}
	} else if (found) {
		snprintf(d->node, sizeof(d->node), "%s", path);
	}
	if (!found)
		return iow_fail(err, "no such device: %s (neither a path nor a name in /dev or /sys/block: lsblk lists them)",
				path);
	if (!S_ISBLK(st.st_mode))
		return iow_fail(err, "no such device: %s is not a block device",
				path);
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
have_dev:
	/* works for partitions as for whole disks */
	snprintf(d->trace_dir, sizeof(d->trace_dir),
		 "/sys/dev/block/%u:%u/trace", maj, min);
	if (access(d->trace_dir, F_OK))
		return iow_fail(err, "%s: the kernel offers no block tracing "
				"for it (%s: %s)", path, d->trace_dir,
				strerror(errno));
	d->dev = (uint32_t)(maj << 20 | min);
	return 0;
}

int ftrace_check_idle(const struct tracefs *t,
		      const struct record_device *devs, size_t n_devs,
		      struct iow_error *err)
{
	char path[PATH_MAX], value[64];
	size_t i;

	tfs_path(t, "current_tracer", path);
	if (tracefs_read(path, value, sizeof(value), err))
		return -1;
	if (!strcmp(value, "blk"))
		return iow_fail(err, "device busy with another trace: "
				"current_tracer is already 'blk'");
	for (i = 0; i < n_devs; i++) {
		snprintf(path, sizeof(path), "%s/enable", devs[i].trace_dir);
		if (tracefs_read(path, value, sizeof(value), err))
			return -1;
		if (value[0] == '1')
			return iow_fail(err, "%s: device busy with another "
					"trace (%s is 1)", devs[i].path, path);
	}
	return 0;
}

/* ---- process names ---- */

static int comm_from_saved_cmdlines(const char *tracing_dir, uint32_t pid,
				    char *comm, size_t size)
{
	char path[PATH_MAX], line[256], *name;
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracing_dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (strtoul(line, &name, 10) != pid || *name != ' ')
			continue;
		name[strcspn(name, "\n")] = '\0';
		snprintf(comm, size, "%s", name + 1);
		found = 0;
	}
	fclose(f);
	return found;
}

int ftrace_comm_lookup(void *ctx, uint32_t pid, char *comm, size_t size)
{
	const struct tracefs *t = ctx;
	char path[64];

	if (pid == 0) {
		/* the idle task, completing I/O from an interrupt */
		snprintf(comm, size, "swapper");
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (tracefs_read(path, comm, size, NULL) == 0 && comm[0])
		return 0;
	return t ? comm_from_saved_cmdlines(t->dir, pid, comm, size) : -1;
}

/* ---- trace_pipe bytes to per-CPU files ---- */

/* Events a "[LOST n EVENTS]" line announced, waiting for the CPU's next
 * record: its time is when the loss ends. */
struct pending_loss {
	uint64_t count;
	int known, set;
	uint64_t t0_ns;
};

struct ftrace_conv {
	struct rec_out *out;		/* DIR/NAME.blktrace.<cpu> */
	unsigned char *pid_seen;	/* bitmap: a PROCESS note written */
	size_t pid_seen_bytes;
	struct bytebuf pending;		/* bytes not yet a whole record */
	struct pending_loss *losses;	/* per CPU */
	unsigned n_losses;
	uint32_t *devices;		/* the loss notes' devices */
	size_t n_devices;
	ftrace_comm_fn comm;
	void *comm_ctx;
	struct ftrace_conv_stats st;
};

/* 1 the first time pid is seen, 0 after, -1 out of memory. */
static int pid_first_sight(struct ftrace_conv *c, uint32_t pid)
{
	size_t byte = pid / 8;
	unsigned char bit = 1u << (pid % 8);

	if (pid >= PID_LIMIT)
		return 0;
	if (byte >= c->pid_seen_bytes) {
		size_t size = byte + 4096;
		unsigned char *p = realloc(c->pid_seen, size);

		if (!p)
			return -1;
		memset(p + c->pid_seen_bytes, 0, size - c->pid_seen_bytes);
		c->pid_seen = p;
		c->pid_seen_bytes = size;
	}
	if (c->pid_seen[byte] & bit)
		return 0;
	c->pid_seen[byte] |= bit;
	return 1;
}

/* Named as blktrace's kernel side would: at the pid's first event. */
static int write_process_note(struct ftrace_conv *c,
			      const struct blk_io_trace *io,
			      struct iow_error *err)
{
	char comm[64];
	struct blk_io_trace note = {
		.magic = BLK_V7_MAGIC,
		.time = io->time,
		.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_PROCESS,
		.pid = io->pid,
		.device = io->device,
		.cpu = io->cpu,
	};

	if (c->comm(c->comm_ctx, io->pid, comm, sizeof(comm)))
		return 0;	/* gone without a trace: no name to give */
	note.pdu_len = (uint16_t)(strlen(comm) + 1);
	return rec_out_put(c->out, &note, comm, err);
}

int ftrace_conv_timestamp(struct ftrace_conv *c, uint32_t device,
			  uint64_t mono_ns, const struct timespec *wall,
			  struct iow_error *err)
{
	uint32_t words[2] = { (uint32_t)wall->tv_sec,
			      (uint32_t)wall->tv_nsec };
	struct blk_io_trace note = {
		.magic = BLK_V7_MAGIC,
		.time = mono_ns,
		.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_TIMESTAMP,
		.pid = (uint32_t)getpid(),
		.device = device,
		.pdu_len = sizeof(words),
	};

	return rec_out_put(c->out, &note, words, err);
}

int ftrace_conv_set_devices(struct ftrace_conv *c, const uint32_t *devices,
			    size_t n, struct iow_error *err)
{
	uint32_t *copy = malloc((n ? n : 1) * sizeof(*copy));

	if (!copy)
		return iow_fail(err, "out of memory");
	memcpy(copy, devices, n * sizeof(*copy));
	free(c->devices);
	c->devices = copy;
	c->n_devices = n;
	return 0;
}

/* The loss notes' devices: those set, else those seen (one note each,
 * so that a -d MAJ,MIN filter keeps it), else device 0. */
static int write_loss(struct ftrace_conv *c, unsigned cpu,
		      const struct pending_loss *p, uint64_t t1,
		      struct iow_error *err)
{
	struct lossnote n = { p->known ? p->count : 0, p->known, cpu,
			      p->t0_ns, t1 };
	static const uint32_t none = 0;

	if (c->n_devices)
		return rec_out_loss(c->out, &n, c->devices, c->n_devices, err);
	return rec_out_loss(c->out, &n, &none, 1, err);
}

/* A "[LOST n EVENTS]" line: kept for the CPU's next record. */
static int note_lost_line(struct ftrace_conv *c, unsigned cpu,
			  uint64_t count, int known, struct iow_error *err)
{
	struct pending_loss *p;

	if (cpu >= CPU_LIMIT)
		return 0;
	if (cpu >= c->n_losses) {
		p = realloc(c->losses, (cpu + 1) * sizeof(*p));
		if (!p)
			return iow_fail(err, "out of memory");
		memset(p + c->n_losses, 0,
		       (cpu + 1 - c->n_losses) * sizeof(*p));
		c->losses = p;
		c->n_losses = cpu + 1;
	}
	p = &c->losses[cpu];
	if (!p->set)
		p->t0_ns = rec_out_last_time(c->out, cpu);
	p->set = 1;
	p->count += count;
	p->known = known && (p->known || p->count == count);
	return 0;
}

/* Before cpu's next record (at t1), or at the end: the note. */
static int flush_loss(struct ftrace_conv *c, unsigned cpu, uint64_t t1,
		      struct iow_error *err)
{
	struct pending_loss *p = cpu < c->n_losses ? &c->losses[cpu] : NULL;
	int rc;

	if (!p || !p->set)
		return 0;
	rc = write_loss(c, cpu, p, t1, err);
	memset(p, 0, sizeof(*p));
	return rc;
}

static int convert_record(struct ftrace_conv *c, const unsigned char *p,
			  struct iow_error *err)
{
	struct blk_io_trace t;
	int32_t cpu;
	int first;

	memcpy(&cpu, p + 4, sizeof(cpu));
	memcpy(&t, p + FTRACE_PIPE_PREFIX_SIZE, sizeof(t));
	if (cpu < 0)
		return iow_fail(err, "trace_pipe: negative cpu %d", cpu);
	t.cpu = (uint32_t)cpu;
	first = pid_first_sight(c, t.pid);
	if (first < 0)
		return iow_fail(err, "out of memory");
	if (flush_loss(c, t.cpu, t.time, err))
		return -1;
	if (first && write_process_note(c, &t, err))
		return -1;
	return rec_out_put(c->out, &t, p + PIPE_RECORD_MIN, err);
}

enum pipe_chunk { CHUNK_RECORD, CHUNK_LOST_LINE, CHUNK_GARBAGE,
		  CHUNK_NEED_MORE };

static int is_record(const unsigned char *p, size_t avail)
{
	uint32_t magic;
	uint64_t prefix_time, record_time;

	if (avail < PIPE_RECORD_MIN)
		return 0;
	memcpy(&magic, p + FTRACE_PIPE_PREFIX_SIZE, sizeof(magic));
	memcpy(&prefix_time, p + 8, sizeof(prefix_time));
	memcpy(&record_time, p + FTRACE_PIPE_PREFIX_SIZE + 8,
	       sizeof(record_time));
	return magic == BLK_V7_MAGIC && prefix_time == record_time;
}

/* A "[LOST n EVENTS]" line: which CPU, how many (if said). */
struct lost_line {
	unsigned cpu;
	uint64_t count;
	int known;
};

/* "CPU:1 [LOST 42 EVENTS]\n" (or "[LOST EVENTS]", count unknown). */
static enum pipe_chunk lost_line(const unsigned char *p, size_t avail,
				 size_t *len, struct lost_line *l)
{
	char line[LOST_LINE_MAX + 1];
	const unsigned char *nl;
	unsigned long long n;

	if (avail < 4)
		return CHUNK_NEED_MORE;
	if (memcmp(p, "CPU:", 4))
		return CHUNK_GARBAGE;
	nl = memchr(p, '\n', avail < LOST_LINE_MAX ? avail : LOST_LINE_MAX);
	if (!nl)
		return avail < LOST_LINE_MAX ? CHUNK_NEED_MORE : CHUNK_GARBAGE;
	*len = (size_t)(nl - p) + 1;
	memcpy(line, p, *len - 1);
	line[*len - 1] = '\0';
	l->known = 0;
	l->count = 0;
	if (sscanf(line, "CPU:%u [LOST %llu EVENTS]", &l->cpu, &n) == 2) {
		l->count = n;
		l->known = 1;
	} else if (sscanf(line, "CPU:%u", &l->cpu) != 1 ||
		   !strstr(line, "[LOST EVENTS]")) {
		return CHUNK_GARBAGE;
	}
	return CHUNK_LOST_LINE;
}

static enum pipe_chunk classify(const unsigned char *p, size_t avail,
				size_t *len, struct lost_line *lost)
{
	enum pipe_chunk kind;
	uint16_t pdu_len;

	*len = 1;
	if (is_record(p, avail)) {
		memcpy(&pdu_len, p + PIPE_RECORD_MIN - 2, sizeof(pdu_len));
		*len = PIPE_RECORD_MIN + pdu_len;
		return avail >= *len ? CHUNK_RECORD : CHUNK_NEED_MORE;
	}
	kind = lost_line(p, avail, len, lost);
	if (kind != CHUNK_GARBAGE)
		return kind;
	*len = 1;
	/* a record may still start here once the rest of it comes */
	return avail < PIPE_RECORD_MIN ? CHUNK_NEED_MORE : CHUNK_GARBAGE;
}

static int append(struct ftrace_conv *c, const void *data, size_t len,
		  struct iow_error *err)
{
	if (bytebuf_append(&c->pending, data, len) < 0)
		return iow_fail(err, "out of memory");
	return 0;
}

void ftrace_conv_set_tap(struct ftrace_conv *c, ftrace_tap_fn tap,
			 void *ctx)
{
	rec_out_set_tap(c->out, tap, ctx);
}

void ftrace_conv_stats(const struct ftrace_conv *c,
		       struct ftrace_conv_stats *st)
{
	struct rec_out_stats o;

	rec_out_stats(c->out, &o);
	*st = c->st;
	st->events = o.events;
	st->notes = o.notes;
	st->loss_windows = o.loss_windows;
	st->lost_unknown = o.lost_unknown;
	st->n_files = o.n_files;
}

int ftrace_conv_feed(struct ftrace_conv *c, const void *data, size_t len,
		     struct iow_error *err)
{
	struct lost_line lost;
	size_t pos = 0, n;
	int rc = 0;

	if (append(c, data, len, err))
		return -1;
	while (pos < c->pending.len && !rc) {
		switch (classify(c->pending.data + pos,
				 c->pending.len - pos, &n, &lost)) {
		case CHUNK_NEED_MORE:
			goto keep_rest;
		case CHUNK_RECORD:
			rc = convert_record(c, c->pending.data + pos, err);
			break;
		case CHUNK_LOST_LINE:
			c->st.lost += lost.count;
			rc = note_lost_line(c, lost.cpu, lost.count,
					    lost.known, err);
			break;
		case CHUNK_GARBAGE:
			c->st.bytes_skipped += n;
			break;
		}
		pos += n;
	}
keep_rest:
	memmove(c->pending.data, c->pending.data + pos, c->pending.len - pos);
	c->pending.len -= pos;
	return rc;
}

struct ftrace_conv *ftrace_conv_open(const char *dir, const char *name,
				     unsigned n_cpus, ftrace_comm_fn comm,
				     void *comm_ctx, struct iow_error *err)
{
	struct ftrace_conv *c = calloc(1, sizeof(*c));

	if (!c) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	c->comm = comm;
	c->comm_ctx = comm_ctx;
	c->out = rec_out_open(dir, name, n_cpus, err);
	if (!c->out) {
		free(c);
		return NULL;
	}
	return c;
}

/* Losses the pipe announced with no record after them: noticed now,
 * at the newest time their CPU's file holds. */
static int flush_losses(struct ftrace_conv *c, struct iow_error *err)
{
	unsigned cpu;
	uint64_t t1;

	for (cpu = 0; cpu < c->n_losses; cpu++) {
		t1 = rec_out_last_time(c->out, cpu);
		if (t1 < c->losses[cpu].t0_ns)
			t1 = c->losses[cpu].t0_ns;
		if (flush_loss(c, cpu, t1, err))
			return -1;
	}
	return 0;
}

int ftrace_conv_close(struct ftrace_conv *c, struct ftrace_conv_stats *st,
		      struct iow_error *err)
{
	int rc = flush_losses(c, err);

	c->st.bytes_truncated = c->pending.len;
	if (st)
		ftrace_conv_stats(c, st);
	if (rec_out_close(c->out, rc ? NULL : err))
		rc = -1;
	free(c->pid_seen);
	free(c->losses);
	free(c->devices);
	bytebuf_free(&c->pending);
	free(c);
	return rc;
}

/* ---- the tracer ---- */

struct saved_option {
	const char *name;	/* a file in options/ */
	char want;		/* '0' or '1' */
	char old;
	int changed;
};

static const struct saved_option wanted_options[] = {
	{ .name = "bin", .want = '1' },		 /* records, not text */
	{ .name = "context-info", .want = '1' }, /* the pid/cpu/ts prefix */
	{ .name = "blk_classic", .want = '0' },	 /* would print text */
	{ .name = "blk_cgroup", .want = '0' },	 /* would add cgroup ids */
};
#define N_OPTIONS (sizeof(wanted_options) / sizeof(wanted_options[0]))

struct ftrace_rec {
	const struct tracefs *tfs;
	struct record_device *devs;
	size_t n_devs;
	char old_tracer[64], old_clock[32], old_tracing_on[8];
	char old_buffer_kb[32];
	int tracer_changed, clock_changed, tracing_on_changed;
	int buffer_changed;
	int clock_is_mono;		/* CLOCK_MONOTONIC, as blktrace's */
	size_t buffer_kb;		/* per CPU, as in force */
	struct saved_option options[N_OPTIONS];
	int pipe_fd;
	struct ftrace_conv *conv;
	unsigned char read_buf[65536];
};

/* Reads file into old; writes want if it differs, noting it changed. */
static int swap_setting(const struct tracefs *t, const char *file,
			const char *want, char *old, size_t old_size,
			int *changed, struct iow_error *err)
{
	char path[PATH_MAX];

	tfs_path(t, file, path);
	if (tracefs_read(path, old, old_size, err))
		return -1;
	if (!strcmp(old, want))
		return 0;
	if (tracefs_write(path, want, err))
		return -1;
	*changed = 1;
	return 0;
}

static int set_options(struct ftrace_rec *r, struct iow_error *err)
{
	char path[PATH_MAX], file[64], value[8];
	size_t i;

	for (i = 0; i < N_OPTIONS; i++) {
		struct saved_option *o = &r->options[i];
		char want[2] = { wanted_options[i].want, '\0' };

		*o = wanted_options[i];
		snprintf(file, sizeof(file), "options/%s", o->name);
		tfs_path(r->tfs, file, path);
		/* kernels without the blk_* options never print that way */
		if (o->want == '0' && access(path, F_OK))
			continue;
		if (swap_setting(r->tfs, file, want, value, sizeof(value),
				 &o->changed, err))
			return -1;
		o->old = value[0];
	}
	return 0;
}

/* Whether the trace_clock list "[local] global ... mono ..." has name. */
static int offers_clock(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(list, name); p; p = strstr(p + n, name)) {
		char before = p == list ? ' ' : p[-1], after = p[n];

		if ((before == ' ' || before == '[') &&
		    (after == ' ' || after == ']' || after == '\0'))
			return 1;
	}
	return 0;
}

/* "[local] global ..." -> "local" */
static void current_clock(const char *list, char *current, size_t size)
{
	const char *open = strchr(list, '['), *close = strchr(list, ']');

	if (open && close && close > open)
		snprintf(current, size, "%.*s", (int)(close - open - 1),
			 open + 1);
}

/* The monotonic clock is blktrace's own, and the same on all CPUs. */
static int set_clock_mono(struct ftrace_rec *r, struct iow_error *err)
{
	char path[PATH_MAX], list[512];

	tfs_path(r->tfs, "trace_clock", path);
	if (tracefs_read(path, list, sizeof(list), err))
		return -1;
	current_clock(list, r->old_clock, sizeof(r->old_clock));
	if (!offers_clock(list, "mono"))
		return 0;
	if (strcmp(r->old_clock, "mono")) {
		if (tracefs_write(path, "mono", err))
			return -1;
		r->clock_changed = 1;
	}
	r->clock_is_mono = 1;
	return 0;
}

static int set_buffer_kb(struct ftrace_rec *r, size_t kb,
			 struct iow_error *err)
{
	char want[32];
	const char *expanded;

	snprintf(want, sizeof(want), "%zu", kb);
	if (swap_setting(r->tfs, "buffer_size_kb", want, r->old_buffer_kb,
			 sizeof(r->old_buffer_kb), &r->buffer_changed, err))
		return -1;
	/* "7 (expanded: 1408)": the size it has once a tracer runs */
	expanded = strstr(r->old_buffer_kb, "expanded: ");
	if (expanded)
		snprintf(r->old_buffer_kb, sizeof(r->old_buffer_kb), "%ld",
			 strtol(expanded + 10, NULL, 10));
	return 0;
}

static int devices_on(struct ftrace_rec *r, struct iow_error *err)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < r->n_devs; i++) {
		snprintf(path, sizeof(path), "%s/enable", r->devs[i].trace_dir);
		if (tracefs_write(path, "1", NULL))
			return iow_fail(err, "cannot enable tracing of %s "
					"(%s): %s", r->devs[i].path, path,
					strerror(errno));
		r->devs[i].enabled_by_us = 1;
	}
	return 0;
}

static int devices_off(struct ftrace_rec *r, struct iow_error *err)
{
	char path[PATH_MAX];
	size_t i;
	int rc = 0;

	for (i = 0; i < r->n_devs; i++) {
		if (!r->devs[i].enabled_by_us)
			continue;
		snprintf(path, sizeof(path), "%s/enable", r->devs[i].trace_dir);
		if (tracefs_write(path, "0", rc ? NULL : err))
			rc = -1;
		else
			r->devs[i].enabled_by_us = 0;
	}
	return rc;
}

static int restore_setting(const struct tracefs *t, const char *file,
			   const char *old, int *changed,
			   struct iow_error *err)
{
	char path[PATH_MAX];

	if (!*changed)
		return 0;
	tfs_path(t, file, path);
	if (tracefs_write(path, old, err))
		return -1;
	*changed = 0;
	return 0;
}

/* Puts back what start changed, newest first; keeps the first error. */
static int restore_state(struct ftrace_rec *r, struct iow_error *err)
{
	const struct tracefs *t = r->tfs;
	char file[64];
	size_t i;
	int rc = devices_off(r, err);

	if (r->pipe_fd >= 0)
		close(r->pipe_fd);
	r->pipe_fd = -1;
	for (i = 0; i < N_OPTIONS; i++) {
		char old[2] = { r->options[i].old, '\0' };

		snprintf(file, sizeof(file), "options/%s", r->options[i].name);
		if (restore_setting(t, file, old, &r->options[i].changed,
				    rc ? NULL : err))
			rc = -1;
	}
	/* the tracer cannot change while trace_pipe is open: closed above */
	if (restore_setting(t, "current_tracer", r->old_tracer,
			    &r->tracer_changed, rc ? NULL : err))
		rc = -1;
	if (restore_setting(t, "trace_clock", r->old_clock,
			    &r->clock_changed, rc ? NULL : err))
		rc = -1;
	if (restore_setting(t, "tracing_on", r->old_tracing_on,
			    &r->tracing_on_changed, rc ? NULL : err))
		rc = -1;
	if (restore_setting(t, "buffer_size_kb", r->old_buffer_kb,
			    &r->buffer_changed, rc ? NULL : err))
		rc = -1;
	return rc;
}

static unsigned configured_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned)n : 1;
}

static int open_output(struct ftrace_rec *r, const char *dir,
		       const char *name, struct iow_error *err)
{
	struct timespec mono, wall;

	uint32_t devices[64];
	size_t i, n = r->n_devs < 64 ? r->n_devs : 64;

	r->conv = ftrace_conv_open(dir, name, configured_cpus(),
				   ftrace_comm_lookup, (void *)r->tfs, err);
	if (!r->conv)
		return -1;
	for (i = 0; i < n; i++)
		devices[i] = r->devs[i].dev;
	if (ftrace_conv_set_devices(r->conv, devices, n, err))
		return -1;
	/* a wall-clock anchor, only meaningful in the trace's own clock */
	if (!r->clock_is_mono)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	return ftrace_conv_timestamp(r->conv, r->devs[0].dev,
				     (uint64_t)mono.tv_sec * 1000000000u +
				     (uint64_t)mono.tv_nsec, &wall, err);
}

static int open_pipe(struct ftrace_rec *r, struct iow_error *err)
{
	char path[PATH_MAX];

	tfs_path(r->tfs, "trace_pipe", path);
	r->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->pipe_fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	return 0;
}

struct ftrace_rec *ftrace_rec_start(const struct tracefs *t,
				    struct record_device *devs,
				    size_t n_devs, const char *dir,
				    const char *name, size_t buffer_kb,
				    struct iow_error *err)
{
	struct ftrace_rec *r = calloc(1, sizeof(*r));

	if (!r) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	r->tfs = t;
	r->devs = devs;
	r->n_devs = n_devs;
	r->pipe_fd = -1;
	r->buffer_kb = buffer_kb;
	if (swap_setting(t, "current_tracer", "blk", r->old_tracer,
			 sizeof(r->old_tracer), &r->tracer_changed, err) ||
	    set_options(r, err) || set_clock_mono(r, err) ||
	    swap_setting(t, "tracing_on", "1", r->old_tracing_on,
			 sizeof(r->old_tracing_on), &r->tracing_on_changed,
			 err) ||
	    (buffer_kb && set_buffer_kb(r, buffer_kb, err)) ||
	    open_output(r, dir, name, err) || devices_on(r, err) ||
	    open_pipe(r, err)) {
		restore_state(r, NULL);
		if (r->conv)
			ftrace_conv_close(r->conv, NULL, NULL);
		free(r);
		return NULL;
	}
	return r;
}

struct ftrace_conv *ftrace_rec_conv(struct ftrace_rec *r)
{
	return r->conv;
}

/* Reads what trace_pipe has; 1 if it may have more, 0 when empty. */
static int read_pipe(struct ftrace_rec *r, int max_reads,
		     struct iow_error *err)
{
	ssize_t n;
	char path[PATH_MAX];

	while (max_reads--) {
		n = read(r->pipe_fd, r->read_buf, sizeof(r->read_buf));
		if (n > 0) {
			if (ftrace_conv_feed(r->conv, r->read_buf, (size_t)n,
					     err))
				return -1;
			continue;
		}
		if (n == 0 || errno == EAGAIN)
			return 0;
		if (errno == EINTR)
			return 1;
		tfs_path(r->tfs, "trace_pipe", path);
		return iow_fail(err, "cannot read %s: %s", path,
				strerror(errno));
	}
	return 1;
}

int ftrace_rec_pump(struct ftrace_rec *r, int timeout_ms,
		    struct iow_error *err)
{
	struct pollfd pfd = { .fd = r->pipe_fd, .events = POLLIN };

	/* trace_pipe's poll may wait for the buffer to fill half way
	 * (buffer_percent), so the timeout is what paces the reading */
	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		return iow_fail(err, "poll on trace_pipe: %s", strerror(errno));
	return read_pipe(r, READS_PER_PUMP, err) < 0 ? -1 : 0;
}

int ftrace_rec_stop(struct ftrace_rec *r, struct ftrace_conv_stats *st,
		    struct iow_error *err)
{
	int rc = devices_off(r, err), more = 1, pumps;

	/* nothing new comes in now: read to the end, late completions too */
	for (pumps = 0; more > 0 && pumps < DRAIN_PUMPS_MAX; pumps++)
		more = read_pipe(r, READS_PER_PUMP, rc ? NULL : err);
	if (more < 0)
		rc = -1;
	if (ftrace_conv_close(r->conv, st, rc ? NULL : err))
		rc = -1;
	if (restore_state(r, rc ? NULL : err))
		rc = -1;
	free(r);
	return rc;
}

/* ---- as a recorder (recorder.h) ---- */

static void *ftrace_start(const struct recorder_env *env,
			  struct iow_error *err)
{
	struct ftrace_rec *r = ftrace_rec_start(env->tfs, env->devs,
						env->n_devs, env->dir,
						env->name, env->buffer_kb,
						err);

	if (r && env->tap)
		ftrace_conv_set_tap(r->conv, env->tap->record, env->tap->ctx);
	return r;
}

static int ftrace_pump(void *state, int timeout_ms, struct iow_error *err)
{
	return ftrace_rec_pump(state, timeout_ms, err);
}

static void stats_of(const struct ftrace_conv_stats *c,
		     struct recorder_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->events = c->events;
	st->lost = c->lost;
	st->loss_windows = c->loss_windows;
	st->lost_unknown = c->lost_unknown;
	st->bytes_skipped = c->bytes_skipped + c->bytes_truncated;
	st->n_files = c->n_files;
}

static void ftrace_progress(void *state, struct recorder_stats *st)
{
	struct ftrace_rec *r = state;
	struct ftrace_conv_stats c;

	ftrace_conv_stats(r->conv, &c);
	stats_of(&c, st);
	st->buffer_kb = r->buffer_kb;
}

static int ftrace_stop(void *state, struct recorder_stats *st,
		       struct iow_error *err)
{
	struct ftrace_rec *r = state;
	struct ftrace_conv_stats c = { 0 };
	size_t buffer_kb = r->buffer_kb;
	int rc = ftrace_rec_stop(r, &c, err);

	stats_of(&c, st);
	st->buffer_kb = buffer_kb;
	return rc;
}

const struct record_ops record_ftrace_ops = {
	.tracer = RECORD_FTRACE,
	.name = "ftrace",
	.start = ftrace_start,
	.pump = ftrace_pump,
	.progress = ftrace_progress,
	.stop = ftrace_stop,
};
