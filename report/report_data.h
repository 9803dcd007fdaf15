/*
 * report_data.h: how the report's numbers travel in its page. Every
 * array goes into one binary block, named in the page's JSON by where it
 * starts and how long it is: series as float32; tables of cells by
 * columns ("planes": each number of a record in a plane of its own, as
 * LEB128 varints or bytes), which deflate packs two to three times
 * better than records side by side. The block is deflated and written
 * in base64 (the page inflates it with the browser's
 * DecompressionStream). The JSON's strings cannot end the <script>
 * element holding them.
 */
#ifndef IOWATCHER_REPORT_DATA_H
#define IOWATCHER_REPORT_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/bytebuf.h"
#include "base/error.h"

struct blob {
	struct bytebuf b;
	int failed;		/* out of memory: an append was lost */
};

/* Where an array lies in the block: bytes from its start, elements. */
struct blob_ref {
	size_t off, n;
};

/* n values times scale as float32 (NaN stays NaN: no value). */
struct blob_ref blob_f32(struct blob *bl, const double *v, size_t n,
			 double scale);
struct blob_ref blob_f64(struct blob *bl, const double *v, size_t n);
/*
 * A table of records in planes: kinds names each plane, 'v' (varints)
 * or 'b' (bytes, values below 256). table_row adds a record of
 * strlen(kinds) numbers; table_end appends the planes to the block,
 * back to back, and frees them.
 */
#define TABLE_MAX_PLANES 8
struct blob_table {
	const char *kinds;
	size_t n;		/* records */
	struct bytebuf planes[TABLE_MAX_PLANES];
	int failed;
};
struct table_ref {
	size_t off, n;
	size_t len[TABLE_MAX_PLANES];	/* each plane's bytes */
	const char *kinds;
};

void table_start(struct blob_table *t, const char *kinds);
void table_row(struct blob_table *t, const uint64_t *v);
struct table_ref table_end(struct blob *bl, struct blob_table *t);
void blob_free(struct blob *bl);

/*
 * Writes the block deflated, in base64, to f; *deflated_len gets the
 * deflated size. 0, or -1 with err.
 */
int blob_write_base64(const struct blob *bl, FILE *f, size_t *deflated_len,
		      struct iow_error *err);

/* n bytes in base64, as they are, to f (-1: out of memory). */
int write_base64(FILE *f, const void *data, size_t n);

/* A number, or null for NaN and infinities. */
void json_num(FILE *f, double v);
/* A reference: {"o": off, "n": n}. */
void json_ref(FILE *f, struct blob_ref r);
/* A table's: {"o": off, "n": records, "k": kinds, "p": [lengths]}. */
void json_table(FILE *f, const struct table_ref *r);
/* Text for HTML: '&', '<', '>' and '"' escaped. */
void html_text(FILE *f, const char *s);

#endif
