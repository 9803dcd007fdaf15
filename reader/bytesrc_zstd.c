/*
 * bytesrc_zstd.c: zstd data through libzstd, as zstd -dc reads it:
 * frame after frame (skippable frames skipped), with the window sizes
 * zstd -dc takes by default (up to 128 MiB; files made with --long=31
 * need zstd -dc --long=31 FILE | iowatcher -t -).
 */
#include <stdlib.h>
#include <zstd.h>

#include "bytesrc.h"

struct zstd_state {
	ZSTD_DStream *ds;
	size_t hint;		/* the last call's: 0 at a frame's end */
};

static int zstd_init(struct byte_source *bs, struct iow_error *err)
{
	struct zstd_state *z = calloc(1, sizeof(*z));

	if (!z || !(z->ds = ZSTD_createDStream())) {
		free(z);
		return iow_fail(err, "%s: out of memory", bs->path);
	}
	ZSTD_initDStream(z->ds);
	z->hint = 1;
	bs->state = z;
	return 0;
}

/* Decodes what the input holds into buf; reads more of the file only
 * while nothing is decoded (see bytesrc_gzip.c). */
static ssize_t zstd_read(struct byte_source *bs, unsigned char *buf,
			 size_t len, struct iow_error *err)
{
	struct zstd_state *z = bs->state;
	ZSTD_outBuffer out = { buf, len, 0 };

	while (out.pos < len) {
		ZSTD_inBuffer in = { bs->in + bs->in_start,
				     bs->in_end - bs->in_start, 0 };
		size_t before = out.pos, ret;

		if (in.size == 0 && !bs->in_eof) {
			if (out.pos)
				break;
			if (bytesrc_fill_input(bs, err) < 0)
				return -1;
			continue;
		}
		/* the file's end at a frame's end: the data's */
		if (in.size == 0 && z->hint == 0)
			break;
		ret = ZSTD_decompressStream(z->ds, &out, &in);
		bs->in_start += in.pos;
		if (ZSTD_isError(ret))
			return bytesrc_corrupt(bs, out.pos,
					       ZSTD_getErrorName(ret), err);
		z->hint = ret;
		/* nothing more to come out of what there is: cut short */
		if (in.size == 0 && out.pos == before && ret != 0)
			return bytesrc_cut_short(bs, out.pos, err);
	}
	return (ssize_t)out.pos;
}

static void zstd_free(struct byte_source *bs)
{
	struct zstd_state *z = bs->state;

	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z);
	bs->state = NULL;
}

const struct byte_source_ops bytesrc_zstd_ops = {
	.name = "zstd",
	.init = zstd_init,
	.read = zstd_read,
	.free = zstd_free,
};
