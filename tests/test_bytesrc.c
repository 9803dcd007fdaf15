/*
 * test_bytesrc.c: byte sources: the kind chosen by the first bytes, each
 * decompressor's bytes equal to what was compressed whatever the read
 * sizes and however the compressed bytes arrive (a stream split at every
 * point), and truncated or corrupted data always an error, never a
 * clean end. The data is compressed here with the same libraries.
 */
#include <lzma.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "reader/bytesrc.h"
#include "check.h"

static char dir[64];

static char *path_in(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

struct blob {
	unsigned char *p;
	size_t len;
};

/* Trace-like bytes: repetitive records with a counter and some noise. */
static struct blob sample_data(size_t len)
{
	struct blob b = { malloc(len), len };
	uint32_t x = 12345;
	size_t i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245 + 12345;
		b.p[i] = i % 48 < 8 ? (unsigned char)(i / 48 >> (i % 4 * 8)) :
			 i % 48 < 12 ? (unsigned char)(x >> 24) :
			 (unsigned char)(i % 48);
	}
	return b;
}

static struct blob gzip_of(const unsigned char *p, size_t len)
{
	struct blob b = { malloc(len + len / 2 + 1024), 0 };
	z_stream z = { 0 };

	CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
			   Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)p;
	z.avail_in = (uInt)len;
	z.next_out = b.p;
	z.avail_out = (uInt)(len + len / 2 + 1024);
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	b.len = z.total_out;
	deflateEnd(&z);
	return b;
}

/*
 * xz's preset 6 (its command line's default) with the dictionary no
 * larger than the data needs (the next power of two, 4 KiB at least):
 * the same LZMA2 chunks as preset 6's 8 MiB one (all the data fits in
 * either), only the header's dictionary size differs. The decoder
 * allocates what the header says, and the loops below open one decoder
 * per cut, split and changed byte: 8 MiB each made this test take 23 s
 * under ASan (the allocator maps and fills them) instead of 2.
 */
static struct blob xz_of(const unsigned char *p, size_t len)
{
	struct blob b = { malloc(len + len / 2 + 1024), 0 };
	lzma_options_lzma opt;
	lzma_filter filters[2];

	CHECK(!lzma_lzma_preset(&opt, 6));
	opt.dict_size = LZMA_DICT_SIZE_MIN;
	while (opt.dict_size < len)
		opt.dict_size *= 2;
	filters[0].id = LZMA_FILTER_LZMA2;
	filters[0].options = &opt;
	filters[1].id = LZMA_VLI_UNKNOWN;
	CHECK(lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC64, NULL, p,
					len, b.p, &b.len,
					len + len / 2 + 1024) == LZMA_OK);
	return b;
}

/* With the checksum zstd's command line writes by default. */
static struct blob zstd_of(const unsigned char *p, size_t len)
{
	size_t cap = ZSTD_compressBound(len);
	struct blob b = { malloc(cap), 0 };
	ZSTD_CCtx *c = ZSTD_createCCtx();

	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	b.len = ZSTD_compress2(c, b.p, cap, p, len);
	CHECK(!ZSTD_isError(b.len));
	ZSTD_freeCCtx(c);
	return b;
}

typedef struct blob (*compressor)(const unsigned char *, size_t);

static const struct {
	const char *name;
	compressor compress;
} kinds[] = {
	{ "gzip", gzip_of },
	{ "xz", xz_of },
	{ "zstd", zstd_of },
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static void write_file(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	CHECK(f && fwrite(p, 1, len, f) == len);
	fclose(f);
}

/*
 * Everything path's source gives, in reads of read_size, into out
 * (malloc'd); the count, or -1 after an error (err).
 */
static long read_all(const char *path, int flags, size_t read_size,
		     unsigned char **out, struct iow_error *err)
{
	struct byte_source bs;
	size_t have = 0, cap = 1 << 16;
	ssize_t got = 0;

	*out = malloc(cap);
	if (bytesrc_open(&bs, path, flags, err) < 0) {
		bytesrc_close(&bs);
		return -1;
	}
	for (;;) {
		if (cap - have < read_size) {
			cap = 2 * cap + read_size;
			*out = realloc(*out, cap);
		}
		got = bytesrc_read(&bs, *out + have, read_size, err);
		if (got <= 0)
			break;
		CHECK((size_t)got <= read_size);
		have += (size_t)got;
	}
	bytesrc_close(&bs);
	return got < 0 ? -1 : (long)have;
}

static int same_bytes(const unsigned char *a, long n, const struct blob *b)
{
	return n >= 0 && (size_t)n == b->len && !memcmp(a, b->p, b->len);
}

static void test_kind_is_chosen_by_magic_not_name(void)
{
	static const unsigned char gz[] = { 0x1f, 0x8b, 0x08, 0 };
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const unsigned char bz[] = { 'B', 'Z', 'h', '9' };
	static const unsigned char trace[] = { 0x07, 't', 'a', 'e' };
	const struct compression *c;

	c = bytesrc_compression(gz, sizeof(gz));
	CHECK(c && !strcmp(c->name, "gzip") && c->ops);
	c = bytesrc_compression(xz, sizeof(xz));
	CHECK(c && !strcmp(c->name, "xz") && c->ops);
	c = bytesrc_compression(zst, sizeof(zst));
	CHECK(c && !strcmp(c->name, "zstd") && c->ops);
	c = bytesrc_compression(bz, sizeof(bz));
	CHECK(c && !strcmp(c->name, "bzip2") && !c->ops);
	CHECK(bytesrc_compression(trace, sizeof(trace)) == NULL);
	CHECK(bytesrc_compression(xz, 5) == NULL);	/* too short to tell */
	CHECK_EQ_INT(bytesrc_suffix_len("a.blktrace.0.zst"), 4);
	CHECK_EQ_INT(bytesrc_suffix_len("a.dump.gz"), 3);
	CHECK_EQ_INT(bytesrc_suffix_len("a.dump"), 0);
	CHECK_EQ_INT(bytesrc_suffix_len(".gz"), 0);
}

/* Each kind, read in reads of many sizes, gives back what was
 * compressed; a plain file named .gz is read as it is. */
static void test_each_kind_gives_back_its_bytes(void)
{
	static const size_t sizes[] = { 1, 7, 4096, 65536, 200000 };
	struct blob data = sample_data(700000);
	struct iow_error err;
	unsigned char *out;
	size_t k, i;
	long n;

	for (k = 0; k < N_KINDS; k++) {
		struct blob c = kinds[k].compress(data.p, data.len);

		write_file(path_in("data"), c.p, c.len);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			if (sizes[i] == 1 && k != 0)
				continue;	/* slow; one kind does */
			n = read_all(path_in("data"), 0, sizes[i], &out, &err);
			if (!same_bytes(out, n, &data))
				printf("  %s, reads of %zu: %ld bytes (%s)\n",
				       kinds[k].name, sizes[i], n,
				       n < 0 ? err.msg : "");
			CHECK(same_bytes(out, n, &data));
			free(out);
		}
		free(c.p);
	}
	write_file(path_in("plain.gz"), data.p, data.len);
	n = read_all(path_in("plain.gz"), 0, 65536, &out, &err);
	CHECK(same_bytes(out, n, &data));
	free(out);
	free(data.p);
}

/* gzip -c a b, xz and zstd likewise: the parts one after the other. */
static void test_concatenated_parts_read_as_one(void)
{
	struct blob data = sample_data(300000);
	struct iow_error err;
	unsigned char *out;
	size_t k;
	long n;

	for (k = 0; k < N_KINDS; k++) {
		struct blob a = kinds[k].compress(data.p, 100001);
		struct blob b = kinds[k].compress(data.p + 100001,
						  data.len - 100001);
		FILE *f = fopen(path_in("cat"), "wb");

		fwrite(a.p, 1, a.len, f);
		fwrite(b.p, 1, b.len, f);
		fclose(f);
		n = read_all(path_in("cat"), 0, 65536, &out, &err);
		CHECK(same_bytes(out, n, &data));
		free(out);
		/* something after the data that is not more of it */
		f = fopen(path_in("cat"), "ab");
		fputs("trailing words", f);
		fclose(f);
		n = read_all(path_in("cat"), 0, 65536, &out, &err);
		CHECK_EQ_INT(n, -1);
		CHECK(strstr(err.msg, "corrupt") != NULL);
		free(out);
		free(a.p);
		free(b.p);
	}
	free(data.p);
}

struct split_writer {
	int fd;
	const unsigned char *p;
	size_t len, split;
};

/* Writes the first part, waits until the reader has taken all of it,
 * then writes the rest: the reader sees the parts apart. */
static void *write_in_two(void *arg)
{
	struct split_writer *w = arg;
	int unread;

	if (w->split && write(w->fd, w->p, w->split) != (ssize_t)w->split)
		abort();
	while (ioctl(w->fd, FIONREAD, &unread) == 0 && unread > 0)
		usleep(20);
	if (w->len > w->split &&
	    write(w->fd, w->p + w->split, w->len - w->split) !=
		    (ssize_t)(w->len - w->split))
		abort();
	close(w->fd);
	return NULL;
}

/* The source reads standard input: the pipe's end put there. */
static long read_pipe_split(const struct blob *c, size_t split,
			    unsigned char **out, struct iow_error *err)
{
	struct split_writer w;
	pthread_t t;
	int fds[2], saved = dup(0);
	long n;

	CHECK(pipe(fds) == 0);
	dup2(fds[0], 0);
	close(fds[0]);
	w.fd = fds[1];
	w.p = c->p;
	w.len = c->len;
	w.split = split;
	pthread_create(&t, NULL, write_in_two, &w);
	n = read_all("<stdin>", BYTESRC_STDIN, 4096, out, err);
	pthread_join(t, NULL);
	dup2(saved, 0);
	close(saved);
	return n;
}

/* A stream on stdin whose compressed bytes come in two parts, split at
 * every point: the same bytes. */
static void test_stream_split_at_every_point(void)
{
	struct blob data = sample_data(3000);
	struct iow_error err;
	unsigned char *out;
	size_t k, split;
	long bad;

	for (k = 0; k < N_KINDS; k++) {
		struct blob c = kinds[k].compress(data.p, data.len);

		bad = 0;
		for (split = 0; split <= c.len; split++) {
			long n = read_pipe_split(&c, split, &out, &err);

			if (!same_bytes(out, n, &data)) {
				if (!bad++)
					printf("  %s split at %zu: %ld (%s)\n",
					       kinds[k].name, split, n,
					       n < 0 ? err.msg : "");
			}
			free(out);
		}
		CHECK_EQ_INT(bad, 0);
		free(c.p);
	}
	free(data.p);
}

/* Cut short anywhere past its magic, a compressed file is an error
 * naming it and its kind, never data that ends cleanly. */
static void test_truncated_data_is_an_error_at_every_cut(void)
{
	struct blob data = sample_data(4000);
	struct iow_error err;
	unsigned char *out;
	size_t k, cut;

	for (k = 0; k < N_KINDS; k++) {
		struct blob c = kinds[k].compress(data.p, data.len);
		long clean = 0, unclear = 0;

		for (cut = 6; cut < c.len; cut++) {
			long n;

			write_file(path_in("cut"), c.p, cut);
			n = read_all(path_in("cut"), 0, 65536, &out, &err);
			if (n >= 0)
				clean++;
			else if (!strstr(err.msg, "cut") ||
				 !strstr(err.msg, kinds[k].name) ||
				 !strstr(err.msg, "compressed byte"))
				if (!unclear++)
					printf("  %s cut at %zu: %s\n",
					       kinds[k].name, cut, err.msg);
			free(out);
		}
		CHECK_EQ_INT(clean, 0);
		CHECK_EQ_INT(unclear, 0);
		free(c.p);
	}
	free(data.p);
}

/*
 * A byte changed anywhere: an error, or (in a field no check covers: a
 * gzip header's time stamp) the very same bytes; never other bytes that
 * end cleanly.
 */
static void test_corrupted_data_is_an_error_or_harmless(void)
{
	struct blob data = sample_data(4000);
	struct iow_error err;
	unsigned char *out;
	size_t k, at;

	for (k = 0; k < N_KINDS; k++) {
		struct blob c = kinds[k].compress(data.p, data.len);
		long wrong = 0, errors = 0;

		for (at = 0; at < c.len; at++) {
			long n;

			c.p[at] ^= 0x55;
			write_file(path_in("bad"), c.p, c.len);
			c.p[at] ^= 0x55;
			n = read_all(path_in("bad"), 0, 65536, &out, &err);
			if (n < 0)
				errors++;
			else if (!same_bytes(out, n, &data) && at >= 6 &&
				 !wrong++)
				printf("  %s: byte %zu changed, no error\n",
				       kinds[k].name, at);
			free(out);
		}
		CHECK_EQ_INT(wrong, 0);
		CHECK(errors > (long)c.len * 9 / 10);
		free(c.p);
	}
	free(data.p);
}

static void test_unread_compression_says_what_to_type(void)
{
	static const char bz[] = "BZh91AY&SY not really";
	unsigned char *out;
	struct iow_error err;

	write_file(path_in("t.dump.bz2"), bz, sizeof(bz));
	CHECK_EQ_INT(read_all(path_in("t.dump.bz2"), 0, 4096, &out, &err), -1);
	CHECK(strstr(err.msg, "bzip2-compressed") != NULL);
	CHECK(strstr(err.msg, "bzip2 -dc") != NULL);
	CHECK(strstr(err.msg, "t.dump.bz2 | iowatcher -t -") != NULL);
	free(out);
	CHECK_EQ_INT(read_all(path_in("t.dump.bz2"), BYTESRC_PART, 4096, &out,
			      &err), -1);
	CHECK(strstr(err.msg, "bzip2 -d") != NULL);
	free(out);
}

static void test_corrupt_error_names_both_offsets(void)
{
	struct blob data = sample_data(300000);
	struct blob c = gzip_of(data.p, data.len);
	struct iow_error err;
	unsigned char *out;
	long n;

	/* the CRC at the end: all the data, then the error */
	c.p[c.len - 6] ^= 1;
	write_file(path_in("crc.gz"), c.p, c.len);
	n = read_all(path_in("crc.gz"), 0, 65536, &out, &err);
	CHECK_EQ_INT(n, -1);
	CHECK(strstr(err.msg, "crc.gz: gzip data corrupt at compressed byte") !=
	      NULL);
	CHECK(strstr(err.msg, "(decompressed byte 300000)") != NULL);
	free(out);
	free(c.p);
	free(data.p);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/iow-bytesrc-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	RUN_TEST(test_kind_is_chosen_by_magic_not_name);
	RUN_TEST(test_each_kind_gives_back_its_bytes);
	RUN_TEST(test_concatenated_parts_read_as_one);
	RUN_TEST(test_stream_split_at_every_point);
	RUN_TEST(test_truncated_data_is_an_error_at_every_cut);
	RUN_TEST(test_corrupted_data_is_an_error_or_harmless);
	RUN_TEST(test_unread_compression_says_what_to_type);
	RUN_TEST(test_corrupt_error_names_both_offsets);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	return check_report();
}
