/*
 * bytesrc_in.c: what the byte sources share (bytesrc.h): reading the
 * file, filling a decompressor's input, and the one-line errors of data
 * that is corrupt or cut short. A leaf: bytesrc.c (the table that
 * chooses a source) and each bytesrc_KIND.c call it; it calls neither.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bytesrc.h"

/* read(2) that goes on after a signal unless it asked iowatcher to stop;
 * bs->in_offset counts what it read. */
ssize_t bytesrc_read_fd(struct byte_source *bs, unsigned char *buf,
			size_t len, struct iow_error *err)
{
	for (;;) {
		ssize_t got = read(bs->fd, buf, len);

		if (got >= 0) {
			bs->in_offset += (uint64_t)got;
			return got;
		}
		if (errno == EINTR && !iow_interrupted)
			continue;
		return iow_fail(err, "%s: read error at byte %llu: %s",
				bs->path, (unsigned long long)bs->in_offset,
				strerror(errno));
	}
}

int bytesrc_fill_input(struct byte_source *bs, struct iow_error *err)
{
	ssize_t got;

	if (bs->in_eof)
		return 0;
	if (bs->in_start > 0) {
		memmove(bs->in, bs->in + bs->in_start,
			bs->in_end - bs->in_start);
		bs->in_end -= bs->in_start;
		bs->in_start = 0;
	}
	got = bytesrc_read_fd(bs, bs->in + bs->in_end, bs->in_size - bs->in_end, err);
	if (got < 0)
		return -1;
	if (got == 0)
		bs->in_eof = 1;
	bs->in_end += (size_t)got;
	return 0;
}

/* Where the decompressor is in the file: the bytes it has used. */
static unsigned long long in_used(const struct byte_source *bs)
{
	return (unsigned long long)(bs->in_offset -
				    (bs->in_end - bs->in_start));
}

/* The error now, or after the bytes the failing read produced. */
static ssize_t fail_after(struct byte_source *bs, size_t produced,
			  struct iow_error *err)
{
	if (!produced)
		return -1;
	bs->failed = 1;
	bs->failure = *err;
	return (ssize_t)produced;
}

ssize_t bytesrc_corrupt(struct byte_source *bs, size_t produced,
			const char *why, struct iow_error *err)
{
	iow_fail(err,
		 "%s: %s data corrupt at compressed byte %llu (decompressed byte %llu): %s",
		 bs->path, bs->ops->name, in_used(bs),
		 (unsigned long long)(bs->out_offset + produced), why);
	return fail_after(bs, produced, err);
}

ssize_t bytesrc_cut_short(struct byte_source *bs, size_t produced,
			  struct iow_error *err)
{
	iow_fail(err,
		 "%s: %s data cut short at compressed byte %llu (decompressed byte %llu): the compressed data ends early (a truncated file, or one still being written)",
		 bs->path, bs->ops->name, in_used(bs),
		 (unsigned long long)(bs->out_offset + produced));
	if (!bs->is_part)
		return fail_after(bs, produced, err);
	/* what came before the cut is the file's data; the reader says
	 * where it ends (bs->failure) */
	bs->cut_short = 1;
	bs->failure = *err;
	return (ssize_t)produced;
}
