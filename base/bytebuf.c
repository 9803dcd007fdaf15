/* bytebuf.c: a byte buffer that grows by doubling (see bytebuf.h). */
#include <stdlib.h>
#include <string.h>

#include "bytebuf.h"

#define FIRST_CAP	65536

int bytebuf_grow(unsigned char **data, size_t *cap, size_t used,
		 size_t need)
{
	size_t want = *cap ? *cap : FIRST_CAP;
	unsigned char *more;

	if (need <= *cap - used)	/* used <= *cap */
		return 0;
	if (need > (size_t)-1 / 2 - used)
		return -1;
	while (want < used + need)
		want *= 2;
	more = realloc(*data, want);
	if (!more)
		return -1;
	*data = more;
	*cap = want;
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
