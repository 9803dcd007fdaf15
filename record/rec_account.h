/*
 * rec_account.h: a recorder's part of the completeness account
 * (account.h): the kernel's completed requests per traced device read
 * as the tracer attaches and again as it detaches (/sys/dev/block/
 * MAJ:MIN/stat, the figures of /proc/diskstats), and the account note
 * written in the trace before its files close.
 */
#ifndef IOWATCHER_REC_ACCOUNT_H
#define IOWATCHER_REC_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "reader/account.h"
#include "base/error.h"

struct rec_out;

/* The kernel's counts of one device at one moment. */
struct diskstat {
	uint64_t ios[N_ACCT];	/* requests completed, by class */
	unsigned known;		/* 1 << class: the kernel counts it */
	uint64_t in_flight;	/* requests in flight */
};

/* One traced device over a recording. */
struct rec_account {
	uint32_t device;		/* as the trace has it */
	/* before the attach, after it, before the detach, after it */
	struct diskstat start, attached, detaching, end;
	int have_start, have_attached, have_detaching, have_end;
	struct acctnote note;		/* the kernel's side, as noted */
	uint64_t trace[N_ACCT];		/* the completions written */
	int noted;			/* the note is in the trace */
};

/* /sys/dev/block/MAJ:MIN/stat of dev; -1 where it cannot be read. */
int diskstat_read(uint32_t dev, struct diskstat *s);

/* Each device's counts now: call just before the tracer attaches, ... */
void rec_account_begin(struct rec_account *acc, size_t n);
/* ... just after, ... */
void rec_account_attached(struct rec_account *acc, size_t n);
/* ... just before it detaches ... */
void rec_account_detaching(struct rec_account *acc, size_t n);
/* ... and just after. */
void rec_account_end(struct rec_account *acc, size_t n);

/*
 * Sets each device's note from its counts (and recorder's figures: the
 * unseen completions and missed runs, or NULL), takes the trace's
 * completions from o and writes the notes in CPU 0's file at the
 * newest time of the recording. A device whose counts could not be
 * read gets no note.
 */
int rec_account_write(struct rec_account *acc, size_t n, struct rec_out *o,
		      const struct acctnote *recorder, struct iow_error *err);

/* The note's figures from the counts (without a recorder's part). */
void rec_account_settle(struct rec_account *a);

#endif
