/*
 * bytebuf.h: bytes appended piece by piece (a PNG being encoded, the
 * live view's frame, records waiting for the rest of themselves, events
 * for a tagger), in a buffer that doubles as it fills, from 64 KiB.
 */
#ifndef IOWATCHER_BYTEBUF_H
#define IOWATCHER_BYTEBUF_H

#include <stddef.h>

struct bytebuf {
	unsigned char *data;
	size_t len, cap;
};

/*
 * Makes *data (cap bytes, of which used hold bytes) hold need bytes more.
 * 0, or -1 when out of memory (*data and *cap as they were).
 */
int bytebuf_grow(unsigned char **data, size_t *cap, size_t used,
		 size_t need);
/* Appends n bytes; 0, or -1 when out of memory (nothing appended). */
int bytebuf_append(struct bytebuf *b, const void *bytes, size_t n);
void bytebuf_free(struct bytebuf *b);

#endif
