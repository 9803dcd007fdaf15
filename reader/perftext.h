/*
 * perftext.h: the text `perf script` prints for the kernel's block
 * tracepoints (recorded with perf record -e 'block:*'), read as a trace:
 * each line becomes the blktrace record the kernel's blktrace would have
 * written for that tracepoint (version 7, this machine's byte order),
 * with a PROCESS note where a task's name is first seen and a loss note
 * where perf says it lost events (PERF_RECORD_LOST, printed by perf
 * script --show-lost-events). The reader then reads those records as it
 * reads a blkparse -d dump, so every statistic is the same code's.
 *
 * The columns are perf's default ones (comm, tid, cpu, time, event and
 * its fields) or a -F choice keeping them (a pid/tid pair, --ns times);
 * the fields are the tracepoints' own print formats, with or without
 * the I/O priority newer kernels print.
 */
#ifndef IOWATCHER_PERFTEXT_H
#define IOWATCHER_PERFTEXT_H

#include <stddef.h>
#include <sys/types.h>

#include "bytesrc.h"
#include "base/error.h"

/* Whether p[0, len), the data's start, is perf script's text (of any
 * events: one without block events is told apart when read). */
int perftext_looks(const unsigned char *p, size_t len);

struct perftext;

/*
 * Reads src's text from here on, the bytes already taken from it first
 * (first[0, n), copied); path names it in messages.
 */
struct perftext *perftext_open(struct byte_source *src,
			       const unsigned char *first, size_t n,
			       const char *path, struct iow_error *err);
/* Up to len bytes of records: how many, 0 at the end, -1 on an error
 * (err names the line and what was wrong). */
ssize_t perftext_read(struct perftext *t, unsigned char *buf, size_t len,
		      struct iow_error *err);
void perftext_free(struct perftext *t);

#endif
