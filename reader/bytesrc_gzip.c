/*
 * bytesrc_gzip.c: gzip data (RFC 1952) through zlib, as gzip -dc reads
 * it: member after member, each one's CRC and length checked.
 */
#include <stdlib.h>
#include <zlib.h>

#include "bytesrc.h"

struct gzip_state {
	z_stream z;
	int member_ended;	/* between members: the data may end here */
	int members;		/* begun so far */
};

static int gzip_init(struct byte_source *bs, struct iow_error *err)
{
	struct gzip_state *g = calloc(1, sizeof(*g));

	if (!g)
		return iow_fail(err, "%s: out of memory", bs->path);
	/* 16: gzip's header and trailer, not zlib's */
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
		free(g);
		return iow_fail(err, "%s: out of memory", bs->path);
	}
	g->members = 1;
	bs->state = g;
	return 0;
}

/* What zlib said was wrong; bytes past the data are not a member. */
static ssize_t gzip_corrupt(struct byte_source *bs, struct gzip_state *g,
			    size_t produced, struct iow_error *err)
{
	const char *why = g->z.msg ? g->z.msg : "invalid data";

	if (g->members > 1 && g->z.total_out == 0 &&
	    g->z.total_in < 10)
		why = "bytes after the gzip data that are not gzip data";
	return bytesrc_corrupt(bs, produced, why, err);
}

/*
 * Decodes what the input holds into buf; reads more of the file only
 * while nothing is decoded (a stream's next bytes may be a while coming,
 * and the bytes decoded are wanted now).
 */
static ssize_t gzip_read(struct byte_source *bs, unsigned char *buf,
			 size_t len, struct iow_error *err)
{
	struct gzip_state *g = bs->state;
	z_stream *z = &g->z;
	size_t produced = 0;

	while (produced < len) {
		size_t avail = bs->in_end - bs->in_start;
		int ret;

		if (avail == 0) {
			if (produced)
				break;
			if (bs->in_eof)
				return g->member_ended ? 0 :
				       bytesrc_cut_short(bs, 0, err);
			if (bytesrc_fill_input(bs, err) < 0)
				return -1;
			continue;
		}
		if (g->member_ended) {
			/* another member follows (gzip -c a b > c) */
			inflateReset(z);
			g->member_ended = 0;
			g->members++;
		}
		z->next_in = bs->in + bs->in_start;
		z->avail_in = (uInt)avail;
		z->next_out = buf + produced;
		z->avail_out = (uInt)(len - produced);
		ret = inflate(z, Z_NO_FLUSH);
		bs->in_start = bs->in_end - z->avail_in;
		produced = (size_t)(z->next_out - buf);
		switch (ret) {
		case Z_STREAM_END:
			g->member_ended = 1;
			break;
		case Z_OK:
		case Z_BUF_ERROR:	/* no progress: more input wanted */
			break;
		case Z_MEM_ERROR:
			iow_fail(err, "%s: out of memory", bs->path);
			return -1;
		default:		/* Z_DATA_ERROR, Z_NEED_DICT */
			return gzip_corrupt(bs, g, produced, err);
		}
	}
	return (ssize_t)produced;
}

static void gzip_free(struct byte_source *bs)
{
	struct gzip_state *g = bs->state;

	if (!g)
		return;
	inflateEnd(&g->z);
	free(g);
	bs->state = NULL;
}

const struct byte_source_ops bytesrc_gzip_ops = {
	.name = "gzip",
	.init = gzip_init,
	.read = gzip_read,
	.free = gzip_free,
};
