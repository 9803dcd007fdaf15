/*
 * blkparse_feed.c: the reader's front door: turns a trace's files into a
 * time-ordered stream of events. Each file is a stream with its own
 * buffer and one decoded record of look-ahead, its bytes read through a
 * byte source (bytesrc.h: as they are, or decompressed) or made from
 * tracepoints (blocktp.h); a per-CPU set is merged by a binary heap of
 * its streams keyed by that record's time, so memory is a buffer per CPU
 * whatever the trace's length. A file that ends early (feed_ends.h) is a
 * loss note where it ends.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "blkparse_feed.h"
#include "reader/blkrec.h"
#include "reader/blktrace.h"
#include "reader/bytesrc.h"
#include "reader/feed_ends.h"
#include "reader/lossnote.h"
#include "reader/blocktp.h"
#include "reader/sniff.h"

/* Room for the largest record (a v8 header and a 64 KiB payload) and
 * reads of 64 KiB and more; mapped at once (bigmem.h). */
#define STREAM_BUF_SIZE	(128 * 1024)

struct stream {
	const char *path;
	struct byte_source src;	/* the file's bytes, decompressed if need be */
	unsigned char *buf;
	size_t start, end;	/* valid bytes are buf[start, end) */
	uint64_t buf_offset;	/* file offset of buf[0] */
	int at_eof;
	int detected, swap, version;
	size_t header_size;
	/* The look-ahead record, whole in buf at start: its time and length
	 * only; feed_next_batch decodes it into the caller's events. */
	uint64_t cur_time;
	size_t cur_len;
	unsigned order;		/* tie-break between equal times */
	int added_lines;	/* blkparse's "Input file" lines may come */
	/* tracepoints (perf script's text, trace-cmd's trace.dat), read as
	 * the records they stand for */
	const struct blocktp_input *tp;
	void *text;
	int looked;		/* the first bytes were looked at */
	/* a per-CPU file: its CPU, and its last whole record's time (as
	 * recorded), known before reading (feed_ends.h) */
	unsigned cpu;
	struct file_end file_end;
	/* it ends inside a record, at this offset (byte_word's) */
	int ends_in_record;
	uint64_t ends_at_offset;
	/* cut before its first whole record: all its CPU's events lost */
	int no_record, lost_whole;
};

struct feed {
	const struct trace_source *src;
	struct stream *streams;
	size_t n_streams;
	struct stream **heap;	/* streams with a record, min time first */
	size_t heap_len;
	struct stream *last;	/* stream whose record was handed out */
	int started;
	uint64_t genesis_ns;
	uint64_t n_events;
	/* the first TIMESTAMP note before time 0: its time, its wall clock */
	int stamp_seen;
	uint64_t stamp_ns;
	int64_t stamp_wall_ns;
	char warning[IOW_ERROR_LEN];
	/* where the set's files end, the latest (as recorded), and whether
	 * a recorder marked their ends (a file without the mark is cut) */
	uint64_t set_end_ns;
	int set_end_known, set_end_marked;
	/* files that ended early, and the note of the last (handed out
	 * as an event: its text stays until the next batch) */
	struct feed_cut *cuts;
	size_t n_cuts;
	char cut_note[LOSSNOTE_TEXT_MAX];
	size_t next_lost_whole;	/* streams looked at for lost_whole */
};

/* Make at least want bytes available from buf[start]; fewer only at EOF. */
static int stream_fill(struct stream *s, size_t want, struct iow_error *err)
{
	while (s->end - s->start < want && !s->at_eof) {
		ssize_t got;

		if (s->start > 0) {
			memmove(s->buf, s->buf + s->start, s->end - s->start);
			s->buf_offset += s->start;
			s->end -= s->start;
			s->start = 0;
		}
		got = s->text ? s->tp->read(s->text, s->buf + s->end,
					    STREAM_BUF_SIZE - s->end, err)
			      : bytesrc_read(&s->src, s->buf + s->end,
					     STREAM_BUF_SIZE - s->end, err);
		if (got < 0)
			return -1;
		if (got > 0 && !s->looked) {
			s->looked = 1;
			s->tp = input_tracepoints(s->buf + s->end, (size_t)got);
			if (s->tp) {
				s->text = s->tp->open(&s->src, s->buf + s->end,
						      (size_t)got, s->path, err);
				if (!s->text)
					return -1;
				continue;	/* read again, as records */
			}
		}
		if (got == 0)
			s->at_eof = 1;
		s->end += (size_t)got;
	}
	return 0;
}

/* What offsets count in messages: the file's bytes, or the data's after
 * decompression. */
static const char *byte_word(const struct stream *s)
{
	return s->src.ops->name ? "decompressed byte" : "byte";
}

/*
 * The first record's magic is not blktrace's: say what the data looks
 * like where that can be told (sniff.h), and what to give instead.
 */
static int not_a_trace(const struct stream *s, uint64_t offset,
		       uint32_t raw_magic, struct iow_error *err)
{
	const struct sniffed *look = sniff(s->buf + s->start,
					   s->end - s->start);
	const char *instead = sniff_instead(look, s->src.is_stdin);
	const char *kind = s->src.ops->name;
	char name_instead[PATH_MAX + 64];

	if (!s->src.is_stdin &&
	    sniff_name_instead(look, s->path, name_instead,
			       sizeof(name_instead)))
		instead = name_instead;
	if (!look)
		return iow_fail(err,
			"%s: %s %llu: not a blktrace record (magic 0x%08x; %s)",
			s->path, byte_word(s), (unsigned long long)offset,
			raw_magic, instead);
	return iow_fail(err, "%s: %s%s%s, not a blktrace trace (%s)",
			s->path, look->what, kind ? ", compressed with " : "",
			kind ? kind : "", instead);
}

static int stream_detect(struct stream *s, uint32_t raw_magic,
			 uint64_t offset, struct iow_error *err)
{
	uint32_t magic = raw_magic;

	if ((magic & BLK_IO_TRACE_MAGIC_MASK) != BLK_IO_TRACE_MAGIC) {
		magic = __builtin_bswap32(raw_magic);
		if ((magic & BLK_IO_TRACE_MAGIC_MASK) != BLK_IO_TRACE_MAGIC)
			return not_a_trace(s, offset, raw_magic, err);
		s->swap = 1;
	}
	s->version = magic & 0xff;
	if (s->version == BLK_IO_TRACE_VERSION7)
		s->header_size = BLK_IO_TRACE7_SIZE;
	else if (s->version == BLK_IO_TRACE_VERSION8)
		s->header_size = BLK_IO_TRACE8_SIZE;
	else
		return iow_fail(err,
			"%s: %s %llu: unknown record version %d (known: 7, 8)",
			s->path, byte_word(s), (unsigned long long)offset,
			s->version);
	s->detected = 1;
	return 0;
}

/*
 * The fast path of stream_advance (the record handed out already passed):
 * when the next record is whole in the buffer with a good magic, makes it
 * the look-ahead and returns 1; else 0, nothing changed, for the slow path
 * (which may move the buffer's bytes).
 */
static inline int stream_next_in_buffer(struct stream *s)
{
	const unsigned char *p = s->buf + s->start;
	size_t pdu_len;

	if (!s->detected || s->end - s->start < s->header_size)
		return 0;
	pdu_len = blkrec_pdu_len(p, s->version == BLK_IO_TRACE_VERSION7,
				 s->swap);
	if (blkrec_magic(p, s->swap) != (BLK_IO_TRACE_MAGIC | s->version) ||
	    s->end - s->start < s->header_size + pdu_len)
		return 0;
	s->cur_time = blkrec_time(p, s->swap);
	s->cur_len = s->header_size + pdu_len;
	return 1;
}

/*
 * A record's magic is wrong: the trace is corrupt, or, where it was
 * decompressed, the compressed data may be (its checksum, at the end of
 * a gzip member or an xz block, would say so later).
 */
static int bad_magic(const struct stream *s, uint64_t offset, uint32_t magic,
		     struct iow_error *err)
{
	const unsigned char *p = s->buf + s->start;
	const char *kind = s->src.ops->name;
	char maybe[64] = "";

	/* blkparse -d - without -o: its text comes down the same pipe */
	if (sniff_blkparse_text(p, s->end - s->start))
		return iow_fail(err,
			"%s: %s %llu: blkparse's text output inside the trace (%s)",
			s->path, byte_word(s), (unsigned long long)offset,
			sniff_instead(sniff(p, s->end - s->start), 1));
	if (kind)
		snprintf(maybe, sizeof(maybe),
			 ", or corrupt %s data (%s -t tests it)", kind, kind);
	return iow_fail(err,
		"%s: %s %llu: bad record magic 0x%08x (expected 0x%08x): corrupt trace%s",
		s->path, byte_word(s), (unsigned long long)offset, magic,
		BLK_IO_TRACE_MAGIC | s->version, maybe);
}

/*
 * Skips the stream's "Input file" line at s->start (the caller sees that
 * one may be there). Returns 1 when a line was skipped, 0 when the bytes
 * there are not one (an error to the caller), -1 on a read error.
 */
static int skip_added_line(struct stream *s, struct iow_error *err)
{
	for (;;) {
		size_t have = s->end - s->start, len;
		int more;

		len = blkrec_added_line_len(s->buf + s->start, have, &more);
		if (len) {
			s->start += len;
			return 1;
		}
		if (!more || s->at_eof)
			return 0;
		if (stream_fill(s, have + 1, err) < 0)
			return -1;
	}
}

/*
 * Makes the stream's next record (after the one handed out) the
 * look-ahead: whole in the buffer at s->start, magic checked, its time
 * read. Returns 1 with a record, 0 at the end (a partial header there is
 * a warning in f->warning), -1 on an error.
 */
static int stream_advance(struct feed *f, struct stream *s,
			  struct iow_error *err)
{
	size_t header_size = s->detected ? s->header_size : 4, pdu_len = 0;
	uint64_t offset;
	const unsigned char *p;
	uint32_t magic;

	s->start += s->cur_len;
	s->cur_len = 0;
	if (stream_next_in_buffer(s))
		return 1;
again:
	if (stream_fill(s, header_size, err) < 0)
		return -1;
	if (s->end == s->start && s->src.cut_short)
		snprintf(f->warning, sizeof(f->warning),
			 "%.400s; what came before is read", s->src.failure.msg);
	if (s->end == s->start)
		return 0;
	offset = s->buf_offset + s->start;
	if (s->end - s->start < 4)
		goto truncated;
	if (s->added_lines && !f->started &&
	    !memcmp(s->buf + s->start, "Inpu", 4)) {
		int r = skip_added_line(s, err);

		if (r < 0)
			return -1;
		if (r > 0)
			goto again;
	}
	magic = blkrec_magic(s->buf + s->start, 0);
	if (!s->detected && stream_detect(s, magic, offset, err) < 0)
		return -1;
	if (stream_fill(s, s->header_size, err) < 0)
		return -1;
	if (s->end - s->start < s->header_size)
		goto truncated;
	p = s->buf + s->start;
	if (blkrec_magic(p, s->swap) != (BLK_IO_TRACE_MAGIC | s->version))
		return bad_magic(s, offset, blkrec_magic(p, s->swap), err);
	pdu_len = blkrec_pdu_len(p, s->version == BLK_IO_TRACE_VERSION7,
				 s->swap);
	if (stream_fill(s, s->header_size + pdu_len, err) < 0)
		return -1;
	if (s->end - s->start < s->header_size + pdu_len &&
	    f->src->kind == TRACE_PERCPU)
		goto truncated;	/* a per-CPU file cut short: a loss */
	if (s->end - s->start < s->header_size + pdu_len)
		return iow_fail(err,
			"%s: %s %llu: record's payload of %zu bytes runs past the end of %s (%llu bytes)",
			s->path, byte_word(s), (unsigned long long)offset,
			pdu_len, s->src.ops->name ? "the data" : "the file",
			(unsigned long long)(s->buf_offset + s->end));
	p = s->buf + s->start;
	s->cur_time = blkrec_time(p, s->swap);
	s->cur_len = s->header_size + pdu_len;
	return 1;

truncated:
	if (s->src.cut_short)
		snprintf(f->warning, sizeof(f->warning),
			 "%.400s; what came before is read", s->src.failure.msg);
	else
		snprintf(f->warning, sizeof(f->warning),
			 "%s: %s %llu: truncated last record (%zu of %zu bytes) ignored",
			 s->path, byte_word(s), (unsigned long long)offset,
			 s->end - s->start,
			 s->detected && s->end - s->start >= s->header_size ?
			 s->header_size + pdu_len :
			 s->detected ? s->header_size :
				       (size_t)BLK_IO_TRACE7_SIZE);
	s->ends_in_record = 1;
	s->ends_at_offset = offset;
	s->start = s->end;
	return 0;
}

static int stream_before(const struct stream *a, const struct stream *b)
{
	if (a->cur_time != b->cur_time)
		return a->cur_time < b->cur_time;
	return a->order < b->order;
}

static void heap_sift_down(struct feed *f, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct stream *tmp;

		if (l < f->heap_len && stream_before(f->heap[l], f->heap[m]))
			m = l;
		if (r < f->heap_len && stream_before(f->heap[r], f->heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = f->heap[i];
		f->heap[i] = f->heap[m];
		f->heap[m] = tmp;
		i = m;
	}
}

static void heap_build(struct feed *f)
{
	size_t i = f->heap_len / 2;

	while (i-- > 0)
		heap_sift_down(f, i);
}

/* ---- files that end early ---- */

/*
 * Whether s was cut short: it ends inside a record, or its compressed
 * data ends early, or its recorder marked the others' ends and not its.
 */
static int cut_short(const struct feed *f, const struct stream *s)
{
	return s->ends_in_record || s->src.cut_short ||
	       (f->set_end_marked && !s->file_end.end_mark);
}

/* Where each file of a per-CPU set ends, and the set's latest end. */
static void find_set_end(struct feed *f)
{
	size_t i;

	if (f->src->kind != TRACE_PERCPU || f->n_streams < 2)
		return;
	for (i = 0; i < f->n_streams; i++) {
		struct stream *s = &f->streams[i];
		struct record_format fmt = { s->swap, s->version,
					     s->header_size };

		s->cpu = feed_cpu_of_path(s->path);
		if (!s->detected ||
		    !feed_file_end(s->path, s->src.ops->name != NULL, &fmt,
				   &s->file_end))
			continue;
		if (!f->set_end_known || s->file_end.last_ns > f->set_end_ns)
			f->set_end_ns = s->file_end.last_ns;
		f->set_end_known = 1;
		f->set_end_marked |= s->file_end.end_mark;
	}
	for (i = 0; i < f->n_streams; i++) {
		struct stream *s = &f->streams[i];

		s->lost_whole = s->no_record && cut_short(f, s);
	}
}

/*
 * Whether s, whose last record was at s->cur_time, ends early: cut short
 * while the others go on. Without the recorders' end marks (blktrace's
 * files), a file that ends at a record's end is taken as whole: a CPU's
 * file may end seconds before the others with nothing lost (a job that
 * finished, an idle CPU: four of the samples' sets do), and recorders
 * write whole records, so a copy cut short or a disk that filled most
 * likely ends inside one.
 */
static int ends_early(const struct feed *f, const struct stream *s)
{
	return cut_short(f, s) && f->set_end_known && f->heap_len &&
	       f->started &&
	       feed_ends_early(f->set_end_ns, f->genesis_ns, s->cur_time);
}

/*
 * s has ended early: the cut is kept (feed_cuts), and a loss note
 * (lossnote.h, "file of cpu C ends early") goes into ev at its last
 * record's time, before any later record of the others: the analysis
 * forgets what was in flight there and times nothing after.
 */
static int note_cut(struct feed *f, struct stream *s, uint64_t t0_ns,
		    struct io_event *ev)
{
	struct lossnote n = { .cpu = s->cpu, .t0_ns = t0_ns,
			      .t1_ns = f->set_end_ns };
	uint64_t genesis = f->started ? f->genesis_ns : t0_ns;
	struct feed_cut *more = realloc(f->cuts,
					(f->n_cuts + 1) * sizeof(*more));

	if (!more)
		return -1;
	f->cuts = more;
	f->cuts[f->n_cuts++] = (struct feed_cut){
		.path = s->path, .cpu = s->cpu,
		.at_s = (double)(t0_ns - genesis) / 1e9,
		.trace_end_s = (double)(f->set_end_ns - genesis) / 1e9,
		.in_record = s->ends_in_record,
		.offset = s->ends_at_offset,
		.compressed_cut = s->src.cut_short,
		.compression = s->src.ops->name,
		.bytes_read = s->src.out_offset,
		.no_record = s->no_record,
		.no_end_mark = !s->ends_in_record && !s->src.cut_short,
	};
	/* this file's "truncated last record" or "cut short" is said by
	 * the cut */
	if (s->ends_in_record || s->src.cut_short)
		f->warning[0] = '\0';
	memset(ev, 0, sizeof(*ev));
	ev->action = LOSSNOTE_ACTION;
	ev->cpu = s->cpu;
	ev->tag = IO_EVENT_NO_TAG;
	ev->time_ns = t0_ns - genesis;
	ev->pdu_len = lossnote_format_file_end(&n, f->cut_note);
	ev->pdu = (const unsigned char *)f->cut_note;
	ev->index = f->n_events++;
	return 0;
}

/*
 * A file cut before its first whole record (a compressed one whose first
 * block is cut: the decompressor gives nothing of it): its CPU's events
 * are all lost, the loss from the trace's first record on. One such note
 * into ev, first of all (1), or none left (0).
 */
static int note_lost_whole(struct feed *f, struct io_event *ev,
			   struct iow_error *err)
{
	while (f->next_lost_whole < f->n_streams) {
		struct stream *s = &f->streams[f->next_lost_whole++];

		if (!s->lost_whole || !f->set_end_known || !f->heap_len)
			continue;
		if (note_cut(f, s, f->heap[0]->cur_time, ev) < 0)
			return iow_fail(err, "out of memory");
		return 1;
	}
	return 0;
}

size_t feed_cuts(const struct feed *f, const struct feed_cut **cuts)
{
	*cuts = f->cuts;
	return f->n_cuts;
}

static int open_stream(struct stream *s, const char *path, int flags,
		       struct iow_error *err)
{
	s->path = path;
	if (bytesrc_open(&s->src, path, flags, err) < 0)
		return -1;
	s->buf = bigmem_calloc(STREAM_BUF_SIZE);
	if (!s->buf)
		return iow_fail(err, "%s: out of memory", path);
	return 0;
}

struct feed *feed_open(const struct trace_source *src, struct iow_error *err)
{
	struct feed *f = calloc(1, sizeof(*f));
	size_t i;

	if (!f) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	f->src = src;
	f->n_streams = src->n_paths;
	f->streams = calloc(f->n_streams, sizeof(*f->streams));
	f->heap = calloc(f->n_streams, sizeof(*f->heap));
	if (!f->streams || !f->heap) {
		iow_fail(err, "out of memory");
		goto fail;
	}
	for (i = 0; i < f->n_streams; i++)
		f->streams[i].order = (unsigned)i;
	for (i = 0; i < f->n_streams; i++) {
		int flags = src->kind == TRACE_STDIN ? BYTESRC_STDIN :
			    src->kind == TRACE_PERCPU ? BYTESRC_PART : 0;
		int r;

		if (open_stream(&f->streams[i], src->paths[i], flags, err) < 0)
			goto fail;
		/* blkparse writes dumps; per-CPU files come from blktrace */
		f->streams[i].added_lines = src->kind != TRACE_PERCPU;
		r = stream_advance(f, &f->streams[i], err);
		if (r < 0)
			goto fail;
		if (r > 0)
			f->heap[f->heap_len++] = &f->streams[i];
		f->streams[i].no_record = r == 0;
	}
	if (f->heap_len == 0) {
		if (f->warning[0])
			iow_fail(err, "%s", f->warning);
		else
			iow_fail(err, "%s: empty trace: no events",
				 src->name);
		goto fail;
	}
	heap_build(f);
	find_set_end(f);
	return f;
fail:
	feed_close(f);
	return NULL;
}

/*
 * A TIMESTAMP note before time 0 (blktrace's and our recorders', at the
 * start): the wall clock (two u32, seconds and nanoseconds, in the
 * trace's byte order) at the note's own time. The first one counts.
 */
static void keep_stamp(struct feed *f, const struct stream *s,
		       const struct io_event *ev)
{
	int64_t wall_ns;

	if (f->stamp_seen || !blkrec_timestamp(ev, s->swap, &wall_ns))
		return;
	f->stamp_seen = 1;
	f->stamp_ns = ev->time_ns;
	f->stamp_wall_ns = wall_ns;
}

/* The heap's first stream's record, decoded into ev and handed out. */
static inline void hand_out(struct feed *f, struct stream *s,
			    struct io_event *ev)
{
	blkrec_decode(s->buf + s->start, ev,
		      s->version == BLK_IO_TRACE_VERSION7, s->swap);
	/*
	 * Time 0 is the first event that is not a note, as in blkparse;
	 * notes before it (a TIMESTAMP, the first PROCESS names) sit at 0.
	 */
	if (__builtin_expect(!f->started, 0)) {
		if (!blk_is_note(ev->action)) {
			f->started = 1;
			f->genesis_ns = ev->time_ns;
		} else {
			keep_stamp(f, s, ev);
			ev->time_ns = f->genesis_ns = 0;
		}
	}
	/* Time going backwards within a file lands at 0, not at 2^64. */
	ev->time_ns = ev->time_ns > f->genesis_ns ?
		      ev->time_ns - f->genesis_ns : 0;
	ev->index = f->n_events++;
}

/* Why a run of one stream's records stopped. */
enum run_end {
	RUN_OTHER,	/* another stream's record comes first */
	RUN_FULL,	/* max events, or no room for the next payload */
	RUN_REFILL,	/* the next record is not whole in the buffer */
};

/*
 * Hands out s's records (s first in time, its look-ahead whole in the
 * buffer) into ev[0..max) until another stream's comes first (time
 * until, order until_order), the batch is full, or s's buffer must be
 * filled again; returns how many, the reason in *why. Specialised by
 * record version and byte order (constants where it is inlined): the
 * loop keeps the stream's place in registers.
 */
static inline size_t run_of(struct feed *f, struct stream *s,
			    struct io_event *ev, size_t max,
			    size_t *pdu_room, uint64_t until,
			    unsigned until_order, const int v7, const int sw,
			    enum run_end *why)
{
	const size_t hs = v7 ? BLK_IO_TRACE7_SIZE : BLK_IO_TRACE8_SIZE;
	const uint32_t magic = BLK_IO_TRACE_MAGIC |
			       (v7 ? BLK_IO_TRACE_VERSION7 :
				     BLK_IO_TRACE_VERSION8);
	const unsigned char *p = s->buf + s->start, *end = s->buf + s->end;
	size_t len = s->cur_len, room = *pdu_room, n = 0;
	uint64_t genesis = f->genesis_ns, index = f->n_events;
	uint64_t t = s->cur_time;

	*why = RUN_FULL;
	while (n < max) {
		struct io_event *e = &ev[n];
		size_t pdu_len = len - hs;

		if (pdu_len > room)
			break;
		room -= pdu_len;
		blkrec_decode_fields(p, e, v7, sw);
		e->pdu = pdu_len ? p + hs : NULL;
		/* time going backwards within a file lands at 0 */
		e->time_ns = t > genesis ? t - genesis : 0;
		e->index = index++;
		n++;
		/* the next record, if whole in the buffer */
		p += len;
		if ((size_t)(end - p) < hs ||
		    blkrec_magic(p, sw) != magic ||
		    (size_t)(end - p) < hs + (pdu_len = blkrec_pdu_len(p, v7,
								       sw))) {
			len = 0;
			*why = RUN_REFILL;
			break;
		}
		len = hs + pdu_len;
		t = blkrec_time(p, sw);
		if (t > until || (t == until && s->order > until_order)) {
			*why = RUN_OTHER;
			break;
		}
	}
	s->start = (size_t)(p - s->buf);
	s->cur_len = len;
	s->cur_time = t;
	*pdu_room = room;
	f->n_events = index;
	return n;
}

long feed_next_batch(struct feed *f, struct io_event *ev, size_t max,
		     size_t pdu_room, struct iow_error *err)
{
	size_t n = 0;

	if (!f->started && max) {
		int r = note_lost_whole(f, ev, err);

		if (r != 0)
			return r;
	}
	if (f->last) {
		struct stream *s = f->last;
		int r = stream_advance(f, s, err);

		if (r < 0)
			return -1;
		if (r == 0)
			f->heap[0] = f->heap[--f->heap_len];
		f->last = NULL;
		if (f->heap_len)
			heap_sift_down(f, 0);
		if (r == 0 && max && ends_early(f, s)) {
			if (note_cut(f, s, s->cur_time, &ev[n]) < 0)
				return iow_fail(err, "out of memory");
			if (ev[n].pdu_len <= pdu_room)
				pdu_room -= ev[n].pdu_len;
			n++;
		}
	}
	while (n < max && f->heap_len) {
		struct stream *s = f->heap[0];
		uint64_t until = UINT64_MAX;
		unsigned until_order = UINT_MAX;
		enum run_end why;

		if (__builtin_expect(!f->started, 0)) {
			/* up to time 0: an event at a time */
			size_t pdu_len = s->cur_len - s->header_size;

			if (pdu_len > pdu_room)
				break;
			pdu_room -= pdu_len;
			hand_out(f, s, &ev[n++]);
			s->start += s->cur_len;
			s->cur_len = 0;
			if (!stream_next_in_buffer(s)) {
				f->last = s;
				break;
			}
			heap_sift_down(f, 0);
			continue;
		}
		if (f->heap_len > 1) {
			struct stream *c = f->heap[1];

			if (f->heap_len > 2 && stream_before(f->heap[2], c))
				c = f->heap[2];
			until = c->cur_time;
			until_order = c->order;
		}
		if (s->version == BLK_IO_TRACE_VERSION8 && !s->swap)
			n += run_of(f, s, ev + n, max - n, &pdu_room, until,
				    until_order, 0, 0, &why);
		else if (s->version == BLK_IO_TRACE_VERSION8)
			n += run_of(f, s, ev + n, max - n, &pdu_room, until,
				    until_order, 0, 1, &why);
		else if (!s->swap)
			n += run_of(f, s, ev + n, max - n, &pdu_room, until,
				    until_order, 1, 0, &why);
		else
			n += run_of(f, s, ev + n, max - n, &pdu_room, until,
				    until_order, 1, 1, &why);
		if (why == RUN_REFILL) {
			/*
			 * The batch ends here: filling the buffer would move
			 * the payloads just handed out.
			 */
			f->last = s;
			break;
		}
		if (why == RUN_FULL)
			break;
		heap_sift_down(f, 0);
	}
	return (long)n;
}

const char *feed_warning(const struct feed *f)
{
	return f->warning[0] ? f->warning : NULL;
}

int feed_origin(const struct feed *f, struct feed_origin *o)
{
	memset(o, 0, sizeof(*o));
	if (!f->started)
		return 0;
	o->clock_ns = f->genesis_ns;
	/*
	 * A note stamped after time 0 is on another clock than the events
	 * (a blkparse -d dump counts the events from 0, not its notes): no
	 * wall clock then, rather than one made up.
	 */
	o->notes_off_clock = f->stamp_seen && f->stamp_ns > f->genesis_ns;
	if (f->stamp_seen && f->stamp_ns <= f->genesis_ns) {
		o->wall_known = 1;
		o->wall_ns = f->stamp_wall_ns +
			     (int64_t)(f->genesis_ns - f->stamp_ns);
	}
	return 1;
}

int feed_is_stream(const struct feed *f)
{
	return f->src->kind == TRACE_STDIN;
}

static int feed_decompresses(const struct feed *f)
{
	size_t i;

	for (i = 0; i < f->n_streams; i++)
		if (f->streams[i].src.ops->name)
			return 1;
	return 0;
}

static long next_batch_of(void *f, struct io_event *ev, size_t max,
			  size_t pdu_room, struct iow_error *err)
{
	return feed_next_batch(f, ev, max, pdu_room, err);
}

struct feed_pipe *feed_start_pipe(struct feed *f, int cpu_to_spare,
				  struct iow_error *err)
{
	struct feed_pipe_source src = { f, next_batch_of, feed_is_stream(f),
					feed_decompresses(f) };

	return feed_pipe_start(&src, cpu_to_spare, err);
}

void feed_close(struct feed *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; f->streams && i < f->n_streams; i++) {
		struct stream *s = &f->streams[i];

		if (s->text)
			s->tp->free(s->text);
		bytesrc_close(&s->src);
		bigmem_free(s->buf);
	}
	free(f->streams);
	free(f->heap);
	free(f->cuts);
	free(f);
}

