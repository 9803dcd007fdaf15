/* causetag.c: tagging by cause (causetag.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkparse_feed.h"
#include "reader/blktrace.h"
#include "causetag.h"
#include "base/u64map.h"

/* Keys of the classes no cause names (above any real cgroup or stack). */
#define KEY_NONE	(~0ull)
#define KEY_METADATA	(~0ull - 1)
#define KEY_JOURNAL	(~0ull - 2)
#define KEY_SWAP	(~0ull - 3)

struct cause_tags {
	enum cause_by by;
	const struct cause_table *causes;
	struct u64map ids;	/* key -> tag id */
	int32_t next_id;
	/* --by comm: the names, tag id = index */
	char **comms;
	size_t n_comms;
};

static const char *const by_names[] = {
	[BY_NONE] = "none", [BY_PROCESS] = "process", [BY_COMM] = "comm",
	[BY_CGROUP] = "cgroup", [BY_FILE] = "file", [BY_STACK] = "stack",
};

const char *cause_by_name(enum cause_by by)
{
	return by <= BY_STACK ? by_names[by] : "?";
}

struct cause_tags *causetag_new(enum cause_by by,
				const struct cause_table *causes)
{
	struct cause_tags *tg = calloc(1, sizeof(*tg));

	if (!tg)
		return NULL;
	tg->by = by;
	tg->causes = causes;
	return tg;
}

void causetag_free(struct cause_tags *tg)
{
	size_t i;

	if (!tg)
		return;
	for (i = 0; i < tg->n_comms; i++)
		free(tg->comms[i]);
	free(tg->comms);
	u64map_free(&tg->ids);
	free(tg);
}

static void process_label(const struct cause_tags *tg, uint32_t pid,
			  char *buf, size_t len)
{
	const char *comm = cause_comm(tg->causes, pid);

	if (comm && comm[0])
		snprintf(buf, len, "%s (%u)", comm, pid);
	else
		snprintf(buf, len, "pid %u", pid);
}

/* --by comm: the name's tag id (its index), -1 out of memory. */
static int32_t comm_id(struct cause_tags *tg, const char *comm)
{
	char **more;
	size_t i;

	for (i = 0; i < tg->n_comms; i++)
		if (!strcmp(tg->comms[i], comm))
			return (int32_t)i;
	more = realloc(tg->comms, (tg->n_comms + 1) * sizeof(*more));
	if (!more)
		return -1;
	tg->comms = more;
	if (!(more[tg->n_comms] = strdup(comm)))
		return -1;
	return (int32_t)tg->n_comms++;
}

/* The key of ev's class, and its label once a class is made. */
static uint64_t class_key(const struct cause_tags *tg, const struct cause *c,
			  const struct io_event *ev)
{
	uint64_t id;

	switch (tg->by) {
	case BY_CGROUP:
		if (c && c->cgroup2)	/* (v1 group, v2 group) */
			return u64_mix(c->cgroup, c->cgroup2) & ~(1ull << 63);
		if (c)
			return c->cgroup ? c->cgroup : KEY_NONE;
		/* an ISSUE of blktrace's cgroup option carries it too */
		if ((ev->action & BLK_TA_CGROUP) && ev->pdu && ev->pdu_len >= 8) {
			memcpy(&id, ev->pdu, sizeof(id));
			return id ? id : KEY_NONE;
		}
		return KEY_NONE;
	case BY_FILE:
		if (!c || (!c->ino && !(c->flags & (CAUSE_METADATA |
						    CAUSE_JOURNAL | CAUSE_SWAP))))
			return KEY_NONE;
		if (c->flags & CAUSE_JOURNAL)
			return KEY_JOURNAL;
		if (c->flags & CAUSE_METADATA)
			return KEY_METADATA;
		if (c->flags & CAUSE_SWAP)
			return KEY_SWAP;
		return u64_mix(u64_mix(c->ino_dev, c->ino), c->ino_gen) &
		       ~(1ull << 63);
	case BY_STACK:
		return c && c->kstack >= 0 ? (uint64_t)c->kstack : KEY_NONE;
	default:
		return KEY_NONE;
	}
}

static void class_label(const struct cause_tags *tg, const struct cause *c,
			uint64_t key, char *buf, size_t len)
{
	const char *stack;

	if (key == KEY_NONE) {
		snprintf(buf, len, "%s", tg->by == BY_FILE ? "[no file]" :
			 tg->by == BY_CGROUP ? "[no cgroup]" : "[no stack]");
		return;
	}
	switch (tg->by) {
	case BY_CGROUP:
		if (c) {
			cause_cgroup_label(tg->causes, c, buf, len);
		} else {
			struct cause only = { .cgroup = key };

			cause_cgroup_label(tg->causes, &only, buf, len);
		}
		return;
	case BY_FILE:
		cause_file_label(tg->causes, c, buf, len);
		return;
	case BY_STACK:
		stack = cause_kstack(tg->causes, c);
		if (stack)
			cause_stack_label(stack, buf, len);
		else
			snprintf(buf, len, "[stack not named]");
		return;
	default:
		snprintf(buf, len, "?");
	}
}

/* --by process or comm: as -P always tagged, now crediting writeback to
 * the process that dirtied it where the recorder saw that. */
static int tag_process(struct cause_tags *tg, struct io_event *ev,
		       const struct cause *c, struct analysis *a,
		       struct iow_error *err)
{
	uint32_t pid = c ? cause_credited_pid(c) : ev->pid, seen;
	char label[300];
	int32_t id;

	if (tg->by == BY_COMM) {
		const char *comm = cause_comm(tg->causes, pid);

		id = comm_id(tg, comm && comm[0] ? comm : "unknown");
		if (id < 0)
			return iow_fail(err, "out of memory");
		if (!u64map_get(&tg->ids, (uint64_t)id, &seen)) {
			if (u64map_put(&tg->ids, (uint64_t)id, 1) < 0 ||
			    analysis_set_tag_label(a, id, tg->comms[id],
						   err) < 0)
				return -1;
		}
		ev->tag = id;
		return 0;
	}
	id = (int32_t)pid;
	if (!u64map_get(&tg->ids, pid, &seen)) {
		process_label(tg, pid, label, sizeof(label));
		if (u64map_put(&tg->ids, pid, 1) < 0)
			return iow_fail(err, "out of memory");
		if (analysis_set_tag_label(a, id, label, err) < 0)
			return -1;
	}
	ev->tag = id;
	return 0;
}

/* A PROCESS note naming a pid already tagged renames its tag. */
static int rename_process(struct cause_tags *tg, const struct io_event *ev,
			  struct analysis *a, struct iow_error *err)
{
	char label[300];
	uint32_t seen;

	if (tg->by != BY_PROCESS || !u64map_get(&tg->ids, ev->pid, &seen))
		return 0;
	process_label(tg, ev->pid, label, sizeof(label));
	return analysis_set_tag_label(a, (int32_t)ev->pid, label, err);
}

int causetag_event(struct cause_tags *tg, struct io_event *ev,
		   struct analysis *a, struct iow_error *err)
{
	unsigned code = blk_action_code(ev->action);
	const struct cause *c;
	char label[300];
	uint64_t key;
	uint32_t id;

	if (blk_is_note(ev->action))
		return code == BLK_TN_PROCESS ? rename_process(tg, ev, a, err)
					      : 0;
	if (code != BLK_TA_QUEUE && code != BLK_TA_ISSUE)
		return 0;
	c = code == BLK_TA_QUEUE ? cause_get(tg->causes, ev->cause) : NULL;
	if (tg->by == BY_PROCESS || tg->by == BY_COMM)
		return tag_process(tg, ev, c, a, err);
	key = class_key(tg, c, ev);
	if (!u64map_get(&tg->ids, key, &id)) {
		id = (uint32_t)tg->next_id++;
		class_label(tg, c, key, label, sizeof(label));
		if (u64map_put(&tg->ids, key, id) < 0)
			return iow_fail(err, "out of memory");
		if (analysis_set_tag_label(a, (int32_t)id, label, err) < 0)
			return -1;
	}
	ev->tag = (int32_t)id;
	return 0;
}
