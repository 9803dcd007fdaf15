/*
 * u64map.h: a map from 64-bit keys to 32-bit values (open addressing,
 * linear probing, never shrinking): the dictionaries of a trace's causes
 * (tasks, cgroups, files, stacks) and the causes interned from them.
 */
#ifndef IOWATCHER_U64MAP_H
#define IOWATCHER_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint32_t *values;
	unsigned char *used;
	size_t cap;		/* a power of two, or 0 */
	size_t len;
};

/* The value under key into *value: 1 when there, 0 when not. */
int u64map_get(const struct u64map *m, uint64_t key, uint32_t *value);
/* Puts (or replaces) key's value; 0, or -1 out of memory. */
int u64map_put(struct u64map *m, uint64_t key, uint32_t value);
void u64map_free(struct u64map *m);

/* A 64-bit mix of several words, for keys made of more than one. */
static inline uint64_t u64_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

#endif
