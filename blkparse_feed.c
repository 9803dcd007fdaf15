/*
 * blkparse_feed.c: turns trace files into a time-ordered stream of events.
 * Each file is a stream with its own buffer and one decoded record of
 * look-ahead, its bytes read through a byte source (bytesrc.h: as they
 * are, or decompressed); a per-CPU set is merged by a binary heap of its
 * streams keyed by that record's time, so memory is a buffer per CPU
 * whatever the trace's length.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "base/vec.h"
#include "blkparse_feed.h"
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

static uint16_t swap16(uint16_t v)
{
	return __builtin_bswap16(v);
}

static uint32_t load32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t load64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static uint16_t load16(const unsigned char *p, int swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? swap16(v) : v;
}

/* The inputs of tracepoints, by their first bytes (blocktp.h). */
static const struct blocktp_input *const tracepoint_inputs[] = {
	&tracedat_input,
	&perftext_input,
};

static const struct blocktp_input *tracepoint_input(const unsigned char *p,
						    size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(tracepoint_inputs) /
			sizeof(tracepoint_inputs[0]); i++)
		if (tracepoint_inputs[i]->looks(p, len))
			return tracepoint_inputs[i];
	return NULL;
}

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
			s->tp = tracepoint_input(s->buf + s->end, (size_t)got);
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
 * A record's fields into ev, all but its time (the caller's to set, from
 * genesis) and payload pointer: for a version (v7) and byte order (sw)
 * that run_of's callers make constants.
 */
static inline void decode_fields(const unsigned char *p, struct io_event *ev,
				 const int v7, const int sw)
{
	ev->sequence = load32(p + 4, sw);
	ev->sector = load64(p + 16, sw);
	ev->bytes = load32(p + 24, sw);
	if (v7) {
		ev->action = load32(p + 28, sw);
		ev->action_hi = 0;
		ev->pid = load32(p + 32, sw);
		ev->device = load32(p + 36, sw);
		ev->cpu = load32(p + 40, sw);
		ev->error = load16(p + 44, sw);
		ev->pdu_len = load16(p + 46, sw);
	} else {
		ev->pid = load32(p + 28, sw);
		uint64_t action = load64(p + 32, sw);

		ev->action = (uint32_t)action;
		ev->action_hi = (uint32_t)(action >> 32);
		ev->device = load32(p + 40, sw);
		ev->cpu = load32(p + 44, sw);
		ev->error = load16(p + 48, sw);
		ev->pdu_len = load16(p + 50, sw);
	}
	ev->tag = IO_EVENT_NO_TAG;
	ev->cause = 0;
}

static void decode_header(struct stream *s, const unsigned char *p,
			  struct io_event *ev)
{
	decode_fields(p, ev, s->version == BLK_IO_TRACE_VERSION7, s->swap);
	ev->time_ns = load64(p + 8, s->swap);
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
	pdu_len = load16(p + (s->version == BLK_IO_TRACE_VERSION7 ? 46 : 50),
			 s->swap);
	if (load32(p, s->swap) != (BLK_IO_TRACE_MAGIC | s->version) ||
	    s->end - s->start < s->header_size + pdu_len)
		return 0;
	s->cur_time = load64(p + 8, s->swap);
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

/* "Input file DIR/NAME.blktrace.N added\n": a path and the words. */
#define ADDED_LINE_MAX	(PATH_MAX + 32)

/*
 * blkparse -d - writes a line "Input file NAME.blktrace.N added" to its
 * standard output for each per-CPU file it opens (-q does not stop it),
 * between the notes it copies while it opens them: all before the first
 * record that is not a note. If p[0, have) starts with such a line,
 * whole, returns its length; else 0, with *more set if more bytes could
 * make it one.
 */
static size_t added_line_len(const unsigned char *p, size_t have, int *more)
{
	static const char head[] = "Input file ", tail[] = " added\n";
	const size_t head_len = sizeof(head) - 1, tail_len = sizeof(tail) - 1;
	const unsigned char *nl;
	size_t len;

	*more = 0;
	if (memcmp(p, head, have < head_len ? have : head_len))
		return 0;
	nl = memchr(p, '\n', have < ADDED_LINE_MAX ? have : ADDED_LINE_MAX);
	if (!nl) {
		*more = have < ADDED_LINE_MAX;
		return 0;
	}
	len = (size_t)(nl - p) + 1;
	if (len <= head_len + tail_len ||
	    memcmp(nl + 1 - tail_len, tail, tail_len) || memchr(p, '\0', len))
		return 0;
	return len;
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

		len = added_line_len(s->buf + s->start, have, &more);
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
	magic = load32(s->buf + s->start, 0);
	if (!s->detected && stream_detect(s, magic, offset, err) < 0)
		return -1;
	if (stream_fill(s, s->header_size, err) < 0)
		return -1;
	if (s->end - s->start < s->header_size)
		goto truncated;
	p = s->buf + s->start;
	if (load32(p, s->swap) != (BLK_IO_TRACE_MAGIC | s->version))
		return bad_magic(s, offset, load32(p, s->swap), err);
	pdu_len = load16(p + (s->version == BLK_IO_TRACE_VERSION7 ? 46 : 50),
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
	s->cur_time = load64(p + 8, s->swap);
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
 * A file's end is early when the set's other files go on past it by
 * more than this (and 1% of the trace): a CPU with nothing more to
 * record stops a little before the others, a cut file well before.
 */
#define CUT_SLACK_NS	(10 * 1000 * 1000ull)

/* The N of NAME.blktrace.N[.gz...]; 0 for another name. */
static unsigned cpu_of_path(const char *path)
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

		s->cpu = cpu_of_path(s->path);
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
	uint64_t start = f->genesis_ns, slack = CUT_SLACK_NS;

	if (!cut_short(f, s) ||
	    !f->set_end_known || f->heap_len == 0 || !f->started ||
	    f->set_end_ns <= s->cur_time)
		return 0;
	if (f->set_end_ns > start && (f->set_end_ns - start) / 100 > slack)
		slack = (f->set_end_ns - start) / 100;
	return f->set_end_ns - s->cur_time > slack;
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

static size_t payload(const struct io_event *ev, const unsigned char **p);

/*
 * A TIMESTAMP note before time 0 (blktrace's and our recorders', at the
 * start): the wall clock (two u32, seconds and nanoseconds, in the
 * trace's byte order) at the note's own time. The first one counts.
 */
static void keep_stamp(struct feed *f, const struct stream *s,
		       const struct io_event *ev)
{
	const unsigned char *p;
	uint32_t sec, nsec;

	if (f->stamp_seen || blk_action_code(ev->action) != BLK_TN_TIMESTAMP ||
	    payload(ev, &p) < 8)
		return;
	sec = load32(p, s->swap);
	nsec = load32(p + 4, s->swap);
	if (nsec >= 1000000000u)
		return;		/* not a time: no anchor rather than a wrong one */
	f->stamp_seen = 1;
	f->stamp_ns = ev->time_ns;
	f->stamp_wall_ns = (int64_t)sec * 1000000000 + nsec;
}

/* The heap's first stream's record, decoded into ev and handed out. */
static inline void hand_out(struct feed *f, struct stream *s,
			    struct io_event *ev)
{
	decode_header(s, s->buf + s->start, ev);
	ev->pdu = ev->pdu_len ? s->buf + s->start + s->header_size : NULL;
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
		decode_fields(p, e, v7, sw);
		e->pdu = pdu_len ? p + hs : NULL;
		/* time going backwards within a file lands at 0 */
		e->time_ns = t > genesis ? t - genesis : 0;
		e->index = index++;
		n++;
		/* the next record, if whole in the buffer */
		p += len;
		if ((size_t)(end - p) < hs ||
		    load32(p, sw) != magic ||
		    (size_t)(end - p) < hs + (pdu_len = load16(p + (v7 ? 46 :
								      50),
								  sw))) {
			len = 0;
			*why = RUN_REFILL;
			break;
		}
		len = hs + pdu_len;
		t = load64(p + 8, sw);
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

int feed_decompresses(const struct feed *f)
{
	size_t i;

	for (i = 0; i < f->n_streams; i++)
		if (f->streams[i].src.ops->name)
			return 1;
	return 0;
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

/* The payload past the cgroup id a record may start it with; its length
 * (0 when there is none, or the cgroup id is cut short). */
static size_t payload(const struct io_event *ev, const unsigned char **p)
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

	if (payload(ev, &p) < BLK_REMAP_PDU_SIZE)
		return -1;
	/* The remap payload is big-endian whatever the trace's order. */
	*from_dev = __builtin_bswap32(load32(p, 0));
	*to_dev = __builtin_bswap32(load32(p + 4, 0));
	*from_sector = __builtin_bswap64(load64(p + 8, 0));
	return 0;
}

int feed_decode_split(const struct io_event *ev, uint64_t *rest_sector)
{
	const unsigned char *p;

	if (payload(ev, &p) < 8)
		return -1;
	/* Big-endian, as the remap payload. */
	*rest_sector = __builtin_bswap64(load64(p, 0));
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
		memcpy(&action, h + 28, 4);
		memcpy(&pdu_len, h + 46, 2);
		if (load32(h, 0) != (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7) ||
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
		memcpy(&action, h + 28, 4);
		memcpy(&pdu_len, h + 46, 2);
		if (load32(h, 0) == (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7) &&
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

/* ---- finding traces ---- */

static int add_source(struct trace_list *list, enum trace_kind kind,
		      const char *name, char **paths, size_t n_paths,
		      struct iow_error *err)
{
	struct trace_source *items, *src;
	const char *base = strrchr(name, '/');

	items = realloc(list->items, (list->n + 1) * sizeof(*items));
	if (!items)
		return iow_fail(err, "out of memory");
	list->items = items;
	src = &items[list->n++];
	src->kind = kind;
	src->name = strdup(name);
	src->label = strdup(base && base[1] ? base + 1 : name);
	src->paths = paths;
	src->n_paths = n_paths;
	if (!src->name || !src->label)
		return iow_fail(err, "out of memory");
	/* a compressed dump's label is the dump's: x.dump.xz is x.dump */
	if (kind == TRACE_DUMP)
		src->label[strlen(src->label) -
			   bytesrc_suffix_len(src->label)] = '\0';
	return 0;
}

/*
 * If name is "BASE.blktrace.N", the length of BASE; else 0. A compressed
 * file (BASE.blktrace.N.gz...) is one of the set too.
 */
static size_t percpu_base_len(const char *name)
{
	static const char tail[] = ".blktrace.";
	const size_t tail_len = sizeof(tail) - 1;
	size_t len = strlen(name) - bytesrc_suffix_len(name), digits = 0;

	while (digits < len && isdigit((unsigned char)name[len - 1 - digits]))
		digits++;
	if (!digits || len - digits <= tail_len ||
	    strncmp(name + len - digits - tail_len, tail, tail_len))
		return 0;
	return len - digits - tail_len;
}

/* The N of BASE.blktrace.N[.gz...], whose BASE is base_len long. */
static int cpu_of(const char *name, size_t base_len)
{
	return atoi(name + base_len + strlen(".blktrace."));
}

struct cpu_file {
	int cpu;
	int compressed;		/* by its name: for choosing, not reading */
	char *path;
};

/* By CPU; a CPU's plain file (a copy kept by gzip -k...) first. */
static int cmp_cpu_file(const void *a, const void *b)
{
	const struct cpu_file *x = a, *y = b;

	if (x->cpu != y->cpu)
		return (x->cpu > y->cpu) - (x->cpu < y->cpu);
	if (x->compressed != y->compressed)
		return x->compressed - y->compressed;
	return strcmp(x->path, y->path);
}

/* Collect DIR/BASE.blktrace.N into a per-CPU source; 0 if none found. */
static int find_percpu_set(const char *dir, const char *base,
			   const char *name, struct trace_list *list,
			   struct iow_error *err)
{
	size_t base_len = strlen(base), n = 0, cap = 0, n_kept, i;
	struct cpu_file *files = NULL;
	struct dirent *de;
	char **paths;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct cpu_file *more;

		if (percpu_base_len(de->d_name) != base_len ||
		    strncmp(de->d_name, base, base_len))
			continue;
		if (n == cap) {
			more = vec_grow(files, &cap, n + 1, sizeof(*files), 8);
			if (!more)
				goto oom;
			files = more;
		}
		if (asprintf(&files[n].path, "%s/%s", dir, de->d_name) < 0)
			goto oom;
		files[n].cpu = cpu_of(de->d_name, base_len);
		files[n++].compressed = bytesrc_suffix_len(de->d_name) > 0;
	}
	closedir(d);
	d = NULL;
	if (!n) {
		free(files);
		return 0;
	}
	qsort(files, n, sizeof(*files), cmp_cpu_file);
	paths = calloc(n, sizeof(*paths));
	if (!paths)
		goto oom;
	/* one file a CPU: the first (see cmp_cpu_file) */
	for (i = 0, n_kept = 0; i < n; i++) {
		if (n_kept && files[i].cpu == files[i - 1].cpu) {
			free(files[i].path);
			continue;
		}
		paths[n_kept++] = files[i].path;
	}
	free(files);
	if (add_source(list, TRACE_PERCPU, name, paths, n_kept, err) < 0)
		return -1;
	return 1;
oom:
	if (d)
		closedir(d);
	for (i = 0; i < n; i++)
		free(files[i].path);
	free(files);
	return iow_fail(err, "out of memory");
}

/* A dump's start: a record, or blkparse's lines and then a record. */
static int starts_as_trace(const unsigned char *p, size_t have)
{
	size_t len;
	uint32_t m;
	int more;

	while ((len = added_line_len(p, have, &more))) {
		p += len;
		have -= len;
	}
	if (have < 4)
		return 0;
	m = load32(p, 0);
	return (m & BLK_IO_TRACE_MAGIC_MASK) == BLK_IO_TRACE_MAGIC ||
	       (__builtin_bswap32(m) & BLK_IO_TRACE_MAGIC_MASK) ==
		       BLK_IO_TRACE_MAGIC;
}

/* What a file that is not a trace seems to be (for a directory's
 * message). */
struct seen_file {
	const char *name;
	const struct sniffed *look;		/* or NULL: unknown */
	const struct compression *compression;	/* or NULL */
};

/*
 * Whether path holds a dump, compressed or not; if not, what it seems
 * to be in *seen (from its decompressed start, or its compression where
 * that is not read here).
 */
static int probe_file(const char *path, struct seen_file *seen)
{
	unsigned char start[2 * ADDED_LINE_MAX];
	struct iow_error ignored;
	struct byte_source bs;
	size_t have = 0;
	ssize_t got = -1;

	if (bytesrc_open(&bs, path, 0, &ignored) == 0)
		while (have < sizeof(start) &&
		       (got = bytesrc_read(&bs, start + have,
					   sizeof(start) - have,
					   &ignored)) > 0)
			have += (size_t)got;
	seen->compression = bs.compression;
	seen->look = NULL;
	bytesrc_close(&bs);
	if (got < 0)
		return 0;
	if (have && starts_as_trace(start, have))
		return 1;
	seen->look = sniff(start, have);
	return 0;
}

static int add_single_file(struct trace_list *list, enum trace_kind kind,
			   const char *path, struct iow_error *err)
{
	char **paths = calloc(1, sizeof(*paths));

	if (!paths || !(paths[0] = strdup(path))) {
		free(paths);
		return iow_fail(err, "out of memory");
	}
	return add_source(list, kind, path, paths, 1, err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How many files a directory's message names. */
#define SEEN_NAMED	3

/*
 * A directory with no trace: what its files seemed to be (the first
 * SEEN_NAMED of them that seemed to be something), and what to give.
 */
static int no_trace_in(const char *dir, const struct seen_file *seen,
		       size_t n_seen, size_t n_files, struct iow_error *err)
{
	const struct sniffed *advice = n_seen ? seen[0].look : NULL;
	char found[IOW_ERROR_LEN] = "";
	size_t i, used = 0;

	for (i = 0; i < n_seen && i < SEEN_NAMED; i++) {
		const struct seen_file *f = &seen[i];
		int n;

		if (f->look != advice)
			advice = NULL;	/* one piece of advice for all */
		if (f->look)
			n = snprintf(found + used, sizeof(found) - used,
				     "%s: %s%s%s; ", f->name, f->look->what,
				     f->compression ? ", compressed with " : "",
				     f->compression ? f->compression->name : "");
		else
			n = snprintf(found + used, sizeof(found) - used,
				     "%s: %s-compressed, not read here; ",
				     f->name, f->compression->name);
		if (n < 0 || (size_t)n >= sizeof(found) - used)
			break;
		used += (size_t)n;
	}
	if (n_files > i)
		snprintf(found + used, sizeof(found) - used,
			 "%s%zu other file%s; ", i ? "and " : "", n_files - i,
			 n_files - i == 1 ? "" : "s");
	if (!n_files)
		return iow_fail(err,
			"%s: directory holds no blktrace trace (no files in it; %s)",
			dir, sniff_instead(NULL, 0));
	return iow_fail(err, "%s: directory holds no blktrace trace (%s%s)",
			dir, found, sniff_instead(advice, 0));
}

static int find_in_directory(const char *dir, struct trace_list *list,
			     struct iow_error *err)
{
	size_t before = list->n, n = 0, cap = 0, set_len = 0, i;
	size_t n_files = 0, n_seen = 0;
	struct seen_file seen[SEEN_NAMED];
	const char *set = NULL;	/* the last set's first file's name */
	char **names = NULL;
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(dir);

	if (!d)
		return iow_fail(err, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **more;

			more = vec_grow(names, &cap, n + 1, sizeof(*names),
					16);
			if (!more) {
				ret = iow_fail(err, "out of memory");
				goto out;
			}
			names = more;
		}
		if (!(names[n] = strdup(de->d_name))) {
			ret = iow_fail(err, "out of memory");
			goto out;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n && ret == 0; i++) {
		size_t base_len = percpu_base_len(names[i]);
		char *path;
		struct stat st;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			ret = iow_fail(err, "out of memory");
			break;
		}
		if (base_len) {
			/* One source per set, found at its first file. */
			if (!set || set_len != base_len ||
			    strncmp(set, names[i], base_len)) {
				path[strlen(dir) + 1 + base_len] = '\0';
				names[i][base_len] = '\0';
				ret = find_percpu_set(dir, names[i], path, list,
						      err) < 0 ? -1 : 0;
				names[i][base_len] = '.';
				set = names[i];
				set_len = base_len;
			}
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			struct seen_file f = { names[i], NULL, NULL };

			n_files++;
			if (probe_file(path, &f))
				ret = add_single_file(list, TRACE_DUMP, path,
						      err);
			else if (n_seen < SEEN_NAMED &&
				 (f.look || f.compression))
				seen[n_seen++] = f;
		}
		free(path);
	}
	if (ret == 0 && list->n == before)
		ret = no_trace_in(dir, seen, n_seen, n_files, err);
out:
	closedir(d);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int find_by_base(const char *arg, struct trace_list *list,
			struct iow_error *err)
{
	char *copy = strdup(arg), *slash;
	const char *dir = ".", *base = copy;
	int r;

	if (!copy)
		return iow_fail(err, "out of memory");
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		dir = copy[0] ? copy : "/";
		base = slash + 1;
	}
	r = find_percpu_set(dir, base, arg, list, err);
	free(copy);
	return r;
}

int feed_find_traces(const char *arg, struct trace_list *list,
		     struct iow_error *err)
{
	struct stat st;
	size_t base_len;
	int r;

	if (!strcmp(arg, "-")) {
		char **paths = calloc(1, sizeof(*paths));

		if (!paths || !(paths[0] = strdup("<stdin>"))) {
			free(paths);
			return iow_fail(err, "out of memory");
		}
		return add_source(list, TRACE_STDIN, "-", paths, 1, err);
	}
	if (stat(arg, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return find_in_directory(arg, list, err);
		base_len = percpu_base_len(arg);
		if (base_len) {
			char *base = strndup(arg, base_len);

			if (!base)
				return iow_fail(err, "out of memory");
			r = find_by_base(base, list, err);
			free(base);
			return r < 0 ? -1 : 0;
		}
		return add_single_file(list, TRACE_DUMP, arg, err);
	}
	r = find_by_base(arg, list, err);
	if (r < 0)
		return -1;
	if (r == 0)
		return iow_fail(err,
			"%s: no such file, and no %s.blktrace.N files", arg,
			arg);
	return 0;
}

void trace_list_free(struct trace_list *list)
{
	size_t i, j;

	for (i = 0; i < list->n; i++) {
		struct trace_source *src = &list->items[i];

		for (j = 0; j < src->n_paths; j++)
			free(src->paths[j]);
		free(src->paths);
		free(src->name);
		free(src->label);
	}
	free(list->items);
	list->items = NULL;
	list->n = 0;
}
