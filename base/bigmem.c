/* bigmem.c: big zeroed arrays mapped ahead (see bigmem.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bigmem.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/* Below this, malloc's own pages serve (often already mapped). */
#define BIG_MIN		(64 * 1024)
/* The block's length before its first byte; keeps 64-byte alignment. */
#define HEADER		64

static size_t page_size(void)
{
	static size_t size;

	if (!size) {
		long s = sysconf(_SC_PAGESIZE);

		size = s > 0 ? (size_t)s : 4096;
	}
	return size;
}

static void *big_map(size_t n, int populate)
{
	size_t len;
	unsigned char *m;

	if (n > SIZE_MAX - HEADER - page_size())
		return NULL;
	if (n < BIG_MIN) {
		void *block;

		if (posix_memalign(&block, HEADER, n + HEADER))
			return NULL;
		m = block;
		memset(m, 0, n + HEADER);
		*(size_t *)m = 0;	/* from malloc */
		return m + HEADER;
	}
	len = (n + HEADER + page_size() - 1) / page_size() * page_size();
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 (populate ? MAP_POPULATE : 0), -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	*(size_t *)m = len;
	return m + HEADER;
}

void *bigmem_calloc(size_t n)
{
	return big_map(n, 1);
}

void *bigmem_lazy_calloc(size_t n)
{
	return big_map(n, 0);
}

void bigmem_prefault(void *p, size_t off, size_t len)
{
	uintptr_t from, to;

	if (!p || !len || !*(size_t *)((unsigned char *)p - HEADER))
		return;	/* nothing, or from malloc */
	from = (uintptr_t)((unsigned char *)p + off) &
	       ~(uintptr_t)(page_size() - 1);
	to = (uintptr_t)((unsigned char *)p + off + len);
	madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}

void bigmem_free(void *p)
{
	unsigned char *base;

	if (!p)
		return;
	base = (unsigned char *)p - HEADER;
	if (*(size_t *)base)
		munmap(base, *(size_t *)base);
	else
		free(base);
}
