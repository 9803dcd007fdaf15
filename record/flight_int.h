/*
 * flight_int.h: what the flight recorder (flight.c) shares with the
 * compact form of its held records (flight_compact.c): the chunks the
 * records are held in, the table of the actions seen, and the encoding
 * and decoding of one record. flight.c calls flight_compact.c, never
 * the other way.
 */
#ifndef IOWATCHER_FLIGHT_INT_H
#define IOWATCHER_FLIGHT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "reader/blktrace.h"

#define FLIGHT_COMPACT_MAX	64	/* the most one record takes in its
					 * compact form, payload aside */

/* Records in the order they were taken, compact (flight_encode). */
struct flight_chunk {
	struct flight_chunk *next;
	size_t len, cap;
	uint64_t min_ns, max_ns;
	uint64_t records;
	uint64_t base_ns;		/* the first record's time */
	uint64_t last_ns;		/* the encoding's: the record before */
	uint32_t last_pid;
	unsigned char data[];
};

/* The actions seen, numbered from 1 in the order seen. */
struct flight_actions {
	uint32_t *actions;
	size_t n, cap;
	uint32_t *slots;		/* hash: action -> its number */
	size_t slots_cap;
};

void flight_actions_free(struct flight_actions *a);

/* The device's index in devices[n_devs], or -1. */
int flight_dev_index(const uint32_t *devices, size_t n_devs, uint32_t dev);

/* t at p, the end of c (room for FLIGHT_COMPACT_MAX + its payload), in
 * its compact form: the end of that form. */
unsigned char *flight_encode(struct flight_actions *a,
			     const uint32_t *devices, size_t n_devs,
			     struct flight_chunk *c,
			     const struct blk_io_trace *t, unsigned char *p);

/* The record at *pos of c into t and its payload (*pdu, in the chunk):
 * 0, or -1 at the chunk's end (or a form not of ours: cannot be). */
int flight_decode(const struct flight_actions *a, const uint32_t *devices,
		  size_t n_devs, const struct flight_chunk *c, size_t *pos,
		  uint64_t *last_ns, uint32_t *last_pid,
		  struct blk_io_trace *t, const unsigned char **pdu);

#endif
