/* cause.c: the cause of each I/O, joined and interned (cause.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vec.h"
#include "blkparse_feed.h"
#include "reader/blktrace.h"
#include "cause.h"
#include "base/u64map.h"

_Static_assert(sizeof(struct cause) == 64, "struct cause has no padding");

struct cause_table {
	struct cause_reader *reader;	/* NULL: the trace's records only */
	int intern_plain;		/* causes of the records alone too */
	struct cause *causes;		/* causes[id - 1] */
	size_t n, cap;
	struct u64map index;		/* hash -> id (rehashed on clashes) */
	/* names from PROCESS notes */
	struct u64map note_names;	/* pid -> names[] */
	char **names;
	size_t n_names;
};

int cause_files_beside(const char *base)
{
	static const char *const suffixes[] = { "", ".gz", ".xz", ".zst" };
	char path[4096];
	size_t i;

	/* compressed with the trace, as causefile.c reads them too */
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(path, sizeof(path), "%s.cause%s", base, suffixes[i]);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

struct cause_table *cause_table_open(const char *base, struct iow_error *err)
{
	struct cause_table *t = calloc(1, sizeof(*t));

	if (!t) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	err->msg[0] = '\0';
	if (base) {
		t->reader = cause_reader_open(base, err);
		if (!t->reader && err->msg[0]) {
			free(t);
			return NULL;
		}
	}
	return t;
}

void cause_table_free(struct cause_table *t)
{
	size_t i;

	if (!t)
		return;
	cause_reader_close(t->reader);
	for (i = 0; i < t->n_names; i++)
		free(t->names[i]);
	free(t->names);
	u64map_free(&t->note_names);
	u64map_free(&t->index);
	free(t->causes);
	free(t);
}

void cause_table_intern_plain(struct cause_table *t)
{
	t->intern_plain = 1;
}

struct cause_table *cause_table_live(struct iow_error *err)
{
	struct cause_table *t = calloc(1, sizeof(*t));

	if (!t || !(t->reader = cause_reader_live())) {
		free(t);
		iow_fail(err, "out of memory");
		return NULL;
	}
	return t;
}

struct cause_reader *cause_table_reader(struct cause_table *t)
{
	return t->reader;
}

int cause_table_recorded(const struct cause_table *t)
{
	return cause_reader_kept(t->reader);
}

int cause_table_kept(const struct cause_table *t, enum cause_part part)
{
	return cause_table_recorded(t) && !cause_unrecorded(t->reader, part);
}

const char *cause_table_unrecorded(const struct cause_table *t,
				   enum cause_part part)
{
	return t->reader ? cause_unrecorded(t->reader, part) : NULL;
}

const char *cause_table_notes(const struct cause_table *t)
{
	return t->reader ? cause_notes(t->reader) : NULL;
}

const char *cause_table_warning(const struct cause_table *t)
{
	return t->reader ? cause_reader_warning(t->reader) : NULL;
}

static uint64_t cause_hash(const struct cause *c)
{
	uint64_t h = 0;

	h = u64_mix(h, (uint64_t)c->pid << 32 | c->tgid);
	h = u64_mix(h, (uint64_t)c->owner_pid << 32 | c->owner_tgid);
	h = u64_mix(h, c->cgroup);
	h = u64_mix(h, c->cgroup2);
	h = u64_mix(h, (uint64_t)c->ino_dev << 32 | c->flags);
	h = u64_mix(h, c->ino);
	h = u64_mix(h, c->ino_gen);
	h = u64_mix(h, (uint64_t)(uint32_t)c->kstack << 32 |
		       (uint32_t)c->ustack);
	return h;
}

/* c's id, made when new; 0 when out of memory. */
static uint32_t intern(struct cause_table *t, const struct cause *c)
{
	uint64_t h = cause_hash(c);
	uint32_t id;

	/* a clash (another cause, same hash) tries the next hash */
	for (;; h++) {
		if (!u64map_get(&t->index, h, &id))
			break;
		if (!memcmp(&t->causes[id - 1], c, sizeof(*c)))
			return id;
	}
	if (t->n == t->cap) {
		struct cause *more = vec_grow(t->causes, &t->cap, t->n + 1,
					      sizeof(*more), 256);

		if (!more)
			return 0;
		t->causes = more;
	}
	t->causes[t->n] = *c;
	if (u64map_put(&t->index, h, (uint32_t)(t->n + 1)) < 0)
		return 0;
	return (uint32_t)++t->n;
}

static int learn_name(struct cause_table *t, const struct io_event *ev)
{
	const char *text;
	size_t len = feed_note_text(ev, &text);
	char **more;
	uint32_t idx;

	if (u64map_get(&t->note_names, ev->pid, &idx)) {
		char *name = strndup(text ? text : "", len);

		if (!name)
			return -1;
		free(t->names[idx]);
		t->names[idx] = name;
		return 0;
	}
	more = realloc(t->names, (t->n_names + 1) * sizeof(*more));
	if (!more)
		return -1;
	t->names = more;
	if (!(more[t->n_names] = strndup(text ? text : "", len)))
		return -1;
	return u64map_put(&t->note_names, ev->pid, (uint32_t)t->n_names++);
}

/* What a record without a kept cause says of it. */
static void cause_of_record(const struct io_event *ev, struct cause *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = ev->pid;
	c->kstack = c->ustack = -1;
	/* blktrace's cgroup option: an 8-byte id starts the payload */
	if ((ev->action & BLK_TA_CGROUP) && ev->pdu && ev->pdu_len >= 8)
		memcpy(&c->cgroup, ev->pdu, sizeof(c->cgroup));
}

int cause_table_event(struct cause_table *t, struct io_event *ev,
		      struct iow_error *err)
{
	const struct cause_rec *r;
	struct cause c;

	if (blk_is_note(ev->action)) {
		if (blk_action_code(ev->action) == BLK_TN_PROCESS &&
		    learn_name(t, ev) < 0)
			return iow_fail(err, "out of memory");
		return 0;
	}
	if (blk_action_code(ev->action) != BLK_TA_QUEUE ||
	    (!t->reader && !t->intern_plain))
		return 0;
	r = t->reader ? cause_reader_match(t->reader, ev) : NULL;
	cause_of_record(ev, &c);
	if (r) {
		c.pid = r->pid;
		c.tgid = r->tgid;
		c.owner_pid = r->owner_pid;
		c.owner_tgid = r->owner_tgid;
		c.cgroup = r->cgroup;
		c.cgroup2 = r->cgroup2;
		c.ino_dev = r->ino ? r->ino_dev : 0;
		c.ino = r->ino;
		c.ino_gen = r->ino ? r->ino_gen : 0;
		c.kstack = r->kstack;
		c.ustack = r->ustack;
		c.flags = r->flags;
	}
	ev->cause = intern(t, &c);
	if (!ev->cause)
		return iow_fail(err, "out of memory at event %llu",
				(unsigned long long)ev->index);
	return 0;
}

const struct cause *cause_get(const struct cause_table *t, uint32_t id)
{
	return id && id <= t->n ? &t->causes[id - 1] : NULL;
}

uint32_t cause_credited_pid(const struct cause *c)
{
	return (c->flags & CAUSE_WRITEBACK) && c->owner_pid ? c->owner_pid
							      : c->pid;
}

const char *cause_comm(const struct cause_table *t, uint32_t pid)
{
	const char *name = t->reader ? cause_task_name(t->reader, pid) : NULL;
	uint32_t idx;

	if (name)
		return name;
	return u64map_get(&t->note_names, pid, &idx) ? t->names[idx] : NULL;
}

const char *cause_file_label(const struct cause_table *t, const struct cause *c,
			     char *buf, size_t len)
{
	enum cause_file_kind kind = FILE_KIND_FILE;
	const char *path = NULL;

	if (c->flags & CAUSE_JOURNAL)
		return snprintf(buf, len, "[journal]"), buf;
	if (c->flags & CAUSE_METADATA)
		return snprintf(buf, len, "[metadata]"), buf;
	if (c->flags & CAUSE_SWAP)
		return snprintf(buf, len, "[swap]"), buf;
	if (!c->ino)
		return snprintf(buf, len, "[no file]"), buf;
	if (t->reader)
		path = cause_file_path(t->reader, c->ino_dev, c->ino,
				       c->ino_gen, &kind);
	if (!path)
		snprintf(buf, len, "inode %llu on %u,%u",
			 (unsigned long long)c->ino, blk_dev_major(c->ino_dev),
			 blk_dev_minor(c->ino_dev));
	else if (kind == FILE_KIND_FILE || kind == FILE_KIND_DEVICE)
		snprintf(buf, len, "%s", path);
	else
		snprintf(buf, len, "[%s]", path);
	return buf;
}

const char *cause_cgroup_label(const struct cause_table *t,
			       const struct cause *c, char *buf, size_t len)
{
	const char *path = NULL, *path2 = NULL;
	char id[32], id2[40];

	if (!c->cgroup && !c->cgroup2)
		return snprintf(buf, len, "[no cgroup]"), buf;
	if (t->reader) {
		path = cause_cgroup_path(t->reader, c->cgroup);
		path2 = cause_cgroup2_path(t->reader, c->cgroup2);
	}
	snprintf(id, sizeof(id), "cgroup %llu", (unsigned long long)c->cgroup);
	snprintf(id2, sizeof(id2), "cgroup2 %llu",
		 (unsigned long long)c->cgroup2);
	/* the v2 group only where it says more than the root */
	if (!c->cgroup2 || (c->cgroup && path2 && !strcmp(path2, "/")))
		snprintf(buf, len, "%s", path ? path : id);
	else
		snprintf(buf, len, "%s (v2 %s)",
			 !c->cgroup ? "[no cgroup]" : path ? path : id,
			 path2 ? path2 : id2);
	return buf;
}

const char *cause_table_cgroup_source(const struct cause_table *t, char *buf,
				      size_t len)
{
	const char *root;
	int v1 = 0;

	root = t->reader ? cause_cgroup_root(t->reader, &v1) : NULL;
	if (!root)
		return NULL;
	if (v1)
		snprintf(buf, len, "cgroups of the io controller's v1 blkio hierarchy at %s, where buffered writeback is the root's (v1 charges it to no cgroup); (v2 PATH): the task's cgroup v2 group",
			 root);
	else
		snprintf(buf, len, "cgroups of the io controller's cgroup v2 hierarchy at %s",
			 root);
	return buf;
}

int cause_generic_frame(const char *f, size_t len)
{
	static const char *const generic[] = {
		"ret_from_fork", "ret_from_fork_asm", "kthread",
		"worker_thread", "process_one_work", "entry_SYSCALL_64",
		"entry_SYSCALL_64_after_hwframe", "do_syscall_64",
		"x64_sys_call",
	};
	size_t i;

	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (strlen(generic[i]) == len && !strncmp(generic[i], f, len))
			return 1;
	return 0;
}

void cause_stack_label(const char *stack, char *buf, size_t len)
{
	const char *p = stack, *end;
	size_t used = 0, n = 0, flen;

	buf[0] = '\0';
	while (*p && n < 4 && used + 1 < len) {
		end = strchr(p, ';');
		flen = end ? (size_t)(end - p) : strlen(p);
		if (!cause_generic_frame(p, flen)) {
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%.*s", n ? " > " : "",
						 (int)flen, p);
			n++;
		}
		if (!end)
			break;
		p = end + 1;
	}
	if (!n)
		snprintf(buf, len, "%s", stack);
}

const char *cause_kstack(const struct cause_table *t, const struct cause *c)
{
	return t->reader ? cause_stack(t->reader, 0, c->kstack) : NULL;
}
