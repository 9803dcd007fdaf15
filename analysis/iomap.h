/*
 * iomap.h: the offset-by-time map of one device: how many I/Os (and how
 * many sectors) of each direction, and of each tag when tagging, landed in
 * each cell of IOMAP_COLS time columns by IOMAP_ROWS offset rows. It is
 * what the io graph, the offset heat map, the movies and the CSV export
 * draw from.
 *
 * Untagged I/O goes in a dense array, so the map's size is fixed at
 * N_DIRS x IOMAP_ROWS x IOMAP_COLS x 8 bytes (4 MiB) per device however
 * long the trace. Tagged I/O goes in a sparse table keyed by cell and tag.
 * The dense array holds a column's rows together: I/O at random offsets
 * lands in the 2 KiB of the current column, not in rows 8 KiB apart
 * (iomap_next still gives the cells row by row).
 * The offset window starts around the first I/O and doubles (rows merging
 * pairwise) when I/O lands outside it, unless -y fixed it.
 */
#ifndef IOWATCHER_IOMAP_H
#define IOWATCHER_IOMAP_H

#include <stddef.h>
#include <stdint.h>

#define IOMAP_ROWS	256
#define IOMAP_COLS	1024
#define IOMAP_DIRS	2
/*
 * The last sector the map places: byte offsets stay below 2^63 (a
 * device's size is a loff_t), so rows in bytes never overflow. A sector
 * beyond, which only a corrupt trace has, is drawn at this edge.
 */
#define IOMAP_MAX_SECTOR	((1ull << 54) - 1)

struct iomap_dense {
	uint32_t count, sectors;
};

struct iomap_cell {
	uint64_t key;		/* column, row, direction and tag slot */
	uint32_t count;		/* 0: the slot is free */
	uint32_t sectors;
};

struct iomap {
	uint64_t lo_sector;	/* row r covers lo + r * row_sectors ... */
	uint64_t row_sectors;
	int window_set, window_fixed;
	struct iomap_dense *dense;	/* [dir][col][row], NULL until used */
	uint32_t chunks_mapped[IOMAP_DIRS];	/* bit k: columns 32k .. 32k+31 */
	size_t cols_used;	/* dense columns 0 .. cols_used - 1 hold I/O */
	size_t warm_col[IOMAP_DIRS];	/* the column last brought to cache */
	unsigned rows_lo, rows_hi;	/* and rows rows_lo .. rows_hi - 1 */
	struct iomap_cell *cells;	/* sparse, for tagged I/O */
	size_t cap, len;		/* len: the cells in use */
};

/* One non-empty cell, as iomap_next gives it. */
struct iomap_point {
	size_t col;
	unsigned row;
	int dir;
	size_t tag_slot;	/* SIZE_MAX: untagged (dense) */
	uint32_t count;
	uint64_t bytes;
};

/* Fix the window (for -y): rows of row_sectors from lo_sector. */
void iomap_fix_window(struct iomap *m, uint64_t lo_sector,
		      uint64_t row_sectors);
/*
 * Count one I/O of bytes at sector in column col. tag_slot < 0 for
 * untagged I/O. Returns -1 when out of memory.
 */
int iomap_add(struct iomap *m, size_t col, uint64_t sector, int dir,
	      long tag_slot, uint32_t bytes);
/* Merge every f columns into one (the time bins were widened). */
void iomap_merge_cols(struct iomap *m, unsigned f);
/* The next non-empty cell from *pos (start at 0): by direction, row and
 * column, then the tagged ones; 0 when done. */
int iomap_next(const struct iomap *m, size_t *pos, struct iomap_point *p);

/* The row sector falls in, in the window as it is (no widening). */
unsigned iomap_row_of(const struct iomap *m, uint64_t sector);
/* Offset range of row r in bytes. */
/* The lowest and highest rows holding I/O; 0 when none does. */
int iomap_rows_held(const struct iomap *m, unsigned *lo, unsigned *hi);

void iomap_row_bytes(const struct iomap *m, unsigned row, uint64_t *lo,
		     uint64_t *hi);
void iomap_free(struct iomap *m);

#endif
