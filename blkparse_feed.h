/*
 * blkparse_feed.h: reading blktrace data into events. A trace is one of
 * blktrace's per-CPU sets (NAME.blktrace.N, merged here by time), a
 * blkparse -d dump, or a dump-format stream on stdin; any of these files
 * may be compressed (gzip, xz, zstd: bytesrc.h). Records of version 7
 * and 8 in either byte order come out as host-order struct io_event, times
 * counted from the trace's first event.
 */
#ifndef IOWATCHER_BLKPARSE_FEED_H
#define IOWATCHER_BLKPARSE_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "event.h"

enum trace_kind {
	TRACE_PERCPU,	/* NAME.blktrace.0 .. N (each maybe .gz, .xz, .zst) */
	TRACE_DUMP,	/* one file of time-sorted records */
	TRACE_STDIN,	/* a dump-format stream on standard input */
};

struct trace_source {
	enum trace_kind kind;
	char *name;	/* what the user would call it: base name, file, "-" */
	char *label;	/* default label: the base name without directories */
	char **paths;	/* the files, CPU order for a per-CPU set */
	size_t n_paths;
};

struct trace_list {
	struct trace_source *items;
	size_t n;
};

/*
 * Resolve a -t argument into traces and append them to list: a base name
 * or one file of a per-CPU set, a dump, a directory (every trace inside),
 * or "-" for stdin.
 */
int feed_find_traces(const char *arg, struct trace_list *list,
		     struct iow_error *err);
void trace_list_free(struct trace_list *list);

struct feed;

struct feed *feed_open(const struct trace_source *src, struct iow_error *err);
/*
 * The next events, up to max of them, into ev[0..]: their number, 0 at
 * the end of the trace, -1 on an error (err says why). Their payloads
 * together take at most pdu_room bytes (a batch ends before the event
 * that would pass it: with pdu_room 65535 or more, one event always
 * fits); they stay valid until the next call. A batch is shorter than max
 * where a file's buffer must be filled again.
 */
long feed_next_batch(struct feed *f, struct io_event *ev, size_t max,
		     size_t pdu_room, struct iow_error *err);
/* A warning about the trace (a truncated last record), or NULL. */
const char *feed_warning(const struct feed *f);

/*
 * A per-CPU file that ended early: the set's other files go on past its
 * last record by more than 10 ms and 1% of the trace (a copy cut short,
 * a disk that filled while recording). Its CPU's events after that are
 * lost: where it ends, the feed hands out a loss note (lossnote.h, "file
 * of cpu C ends early") for the analysis to locate the loss.
 */
struct feed_cut {
	const char *path;
	unsigned cpu;
	double at_s, trace_end_s;	/* its last record, the set's */
	int in_record;		/* it ends inside a record, at offset */
	uint64_t offset;
	int compressed_cut;	/* its compressed data is cut short */
	const char *compression;	/* "zstd" */
	uint64_t bytes_read;	/* of its data (decompressed) */
	int no_record;		/* not one whole record: all lost */
	int no_end_mark;	/* ends at a record's end, unmarked */
};

/* The files that ended early so far, in the order they did. */
size_t feed_cuts(const struct feed *f, const struct feed_cut **cuts);
/*
 * Where time 0 is: on the trace's own clock (the first event's time as
 * recorded), and on the wall clock where a TIMESTAMP note taken before it
 * says (blktrace's: the wall clock when tracing started, at the note's
 * time on the trace's clock; the difference to the first event is added,
 * which blkparse's absolute times leave out).
 */
struct feed_origin {
	uint64_t clock_ns;
	int wall_known;
	int64_t wall_ns;	/* since the epoch, UTC */
	/* a TIMESTAMP note stamped after time 0: the notes are on another
	 * clock than the events (a blkparse -d dump) */
	int notes_off_clock;
};
/*
 * 1 and o filled once an event that is not a note was handed out (the
 * batch that holds one may be read from another thread then: the feed
 * never changes these after); 0 before.
 */
int feed_origin(const struct feed *f, struct feed_origin *o);
/* 1 when f reads a stream (stdin), whose reads may stall; 0 for files. */
int feed_is_stream(const struct feed *f);
/* 1 when f decompresses what it reads (gzip, xz, zstd): the heavier
 * part of reading, which a reader thread takes off the analysis. */
int feed_decompresses(const struct feed *f);
void feed_close(struct feed *f);

/*
 * Loss notes whose time the recorder could not tell (T0 0: completions
 * the kernel made without running the recorder), which a recorder writes
 * last, at the end of the files: found by a look at the files' tails
 * before the trace is read, so that the analysis knows from the start
 * that completions are missing. Their count into *count (the notes' of
 * one CPU and time counted once); 0 when none, or the trace cannot be
 * looked at from its end (compressed, a stream). *cut is 1 when the
 * recorder marked its files' ends and a file has lost its mark (cut
 * short): such notes may have been cut off with it.
 */
void feed_unlocated_losses(const struct trace_source *src, uint64_t *count,
			   int *cut);

/* Decode a REMAP payload; 0 on success, -1 if the payload is too short. */
int feed_decode_remap(const struct io_event *ev, uint32_t *from_dev,
		      uint32_t *to_dev, uint64_t *from_sector);
/* Decode a SPLIT payload: where the remainder starts; -1 if too short. */
int feed_decode_split(const struct io_event *ev, uint64_t *rest_sector);
/* The process name of a PROCESS note (not NUL-terminated if cut short). */
size_t feed_note_text(const struct io_event *ev, const char **text);

#endif
