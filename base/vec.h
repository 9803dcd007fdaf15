/*
 * vec.h: the one growable array. An array of items elem bytes each, with
 * room for *cap of them, is made to hold need: its capacity starts at
 * first and doubles until it does (the rule every list here grew by,
 * written out by hand in each). Bytes appended piece by piece have
 * bytebuf.h, which grows by this rule too.
 */
#ifndef IOWATCHER_VEC_H
#define IOWATCHER_VEC_H

#include <stddef.h>

/*
 * items with room for at least need (>= 1) items of elem bytes, moved if
 * it had to grow, *cap set to the room it has. NULL when out of memory
 * or when the size would not fit in a size_t: items and *cap are then as
 * they were, still the caller's to use or free.
 */
void *vec_grow(void *items, size_t *cap, size_t need, size_t elem,
	       size_t first);

#endif
