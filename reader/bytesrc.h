/*
 * bytesrc.h: where a trace file's bytes come from. A byte source is a
 * file or standard input read as it is, or through a decompressor (gzip,
 * xz, zstd), chosen by the data's first bytes, not by the file's name;
 * the record decoder reads every kind alike through its ops. A kind
 * that is recognised but not read (bzip2, lz4...) is an error that says
 * what to type instead.
 */
#ifndef IOWATCHER_BYTESRC_H
#define IOWATCHER_BYTESRC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/error.h"

struct byte_source;

/* One kind of byte source (bytesrc_*.c, one file each). */
struct byte_source_ops {
	const char *name;	/* "gzip": named in messages; NULL read as is */
	/* Set up: bs->in holds the first bytes read (bs->in_end of them). */
	int (*init)(struct byte_source *bs, struct iow_error *err);
	/* Up to len bytes into buf: how many (fewer is no end), 0 at the
	 * end of the data, -1 on an error (err says what, where). */
	ssize_t (*read)(struct byte_source *bs, unsigned char *buf,
			size_t len, struct iow_error *err);
	void (*free)(struct byte_source *bs);
};

struct byte_source {
	const struct byte_source_ops *ops;
	/* the compression the first bytes showed (also one not read), or
	 * NULL */
	const struct compression *compression;
	const char *path;	/* in messages: the file, or "<stdin>" */
	int fd;
	int is_stdin;
	/* bytes read from fd and not yet used: in[in_start, in_end) */
	unsigned char *in;
	size_t in_start, in_end, in_size;
	uint64_t in_offset;	/* how many bytes were read from fd */
	int in_eof;
	uint64_t out_offset;	/* how many bytes were handed out */
	void *state;		/* the decompressor's */
	/* an error met after some bytes, which were handed out first */
	int failed;
	struct iow_error failure;
	/*
	 * BYTESRC_PART: compressed data cut short is the file's end, not an
	 * error (a per-CPU file ending early is a loss the reader locates):
	 * cut_short is then set, and failure says where.
	 */
	int is_part;
	int cut_short;
};

/* A compression recognised by its first bytes. */
struct compression {
	const char *name;	/* "gzip", "bzip2" */
	const char *suffix;	/* its files' usual suffix: ".gz" */
	const char *tool;	/* the program that decompresses it: "bzip2" */
	const struct byte_source_ops *ops;	/* NULL: not read here */
	const unsigned char *magic;
	size_t magic_len;
};

#define BYTESRC_STDIN	1	/* read standard input (fd 0), not path */
#define BYTESRC_PART	2	/* one file of a per-CPU set: for messages */

/*
 * Open path (or standard input) and choose its kind from its first
 * bytes; flags: BYTESRC_*. A compression not read here is an error that
 * says what to type instead. bs is closed with bytesrc_close, also after
 * an error.
 */
int bytesrc_open(struct byte_source *bs, const char *path, int flags,
		 struct iow_error *err);
/* Up to len bytes: how many (fewer is no end), 0 at the end of the
 * data, -1 on an error. */
ssize_t bytesrc_read(struct byte_source *bs, unsigned char *buf, size_t len,
		     struct iow_error *err);

void bytesrc_close(struct byte_source *bs);

/*
 * path's bytes, decompressed as bytesrc_open chooses, as a stdio stream
 * (for files read by lines or fread: the causes beside a trace). NULL
 * with err on a file that cannot be opened or is compressed in a way
 * not read here. A stream that is cut short or damaged ends early with
 * ferror set.
 */
FILE *bytesrc_fopen(const char *path, struct iow_error *err);

/* The compression whose magic p[0..len) starts with, or NULL. */
const struct compression *bytesrc_compression(const unsigned char *p,
					      size_t len);
/* The length of a known compression suffix at name's end, or 0. */
size_t bytesrc_suffix_len(const char *name);

/* read(2) of bs's file into buf that goes on after a signal unless it
 * asked iowatcher to stop; bs->in_offset counts what it read. */
ssize_t bytesrc_read_fd(struct byte_source *bs, unsigned char *buf,
			size_t len, struct iow_error *err);
/*
 * For the decompressors: read more of the file into bs->in (what is left
 * of it is moved to its start); at the end sets bs->in_eof. 0, or -1 on
 * a read error.
 */
int bytesrc_fill_input(struct byte_source *bs, struct iow_error *err);
/*
 * The decompressors' errors, one line each: data that is not what its
 * format says (why: the library's words), and data cut short. produced:
 * the bytes the failing read has decoded; those are returned first, and
 * the error by the next read (cut short in a BYTESRC_PART file: the end
 * of the data, bs->cut_short set). Returns what the read returns.
 */
ssize_t bytesrc_corrupt(struct byte_source *bs, size_t produced,
			const char *why, struct iow_error *err);
ssize_t bytesrc_cut_short(struct byte_source *bs, size_t produced,
			  struct iow_error *err);

extern const struct byte_source_ops bytesrc_gzip_ops;
extern const struct byte_source_ops bytesrc_xz_ops;
extern const struct byte_source_ops bytesrc_zstd_ops;

#endif
