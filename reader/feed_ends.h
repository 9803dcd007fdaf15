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
 * The last whole record in buf[0, len): the records are found by the
 * first offset from which they follow one another to the buffer's end (a
 * partial record there allowed). 1 when found, 0 if no offset does. For
 * a tail read from the middle of a file.
 */
int feed_chain_end(const unsigned char *buf, size_t len,
		   const struct record_format *fmt, struct file_end *end);

#endif
