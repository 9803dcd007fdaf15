/*
 * tracedat_own.h: the common trace.dat read in the program's own process
 * (tracedat_own.c), without libtracecmd: trace-cmd's versions 6 and 7,
 * uncompressed, little-endian, one buffer, no time offsets. It yields
 * the messages the fenced child (tracedat_helper.c) would write
 * (tracedat_wire.h), so tracedat.c reads either alike; any file it does
 * not take whole goes to libtracecmd in the fence, as before.
 */
#ifndef IOWATCHER_READER_TRACEDAT_OWN_H
#define IOWATCHER_READER_TRACEDAT_OWN_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct tracedat_own;

/*
 * The trace.dat open on fd (its sizes already checked by
 * tracedat_sizes_ok; fd stays the caller's, and open while it is read):
 * 1 with *out when this reader takes it, 0 when it does not (why, one
 * phrase, in why[why_size]: libtracecmd reads it), -1 out of memory.
 * Every page of its CPU data is walked before it says 1, so that a file
 * it takes does not fail it halfway.
 */
int tracedat_own_open(int fd, struct tracedat_own **out, char *why,
		      size_t why_size, struct iow_error *err);

/*
 * The next message, as the child writes them: MSG_OPEN first, a
 * MSG_KIND before the first record of each kind, MSG_RECORD in time
 * order across the CPUs, MSG_END last. *p stays good until the next
 * call. 0, or -1 with err (the file changed as it was read, out of
 * memory).
 */
int tracedat_own_next(struct tracedat_own *o, uint32_t *type,
		      const unsigned char **p, uint32_t *len,
		      struct iow_error *err);

void tracedat_own_free(struct tracedat_own *o);

#endif
