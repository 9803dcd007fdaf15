/*
 * blkrec.c: what the reader's decoder (blkrec.h) does out of line: the
 * payloads other stages look inside, a TIMESTAMP note's wall clock, and
 * the start of a blkparse dump.
 */
#include <string.h>

#include "blkrec.h"

/* The payload past the cgroup id a record may start it with: *p and its
 * length (0 when there is none, or the cgroup id is cut short). */
static size_t blkrec_payload(const struct io_event *ev,
			     const unsigned char **p)
{
	*p = ev->pdu;
	if (!*p)
		return 0;
	if (!(ev->action & BLK_TA_CGROUP))
		return ev->pdu_len;
	if (ev->pdu_len < 8)
		return 0;
	*p += 8;
	return ev->pdu_len - 8u;
}

int feed_decode_remap(const struct io_event *ev, uint32_t *from_dev,
		      uint32_t *to_dev, uint64_t *from_sector)
{
	const unsigned char *p;

	if (blkrec_payload(ev, &p) < BLK_REMAP_PDU_SIZE)
		return -1;
	/* The remap payload is big-endian whatever the trace's order. */
	*from_dev = __builtin_bswap32(blkrec_load32(p, 0));
	*to_dev = __builtin_bswap32(blkrec_load32(p + 4, 0));
	*from_sector = __builtin_bswap64(blkrec_load64(p + 8, 0));
	return 0;
}

int feed_decode_split(const struct io_event *ev, uint64_t *rest_sector)
{
	const unsigned char *p;

	if (blkrec_payload(ev, &p) < 8)
		return -1;
	/* Big-endian, as the remap payload. */
	*rest_sector = __builtin_bswap64(blkrec_load64(p, 0));
	return 0;
}

size_t feed_note_text(const struct io_event *ev, const char **text)
{
	const unsigned char *p = ev->pdu;
	size_t len = ev->pdu_len;

	if (p && (ev->action & BLK_TA_CGROUP) && len >= 8) {
		p += 8;
		len -= 8;
	}
	*text = (const char *)p;
	if (!p)
		return 0;
	return strnlen((const char *)p, len);
}

int blkrec_timestamp(const struct io_event *ev, int swap, int64_t *wall_ns)
{
	const unsigned char *p;
	uint32_t sec, nsec;

	if (blk_action_code(ev->action) != BLK_TN_TIMESTAMP ||
	    !blk_is_note(ev->action) || blkrec_payload(ev, &p) < 8)
		return 0;
	sec = blkrec_load32(p, swap);
	nsec = blkrec_load32(p + 4, swap);
	if (nsec >= 1000000000u)
		return 0;	/* not a time: no anchor rather than a wrong one */
	*wall_ns = (int64_t)sec * 1000000000 + nsec;
	return 1;
}

size_t blkrec_added_line_len(const unsigned char *p, size_t have, int *more)
{
	static const char head[] = "Input file ", tail[] = " added\n";
	const size_t head_len = sizeof(head) - 1, tail_len = sizeof(tail) - 1;
	const unsigned char *nl;
	size_t len;

	*more = 0;
	if (memcmp(p, head, have < head_len ? have : head_len))
		return 0;
	nl = memchr(p, '\n', have < BLKREC_ADDED_LINE_MAX ?
			     have : BLKREC_ADDED_LINE_MAX);
	if (!nl) {
		*more = have < BLKREC_ADDED_LINE_MAX;
		return 0;
	}
	len = (size_t)(nl - p) + 1;
	if (len <= head_len + tail_len ||
	    memcmp(nl + 1 - tail_len, tail, tail_len) || memchr(p, '\0', len))
		return 0;
	return len;
}

int blkrec_starts_dump(const unsigned char *p, size_t have)
{
	size_t len;
	uint32_t m;
	int more;

	while ((len = blkrec_added_line_len(p, have, &more))) {
		p += len;
		have -= len;
	}
	if (have < 4)
		return 0;
	m = blkrec_load32(p, 0);
	return (m & BLK_IO_TRACE_MAGIC_MASK) == BLK_IO_TRACE_MAGIC ||
	       (__builtin_bswap32(m) & BLK_IO_TRACE_MAGIC_MASK) ==
		       BLK_IO_TRACE_MAGIC;
}
