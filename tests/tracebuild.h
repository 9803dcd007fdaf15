/*
 * tracebuild.h: writing small blktrace files for tests: records of
 * version 7 or 8, native or byte-swapped, with payloads.
 */
#ifndef IOWATCHER_TRACEBUILD_H
#define IOWATCHER_TRACEBUILD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "reader/blktrace.h"

struct rec {
	uint64_t t, sector;
	uint32_t bytes, action, pid, dev, cpu;
	const void *pdu;
	uint16_t pdu_len;
	uint32_t zone;		/* v8 only: bits 32-63 of action */
};

#define DEV(ma, mi) (((uint32_t)(ma) << 20) | (mi))
#define ACT(code, cat) ((uint32_t)(code) | BLK_TC_ACT(cat))
#define W BLK_TC_WRITE
#define R BLK_TC_READ

static inline void tb_put(unsigned char *p, const void *v, size_t n, int swap)
{
	size_t i;

	if (!swap) {
		memcpy(p, v, n);
		return;
	}
	for (i = 0; i < n; i++)
		p[i] = ((const unsigned char *)v)[n - 1 - i];
}

static inline void tb_write(FILE *f, int version, int swap, uint32_t seq,
			    const struct rec *r)
{
	unsigned char h[64] = { 0 };
	uint32_t magic = BLK_IO_TRACE_MAGIC | (uint32_t)version;
	uint16_t err = 0;

	tb_put(h, &magic, 4, swap);
	tb_put(h + 4, &seq, 4, swap);
	tb_put(h + 8, &r->t, 8, swap);
	tb_put(h + 16, &r->sector, 8, swap);
	tb_put(h + 24, &r->bytes, 4, swap);
	if (version == 7) {
		tb_put(h + 28, &r->action, 4, swap);
		tb_put(h + 32, &r->pid, 4, swap);
		tb_put(h + 36, &r->dev, 4, swap);
		tb_put(h + 40, &r->cpu, 4, swap);
		tb_put(h + 44, &err, 2, swap);
		tb_put(h + 46, &r->pdu_len, 2, swap);
		fwrite(h, 1, 48, f);
	} else {
		uint64_t action = r->action | ((uint64_t)r->zone << 32);

		tb_put(h + 28, &r->pid, 4, swap);
		tb_put(h + 32, &action, 8, swap);
		tb_put(h + 40, &r->dev, 4, swap);
		tb_put(h + 44, &r->cpu, 4, swap);
		tb_put(h + 48, &err, 2, swap);
		tb_put(h + 50, &r->pdu_len, 2, swap);
		fwrite(h, 1, 64, f);
	}
	if (r->pdu_len)
		fwrite(r->pdu, 1, r->pdu_len, f);
}

/* Write n records to path; returns 0 or -1. */
static inline int tb_file(const char *path, int version, int swap,
			  const struct rec *recs, size_t n)
{
	FILE *f = fopen(path, "wb");
	size_t i;

	if (!f)
		return -1;
	for (i = 0; i < n; i++)
		tb_write(f, version, swap, (uint32_t)i + 1, &recs[i]);
	return fclose(f);
}

#endif
