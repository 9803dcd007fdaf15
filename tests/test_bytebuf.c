/*
 * test_bytebuf.c: appended bytes come back in order across the buffer's
 * growth; growing keeps what was there, starts at 64 KiB and doubles; a
 * size that cannot be held fails and leaves the buffer as it was.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytebuf.h"
#include "check.h"

static void test_appends_keep_order_across_growth(void)
{
	struct bytebuf b = { NULL, 0, 0 };
	unsigned char piece[1000];
	size_t i, k, bad = 0;

	for (k = 0; k < 300; k++) {
		for (i = 0; i < sizeof(piece); i++)
			piece[i] = (unsigned char)(k * 7 + i);
		CHECK(bytebuf_append(&b, piece, sizeof(piece)) == 0);
	}
	CHECK_EQ_INT(b.len, 300000);
	CHECK_EQ_INT(b.cap, 65536 * 8);
	for (k = 0; k < 300; k++)
		for (i = 0; i < sizeof(piece); i++)
			bad += b.data[k * 1000 + i] != (unsigned char)(k * 7 + i);
	CHECK_EQ_INT(bad, 0);
	CHECK(bytebuf_append(&b, piece, 0) == 0);
	CHECK_EQ_INT(b.len, 300000);
	bytebuf_free(&b);
	CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

static void test_grow_counts_the_bytes_in_use(void)
{
	unsigned char *data = NULL;
	size_t cap = 0;

	CHECK(bytebuf_grow(&data, &cap, 0, 10) == 0);
	CHECK_EQ_INT(cap, 65536);
	memset(data, 'x', 10);
	/* 60,000 in use and 10,000 more: doubled, the start kept */
	CHECK(bytebuf_grow(&data, &cap, 60000, 10000) == 0);
	CHECK_EQ_INT(cap, 131072);
	CHECK(data[0] == 'x' && data[9] == 'x');
	/* fits: nothing moves */
	CHECK(bytebuf_grow(&data, &cap, 100000, 31072) == 0);
	CHECK_EQ_INT(cap, 131072);
	free(data);
}

static void test_impossible_size_fails_unchanged(void)
{
	struct bytebuf b = { NULL, 0, 0 };

	CHECK(bytebuf_append(&b, "abc", 3) == 0);
	CHECK(bytebuf_grow(&b.data, &b.cap, b.len, SIZE_MAX - 1) == -1);
	CHECK_EQ_INT(b.cap, 65536);
	CHECK(!memcmp(b.data, "abc", 3));
	bytebuf_free(&b);
}

int main(void)
{
	RUN_TEST(test_appends_keep_order_across_growth);
	RUN_TEST(test_grow_counts_the_bytes_in_use);
	RUN_TEST(test_impossible_size_fails_unchanged);
	return check_report();
}
