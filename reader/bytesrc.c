/*
 * bytesrc.c: byte sources (see bytesrc.h): opening a file or standard
 * input, the table of compressions recognised by their first bytes, the
 * plain source (bytes as they are), and what the decompressors share:
 * their input buffer and their error lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytesrc.h"

/*
 * The start, read before the kind is chosen: at least HEAD_MIN bytes (or
 * the whole), enough to tell every kind below apart, and up to HEAD_MAX
 * in the same reads, which is what the reader sniffs when the data is no
 * trace (sniff.h) if it came from a stream.
 */
#define HEAD_MIN	6
#define HEAD_MAX	4096
/* The decompressors' input buffer. */
#define IN_SIZE		(128 * 1024)

static const unsigned char gzip_magic[] = { 0x1f, 0x8b, 0x08 };
static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
static const unsigned char zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };
static const unsigned char bzip2_magic[] = { 'B', 'Z', 'h' };
static const unsigned char lz4_magic[] = { 0x04, 0x22, 0x4d, 0x18 };
static const unsigned char lzip_magic[] = { 'L', 'Z', 'I', 'P' };
static const unsigned char lzop_magic[] = { 0x89, 'L', 'Z', 'O', 0 };
static const unsigned char compress_magic[] = { 0x1f, 0x9d };

#define MAGIC(m) m, sizeof(m)

static const struct compression compressions[] = {
	{ "gzip", ".gz", "gzip", &bytesrc_gzip_ops, MAGIC(gzip_magic) },
	{ "xz", ".xz", "xz", &bytesrc_xz_ops, MAGIC(xz_magic) },
	{ "zstd", ".zst", "zstd", &bytesrc_zstd_ops, MAGIC(zstd_magic) },
	{ "bzip2", ".bz2", "bzip2", NULL, MAGIC(bzip2_magic) },
	{ "lz4", ".lz4", "lz4", NULL, MAGIC(lz4_magic) },
	{ "lzip", ".lz", "lzip", NULL, MAGIC(lzip_magic) },
	{ "lzop", ".lzo", "lzop", NULL, MAGIC(lzop_magic) },
	{ "compress", ".Z", "gzip", NULL, MAGIC(compress_magic) },
};

#define N_COMPRESSIONS (sizeof(compressions) / sizeof(compressions[0]))

const struct compression *bytesrc_compression(const unsigned char *p,
					      size_t len)
{
	size_t i;

	for (i = 0; i < N_COMPRESSIONS; i++) {
		const struct compression *c = &compressions[i];

		if (len >= c->magic_len && !memcmp(p, c->magic, c->magic_len))
			return c;
	}
	return NULL;
}

size_t bytesrc_suffix_len(const char *name)
{
	size_t len = strlen(name), i;

	for (i = 0; i < N_COMPRESSIONS; i++) {
		size_t n = strlen(compressions[i].suffix);

		if (len > n && !strcmp(name + len - n, compressions[i].suffix))
			return n;
	}
	return 0;
}

/* ---- the plain source: the bytes as they are ---- */

static int plain_init(struct byte_source *bs, struct iow_error *err)
{
	(void)bs;
	(void)err;
	return 0;
}

/* The first bytes (read to choose the kind) first, then straight from
 * the file into the caller's buffer. */
static ssize_t plain_read(struct byte_source *bs, unsigned char *buf,
			  size_t len, struct iow_error *err)
{
	size_t n = bs->in_end - bs->in_start;

	if (n == 0)
		return bytesrc_read_fd(bs, buf, len, err);
	if (n > len)
		n = len;
	memcpy(buf, bs->in + bs->in_start, n);
	bs->in_start += n;
	return (ssize_t)n;
}

static void plain_free(struct byte_source *bs)
{
	(void)bs;
}

static const struct byte_source_ops plain_ops = {
	.name = NULL,
	.init = plain_init,
	.read = plain_read,
	.free = plain_free,
};

/* ---- opening ---- */

/* The first bytes, into bs->in: at least HEAD_MIN unless the data is
 * shorter (a stream may hand them over a few at a time). */
static int read_head(struct byte_source *bs, struct iow_error *err)
{
	while (bs->in_end < HEAD_MIN) {
		ssize_t got = bytesrc_read_fd(bs, bs->in + bs->in_end,
				      bs->in_size - bs->in_end, err);

		if (got < 0)
			return -1;
		if (got == 0)
			break;
		bs->in_end += (size_t)got;
	}
	return 0;
}

/* A compression recognised and not read: what to type instead. */
static int not_read(const struct byte_source *bs, const struct compression *c,
		    int flags, struct iow_error *err)
{
	if (flags & BYTESRC_STDIN)
		return iow_fail(err,
			"%s: %s-compressed data, which iowatcher does not read: decompress it on the way (%s -dc FILE | iowatcher -t -)",
			bs->path, c->name, c->tool);
	if (flags & BYTESRC_PART)
		return iow_fail(err,
			"%s: %s-compressed, which iowatcher does not read: decompress the set's files first (%s -d FILE for each), or compress them with gzip, xz or zstd",
			bs->path, c->name, c->tool);
	return iow_fail(err,
		"%s: %s-compressed, which iowatcher does not read: %s -dc %s | iowatcher -t -",
		bs->path, c->name, c->tool, bs->path);
}

int bytesrc_open(struct byte_source *bs, const char *path, int flags,
		 struct iow_error *err)
{
	const struct compression *c;
	struct stat st;

	memset(bs, 0, sizeof(*bs));
	bs->ops = &plain_ops;
	bs->path = path;
	bs->is_stdin = !!(flags & BYTESRC_STDIN);
	bs->is_part = !!(flags & BYTESRC_PART);
	bs->fd = (flags & BYTESRC_STDIN) ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (bs->fd < 0)
		return iow_fail(err, "%s: %s", path, strerror(errno));
	if (fstat(bs->fd, &st) == 0 && S_ISDIR(st.st_mode))
		return iow_fail(err, "%s: is a directory", path);
	if (!(flags & BYTESRC_STDIN))
		posix_fadvise(bs->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	bs->in_size = HEAD_MAX;
	bs->in = malloc(bs->in_size);
	if (!bs->in)
		return iow_fail(err, "%s: out of memory", path);
	if (read_head(bs, err) < 0)
		return -1;
	c = bs->compression = bytesrc_compression(bs->in, bs->in_end);
	if (c && !c->ops)
		return not_read(bs, c, flags, err);
	if (c) {
		unsigned char *in = realloc(bs->in, IN_SIZE);

		if (!in)
			return iow_fail(err, "%s: out of memory", path);
		bs->in = in;
		bs->in_size = IN_SIZE;
		bs->ops = c->ops;
	}
	return bs->ops->init(bs, err);
}

ssize_t bytesrc_read(struct byte_source *bs, unsigned char *buf, size_t len,
		     struct iow_error *err)
{
	ssize_t got;

	if (bs->failed) {
		*err = bs->failure;
		return -1;
	}
	if (bs->cut_short)
		return 0;
	got = bs->ops->read(bs, buf, len, err);
	if (got > 0)
		bs->out_offset += (uint64_t)got;
	return got;
}

void bytesrc_close(struct byte_source *bs)
{
	if (bs->ops)
		bs->ops->free(bs);
	if (bs->fd > 0)
		close(bs->fd);
	free(bs->in);
	memset(bs, 0, sizeof(*bs));
	bs->fd = -1;
}

/* ---- as a stdio stream ---- */

struct bytesrc_cookie {
	struct byte_source bs;
	char *path;		/* bs.path points at it */
};

static ssize_t cookie_read(void *cookie, char *buf, size_t len)
{
	struct bytesrc_cookie *c = cookie;
	struct iow_error err;
	ssize_t n = bytesrc_read(&c->bs, (unsigned char *)buf, len, &err);

	if (n < 0)
		errno = EIO;	/* cut short or damaged: ferror says so */
	return n;
}

static int cookie_close(void *cookie)
{
	struct bytesrc_cookie *c = cookie;

	bytesrc_close(&c->bs);
	free(c->path);
	free(c);
	return 0;
}

FILE *bytesrc_fopen(const char *path, struct iow_error *err)
{
	static const cookie_io_functions_t io = {
		.read = cookie_read, .close = cookie_close,
	};
	struct bytesrc_cookie *c = calloc(1, sizeof(*c));
	FILE *f;

	if (!c || !(c->path = strdup(path))) {
		free(c);
		iow_fail(err, "%s: out of memory", path);
		return NULL;
	}
	if (bytesrc_open(&c->bs, c->path, 0, err) < 0) {
		cookie_close(c);
		return NULL;
	}
	f = fopencookie(c, "r", io);
	if (!f) {
		cookie_close(c);
		iow_fail(err, "%s: out of memory", path);
	}
	return f;
}
