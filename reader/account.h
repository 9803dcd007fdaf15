/*
 * account.h: a recording's completeness account. The kernel counts
 * every request it completes, per device and class (/sys/block/DEV/stat,
 * /proc/diskstats); a recorder reads those counts as it attaches and
 * detaches and writes what they came to in the trace, as a note that
 * blkparse prints (a MESSAGE note, like the loss notes, lossnote.h), one
 * per traced device at the recording's end, in CPU 0's file:
 *
 *   account: the kernel completed R reads, W writes, D discards,
 *   F flushes; S in flight at the start, E at the end; N as tracing
 *   began or ended
 *
 * in one line, a class the kernel does not count apart written "?"
 * (discards before Linux 4.18, flushes before 5.5); the counts are read
 * before the tracer attaches and after it detaches, and N are those
 * the kernel completed while it did (read again after the attach and
 * before the detach): the trace may lack them. The BPF recorder
 * adds what it knows of the completions it did not see:
 *
 *   ...; U completions unseen; missed runs: none
 *   ...; U completions unseen; missed runs: rq_complete 3, bio_queue 1
 *
 * (U over all the traced devices; missed runs: the kernel's recursion
 * misses, per program with any). Set against the trace's own
 * completions by the same classes (io-accounting.md: a flush request's
 * completion is a flush; an empty completion none, but for a write
 * that never had data, a preflush alone, which the kernel counts as a
 * write: measured on Linux 6.18, ext4 with fsyncs), the difference is
 * explained in a sentence: what went unseen, what a loss window may hold,
 * what was in flight when the counts were read.
 */
#ifndef IOWATCHER_ACCOUNT_H
#define IOWATCHER_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>

enum acct_class { ACCT_READ, ACCT_WRITE, ACCT_DISCARD, ACCT_FLUSH, N_ACCT };

#define ACCT_MAX_PROGS		8
#define ACCT_PROG_NAME		24
/* the longest note's text, its NUL included */
#define ACCTNOTE_TEXT_MAX	1024

struct acct_missed {
	char prog[ACCT_PROG_NAME];	/* a BPF program's name */
	uint64_t runs;			/* the kernel did not run it */
};

/* What a recording's account note says of one device. */
struct acctnote {
	uint64_t kernel[N_ACCT];	/* completed over the recording */
	unsigned kernel_known;		/* 1 << class: counted apart */
	uint64_t inflight_start, inflight_end;
	uint64_t at_edges;		/* completed as tracing began or
					 * ended */
	int has_recorder;		/* the BPF recorder's figures below */
	uint64_t unseen;		/* completions it never saw */
	struct acct_missed missed[ACCT_MAX_PROGS];
	size_t n_missed;
};

/* The class a completion (C) counts in as the kernel counts it, or -1
 * for the empty end of a flush sequence (its data was counted). */
int acct_class(uint32_t action, uint32_t bytes, uint64_t sector);

/* The note's text with its NUL; returns its length, NUL included. */
uint16_t acctnote_format(const struct acctnote *n, char *text);
/* Whether a record is an account note (exactly the format); fills n. */
int acctnote_parse(uint32_t action, const void *pdu, size_t pdu_len,
		   struct acctnote *n);

/* The kernel's counts set against the trace's, and where the
 * difference went. */
struct account {
	uint64_t kernel_total, trace_total;	/* the classes compared */
	int64_t diff[N_ACCT];		/* kernel - trace, per class */
	unsigned compared;		/* 1 << class: in the totals */
	uint64_t missing;		/* fewer in the trace, all classes */
	uint64_t extra;			/* more in the trace */
	/* the missing ones, as far as each explains them, in this order */
	uint64_t missed_runs;		/* its completion program not run
					 * (recursion misses) */
	uint64_t unseen;		/* the recorder never saw them */
	uint64_t in_loss;		/* up to this many in loss windows */
	uint64_t at_edges;		/* completed as tracing began or
					 * ended */
	uint64_t inferred;		/* judged lost on the trace's own
					 * evidence (inferred holes) */
	uint64_t unexplained;
};

/*
 * trace: the trace's completions by class; lost_events: the events its
 * loss windows hold (of every kind, known counts); judged_lost: the
 * requests the analysis judged to have lost their completions.
 */
void account_compare(const struct acctnote *n, const uint64_t trace[N_ACCT],
		     uint64_t lost_events, uint64_t judged_lost,
		     struct account *a);
/* "holds all 12,000 completions the kernel counted", or by how many
 * not and where they went. */
void account_sentence(const struct account *a, char *buf, size_t size);

#endif
