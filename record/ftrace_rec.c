/*
 * ftrace_rec.c: recording through the kernel's ftrace 'blk' tracer, for
 * machines where blktrace's relay files are refused. Switches the tracer
 * on (saving every setting it touches), reads each CPU's ring-buffer
 * pages (per_cpu/cpuN/trace_pipe_raw, ftrace_raw.c) into blktrace's
 * per-CPU files, and puts every setting back.
 *
 * The pages hold the blk tracer's records as the kernel made them, in
 * the CPU's time order, with the events the kernel overwrote before a
 * page (a full buffer) said on the page: those become loss notes at that
 * CPU and time. Other ftrace events someone enabled meanwhile are
 * stepped over. The merged trace_pipe, which formats every event in the
 * kernel, cost fio half its IOPS where the pages cost a quarter
 * (bench/README.md).
 *
 * With causes (the default), the tracer's blk_cgroup option is on and
 * each QUEUE record's cgroup id is kept beside the trace, as the BPF
 * recorder keeps its causes (rec_causes.h): the records carry no files
 * and no stacks, and the dictionary says so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "record/bpf/blkrec.h"
#include "ftrace_owner.h"
#include "ftrace_raw.h"
#include "ftrace_rec.h"
#include "rec_causes.h"
#include "rec_out.h"
#include "recorder.h"

#define BLK_V7_MAGIC		(BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7)
#define CPU_LIMIT		8192
#define PID_LIMIT		(1u << 22)	/* the kernel's PID_MAX_LIMIT */
#define DRAIN_ROUNDS		4	/* of a buffer's worth each */

_Static_assert(sizeof(struct blk_io_trace) == BLK_IO_TRACE7_SIZE,
	       "struct blk_io_trace must match the on-disk v7 record");

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

/* ---- ring-buffer pages to per-CPU files ---- */

struct ftrace_conv {
	struct rec_out *out;		/* DIR/NAME.blktrace.<cpu> */
	struct ftrace_page_layout layout;
	uint16_t blk_type;		/* the blk tracer's event type */
	unsigned char *pid_seen;	/* bitmap: a PROCESS note written */
	size_t pid_seen_bytes;
	uint32_t *devices;		/* the loss notes' devices */
	size_t n_devices;
	ftrace_comm_fn comm;
	void *comm_ctx;
	uint64_t bytes_skipped;		/* other events' */
	struct rec_causes *causes;	/* each QUEUE's cgroup, or NULL */
	uint64_t cgroup_ids_cut;	/* flags with no room for the id */
	/* The files' record version, settled before their first record:
	 * version 8 where the kernel's blk tracer writes version-2 entries
	 * (their zone categories need its 64-bit action), else 7, which
	 * every blkparse reads. Until then the opening timestamp note
	 * waits. */
	int settled;
	int version8;
	int has_timestamp;
	uint32_t ts_device;
	uint64_t ts_mono_ns;
	struct timespec ts_wall;
	uint64_t zone_bits_cut;		/* v2 entries into v7 files */
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
	if (c->causes && rec_causes_process(c->causes, io->pid, comm,
					    strlen(comm)))
		return iow_fail(err, "out of memory");
	return rec_out_put(c->out, &note, comm, err);
}

static int write_timestamp(struct ftrace_conv *c, uint32_t device,
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

/* The files' version, from the first blk entry's layout (v8: version-2
 * entries), then the timestamp note that waited for it. */
static int settle(struct ftrace_conv *c, int version8, struct iow_error *err)
{
	if (c->settled)
		return 0;
	c->settled = 1;
	c->version8 = version8;
	if (version8)
		rec_out_version8(c->out);
	if (!c->has_timestamp)
		return 0;
	return write_timestamp(c, c->ts_device, c->ts_mono_ns, &c->ts_wall,
			       err);
}

/* The first blk entry's layout on the page, to settle by before its
 * loss note: -1 if the page has none. */
static int page_first_version8(const struct ftrace_conv *c, unsigned cpu,
			       const struct ftrace_page *page)
{
	struct ftrace_page p = *page;
	const unsigned char *pdu;
	struct blk_io_trace t;
	struct ftrace_event ev;
	struct iow_error why;
	uint32_t hi;
	int version;

	while (ftrace_page_next(&p, &ev, &why) > 0)
		if (ftrace_event_type(&ev) == c->blk_type &&
		    !ftrace_blk_entry_v(&ev, cpu, &t, &hi, &version, &pdu,
					&why))
			return version == BLK_IO_TRACE_VERSION8;
	return -1;
}

int ftrace_conv_timestamp(struct ftrace_conv *c, uint32_t device,
			  uint64_t mono_ns, const struct timespec *wall,
			  struct iow_error *err)
{
	if (c->settled)
		return write_timestamp(c, device, mono_ns, wall, err);
	c->has_timestamp = 1;
	c->ts_device = device;
	c->ts_mono_ns = mono_ns;
	c->ts_wall = *wall;
	return 0;
}

int ftrace_conv_facts(struct ftrace_conv *c,
		      const struct recnote_clock *clock,
		      const struct record_device *devs, size_t n_devs,
		      struct iow_error *err)
{
	return rec_out_facts(c->out, clock, devs, n_devs, err);
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

/*
 * The events the kernel overwrote before this page: from the CPU's last
 * record to the page's time (its first event's, or before). The notes'
 * devices: those set (one note each, so that a -d MAJ,MIN filter keeps
 * it), else device 0.
 */
static int write_loss(struct ftrace_conv *c, unsigned cpu,
		      const struct ftrace_page *p, struct iow_error *err)
{
	uint64_t t0 = rec_out_last_time(c->out, cpu);
	struct lossnote n = { p->missed_known ? p->missed_count : 0,
			      p->missed_known, cpu,
			      t0 < p->time ? t0 : p->time, p->time };
	static const uint32_t none = 0;

	if (c->n_devices)
		return rec_out_loss(c->out, &n, c->devices, c->n_devices, err);
	return rec_out_loss(c->out, &n, &none, 1, err);
}

/* A page that is not as the kernel lays them out: which CPU's. */
static int bad_page(unsigned cpu, const struct iow_error *why,
		    struct iow_error *err)
{
	return iow_fail(err, "per_cpu/cpu%u/trace_pipe_raw: %s", cpu,
			why->msg);
}

/*
 * What Linux 6.18 puts in the records with options/blk_cgroup on (seen
 * with direct writes and reads on a loop device from a process in a
 * blkio cgroup of v1): the QUEUE, GETRQ, ISSUE and COMPLETE records of
 * a bio with a blkcg carry __BLK_TA_CGROUP (1 << 8 of the action) and
 * start their payload with the cgroup's id, 8 bytes in host order (the
 * kernfs id: under v1's blkio the cgroup directory's inode number); the
 * PLUG and UNPLUG records and the notes do not. Debian's blkparse 1.2.0
 * prints "Bad fs action" for such records, so each is written without
 * the flag and the id, as it would have been with the option off. A
 * flag with less than 8 bytes of payload carries no id: the flag goes,
 * the payload stays, and the dictionary counts them.
 */
static uint64_t take_cgroup(struct ftrace_conv *c, struct blk_io_trace *t,
			    const unsigned char **pdu)
{
	uint64_t id;

	if (!(t->action & BLK_TA_CGROUP))
		return 0;
	t->action &= ~BLK_TA_CGROUP;
	if (t->pdu_len < sizeof(id)) {
		c->cgroup_ids_cut++;
		return 0;
	}
	memcpy(&id, *pdu, sizeof(id));
	*pdu += sizeof(id);
	t->pdu_len -= sizeof(id);
	return id;
}

/* A QUEUE record and its cause, which takes its number (as the BPF
 * recorder's): the task the record names, the cgroup if it had one. The
 * live view is handed the record after its cause. */
static int write_queue_cause(struct ftrace_conv *c, struct blk_io_trace *t,
			     const unsigned char *pdu, uint64_t cgroup,
			     struct iow_error *err)
{
	struct blkrec_cause cause = {
		.pid = t->pid,
		.cgroup = cgroup,
		.kstack = -1,
		.ustack = -1,
		.kind = BLKREC_NONE,
	};

	if (rec_out_write(c->out, t, pdu, err) ||
	    rec_causes_put(c->causes, t, &cause, err))
		return -1;
	rec_out_tell(c->out, t, pdu);
	return 0;
}

static int convert_event(struct ftrace_conv *c, unsigned cpu,
			 const struct ftrace_event *ev, struct iow_error *err)
{
	const unsigned char *pdu;
	struct blk_io_trace t;
	struct iow_error why;
	uint32_t action_hi;
	uint64_t cgroup;
	int first, version;

	/* other ftrace events someone enabled meanwhile */
	if (ftrace_event_type(ev) != c->blk_type) {
		c->bytes_skipped += ev->len;
		return 0;
	}
	if (ftrace_blk_entry_v(ev, cpu, &t, &action_hi, &version, &pdu, &why))
		return bad_page(cpu, &why, err);
	if (settle(c, version == BLK_IO_TRACE_VERSION8, err))
		return -1;
	/* (files settled as v7 by a loss before any entry: no room) */
	if (action_hi && !c->version8)
		c->zone_bits_cut++;
	cgroup = take_cgroup(c, &t, &pdu);
	first = pid_first_sight(c, t.pid);
	if (first < 0)
		return iow_fail(err, "out of memory");
	if (first && write_process_note(c, &t, err))
		return -1;
	rec_out_action_hi(c->out, c->version8 ? action_hi : 0);
	if (c->causes && !blk_is_note(t.action) &&
	    blk_action_code(t.action) == BLK_TA_QUEUE)
		return write_queue_cause(c, &t, pdu, cgroup, err);
	return rec_out_put(c->out, &t, pdu, err);
}

int ftrace_conv_page(struct ftrace_conv *c, unsigned cpu, const void *page,
		     size_t size, struct iow_error *err)
{
	struct ftrace_event ev;
	struct ftrace_page p;
	struct iow_error why;
	int rc;

	if (ftrace_page_open(&p, &c->layout, page, size, &why))
		return bad_page(cpu, &why, err);
	if (p.missed && !c->settled &&
	    settle(c, page_first_version8(c, cpu, &p) == 1, err))
		return -1;
	if (p.missed && write_loss(c, cpu, &p, err))
		return -1;
	while ((rc = ftrace_page_next(&p, &ev, &why)) > 0)
		if (convert_event(c, cpu, &ev, err))
			return -1;
	return rc < 0 ? bad_page(cpu, &why, err) : 0;
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
	st->events = o.events;
	st->notes = o.notes;
	st->lost = o.lost;
	st->loss_windows = o.loss_windows;
	st->lost_unknown = o.lost_unknown;
	st->n_files = o.n_files;
	st->bytes_skipped = c->bytes_skipped;
	st->causes_kept = c->causes != NULL;
	st->version8 = c->version8;
	st->zone_bits_cut = c->zone_bits_cut;
}

struct ftrace_conv *ftrace_conv_open(const char *dir, const char *name,
				     unsigned n_cpus,
				     const struct ftrace_page_layout *layout,
				     uint16_t blk_type, ftrace_comm_fn comm,
				     void *comm_ctx, struct iow_error *err)
{
	struct ftrace_conv *c = calloc(1, sizeof(*c));

	if (!c) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	c->layout = *layout;
	c->blk_type = blk_type;
	c->comm = comm;
	c->comm_ctx = comm_ctx;
	c->out = rec_out_open(dir, name, n_cpus, err);
	if (!c->out) {
		free(c);
		return NULL;
	}
	return c;
}

int ftrace_conv_keep_causes(struct ftrace_conv *c,
			    const struct rec_causes_env *env,
			    struct iow_error *err)
{
	c->causes = rec_causes_open(env, err);
	return c->causes ? 0 : -1;
}

int ftrace_conv_note(struct ftrace_conv *c, const char *text,
		     struct iow_error *err)
{
	return c->causes ? rec_causes_note(c->causes, text, err) : 0;
}

int ftrace_conv_pump_causes(struct ftrace_conv *c, struct iow_error *err)
{
	return c->causes ? rec_causes_pump(c->causes, err) : 0;
}

/* The causes' names and notes, the files closed (ok 0: an error is
 * being reported, write no more). */
static int close_causes(struct ftrace_conv *c, int ok, struct iow_error *err)
{
	char note[160];

	if (!c->causes)
		return 0;
	if (ok && c->cgroup_ids_cut) {
		snprintf(note, sizeof(note), "%llu records had the cgroup flag with no room for the id: their cgroup is unknown",
			 (unsigned long long)c->cgroup_ids_cut);
		if (rec_causes_note(c->causes, note, err))
			ok = 0;
	}
	return rec_causes_close(c->causes, ok, ok ? err : NULL) || !ok ? -1
									: 0;
}

int ftrace_conv_close(struct ftrace_conv *c, struct ftrace_conv_stats *st,
		      struct iow_error *err)
{
	int rc;

	rc = settle(c, 0, err);
	if (st)
		ftrace_conv_stats(c, st);
	if (!rc)
		rc = rec_out_end(c->out, c->n_devices ? c->devices[0] : 0,
				 err);
	if (rec_out_close(c->out, rc ? NULL : err))
		rc = -1;
	if (close_causes(c, rc == 0, rc ? NULL : err))
		rc = -1;
	free(c->pid_seen);
	free(c->devices);
	free(c);
	return rc;
}

/* ---- the tracer ---- */

struct saved_option {
	const char *name;	/* a file in options/ */
	char want;		/* '0' or '1' */
	char want_causes;	/* when keeping causes, if not want */
	char old;
	int changed;
};

/* (bin, context-info and blk_classic shape only the merged trace_pipe's
 * text: the pages are the records themselves) */
static const struct saved_option wanted_options[] = {
	/* cgroup ids in the records: the causes' (take_cgroup) */
	{ .name = "blk_cgroup", .want = '0', .want_causes = '1' },
};
#define N_OPTIONS (sizeof(wanted_options) / sizeof(wanted_options[0]))

/* A CPU's per_cpu/cpuN/trace_pipe_raw. */
struct cpu_pipe {
	unsigned cpu;
	int fd;
};

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
	struct cpu_pipe *pipes;		/* by CPU */
	unsigned n_pipes;
	struct pollfd *polls;		/* one per pipe */
	struct ftrace_owner owner;	/* held from start to restore */
	int causes;			/* keep each QUEUE's cgroup */
	struct cause_reader *mirror;	/* the live view's, or NULL */
	int no_cgroup_option;		/* the kernel has no blk_cgroup */
	unsigned char *page;		/* as read */
	size_t page_size;
	size_t pages_per_pump;
	uint64_t complete_ns;		/* recorder_stats' */
	struct ftrace_conv *conv;
	struct rec_account *account;	/* n_devs of them, or NULL */
};

/* Reads file into old; writes want if it differs, noting it changed. */
static int swap_setting(const struct tracefs *t, const char *file,
			const char *want, char *old, size_t old_size,
			int *changed, struct iow_error *err)
{
	char path[PATH_MAX];

	tracefs_path(t, file, path);
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
		if (r->causes && o->want_causes)
			want[0] = o->want = o->want_causes;
		snprintf(file, sizeof(file), "options/%s", o->name);
		tracefs_path(r->tfs, file, path);
		/* kernels without the blk_* options never print that way,
		 * nor give cgroup ids */
		if (access(path, F_OK)) {
			if (o->want == '1')
				r->no_cgroup_option = 1;
			continue;
		}
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

	tracefs_path(r->tfs, "trace_clock", path);
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

/* "1410", or "7 (expanded: 1408)": the size it has once a tracer runs */
static size_t kb_in_force(const char *value)
{
	const char *expanded = strstr(value, "expanded: ");
	long kb = strtol(expanded ? expanded + 10 : value, NULL, 10);

	return kb > 0 ? (size_t)kb : 0;
}

/* kb per CPU, or with 0 the size in force: what a pump reads at most. */
static int set_buffer_kb(struct ftrace_rec *r, size_t kb,
			 struct iow_error *err)
{
	char path[PATH_MAX], want[32];

	if (!kb) {
		tracefs_path(r->tfs, "buffer_size_kb", path);
		if (tracefs_read(path, want, sizeof(want), err))
			return -1;
		r->buffer_kb = kb_in_force(want);
		return 0;
	}
	snprintf(want, sizeof(want), "%zu", kb);
	if (swap_setting(r->tfs, "buffer_size_kb", want, r->old_buffer_kb,
			 sizeof(r->old_buffer_kb), &r->buffer_changed, err))
		return -1;
	snprintf(r->old_buffer_kb, sizeof(r->old_buffer_kb), "%zu",
		 kb_in_force(r->old_buffer_kb));
	r->buffer_kb = kb;
	return 0;
}

static int devices_on(struct ftrace_rec *r, struct iow_error *err)
{
	char path[PATH_MAX];
	size_t i;

	rec_account_begin(r->account, r->n_devs);
	for (i = 0; i < r->n_devs; i++) {
		snprintf(path, sizeof(path), "%s/enable", r->devs[i].trace_dir);
		if (tracefs_write(path, "1", NULL))
			return iow_fail(err, "cannot enable tracing of %s "
					"(%s): %s", r->devs[i].path, path,
					strerror(errno));
		r->devs[i].enabled_by_us = 1;
	}
	rec_account_attached(r->account, r->n_devs);
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
	tracefs_path(t, file, path);
	if (tracefs_write(path, old, err))
		return -1;
	*changed = 0;
	return 0;
}

static unsigned configured_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned)n : 1;
}

/* ---- what the pages hold ---- */

/* A tracefs file of several lines, whole (header_page, a format). */
static int read_text(const char *path, char *buf, size_t size,
		     struct iow_error *err)
{
	size_t len = 0;
	ssize_t n = 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	while (n > 0 && len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n > 0)
			len += (size_t)n;
	}
	if (n < 0) {
		iow_fail(err, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	buf[len] = '\0';
	return 0;
}

/* An ftrace event's type: its format's "ID: N" line. */
static int ftrace_event_id(const struct tracefs *t, const char *event,
			   unsigned *id, struct iow_error *err)
{
	char path[PATH_MAX], text[4096];
	const char *line;

	snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", t->dir,
		 event);
	if (read_text(path, text, sizeof(text), err))
		return -1;
	line = strstr(text, "\nID: ");
	if (!line || sscanf(line, "\nID: %u", id) != 1)
		return iow_fail(err, "%s: no \"ID: N\" line", path);
	return 0;
}

/*
 * The blk tracer's events have no format file. Their type is TRACE_BLK
 * of the kernel's enum trace_type (kernel/trace/trace.h), which lies
 * between TRACE_USER_STACK and TRACE_BPUTS (6.18 and long before), whose
 * events have theirs; where those are not two apart it is not guessed.
 */
static int blk_event_type(const struct tracefs *t, uint16_t *type,
			  struct iow_error *err)
{
	unsigned before, after;

	if (ftrace_event_id(t, "user_stack", &before, err) ||
	    ftrace_event_id(t, "bputs", &after, err))
		return -1;
	if (after != before + 2 || after > UINT16_MAX)
		return iow_fail(err, "cannot tell the blk tracer's event type: "
				"the ftrace events user_stack (%u) and bputs "
				"(%u) around it are not two apart", before,
				after);
	*type = (uint16_t)(before + 1);
	return 0;
}

/* The ring's pages: their size (a sub-buffer, where the kernel lets it
 * be more than a page) and layout. */
static int page_format(const struct tracefs *t, size_t *page_size,
		       struct ftrace_page_layout *l, struct iow_error *err)
{
	char path[PATH_MAX], text[1024];
	long kb;

	tracefs_path(t, "buffer_subbuf_size_kb", path);
	if (tracefs_read(path, text, sizeof(text), NULL) == 0 &&
	    (kb = strtol(text, NULL, 10)) > 0)
		*page_size = (size_t)kb * 1024;
	else
		*page_size = (size_t)sysconf(_SC_PAGESIZE);
	tracefs_path(t, "events/header_page", path);
	if (read_text(path, text, sizeof(text), err))
		return -1;
	if (ftrace_page_layout_parse(text, l, err))
		return -1;
	if (l->data_offset >= *page_size)
		return iow_fail(err, "%s: the data starts at %zu, past a page "
				"of %zu bytes", path, l->data_offset,
				*page_size);
	return 0;
}

/* Each QUEUE's cgroup beside the trace, with what ftrace cannot see. */
static int keep_causes(struct ftrace_rec *r, const char *dir,
		       const char *name, struct iow_error *err)
{
	struct rec_causes_env env = {
		.dir = dir,
		.name = name,
		.what = BLKREC_CAUSES,
		.mirror = r->mirror,
		.unrecorded = FTRACE_UNRECORDED,
	};

	if (ftrace_conv_keep_causes(r->conv, &env, err))
		return -1;
	if (r->no_cgroup_option)
		return ftrace_conv_note(r->conv, "cgroups not recorded: this kernel's blk tracer has no blk_cgroup option", err);
	return 0;
}

static int open_output(struct ftrace_rec *r, const char *dir,
		       const char *name, struct iow_error *err)
{
	struct ftrace_page_layout layout;
	struct recnote_clock clock;
	struct timespec wall;
	uint32_t devices[64];
	size_t i, n = r->n_devs < 64 ? r->n_devs : 64;
	uint16_t blk_type = 0;

	if (page_format(r->tfs, &r->page_size, &layout, err) ||
	    blk_event_type(r->tfs, &blk_type, err))
		return -1;
	r->page = malloc(r->page_size);
	if (!r->page)
		return iow_fail(err, "out of memory");
	r->conv = ftrace_conv_open(dir, name, configured_cpus(), &layout,
				   blk_type, ftrace_comm_lookup,
				   (void *)r->tfs, err);
	if (!r->conv)
		return -1;
	for (i = 0; i < n; i++)
		devices[i] = r->devs[i].dev;
	if (ftrace_conv_set_devices(r->conv, devices, n, err) ||
	    (r->causes && keep_causes(r, dir, name, err)))
		return -1;
	/* a wall-clock anchor and the clock snapshot, only meaningful in
	 * the trace's own clock; the host and devices whatever the clock */
	if (!r->clock_is_mono)
		return ftrace_conv_facts(r->conv, NULL, r->devs, r->n_devs,
					 err);
	recnote_clock_now(TRACE_CLOCK_MONOTONIC, &clock);
	wall.tv_sec = (time_t)(clock.real_ns / 1000000000);
	wall.tv_nsec = (long)(clock.real_ns % 1000000000);
	if (ftrace_conv_facts(r->conv, &clock, r->devs, r->n_devs, err))
		return -1;
	return ftrace_conv_timestamp(r->conv, r->devs[0].dev, clock.trace_ns,
				     &wall, err);
}

/* ---- the per-CPU pipes ---- */

static int by_cpu(const void *a, const void *b)
{
	const struct cpu_pipe *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int add_pipe(struct ftrace_rec *r, unsigned cpu, struct iow_error *err)
{
	char path[PATH_MAX];
	struct cpu_pipe *more;
	int fd;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/trace_pipe_raw",
		 r->tfs->dir, cpu);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	more = realloc(r->pipes, (r->n_pipes + 1) * sizeof(*more));
	if (!more) {
		close(fd);
		return iow_fail(err, "out of memory");
	}
	r->pipes = more;
	r->pipes[r->n_pipes++] = (struct cpu_pipe){ cpu, fd };
	return 0;
}

/* Every CPU's trace_pipe_raw: per_cpu/ has a cpuN for each. */
static int open_pipes(struct ftrace_rec *r, struct iow_error *err)
{
	char path[PATH_MAX], rest;
	struct dirent *e;
	unsigned cpu;
	DIR *d;
	int rc = 0;

	tracefs_path(r->tfs, "per_cpu", path);
	d = opendir(path);
	if (!d)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	while (!rc && (e = readdir(d)))
		if (sscanf(e->d_name, "cpu%u%c", &cpu, &rest) == 1 &&
		    cpu < CPU_LIMIT)
			rc = add_pipe(r, cpu, err);
	closedir(d);
	if (rc)
		return -1;
	if (!r->n_pipes)
		return iow_fail(err, "%s: no cpuN directory in it", path);
	qsort(r->pipes, r->n_pipes, sizeof(*r->pipes), by_cpu);
	r->polls = calloc(r->n_pipes, sizeof(*r->polls));
	if (!r->polls)
		return iow_fail(err, "out of memory");
	/* a pump reads at most what the buffers hold */
	r->pages_per_pump = r->n_pipes *
			    (r->buffer_kb * 1024 / r->page_size + 1);
	return 0;
}

static void close_pipes(struct ftrace_rec *r)
{
	unsigned i;

	for (i = 0; i < r->n_pipes; i++)
		close(r->pipes[i].fd);
	free(r->pipes);
	free(r->polls);
	r->pipes = NULL;
	r->polls = NULL;
	r->n_pipes = 0;
}

/* One page of p's CPU: 1 if one came, 0 if it had none. */
static int read_page(struct ftrace_rec *r, const struct cpu_pipe *p,
		     struct iow_error *err)
{
	ssize_t n = read(p->fd, r->page, r->page_size);

	if (n > 0)
		return ftrace_conv_page(r->conv, p->cpu, r->page, (size_t)n,
					err) ? -1 : 1;
	if (n == 0 || errno == EAGAIN)
		return 0;
	if (errno == EINTR)
		return 1;
	return iow_fail(err, "cannot read %s/per_cpu/cpu%u/trace_pipe_raw: "
			"%s", r->tfs->dir, p->cpu, strerror(errno));
}

/*
 * A page of each CPU in turn, so that the CPUs' records come about as
 * far in time as each other (the live view merges them as they come),
 * until none has any or pages_per_pump were read: 1 if some may have
 * more, 0 when all were empty. A read takes what a CPU's page holds so
 * far, so when a round finds every CPU empty, all records from before
 * it have been handed over: complete_ns (with the monotonic clock).
 */
static int read_pages(struct ftrace_rec *r, struct iow_error *err)
{
	size_t pages = 0;
	uint64_t round_ns;
	unsigned i;
	int any, rc;

	do {
		any = 0;
		round_ns = recorder_complete_before();
		for (i = 0; i < r->n_pipes; i++) {
			rc = read_page(r, &r->pipes[i], err);
			if (rc < 0)
				return -1;
			any |= rc;
			pages += (size_t)rc;
		}
	} while (any && pages < r->pages_per_pump);
	if (!any && r->clock_is_mono)
		r->complete_ns = round_ns;
	return any;
}

/* ---- start and stop ---- */

static void add_line(char *buf, size_t size, const char *fmt, const char *a,
		     const char *b)
{
	size_t len = strlen(buf);

	if (len < size)
		snprintf(buf + len, size - len, fmt, a, b);
}

/*
 * What restore_state would put back, for the owner file: should this
 * process die before it can, the next recording does it.
 */
static int save_owner(struct ftrace_rec *r, struct iow_error *err)
{
	char lines[8192], pid[24], file[64], old[2] = "";
	size_t i;

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	lines[0] = '\0';
	add_line(lines, sizeof(lines), "pid %s%s\n", pid, "");
	for (i = 0; i < r->n_devs; i++)
		if (r->devs[i].enabled_by_us)
			add_line(lines, sizeof(lines), "enable %s%s\n",
				 r->devs[i].trace_dir, "");
	for (i = 0; i < N_OPTIONS; i++) {
		if (!r->options[i].changed)
			continue;
		snprintf(file, sizeof(file), "options/%s", r->options[i].name);
		old[0] = r->options[i].old;
		add_line(lines, sizeof(lines), "set %s %s\n", file, old);
	}
	if (r->tracer_changed)
		add_line(lines, sizeof(lines), "set %s %s\n", "current_tracer",
			 r->old_tracer);
	if (r->clock_changed)
		add_line(lines, sizeof(lines), "set %s %s\n", "trace_clock",
			 r->old_clock);
	if (r->tracing_on_changed)
		add_line(lines, sizeof(lines), "set %s %s\n", "tracing_on",
			 r->old_tracing_on);
	if (r->buffer_changed)
		add_line(lines, sizeof(lines), "set %s %s\n", "buffer_size_kb",
			 r->old_buffer_kb);
	return ftrace_owner_save(&r->owner, lines, err);
}

/* Puts back what start changed, newest first; keeps the first error. */
static int restore_state(struct ftrace_rec *r, struct iow_error *err)
{
	const struct tracefs *t = r->tfs;
	char file[64];
	size_t i;
	int rc = devices_off(r, err);

	/* the tracer cannot change while a trace_pipe_raw is open */
	close_pipes(r);
	for (i = 0; i < N_OPTIONS; i++) {
		char old[2] = { r->options[i].old, '\0' };

		snprintf(file, sizeof(file), "options/%s", r->options[i].name);
		if (restore_setting(t, file, old, &r->options[i].changed,
				    rc ? NULL : err))
			rc = -1;
	}
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
	ftrace_owner_release(&r->owner, rc == 0);
	return rc;
}

static void free_rec(struct ftrace_rec *r)
{
	free(r->page);
	free(r);
}

struct ftrace_rec *ftrace_rec_start(const struct tracefs *t,
				    struct record_device *devs,
				    size_t n_devs, const char *dir,
				    const char *name, size_t buffer_kb,
				    const struct ftrace_causes *causes,
				    struct rec_account *account,
				    struct iow_error *err)
{
	struct ftrace_rec *r = calloc(1, sizeof(*r));
	long reclaimed;

	if (!r) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	r->tfs = t;
	r->devs = devs;
	r->n_devs = n_devs;
	r->account = account;
	r->owner.fd = -1;
	r->causes = causes != NULL;
	if (causes)
		r->mirror = causes->mirror;
	if (ftrace_owner_take(&r->owner, t->dir, &reclaimed, err) ||
	    swap_setting(t, "current_tracer", "blk", r->old_tracer,
			 sizeof(r->old_tracer), &r->tracer_changed, err) ||
	    set_options(r, err) || set_clock_mono(r, err) ||
	    swap_setting(t, "tracing_on", "1", r->old_tracing_on,
			 sizeof(r->old_tracing_on), &r->tracing_on_changed,
			 err) ||
	    set_buffer_kb(r, buffer_kb, err) || save_owner(r, err) ||
	    open_output(r, dir, name, err) || devices_on(r, err) ||
	    save_owner(r, err) || open_pipes(r, err)) {
		restore_state(r, NULL);
		if (r->conv)
			ftrace_conv_close(r->conv, NULL, NULL);
		free_rec(r);
		return NULL;
	}
	return r;
}

struct ftrace_conv *ftrace_rec_conv(struct ftrace_rec *r)
{
	return r->conv;
}

int ftrace_rec_pump(struct ftrace_rec *r, int timeout_ms,
		    struct iow_error *err)
{
	unsigned i;

	for (i = 0; i < r->n_pipes; i++)
		r->polls[i] = (struct pollfd){ .fd = r->pipes[i].fd,
					       .events = POLLIN };
	/* a page's poll may wait for the buffer to fill half way
	 * (buffer_percent), so the timeout is what paces the reading */
	if (poll(r->polls, r->n_pipes, timeout_ms) < 0 && errno != EINTR)
		return iow_fail(err, "poll on trace_pipe_raw: %s",
				strerror(errno));
	if (read_pages(r, err) < 0)
		return -1;
	/* the tasks and cgroups seen, named while they exist */
	return ftrace_conv_pump_causes(r->conv, err);
}

int ftrace_rec_stop(struct ftrace_rec *r, struct ftrace_conv_stats *st,
		    struct iow_error *err)
{
	int rc, more = 1, rounds;

	rec_account_detaching(r->account, r->n_devs);
	rc = devices_off(r, err);
	rec_account_end(r->account, r->n_devs);
	/* nothing new comes in now: read to the end, late completions too */
	for (rounds = 0; more > 0 && rounds < DRAIN_ROUNDS; rounds++)
		more = read_pages(r, rc ? NULL : err);
	if (more < 0)
		rc = -1;
	if (!rc && (settle(r->conv, 0, err) ||
		    rec_account_write(r->account, r->n_devs, r->conv->out,
				      NULL, err)))
		rc = -1;
	if (ftrace_conv_close(r->conv, st, rc ? NULL : err))
		rc = -1;
	if (restore_state(r, rc ? NULL : err))
		rc = -1;
	free_rec(r);
	return rc;
}

/* ---- as a recorder (recorder.h) ---- */

static void *ftrace_start(const struct recorder_env *env,
			  struct iow_error *err)
{
	struct ftrace_causes causes = {
		.mirror = env->tap ? env->tap->causes : NULL,
	};
	struct ftrace_rec *r = ftrace_rec_start(env->tfs, env->devs,
						env->n_devs, env->dir,
						env->name, env->buffer_kb,
						(env->causes & RECORD_CAUSES) ?
						&causes : NULL, env->account,
						err);

	if (r && env->tap)
		ftrace_conv_set_tap(r->conv, env->tap->record, env->tap->ctx);
	if (r && env->tap && env->tap->record_hi)
		rec_out_set_tap_hi(r->conv->out, env->tap->record_hi,
				   env->tap->ctx);
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
	st->bytes_skipped = c->bytes_skipped;
	st->n_files = c->n_files;
	st->causes = c->causes_kept ? RECORD_CAUSES : 0;
}

static void ftrace_progress(void *state, struct recorder_stats *st)
{
	struct ftrace_rec *r = state;
	struct ftrace_conv_stats c;

	ftrace_conv_stats(r->conv, &c);
	stats_of(&c, st);
	st->buffer_kb = r->buffer_kb;
	st->complete_ns = r->complete_ns;
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
