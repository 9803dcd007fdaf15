/*
 * ftrace_raw.h: the kernel's ftrace ring buffer as per_cpu/cpuN/
 * trace_pipe_raw hands it out, one page of one CPU per read: the page's
 * header (laid out as events/header_page says), its events with the
 * times the ring buffer gives them, the events the kernel overwrote
 * before the page was read, and the 'blk' tracer's entry in an event.
 * Reading the pages costs the traced workload far less than the merged
 * trace_pipe, which formats every event in the kernel (bench/README.md).
 */
#ifndef IOWATCHER_FTRACE_RAW_H
#define IOWATCHER_FTRACE_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "reader/blktrace.h"
#include "base/error.h"

/* Where a page's fields are, from events/header_page. */
struct ftrace_page_layout {
	size_t time_offset;	/* u64: the time of the page's first event */
	size_t commit_offset;	/* local_t: the data's length, loss flags */
	size_t commit_size;	/* 8 (4 on 32-bit kernels) */
	size_t data_offset;	/* the events */
};

/*
 * Parses events/header_page, whose lines read
 *   field: u64 timestamp;	offset:0;	size:8;	signed:0;
 * Fails (one line in err) if a field is missing or out of bounds.
 */
int ftrace_page_layout_parse(const char *text,
			     struct ftrace_page_layout *l,
			     struct iow_error *err);

/* One page being read, and what it says of events before it. */
struct ftrace_page {
	uint64_t time;		/* the page's timestamp */
	int missed;		/* the kernel overwrote events before it */
	int missed_known;	/* and said how many: */
	uint64_t missed_count;
	size_t data_len;	/* bytes of events (the commit) */
	/* the walk */
	const unsigned char *data;
	size_t header_len;	/* the data's offset in the page */
	size_t pos;
	uint64_t now;		/* the time so far */
};

/* One event of the page: its time and data. */
struct ftrace_event {
	uint64_t time;
	const unsigned char *data;
	size_t len;		/* rounded up to 4 bytes by the ring */
	size_t offset;		/* of its header in the page, for errors */
};

/*
 * Opens a page of size bytes (a whole sub-buffer as read). Fails if its
 * commit says more data than the page holds.
 */
int ftrace_page_open(struct ftrace_page *p, const struct ftrace_page_layout *l,
		     const void *page, size_t size, struct iow_error *err);
/*
 * The page's next data event, its time from the page's timestamp, the
 * deltas, time extends and absolute stamps before it: 1; 0 at the end
 * of the page's data; -1 (err says at what offset) if an event's
 * header runs past the data.
 */
int ftrace_page_next(struct ftrace_page *p, struct ftrace_event *ev,
		     struct iow_error *err);

/* The event's type: its struct trace_entry's first field (u16). */
uint16_t ftrace_event_type(const struct ftrace_event *ev);

/*
 * The 'blk' tracer's entry (kernel/trace/blktrace.c): a version-7
 * struct blk_io_trace and its payload, whose first 8 bytes (magic and
 * sequence) are the event's struct trace_entry and whose time is not
 * filled in. Fills t as blktrace's files want it (magic, the event's
 * time, cpu) and points pdu at the payload; -1 (err) when the event's
 * length is not that of such a record.
 */
int ftrace_blk_entry(const struct ftrace_event *ev, uint32_t cpu,
		     struct blk_io_trace *t, const unsigned char **pdu,
		     struct iow_error *err);

/*
 * ftrace_blk_entry for either layout the kernel's blk tracer writes: a
 * version-7 struct blk_io_trace (48 bytes, to Linux 6.18) or, where the
 * kernel has zoned-device blktrace (late 2025: "blktrace: move ftrace
 * blk_io_tracer to blk_io_trace2"), a struct blk_io_trace2 (64 bytes,
 * 64-bit action). The kernel describes the entry nowhere in tracefs (the
 * blk tracer's events have no format file), so each entry's layout is
 * the one its length and payload length fit. t gets the fields as a
 * version-7 record, action_hi the action's bits 32-63 (0 from v7),
 * version BLK_IO_TRACE_VERSION7 or 8.
 */
int ftrace_blk_entry_v(const struct ftrace_event *ev, uint32_t cpu,
		       struct blk_io_trace *t, uint32_t *action_hi,
		       int *version, const unsigned char **pdu,
		       struct iow_error *err);

#endif
