/*
 * tracedat_check.h: a trace.dat's sizes against the room it has, before
 * libtracecmd parses it (tracedat.c): a size past its section or the
 * file's end, a section placed past the end, a NUL inside the kallsyms
 * or printk text, a compressed section too big for the child's memory.
 */
#ifndef IOWATCHER_READER_TRACEDAT_CHECK_H
#define IOWATCHER_READER_TRACEDAT_CHECK_H

#include "base/error.h"

/* A trace.dat's first bytes. */
#define TRACEDAT_MAGIC		"\x17\x08\x44tracing"
#define TRACEDAT_MAGIC_LEN	10
/* libtracecmd's child may have this much more memory than it starts
 * with (tracedat.c's fence): a compressed section that would need more
 * is refused before. */
#define FENCE_MEM_BASE		(1024ull << 20)
#define FENCE_MEM_PER_BYTE	8

/* The open file fd (path in messages): 0 when every size fits, -1 with
 * one line in err naming the byte and what was wrong. */
int tracedat_sizes_ok(int fd, const char *path, struct iow_error *err);

#endif
