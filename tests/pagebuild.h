/*
 * pagebuild.h: writing the kernel's ftrace ring-buffer pages by hand for
 * tests, laid out as a 64-bit kernel's events/header_page says (u64
 * timestamp at 0, an 8-byte commit at 8, the events from 16, 4 KiB in
 * all): data events with a header word or a length word, time extends,
 * absolute stamps, padding, the lost-events flags and count.
 */
#ifndef IOWATCHER_PAGEBUILD_H
#define IOWATCHER_PAGEBUILD_H

#include <stdint.h>
#include <string.h>

#include "reader/blktrace.h"

#define PB_PAGE_SIZE	4096
#define PB_DATA		16
#define PB_TYPE_PADDING	29
#define PB_TYPE_EXTEND	30
#define PB_TYPE_STAMP	31
#define PB_MISSED	(1u << 31)
#define PB_MISSED_STORED (1u << 30)

/* events/header_page as Linux 6.18 prints it on x86-64 */
#define PB_HEADER_PAGE \
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" \
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" \
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" \
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"

struct pagebuild {
	unsigned char page[PB_PAGE_SIZE];
	size_t len;		/* bytes of events so far */
};

static inline void pb_init(struct pagebuild *b, uint64_t time)
{
	memset(b, 0, sizeof(*b));
	memcpy(b->page, &time, sizeof(time));
}

static inline void pb_word(struct pagebuild *b, uint32_t w)
{
	memcpy(b->page + PB_DATA + b->len, &w, sizeof(w));
	b->len += 4;
}

static inline void pb_header(struct pagebuild *b, unsigned type_len,
			     uint32_t delta)
{
	pb_word(b, type_len | delta << 5);
}

/* A data event: its length in the header when it fits (len a multiple
 * of 4, up to 112), else in a length word, as the kernel chooses. */
static inline void pb_event(struct pagebuild *b, uint32_t delta,
			    const void *data, size_t len, int length_word)
{
	size_t padded = (len + 3) & ~(size_t)3;

	if (length_word) {
		pb_header(b, 0, delta);
		pb_word(b, (uint32_t)padded + 4);
	} else {
		pb_header(b, (unsigned)(padded / 4), delta);
	}
	memcpy(b->page + PB_DATA + b->len, data, len);
	b->len += padded;
}

/* The blk tracer's event: a v7 record whose first bytes are the
 * trace_entry (type, flags, preempt count, pid), time left unset. */
static inline void pb_blk(struct pagebuild *b, uint32_t delta,
			  uint16_t type, const struct blk_io_trace *t,
			  const void *pdu, int length_word)
{
	unsigned char data[sizeof(*t) + 256];
	struct blk_io_trace rec = *t;

	rec.magic = 0;
	rec.sequence = rec.pid;
	rec.time = 0xdeadbeefdeadbeefULL;	/* not filled in */
	memcpy(data, &rec, sizeof(rec));
	memcpy(data, &type, sizeof(type));
	if (t->pdu_len)
		memcpy(data + sizeof(rec), pdu, t->pdu_len);
	pb_event(b, delta, data, sizeof(rec) + t->pdu_len, length_word);
}

static inline void pb_time_extend(struct pagebuild *b, uint64_t delta)
{
	pb_header(b, PB_TYPE_EXTEND, (uint32_t)(delta & ((1u << 27) - 1)));
	pb_word(b, (uint32_t)(delta >> 27));
}

static inline void pb_time_stamp(struct pagebuild *b, uint64_t abs)
{
	pb_header(b, PB_TYPE_STAMP, (uint32_t)(abs & ((1u << 27) - 1)));
	pb_word(b, (uint32_t)(abs >> 27));
}

/* A discarded event: padding of len bytes after its header. */
static inline void pb_discarded(struct pagebuild *b, uint32_t delta,
				uint32_t len)
{
	pb_header(b, PB_TYPE_PADDING, delta);
	pb_word(b, len);
	b->len += len - 4;
}

/* The commit word: the events' length, flags, the count after them. */
static inline void pb_finish(struct pagebuild *b, uint32_t flags,
			     uint64_t missed)
{
	uint64_t commit = b->len | flags;

	memcpy(b->page + 8, &commit, sizeof(commit));
	if (flags & PB_MISSED_STORED)
		memcpy(b->page + PB_DATA + b->len, &missed, sizeof(missed));
}

#endif
