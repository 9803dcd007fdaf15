/*
 * recnote.h: what a recording knew of where and when it ran, kept in the
 * trace as MESSAGE notes (action BLK_TC_ACT(BLK_TC_NOTIFY) |
 * BLK_TN_MESSAGE, pid 0) that our recorders write first, at the time
 * they start, each a NUL-terminated text (blkparse prints it) exactly
 *
 *   host NAME
 *   device MAJ,MIN is NAME
 *   clock CLOCK at T ns: boottime B ns, realtime R ns
 *
 * NAME the machine's (uname's nodename) or the device's (/dev/NAME), of
 * 1 to 64 bytes with no space or control character; CLOCK the clock the
 * trace's times are on (monotonic: blktrace's, BPF's ktime, ftrace's
 * "mono"; boottime), and T, B and R that clock, CLOCK_BOOTTIME and
 * CLOCK_REALTIME (since the epoch) read together, in decimal. With the
 * feed's origin (where time 0 is on the trace's clock and, from a
 * TIMESTAMP note, on the wall clock) they make struct trace_facts: what
 * the per-I/O log's host, device_name and wall_time columns and the
 * Perfetto trace's clock snapshot say. Formatting and parsing live here
 * together, for the recorders and the readers.
 */
#ifndef IOWATCHER_RECNOTE_H
#define IOWATCHER_RECNOTE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* The longest text, its NUL included. */
#define RECNOTE_TEXT_MAX	160
#define RECNOTE_NAME_MAX	64
#define RECNOTE_DEVICES_MAX	32

enum trace_clock {
	TRACE_CLOCK_UNKNOWN,
	TRACE_CLOCK_MONOTONIC,
	TRACE_CLOCK_BOOTTIME,
};

/* The clock snapshot: the trace's clock, boottime and realtime at once. */
struct recnote_clock {
	enum trace_clock clock;
	uint64_t trace_ns, boot_ns;
	int64_t real_ns;
};

struct trace_facts {
	char host[RECNOTE_NAME_MAX + 1];	/* "" when unknown */
	struct {
		uint32_t device;
		char name[RECNOTE_NAME_MAX + 1];
	} devices[RECNOTE_DEVICES_MAX];
	size_t n_devices;
	int has_clock;
	struct recnote_clock clock;
	/* time 0 on the trace's clock; on the wall clock where known */
	int has_origin, has_wall;
	int notes_off_clock;	/* a dump's: the snapshot is not usable */
	uint64_t origin_ns;
	int64_t wall_at_origin_ns;
};

/* The notes' texts, their NUL included in the length returned (the
 * record's pdu_len); 0 for a name that cannot be one (too long, empty,
 * a space or control character in it). */
uint16_t recnote_format_host(const char *host, char *text);
uint16_t recnote_format_device(uint32_t device, const char *name,
			       char *text);
uint16_t recnote_format_clock(const struct recnote_clock *c, char *text);
/* The snapshot of now, clock being the trace's (monotonic or boottime). */
void recnote_clock_now(enum trace_clock clock, struct recnote_clock *c);

/*
 * A note event into facts, if it is one of the three: 1; anything else
 * (another note, a text off the format by a byte): 0, facts unchanged.
 * A name seen again replaces the first.
 */
int recnote_take(struct trace_facts *facts, const struct io_event *ev);

/*
 * Whether a name is one the kernel gives block devices (sda, sda1,
 * nvme0n1p2, vda, xvda, loop0, dm-0, md127, mmcblk0p1, nbd0, sr0, zram0,
 * rbd0, pmem0, ram0): blktrace names its files after the device it
 * traces (sda.blktrace.0), where no note says.
 */
int recnote_is_device_name(const char *name);
/* The name a note gave device, or NULL. */
const char *trace_facts_device(const struct trace_facts *facts,
			       uint32_t device);
/* Whether the clock snapshot is on the events' clock (not a dump's). */
int trace_facts_clock_usable(const struct trace_facts *facts);
/*
 * The wall clock (ns since the epoch, UTC) at time_ns (counted from the
 * trace's first event): from the clock snapshot where there is one, else
 * from the TIMESTAMP note's anchor; 0 where the trace does not say.
 */
int trace_facts_wall_ns(const struct trace_facts *facts, uint64_t time_ns,
			int64_t *wall_ns);

#endif
