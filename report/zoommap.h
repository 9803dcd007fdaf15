/*
 * zoommap.h: the I/O map at a report's detail. A report zooms its io
 * graph and offset heat map from the whole run down to a few columns:
 * beside the analysis's own map (IOMAP_COLS columns), this keeps each
 * device's map in columns that start as wide as the caller says (a power
 * of ten) and widen (x2, x5, as the analysis's bins and map) only when
 * the cells outgrow a budget.
 * Fed by the analysis (analysis_config.on_map), in time order: a column
 * is gathered apart, then kept sorted (by column, row, direction, tag)
 * in one array per device, holding only the cells with I/O. Rows are the
 * analysis map's: each I/O takes the row that map gave it, and when that
 * map's window widens the cells kept move with it.
 */
#ifndef IOWATCHER_ZOOMMAP_H
#define IOWATCHER_ZOOMMAP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"


/* One cell: I/Os of a direction and tag in a column and row. */
struct zoom_cell {
	uint32_t col;
	uint16_t row;
	uint8_t dir;
	int32_t tag_slot;	/* -1: untagged */
	uint32_t count, sectors;
};

/* One device's cells, and the column being gathered. */
struct zoom_device {
	struct zoom_cell *cells;
	size_t n, cap;
	struct zoom_cell *cur;	/* the current column's, unsorted */
	size_t n_cur, cap_cur;
	uint32_t cur_col;
	uint64_t lo_sector, row_sectors;	/* the window of the rows */
};

struct zoommap {
	struct zoom_device *devs;	/* per device slot of the analysis */
	size_t n_devs;
	uint64_t origin_ns;	/* the analysis's bin 0 */
	uint64_t width_ns;	/* of a column */
	unsigned next_coarsen;	/* 2 or 5 */
	size_t cols;		/* columns up to the last I/O */
	size_t cells;		/* kept, over every device */
	size_t max_cells;	/* then columns widen */
	int failed;		/* out of memory: cells were lost */
};

void zoommap_init(struct zoommap *z, uint64_t first_width_ns,
		  size_t max_cells);
/* analysis_config.on_map, with the zoommap as its context. */
void zoommap_on_map(void *ctx, const struct analysis *a, size_t slot,
		    const struct io_event *ev, long tag_slot);
/* After the analysis: the columns being gathered join the rest. */
void zoommap_finish(struct zoommap *z);
/* Widens the columns one step (x2, then x5). */
void zoommap_coarsen(struct zoommap *z);
void zoommap_free(struct zoommap *z);

#endif
