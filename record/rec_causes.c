/* rec_causes.c: a recorder's causes, written beside the trace
 * (rec_causes.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/bpf/blkrec.h"
#include "reader/causefile.h"
#include "causenames.h"
#include "rec_causes.h"
#include "base/u64map.h"

_Static_assert(BLKREC_WRITEBACK == CAUSE_WRITEBACK &&
	       BLKREC_DIRECT == CAUSE_DIRECT,
	       "the programs' flags are causefile's");

#define MAX_FRAMES	BLKREC_STACK_DEPTH
#define FRAME_LEN	160
#define MAX_UMAPS	4096	/* processes whose maps are kept */
#define MAX_UNLINKED	65536	/* unlinked names kept (an rm -r of a
				 * tree is the most) */

struct task {
	uint32_t tid, tgid;
	char comm[BLKREC_COMM_LEN + 1];
	int written;		/* comm is in the dictionary */
	int news;		/* on the list of names to write */
};

/* A file: its number, and its generation, for a number is given again
 * to the next file made once the file that had it is deleted. */
struct file_key {
	uint32_t dev, gen;
	uint64_t ino;
	enum cause_file_kind kind;
	int named;		/* in the dictionary */
	char *path;		/* its name when first seen, or NULL */
};

/* A file's name as it was unlinked (the BPF recorder's unlink records),
 * the last of each inode. */
struct unlinked {
	uint32_t dev, gen;
	uint64_t ino;
	uint32_t nlink;		/* its links left: 0, the file went */
	char *path;
};

struct cgroup_name {
	uint64_t id;
	int tried;		/* looked for once, while recording */
	int written;		/* path is in the dictionary */
	char *path;
};

/* The cgroups of one hierarchy: the io controller's (the bios'), or
 * cgroup v2's (the tasks', kept where the io controller is v1's). */
struct cgroup_set {
	struct u64map idx;		/* id -> names[] */
	struct cgroup_name *names;
	size_t n;
	int pending;
	char root[4096];
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
	struct u64map file_idx;		/* mix(dev, ino, gen) -> files[] */
	struct file_key *files;
	size_t n_files;
	size_t files_tried;		/* files[] before it: looked up */
	struct file_handles *handles;	/* made at the first file */
	struct u64map unlinked_idx;	/* mix(dev, ino, gen) -> unlinked[] */
	struct unlinked *unlinked;
	size_t n_unlinked;
	struct cgroup_set io, v2;
	/* 0 not looked for, 1 found (io_v1: the io controller's is v1's,
	 * and the tasks' v2 groups are kept too), -1 none */
	int cgroup_root_state, io_v1;
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
	/* the name it has now: a task first seen in its exec (reading the
	 * program it becomes, its comm still its shell's) is named again
	 * by what it does after (dd's writes were credited to "sh") */
	if (comm && comm[0] &&
	    strncmp(t->comm, comm, BLKREC_COMM_LEN) != 0) {
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

/* ---- files ---- */

static uint64_t file_hash(uint32_t dev, uint64_t ino, uint32_t gen)
{
	return u64_mix(u64_mix(u64_mix(0, dev), ino), gen);
}

static int see_file(struct rec_causes *rc, uint32_t dev, uint64_t ino,
		    uint32_t gen, enum cause_file_kind kind)
{
	uint64_t key = file_hash(dev, ino, gen);
	struct file_key *more, *f;
	uint32_t idx;

	/* a clash of keys (another file) tries the next one */
	for (;; key++) {
		if (!u64map_get(&rc->file_idx, key, &idx))
			break;
		f = &rc->files[idx];
		if (f->dev == dev && f->ino == ino && f->gen == gen)
			return 0;
	}
	more = grow(rc->files, rc->n_files, sizeof(*more));
	if (!more)
		return -1;
	rc->files = more;
	more[rc->n_files] = (struct file_key){ .dev = dev, .gen = gen,
					       .ino = ino, .kind = kind };
	if (u64map_put(&rc->file_idx, key, (uint32_t)rc->n_files) < 0)
		return -1;
	rc->n_files++;
	return 0;
}

static struct file_handles *handles(struct rec_causes *rc)
{
	if (!rc->handles)
		rc->handles = file_handles_new(rc->env.mountinfo);
	return rc->handles;
}

static struct unlinked *unlinked_of(const struct rec_causes *rc,
				    uint32_t dev, uint64_t ino, uint32_t gen)
{
	uint64_t key = file_hash(dev, ino, gen);
	const struct unlinked *u;
	uint32_t idx;

	for (; u64map_get(&rc->unlinked_idx, key, &idx); key++) {
		u = &rc->unlinked[idx];
		if (u->dev == dev && u->ino == ino && u->gen == gen)
			return &rc->unlinked[idx];
	}
	return NULL;
}

/* The components of an unlink record (the file's first) as a path from
 * its file system's root, "/..." where they do not reach it. */
static char *path_from_root(const struct blkrec_name *n)
{
	const char *parts[BLKREC_NAME_DEPTH];
	size_t i, off = 0, len = 5, depth = 0;
	char *path;

	while (depth < n->depth && depth < BLKREC_NAME_DEPTH &&
	       off < BLKREC_NAME_BYTES) {
		parts[depth] = n->names + off;
		len += strnlen(parts[depth], BLKREC_NAME_BYTES - off) + 1;
		off += strnlen(parts[depth], BLKREC_NAME_BYTES - off) + 1;
		depth++;
	}
	if (!depth || !(path = malloc(len)))
		return NULL;
	strcpy(path, n->whole ? "" : "/...");
	for (i = depth; i-- > 0;) {
		strcat(path, "/");
		strncat(path, parts[i], len - strlen(path) - 1);
	}
	return path;
}

int rec_causes_unlinked(struct rec_causes *rc, const struct blk_io_trace *t,
			const struct blkrec_name *n, struct iow_error *err)
{
	char *rel = path_from_root(n), *path = NULL;
	struct unlinked *u, *more;
	uint64_t key;
	uint32_t idx;

	if (!rel)
		return 0;	/* a name the kernel gave empty: none */
	if (handles(rc))
		path = file_handles_mounted(rc->handles, t->device, rel);
	if (path)
		free(rel);
	else
		path = rel;	/* not mounted here: from its root */
	u = unlinked_of(rc, t->device, n->ino, n->gen);
	if (!u && rc->n_unlinked >= MAX_UNLINKED) {
		free(path);
		return 0;
	}
	if (!u) {
		more = grow(rc->unlinked, rc->n_unlinked, sizeof(*more));
		if (!more)
			goto oom;
		rc->unlinked = more;
		for (key = file_hash(t->device, n->ino, n->gen);
		     u64map_get(&rc->unlinked_idx, key, &idx); key++)
			;
		if (u64map_put(&rc->unlinked_idx, key,
			       (uint32_t)rc->n_unlinked) < 0)
			goto oom;
		u = &more[rc->n_unlinked++];
		u->path = NULL;
	}
	free(u->path);
	*u = (struct unlinked){ t->device, n->gen, n->ino, n->nlink, path };
	return 0;
oom:
	free(path);
	return iow_fail(err, "out of memory");
}

/*
 * A file's name, as it was when its I/O was seen: where its last link
 * was unlinked, the name it had then, "(deleted)"; else the name found
 * when it was first seen (by its handle). NULL: found neither way (the
 * walk at the end may). Malloc'd.
 */
static char *name_as_seen(struct rec_causes *rc, const struct file_key *f)
{
	const struct unlinked *u = unlinked_of(rc, f->dev, f->ino, f->gen);
	char *path;

	if (u && !u->nlink) {
		path = malloc(strlen(u->path) + sizeof(FILE_DELETED));
		if (path)
			sprintf(path, "%s%s", u->path, FILE_DELETED);
		return path;
	}
	return f->path ? strdup(f->path) : NULL;
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

static int write_file_name(struct rec_causes *rc, struct file_key *f,
			   const char *path, struct iow_error *err)
{
	if (cause_write_file(rc->w, f->dev, f->ino, f->gen, f->kind, path,
			     err))
		return -1;
	f->named = 1;
	return 0;
}

/*
 * Each file as it first comes, by its handle, while it is there to be
 * found (a file deleted before the end is not; renamed, it is found by
 * its name of then). The live view is told at once, as is any device
 * (by its node); else the names wait for the end, which knows which
 * files went.
 */
static int name_new_files(struct rec_causes *rc, struct iow_error *err)
{
	struct file_key *f;
	char dev_path[300], *path;
	int rc_ = 0;

	if (!handles(rc))
		return iow_fail(err, "out of memory");
	for (; rc->files_tried < rc->n_files && !rc_; rc->files_tried++) {
		f = &rc->files[rc->files_tried];
		if (f->kind == FILE_KIND_DEVICE) {
			if (!rc->env.mirror)
				continue;
			device_path(f->ino, dev_path, sizeof(dev_path));
			rc_ = write_file_name(rc, f, dev_path, err);
			continue;
		}
		f->path = file_handles_path(rc->handles, f->dev, f->ino,
					    f->gen);
		if (!rc->env.mirror)
			continue;
		path = name_as_seen(rc, f);
		if (path)
			rc_ = write_file_name(rc, f, path, err);
		free(path);
	}
	return rc_;
}

/* ---- cgroups ---- */

static int see_cgroup(struct cgroup_set *set, uint64_t id)
{
	struct cgroup_name *more;
	uint32_t idx;

	if (!id || u64map_get(&set->idx, id, &idx))
		return 0;
	more = grow(set->names, set->n, sizeof(*more));
	if (!more)
		return -1;
	set->names = more;
	more[set->n] = (struct cgroup_name){ id, 0, 0, NULL };
	if (u64map_put(&set->idx, id, (uint32_t)set->n) < 0)
		return -1;
	set->n++;
	set->pending = 1;
	return 0;
}

/*
 * Where the ids are directories, looked for once: the io controller's
 * hierarchy (the bios' ids), said in the dictionary, for a reader to
 * say which hierarchy its cgroups are of; where that is v1's blkio, the
 * cgroup2 mount too, for the tasks' v2 groups.
 */
static int find_cgroup_roots(struct rec_causes *rc, struct iow_error *err)
{
	if (rc->cgroup_root_state)
		return 0;
	rc->cgroup_root_state = -1;
	if (cgroup_io_root(rc->env.mountinfo, rc->io.root,
			   sizeof(rc->io.root)))
		return 0;
	rc->cgroup_root_state = 1;
	if (cgroup_v2_root(rc->env.mountinfo, rc->v2.root,
			   sizeof(rc->v2.root)))
		rc->v2.root[0] = '\0';	/* v1 alone: no v2 groups to name */
	rc->io_v1 = strcmp(rc->v2.root, rc->io.root) != 0;
	return cause_write_cgroup_root(rc->w, rc->io.root, rc->io_v1, err);
}

/* Names set's cgroups not yet looked for (all of them: final). */
static void name_cgroups(struct cgroup_set *set, int final)
{
	uint64_t *ids;
	char **paths;
	size_t i;

	ids = calloc(set->n + 1, sizeof(*ids));
	paths = calloc(set->n + 1, sizeof(*paths));
	if (!ids || !paths)
		goto out;
	for (i = 0; i < set->n; i++)
		if (!set->names[i].path && (final || !set->names[i].tried))
			ids[i] = set->names[i].id;
	cgroup_paths(set->root, ids, paths, set->n);
	for (i = 0; i < set->n; i++) {
		set->names[i].tried = 1;
		if (paths[i] && !set->names[i].path)
			set->names[i].path = paths[i];
		else
			free(paths[i]);
	}
out:
	free(ids);
	free(paths);
}

/* The cgroups named and not yet written. */
static int write_cgroup_names(struct rec_causes *rc, struct cgroup_set *set,
			      struct iow_error *err)
{
	struct cgroup_name *cg;
	size_t i;

	for (i = 0; i < set->n; i++) {
		cg = &set->names[i];
		if (!cg->path || cg->written)
			continue;
		if ((set == &rc->v2 ? cause_write_cgroup2
				    : cause_write_cgroup)(rc->w, cg->id,
							  cg->path, err))
			return -1;
		cg->written = 1;
	}
	return 0;
}

/* The cgroups seen since the last call, named while they exist. */
static int write_new_cgroups(struct rec_causes *rc, struct cgroup_set *set,
			     struct iow_error *err)
{
	if (!set->pending)
		return 0;
	set->pending = 0;
	if (find_cgroup_roots(rc, err))
		return -1;
	if (rc->cgroup_root_state < 0 || !set->root[0])
		return 0;
	name_cgroups(set, 0);
	return write_cgroup_names(rc, set, err);
}

static void cgroup_set_free(struct cgroup_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->names[i].path);
	free(set->names);
	u64map_free(&set->idx);
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

/*
 * Writes the names learnt since the last call: tasks, cgroups (looked
 * for while they exist), and looks for the new files' (written at once
 * for the live view). The live view tags a record when it first sees
 * its cause, so there its names are written with the record's cause;
 * else after each batch.
 */
static int write_news(struct rec_causes *rc, struct iow_error *err)
{
	if (rc->n_task_news && write_task_news(rc, err))
		return -1;
	if (write_new_cgroups(rc, &rc->io, err) ||
	    write_new_cgroups(rc, &rc->v2, err))
		return -1;
	if (rc->files_tried < rc->n_files)
		return name_new_files(rc, err);
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
		r.ino_gen = c->ino_gen;
		if (see_file(rc, c->ino_dev, c->ino, c->ino_gen,
			     c->kind == BLKREC_FILE ? FILE_KIND_FILE
						    : FILE_KIND_DEVICE))
			return iow_fail(err, "out of memory");
	}
	/* the task's v2 group says more only where the bio's is v1's */
	if (c->cgroup2 && find_cgroup_roots(rc, err))
		return -1;
	if (c->cgroup2 && rc->io_v1 && rc->v2.root[0])
		r.cgroup2 = c->cgroup2;
	if (see_task(rc, c->pid, c->tgid, NULL) ||
	    see_task(rc, c->owner_pid, c->owner_tgid, c->owner_comm) ||
	    see_cgroup(&rc->io, c->cgroup) || see_cgroup(&rc->v2, r.cgroup2))
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

static int write_cgroups(struct rec_causes *rc, struct cgroup_set *set,
			 struct iow_error *err)
{
	size_t i, unnamed = 0;
	char note[256];

	if (!set->n)
		return 0;
	if (find_cgroup_roots(rc, err))
		return -1;
	if (rc->cgroup_root_state > 0) {
		name_cgroups(set, 1);
		if (write_cgroup_names(rc, set, err))
			return -1;
	}
	for (i = 0; i < set->n; i++)
		if (!set->names[i].path)
			unnamed++;
	if (!unnamed)
		return 0;
	snprintf(note, sizeof(note), "%zu %s gone before they could be named (by id)",
		 unnamed, set == &rc->v2 ? "cgroup v2 groups" : "cgroups");
	if (rc->cgroup_root_state < 0)
		snprintf(note, sizeof(note), "cgroups not named: no cgroup hierarchy of the io controller is mounted");
	return cause_write_note(rc->w, note, err);
}

/* The files named as they were seen (by handle, or their unlink): the
 * rest are left for the walk. */
static int write_files_as_seen(struct rec_causes *rc, struct iow_error *err)
{
	struct file_key *f;
	char *path;
	size_t i;
	int rc_ = 0;

	for (i = 0; i < rc->n_files && !rc_; i++) {
		f = &rc->files[i];
		if (f->kind != FILE_KIND_FILE || f->named)
			continue;
		path = name_as_seen(rc, f);
		if (path)
			rc_ = write_file_name(rc, f, path, err);
		free(path);
	}
	return rc_;
}

static int write_files(struct rec_causes *rc, struct iow_error *err)
{
	struct file_query *q = calloc(rc->n_files + 1, sizeof(*q));
	size_t *of = calloc(rc->n_files + 1, sizeof(*of));
	size_t i, n = 0, unnamed = 0;
	char path[300], note[256];
	int timed_out = 0, rc_ = 0;

	if (!q || !of) {
		free(q);
		free(of);
		return iow_fail(err, "out of memory");
	}
	rc_ = write_files_as_seen(rc, err);
	/* the rest by number, as the file system holds them now */
	for (i = 0; i < rc->n_files; i++) {
		if (rc->files[i].kind != FILE_KIND_FILE || rc->files[i].named)
			continue;
		of[n] = i;
		q[n++] = (struct file_query){ rc->files[i].dev,
					      rc->files[i].ino, NULL };
	}
	if (!rc_)
		file_paths(rc->env.mountinfo, q, n, rc->env.file_walk_ms,
			   &timed_out);
	for (i = 0; i < n && !rc_; i++) {
		if (q[i].path &&
		    !file_generation_differs(q[i].path, rc->files[of[i]].gen))
			rc_ = write_file_name(rc, &rc->files[of[i]], q[i].path,
					      err);
		else
			unnamed++;
	}
	/* the device itself: its inode number is its dev_t */
	for (i = 0; i < rc->n_files && !rc_; i++) {
		if (rc->files[i].kind != FILE_KIND_DEVICE || rc->files[i].named)
			continue;
		device_path(rc->files[i].ino, path, sizeof(path));
		rc_ = write_file_name(rc, &rc->files[i], path, err);
	}
	for (i = 0; i < n; i++)
		free(q[i].path);
	free(q);
	free(of);
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
		rc_ = write_cgroups(rc, &rc->io, err);
	if (ok && !rc_)
		rc_ = write_cgroups(rc, &rc->v2, err);
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
	free(rc->tasks);
	for (i = 0; i < rc->n_files; i++)
		free(rc->files[i].path);
	free(rc->files);
	for (i = 0; i < rc->n_unlinked; i++)
		free(rc->unlinked[i].path);
	free(rc->unlinked);
	u64map_free(&rc->unlinked_idx);
	cgroup_set_free(&rc->io);
	cgroup_set_free(&rc->v2);
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
