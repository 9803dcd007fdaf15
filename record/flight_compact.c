/*
 * flight_compact.c: the flight recorder's held records in their compact
 * form (flight_int.h): a 48-byte blktrace record as 12-20 bytes, written
 * into a chunk as it is taken and read back when a capture is written;
 * and the table of the actions seen that the form numbers them by.
 */
#include <stdlib.h>
#include <string.h>

#include "flight_int.h"
#include "record/bpf/blkrec.h"

/*
 * The records are held compact (a 48-byte blktrace record as 12-20
 * bytes) and expanded when a capture is written. Each, in its chunk's
 * order:
 *   a byte of flags (CF_*), then varints (7 bits a byte, low first):
 *   the time from the chunk's record before (zigzag: a nested
 *   interrupt's may be older), the action's number in the flight's
 *   table of actions (0: the action itself follows), the device's index
 *   (its number itself with CF_DEV), the CPU, the sector, the bytes,
 *   the pid (not with CF_SAME_PID), then the error (CF_ERROR), the
 *   version-2 categories kept in sequence (CF_SEQ), the payload's length
 *   and its bytes (CF_PDU).
 */
#define CF_LOSS		(1u << 0)	/* BLKREC_LOSS_MAGIC, not a record */
#define CF_ERROR	(1u << 1)
#define CF_SEQ		(1u << 2)
#define CF_PDU		(1u << 3)
#define CF_SAME_PID	(1u << 4)
#define CF_DEV		(1u << 5)
#define ACTIONS_MAX	65536

int flight_dev_index(const uint32_t *devices, size_t n_devs, uint32_t dev)
{
	size_t i;

	for (i = 0; i < n_devs; i++)
		if (devices[i] == dev)
			return (int)i;
	return -1;
}

void flight_actions_free(struct flight_actions *a)
{
	free(a->actions);
	free(a->slots);
	a->actions = a->slots = NULL;
	a->n = a->cap = a->slots_cap = 0;
}

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static const unsigned char *get_varint(const unsigned char *p,
				       const unsigned char *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (p < end && shift < 64) {
		*v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80))
			return p;
		shift += 7;
	}
	return NULL;
}

static size_t action_hash(uint32_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b1u) >> 8) & (cap - 1);
}

/* The action's number in the table (from 1), added where new; 0 when
 * the table is full (the action is then written itself). */
static uint32_t action_number(struct flight_actions *a, uint32_t action)
{
	size_t i;

	if (a->slots_cap) {
		for (i = action_hash(action, a->slots_cap);
		     a->slots[i];
		     i = (i + 1) & (a->slots_cap - 1))
			if (a->actions[a->slots[i] - 1] == action)
				return a->slots[i];
	}
	if (a->n >= ACTIONS_MAX - 1)
		return 0;
	if ((a->n + 1) * 2 > a->slots_cap) {
		size_t cap = a->slots_cap ? a->slots_cap * 2 :
			     256, k;
		uint32_t *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return 0;
		for (k = 0; k < a->n; k++) {
			for (i = action_hash(a->actions[k], cap); slots[i];
			     i = (i + 1) & (cap - 1))
				;
			slots[i] = (uint32_t)(k + 1);
		}
		free(a->slots);
		a->slots = slots;
		a->slots_cap = cap;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		uint32_t *p = realloc(a->actions, cap * sizeof(*p));

		if (!p)
			return 0;
		a->actions = p;
		a->cap = cap;
	}
	a->actions[a->n++] = action;
	for (i = action_hash(action, a->slots_cap); a->slots[i];
	     i = (i + 1) & (a->slots_cap - 1))
		;
	a->slots[i] = (uint32_t)a->n;
	return (uint32_t)a->n;
}

unsigned char *flight_encode(struct flight_actions *a,
			     const uint32_t *devices, size_t n_devs,
			     struct flight_chunk *c,
			     const struct blk_io_trace *t, unsigned char *p)
{
	unsigned char *flags = p++;
	uint32_t number = action_number(a, t->action);
	int64_t dt = (int64_t)(t->time - c->last_ns);
	int d = flight_dev_index(devices, n_devs, t->device);

	*flags = (unsigned char)((t->magic == BLKREC_LOSS_MAGIC ? CF_LOSS : 0) |
				 (t->error ? CF_ERROR : 0) |
				 (t->sequence ? CF_SEQ : 0) |
				 (t->pdu_len ? CF_PDU : 0) |
				 (c->records && t->pid == c->last_pid ?
				  CF_SAME_PID : 0) | (d < 0 ? CF_DEV : 0));
	p = put_varint(p, ((uint64_t)dt << 1) ^ (dt < 0 ? UINT64_MAX : 0));
	p = put_varint(p, number);
	if (!number)
		p = put_varint(p, t->action);
	p = put_varint(p, d < 0 ? t->device : (uint64_t)d);
	p = put_varint(p, t->cpu);
	p = put_varint(p, t->sector);
	p = put_varint(p, t->bytes);
	if (!(*flags & CF_SAME_PID))
		p = put_varint(p, t->pid);
	if (t->error)
		p = put_varint(p, t->error);
	if (t->sequence)
		p = put_varint(p, t->sequence);
	if (t->pdu_len) {
		p = put_varint(p, t->pdu_len);
		memcpy(p, t + 1, t->pdu_len);
		p += t->pdu_len;
	}
	c->last_ns = t->time;
	c->last_pid = t->pid;
	return p;
}

int flight_decode(const struct flight_actions *a, const uint32_t *devices,
		  size_t n_devs, const struct flight_chunk *c, size_t *pos,
		  uint64_t *last_ns, uint32_t *last_pid,
		  struct blk_io_trace *t, const unsigned char **pdu)
{
	const unsigned char *p = c->data + *pos, *end = c->data + c->len;
	uint64_t v[7];
	unsigned flags, i;

	if (p >= end)
		return -1;
	flags = *p++;
	memset(t, 0, sizeof(*t));
	for (i = 0; i < 2; i++)
		if (!(p = get_varint(p, end, &v[i])))
			return -1;
	*last_ns += (uint64_t)((int64_t)(v[0] >> 1) ^ -(int64_t)(v[0] & 1));
	t->time = *last_ns;
	if (v[1]) {
		if (v[1] > a->n)
			return -1;
		t->action = a->actions[v[1] - 1];
	} else if (!(p = get_varint(p, end, &v[1]))) {
		return -1;
	} else {
		t->action = (uint32_t)v[1];
	}
	for (i = 2; i < 6; i++)
		if (!(p = get_varint(p, end, &v[i])))
			return -1;
	if (flags & CF_DEV)
		t->device = (uint32_t)v[2];
	else if (v[2] < n_devs)
		t->device = devices[v[2]];
	else
		return -1;
	t->cpu = (uint32_t)v[3];
	t->sector = v[4];
	t->bytes = (uint32_t)v[5];
	if (flags & CF_SAME_PID) {
		t->pid = *last_pid;
	} else {
		if (!(p = get_varint(p, end, &v[6])))
			return -1;
		t->pid = (uint32_t)v[6];
	}
	*last_pid = t->pid;
	if ((flags & CF_ERROR) && (p = get_varint(p, end, &v[6])))
		t->error = (uint16_t)v[6];
	if (p && (flags & CF_SEQ) && (p = get_varint(p, end, &v[6])))
		t->sequence = (uint32_t)v[6];
	if (p && (flags & CF_PDU) && (p = get_varint(p, end, &v[6])))
		t->pdu_len = (uint16_t)v[6];
	if (!p || (size_t)(end - p) < t->pdu_len)
		return -1;
	*pdu = p;
	p += t->pdu_len;
	t->magic = flags & CF_LOSS ? BLKREC_LOSS_MAGIC :
		   BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7;
	*pos = (size_t)(p - c->data);
	return 0;
}
