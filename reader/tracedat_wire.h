/*
 * tracedat_wire.h: what libtracecmd's process (iowatcher-tracedat,
 * tracedat_helper.c) sends back to the reader (tracedat.c) over its pipe:
 * messages of a header (a type and a length) and bytes, each kind of
 * event once (whether a block event, its name, where its fields lie),
 * then each record (its kind, CPU, time, missed events, the task's pid
 * and saved name, and a block event's raw bytes). Both ends are built
 * from this one header, on one machine: the numbers are the host's.
 * TRACEDAT_WIRE_VERSION changes with any of it; the helper refuses a
 * reader of another version (an old helper left installed).
 */
#ifndef IOWATCHER_READER_TRACEDAT_WIRE_H
#define IOWATCHER_READER_TRACEDAT_WIRE_H

#include <stdint.h>

#define TRACEDAT_WIRE_VERSION	1
#define TRACEDAT_HELPER		"iowatcher-tracedat"
/* the helper's fds: the trace.dat (when it is a copy) and the pipe */
#define TRACEDAT_HELPER_FILE_FD	3
#define TRACEDAT_HELPER_OUT_FD	4

#define FENCE_DATA_MAX		(1u << 20)	/* a record's bytes sent */
#define FENCE_MSG_MAX		(FENCE_DATA_MAX + 4096)
#define FENCE_ERROR_LEN		512	/* an error's line, NUL included */
#define NO_KIND			UINT32_MAX
#define COMM_MAX		16

enum fence_msg {
	MSG_OPEN = 'O',		/* u32: the file is big-endian */
	MSG_KIND = 'K',		/* struct wire_kind, then its name */
	MSG_RECORD = 'R',	/* struct wire_rec, then size bytes */
	MSG_ERROR = 'E',	/* a message (a line, no path) */
	MSG_END = 'Z',		/* every event sent */
};

struct wire_head {
	uint32_t type, len;
};

/* The fields blocktp needs, by name, in this order. */
enum { F_DEV, F_SECTOR, F_NR_SECTOR, F_BYTES, F_ERROR, F_RWBS, F_COMM,
       F_CMD, F_NEW_SECTOR, F_OLD_DEV, F_OLD_SECTOR, N_FIELDS };
static const char *const field_names[N_FIELDS] = {
	"dev", "sector", "nr_sector", "bytes", "error", "rwbs", "comm",
	"cmd", "new_sector", "old_dev", "old_sector",
};

/* libtraceevent's flags of a field (enum tep_format_flags), as the child
 * sends them (its build checks the values) */
#define WIRE_FIELD_IS_ARRAY	1
#define WIRE_FIELD_IS_SIGNED	4
#define WIRE_FIELD_IS_DYNAMIC	16
#define WIRE_FIELD_IS_RELATIVE	256

struct wire_field {
	int32_t offset, size;
	uint32_t flags, present;
};

struct wire_kind {
	uint32_t id, is_block;
	struct wire_field f[N_FIELDS];
};

struct wire_rec {
	uint64_t ts, offset;
	int64_t missed;
	uint32_t kind;
	int32_t cpu, pid;
	uint32_t size;
	char comm[COMM_MAX];
};

#endif
