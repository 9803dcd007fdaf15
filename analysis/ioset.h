/*
 * ioset.h: an open-addressing hash multimap from (device, kind, sector) to
 * a small fixed-size record: the bios and requests in flight. The kind
 * keeps reads, writes and discards of the same sector apart; a key may
 * hold several entries (two reads of one block in flight), visited with
 * ioset_next. Linear probing with backward-shift deletion, so completions
 * leave no tombstones and memory follows the number of I/Os in flight.
 * A value's address is valid until the next add or remove in its set.
 */
#ifndef IOWATCHER_IOSET_H
#define IOWATCHER_IOSET_H

#include <stddef.h>
#include <stdint.h>

struct ioset_key {
	uint64_t sector;
	uint32_t device;
	uint32_t used;		/* 0: free; else 1 + kind */
};

struct ioset {
	unsigned char *slots;
	size_t slot_size;	/* key + value, rounded to 8 bytes */
	size_t cap;		/* a power of two */
	size_t len;
};

int ioset_init(struct ioset *s, size_t value_size);
void ioset_free(struct ioset *s);
/* The first value stored under (device, kind, sector), or NULL. */
void *ioset_find(struct ioset *s, uint32_t device, unsigned kind,
		 uint64_t sector);
/* The next value under the same key as value, or NULL. */
void *ioset_next(struct ioset *s, void *value);
/* A new zeroed entry under the key, beside any it already holds; NULL
 * only when out of memory. */
void *ioset_add(struct ioset *s, uint32_t device, unsigned kind,
		uint64_t sector);
/* The key of the entry whose value is at value. */
const struct ioset_key *ioset_key_of(const struct ioset *s,
				     const void *value);
/* Remove the entry whose value is at value (from find or insert). */
void ioset_remove(struct ioset *s, void *value);
/* Visit every entry; remove it when keep() returns 0. */
void ioset_filter(struct ioset *s, int (*keep)(void *value, void *arg),
		  void *arg);

#endif
