/*
 * event.h: one decoded trace event, the unit that flows through the
 * pipeline: reader -> tagger -> analysis. Fields are host byte order,
 * whatever the trace's byte order or record version was.
 */
#ifndef IOWATCHER_EVENT_H
#define IOWATCHER_EVENT_H

#include <stdint.h>

#define IO_EVENT_NO_TAG		(-1)

struct io_event {
	uint64_t time_ns;	/* counted from the trace's first event */
	uint64_t sector;
	uint32_t sequence;
	uint32_t bytes;
	uint32_t action;	/* v7 layout: code in low 16, categories high */
	/* a version-8 record's action bits 32-63 (enum blk_category2:
	 * zone append, zone management, write-zeroes); 0 from version 7 */
	uint32_t action_hi;
	uint32_t pid;
	uint32_t device;
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;
	int32_t tag;		/* set by a tagger; IO_EVENT_NO_TAG if none */
	/* a QUEUE's cause: an id in the trace's cause table (cause.h),
	 * 0: none known */
	uint32_t cause;
	const unsigned char *pdu; /* payload; valid until the next event */
	uint64_t index;		/* event number in the trace, from 0 */
};

#endif
