/*
 * ioset.h: an open-addressing hash map from (device, sector) to a small
 * fixed-size record: the bios and requests in flight. Linear probing with
 * backward-shift deletion, so completions leave no tombstones and memory
 * follows the number of I/Os in flight.
 */
#ifndef IOWATCHER_IOSET_H
#define IOWATCHER_IOSET_H

#include <stddef.h>
#include <stdint.h>

struct ioset_key {
	uint64_t sector;
	uint32_t device;
	uint32_t used;
};

struct ioset {
	unsigned char *slots;
	size_t slot_size;	/* key + value, rounded to 8 bytes */
	size_t cap;		/* a power of two */
	size_t len;
};

int ioset_init(struct ioset *s, size_t value_size);
void ioset_free(struct ioset *s);
/* The value stored for (device, sector), or NULL. */
void *ioset_find(struct ioset *s, uint32_t device, uint64_t sector);
/* Insert or find; *existed says which. NULL only when out of memory. */
void *ioset_insert(struct ioset *s, uint32_t device, uint64_t sector,
		   int *existed);
/* Remove the entry whose value is at value (from find or insert). */
void ioset_remove(struct ioset *s, void *value);
/* Visit every entry; remove it when keep() returns 0. */
void ioset_filter(struct ioset *s, int (*keep)(void *value, void *arg),
		  void *arg);

#endif
