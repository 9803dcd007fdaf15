/*
 * compare_names.c: the names every part of --compare prints (compare_int.h):
 * a class's and a device's. A leaf: the hub (compare.c) and its parts
 * (drawing, printing, the page, the split) call it, it calls none of them.
 */
#include <stdio.h>

#include "compare_int.h"

const char *cmp_op_name(int op)
{
	static const char *const names[N_OPS] = { "read", "write",
						   "discard", "flush",
						   "zone-mgmt",
						   "write-zeroes" };

	return op >= 0 && op < N_OPS ? names[op] : "all";
}

void cmp_device_name(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u,%u", dev >> 20, dev & 0xfffff);
}
