/*
 * feed_ends.h: when each file of a per-CPU set ends, known before the
 * set is read, so that the reader can tell a file that ends early (a
 * copy cut short, a disk that filled while recording: its CPU's events
 * after that are lost) from a trace whose files all end about together.
 * A plain file is read from its tail, a compressed one through.
 */
#ifndef IOWATCHER_FEED_ENDS_H
#define IOWATCHER_FEED_ENDS_H

#include <stddef.h>
#include <stdint.h>

#include "discover.h"

/* How a file's records are written: its first record's magic says. */
struct record_format {
	int swap;		/* other byte order */
	int version;		/* 7 or 8 */
	size_t header_size;
};

/* A file's last whole record. */
struct file_end {
	uint64_t last_ns;	/* its time, as recorded */
	int end_mark;		/* it is a recorder's end mark (lossnote.h) */
};

/*
 * The last whole record of path into *end; 1 when found, 0 when the file
 * holds no whole record or cannot be read (nothing is then known of its
 * end). compressed: read it through its decompressor (bytesrc.h).
 */
int feed_file_end(const char *path, int compressed,
		  const struct record_format *fmt, struct file_end *end);

/*
 * Whether a file whose last record was at last_ns ends early in a set
 * whose files end at set_end_ns, the trace starting at start_ns (times
 * as recorded): the others go on past it by more than 10 ms and 1% of
 * the trace.
 */
int feed_ends_early(uint64_t set_end_ns, uint64_t start_ns, uint64_t last_ns);
/* The N of NAME.blktrace.N[.gz...]; 0 for another name. */
unsigned feed_cpu_of_path(const char *path);

/*
 * Loss notes whose time the recorder could not tell (T0 0: completions
 * the kernel made without running the recorder), which a recorder writes
 * last, at the end of the files: found by a look at the files' tails
 * before the trace is read, so that the analysis knows from the start
 * that completions are missing. Their count into *count (the notes' of
 * one CPU and time counted once); 0 when none, or the trace cannot be
 * looked at from its end (compressed, a stream). *cut is 1 when the
 * recorder marked its files' ends and a file has lost its mark (cut
 * short): such notes may have been cut off with it.
 */
void feed_unlocated_losses(const struct trace_source *src, uint64_t *count,
			   int *cut);

#endif
