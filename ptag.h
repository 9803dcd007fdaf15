/*
 * ptag.h: built-in tagging by process (-P): an I/O is tagged with the
 * process that queued it (else issued it), named from PROCESS notes as
 * "comm (pid)", or by name alone with --merge-comm. No program is started.
 */
#ifndef IOWATCHER_PTAG_H
#define IOWATCHER_PTAG_H

#include "analysis.h"
#include "error.h"
#include "event.h"

struct process_tags;

struct process_tags *ptag_new(int merge_comm);
/* Set ev->tag for Q and D events; learn names from PROCESS notes. */
int ptag_event(struct process_tags *pt, struct io_event *ev,
	       struct analysis *a, struct iow_error *err);
void ptag_free(struct process_tags *pt);

#endif
