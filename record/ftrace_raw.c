/*
 * ftrace_raw.c: reading the kernel's ring-buffer pages (ftrace_raw.h),
 * as kernel/trace/ring_buffer.c writes them and its own reader walks
 * them (rb_update_read_stamp: the times).
 *
 * An event starts with a 32-bit word, type_len:5 and time_delta:27 (the
 * nanoseconds since the previous event; the first counts from the page's
 * timestamp). type_len 1-28: 4 x type_len bytes of data follow; 0: a
 * word with the data's length (itself included) follows, then the data;
 * 29: padding, the rest of the page when time_delta is 0, else a
 * discarded event of the length in the next word (its time the clock
 * never had: the kernel's reader skips it, so does this one); 30: a time
 * extend, the next word the delta's high bits; 31: an absolute
 * timestamp, likewise.
 */
#include <stdio.h>
#include <string.h>

#include "ftrace_raw.h"

#define TYPE_LEN_MAX		28
#define TYPE_PADDING		29
#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP		31
#define TS_SHIFT		27
#define TS_MSB			(0xf8ULL << 56)	/* beyond an absolute stamp */
#define MISSED_EVENTS		(1u << 31)	/* in the commit word */
#define MISSED_STORED		(1u << 30)	/* the count after the data */
#define COMMIT_LENGTH		(MISSED_STORED - 1)
#define FIELD_NAME_MAX		64

/* ---- events/header_page ---- */

struct header_field {
	const char *name;
	size_t *offset, *size;
};

/* "	field: u64 timestamp;	offset:0;	size:8;	signed:0;" */
static int parse_field_line(const char *line, char *name, size_t *offset,
			    size_t *size)
{
	char decl[FIELD_NAME_MAX];
	const char *last;

	if (sscanf(line, " field: %63[^;]; offset:%zu; size:%zu;", decl,
		   offset, size) != 3)
		return -1;
	last = strrchr(decl, ' ');
	snprintf(name, FIELD_NAME_MAX, "%s", last ? last + 1 : decl);
	return 0;
}

/* Fills the fields of l that text names; the others stay as they were. */
static void parse_fields(const char *text, const struct header_field *f,
			 size_t n_fields)
{
	char name[FIELD_NAME_MAX];
	size_t offset, size, i;
	const char *line;

	for (line = text; line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (parse_field_line(line, name, &offset, &size))
			continue;
		for (i = 0; i < n_fields; i++) {
			if (strcmp(name, f[i].name))
				continue;
			*f[i].offset = offset;
			*f[i].size = size;
		}
	}
}

int ftrace_page_layout_parse(const char *text,
			     struct ftrace_page_layout *l,
			     struct iow_error *err)
{
	size_t time_size = 0, data_size = 0;
	struct header_field fields[] = {
		{ "timestamp", &l->time_offset, &time_size },
		{ "commit", &l->commit_offset, &l->commit_size },
		{ "data", &l->data_offset, &data_size },
	};

	memset(l, 0, sizeof(*l));
	parse_fields(text, fields, sizeof(fields) / sizeof(fields[0]));
	if (time_size != 8 || (l->commit_size != 4 && l->commit_size != 8) ||
	    !data_size)
		return iow_fail(err, "events/header_page: no u64 timestamp, "
				"4- or 8-byte commit and data fields in it");
	if (l->time_offset + 8 > l->data_offset ||
	    l->commit_offset + l->commit_size > l->data_offset)
		return iow_fail(err, "events/header_page: the timestamp or "
				"commit field overlaps the data (at %zu)",
				l->data_offset);
	return 0;
}

/* ---- a page ---- */

static uint64_t read_word(const unsigned char *p, size_t size)
{
	uint32_t w32;
	uint64_t w64;

	if (size == 4) {
		memcpy(&w32, p, sizeof(w32));
		return w32;
	}
	memcpy(&w64, p, sizeof(w64));
	return w64;
}

int ftrace_page_open(struct ftrace_page *p, const struct ftrace_page_layout *l,
		     const void *page, size_t size, struct iow_error *err)
{
	const unsigned char *bytes = page;
	size_t room = size > l->data_offset ? size - l->data_offset : 0;
	uint32_t commit;

	memset(p, 0, sizeof(*p));
	if (!room)
		return iow_fail(err, "a page of %zu bytes: no room for its "
				"header (%zu bytes)", size, l->data_offset);
	memcpy(&p->time, bytes + l->time_offset, sizeof(p->time));
	commit = (uint32_t)read_word(bytes + l->commit_offset,
				     l->commit_size);
	p->data = bytes + l->data_offset;
	p->header_len = l->data_offset;
	p->data_len = commit & COMMIT_LENGTH;
	p->missed = !!(commit & MISSED_EVENTS);
	if (p->data_len > room)
		return iow_fail(err, "a page whose commit says %zu bytes of "
				"events, of %zu it can hold", p->data_len,
				room);
	if (!p->missed || !(commit & MISSED_STORED))
		goto walk;
	/* the count, where the kernel had room for it after the data */
	if (p->data_len + l->commit_size > room)
		return iow_fail(err, "a page whose lost-events count lies "
				"beyond it");
	p->missed_known = 1;
	p->missed_count = read_word(p->data + p->data_len, l->commit_size);
walk:
	p->now = p->time;
	return 0;
}

/* An absolute stamp holds 59 bits; the top ones are the clock's now. */
static uint64_t absolute_time(uint64_t stamp, uint64_t now)
{
	if (!(now & TS_MSB))
		return stamp;
	stamp |= now & TS_MSB;
	return stamp < now ? stamp + (1ULL << 59) : stamp;
}

static int past_the_data(const struct ftrace_page *p, size_t at,
			 struct iow_error *err)
{
	return iow_fail(err, "the event at byte %zu of a page runs past its "
			"%zu bytes of data", p->header_len + at, p->data_len);
}

int ftrace_page_next(struct ftrace_page *p, struct ftrace_event *ev,
		     struct iow_error *err)
{
	uint32_t word, array0 = 0, delta;
	unsigned type_len;
	size_t at, step;

	while (p->pos + 4 <= p->data_len) {
		at = p->pos;
		memcpy(&word, p->data + at, sizeof(word));
		type_len = word & 0x1f;
		delta = word >> 5;
		if (type_len == TYPE_PADDING && !delta)
			break;		/* nothing more on this page */
		if (type_len == 0 || type_len > TYPE_LEN_MAX) {
			if (at + 8 > p->data_len)
				return past_the_data(p, at, err);
			memcpy(&array0, p->data + at + 4, sizeof(array0));
		}
		switch (type_len) {
		case TYPE_PADDING:
			step = 4 + (size_t)array0;
			break;
		case TYPE_TIME_EXTEND:
			p->now += ((uint64_t)array0 << TS_SHIFT) + delta;
			step = 8;
			break;
		case TYPE_TIME_STAMP:
			p->now = absolute_time(((uint64_t)array0 << TS_SHIFT) +
					       delta, p->now);
			step = 8;
			break;
		case 0:
			if (array0 < 4)
				return past_the_data(p, at, err);
			step = 4 + (size_t)array0;
			ev->data = p->data + at + 8;
			ev->len = array0 - 4;
			break;
		default:
			step = 4 + 4 * (size_t)type_len;
			ev->data = p->data + at + 4;
			ev->len = 4 * (size_t)type_len;
			break;
		}
		if (at + step > p->data_len) {
			if (type_len == TYPE_PADDING)
				break;	/* the page's tail */
			return past_the_data(p, at, err);
		}
		p->pos = at + step;
		if (type_len > TYPE_LEN_MAX)
			continue;
		p->now += delta;
		ev->time = p->now;
		ev->offset = p->header_len + at;
		return 1;
	}
	p->pos = p->data_len;
	return 0;
}

/* ---- the blk tracer's entry ---- */

uint16_t ftrace_event_type(const struct ftrace_event *ev)
{
	uint16_t type;

	memcpy(&type, ev->data, sizeof(type));	/* every event has 4 bytes */
	return type;
}

/* The entry's payload length at pdu_at, if a record of size bytes and
 * that payload fills the event as the ring lays it out (rounded up to 4
 * or 8 bytes, no more); else -1. */
static long entry_pdu_len(const struct ftrace_event *ev, size_t size,
			  size_t pdu_at)
{
	uint16_t pdu_len;

	if (ev->len < size)
		return -1;
	memcpy(&pdu_len, ev->data + pdu_at, sizeof(pdu_len));
	if (size + pdu_len > ev->len || ev->len - (size + pdu_len) >= 8)
		return -1;
	return pdu_len;
}

/* A version-2 entry's fields (struct blk_io_trace2: pid before a 64-bit
 * action, 12 bytes of padding) as a version-7 record and the action's
 * upper half. */
static void entry_v2(const unsigned char *p, struct blk_io_trace *t,
		     uint32_t *action_hi)
{
	uint64_t action;

	memset(t, 0, sizeof(*t));
	memcpy(&t->sector, p + 16, 8);
	memcpy(&t->bytes, p + 24, 4);
	memcpy(&t->pid, p + 28, 4);
	memcpy(&action, p + 32, 8);
	memcpy(&t->device, p + 40, 4);
	memcpy(&t->error, p + 48, 2);
	memcpy(&t->pdu_len, p + 50, 2);
	t->action = (uint32_t)action;
	*action_hi = (uint32_t)(action >> 32);
}

int ftrace_blk_entry_v(const struct ftrace_event *ev, uint32_t cpu,
		       struct blk_io_trace *t, uint32_t *action_hi,
		       int *version, const unsigned char **pdu,
		       struct iow_error *err)
{
	size_t size = BLK_IO_TRACE7_SIZE;

	/* A version-2 entry never fits the version-7 layout: v7's pdu_len
	 * falls on the upper half of v2's cpu, 0, and a 64-byte record is
	 * 16 bytes past 48. So v7 first, where a v7 record with a payload
	 * of 16 bytes or more may also fit v2's. */
	if (entry_pdu_len(ev, BLK_IO_TRACE7_SIZE, 46) >= 0) {
		memcpy(t, ev->data, sizeof(*t));
		*action_hi = 0;
		*version = BLK_IO_TRACE_VERSION7;
	} else if (entry_pdu_len(ev, BLK_IO_TRACE8_SIZE, 50) >= 0) {
		entry_v2(ev->data, t, action_hi);
		*version = BLK_IO_TRACE_VERSION8;
		size = BLK_IO_TRACE8_SIZE;
	} else {
		return iow_fail(err, "a blk event of %zu bytes at byte %zu of "
				"a page: neither the version-7 (48-byte) nor "
				"the version-2 (64-byte) layout of the blk "
				"tracer's entry", ev->len, ev->offset);
	}
	t->magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7;
	t->sequence = 0;
	t->time = ev->time;
	t->cpu = cpu;
	*pdu = ev->data + size;
	return 0;
}

int ftrace_blk_entry(const struct ftrace_event *ev, uint32_t cpu,
		     struct blk_io_trace *t, const unsigned char **pdu,
		     struct iow_error *err)
{
	uint32_t action_hi;
	int version;

	return ftrace_blk_entry_v(ev, cpu, t, &action_hi, &version, pdu, err);
}
