/* u64map.c: 64-bit keys to 32-bit values (u64map.h). */
#include <stdlib.h>

#include "u64map.h"

static size_t slot_of(const struct u64map *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29) & (m->cap - 1);
}

int u64map_get(const struct u64map *m, uint64_t key, uint32_t *value)
{
	size_t i;

	if (!m->cap)
		return 0;
	for (i = slot_of(m, key); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			*value = m->values[i];
			return 1;
		}
	return 0;
}

static int grow(struct u64map *m)
{
	struct u64map bigger = { 0 };
	size_t i;

	bigger.cap = m->cap ? 2 * m->cap : 64;
	bigger.keys = malloc(bigger.cap * sizeof(*bigger.keys));
	bigger.values = malloc(bigger.cap * sizeof(*bigger.values));
	bigger.used = calloc(bigger.cap, 1);
	if (!bigger.keys || !bigger.values || !bigger.used) {
		u64map_free(&bigger);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->used[i] && u64map_put(&bigger, m->keys[i],
					     m->values[i]) < 0) {
			u64map_free(&bigger);
			return -1;
		}
	u64map_free(m);
	*m = bigger;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t value)
{
	size_t i;

	/* at most half full: probes stay short */
	if (2 * (m->len + 1) > m->cap && grow(m) < 0)
		return -1;
	for (i = slot_of(m, key); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key) {
			m->values[i] = value;
			return 0;
		}
	m->used[i] = 1;
	m->keys[i] = key;
	m->values[i] = value;
	m->len++;
	return 0;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->values);
	free(m->used);
	m->keys = NULL;
	m->values = NULL;
	m->used = NULL;
	m->cap = m->len = 0;
}
