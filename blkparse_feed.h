/*
 * blkparse_feed.h: the reader's front door: a trace (reader/discover.h:
 * a per-CPU set, a dump, a trace.dat, perf script's text, stdin; any of
 * these files maybe compressed) read as one time-ordered stream of
 * host-order struct io_event (reader/blkrec.h decodes each record), the
 * streams of a per-CPU set merged here, times counted from the trace's
 * first event. What -t names, the decoder and the files' ends are
 * reader/'s; their headers come with this one.
 */
#ifndef IOWATCHER_BLKPARSE_FEED_H
#define IOWATCHER_BLKPARSE_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "event.h"
#include "reader/blkrec.h"
#include "reader/discover.h"
#include "reader/feed_ends.h"
#include "reader/feed_pipe.h"

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
/* Start reading f through a pipe (feed_pipe.h): in a thread of its own
 * or the caller's, whichever is faster. f must outlive the pipe. */
struct feed_pipe *feed_start_pipe(struct feed *f, int cpu_to_spare,
				  struct iow_error *err);
void feed_close(struct feed *f);

#endif
