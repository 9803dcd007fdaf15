/*
 * pftrace.c: Perfetto's trace format (pftrace.h). The rows of the
 * per-I/O log come in the order of completion; a slice must be written
 * where it begins, so they are kept (about 80 bytes a bio), put in the
 * order of their start, given lanes, and written in time order with the
 * ends still to come in a heap.
 *
 * The protobuf is written by hand, as Perfetto's own protozero does: a
 * nested message's length is patched in afterwards, in 4 bytes of a
 * padded varint. The field numbers are perfetto_trace.proto's (a copy,
 * with its licence, is in tests/data/perfetto, where the tests decode
 * every file with protoc).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vec.h"
#include "options.h"
#include "trace_result.h"
#include "reader/blktrace.h"
#include "base/bytebuf.h"
#include "base/outfile.h"
#include "pftrace.h"
#include "base/utf8.h"

enum {
	TRACE_PACKET = 1,
	PACKET_TIMESTAMP = 8,
	PACKET_SEQUENCE_ID = 10,	/* trusted_packet_sequence_id */
	PACKET_TRACK_EVENT = 11,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_CLOCK_SNAPSHOT = 6,
	PACKET_TIMESTAMP_CLOCK_ID = 58,
	SNAPSHOT_CLOCK = 1,
	SNAPSHOT_PRIMARY_TRACE_CLOCK = 2,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
	PACKET_TRACK_DESCRIPTOR = 60,
	TRACK_UUID = 1,
	TRACK_NAME = 2,
	TRACK_PARENT = 5,
	TRACK_COUNTER = 8,
	TRACK_CHILD_ORDERING = 11,
	TRACK_SIBLING_RANK = 12,
	COUNTER_UNIT = 3,
	COUNTER_UNIT_NAME = 6,
	EVENT_ANNOTATION = 4,
	EVENT_TYPE = 9,
	EVENT_TRACK = 11,
	EVENT_NAME = 23,
	EVENT_DOUBLE_COUNTER = 44,
	EVENT_FLOW = 47,
	EVENT_FLOW_END = 48,
	EVENT_CALLSTACK = 55,
	CALLSTACK_FRAME = 1,
	FRAME_FUNCTION = 1,
	ANNOTATION_UINT = 3,
	ANNOTATION_DOUBLE = 5,
	ANNOTATION_STRING = 6,
	ANNOTATION_NAME = 10,
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_COUNTER = 4 };
/* Perfetto's BuiltinClock */
enum { CLOCK_REALTIME = 1, CLOCK_MONOTONIC = 3, CLOCK_BOOTTIME = 6 };
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define CHILD_ORDERING_EXPLICIT		3
#define UNIT_COUNT			2
#define SEQUENCE_ID			1
#define FLUSH_BYTES			(1u << 20)

/* ---- protobuf, appended to a buffer ---- */

struct pb {
	struct bytebuf b;
	int oom;
};

static void pb_bytes(struct pb *p, const void *data, size_t n)
{
	if (!p->oom && bytebuf_append(&p->b, data, n))
		p->oom = 1;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	unsigned char buf[10];
	size_t n = 0;

	do {
		buf[n] = v & 0x7f;
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	pb_bytes(p, buf, n);
}

static void pb_key(struct pb *p, unsigned field, unsigned wire)
{
	pb_varint(p, (uint64_t)field << 3 | wire);
}

static void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
	pb_key(p, field, 0);
	pb_varint(p, v);
}

static void pb_fixed64(struct pb *p, unsigned field, uint64_t v)
{
	unsigned char le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	pb_key(p, field, 1);
	pb_bytes(p, le, sizeof(le));
}

static void pb_double(struct pb *p, unsigned field, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	pb_fixed64(p, field, bits);
}

static void pb_string(struct pb *p, unsigned field, const char *s)
{
	char fixed[1024];
	size_t n;

	s = utf8_clean(s, fixed, sizeof(fixed));	/* proto strings are UTF-8 */
	n = strlen(s);
	pb_key(p, field, 2);
	pb_varint(p, n);
	pb_bytes(p, s, n);
}

/* A nested message: its key and room for its length, patched by
 * pb_close (messages here are far below the 256 MiB 4 bytes hold). */
static size_t pb_open(struct pb *p, unsigned field)
{
	size_t at;

	pb_key(p, field, 2);
	at = p->b.len;
	pb_bytes(p, "\x80\x80\x80\x00", 4);
	return at;
}

static void pb_close(struct pb *p, size_t at)
{
	size_t n;
	unsigned char *d;

	if (p->oom)
		return;
	n = p->b.len - at - 4;
	d = p->b.data + at;
	d[0] = (unsigned char)((n & 0x7f) | 0x80);
	d[1] = (unsigned char)((n >> 7 & 0x7f) | 0x80);
	d[2] = (unsigned char)((n >> 14 & 0x7f) | 0x80);
	d[3] = (unsigned char)(n >> 21 & 0x7f);
}

/* ---- what is kept of the trace ---- */

struct pf_row {
	uint64_t start_ns, d_ns, c_ns;	/* queued (else issued), issued, done */
	uint64_t sector, io, seq;
	uint32_t dev;			/* pftrace.devs */
	uint32_t bytes, cause, lane;
	int32_t tag;
	uint8_t op, has;
	uint8_t first;		/* the first row of its request */
	uint8_t loss;		/* a loss window, not a bio */
	/* a request a recorded loss made the analysis forget: in the
	 * depth from its issue (d_ns) to the loss (c_ns), no slice */
	uint8_t forgot;
	uint64_t lost_events;
};

struct pf_trace {
	const char *label;
	const struct analysis *a;
	const struct cause_table *causes;
	const struct trace_facts *facts;	/* its clock, where known */
	size_t next_bin;	/* the next bin whose counters are written */
};

struct pf_device {
	size_t trace;
	uint32_t device;
	uint64_t *lane_end;	/* per lane, when its last slice ends */
	size_t n_lanes;
	uint64_t in_flight;	/* requests issued, not completed */
	uint64_t *ios, *bytes;	/* [op * n_bins + bin] */
	unsigned ops_seen;	/* bit per op */
};

struct pf_mark {
	uint64_t ts, seq;
	size_t row;
	int stage;		/* 1: issued; 2: completed */
};

struct pftrace {
	struct outfile out;
	struct pb pb;
	int write_errno;
	struct pf_row *rows;
	size_t n_rows, cap_rows;
	struct pf_trace *traces;
	size_t n_traces;
	struct pf_device *devs;
	size_t n_devs;
	struct pf_mark *heap;
	size_t n_heap, cap_heap;
	uint64_t mark_seq;
	int oom;
	/* on the trace's clock (with a snapshot), else 0: times from the
	 * first event, on no clock Perfetto knows */
	uint32_t clock_id;
	uint64_t clock_offset_ns;	/* time 0 on that clock */
};

struct pftrace *pftrace_open(const char *path, struct iow_error *err)
{
	struct pftrace *p = calloc(1, sizeof(*p));

	if (!p) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	if (outfile_open(&p->out, path, NULL, err) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

void pftrace_trace(struct pftrace *p, const char *label,
		   const struct analysis *a, const struct cause_table *causes,
		   const struct trace_facts *facts)
{
	struct pf_trace *t = realloc(p->traces,
				     (p->n_traces + 1) * sizeof(*t));

	if (!t) {
		p->oom = 1;
		return;
	}
	p->traces = t;
	t += p->n_traces++;
	memset(t, 0, sizeof(*t));
	t->label = label;
	t->a = a;
	t->causes = causes;
	t->facts = facts;
}

static int device_of(struct pftrace *p, size_t trace, uint32_t device,
		     uint32_t *idx)
{
	struct pf_device *d;
	size_t i;

	for (i = p->n_devs; i-- > 0;)
		if (p->devs[i].trace == trace && p->devs[i].device == device) {
			*idx = (uint32_t)i;
			return 0;
		}
	d = realloc(p->devs, (p->n_devs + 1) * sizeof(*d));
	if (!d)
		return -1;
	p->devs = d;
	d += p->n_devs;
	memset(d, 0, sizeof(*d));
	d->trace = trace;
	d->device = device;
	*idx = (uint32_t)p->n_devs++;
	return 0;
}

static struct pf_row *new_row(struct pftrace *p)
{
	if (p->n_rows == p->cap_rows) {
		struct pf_row *r = vec_grow(p->rows, &p->cap_rows,
					    p->n_rows + 1, sizeof(*r), 4096);

		if (!r)
			return NULL;
		p->rows = r;
	}
	memset(&p->rows[p->n_rows], 0, sizeof(p->rows[0]));
	p->rows[p->n_rows].seq = p->n_rows;
	return &p->rows[p->n_rows++];
}

void pftrace_row(void *ctx, const struct analysis_row *r)
{
	struct pftrace *p = ctx;
	const struct pf_row *prev;
	size_t trace = p->n_traces ? p->n_traces - 1 : 0;
	struct pf_row *row;
	uint32_t dev;

	if (p->oom || !p->n_traces)
		return;
	if (device_of(p, trace, r->device, &dev) < 0 ||
	    !(row = new_row(p))) {
		p->oom = 1;
		return;
	}
	row->dev = dev;
	row->c_ns = r->time_ns;
	if (r->has & ANALYSIS_HAS_Q2C)
		row->start_ns = r->time_ns - r->q2c_ns;
	else if (r->has & ANALYSIS_HAS_D2C)
		row->start_ns = r->time_ns - r->d2c_ns;
	else
		row->start_ns = r->time_ns;
	if (r->has & ANALYSIS_HAS_D2C)
		row->d_ns = r->time_ns - r->d2c_ns;
	else if (r->has & ANALYSIS_HAS_Q2D)
		row->d_ns = row->start_ns + r->q2d_ns;
	else
		row->d_ns = row->start_ns;
	row->sector = r->sector;
	row->io = r->io;
	row->bytes = r->bytes;
	row->cause = r->cause;
	row->tag = r->tag;
	row->op = (uint8_t)r->op;
	row->has = (uint8_t)r->has;
	/* a request's bios come one after the other, sharing its number
	 * (the row before, found after new_row, which may move the rows) */
	prev = p->n_rows > 1 ? &p->rows[p->n_rows - 2] : NULL;
	row->first = !prev || prev->loss || prev->forgot ||
		     prev->dev != dev || prev->io != r->io;
}

/* cfg.on_forget: a request in flight at a recorded loss, which the
 * summary's depth counts from its issue to the loss. */
static void pftrace_forgotten(void *ctx, uint32_t device, uint64_t d_ns,
			      uint64_t until_ns)
{
	struct pftrace *p = ctx;
	size_t trace = p->n_traces ? p->n_traces - 1 : 0;
	struct pf_row *row;
	uint32_t dev;

	if (p->oom || !p->n_traces || until_ns < d_ns)
		return;
	if (device_of(p, trace, device, &dev) < 0 || !(row = new_row(p))) {
		p->oom = 1;
		return;
	}
	row->dev = dev;
	row->start_ns = row->d_ns = d_ns;
	row->c_ns = until_ns;
	row->forgot = 1;
}

/* The loss windows, as rows of their own (on the trace's loss track). */
static int add_losses(struct pftrace *p)
{
	size_t t, i;

	for (t = 0; t < p->n_traces; t++) {
		const struct analysis *a = p->traces[t].a;

		for (i = 0; i < a->n_loss; i++) {
			struct pf_row *row = new_row(p);

			if (!row)
				return -1;
			row->loss = 1;
			row->dev = (uint32_t)t;	/* the trace, for a loss */
			row->start_ns = row->d_ns = a->loss[i].from_ns;
			row->c_ns = a->loss[i].to_ns > a->loss[i].from_ns ?
					    a->loss[i].to_ns :
					    a->loss[i].from_ns;
			row->lost_events = a->loss[i].count_unknown ?
						   UINT64_MAX : a->loss[i].events;
		}
	}
	return 0;
}

static int by_start(const void *x, const void *y)
{
	const struct pf_row *a = x, *b = y;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Each bio on the lowest lane of its device free when it is queued. */
static int assign_lanes(struct pftrace *p)
{
	size_t i;

	for (i = 0; i < p->n_rows; i++) {
		struct pf_row *r = &p->rows[i];
		struct pf_device *d;
		size_t l;

		if (r->loss || r->forgot)
			continue;
		d = &p->devs[r->dev];
		for (l = 0; l < d->n_lanes && d->lane_end[l] > r->start_ns; l++)
			;
		if (l == d->n_lanes) {
			uint64_t *e = realloc(d->lane_end,
					      (l + 1) * sizeof(*e));

			if (!e)
				return -1;
			d->lane_end = e;
			d->n_lanes++;
		}
		d->lane_end[l] = r->c_ns;
		r->lane = (uint32_t)l;
	}
	return 0;
}

/* Completions and bytes per bin of the trace's analysis, by class. */
static int count_bins(struct pftrace *p)
{
	size_t i;

	for (i = 0; i < p->n_devs; i++) {
		size_t n = p->traces[p->devs[i].trace].a->n_bins * N_OPS;

		p->devs[i].ios = calloc(n ? n : 1, sizeof(uint64_t));
		p->devs[i].bytes = calloc(n ? n : 1, sizeof(uint64_t));
		if (!p->devs[i].ios || !p->devs[i].bytes)
			return -1;
	}
	for (i = 0; i < p->n_rows; i++) {
		const struct pf_row *r = &p->rows[i];
		struct pf_device *d;
		const struct analysis *a;
		uint64_t bin;

		if (r->loss || r->forgot)
			continue;
		d = &p->devs[r->dev];
		a = p->traces[d->trace].a;
		if (!a->n_bins || !a->bin_width_ns)
			continue;
		bin = r->c_ns > a->bin_origin_ns ?
			      (r->c_ns - a->bin_origin_ns) / a->bin_width_ns : 0;
		if (bin >= a->n_bins)
			bin = a->n_bins - 1;
		d->ios[r->op * a->n_bins + bin] += r->first;
		d->bytes[r->op * a->n_bins + bin] += r->bytes;
		d->ops_seen |= 1u << r->op;
	}
	return 0;
}

/* ---- tracks ---- */

static uint64_t device_uuid(size_t dev)
{
	return (uint64_t)(dev + 1) << 24;
}

static uint64_t lane_uuid(size_t dev, uint32_t lane)
{
	return device_uuid(dev) | (lane + 1);
}

enum { COUNTER_DEPTH, COUNTER_IOPS, COUNTER_MBPS = COUNTER_IOPS + N_OPS };

static uint64_t counter_uuid(size_t dev, int which)
{
	return device_uuid(dev) | 0x800000 | (unsigned)which;
}

static uint64_t loss_uuid(size_t trace)
{
	return (uint64_t)1 << 62 | trace;
}

static void flush_out(struct pftrace *p, int always)
{
	size_t off = 0;

	if (p->pb.oom || p->write_errno ||
	    (!always && p->pb.b.len < FLUSH_BYTES))
		return;
	while (off < p->pb.b.len) {
		ssize_t n = write(p->out.fd, p->pb.b.data + off,
				  p->pb.b.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			p->write_errno = n < 0 ? errno : EIO;
			break;
		}
		off += (size_t)n;
	}
	p->pb.b.len = 0;
}

static size_t packet_open(struct pftrace *p, uint64_t ts)
{
	size_t at = pb_open(&p->pb, TRACE_PACKET);

	if (ts != UINT64_MAX && p->clock_id) {
		pb_uint(&p->pb, PACKET_TIMESTAMP, ts + p->clock_offset_ns);
		pb_uint(&p->pb, PACKET_TIMESTAMP_CLOCK_ID, p->clock_id);
	} else if (ts != UINT64_MAX) {
		pb_uint(&p->pb, PACKET_TIMESTAMP, ts);
	}
	pb_uint(&p->pb, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	return at;
}

static void packet_close(struct pftrace *p, size_t at)
{
	pb_close(&p->pb, at);
	flush_out(p, 0);
}

static void track(struct pftrace *p, uint64_t uuid, uint64_t parent,
		  const char *name, int rank, const char *unit)
{
	size_t pkt = packet_open(p, UINT64_MAX);
	size_t td = pb_open(&p->pb, PACKET_TRACK_DESCRIPTOR);

	pb_uint(&p->pb, TRACK_UUID, uuid);
	if (parent)
		pb_uint(&p->pb, TRACK_PARENT, parent);
	pb_string(&p->pb, TRACK_NAME, name);
	if (!parent)
		pb_uint(&p->pb, TRACK_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
	if (rank >= 0)
		pb_uint(&p->pb, TRACK_SIBLING_RANK, (uint64_t)rank);
	if (unit) {
		size_t c = pb_open(&p->pb, TRACK_COUNTER);

		pb_uint(&p->pb, COUNTER_UNIT, UNIT_COUNT);
		pb_string(&p->pb, COUNTER_UNIT_NAME, unit);
		pb_close(&p->pb, c);
	}
	pb_close(&p->pb, td);
	packet_close(p, pkt);
}

/*
 * One trace whose recording read its clock, boottime and the wall clock
 * together (recnote.h): the times go out on the trace's own clock
 * (monotonic: blktrace's, BPF's, ftrace's "mono"), and a snapshot of the
 * three lets Perfetto put them on boottime, as its own system traces
 * are: one of the same run opens beside this one, lined up. Several
 * traces, or one that does not say, keep times from the first event.
 */
static void choose_clock(struct pftrace *p)
{
	const struct trace_facts *f = p->n_traces == 1 ? p->traces[0].facts
						       : NULL;

	if (!f || !trace_facts_clock_usable(f))
		return;
	p->clock_id = f->clock.clock == TRACE_CLOCK_BOOTTIME ? CLOCK_BOOTTIME
							     : CLOCK_MONOTONIC;
	p->clock_offset_ns = f->origin_ns;
}

static void snapshot_clock(struct pftrace *p, uint32_t id, uint64_t ts)
{
	size_t c = pb_open(&p->pb, SNAPSHOT_CLOCK);

	pb_uint(&p->pb, CLOCK_ID, id);
	pb_uint(&p->pb, CLOCK_TIMESTAMP, ts);
	pb_close(&p->pb, c);
}

static void write_clock_snapshot(struct pftrace *p)
{
	const struct recnote_clock *c = &p->traces[0].facts->clock;
	size_t pkt, snap;

	if (!p->clock_id)
		return;
	pkt = packet_open(p, UINT64_MAX);
	snap = pb_open(&p->pb, PACKET_CLOCK_SNAPSHOT);
	snapshot_clock(p, CLOCK_BOOTTIME, c->boot_ns);
	if (p->clock_id != CLOCK_BOOTTIME)
		snapshot_clock(p, p->clock_id, c->trace_ns);
	snapshot_clock(p, CLOCK_REALTIME, (uint64_t)c->real_ns);
	pb_uint(&p->pb, SNAPSHOT_PRIMARY_TRACE_CLOCK, CLOCK_BOOTTIME);
	pb_close(&p->pb, snap);
	packet_close(p, pkt);
}

static void write_tracks(struct pftrace *p)
{
	char name[256];
	size_t i, t;
	int op;

	/* the first packet says the sequence starts here */
	size_t pkt = pb_open(&p->pb, TRACE_PACKET);

	pb_uint(&p->pb, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	pb_uint(&p->pb, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_close(&p->pb, pkt);
	write_clock_snapshot(p);
	for (i = 0; i < p->n_devs; i++) {
		const struct pf_device *d = &p->devs[i];
		const char *label = p->traces[d->trace].label;
		int rank = 0;
		uint32_t l;

		snprintf(name, sizeof(name), "%s%sblock device %u,%u",
			 p->n_traces > 1 && label ? label : "",
			 p->n_traces > 1 && label ? ": " : "",
			 blk_dev_major(d->device), blk_dev_minor(d->device));
		track(p, device_uuid(i), 0, name, -1, NULL);
		track(p, counter_uuid(i, COUNTER_DEPTH), device_uuid(i),
		      "queue depth (requests issued, not completed)", rank++,
		      "requests");
		for (op = 0; op < N_OPS; op++) {
			if (!(d->ops_seen & 1u << op))
				continue;
			snprintf(name, sizeof(name), "%s IOPS", io_op_name(op));
			track(p, counter_uuid(i, COUNTER_IOPS + op),
			      device_uuid(i), name, rank++, "I/Os per second");
			/* flushes and zone management move no bytes */
			if (op == OP_FLUSH || op == OP_ZONE)
				continue;
			snprintf(name, sizeof(name), "%s MB/s", io_op_name(op));
			track(p, counter_uuid(i, COUNTER_MBPS + op),
			      device_uuid(i), name, rank++, "MB/s");
		}
		for (l = 0; l < d->n_lanes; l++) {
			snprintf(name, sizeof(name), "lane %u", l + 1);
			track(p, lane_uuid(i, l), device_uuid(i), name,
			      rank++, NULL);
		}
	}
	for (t = 0; t < p->n_traces; t++) {
		if (!p->traces[t].a->n_loss)
			continue;
		snprintf(name, sizeof(name), "%s%sevents lost by the recorder",
			 p->n_traces > 1 ? p->traces[t].label : "",
			 p->n_traces > 1 ? ": " : "");
		track(p, loss_uuid(t), 0, name, -1, NULL);
	}
}

/* ---- events ---- */

static size_t event_open(struct pftrace *p, uint64_t ts, int type,
			 uint64_t uuid, size_t *pkt)
{
	size_t ev;

	*pkt = packet_open(p, ts);
	ev = pb_open(&p->pb, PACKET_TRACK_EVENT);
	pb_uint(&p->pb, EVENT_TYPE, (uint64_t)type);
	pb_uint(&p->pb, EVENT_TRACK, uuid);
	return ev;
}

static void event_close(struct pftrace *p, size_t ev, size_t pkt)
{
	pb_close(&p->pb, ev);
	packet_close(p, pkt);
}

static void slice_end(struct pftrace *p, uint64_t ts, uint64_t uuid)
{
	size_t pkt, ev = event_open(p, ts, TYPE_SLICE_END, uuid, &pkt);

	event_close(p, ev, pkt);
}

static void counter(struct pftrace *p, uint64_t ts, uint64_t uuid,
		    double value)
{
	size_t pkt, ev = event_open(p, ts, TYPE_COUNTER, uuid, &pkt);

	pb_double(&p->pb, EVENT_DOUBLE_COUNTER, value);
	event_close(p, ev, pkt);
}

static void note_uint(struct pftrace *p, const char *name, uint64_t v)
{
	size_t a = pb_open(&p->pb, EVENT_ANNOTATION);

	pb_string(&p->pb, ANNOTATION_NAME, name);
	pb_uint(&p->pb, ANNOTATION_UINT, v);
	pb_close(&p->pb, a);
}

static void note_double(struct pftrace *p, const char *name, double v)
{
	size_t a = pb_open(&p->pb, EVENT_ANNOTATION);

	pb_string(&p->pb, ANNOTATION_NAME, name);
	pb_double(&p->pb, ANNOTATION_DOUBLE, v);
	pb_close(&p->pb, a);
}

static void note_string(struct pftrace *p, const char *name, const char *s)
{
	size_t a;

	if (!s)
		return;
	a = pb_open(&p->pb, EVENT_ANNOTATION);
	pb_string(&p->pb, ANNOTATION_NAME, name);
	pb_string(&p->pb, ANNOTATION_STRING, s);
	pb_close(&p->pb, a);
}

/* The kernel stack, outermost frame first, as the cause keeps it. */
static void callstack(struct pftrace *p, const char *frames)
{
	size_t cs = pb_open(&p->pb, EVENT_CALLSTACK);
	const char *s = frames, *end;
	char name[256];

	while (*s) {
		size_t f;

		end = strchr(s, ';');
		if (!end)
			end = s + strlen(s);
		snprintf(name, sizeof(name), "%.*s", (int)(end - s), s);
		f = pb_open(&p->pb, CALLSTACK_FRAME);
		pb_string(&p->pb, FRAME_FUNCTION, name);
		pb_close(&p->pb, f);
		s = *end ? end + 1 : end;
	}
	pb_close(&p->pb, cs);
}

static void size_text(uint32_t bytes, char *buf, size_t len)
{
	if (bytes >= (1u << 20) && !(bytes & ((1u << 20) - 1)))
		snprintf(buf, len, "%u MiB", bytes >> 20);
	else if (bytes >= 1024 && !(bytes & 1023))
		snprintf(buf, len, "%u KiB", bytes >> 10);
	else
		snprintf(buf, len, "%u B", bytes);
}

/* Who and what caused the bio, where the trace knows. */
static void bio_cause_notes(struct pftrace *p, const struct pf_trace *t,
			const struct pf_row *r)
{
	const struct cause *c = t->causes ? cause_get(t->causes, r->cause)
					  : NULL;
	char buf[512];
	const char *stack;
	uint32_t pid;

	if (r->tag != IO_EVENT_NO_TAG)
		note_string(p, "tag", analysis_tag_label(t->a, r->tag));
	if (!c)
		return;
	pid = cause_credited_pid(c);
	note_uint(p, "pid", pid);
	note_string(p, "comm", cause_comm(t->causes, pid));
	if (c->cgroup)
		note_string(p, "cgroup", cause_cgroup_label(t->causes, c, buf,
							    sizeof(buf)));
	if (cause_table_kept(t->causes, CAUSE_PART_FILES))
		note_string(p, "file", cause_file_label(t->causes, c, buf,
							sizeof(buf)));
	stack = cause_table_kept(t->causes, CAUSE_PART_STACKS) ?
			cause_kstack(t->causes, c) : NULL;
	if (stack && *stack)
		callstack(p, stack);
}

static void request_begin(struct pftrace *p, const struct pf_row *r)
{
	const struct pf_device *d = &p->devs[r->dev];
	const struct pf_trace *t = &p->traces[d->trace];
	char name[64], size[32];
	size_t pkt, ev;

	ev = event_open(p, r->start_ns, TYPE_SLICE_BEGIN,
			lane_uuid(r->dev, r->lane), &pkt);
	size_text(r->bytes, size, sizeof(size));
	if (r->op == OP_FLUSH)
		snprintf(name, sizeof(name), "flush%s",
			 r->has ? "" : " (not timed)");
	else
		snprintf(name, sizeof(name), "%s %s%s", io_op_name(r->op),
			 size, r->has ? "" : " (not timed)");
	pb_string(&p->pb, EVENT_NAME, name);
	note_string(p, "class", io_op_name(r->op));
	note_uint(p, "sector", r->sector);
	note_uint(p, "bytes", r->bytes);
	if (r->has & ANALYSIS_HAS_Q2D)
		note_double(p, "q2d_us", (double)(r->d_ns - r->start_ns) / 1e3);
	if (r->has & ANALYSIS_HAS_D2C)
		note_double(p, "d2c_us", (double)(r->c_ns - r->d_ns) / 1e3);
	if (r->has & ANALYSIS_HAS_Q2C)
		note_double(p, "q2c_us", (double)(r->c_ns - r->start_ns) / 1e3);
	note_uint(p, "io", r->io);
	bio_cause_notes(p, t, r);
	event_close(p, ev, pkt);
}

static void phase_begin(struct pftrace *p, const struct pf_row *r,
			uint64_t ts, const char *name, int flow)
{
	size_t pkt, ev = event_open(p, ts, TYPE_SLICE_BEGIN,
				    lane_uuid(r->dev, r->lane), &pkt);

	pb_string(&p->pb, EVENT_NAME, name);
	/* the flow from the bio's queueing to its issue */
	if (flow)
		pb_fixed64(&p->pb, flow > 0 ? EVENT_FLOW : EVENT_FLOW_END,
			   r->seq + 1);
	event_close(p, ev, pkt);
}

static void depth_step(struct pftrace *p, const struct pf_row *r,
		       uint64_t ts, int up)
{
	struct pf_device *d = &p->devs[r->dev];

	if (!r->forgot && (!r->first || !(r->has & ANALYSIS_HAS_D2C)))
		return;
	if (up)
		d->in_flight++;
	else if (d->in_flight)
		d->in_flight--;
	counter(p, ts, counter_uuid(r->dev, COUNTER_DEPTH),
		(double)d->in_flight);
}

static int heap_push(struct pftrace *p, uint64_t ts, size_t row, int stage)
{
	struct pf_mark m = { ts, p->mark_seq++, row, stage };
	size_t i;

	if (p->n_heap == p->cap_heap) {
		struct pf_mark *h = vec_grow(p->heap, &p->cap_heap,
					     p->n_heap + 1, sizeof(*h), 256);

		if (!h)
			return -1;
		p->heap = h;
	}
	i = p->n_heap++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		const struct pf_mark *u = &p->heap[up];

		if (u->ts < m.ts || (u->ts == m.ts && u->seq < m.seq))
			break;
		p->heap[i] = *u;
		i = up;
	}
	p->heap[i] = m;
	return 0;
}

static struct pf_mark heap_pop(struct pftrace *p)
{
	struct pf_mark top = p->heap[0], last = p->heap[--p->n_heap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= p->n_heap)
			break;
		if (c + 1 < p->n_heap &&
		    (p->heap[c + 1].ts < p->heap[c].ts ||
		     (p->heap[c + 1].ts == p->heap[c].ts &&
		      p->heap[c + 1].seq < p->heap[c].seq)))
			c++;
		if (last.ts < p->heap[c].ts ||
		    (last.ts == p->heap[c].ts && last.seq < p->heap[c].seq))
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	if (p->n_heap)
		p->heap[i] = last;
	return top;
}

/* What happens at a bio's issue (stage 1) or completion (stage 2). */
static int mark_event(struct pftrace *p, const struct pf_mark *m)
{
	const struct pf_row *r = &p->rows[m->row];

	if (r->loss) {
		slice_end(p, m->ts, loss_uuid(r->dev));
		return 0;
	}
	if (r->forgot) {
		depth_step(p, r, m->ts, 0);
		return 0;
	}
	if (m->stage == 1) {
		slice_end(p, m->ts, lane_uuid(r->dev, r->lane));
		phase_begin(p, r, m->ts, "device (D2C)", -1);
		depth_step(p, r, m->ts, 1);
		return heap_push(p, r->c_ns, m->row, 2);
	}
	if (r->has & ANALYSIS_HAS_D2C) {
		slice_end(p, m->ts, lane_uuid(r->dev, r->lane));
		depth_step(p, r, m->ts, 0);
	}
	slice_end(p, m->ts, lane_uuid(r->dev, r->lane));
	return 0;
}

static uint64_t bin_time(const struct pf_trace *t, size_t bin)
{
	return t->a->bin_origin_ns + bin * t->a->bin_width_ns;
}

/* The trace whose next bin starts first, or n_traces. */
static size_t next_bin_trace(const struct pftrace *p, uint64_t *ts)
{
	size_t t, best = p->n_traces;

	*ts = UINT64_MAX;
	for (t = 0; t < p->n_traces; t++) {
		const struct pf_trace *tr = &p->traces[t];

		if (!tr->a->bin_width_ns || tr->next_bin > tr->a->n_bins)
			continue;
		if (bin_time(tr, tr->next_bin) < *ts) {
			*ts = bin_time(tr, tr->next_bin);
			best = t;
		}
	}
	return best;
}

/* The rates of one bin of a trace, on each of its devices (after the
 * last bin, zero). */
static void bin_counters(struct pftrace *p, size_t t)
{
	struct pf_trace *tr = &p->traces[t];
	const struct analysis *a = tr->a;
	uint64_t ts = bin_time(tr, tr->next_bin);
	double width_s = (double)a->bin_width_ns / 1e9;
	size_t i, b = tr->next_bin;
	int op;

	for (i = 0; i < p->n_devs; i++) {
		const struct pf_device *d = &p->devs[i];

		if (d->trace != t)
			continue;
		for (op = 0; op < N_OPS; op++) {
			uint64_t ios = 0, bytes = 0;

			if (!(d->ops_seen & 1u << op))
				continue;
			if (b < a->n_bins) {
				ios = d->ios[op * a->n_bins + b];
				bytes = d->bytes[op * a->n_bins + b];
			}
			counter(p, ts, counter_uuid(i, COUNTER_IOPS + op),
				(double)ios / width_s);
			if (op != OP_FLUSH && op != OP_ZONE)
				counter(p, ts, counter_uuid(i, COUNTER_MBPS + op),
					(double)bytes / 1e6 / width_s);
		}
	}
	tr->next_bin++;
}

/* Everything due up to ts (ends, issues, bins), in time order. */
static int flush_until(struct pftrace *p, uint64_t ts)
{
	for (;;) {
		uint64_t bin_ts, heap_ts = p->n_heap ? p->heap[0].ts
						     : UINT64_MAX;
		size_t t = next_bin_trace(p, &bin_ts);
		struct pf_mark m;

		if (t < p->n_traces && bin_ts <= heap_ts && bin_ts <= ts) {
			bin_counters(p, t);
			continue;
		}
		if (!p->n_heap || heap_ts > ts)
			return 0;
		m = heap_pop(p);
		if (mark_event(p, &m) < 0)
			return -1;
	}
}

static int row_begin(struct pftrace *p, size_t i)
{
	const struct pf_row *r = &p->rows[i];
	char name[64];
	size_t pkt, ev;

	if (r->loss) {
		ev = event_open(p, r->start_ns, TYPE_SLICE_BEGIN,
				loss_uuid(r->dev), &pkt);
		if (r->lost_events == UINT64_MAX)
			snprintf(name, sizeof(name), "events lost (how many unknown)");
		else
			snprintf(name, sizeof(name), "%llu events lost",
				 (unsigned long long)r->lost_events);
		pb_string(&p->pb, EVENT_NAME, name);
		event_close(p, ev, pkt);
		return heap_push(p, r->c_ns, i, 2);
	}
	if (r->forgot) {
		depth_step(p, r, r->d_ns, 1);
		return heap_push(p, r->c_ns, i, 2);
	}
	request_begin(p, r);
	if (r->has & ANALYSIS_HAS_Q2D) {
		phase_begin(p, r, r->start_ns, "queue (Q2D)", 1);
		return heap_push(p, r->d_ns, i, 1);
	}
	if (r->has & ANALYSIS_HAS_D2C) {
		phase_begin(p, r, r->d_ns, "device (D2C)", 0);
		depth_step(p, r, r->d_ns, 1);
	}
	return heap_push(p, r->c_ns, i, 2);
}

static int write_events(struct pftrace *p)
{
	size_t i;

	for (i = 0; i < p->n_rows; i++)
		if (flush_until(p, p->rows[i].start_ns) < 0 ||
		    row_begin(p, i) < 0)
			return -1;
	return flush_until(p, UINT64_MAX);
}

static void free_all(struct pftrace *p)
{
	size_t i;

	for (i = 0; i < p->n_devs; i++) {
		free(p->devs[i].lane_end);
		free(p->devs[i].ios);
		free(p->devs[i].bytes);
	}
	free(p->devs);
	free(p->rows);
	free(p->traces);
	free(p->heap);
	bytebuf_free(&p->pb.b);
	free(p);
}

int pftrace_close(struct pftrace *p, struct iow_error *err)
{
	int rc = 0;

	if (!p)
		return 0;
	if (p->oom || add_losses(p) < 0)
		rc = iow_fail(err, "out of memory writing %s", p->out.path);
	if (!rc) {
		/* a trace without I/O rows (a dump of one note) has no
		 * list to sort: qsort's is never NULL */
		if (p->n_rows)
			qsort(p->rows, p->n_rows, sizeof(*p->rows), by_start);
		if (assign_lanes(p) < 0 || count_bins(p) < 0)
			rc = iow_fail(err, "out of memory writing %s",
				      p->out.path);
	}
	if (!rc) {
		choose_clock(p);
		write_tracks(p);
		if (write_events(p) < 0)
			p->pb.oom = 1;
		flush_out(p, 1);
		if (p->pb.oom)
			rc = iow_fail(err, "out of memory writing %s",
				      p->out.path);
		else if (p->write_errno)
			rc = iow_fail(err, "cannot write %s: %s", p->out.path,
				      strerror(p->write_errno));
	}
	if (rc)
		outfile_abort(&p->out);
	else
		rc = outfile_commit(&p->out, err);
	free_all(p);
	return rc;
}

void pftrace_abort(struct pftrace *p)
{
	if (!p)
		return;
	outfile_abort(&p->out);
	free_all(p);
}

/* ---- the trace for Perfetto as an output (base/outkind.h) ---- */

static int pftrace_chosen(const struct options *o)
{
	return o->output && o->output_type.kind == OUTPUT_PERFETTO;
}

static unsigned pftrace_needs(const struct options *o)
{
	(void)o;
	/* the slices carry the causes */
	return OUTPUT_NEEDS_CAUSES | OUTPUT_NEEDS_CAUSE_IDS;
}

static int pftrace_open_row(void **w, const struct options *o, size_t n,
			    struct iow_error *err)
{
	(void)n;
	*w = pftrace_open(o->output, err);
	return *w ? 0 : -1;
}

static int pftrace_prepare(void *w, const struct options *o, size_t i,
			   struct trace_result *res, struct analysis_config *cfg,
			   struct iow_error *err)
{
	(void)o;
	(void)i;
	(void)res;
	(void)err;
	cfg->on_forget = pftrace_forgotten;
	cfg->forget_ctx = w;
	return 0;
}

static void pftrace_trace_row(void *w, const struct trace_result *res,
			      const struct cause_table *causes)
{
	pftrace_trace(w, res->label, &res->analysis, causes, &res->facts);
}

static int pftrace_finish(void *w, const struct options *o,
			  struct trace_result *traces, size_t n,
			  struct iow_error *err)
{
	(void)o;
	(void)traces;
	(void)n;
	return pftrace_close(w, err);
}

static void pftrace_abort_row(void *w)
{
	pftrace_abort(w);
}

const struct output_ops perfetto_output = {
	.name = "perfetto",
	.help = "a trace for Perfetto's UI: each I/O a slice, with its causes",
	.kind = OUTPUT_PERFETTO,
	.noun = "Perfetto",
	.exts = { { ".pftrace", 0 }, { ".perfetto-trace", 0 } },
	.chosen = pftrace_chosen,
	.needs = pftrace_needs,
	.open = pftrace_open_row,
	.prepare = pftrace_prepare,
	.trace = pftrace_trace_row,
	.row = pftrace_row,
	.finish = pftrace_finish,
	.abort = pftrace_abort_row,
};
