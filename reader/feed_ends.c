/*
 * feed_ends.c: the time of a per-CPU file's last whole record
 * (feed_ends.h): from a plain file's tail, found by where its records
 * chain to the end; through a compressed file, record by record. And
 * the look at the tails for loss notes of no time, and the rule that
 * says a file ended early.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "blkrec.h"
#include "bytesrc.h"
#include "feed_ends.h"
#include "lossnote.h"

/* A tail holds several records of the largest payload (64 KiB). */
#define TAIL_LEN	(256 * 1024)
/* Room for the largest record and big reads, as the reader's buffer. */
#define WALK_BUF_LEN	(128 * 1024)

static size_t pdu_len_at(const unsigned char *p, const struct record_format *f)
{
	return blkrec_pdu_len(p, f->version == BLK_IO_TRACE_VERSION7, f->swap);
}

static int magic_at(const unsigned char *p, const struct record_format *f)
{
	return blkrec_magic(p, f->swap) ==
	       (BLK_IO_TRACE_MAGIC | (uint32_t)f->version);
}

/* The record at p (whole) as a file's end: its time, and whether it is
 * an end mark. */
static void end_at(const unsigned char *p, const struct record_format *f,
		   struct file_end *end)
{
	int v7 = f->version == BLK_IO_TRACE_VERSION7;

	end->last_ns = blkrec_time(p, f->swap);
	end->end_mark = lossnote_is_end_mark(blkrec_action(p, v7, f->swap),
					     p + f->header_size,
					     pdu_len_at(p, f));
}

/* From at, records to the end (a partial one last allowed): the last
 * whole one's offset into *last; 0 when the chain breaks or is empty. */
static int chains_to_end(const unsigned char *buf, size_t len, size_t at,
			 const struct record_format *f, size_t *last)
{
	int found = 0;

	while (len - at >= f->header_size) {
		size_t rec_len;

		if (!magic_at(buf + at, f))
			return 0;
		rec_len = f->header_size + pdu_len_at(buf + at, f);
		if (rec_len > len - at)
			break;	/* cut in its payload */
		*last = at;
		found = 1;
		at += rec_len;
	}
	return found;
}

/*
 * The last whole record in buf[0, len): the records are found by the
 * first offset from which they follow one another to the buffer's end (a
 * partial record there allowed). 1 when found, 0 if no offset does. For
 * a tail read from the middle of a file.
 */
static int feed_chain_end(const unsigned char *buf, size_t len,
			  const struct record_format *fmt,
			  struct file_end *end)
{
	size_t at, last;

	for (at = 0; at + fmt->header_size <= len; at++)
		if (magic_at(buf + at, fmt) &&
		    chains_to_end(buf, len, at, fmt, &last)) {
			end_at(buf + last, fmt, end);
			return 1;
		}
	return 0;
}

static int plain_end(const char *path, const struct record_format *fmt,
		     struct file_end *end)
{
	unsigned char *buf;
	ssize_t got = -1;
	off_t size;
	int fd, found = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size = lseek(fd, 0, SEEK_END);
	buf = malloc(TAIL_LEN);
	if (buf && size > 0)
		got = pread(fd, buf, TAIL_LEN,
			    size > TAIL_LEN ? size - TAIL_LEN : 0);
	if (got > 0)
		found = feed_chain_end(buf, (size_t)got, fmt, end);
	free(buf);
	close(fd);
	return found;
}

/* Through the decompressed data, record by record, to its end (or to
 * where it is cut short or damaged: the last record before counts). */
static int walk_end(const char *path, const struct record_format *fmt,
		    struct file_end *end)
{
	struct byte_source src;
	struct iow_error err;
	unsigned char *buf = bigmem_calloc(WALK_BUF_LEN);
	size_t start = 0, have = 0;
	int found = 0;

	if (!buf)
		return 0;
	if (bytesrc_open(&src, path, BYTESRC_PART, &err) < 0)
		goto out;
	for (;;) {
		ssize_t got;

		while (have - start >= fmt->header_size &&
		       magic_at(buf + start, fmt)) {
			size_t rec_len = fmt->header_size +
					 pdu_len_at(buf + start, fmt);

			if (rec_len > have - start)
				break;
			end_at(buf + start, fmt, end);
			found = 1;
			start += rec_len;
		}
		if (have - start >= fmt->header_size &&
		    !magic_at(buf + start, fmt))
			break;	/* damaged: the reader will say where */
		memmove(buf, buf + start, have - start);
		have -= start;
		start = 0;
		got = bytesrc_read(&src, buf + have, WALK_BUF_LEN - have, &err);
		if (got <= 0)
			break;
		have += (size_t)got;
	}
out:
	bytesrc_close(&src);
	bigmem_free(buf);
	return found;
}

int feed_file_end(const char *path, int compressed,
		  const struct record_format *fmt, struct file_end *end)
{
	if (compressed)
		return walk_end(path, fmt, end);
	return plain_end(path, fmt, end);
}

/* ---- files that end early ---- */

/*
 * A file's end is early when the set's other files go on past it by
 * more than this (and 1% of the trace): a CPU with nothing more to
 * record stops a little before the others, a cut file well before.
 */
#define CUT_SLACK_NS	(10 * 1000 * 1000ull)

int feed_ends_early(uint64_t set_end_ns, uint64_t start_ns, uint64_t last_ns)
{
	uint64_t slack = CUT_SLACK_NS;

	if (set_end_ns <= last_ns)
		return 0;
	if (set_end_ns > start_ns && (set_end_ns - start_ns) / 100 > slack)
		slack = (set_end_ns - start_ns) / 100;
	return set_end_ns - last_ns > slack;
}

unsigned feed_cpu_of_path(const char *path)
{
	const char *dot = strstr(path, ".blktrace.");
	const char *last = dot;

	while (dot) {
		last = dot;
		dot = strstr(dot + 1, ".blktrace.");
	}
	return last ? (unsigned)strtoul(last + strlen(".blktrace."), NULL,
					10) : 0;
}

/* ---- a look at the tails ---- */

#define TAIL_LOOK	(64 * 1024)

/* The unlocated loss notes in buf: each text "lost ..." after a record
 * header of a loss note; their counts, each (cpu, T1, count) once. */
static uint64_t tail_notes(const unsigned char *buf, size_t len)
{
	struct lossnote seen[16], n;
	size_t i, k, n_seen = 0;
	uint64_t total = 0;
	uint32_t action;
	uint16_t pdu_len;

	for (i = BLK_IO_TRACE7_SIZE; i + 5 <= len; i++) {
		const unsigned char *h = buf + i - BLK_IO_TRACE7_SIZE;

		if (memcmp(buf + i, "lost ", 5))
			continue;
		action = blkrec_action(h, 1, 0);
		pdu_len = (uint16_t)blkrec_pdu_len(h, 1, 0);
		if (blkrec_magic(h, 0) != (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7) ||
		    i + pdu_len > len ||
		    !lossnote_parse(action, buf + i, pdu_len, &n) || n.t0_ns)
			continue;
		for (k = 0; k < n_seen; k++)
			if (seen[k].cpu == n.cpu && seen[k].t1_ns == n.t1_ns &&
			    seen[k].count == n.count)
				break;
		if (k < n_seen)
			continue;	/* another device's copy */
		if (n_seen < 16)
			seen[n_seen++] = n;
		total += n.count_known ? n.count : 1;
	}
	return total;
}

/* Whether buf, a file's tail, holds its recorder's end mark. */
static int tail_end_marked(const unsigned char *buf, size_t len)
{
	static const char lead[] = "end of cpu ";
	uint32_t action;
	uint16_t pdu_len;
	size_t i;

	for (i = BLK_IO_TRACE7_SIZE; i + sizeof(lead) - 1 <= len; i++) {
		const unsigned char *h = buf + i - BLK_IO_TRACE7_SIZE;

		if (memcmp(buf + i, lead, sizeof(lead) - 1))
			continue;
		action = blkrec_action(h, 1, 0);
		pdu_len = (uint16_t)blkrec_pdu_len(h, 1, 0);
		if (blkrec_magic(h, 0) == (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7) &&
		    i + pdu_len <= len &&
		    lossnote_is_end_mark(action, buf + i, pdu_len))
			return 1;
	}
	return 0;
}

void feed_unlocated_losses(const struct trace_source *src, uint64_t *count,
			   int *cut)
{
	unsigned char *buf;
	size_t i, marked = 0, unmarked = 0;

	*count = 0;
	*cut = 0;
	if (src->kind != TRACE_PERCPU || !(buf = malloc(TAIL_LOOK)))
		return;
	for (i = 0; i < src->n_paths; i++) {
		int fd = open(src->paths[i], O_RDONLY | O_CLOEXEC);
		off_t size;
		ssize_t got;

		if (fd < 0)
			continue;
		size = lseek(fd, 0, SEEK_END);
		/* a compressed file's tail is no records: nothing found */
		if (size > 0 && lseek(fd, size > TAIL_LOOK ? size - TAIL_LOOK :
				      0, SEEK_SET) >= 0 &&
		    (got = read(fd, buf, TAIL_LOOK)) > 0) {
			*count += tail_notes(buf, (size_t)got);
			if (tail_end_marked(buf, (size_t)got))
				marked++;
			else
				unmarked++;
		}
		close(fd);
	}
	free(buf);
	/* a set whose recorder marks its files' ends, one without: cut,
	 * and the notes written last may have gone with its end */
	*cut = marked && unmarked;
}

