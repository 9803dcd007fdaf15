/*
 * bigmem.h: big zeroed arrays (the I/O map, rasters) whose pages are
 * mapped in one call, not one fault at a time. On this project's VMs a
 * page fault costs 12-20 us (four times what mapping the page ahead in
 * the kernel does), and the arrays an SVG's I/O map goes through took
 * about 3000 of them.
 */
#ifndef IOWATCHER_BIGMEM_H
#define IOWATCHER_BIGMEM_H

#include <stddef.h>

/* n zeroed bytes, every page mapped now; NULL when out of memory. */
void *bigmem_calloc(size_t n);
/*
 * n zeroed bytes whose pages are mapped as they are first used, or
 * ahead by bigmem_prefault; NULL when out of memory.
 */
void *bigmem_lazy_calloc(size_t n);
/* Maps the pages holding bytes [off, off + len) of p now (best effort:
 * a kernel without MADV_POPULATE_WRITE maps them when touched). */
void bigmem_prefault(void *p, size_t off, size_t len);
/* Frees what bigmem_calloc or bigmem_lazy_calloc gave (NULL: nothing). */
void bigmem_free(void *p);

#endif
