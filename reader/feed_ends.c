/*
 * feed_ends.c: the time of a per-CPU file's last whole record
 * (feed_ends.h): from a plain file's tail, found by where its records
 * chain to the end; through a compressed file, record by record.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "blktrace.h"
#include "bytesrc.h"
#include "feed_ends.h"
#include "lossnote.h"

/* A tail holds several records of the largest payload (64 KiB). */
#define TAIL_LEN	(256 * 1024)
/* Room for the largest record and big reads, as the reader's buffer. */
#define WALK_BUF_LEN	(128 * 1024)

static uint64_t load_u64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static uint32_t load_u32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static size_t pdu_len_at(const unsigned char *p, const struct record_format *f)
{
	uint16_t v;

	memcpy(&v, p + (f->version == BLK_IO_TRACE_VERSION7 ? 46 : 50), 2);
	return f->swap ? __builtin_bswap16(v) : v;
}

static int magic_at(const unsigned char *p, const struct record_format *f)
{
	return load_u32(p, f->swap) == (BLK_IO_TRACE_MAGIC | (uint32_t)f->version);
}

/* The record at p (whole) as a file's end: its time, and whether it is
 * an end mark. */
static void end_at(const unsigned char *p, const struct record_format *f,
		   struct file_end *end)
{
	int v7 = f->version == BLK_IO_TRACE_VERSION7;

	end->last_ns = load_u64(p + 8, f->swap);
	end->end_mark = lossnote_is_end_mark(load_u32(p + (v7 ? 28 : 32),
						      f->swap),
					     p + f->header_size,
					     pdu_len_at(p, f));
}

/* From at, records to the end (a partial one last allowed): the last
 * whole one's offset into *last; 0 when the chain breaks or is empty. */
static int chains_to_end(const unsigned char *buf, size_t len, size_t at,
			 const struct record_format *f, size_t *last)
{
	int found = 0;

	while (len - at >= f->header_size) {
		size_t rec_len;

		if (!magic_at(buf + at, f))
			return 0;
		rec_len = f->header_size + pdu_len_at(buf + at, f);
		if (rec_len > len - at)
			break;	/* cut in its payload */
		*last = at;
		found = 1;
		at += rec_len;
	}
	return found;
}

int feed_chain_end(const unsigned char *buf, size_t len,
		   const struct record_format *fmt, struct file_end *end)
{
	size_t at, last;

	for (at = 0; at + fmt->header_size <= len; at++)
		if (magic_at(buf + at, fmt) &&
		    chains_to_end(buf, len, at, fmt, &last)) {
			end_at(buf + last, fmt, end);
			return 1;
		}
	return 0;
}

static int plain_end(const char *path, const struct record_format *fmt,
		     struct file_end *end)
{
	unsigned char *buf;
	ssize_t got = -1;
	off_t size;
	int fd, found = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size = lseek(fd, 0, SEEK_END);
	buf = malloc(TAIL_LEN);
	if (buf && size > 0)
		got = pread(fd, buf, TAIL_LEN,
			    size > TAIL_LEN ? size - TAIL_LEN : 0);
	if (got > 0)
		found = feed_chain_end(buf, (size_t)got, fmt, end);
	free(buf);
	close(fd);
	return found;
}

/* Through the decompressed data, record by record, to its end (or to
 * where it is cut short or damaged: the last record before counts). */
static int walk_end(const char *path, const struct record_format *fmt,
		    struct file_end *end)
{
	struct byte_source src;
	struct iow_error err;
	unsigned char *buf = bigmem_calloc(WALK_BUF_LEN);
	size_t start = 0, have = 0;
	int found = 0;

	if (!buf)
		return 0;
	if (bytesrc_open(&src, path, BYTESRC_PART, &err) < 0)
		goto out;
	for (;;) {
		ssize_t got;

		while (have - start >= fmt->header_size &&
		       magic_at(buf + start, fmt)) {
			size_t rec_len = fmt->header_size +
					 pdu_len_at(buf + start, fmt);

			if (rec_len > have - start)
				break;
			end_at(buf + start, fmt, end);
			found = 1;
			start += rec_len;
		}
		if (have - start >= fmt->header_size &&
		    !magic_at(buf + start, fmt))
			break;	/* damaged: the reader will say where */
		memmove(buf, buf + start, have - start);
		have -= start;
		start = 0;
		got = bytesrc_read(&src, buf + have, WALK_BUF_LEN - have, &err);
		if (got <= 0)
			break;
		have += (size_t)got;
	}
out:
	bytesrc_close(&src);
	bigmem_free(buf);
	return found;
}

int feed_file_end(const char *path, int compressed,
		  const struct record_format *fmt, struct file_end *end)
{
	if (compressed)
		return walk_end(path, fmt, end);
	return plain_end(path, fmt, end);
}
