/* rec_causes.c: a recorder's causes, written beside the trace
 * (rec_causes.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/blkrec.h"
#include "causefile.h"
#include "causenames.h"
#include "rec_causes.h"
#include "u64map.h"

_Static_assert(BLKREC_WRITEBACK == CAUSE_WRITEBACK &&
	       BLKREC_DIRECT == CAUSE_DIRECT,
	       "the programs' flags are causefile's");

#define MAX_FRAMES	BLKREC_STACK_DEPTH
#define FRAME_LEN	160
#define MAX_UMAPS	4096	/* processes whose maps are kept */

struct task {
	uint32_t tid, tgid;
	char comm[BLKREC_COMM_LEN + 1];
	int written;		/* comm is in the dictionary */
	int news;		/* on the list of names to write */
};

struct file_key {
	uint32_t dev;
	uint64_t ino;
	enum cause_file_kind kind;
	int named;		/* in the dictionary */
};

struct cgroup_name {
	uint64_t id;
	int tried;		/* looked for once, while recording */
	int written;		/* path is in the dictionary */
	char *path;
};

/* Stacks of one kind (kernel or user): the programs' ids to ours, and
 * ours by their frames (identical frames, one id). */
struct stack_ids {
	struct u64map by_prog;	/* program's id -> ours + 1 (0: none) */
	struct u64map by_text;	/* hash of the frames -> ours */
	char **texts;		/* ours -> the frames, joined */
	size_t n;
	uint64_t lost;		/* ids the programs could not get */
};

struct proc_maps {
	uint32_t tgid;
	int reread;		/* read again once for an address outside */
	struct umaps *maps;
};

struct rec_causes {
	struct rec_causes_env env;
	struct cause_writer *w;
	struct u64map task_idx;		/* tid -> tasks[] */
	struct task *tasks;
	size_t n_tasks;
	uint32_t *task_news;		/* tasks[] named, not yet written */
	size_t n_task_news;
	struct u64map file_idx;		/* mix(dev, ino) -> files[] */
	struct file_key *files;
	size_t n_files;
	size_t files_tried;		/* files[] before it: looked up */
	struct file_handles *handles;	/* for the live view, or NULL */
	struct u64map cgroup_idx;	/* id -> cgroups[] */
	struct cgroup_name *cgroups;
	size_t n_cgroups;
	int cgroups_pending;
	char cgroup_root[4096];
	int cgroup_root_state;		/* 0 not looked for, 1 found, -1 none */
	struct stack_ids kernel, user;
	struct ksyms *ksyms;
	int ksyms_failed;
	char ksyms_why[IOW_ERROR_LEN];
	struct usyms *usyms;
	struct proc_maps *procs;
	size_t n_procs;
	uint64_t causes;
};

/* ---- growing arrays ---- */

/*
 * arr, holding n items of size bytes, with room for one more: its
 * capacity is 16, then doubles whenever n reaches a power of two. NULL
 * when out of memory (arr is then as it was).
 */
static void *grow(void *arr, size_t n, size_t size)
{
	if (!n)
		return realloc(arr, 16 * size);
	if (n < 16 || (n & (n - 1)))
		return arr;
	return realloc(arr, 2 * n * size);
}

/* ---- tasks ---- */

static struct task *task_of(struct rec_causes *rc, uint32_t tid)
{
	struct task *more;
	uint32_t idx;

	if (u64map_get(&rc->task_idx, tid, &idx))
		return &rc->tasks[idx];
	more = grow(rc->tasks, rc->n_tasks, sizeof(*more));
	if (!more)
		return NULL;
	rc->tasks = more;
	memset(&more[rc->n_tasks], 0, sizeof(*more));
	more[rc->n_tasks].tid = tid;
	if (u64map_put(&rc->task_idx, tid, (uint32_t)rc->n_tasks) < 0)
		return NULL;
	return &rc->tasks[rc->n_tasks++];
}

/* t's name is new (or another): to be written with the next names. */
static int task_named(struct rec_causes *rc, struct task *t)
{
	uint32_t *more;

	t->written = 0;
	if (t->news)
		return 0;
	more = grow(rc->task_news, rc->n_task_news, sizeof(*more));
	if (!more)
		return -1;
	rc->task_news = more;
	more[rc->n_task_news++] = (uint32_t)(t - rc->tasks);
	t->news = 1;
	return 0;
}

static int see_task(struct rec_causes *rc, uint32_t tid, uint32_t tgid,
		    const char *comm)
{
	struct task *t;

	if (!tid)
		return 0;
	t = task_of(rc, tid);
	if (!t)
		return -1;
	if (tgid)
		t->tgid = tgid;
	if (comm && comm[0] && !t->comm[0]) {
		memcpy(t->comm, comm, BLKREC_COMM_LEN);
		return task_named(rc, t);
	}
	return 0;
}

int rec_causes_process(struct rec_causes *rc, uint32_t pid, const char *comm,
		       size_t len)
{
	struct task *t = task_of(rc, pid);

	if (!t)
		return -1;
	if (len > BLKREC_COMM_LEN)
		len = BLKREC_COMM_LEN;
	if (strlen(t->comm) == len && !memcmp(t->comm, comm, len))
		return 0;
	memcpy(t->comm, comm, len);
	t->comm[len] = '\0';
	return task_named(rc, t);
}

/* ---- files and cgroups ---- */

static int see_file(struct rec_causes *rc, uint32_t dev, uint64_t ino,
		    enum cause_file_kind kind)
{
	uint64_t key = u64_mix(u64_mix(0, dev), ino);
	struct file_key *more;
	uint32_t idx;

	/* a clash of keys (another file) tries the next one */
	for (;; key++) {
		if (!u64map_get(&rc->file_idx, key, &idx))
			break;
		if (rc->files[idx].dev == dev && rc->files[idx].ino == ino)
			return 0;
	}
	more = grow(rc->files, rc->n_files, sizeof(*more));
	if (!more)
		return -1;
	rc->files = more;
	more[rc->n_files] = (struct file_key){ dev, ino, kind, 0 };
	if (u64map_put(&rc->file_idx, key, (uint32_t)rc->n_files) < 0)
		return -1;
	rc->n_files++;
	return 0;
}

static int see_cgroup(struct rec_causes *rc, uint64_t id)
{
	struct cgroup_name *more;
	uint32_t idx;

	if (!id || u64map_get(&rc->cgroup_idx, id, &idx))
		return 0;
	more = grow(rc->cgroups, rc->n_cgroups, sizeof(*more));
	if (!more)
		return -1;
	rc->cgroups = more;
	more[rc->n_cgroups] = (struct cgroup_name){ id, 0, 0, NULL };
	if (u64map_put(&rc->cgroup_idx, id, (uint32_t)rc->n_cgroups) < 0)
		return -1;
	rc->n_cgroups++;
	rc->cgroups_pending = 1;
	return 0;
}

/* Names the cgroups not yet looked for (all of them: final). */
static void name_cgroups(struct rec_causes *rc, int final)
{
	uint64_t *ids;
	char **paths;
	size_t i;

	if (!rc->cgroup_root_state)
		rc->cgroup_root_state = cgroup_io_root(rc->env.mountinfo,
						       rc->cgroup_root,
						       sizeof(rc->cgroup_root))
					? -1 : 1;
	if (rc->cgroup_root_state < 0)
		return;
	ids = calloc(rc->n_cgroups + 1, sizeof(*ids));
	paths = calloc(rc->n_cgroups + 1, sizeof(*paths));
	if (!ids || !paths)
		goto out;
	for (i = 0; i < rc->n_cgroups; i++)
		if (!rc->cgroups[i].path && (final || !rc->cgroups[i].tried))
			ids[i] = rc->cgroups[i].id;
	cgroup_paths(rc->cgroup_root, ids, paths, rc->n_cgroups);
	for (i = 0; i < rc->n_cgroups; i++) {
		rc->cgroups[i].tried = 1;
		if (paths[i] && !rc->cgroups[i].path)
			rc->cgroups[i].path = paths[i];
		else
			free(paths[i]);
	}
out:
	free(ids);
	free(paths);
}

/* ---- names as they are learnt ---- */

static int write_task_news(struct rec_causes *rc, struct iow_error *err)
{
	struct task *t;
	size_t i;

	for (i = 0; i < rc->n_task_news; i++) {
		t = &rc->tasks[rc->task_news[i]];
		t->news = 0;
		if (cause_write_task(rc->w, t->tid, t->tgid ? t->tgid : t->tid,
				     t->comm, err))
			return -1;
		t->written = 1;
	}
	rc->n_task_news = 0;
	return 0;
}

/* The cgroups named and not yet written. */
static int write_cgroup_names(struct rec_causes *rc, struct iow_error *err)
{
	struct cgroup_name *cg;
	size_t i;

	for (i = 0; i < rc->n_cgroups; i++) {
		cg = &rc->cgroups[i];
		if (!cg->path || cg->written)
			continue;
		if (cause_write_cgroup(rc->w, cg->id, cg->path, err))
			return -1;
		cg->written = 1;
	}
	return 0;
}

/* The device opened raw: its node's path, by its number. */
static void device_path(uint64_t dev, char *buf, size_t len)
{
	unsigned maj = (unsigned)(dev >> 20), min = (unsigned)(dev & 0xfffff);
	char link[128], target[256];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		const char *base;

		target[n] = '\0';
		base = strrchr(target, '/');
		snprintf(buf, len, "/dev/%s", base ? base + 1 : target);
	} else {
		snprintf(buf, len, "device %u,%u", maj, min);
	}
}

/* For the live view: each file as it first comes, by its handle (the
 * walk at the end names those it cannot), a device by its node. */
static int write_new_files(struct rec_causes *rc, struct iow_error *err)
{
	struct file_key *f;
	char dev_path[300], *path;
	int rc_ = 0;

	if (!rc->handles)
		rc->handles = file_handles_new(rc->env.mountinfo);
	if (!rc->handles)
		return iow_fail(err, "out of memory");
	for (; rc->files_tried < rc->n_files && !rc_; rc->files_tried++) {
		f = &rc->files[rc->files_tried];
		if (f->kind == FILE_KIND_DEVICE) {
			device_path(f->ino, dev_path, sizeof(dev_path));
			path = dev_path;
		} else {
			path = file_handles_path(rc->handles, f->dev, f->ino);
		}
		if (!path)
			continue;
		rc_ = cause_write_file(rc->w, f->dev, f->ino, f->kind, path,
				       err);
		f->named = !rc_;
		if (path != dev_path)
			free(path);
	}
	return rc_;
}

/*
 * Writes the names learnt since the last call: tasks, cgroups (looked
 * for while they exist) and, for the live view, files. The live view
 * tags a record when it first sees its cause, so there its names are
 * written with the record's cause; else after each batch.
 */
static int write_news(struct rec_causes *rc, struct iow_error *err)
{
	if (rc->n_task_news && write_task_news(rc, err))
		return -1;
	if (rc->cgroups_pending) {
		rc->cgroups_pending = 0;
		name_cgroups(rc, 0);
		if (write_cgroup_names(rc, err))
			return -1;
	}
	if (rc->env.mirror && rc->files_tried < rc->n_files)
		return write_new_files(rc, err);
	return 0;
}

int rec_causes_pump(struct rec_causes *rc, struct iow_error *err)
{
	return write_news(rc, err);
}

/* ---- stacks ---- */

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether a kernel frame is the tracing's own: the program, the helper
 * that took the stack, the tracepoint's glue (bpf_trace_run1,
 * __bpf_trace_block_bio_queue, __traceiter_...). */
static int tracing_frame(const char *f)
{
	return starts_with(f, "bpf_") || starts_with(f, "__bpf_") ||
	       starts_with(f, "__traceiter_") || starts_with(f, "perf_") ||
	       starts_with(f, "stack_trace_") ||
	       starts_with(f, "get_perf_callchain");
}

/* The tracing's frames come first (innermost); a frame not named ("?":
 * a program's image where kallsyms lists none) may sit among them. The
 * first named frame past them is where the tracepoint is. */
size_t rec_causes_tracing_frames(const char *const *names, size_t n)
{
	size_t i, drop = 0;

	for (i = 0; i < n; i++) {
		if (tracing_frame(names[i]))
			drop = i + 1;
		else if (strcmp(names[i], "?"))
			break;
	}
	return drop;
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 0;

	for (; *s; s++)
		h = u64_mix(h, (unsigned char)*s);
	return h;
}

/* Our id for the frames text (made when new, its dictionary line
 * written): -1 out of memory or on a write error. */
static int32_t stack_text_id(struct rec_causes *rc, struct stack_ids *s,
			     int user, char **frames, size_t n,
			     struct iow_error *err)
{
	const char *out[MAX_FRAMES];
	size_t i, len = 0;
	char *text, **more;
	uint64_t h;
	uint32_t idx;

	for (i = 0; i < n; i++)
		len += strlen(frames[i]) + 1;
	text = malloc(len + 1);
	if (!text)
		return iow_fail(err, "out of memory");
	text[0] = '\0';
	for (i = n; i-- > 0;) {	/* outermost first */
		strcat(text, frames[i]);
		if (i)
			strcat(text, ";");
	}
	for (h = text_hash(text);; h++) {
		if (!u64map_get(&s->by_text, h, &idx))
			break;
		if (!strcmp(s->texts[idx], text)) {
			free(text);
			return (int32_t)idx;
		}
	}
	more = grow(s->texts, s->n, sizeof(*more));
	if (!more) {
		free(text);
		return iow_fail(err, "out of memory");
	}
	s->texts = more;
	if (u64map_put(&s->by_text, h, (uint32_t)s->n) < 0) {
		free(text);
		return iow_fail(err, "out of memory");
	}
	more[s->n++] = text;
	/* the dictionary's frames: outermost first */
	for (i = 0; i < n; i++)
		out[i] = frames[n - 1 - i];
	if (cause_write_stack(rc->w, user, (int32_t)(s->n - 1), out, n, err))
		return -1;
	return (int32_t)(s->n - 1);
}

static int load_ksyms(struct rec_causes *rc)
{
	struct iow_error e;

	if (rc->ksyms || rc->ksyms_failed)
		return rc->ksyms ? 0 : -1;
	rc->ksyms = ksyms_load(rc->env.kallsyms, &e);
	if (!rc->ksyms) {
		rc->ksyms_failed = 1;
		snprintf(rc->ksyms_why, sizeof(rc->ksyms_why), "%s", e.msg);
		return -1;
	}
	return 0;
}

static struct umaps *maps_of(struct rec_causes *rc, uint32_t tgid,
			     uint64_t addr)
{
	char path[512];
	struct proc_maps *more, *p = NULL;
	size_t i;

	for (i = 0; i < rc->n_procs; i++)
		if (rc->procs[i].tgid == tgid)
			p = &rc->procs[i];
	snprintf(path, sizeof(path), "%s/%u/maps", rc->env.proc, tgid);
	if (p && !umaps_covers(p->maps, addr) && !p->reread) {
		/* a library loaded since: read once more */
		umaps_free(p->maps);
		p->maps = umaps_read(path);
		p->reread = 1;
	}
	if (p || rc->n_procs >= MAX_UMAPS)
		return p ? p->maps : NULL;
	more = grow(rc->procs, rc->n_procs, sizeof(*more));
	if (!more)
		return NULL;
	rc->procs = more;
	p = &more[rc->n_procs++];
	p->tgid = tgid;
	p->reread = 0;
	p->maps = umaps_read(path);
	return p->maps;
}

/* The frames of a program's stack id as names, innermost first. */
static size_t stack_frames(struct rec_causes *rc, int user, int32_t prog_id,
			   uint32_t tgid, char (*names)[FRAME_LEN])
{
	uint64_t ips[MAX_FRAMES];
	const char *ptrs[MAX_FRAMES];
	int n = rc->env.read_stack(rc->env.stack_ctx, user, prog_id, ips,
				   MAX_FRAMES);
	struct umaps *maps = NULL;
	size_t i, drop = 0;
	const char *name;

	if (n <= 0)
		return 0;
	if (!user && load_ksyms(rc))
		return 0;
	if (user && !rc->usyms && !(rc->usyms = usyms_new()))
		return 0;
	for (i = 0; i < (size_t)n; i++) {
		if (!user) {
			name = ksyms_name(rc->ksyms, ips[i]);
			snprintf(names[i], FRAME_LEN, "%s", name ? name : "?");
		} else {
			if (!maps || !umaps_covers(maps, ips[i]))
				maps = maps_of(rc, tgid, ips[i]);
			usyms_frame(rc->usyms, maps, ips[i], names[i],
				    FRAME_LEN);
		}
		ptrs[i] = names[i];
	}
	if (!user)
		drop = rec_causes_tracing_frames(ptrs, (size_t)n);
	if (drop) {
		memmove(names, names + drop, ((size_t)n - drop) * FRAME_LEN);
		n -= (int)drop;
	}
	return (size_t)n;
}

/* Our id for a program's stack id (-1: none); err only on a write
 * error or out of memory (*failed). */
static int32_t stack_id(struct rec_causes *rc, int user, int32_t prog_id,
			uint32_t tgid, int *failed, struct iow_error *err)
{
	struct stack_ids *s = user ? &rc->user : &rc->kernel;
	char (*names)[FRAME_LEN];
	char *ptrs[MAX_FRAMES];
	uint32_t ours;
	size_t n, i;
	int32_t id;

	if (prog_id < 0) {
		/* -EFAULT: no user stack (a kernel thread) is no loss */
		if (prog_id != -14)
			s->lost++;
		return -1;
	}
	if (u64map_get(&s->by_prog, (uint64_t)prog_id, &ours))
		return (int32_t)ours - 1;
	names = malloc(MAX_FRAMES * FRAME_LEN);
	if (!names) {
		*failed = iow_fail(err, "out of memory");
		return -1;
	}
	n = stack_frames(rc, user, prog_id, tgid, names);
	id = -1;
	if (n) {
		for (i = 0; i < n; i++)
			ptrs[i] = names[i];
		id = stack_text_id(rc, s, user, ptrs, n, err);
		if (id < 0)
			*failed = -1;
	}
	free(names);
	if (*failed)
		return -1;
	if (u64map_put(&s->by_prog, (uint64_t)prog_id, (uint32_t)(id + 1)) < 0)
		*failed = iow_fail(err, "out of memory");
	return id;
}

/* ---- records ---- */

static const uint32_t kind_flags[] = {
	[BLKREC_METADATA] = CAUSE_METADATA,
	[BLKREC_JOURNAL] = CAUSE_JOURNAL,
	[BLKREC_SWAP] = CAUSE_SWAP,
};

int rec_causes_put(struct rec_causes *rc, const struct blk_io_trace *t,
		   const struct blkrec_cause *c, struct iow_error *err)
{
	struct cause_rec r = {
		.sequence = t->sequence,
		.device = t->device,
		.pid = c->pid,
		.tgid = c->tgid,
		.owner_pid = c->owner_pid,
		.owner_tgid = c->owner_tgid,
		.cgroup = c->cgroup,
		.flags = c->flags & (CAUSE_WRITEBACK | CAUSE_DIRECT),
		.kstack = -1,
		.ustack = -1,
	};
	int failed = 0;

	if (c->kind < sizeof(kind_flags) / sizeof(kind_flags[0]))
		r.flags |= kind_flags[c->kind];
	if ((c->kind == BLKREC_FILE || c->kind == BLKREC_DEVICE) && c->ino) {
		r.ino = c->ino;
		r.ino_dev = c->ino_dev;
		if (see_file(rc, c->ino_dev, c->ino,
			     c->kind == BLKREC_FILE ? FILE_KIND_FILE
						    : FILE_KIND_DEVICE))
			return iow_fail(err, "out of memory");
	}
	if (see_task(rc, c->pid, c->tgid, NULL) ||
	    see_task(rc, c->owner_pid, c->owner_tgid, c->owner_comm) ||
	    see_cgroup(rc, c->cgroup))
		return iow_fail(err, "out of memory");
	if (rc->env.what & BLKREC_KSTACKS)
		r.kstack = stack_id(rc, 0, c->kstack, c->tgid, &failed, err);
	if (!failed && (rc->env.what & BLKREC_USTACKS))
		r.ustack = stack_id(rc, 1, c->ustack, c->tgid, &failed, err);
	if (failed)
		return -1;
	rc->causes++;
	if (rc->env.mirror && write_news(rc, err))
		return -1;
	return cause_write(rc->w, t->cpu, &r, err);
}

/* ---- the end ---- */

static int write_tasks(struct rec_causes *rc, struct iow_error *err)
{
	char path[512], comm[64];
	struct task *t;
	size_t i;
	FILE *f;

	if (write_task_news(rc, err))
		return -1;
	for (i = 0; i < rc->n_tasks; i++) {
		t = &rc->tasks[i];
		if (t->written)
			continue;
		if (!t->comm[0]) {	/* no note named it: ask while it lives */
			snprintf(path, sizeof(path), "%s/%u/comm",
				 rc->env.proc, t->tid);
			f = fopen(path, "re");
			if (f && fgets(comm, sizeof(comm), f)) {
				comm[strcspn(comm, "\n")] = '\0';
				snprintf(t->comm, sizeof(t->comm), "%.16s", comm);
			}
			if (f)
				fclose(f);
		}
		if (!t->comm[0])
			continue;
		if (cause_write_task(rc->w, t->tid, t->tgid ? t->tgid : t->tid,
				     t->comm, err))
			return -1;
	}
	return 0;
}

static int write_cgroups(struct rec_causes *rc, struct iow_error *err)
{
	size_t i, unnamed = 0;
	char note[256];

	name_cgroups(rc, 1);
	if (write_cgroup_names(rc, err))
		return -1;
	for (i = 0; i < rc->n_cgroups; i++)
		if (!rc->cgroups[i].path)
			unnamed++;
	if (!unnamed)
		return 0;
	snprintf(note, sizeof(note), "%zu cgroups gone before they could be named (by id)",
		 unnamed);
	if (rc->cgroup_root_state < 0)
		snprintf(note, sizeof(note), "cgroups not named: no cgroup hierarchy of the io controller is mounted");
	return cause_write_note(rc->w, note, err);
}

static int write_files(struct rec_causes *rc, struct iow_error *err)
{
	struct file_query *q = calloc(rc->n_files + 1, sizeof(*q));
	size_t i, n = 0, unnamed = 0;
	char path[300], note[256];
	int timed_out = 0, rc_ = 0;

	if (!q)
		return iow_fail(err, "out of memory");
	for (i = 0; i < rc->n_files; i++)
		if (rc->files[i].kind == FILE_KIND_FILE && !rc->files[i].named)
			q[n++] = (struct file_query){ rc->files[i].dev,
						      rc->files[i].ino, NULL };
	file_paths(rc->env.mountinfo, q, n, rc->env.file_walk_ms, &timed_out);
	for (i = 0; i < n && !rc_; i++) {
		if (!q[i].path) {
			unnamed++;
			continue;
		}
		rc_ = cause_write_file(rc->w, q[i].dev, q[i].ino,
				       FILE_KIND_FILE, q[i].path, err);
	}
	/* the device itself: its inode number is its dev_t */
	for (i = 0; i < rc->n_files && !rc_; i++) {
		if (rc->files[i].kind != FILE_KIND_DEVICE || rc->files[i].named)
			continue;
		device_path(rc->files[i].ino, path, sizeof(path));
		rc_ = cause_write_file(rc->w, rc->files[i].dev,
				       rc->files[i].ino, FILE_KIND_DEVICE,
				       path, err);
	}
	for (i = 0; i < n; i++)
		free(q[i].path);
	free(q);
	if (rc_ || !unnamed)
		return rc_;
	snprintf(note, sizeof(note), "%zu files not found %s: named by inode and device",
		 unnamed, timed_out ? "before the file walk's time ran out"
				    : "on the mounted file systems (removed, or not mounted here)");
	return cause_write_note(rc->w, note, err);
}

static int write_notes(struct rec_causes *rc, struct iow_error *err)
{
	char note[IOW_ERROR_LEN + 64];

	if ((rc->env.what & BLKREC_USTACKS) &&
	    cause_write_note(rc->w, "user stacks need frame pointers: a program built without them shows its innermost frame or two",
			     err))
		return -1;
	if (rc->ksyms_failed) {
		snprintf(note, sizeof(note), "kernel stacks not named: %s",
			 rc->ksyms_why);
		if (cause_write_note(rc->w, note, err))
			return -1;
	}
	if (rc->kernel.lost) {
		snprintf(note, sizeof(note), "%llu kernel stacks not kept (the stack map was full or its hash clashed)",
			 (unsigned long long)rc->kernel.lost);
		if (cause_write_note(rc->w, note, err))
			return -1;
	}
	if (rc->user.lost) {
		snprintf(note, sizeof(note), "%llu user stacks not kept (the stack map was full or its hash clashed)",
			 (unsigned long long)rc->user.lost);
		if (cause_write_note(rc->w, note, err))
			return -1;
	}
	return 0;
}

struct rec_causes *rec_causes_open(const struct rec_causes_env *env,
				   struct iow_error *err)
{
	struct rec_causes *rc = calloc(1, sizeof(*rc));

	if (!rc) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	rc->env = *env;
	if (!rc->env.proc)
		rc->env.proc = "/proc";
	if (!rc->env.kallsyms)
		rc->env.kallsyms = "/proc/kallsyms";
	if (!rc->env.mountinfo)
		rc->env.mountinfo = "/proc/self/mountinfo";
	rc->w = cause_writer_open(env->dir, env->name, err);
	if (!rc->w) {
		free(rc);
		return NULL;
	}
	if (env->mirror)
		cause_writer_mirror(rc->w, env->mirror);
	/* first: a live view knows at once what it will not be told */
	if (env->unrecorded &&
	    (cause_write_unrecorded(rc->w, CAUSE_PART_FILES, env->unrecorded,
				    err) ||
	     cause_write_unrecorded(rc->w, CAUSE_PART_STACKS,
				    env->unrecorded, err))) {
		rec_causes_close(rc, 0, NULL);
		return NULL;
	}
	/* stacks are kept on request: without, --by stack and the like
	 * say how to ask */
	if (!env->unrecorded && !(env->what & BLKREC_KSTACKS) &&
	    cause_write_unrecorded(rc->w, CAUSE_PART_STACKS,
				   "recorded without --stacks: record with --stacks kernel to keep kernel stacks",
				   err)) {
		rec_causes_close(rc, 0, NULL);
		return NULL;
	}
	return rc;
}

int rec_causes_note(struct rec_causes *rc, const char *text,
		    struct iow_error *err)
{
	return cause_write_note(rc->w, text, err);
}

static void stack_ids_free(struct stack_ids *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->texts[i]);
	free(s->texts);
	u64map_free(&s->by_prog);
	u64map_free(&s->by_text);
}

int rec_causes_close(struct rec_causes *rc, int ok, struct iow_error *err)
{
	size_t i;
	int rc_ = 0;

	if (!rc)
		return 0;
	if (ok)
		rc_ = write_tasks(rc, err);
	if (ok && !rc_)
		rc_ = write_cgroups(rc, err);
	if (ok && !rc_)
		rc_ = write_files(rc, err);
	if (ok && !rc_)
		rc_ = write_notes(rc, err);
	if (cause_writer_close(rc->w, ok && !rc_ ? err : NULL))
		rc_ = -1;
	u64map_free(&rc->task_idx);
	free(rc->task_news);
	file_handles_free(rc->handles);
	u64map_free(&rc->file_idx);
	u64map_free(&rc->cgroup_idx);
	free(rc->tasks);
	free(rc->files);
	for (i = 0; i < rc->n_cgroups; i++)
		free(rc->cgroups[i].path);
	free(rc->cgroups);
	stack_ids_free(&rc->kernel);
	stack_ids_free(&rc->user);
	ksyms_free(rc->ksyms);
	usyms_free(rc->usyms);
	for (i = 0; i < rc->n_procs; i++)
		umaps_free(rc->procs[i].maps);
	free(rc->procs);
	free(rc);
	return rc_;
}
