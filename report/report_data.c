/* report_data.c: the report's binary block and JSON (see report_data.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "report_data.h"
#include "base/utf8.h"

static void blob_align(struct blob *bl, size_t to)
{
	static const unsigned char zeros[8];
	size_t pad = (to - bl->b.len % to) % to;

	if (pad && bytebuf_append(&bl->b, zeros, pad) < 0)
		bl->failed = 1;
}

struct blob_ref blob_f32(struct blob *bl, const double *v, size_t n,
			 double scale)
{
	struct blob_ref r;
	float buf[256];
	size_t i, k = 0;

	blob_align(bl, 4);
	r.off = bl->b.len;
	r.n = n;
	for (i = 0; i < n; i++) {
		buf[k++] = (float)(v[i] * scale);
		if (k == sizeof(buf) / sizeof(buf[0]) || i + 1 == n) {
			if (bytebuf_append(&bl->b, buf, k * sizeof(*buf)) < 0)
				bl->failed = 1;
			k = 0;
		}
	}
	return r;
}

struct blob_ref blob_f64(struct blob *bl, const double *v, size_t n)
{
	struct blob_ref r;

	blob_align(bl, 8);
	r.off = bl->b.len;
	r.n = n;
	if (n && bytebuf_append(&bl->b, v, n * sizeof(*v)) < 0)
		bl->failed = 1;
	return r;
}

/* v as a varint at the end of b, which has room for it. */
static void put_varint(struct bytebuf *b, uint64_t v)
{
	unsigned char *p = b->data + b->len;

	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	b->len = (size_t)(p - b->data);
}

void table_start(struct blob_table *t, const char *kinds)
{
	memset(t, 0, sizeof(*t));
	t->kinds = kinds;
}

void table_row(struct blob_table *t, const uint64_t *v)
{
	size_t k;

	for (k = 0; t->kinds[k] && k < TABLE_MAX_PLANES; k++) {
		struct bytebuf *b = &t->planes[k];

		/* a varint takes 10 bytes at most */
		if (b->cap - b->len < 10 &&
		    bytebuf_grow(&b->data, &b->cap, b->len, 10) < 0) {
			t->failed = 1;
			continue;
		}
		if (t->kinds[k] == 'b')
			b->data[b->len++] = v[k] > 255 ? 255 : (unsigned char)v[k];
		else
			put_varint(b, v[k]);
	}
	t->n++;
}

struct table_ref table_end(struct blob *bl, struct blob_table *t)
{
	struct table_ref r;
	size_t k;

	memset(&r, 0, sizeof(r));
	r.off = bl->b.len;
	r.n = t->n;
	r.kinds = t->kinds;
	for (k = 0; t->kinds[k] && k < TABLE_MAX_PLANES; k++) {
		r.len[k] = t->planes[k].len;
		if (t->planes[k].len &&
		    bytebuf_append(&bl->b, t->planes[k].data,
				   t->planes[k].len) < 0)
			bl->failed = 1;
		bytebuf_free(&t->planes[k]);
	}
	if (t->failed)
		bl->failed = 1;
	return r;
}

void blob_free(struct blob *bl)
{
	bytebuf_free(&bl->b);
	bl->failed = 0;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* base64 of n bytes into out (4 * ceil(n / 3) characters). */
static size_t base64(const unsigned char *in, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
			     in[i + 2];

		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = b64[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16 |
			     (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);

		out[o++] = b64[v >> 18];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	return o;
}

int write_base64(FILE *f, const void *data, size_t n)
{
	const unsigned char *in = data;
	char *text = malloc(65536);
	size_t i;

	if (!text)
		return -1;
	/* 49152 bytes make 65536 characters: no padding but at the end */
	for (i = 0; i < n; i += 49152) {
		size_t k = n - i < 49152 ? n - i : 49152;

		fwrite(text, 1, base64(in + i, k, text), f);
	}
	free(text);
	return 0;
}

int blob_write_base64(const struct blob *bl, FILE *f, size_t *deflated_len,
		      struct iow_error *err)
{
	uLongf len = compressBound(bl->b.len);
	unsigned char *z = malloc(len ? len : 1);

	if (!z)
		return iow_fail(err, "out of memory writing the report");
	/* level 1: level 6 took 5x the time (200 ms on a 2.6M-event
	 * trace's report) for 15% less */
	if (compress2(z, &len, bl->b.data ? bl->b.data : z, bl->b.len, 1) !=
	    Z_OK) {
		free(z);
		return iow_fail(err, "out of memory compressing the report");
	}
	*deflated_len = len;
	if (write_base64(f, z, len) < 0) {
		free(z);
		return iow_fail(err, "out of memory writing the report");
	}
	free(z);
	return 0;
}

void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.9g", v);
}

void json_ref(FILE *f, struct blob_ref r)
{
	fprintf(f, "{\"o\":%zu,\"n\":%zu}", r.off, r.n);
}

void json_table(FILE *f, const struct table_ref *r)
{
	size_t k;

	fprintf(f, "{\"o\":%zu,\"n\":%zu,\"k\":\"%s\",\"p\":[", r->off,
		r->n, r->kinds ? r->kinds : "");
	for (k = 0; r->kinds && r->kinds[k] && k < TABLE_MAX_PLANES; k++)
		fprintf(f, "%s%zu", k ? "," : "", r->len[k]);
	fputs("]}", f);
}

void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
}
