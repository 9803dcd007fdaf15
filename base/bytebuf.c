/* bytebuf.c: a byte buffer that grows by doubling (vec.h's rule). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytebuf.h"
#include "vec.h"

#define FIRST_CAP	65536

int bytebuf_grow(unsigned char **data, size_t *cap, size_t used,
		 size_t need)
{
	unsigned char *more;

	if (need <= *cap - used)	/* used <= *cap */
		return 0;
	if (need > SIZE_MAX - used)
		return -1;
	more = vec_grow(*data, cap, used + need, 1, FIRST_CAP);
	if (!more)
		return -1;
	*data = more;
	return 0;
}

int bytebuf_append(struct bytebuf *b, const void *bytes, size_t n)
{
	if (bytebuf_grow(&b->data, &b->cap, b->len, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, bytes, n);
	b->len += n;
	return 0;
}

void bytebuf_free(struct bytebuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
