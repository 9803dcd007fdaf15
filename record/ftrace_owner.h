/*
 * ftrace_owner.h: which iowatcher holds the kernel's blk tracer, and what
 * it changed. The tracer's settings are the machine's: a recording killed
 * before it could put them back (SIGKILL, its session torn down) left the
 * tracer on, and every recording after it found the device "busy". The
 * recorder keeps a file (FTRACE_OWNER_FILE) locked while it records, in
 * which it writes the settings it changed and their old values; the next
 * recording that finds the file unlocked but not empty puts them back.
 */
#ifndef IOWATCHER_FTRACE_OWNER_H
#define IOWATCHER_FTRACE_OWNER_H

#include <stddef.h>

#include "base/error.h"

#define FTRACE_OWNER_FILE	"/run/iowatcher-ftrace"
#define FTRACE_OWNER_FALLBACK	"/tmp/iowatcher-ftrace"	/* without /run */

struct ftrace_owner {
	int fd;			/* locked while held; -1 when not */
};

/*
 * Takes the owner file for this process. Fails (one line naming its
 * pid) while another iowatcher records with the tracer. When the file
 * holds a dead recording's lines, writes each setting's old value back
 * under tracing_dir and turns its devices' tracing off, then sets
 * *reclaimed to that recording's pid (else 0).
 */
int ftrace_owner_take(struct ftrace_owner *o, const char *tracing_dir,
		      long *reclaimed, struct iow_error *err);

/*
 * The file's lines, replaced: "pid N", then "set FILE OLD" (FILE under
 * the tracing directory, written back in the order given) and "enable
 * DIR" (a device's trace directory, whose enable goes back to 0) lines.
 */
int ftrace_owner_save(struct ftrace_owner *o, const char *lines,
		      struct iow_error *err);

/* Lets the file go, emptied when everything was put back (restored). */
void ftrace_owner_release(struct ftrace_owner *o, int restored);

/* What ftrace_owner_take does with a dead recording's lines, apart: each
 * line's write goes through write_fn (tests); -1 on a line it refuses. */
typedef int (*ftrace_owner_write_fn)(void *ctx, const char *path,
				     const char *value);
int ftrace_owner_put_back(const char *lines, const char *tracing_dir,
			  ftrace_owner_write_fn write_fn, void *ctx,
			  long *pid, struct iow_error *err);

#endif
