/*
 * tracedat.h: trace-cmd's recording (trace.dat, its versions 6 and 7,
 * sections compressed or not), read through libtracecmd as a trace: each
 * block tracepoint's event becomes the blktrace records blocktp.c makes
 * of it, with a loss note where the kernel said events were lost before
 * a page (libtracecmd's missed_events), so the reader reads them as it
 * reads a blkparse -d dump. Every buffer of the file is read, merged by
 * time. libtracecmd reads a file by offsets, so a trace.dat given
 * compressed by gzip, xz or zstd, or on standard input, is first copied
 * to an unlinked temporary file in $TMPDIR (or /tmp).
 *
 * libtracecmd is loaded when a trace.dat is first read. Built without it
 * (make TRACECMD=0, or without libtracecmd-dev), or where it cannot be
 * loaded, the file is still recognised, and opening it says so and what
 * to do instead.
 */
#ifndef IOWATCHER_TRACEDAT_H
#define IOWATCHER_TRACEDAT_H

#include <stddef.h>
#include <sys/types.h>

#include "bytesrc.h"
#include "base/error.h"

/* Whether p[0, len), the data's start, is a trace.dat's. */
int tracedat_looks(const unsigned char *p, size_t len);

struct tracedat;

/*
 * Reads src's trace.dat (its first bytes, first[0, n), already taken
 * from src); path names it in messages.
 */
struct tracedat *tracedat_open(struct byte_source *src,
			       const unsigned char *first, size_t n,
			       const char *path, struct iow_error *err);
/* Up to len bytes of records: how many, 0 at the end, -1 on an error
 * (err names the record and what was wrong). */
ssize_t tracedat_read(struct tracedat *t, unsigned char *buf, size_t len,
		      struct iow_error *err);
void tracedat_free(struct tracedat *t);

#endif
