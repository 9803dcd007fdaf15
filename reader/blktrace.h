/*
 * blktrace.h: the on-disk blktrace record formats (versions 7 and 8),
 * action codes, categories and notes, as Linux's uapi header
 * linux/blktrace_api.h and blktrace's own tools define them. Every stage that looks inside a record uses these names.
 *
 * Version 8 is the kernel's "struct blk_io_trace2" (Linux's zoned-device
 * blktrace, late 2025): 64 bytes, pid before a 64-bit action whose bits
 * 32-38 are further categories (zone append, the zone management
 * commands, write-zeroes), then 12 bytes of padding.
 */
#ifndef IOWATCHER_BLKTRACE_H
#define IOWATCHER_BLKTRACE_H

#include <stdint.h>

#define BLK_IO_TRACE_MAGIC	0x65617400u
#define BLK_IO_TRACE_MAGIC_MASK	0xffffff00u
#define BLK_IO_TRACE_VERSION7	0x07
#define BLK_IO_TRACE_VERSION8	0x08
#define BLK_IO_TRACE7_SIZE	48
#define BLK_IO_TRACE8_SIZE	64

/* Version 7 record, native byte order, 48 bytes. */
struct blk_io_trace {
	uint32_t magic;
	uint32_t sequence;
	uint64_t time;
	uint64_t sector;
	uint32_t bytes;
	uint32_t action;
	uint32_t pid;
	uint32_t device;
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;
};

/* Action codes: the low 16 bits of action. */
enum blk_action_code {
	BLK_TA_QUEUE = 1,
	BLK_TA_BACKMERGE,
	BLK_TA_FRONTMERGE,
	BLK_TA_GETRQ,
	BLK_TA_SLEEPRQ,
	BLK_TA_REQUEUE,
	BLK_TA_ISSUE,
	BLK_TA_COMPLETE,
	BLK_TA_PLUG,
	BLK_TA_UNPLUG_IO,
	BLK_TA_UNPLUG_TIMER,
	BLK_TA_INSERT,
	BLK_TA_SPLIT,
	BLK_TA_BOUNCE,
	BLK_TA_REMAP,
	BLK_TA_ABORT,
	BLK_TA_DRV_DATA,
	BLK_TA_ZONE_PLUG,	/* v2: a zone write plug held a bio */
	BLK_TA_ZONE_UNPLUG,	/* v2: and let it go */
};

/* Note codes, in the low bits of action when the NOTIFY category is set. */
enum blk_note_code {
	BLK_TN_PROCESS = 0,
	BLK_TN_TIMESTAMP = 1,
	BLK_TN_MESSAGE = 2,
};

/* Categories: bits 16-31 of action. */
enum blk_category {
	BLK_TC_READ = 1 << 0,
	BLK_TC_WRITE = 1 << 1,
	BLK_TC_FLUSH = 1 << 2,
	BLK_TC_SYNC = 1 << 3,
	BLK_TC_QUEUE = 1 << 4,
	BLK_TC_REQUEUE = 1 << 5,
	BLK_TC_ISSUE = 1 << 6,
	BLK_TC_COMPLETE = 1 << 7,
	BLK_TC_FS = 1 << 8,
	BLK_TC_PC = 1 << 9,
	BLK_TC_NOTIFY = 1 << 10,
	BLK_TC_AHEAD = 1 << 11,
	BLK_TC_META = 1 << 12,
	BLK_TC_DISCARD = 1 << 13,
	BLK_TC_DRV_DATA = 1 << 14,
	BLK_TC_FUA = 1 << 15,
};

/*
 * Version-2 categories: bits 16-22 of the uapi's enum, shifted like the
 * others by BLK_TC_SHIFT, so bits 32-38 of the 64-bit action. Here as
 * the bits of the action's upper half (struct io_event's action_hi).
 */
enum blk_category2 {
	BLK_TC2_ZONE_APPEND = 1 << 0,
	BLK_TC2_ZONE_RESET = 1 << 1,
	BLK_TC2_ZONE_RESET_ALL = 1 << 2,
	BLK_TC2_ZONE_FINISH = 1 << 3,
	BLK_TC2_ZONE_OPEN = 1 << 4,
	BLK_TC2_ZONE_CLOSE = 1 << 5,
	BLK_TC2_WRITE_ZEROES = 1 << 6,
};

/* The zone management commands: no data moves, whatever bytes says. */
#define BLK_TC2_ZONE_MGMT	(BLK_TC2_ZONE_RESET | BLK_TC2_ZONE_RESET_ALL | \
				 BLK_TC2_ZONE_FINISH | BLK_TC2_ZONE_OPEN | \
				 BLK_TC2_ZONE_CLOSE)

#define BLK_TC_SHIFT		16
#define BLK_TC_ACT(cat)		((uint32_t)(cat) << BLK_TC_SHIFT)
#define BLK_TA_MASK		0xffffu
/* Bit 8 of the low half: an 8-byte cgroup id starts the payload. */
#define BLK_TA_CGROUP		0x100u
#define BLK_REMAP_PDU_SIZE	16

static inline unsigned blk_action_code(uint32_t action)
{
	return action & BLK_TA_MASK & ~BLK_TA_CGROUP;
}

static inline int blk_is_note(uint32_t action)
{
	return (action & BLK_TC_ACT(BLK_TC_NOTIFY)) != 0;
}

static inline int blk_is_write(uint32_t action)
{
	return (action & BLK_TC_ACT(BLK_TC_WRITE)) != 0;
}

static inline unsigned blk_dev_major(uint32_t dev)
{
	return dev >> 20;
}

static inline unsigned blk_dev_minor(uint32_t dev)
{
	return dev & 0xfffff;
}

#endif
