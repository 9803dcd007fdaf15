/*
 * blkrec.h: a blktrace record's bytes (blktrace.h: version 7 or 8, either
 * byte order) to a host-order struct io_event, the one decoder every
 * stage that reads records uses: the front door's merge
 * (blkparse_feed.c), the look at the files' ends (feed_ends.c), the live
 * view's queued records, and the payloads the analysis and the tag stage
 * look inside (remaps, splits, notes' text). The loaders are inline: the
 * merge's loop is specialised by version and byte order, constants where
 * it is inlined.
 */
#ifndef IOWATCHER_READER_BLKREC_H
#define IOWATCHER_READER_BLKREC_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "blktrace.h"
#include "event.h"

/* A value of 2, 4 or 8 bytes at p, in the other byte order if swap. */
static inline uint16_t blkrec_load16(const unsigned char *p, int swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t blkrec_load32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t blkrec_load64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* A record's fields at their offsets: its magic, time, payload length
 * and the low half of its action, for version 7 (v7) or 8. */
static inline uint32_t blkrec_magic(const unsigned char *p, int swap)
{
	return blkrec_load32(p, swap);
}

static inline uint64_t blkrec_time(const unsigned char *p, int swap)
{
	return blkrec_load64(p + 8, swap);
}

static inline size_t blkrec_pdu_len(const unsigned char *p, int v7, int swap)
{
	return blkrec_load16(p + (v7 ? 46 : 50), swap);
}

static inline uint32_t blkrec_action(const unsigned char *p, int v7,
				     int swap)
{
	return blkrec_load32(p + (v7 ? 28 : 32), swap);
}

/*
 * A record's fields into ev, all but its time (the caller's to set,
 * from the trace's time 0) and payload pointer: for a version (v7) and
 * byte order (sw) that callers in a hot loop make constants.
 */
static inline void blkrec_decode_fields(const unsigned char *p,
					struct io_event *ev, const int v7,
					const int sw)
{
	ev->sequence = blkrec_load32(p + 4, sw);
	ev->sector = blkrec_load64(p + 16, sw);
	ev->bytes = blkrec_load32(p + 24, sw);
	if (v7) {
		ev->action = blkrec_load32(p + 28, sw);
		ev->action_hi = 0;
		ev->pid = blkrec_load32(p + 32, sw);
		ev->device = blkrec_load32(p + 36, sw);
		ev->cpu = blkrec_load32(p + 40, sw);
		ev->error = blkrec_load16(p + 44, sw);
		ev->pdu_len = blkrec_load16(p + 46, sw);
	} else {
		uint64_t action;

		ev->pid = blkrec_load32(p + 28, sw);
		action = blkrec_load64(p + 32, sw);
		ev->action = (uint32_t)action;
		ev->action_hi = (uint32_t)(action >> 32);
		ev->device = blkrec_load32(p + 40, sw);
		ev->cpu = blkrec_load32(p + 44, sw);
		ev->error = blkrec_load16(p + 48, sw);
		ev->pdu_len = blkrec_load16(p + 50, sw);
	}
	ev->tag = IO_EVENT_NO_TAG;
	ev->cause = 0;
}

/* The whole record at p into ev: its fields, its time as recorded, its
 * payload (the bytes after the header, or NULL). */
static inline void blkrec_decode(const unsigned char *p, struct io_event *ev,
				 int v7, int swap)
{
	blkrec_decode_fields(p, ev, v7, swap);
	ev->time_ns = blkrec_time(p, swap);
	ev->pdu = ev->pdu_len ?
		  p + (v7 ? BLK_IO_TRACE7_SIZE : BLK_IO_TRACE8_SIZE) : NULL;
}

/* Decode a REMAP payload; 0 on success, -1 if the payload is too short. */
int feed_decode_remap(const struct io_event *ev, uint32_t *from_dev,
		      uint32_t *to_dev, uint64_t *from_sector);
/* Decode a SPLIT payload: where the remainder starts; -1 if too short. */
int feed_decode_split(const struct io_event *ev, uint64_t *rest_sector);
/* The process name of a PROCESS note (not NUL-terminated if cut short). */
size_t feed_note_text(const struct io_event *ev, const char **text);

/*
 * The wall clock of a TIMESTAMP note (two u32, seconds and nanoseconds,
 * in the trace's byte order, swap): 1 and *wall_ns (since the epoch)
 * when ev is one and holds a time; else 0.
 */
int blkrec_timestamp(const struct io_event *ev, int swap, int64_t *wall_ns);

/* "Input file DIR/NAME.blktrace.N added\n": a path and the words. */
#define BLKREC_ADDED_LINE_MAX	(PATH_MAX + 32)

/*
 * blkparse -d - writes a line "Input file NAME.blktrace.N added" to its
 * standard output for each per-CPU file it opens (-q does not stop it),
 * between the notes it copies while it opens them: all before the first
 * record that is not a note. If p[0, have) starts with such a line,
 * whole, returns its length; else 0, with *more set if more bytes could
 * make it one.
 */
size_t blkrec_added_line_len(const unsigned char *p, size_t have, int *more);

/* Whether p[0, have) starts as a blkparse -d dump: a record's magic in
 * either byte order, after blkparse's "Input file" lines if any. */
int blkrec_starts_dump(const unsigned char *p, size_t have);

#endif
