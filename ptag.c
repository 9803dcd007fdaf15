/* ptag.c: tagging by process (see ptag.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkparse_feed.h"
#include "blktrace.h"
#include "ptag.h"

struct pid_entry {
	uint32_t pid;
	int used;
	int tagged;		/* a tag was created for this pid */
	char comm[20];
};

struct process_tags {
	int merge_comm;
	struct pid_entry *pids;
	size_t cap, len;
	char **comms;		/* --merge-comm: tag id = index here */
	size_t n_comms;
};

struct process_tags *ptag_new(int merge_comm)
{
	struct process_tags *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->merge_comm = merge_comm;
	pt->cap = 256;
	pt->pids = calloc(pt->cap, sizeof(*pt->pids));
	if (!pt->pids) {
		free(pt);
		return NULL;
	}
	return pt;
}

void ptag_free(struct process_tags *pt)
{
	size_t i;

	if (!pt)
		return;
	for (i = 0; i < pt->n_comms; i++)
		free(pt->comms[i]);
	free(pt->comms);
	free(pt->pids);
	free(pt);
}

static struct pid_entry *pid_lookup(struct process_tags *pt, uint32_t pid);

static int pid_grow(struct process_tags *pt)
{
	struct pid_entry *old = pt->pids;
	size_t old_cap = pt->cap, i;

	pt->cap *= 2;
	pt->pids = calloc(pt->cap, sizeof(*pt->pids));
	if (!pt->pids) {
		pt->pids = old;
		pt->cap = old_cap;
		return -1;
	}
	pt->len = 0;
	for (i = 0; i < old_cap; i++)
		if (old[i].used)
			*pid_lookup(pt, old[i].pid) = old[i];
	free(old);
	return 0;
}

/* The entry for pid, created empty when new; NULL when out of memory. */
static struct pid_entry *pid_lookup(struct process_tags *pt, uint32_t pid)
{
	size_t mask, i;

	if ((pt->len + 1) * 2 > pt->cap && pid_grow(pt) < 0)
		return NULL;
	mask = pt->cap - 1;
	for (i = (pid * 2654435761u) & mask; pt->pids[i].used;
	     i = (i + 1) & mask)
		if (pt->pids[i].pid == pid)
			return &pt->pids[i];
	pt->pids[i].used = 1;
	pt->pids[i].pid = pid;
	pt->len++;
	return &pt->pids[i];
}

static int comm_id(struct process_tags *pt, const char *comm)
{
	char **more;
	size_t i;

	for (i = 0; i < pt->n_comms; i++)
		if (!strcmp(pt->comms[i], comm))
			return (int)i;
	more = realloc(pt->comms, (pt->n_comms + 1) * sizeof(*more));
	if (!more)
		return -1;
	pt->comms = more;
	if (!(pt->comms[pt->n_comms] = strdup(comm)))
		return -1;
	return (int)pt->n_comms++;
}

static void label_for(const struct process_tags *pt,
		      const struct pid_entry *e, char *buf, size_t len)
{
	if (pt->merge_comm)
		snprintf(buf, len, "%s", e->comm[0] ? e->comm : "unknown");
	else if (e->comm[0])
		snprintf(buf, len, "%s (%u)", e->comm, e->pid);
	else
		snprintf(buf, len, "pid %u", e->pid);
}

static int learn_name(struct process_tags *pt, const struct io_event *ev,
		      struct analysis *a, struct iow_error *err)
{
	struct pid_entry *e = pid_lookup(pt, ev->pid);
	const char *text;
	size_t len = feed_note_text(ev, &text);
	char label[64];

	if (!e)
		return iow_fail(err, "out of memory");
	if (len >= sizeof(e->comm))
		len = sizeof(e->comm) - 1;
	if (len)	/* a note without a payload has no text at all */
		memcpy(e->comm, text, len);
	e->comm[len] = '\0';
	/* A name learned after the pid's first I/O renames its tag. */
	if (e->tagged && !pt->merge_comm) {
		label_for(pt, e, label, sizeof(label));
		return analysis_set_tag_label(a, (int32_t)e->pid, label, err);
	}
	return 0;
}

int ptag_event(struct process_tags *pt, struct io_event *ev,
	       struct analysis *a, struct iow_error *err)
{
	unsigned code = blk_action_code(ev->action);
	struct pid_entry *e;
	char label[64];
	int32_t id;

	if (blk_is_note(ev->action)) {
		if (code == BLK_TN_PROCESS)
			return learn_name(pt, ev, a, err);
		return 0;
	}
	if (code != BLK_TA_QUEUE && code != BLK_TA_ISSUE)
		return 0;
	e = pid_lookup(pt, ev->pid);
	if (!e)
		return iow_fail(err, "out of memory");
	if (pt->merge_comm) {
		int c = comm_id(pt, e->comm[0] ? e->comm : "unknown");

		if (c < 0)
			return iow_fail(err, "out of memory");
		id = c;
	} else {
		id = (int32_t)e->pid;
	}
	if (!e->tagged) {
		e->tagged = 1;
		label_for(pt, e, label, sizeof(label));
		if (analysis_set_tag_label(a, id, label, err) < 0)
			return -1;
	}
	ev->tag = id;
	return 0;
}
