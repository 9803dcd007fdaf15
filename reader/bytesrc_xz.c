/*
 * bytesrc_xz.c: xz data through liblzma, as xz -dc reads it: stream
 * after stream, each block's check verified.
 */
#include <lzma.h>
#include <stdlib.h>

#include "bytesrc.h"

struct xz_state {
	lzma_stream strm;
	int ended;		/* the last stream ended with the file */
};

static int xz_init(struct byte_source *bs, struct iow_error *err)
{
	struct xz_state *x = calloc(1, sizeof(*x));
	const lzma_stream init = LZMA_STREAM_INIT;

	if (!x)
		return iow_fail(err, "%s: out of memory", bs->path);
	x->strm = init;
	/* no memory limit: the file's dictionary (at most 1.5 GiB, 64 MiB
	 * at xz -9) is what it takes, whatever the file's length */
	if (lzma_stream_decoder(&x->strm, UINT64_MAX, LZMA_CONCATENATED) !=
	    LZMA_OK) {
		free(x);
		return iow_fail(err, "%s: out of memory", bs->path);
	}
	bs->state = x;
	return 0;
}

static const char *xz_why(lzma_ret ret)
{
	switch (ret) {
	case LZMA_FORMAT_ERROR:
		return "not xz data";
	case LZMA_OPTIONS_ERROR:
		return "options this liblzma does not support";
	case LZMA_DATA_ERROR:
		return "corrupt data";
	default:
		return "unexpected error from liblzma";
	}
}

/* Decodes what the input holds into buf; reads more of the file only
 * while nothing is decoded (see bytesrc_gzip.c). */
static ssize_t xz_read(struct byte_source *bs, unsigned char *buf, size_t len,
		       struct iow_error *err)
{
	struct xz_state *x = bs->state;
	lzma_stream *strm = &x->strm;
	size_t produced = 0;

	while (produced < len && !x->ended) {
		size_t avail = bs->in_end - bs->in_start;
		lzma_action action = LZMA_RUN;
		lzma_ret ret;

		if (avail == 0 && !bs->in_eof) {
			if (produced)
				break;
			if (bytesrc_fill_input(bs, err) < 0)
				return -1;
			continue;
		}
		/* at the file's end: the data must end here */
		if (avail == 0)
			action = LZMA_FINISH;
		strm->next_in = bs->in + bs->in_start;
		strm->avail_in = avail;
		strm->next_out = buf + produced;
		strm->avail_out = len - produced;
		ret = lzma_code(strm, action);
		bs->in_start = bs->in_end - strm->avail_in;
		produced = (size_t)(strm->next_out - buf);
		switch (ret) {
		case LZMA_OK:
			break;
		case LZMA_STREAM_END:
			x->ended = 1;
			break;
		case LZMA_BUF_ERROR:	/* no progress */
			if (action == LZMA_FINISH)
				return bytesrc_cut_short(bs, produced, err);
			break;
		case LZMA_MEM_ERROR:
			iow_fail(err, "%s: out of memory", bs->path);
			return -1;
		default:
			return bytesrc_corrupt(bs, produced, xz_why(ret), err);
		}
	}
	return (ssize_t)produced;
}

static void xz_free(struct byte_source *bs)
{
	struct xz_state *x = bs->state;

	if (!x)
		return;
	lzma_end(&x->strm);
	free(x);
	bs->state = NULL;
}

const struct byte_source_ops bytesrc_xz_ops = {
	.name = "xz",
	.init = xz_init,
	.read = xz_read,
	.free = xz_free,
};
