/* ioset.c: the in-flight map (see ioset.h). */
#include <stdlib.h>
#include <string.h>

#include "ioset.h"

#define IOSET_MIN_CAP 1024

static uint64_t ioset_hash(uint32_t device, uint32_t used, uint64_t sector)
{
	uint64_t h = sector * 0x9e3779b97f4a7c15ull ^ device ^
		     (uint64_t)used << 32;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static struct ioset_key *slot_at(const struct ioset *s, size_t i)
{
	return (struct ioset_key *)(s->slots + i * s->slot_size);
}

int ioset_init(struct ioset *s, size_t value_size)
{
	s->slot_size = (sizeof(struct ioset_key) + value_size + 7) & ~7ul;
	s->cap = IOSET_MIN_CAP;
	s->len = 0;
	s->slots = calloc(s->cap, s->slot_size);
	return s->slots ? 0 : -1;
}

void ioset_free(struct ioset *s)
{
	free(s->slots);
	s->slots = NULL;
	s->cap = s->len = 0;
}

static size_t index_of(const struct ioset *s, const void *value)
{
	return (size_t)((const unsigned char *)value -
			sizeof(struct ioset_key) - s->slots) / s->slot_size;
}

const struct ioset_key *ioset_key_of(const struct ioset *s,
				     const void *value)
{
	return slot_at(s, index_of(s, value));
}

/* From slot i on, the first entry under the key, or NULL. */
static void *scan(const struct ioset *s, size_t i, uint32_t device,
		  uint32_t used, uint64_t sector)
{
	size_t mask = s->cap - 1;

	for (;;) {
		struct ioset_key *k = slot_at(s, i);

		if (!k->used)
			return NULL;
		if (k->sector == sector && k->device == device &&
		    k->used == used)
			return k + 1;
		i = (i + 1) & mask;
	}
}

void *ioset_find(struct ioset *s, uint32_t device, unsigned kind,
		 uint64_t sector)
{
	uint32_t used = kind + 1;

	return scan(s, ioset_hash(device, used, sector) & (s->cap - 1),
		    device, used, sector);
}

void *ioset_next(struct ioset *s, void *value)
{
	const struct ioset_key *k = ioset_key_of(s, value);

	return scan(s, (index_of(s, value) + 1) & (s->cap - 1), k->device,
		    k->used, k->sector);
}

/*
 * Entries under one key sit in their probe run in the order they were
 * added (an add goes after them, a backward shift keeps their order), so
 * the first found is the oldest. Growing keeps that: the old table is
 * walked from an empty slot on, so no run is cut at the table's end.
 */
static int ioset_grow(struct ioset *s)
{
	struct ioset old = *s;
	size_t i, start = 0, n;

	s->cap = old.cap * 2;
	s->len = 0;
	s->slots = calloc(s->cap, s->slot_size);
	if (!s->slots) {
		*s = old;
		return -1;
	}
	while (slot_at(&old, start)->used)
		start++;	/* a table at most half full has an empty slot */
	for (n = 0; n < old.cap; n++) {
		struct ioset_key *k;
		void *v;

		i = (start + n) & (old.cap - 1);
		k = slot_at(&old, i);
		if (!k->used)
			continue;
		v = ioset_add(s, k->device, k->used - 1, k->sector);
		memcpy(v, k + 1, s->slot_size - sizeof(*k));
	}
	free(old.slots);
	return 0;
}

void *ioset_add(struct ioset *s, uint32_t device, unsigned kind,
		uint64_t sector)
{
	uint32_t used = kind + 1;
	size_t mask, i;

	if ((s->len + 1) * 2 > s->cap && ioset_grow(s) < 0)
		return NULL;
	mask = s->cap - 1;
	for (i = ioset_hash(device, used, sector) & mask; slot_at(s, i)->used;
	     i = (i + 1) & mask)
		;
	memset(slot_at(s, i), 0, s->slot_size);
	slot_at(s, i)->used = used;
	slot_at(s, i)->device = device;
	slot_at(s, i)->sector = sector;
	s->len++;
	return slot_at(s, i) + 1;
}

void ioset_remove(struct ioset *s, void *value)
{
	size_t mask = s->cap - 1;
	size_t hole = index_of(s, value);
	size_t i = hole;

	/* Backward-shift: pull later entries of the run into the hole. */
	for (;;) {
		struct ioset_key *k;
		size_t home;

		i = (i + 1) & mask;
		k = slot_at(s, i);
		if (!k->used)
			break;
		home = ioset_hash(k->device, k->used, k->sector) & mask;
		/* Move k if its home is not cyclically in (hole, i]. */
		if ((i > hole && (home <= hole || home > i)) ||
		    (i < hole && (home <= hole && home > i))) {
			memcpy(slot_at(s, hole), k, s->slot_size);
			hole = i;
		}
	}
	slot_at(s, hole)->used = 0;
	s->len--;
}

void ioset_filter(struct ioset *s, int (*keep)(void *value, void *arg),
		  void *arg)
{
	size_t i = 0;

	/*
	 * Removal shifts later entries back into the current slot, so a slot
	 * is looked at again after a removal. An entry that wrapped around
	 * from the table's end may be visited twice; keep() must be
	 * idempotent for kept entries.
	 */
	while (i < s->cap) {
		struct ioset_key *k = slot_at(s, i);

		if (k->used && !keep(k + 1, arg)) {
			ioset_remove(s, k + 1);
			continue;
		}
		i++;
	}
}
