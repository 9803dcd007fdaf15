/* vec.c: the one growable array (vec.h). */
#include <stdint.h>
#include <stdlib.h>

#include "vec.h"

void *vec_grow(void *items, size_t *cap, size_t need, size_t elem,
	       size_t first)
{
	size_t want = *cap ? *cap : (first ? first : 1);
	void *more;

	if (need <= *cap)
		return items;
	while (want < need)
		want = want > SIZE_MAX / 2 ? need : want * 2;
	if (!elem || want > SIZE_MAX / elem)
		return NULL;
	more = realloc(items, want * elem);
	if (!more)
		return NULL;
	*cap = want;
	return more;
}
