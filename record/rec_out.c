/*
 * rec_out.c: per-CPU trace files written as blktrace would (rec_out.h).
 * Each CPU's records gather in a buffer of their own and go to the file
 * in one write when it is full (a write per record cost the ftrace
 * recorder a system call per 4 KiB of stdio buffer).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rec_out.h"
#include "tracefs.h"

#define CPU_LIMIT	8192
#define OUT_BUF_SIZE	(256 * 1024)	/* > a record's 64 + 65535 */

struct seq_slot {
	uint32_t device, last;
};

/* A device's completions written, by class (account.h). */
struct done_slot {
	uint32_t device;
	uint64_t n[N_ACCT];
};

struct cpu_file {
	int fd;
	uint64_t last_time;
	struct seq_slot *seqs;	/* per device, as blkparse counts */
	size_t n_seqs;
	size_t len;
	unsigned char *buf;
};

struct rec_out {
	char prefix[PATH_MAX - 64];	/* DIR/NAME */
	struct cpu_file *cpus;
	unsigned n_cpus;
	rec_out_tap_fn tap;
	void *tap_ctx;
	struct rec_out_stats st;
	struct done_slot *done;
	size_t n_done;
	int version8;		/* records are struct blk_io_trace2 */
	uint32_t action_hi;	/* the next record's action bits 32-63 */
	uint32_t written_hi;	/* the last record's, for the tap */
	rec_out_tap_hi_fn tap_hi;
	/* the recording's notes (rec_out_facts), written before the next
	 * record */
	struct pending_note *pending;
	size_t n_pending;
	uint64_t pending_ns;
};

struct pending_note {
	uint32_t device;
	uint16_t len;
	char text[RECNOTE_TEXT_MAX];
};

void rec_out_version8(struct rec_out *o)
{
	o->version8 = 1;
}

void rec_out_action_hi(struct rec_out *o, uint32_t action_hi)
{
	o->action_hi = action_hi;
}

/* t as the uapi's struct blk_io_trace2, host order, at p (64 bytes). */
static void encode_version8(unsigned char *p, const struct blk_io_trace *t,
			    uint32_t action_hi)
{
	uint32_t magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION8;
	uint64_t action = t->action | (uint64_t)action_hi << 32;

	memset(p, 0, BLK_IO_TRACE8_SIZE);
	memcpy(p, &magic, 4);
	memcpy(p + 4, &t->sequence, 4);
	memcpy(p + 8, &t->time, 8);
	memcpy(p + 16, &t->sector, 8);
	memcpy(p + 24, &t->bytes, 4);
	memcpy(p + 28, &t->pid, 4);
	memcpy(p + 32, &action, 8);
	memcpy(p + 40, &t->device, 4);
	memcpy(p + 44, &t->cpu, 4);
	memcpy(p + 48, &t->error, 2);
	memcpy(p + 50, &t->pdu_len, 2);
}

static void cpu_path(const struct rec_out *o, unsigned cpu, char *path)
{
	snprintf(path, PATH_MAX, "%s.blktrace.%u", o->prefix, cpu);
}

/* Opens the files up to cpu: blkparse stops at the first missing one. */
static struct cpu_file *cpu_file(struct rec_out *o, uint32_t cpu,
				 struct iow_error *err)
{
	char path[PATH_MAX];
	struct cpu_file *more, *f;

	if (cpu < o->n_cpus)
		return &o->cpus[cpu];
	if (cpu >= CPU_LIMIT) {
		iow_fail(err, "a record of cpu %u: out of range", cpu);
		return NULL;
	}
	more = realloc(o->cpus, (cpu + 1) * sizeof(*more));
	if (!more) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	o->cpus = more;
	while (o->n_cpus <= cpu) {
		f = &o->cpus[o->n_cpus];
		memset(f, 0, sizeof(*f));
		cpu_path(o, o->n_cpus, path);
		f->buf = malloc(OUT_BUF_SIZE);
		f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
		if (f->fd < 0 || !f->buf) {
			iow_fail(err, "cannot create %s: %s", path,
				 f->buf ? strerror(errno) : "out of memory");
			if (f->fd >= 0)
				close(f->fd);
			free(f->buf);
			return NULL;
		}
		o->n_cpus++;
	}
	return &o->cpus[cpu];
}

static int flush_cpu(struct rec_out *o, unsigned cpu, struct iow_error *err)
{
	struct cpu_file *f = &o->cpus[cpu];
	char path[PATH_MAX];
	size_t done = 0;
	ssize_t n;

	while (done < f->len) {
		n = write(f->fd, f->buf + done, f->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			cpu_path(o, cpu, path);
			return iow_fail(err, "cannot write %s: %s", path,
					n < 0 ? strerror(errno) : "disk full");
		}
		done += (size_t)n;
	}
	f->len = 0;
	return 0;
}

/* Counts a completion in its device's class, for the account. */
static void count_completion(struct rec_out *o, const struct blk_io_trace *t,
			     uint32_t action_hi)
{
	/* a zone command or write-zeroes, with or without bytes: a write to
	 * the kernel (op_is_write), as to the analysis */
	int c = action_hi ? ACCT_WRITE :
			    acct_class(t->action, t->bytes, t->sector);
	struct done_slot *d;
	size_t i;

	if (blk_action_code(t->action) != BLK_TA_COMPLETE || c < 0)
		return;
	for (i = 0; i < o->n_done; i++)
		if (o->done[i].device == t->device)
			break;
	if (i == o->n_done) {
		d = realloc(o->done, (o->n_done + 1) * sizeof(*d));
		if (!d)
			return;	/* the account then says it is short */
		o->done = d;
		memset(&d[i], 0, sizeof(d[i]));
		d[i].device = t->device;
		o->n_done++;
	}
	o->done[i].n[c]++;
}

void rec_out_completions(const struct rec_out *o, uint32_t device,
			 uint64_t n[N_ACCT])
{
	size_t i;

	memset(n, 0, N_ACCT * sizeof(*n));
	for (i = 0; i < o->n_done; i++)
		if (o->done[i].device == device)
			memcpy(n, o->done[i].n, N_ACCT * sizeof(*n));
}

static uint32_t next_sequence(struct cpu_file *f, uint32_t device)
{
	struct seq_slot *s;
	size_t i;

	for (i = 0; i < f->n_seqs; i++)
		if (f->seqs[i].device == device)
			return ++f->seqs[i].last;
	s = realloc(f->seqs, (f->n_seqs + 1) * sizeof(*s));
	if (!s)
		return 0;	/* blkparse then counts a skip; no worse */
	f->seqs = s;
	f->seqs[f->n_seqs++] = (struct seq_slot){ device, 1 };
	return 1;
}

static int write_pending(struct rec_out *o, struct iow_error *err);

int rec_out_write(struct rec_out *o, struct blk_io_trace *t, const void *pdu,
		  struct iow_error *err)
{
	if (o->n_pending && write_pending(o, err))
		return -1;
	size_t head = o->version8 ? BLK_IO_TRACE8_SIZE : sizeof(*t);
	size_t size = head + t->pdu_len;
	struct cpu_file *f = cpu_file(o, t->cpu, err);
	uint32_t action_hi = o->action_hi;

	if (!f)
		return -1;
	if (blk_is_note(t->action)) {
		t->sequence = 0;
		o->st.notes++;
	} else {
		t->sequence = next_sequence(f, t->device);
		o->st.events++;
		count_completion(o, t, o->version8 ? action_hi : 0);
	}
	o->action_hi = 0;
	o->written_hi = o->version8 ? action_hi : 0;
	if (f->len + size > OUT_BUF_SIZE && flush_cpu(o, t->cpu, err))
		return -1;
	if (o->version8)
		encode_version8(f->buf + f->len, t, action_hi);
	else
		memcpy(f->buf + f->len, t, sizeof(*t));
	if (t->pdu_len)
		memcpy(f->buf + f->len + head, pdu, t->pdu_len);
	f->len += size;
	if (t->time > f->last_time)
		f->last_time = t->time;
	return 0;
}

void rec_out_tell(struct rec_out *o, const struct blk_io_trace *t,
		  const void *pdu)
{
	if (o->tap_hi)
		o->tap_hi(o->tap_ctx, t, o->written_hi, pdu);
	else if (o->tap)
		o->tap(o->tap_ctx, t, pdu);
}

int rec_out_put(struct rec_out *o, struct blk_io_trace *t, const void *pdu,
		struct iow_error *err)
{
	if (rec_out_write(o, t, pdu, err))
		return -1;
	rec_out_tell(o, t, pdu);
	return 0;
}

int rec_out_loss(struct rec_out *o, const struct lossnote *n,
		 const uint32_t *devices, size_t n_devices,
		 struct iow_error *err)
{
	char text[LOSSNOTE_TEXT_MAX];
	uint16_t len = lossnote_format(n, text);
	struct blk_io_trace t;
	size_t i;

	for (i = 0; i < n_devices; i++) {
		lossnote_header(n, devices[i], len, &t);
		/* the file stays in time order: where a record the CPU had
		 * reserved before the first failed reservation took its time
		 * after it (an interrupt's failure cut in), it is already
		 * written, later than the window's start; the note goes at
		 * it (its text keeps the window) */
		if (t.cpu < o->n_cpus && t.time < o->cpus[t.cpu].last_time)
			t.time = o->cpus[t.cpu].last_time;
		if (rec_out_put(o, &t, text, err))
			return -1;
	}
	o->st.loss_windows++;
	if (n->count_known)
		o->st.lost += n->count;
	else
		o->st.lost_unknown = 1;
	return 0;
}

/* The pending notes, once: o->n_pending is 0 before they are written, so
 * that their own writes do not come back here. */
static int write_pending(struct rec_out *o, struct iow_error *err)
{
	struct pending_note *notes = o->pending;
	size_t i, n = o->n_pending;
	int rc = 0;

	o->pending = NULL;
	o->n_pending = 0;
	for (i = 0; i < n && !rc; i++) {
		struct blk_io_trace t = {
			.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
			.time = o->pending_ns,
			.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE,
			.device = notes[i].device,
			.pdu_len = notes[i].len,
		};

		rc = rec_out_put(o, &t, notes[i].text, err);
	}
	free(notes);
	return rc;
}

/* The kernel's name of a device, else the last part of the path given;
 * "" where it does not fit (no note rather than a cut name). */
static void device_name(uint32_t device, const char *path, char *name,
			size_t size)
{
	char uevent[96], line[256];
	const char *slash = strrchr(path, '/'), *found = slash ? slash + 1 : path;
	FILE *f;

	snprintf(uevent, sizeof(uevent), "/sys/dev/block/%u:%u/uevent",
		 blk_dev_major(device), blk_dev_minor(device));
	f = fopen(uevent, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			found = line + 8;
			break;
		}
	if (strlen(found) < size)
		memcpy(name, found, strlen(found) + 1);
	else
		name[0] = '\0';
	if (f)
		fclose(f);
}

static void add_pending(struct rec_out *o, uint32_t device, const char *text,
			uint16_t len)
{
	struct pending_note *p = &o->pending[o->n_pending];

	if (!len)
		return;		/* a name no note can carry: none */
	p->device = device;
	p->len = len;
	memcpy(p->text, text, len);
	o->n_pending++;
}

int rec_out_facts(struct rec_out *o, const struct recnote_clock *clock,
		  const struct record_device *devs, size_t n_devs,
		  struct iow_error *err)
{
	uint32_t first = n_devs ? devs[0].dev : 0;
	char text[RECNOTE_TEXT_MAX], name[RECNOTE_NAME_MAX + 1];
	struct utsname host;
	size_t i;

	free(o->pending);
	o->n_pending = 0;
	o->pending = calloc(n_devs + 2, sizeof(*o->pending));
	if (!o->pending)
		return iow_fail(err, "out of memory");
	o->pending_ns = clock ? clock->trace_ns : 0;
	if (uname(&host) == 0)
		add_pending(o, first, text,
			    recnote_format_host(host.nodename, text));
	for (i = 0; i < n_devs; i++) {
		device_name(devs[i].dev, devs[i].node[0] ? devs[i].node :
							    devs[i].path,
			    name, sizeof(name));
		add_pending(o, devs[i].dev, text,
			    recnote_format_device(devs[i].dev, name, text));
	}
	if (clock)
		add_pending(o, first, text, recnote_format_clock(clock, text));
	return 0;
}

int rec_out_end(struct rec_out *o, uint32_t device, struct iow_error *err)
{
	char text[LOSSNOTE_TEXT_MAX];
	uint64_t newest = 0;
	unsigned cpu;

	for (cpu = 0; cpu < o->n_cpus; cpu++)
		if (o->cpus[cpu].last_time > newest)
			newest = o->cpus[cpu].last_time;
	for (cpu = 0; cpu < o->n_cpus; cpu++) {
		struct blk_io_trace t = {
			.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
			.time = newest, .action = LOSSNOTE_ACTION,
			.device = device, .cpu = cpu,
		};

		t.pdu_len = lossnote_format_end_mark(cpu, newest, text);
		if (rec_out_write(o, &t, text, err))
			return -1;
	}
	return 0;
}

void rec_out_set_tap(struct rec_out *o, rec_out_tap_fn tap, void *ctx)
{
	o->tap = tap;
	o->tap_ctx = ctx;
}

void rec_out_set_tap_hi(struct rec_out *o, rec_out_tap_hi_fn tap, void *ctx)
{
	o->tap_hi = tap;
	o->tap_ctx = ctx;
}

void rec_out_stats(const struct rec_out *o, struct rec_out_stats *st)
{
	*st = o->st;
	st->n_files = o->n_cpus;
}

uint64_t rec_out_last_time(const struct rec_out *o, unsigned cpu)
{
	return cpu < o->n_cpus ? o->cpus[cpu].last_time : 0;
}

struct rec_out *rec_out_open(const char *dir, const char *name,
			     unsigned n_cpus, struct iow_error *err)
{
	struct rec_out *o = calloc(1, sizeof(*o));

	if (!o) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	if ((size_t)snprintf(o->prefix, sizeof(o->prefix), "%s/%s",
			     dir ? dir : ".", name) >= sizeof(o->prefix)) {
		iow_fail(err, "output name too long: %s/%s", dir, name);
		goto fail;
	}
	if (!cpu_file(o, n_cpus ? n_cpus - 1 : 0, err))
		goto fail;
	return o;
fail:
	rec_out_close(o, NULL);
	return NULL;
}

int rec_out_close(struct rec_out *o, struct iow_error *err)
{
	char path[PATH_MAX];
	unsigned cpu;
	int rc = 0;

	if (o->n_pending && write_pending(o, err))
		rc = -1;
	for (cpu = 0; cpu < o->n_cpus; cpu++) {
		struct cpu_file *f = &o->cpus[cpu];

		if (flush_cpu(o, cpu, rc ? NULL : err))
			rc = -1;
		if (close(f->fd) && !rc) {
			cpu_path(o, cpu, path);
			rc = iow_fail(err, "cannot write %s: %s", path,
				      strerror(errno));
		}
		free(f->seqs);
		free(f->buf);
	}
	free(o->cpus);
	free(o->done);
	free(o->pending);
	free(o);
	return rc;
}
