/*
 * test_iomap.c: the offset-by-time map against a model. Every I/O added
 * is kept; at the end each must sit in the cell its sector and column
 * give under the map's final window and column merges, whatever order
 * the window grew in (up, down, both) and the columns merged, and the
 * map must hold nothing else.
 */
#include <stdlib.h>

#include "analysis/iomap.h"
#include "check.h"

#define MAX_ADDS 20000

struct add {
	size_t col;
	uint64_t sector;
	int dir;
	long tag;
	uint32_t bytes;
};

static struct add adds[MAX_ADDS];

/* A reproducible generator (the test must fail the same way twice). */
static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return rng_state >> 33;
}

/* The expected cell counts, [tag + 1][dir][row][col], compared with what
 * iomap_next gives. */
static void compare(const struct iomap *m, size_t n, unsigned col_div,
		    size_t n_tags, const char *what)
{
	size_t cells = (n_tags + 1) * IOMAP_DIRS * IOMAP_ROWS * IOMAP_COLS;
	uint32_t *want = calloc(cells, sizeof(*want));
	uint64_t *want_sectors = calloc(cells, sizeof(*want_sectors));
	struct iomap_point p;
	size_t i, pos = 0, seen = 0, wrong = 0, expected = 0;
	unsigned row_lo = IOMAP_ROWS, row_hi = 0, held_lo = 0, held_hi = 0;

	CHECK(want && want_sectors);
	if (!want || !want_sectors)
		goto out;
	for (i = 0; i < n; i++) {
		uint64_t row = (adds[i].sector - m->lo_sector) / m->row_sectors;
		size_t col = adds[i].col / col_div, k;

		CHECK(adds[i].sector >= m->lo_sector && row < IOMAP_ROWS);
		if (row >= IOMAP_ROWS)
			continue;
		k = (((size_t)(adds[i].tag + 1) * IOMAP_DIRS + adds[i].dir) *
		     IOMAP_ROWS + row) * IOMAP_COLS + col;
		expected += !want[k];
		want[k]++;
		if (row < row_lo)
			row_lo = (unsigned)row;
		if (row > row_hi)
			row_hi = (unsigned)row;
		want_sectors[k] += (adds[i].bytes + 511) / 512;
	}
	while (iomap_next(m, &pos, &p)) {
		size_t tag = p.tag_slot == SIZE_MAX ? 0 : p.tag_slot + 1, k;

		k = ((tag * IOMAP_DIRS + (size_t)p.dir) * IOMAP_ROWS + p.row) *
		    IOMAP_COLS + p.col;
		seen++;
		if (tag > n_tags || want[k] != p.count ||
		    want_sectors[k] * 512 != p.bytes) {
			if (!wrong++)
				fprintf(stderr, "  %s: cell col %zu row %u dir %d tag %zu: %u I/Os, %llu bytes; expected %u, %llu\n",
					what, p.col, p.row, p.dir, tag, p.count,
					(unsigned long long)p.bytes, want[k],
					(unsigned long long)want_sectors[k] * 512);
		}
	}
	if (seen != expected)
		fprintf(stderr, "  %s: %zu cells, expected %zu\n", what, seen,
			expected);
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(seen, expected);
	/* the rows holding I/O, without a look at every cell */
	CHECK(iomap_rows_held(m, &held_lo, &held_hi) == (n > 0));
	CHECK_EQ_INT(held_lo, row_lo);
	CHECK_EQ_INT(held_hi, row_hi);
out:
	free(want);
	free(want_sectors);
}

/* The dense cells come by direction, then row, then column (the CSV's
 * and the movies' order), whatever the array's own. */
static void check_row_order(const struct iomap *m)
{
	struct iomap_point p;
	size_t pos = 0, last = 0, n = 0, bad = 0;

	while (iomap_next(m, &pos, &p)) {
		size_t k;

		if (p.tag_slot != SIZE_MAX)
			break;	/* the sparse table follows, in its order */
		k = ((size_t)p.dir * IOMAP_ROWS + p.row) * IOMAP_COLS + p.col;
		bad += n++ && k <= last;
		last = k;
	}
	CHECK_EQ_INT(bad, 0);
}

/*
 * n I/Os whose sectors spread from around start by up to spread either
 * way (spread growing as the trace goes on, so the window doubles many
 * times), columns rising to cols, merged by 2 every merge_every adds;
 * tagged ones (n_tags > 0) in the sparse table. With gaps: no I/O in
 * columns cols/20 to cols/3 (an idle stretch, chunks of the map never
 * mapped), writes only in the second half, merges by 2 and 5 in turn.
 */
static void run_map(uint64_t seed, uint64_t start, uint64_t spread, size_t n,
		    size_t cols, size_t merge_every, size_t n_tags, int gaps,
		    const char *what)
{
	struct iomap m = { 0 };
	unsigned div = 1, f = 2;
	size_t i;

	rng_state = seed;
	for (i = 0; i < n; i++) {
		uint64_t reach = 1 + spread * (i + 1) / n;
		uint64_t off = ((rng() << 31) ^ rng()) % reach;
		struct add *a = &adds[i];
		size_t col = i * cols / n;

		if (gaps && col >= cols / 20)
			col = cols / 3 + (col - cols / 20) * (cols - cols / 3) /
					 (cols - cols / 20);
		a->sector = rng() & 1 || off > start ? start + off :
						       start - off;
		a->col = col / div;
		a->dir = gaps && i < n / 2 ? 0 : (int)(rng() & 1);
		a->tag = n_tags && rng() % 3 == 0 ? (long)(rng() % n_tags) : -1;
		a->bytes = (uint32_t)(512 * (1 + rng() % 256));
		CHECK(iomap_add(&m, a->col, a->sector, a->dir, a->tag,
				a->bytes) == 0);
		/* the model keeps the column as given to the map, in
		 * units of the merges so far */
		a->col *= div;
		if (merge_every && (i + 1) % merge_every == 0 && div < 64) {
			iomap_merge_cols(&m, f);
			div *= f;
			if (gaps)
				f = f == 2 ? 5 : 2;
		}
	}
	compare(&m, n, div, n_tags, what);
	check_row_order(&m);
	iomap_free(&m);
}

static void run(uint64_t seed, uint64_t start, uint64_t spread, size_t n,
		size_t cols, size_t merge_every, size_t n_tags,
		const char *what)
{
	run_map(seed, start, spread, n, cols, merge_every, n_tags, 0, what);
}

/* Idle stretches leave chunks of the map unmapped: what lands after
 * them, merges and the window's growth still count right. */
static void test_idle_stretches_and_one_direction(void)
{
	run_map(8, 1 << 20, 1 << 19, MAX_ADDS, 1024, 0, 0, 1, "gaps");
	run_map(9, 1 << 24, 1 << 23, MAX_ADDS, 1024, 3000, 0, 1,
		"gaps, merges by 2 and 5");
	run_map(10, 5000, 4999, MAX_ADDS, 1024, 1500, 3, 1,
		"gaps, merges, tags");
}

/* Only the chunks of columns that received I/O are mapped. */
static void test_chunks_mapped_as_io_lands(void)
{
	struct iomap m = { 0 };
	size_t pos = 0, n = 0;
	struct iomap_point p;

	CHECK(iomap_add(&m, 3, 100, 0, -1, 4096) == 0);
	CHECK(iomap_add(&m, 313, 100, 0, -1, 4096) == 0);
	CHECK(iomap_add(&m, 700, 5000, 1, -1, 4096) == 0);
	CHECK_EQ_INT(m.chunks_mapped[0], (1u << 0) | (1u << 9));
	CHECK_EQ_INT(m.chunks_mapped[1], 1u << 21);
	/* halving the columns: 313 -> 156 (chunk 4), 700 -> 350 (10) */
	iomap_merge_cols(&m, 2);
	CHECK_EQ_INT(m.chunks_mapped[0], (1u << 0) | (1u << 4) | (1u << 9));
	CHECK_EQ_INT(m.chunks_mapped[1], (1u << 10) | (1u << 21));
	while (iomap_next(&m, &pos, &p)) {
		CHECK(p.col == 1 || p.col == 156 || p.col == 350);
		CHECK_EQ_INT(p.count, 1);
		n++;
	}
	CHECK_EQ_INT(n, 3);
	iomap_free(&m);
}

static void test_window_growing_up_and_down(void)
{
	run(1, 1000000, 900000, 5000, 700, 0, 0, "around 1M sectors");
	run(2, 0, 1ull << 30, 5000, 1024, 0, 0, "from 0 upwards");
	run(3, 1ull << 40, 1ull << 39, 5000, 300, 0, 0, "far out");
}

static void test_window_and_columns_merging_together(void)
{
	run(4, 123456789, 100000000, MAX_ADDS, 1024, 2500, 0, "merges");
	run(5, 5000, 4999, MAX_ADDS, 1024, 700, 0, "merges near 0");
}

static void test_tagged_io_in_the_sparse_table(void)
{
	run(6, 1 << 20, 1 << 19, MAX_ADDS, 1024, 4000, 5, "tagged");
}

static void test_one_row_and_one_column(void)
{
	run(7, 4096, 0, 100, 1, 0, 0, "one cell");
}

/* Merging by 5, a group of columns across an unmapped chunk and a mapped
 * one (60..64: chunks 1 and 2) lands in column 12, whose own I/O went to
 * column 2: it holds the group's I/O only. */
static void test_merge_across_an_unmapped_chunk(void)
{
	struct iomap m = { 0 };
	size_t pos = 0, n = 0;
	struct iomap_point p;

	CHECK(iomap_add(&m, 12, 100, 0, -1, 4096) == 0);
	CHECK(iomap_add(&m, 64, 100, 0, -1, 4096) == 0);
	CHECK(iomap_add(&m, 64, 100, 0, -1, 4096) == 0);
	iomap_merge_cols(&m, 5);
	while (iomap_next(&m, &pos, &p)) {
		if (p.col == 2)
			CHECK_EQ_INT(p.count, 1);
		else if (p.col == 12)
			CHECK_EQ_INT(p.count, 2);
		else
			CHECK(!"a column that got no I/O");
		n++;
	}
	CHECK_EQ_INT(n, 2);
	iomap_free(&m);
}

int main(void)
{
	RUN_TEST(test_window_growing_up_and_down);
	RUN_TEST(test_window_and_columns_merging_together);
	RUN_TEST(test_tagged_io_in_the_sparse_table);
	RUN_TEST(test_one_row_and_one_column);
	RUN_TEST(test_idle_stretches_and_one_direction);
	RUN_TEST(test_chunks_mapped_as_io_lands);
	RUN_TEST(test_merge_across_an_unmapped_chunk);
	return check_report();
}
