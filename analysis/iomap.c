/* iomap.c: the offset-by-time map of one device (see iomap.h). */
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "iomap.h"

#define FIRST_ROW_SECTORS	8	/* the first window: 1 MiB */
#define DENSE_CELLS		((size_t)IOMAP_DIRS * IOMAP_ROWS * IOMAP_COLS)
/* Columns whose pages are mapped together (64 KiB): a chunk. */
#define CHUNK_COLS		32
#define KEY_ROW_BITS		10
#define KEY_COL_BITS		21
#define KEY_DIR_SHIFT		(KEY_ROW_BITS + KEY_COL_BITS)
#define KEY_SLOT_SHIFT		(KEY_DIR_SHIFT + 1)

static uint32_t add_sat(uint32_t a, uint64_t b)
{
	uint64_t v = (uint64_t)a + b;

	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* A cell's place in the order iomap_next gives cells in: row by row. */
static size_t dense_index(int dir, unsigned row, size_t col)
{
	return ((size_t)dir * IOMAP_ROWS + row) * IOMAP_COLS + col;
}

/* A cell's place in the array: column by column. */
static size_t column_index(int dir, size_t col, unsigned row)
{
	return ((size_t)dir * IOMAP_COLS + col) * IOMAP_ROWS + row;
}

static void dense_add(struct iomap_dense *to, struct iomap_dense x)
{
	to->count = add_sat(to->count, x.count);
	to->sectors = add_sat(to->sectors, x.sectors);
}

static uint64_t cell_key(size_t col, unsigned row, int dir, long slot)
{
	return (uint64_t)row | ((uint64_t)col << KEY_ROW_BITS) |
	       ((uint64_t)dir << KEY_DIR_SHIFT) |
	       ((uint64_t)(slot + 1) << KEY_SLOT_SHIFT);
}

static void key_decode(uint64_t key, struct iomap_point *p)
{
	uint64_t slot = key >> KEY_SLOT_SHIFT;

	p->row = (unsigned)(key & ((1u << KEY_ROW_BITS) - 1));
	p->col = (size_t)((key >> KEY_ROW_BITS) & ((1u << KEY_COL_BITS) - 1));
	p->dir = (int)((key >> KEY_DIR_SHIFT) & 1);
	p->tag_slot = slot ? (size_t)(slot - 1) : SIZE_MAX;
}

static uint64_t cell_hash(uint64_t key)
{
	key ^= key >> 31;
	key *= 0x7fb5d329728ea185ull;
	return key ^ (key >> 27);
}

static int sparse_add(struct iomap *m, uint64_t key, uint32_t count,
		      uint64_t sectors);

static int sparse_grow(struct iomap *m)
{
	struct iomap_cell *old = m->cells;
	size_t old_cap = m->cap, i;

	m->cap = old_cap ? old_cap * 2 : 256;
	m->cells = calloc(m->cap, sizeof(*m->cells));
	if (!m->cells) {
		m->cells = old;
		m->cap = old_cap;
		return -1;
	}
	m->len = 0;
	for (i = 0; i < old_cap; i++)
		if (old[i].count)
			sparse_add(m, old[i].key, old[i].count, old[i].sectors);
	free(old);
	return 0;
}

static int sparse_add(struct iomap *m, uint64_t key, uint32_t count,
		      uint64_t sectors)
{
	size_t mask, i;

	if ((m->len + 1) * 4 > m->cap * 3 && sparse_grow(m) < 0)
		return -1;
	mask = m->cap - 1;
	for (i = cell_hash(key) & mask; m->cells[i].count; i = (i + 1) & mask)
		if (m->cells[i].key == key) {
			m->cells[i].count = add_sat(m->cells[i].count, count);
			m->cells[i].sectors = add_sat(m->cells[i].sectors,
						      sectors);
			return 0;
		}
	m->cells[i].key = key;
	m->cells[i].count = count;
	m->cells[i].sectors = add_sat(0, sectors);
	m->len++;
	return 0;
}

/* Rebuild the sparse table with every key passed through remap. */
static void sparse_rekey(struct iomap *m,
			 uint64_t (*remap)(uint64_t key, const void *arg),
			 const void *arg)
{
	struct iomap_cell *old = m->cells;
	size_t old_cap = m->cap, i;

	if (!old)
		return;
	m->cells = calloc(old_cap, sizeof(*m->cells));
	if (!m->cells) {
		/* Out of memory: keep the old keys rather than lose counts. */
		m->cells = old;
		return;
	}
	m->len = 0;
	for (i = 0; i < old_cap; i++)
		if (old[i].count)
			sparse_add(m, remap(old[i].key, arg), old[i].count,
				   old[i].sectors);
	free(old);
}

/*
 * Whether column col of direction d has its pages mapped. Columns whose
 * chunk is not were never written: they hold zeros, and reading them
 * (or writing zeros) would map pages for nothing, at a page fault each.
 */
static int col_mapped(const struct iomap *m, int d, size_t col)
{
	return m->chunks_mapped[d] >> (col / CHUNK_COLS) & 1;
}

/* Map the pages of col's chunk, all at once (bigmem_prefault). */
static void map_col(struct iomap *m, int d, size_t col)
{
	if (col_mapped(m, d, col))
		return;
	bigmem_prefault(m->dense, column_index(d, col / CHUNK_COLS *
					       CHUNK_COLS, 0) *
			sizeof(*m->dense),
			CHUNK_COLS * IOMAP_ROWS * sizeof(*m->dense));
	m->chunks_mapped[d] |= 1u << (col / CHUNK_COLS);
}

struct window_change {
	uint64_t old_lo, old_rs, new_lo, new_rs;
};

static unsigned new_row(const struct window_change *w, unsigned row)
{
	return (unsigned)((w->old_lo + row * w->old_rs - w->new_lo) /
			  w->new_rs);
}

static uint64_t key_rewindow(uint64_t key, const void *arg)
{
	struct iomap_point p;

	key_decode(key, &p);
	return cell_key(p.col, new_row(arg, p.row), p.dir,
			p.tag_slot == SIZE_MAX ? -1 : (long)p.tag_slot);
}

/*
 * Rows halve exactly: old row r lands in row base + r / 2, base being 0 or
 * half the rows as the doubled window starts at or below the old one.
 * Only the columns and rows used so far hold anything (cells never
 * written stay untouched: the array's pages are mapped as they fill).
 */
static void dense_rewindow(struct iomap *m, const struct window_change *w)
{
	unsigned base = new_row(w, 0), r, lo = m->rows_lo, hi = m->rows_hi;
	struct iomap_dense *v = m->dense;
	size_t c;
	int d;

	for (d = 0; d < IOMAP_DIRS; d++)
		for (c = 0; c < m->cols_used; c++) {
			struct iomap_dense *rows = v + column_index(d, c, 0);

			if (!col_mapped(m, d, c))
				continue;

			/* upwards when rows move down (base 0), else
			 * downwards: a row is emptied before anything lands
			 * in it */
			for (r = base == 0 ? lo : hi;
			     base == 0 ? r < hi : r-- > lo; r += base == 0) {
				unsigned to = base + r / 2;
				struct iomap_dense x = rows[r];

				if (to == r || !x.count)
					continue;
				rows[r].count = rows[r].sectors = 0;
				dense_add(&rows[to], x);
			}
		}
}

/* Double the window until sector falls inside it. */
static void widen_window(struct iomap *m, uint64_t sector)
{
	for (;;) {
		uint64_t span = m->row_sectors * IOMAP_ROWS;
		struct window_change w;

		if (sector >= m->lo_sector && sector - m->lo_sector < span)
			return;
		if (span > UINT64_MAX / 4)
			return;
		w.old_lo = m->lo_sector;
		w.old_rs = m->row_sectors;
		w.new_rs = w.old_rs * 2;
		w.new_lo = w.old_lo / (span * 2) * (span * 2);
		if (m->dense && m->rows_hi) {
			unsigned base = new_row(&w, 0);

			dense_rewindow(m, &w);
			m->rows_lo = base + m->rows_lo / 2;
			m->rows_hi = base + (m->rows_hi - 1) / 2 + 1;
		}
		sparse_rekey(m, key_rewindow, &w);
		m->lo_sector = w.new_lo;
		m->row_sectors = w.new_rs;
	}
}

void iomap_fix_window(struct iomap *m, uint64_t lo_sector,
		      uint64_t row_sectors)
{
	m->lo_sector = lo_sector;
	m->row_sectors = row_sectors ? row_sectors : 1;
	m->window_set = m->window_fixed = 1;
}

/* The row of sector; outside a fixed window, the nearest edge row. */
static unsigned row_of(struct iomap *m, uint64_t sector)
{
	uint64_t span;

	if (!m->window_set) {
		m->window_set = 1;
		m->row_sectors = FIRST_ROW_SECTORS;
		span = m->row_sectors * IOMAP_ROWS;
		m->lo_sector = sector / span * span;
	}
	if (!m->window_fixed)
		widen_window(m, sector);
	if (sector < m->lo_sector)
		return 0;
	if ((sector - m->lo_sector) / m->row_sectors >= IOMAP_ROWS)
		return IOMAP_ROWS - 1;
	return (unsigned)((sector - m->lo_sector) / m->row_sectors);
}

unsigned iomap_row_of(const struct iomap *m, uint64_t sector)
{
	if (sector > IOMAP_MAX_SECTOR)
		sector = IOMAP_MAX_SECTOR;
	if (!m->window_set || sector < m->lo_sector)
		return 0;
	if ((sector - m->lo_sector) / m->row_sectors >= IOMAP_ROWS)
		return IOMAP_ROWS - 1;
	return (unsigned)((sector - m->lo_sector) / m->row_sectors);
}

int iomap_add(struct iomap *m, size_t col, uint64_t sector, int dir,
	      long tag_slot, uint32_t bytes)
{
	unsigned row = row_of(m, sector < IOMAP_MAX_SECTOR ? sector :
				 IOMAP_MAX_SECTOR);
	uint64_t sectors = (bytes + 511) / 512;
	size_t i;

	if (col >= IOMAP_COLS)
		col = IOMAP_COLS - 1;
	if (tag_slot >= 0)
		return sparse_add(m, cell_key(col, row, dir, tag_slot), 1,
				  sectors);
	if (!m->dense &&
	    !(m->dense = bigmem_lazy_calloc(DENSE_CELLS * sizeof(*m->dense))))
		return -1;
	/* a direction's pages mapped ahead, a chunk of its columns at a
	 * time (columns mostly come in order) */
	map_col(m, dir, col);
	if (col >= m->cols_used)
		m->cols_used = col + 1;
	if (!m->rows_hi || row < m->rows_lo)
		m->rows_lo = row;
	if (row >= m->rows_hi)
		m->rows_hi = row + 1;
	/*
	 * A column's cells come into the cache as a whole just before I/O
	 * lands in them: random rows would otherwise each wait for memory
	 * (a column is 32 lines apart from the next one's).
	 */
	if (col != m->warm_col[dir]) {
		const char *c = (const char *)(m->dense +
					       column_index(dir, col, 0));
		size_t k;

		for (k = 0; k < 2 * IOMAP_ROWS * sizeof(*m->dense) &&
			    col + k / (IOMAP_ROWS * sizeof(*m->dense)) <
				    IOMAP_COLS;
		     k += 64)
			__builtin_prefetch(c + k, 1, 2);
		m->warm_col[dir] = col;
	}
	i = column_index(dir, col, row);
	m->dense[i].count = add_sat(m->dense[i].count, 1);
	m->dense[i].sectors = add_sat(m->dense[i].sectors, sectors);
	return 0;
}

static uint64_t key_merge_cols(uint64_t key, const void *arg)
{
	struct iomap_point p;

	key_decode(key, &p);
	return cell_key(p.col / *(const unsigned *)arg, p.row, p.dir,
			p.tag_slot == SIZE_MAX ? -1 : (long)p.tag_slot);
}

/*
 * Column out becomes the sum of columns out * f ... out * f + f - 1
 * (each column's rows side by side: the loops run along them). Columns
 * not mapped hold zeros: they are neither read nor cleared, and a column
 * is mapped only to receive I/O.
 */
static void dense_merge_cols(struct iomap *m, unsigned f)
{
	struct iomap_dense *v = m->dense;
	unsigned r, lo = m->rows_lo, hi = m->rows_hi;
	size_t c, out, k, end;
	int d;

	for (d = 0; d < IOMAP_DIRS; d++) {
		for (c = 0, out = 0; c < m->cols_used; c += f, out++) {
			struct iomap_dense *to = v + column_index(d, out, 0);
			int any = 0;

			end = c + f < m->cols_used ? c + f : m->cols_used;
			for (k = c; k < end; k++)
				any |= col_mapped(m, d, k);
			if (!any) {
				/* what out held went into an earlier column */
				if (out != c && col_mapped(m, d, out))
					memset(to + lo, 0, (hi - lo) * sizeof(*v));
				continue;
			}
			map_col(m, d, out);
			if (c != out && col_mapped(m, d, c))
				memcpy(to + lo, v + column_index(d, c, lo),
				       (hi - lo) * sizeof(*v));
			else if (c != out)
				memset(to + lo, 0, (hi - lo) * sizeof(*v));
			for (k = c + 1; k < end; k++) {
				const struct iomap_dense *from =
					v + column_index(d, k, 0);

				if (!col_mapped(m, d, k))
					continue;
				for (r = lo; r < hi; r++)
					dense_add(&to[r], from[r]);
			}
		}
		for (c = out; c < m->cols_used; c++)
			if (col_mapped(m, d, c))
				memset(v + column_index(d, c, lo), 0,
				       (hi - lo) * sizeof(*v));
	}
}

void iomap_merge_cols(struct iomap *m, unsigned f)
{
	if (f < 2)
		return;
	if (m->dense) {
		dense_merge_cols(m, f);
		m->cols_used = (m->cols_used + f - 1) / f;
	}
	sparse_rekey(m, key_merge_cols, &f);
}

int iomap_next(const struct iomap *m, size_t *pos, struct iomap_point *p)
{
	/* Dense cells first, row by row, then the sparse table. */
	while (m->dense && *pos < DENSE_CELLS) {
		size_t i = (*pos)++, row = i / IOMAP_COLS % IOMAP_ROWS;
		size_t col = i % IOMAP_COLS, d = i / IOMAP_COLS / IOMAP_ROWS;
		const struct iomap_dense *x;

		/* past the used rows or columns: on to the next used cell */
		if (row < m->rows_lo || row >= m->rows_hi ||
		    col >= m->cols_used || !col_mapped(m, (int)d, col)) {
			if (row < m->rows_lo)
				*pos = dense_index((int)d, m->rows_lo, 0);
			else if (row >= m->rows_hi)
				*pos = dense_index((int)d + 1, 0, 0);
			else if (col >= m->cols_used)
				*pos = (i / IOMAP_COLS + 1) * IOMAP_COLS;
			else	/* to the next chunk, or row */
				*pos = i / IOMAP_COLS * IOMAP_COLS +
				       (col / CHUNK_COLS + 1) * CHUNK_COLS;
			continue;
		}
		x = &m->dense[column_index((int)d, col, (unsigned)row)];
		if (!x->count)
			continue;
		p->col = col;
		p->row = (unsigned)row;
		p->dir = (int)d;
		p->tag_slot = SIZE_MAX;
		p->count = x->count;
		p->bytes = (uint64_t)x->sectors * 512;
		return 1;
	}
	while (*pos - (m->dense ? DENSE_CELLS : 0) < m->cap) {
		size_t i = (*pos)++ - (m->dense ? DENSE_CELLS : 0);

		if (!m->cells[i].count)
			continue;
		key_decode(m->cells[i].key, p);
		p->count = m->cells[i].count;
		p->bytes = (uint64_t)m->cells[i].sectors * 512;
		return 1;
	}
	return 0;
}

int iomap_rows_held(const struct iomap *m, unsigned *lo, unsigned *hi)
{
	int any = 0;
	size_t i;

	if (m->dense && m->rows_hi) {
		*lo = m->rows_lo;
		*hi = m->rows_hi - 1;
		any = 1;
	}
	for (i = 0; i < m->cap; i++) {
		struct iomap_point p;

		if (!m->cells[i].count)
			continue;
		key_decode(m->cells[i].key, &p);
		if (!any || p.row < *lo)
			*lo = p.row;
		if (!any || p.row > *hi)
			*hi = p.row;
		any = 1;
	}
	return any;
}

void iomap_row_bytes(const struct iomap *m, unsigned row, uint64_t *lo,
		     uint64_t *hi)
{
	*lo = (m->lo_sector + (uint64_t)row * m->row_sectors) * 512;
	*hi = *lo + m->row_sectors * 512;
}

void iomap_free(struct iomap *m)
{
	bigmem_free(m->dense);
	free(m->cells);
	memset(m, 0, sizeof(*m));
}
