/*
 * causetag.h: tagging by cause (--by): every graph, the summary, the CSV
 * and the live view split by the process that caused the I/O (-P), its
 * name (--merge-comm), its cgroup, the file whose data it carries, or the
 * kernel stack that queued it (cause.h). No program is started.
 *
 * A QUEUE event is tagged by its cause: a writeback by the process that
 * dirtied the pages where the recorder saw it, not the kworker that wrote
 * them back. An ISSUE event, which stands for requests no QUEUE of the
 * trace went into (flushes, I/O queued before the trace), is tagged by
 * its own pid, or as having no file, cgroup or stack.
 */
#ifndef IOWATCHER_CAUSETAG_H
#define IOWATCHER_CAUSETAG_H

#include "analysis/analysis.h"
#include "cause.h"
#include "base/error.h"
#include "event.h"

enum cause_by { BY_NONE, BY_PROCESS, BY_COMM, BY_CGROUP, BY_FILE, BY_STACK };

struct cause_tags;

/* NULL when out of memory; the table must outlive the tagger. */
struct cause_tags *causetag_new(enum cause_by by,
				const struct cause_table *causes);
/* Tags a QUEUE or ISSUE event (after the cause table saw it); renames a
 * process's tag when a PROCESS note names it late. */
int causetag_event(struct cause_tags *tg, struct io_event *ev,
		   struct analysis *a, struct iow_error *err);
void causetag_free(struct cause_tags *tg);

/* "process", "comm", ... as --by spells it. */
const char *cause_by_name(enum cause_by by);

#endif
