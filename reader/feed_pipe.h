/*
 * feed_pipe.h: events from a feed, read in a thread of their own (which
 * decodes and merges records into blocks of events while the caller
 * analyses the previous block) or in the caller's thread, whichever the
 * pipe measured to be faster on this machine; a stream (stdin) and a
 * compressed trace always have the thread. Events come in order, in batches, as from
 * feed_next_batch; a call returns 1, 0 (the end) or -1 (err says why).
 */
#ifndef IOWATCHER_FEED_PIPE_H
#define IOWATCHER_FEED_PIPE_H

#include <stddef.h>

#include "base/error.h"
#include "event.h"

struct feed_pipe;

/*
 * What the pipe reads: batches of events in order (as the front door's
 * feed_next_batch: their number, 0 at the end, -1 with err), from feed,
 * which must outlive the pipe; whether it is a stream (stdin), whose
 * reads may stall, and whether it decompresses what it reads.
 */
struct feed_pipe_source {
	void *feed;
	long (*next_batch)(void *feed, struct io_event *ev, size_t max,
			   size_t pdu_room, struct iow_error *err);
	int is_stream, decompresses;
};

/*
 * Start reading f (copied). cpu_to_spare 0: no CPU is
 * free for a reader thread (the caller knows of another process at work
 * on a small machine): files are read in the caller's thread, unless
 * IOWATCHER_READER says otherwise; 1: whichever way is faster.
 */
struct feed_pipe *feed_pipe_start(const struct feed_pipe_source *f,
				  int cpu_to_spare, struct iow_error *err);
/*
 * The next events, in order: *ev points at *n of them (at least one), in
 * the pipe's own memory (no copy): the caller may change them; they and
 * their payloads stay valid until the next call. Batches, not an event
 * at a time: a call per event cost more than decoding one.
 */
int feed_pipe_next(struct feed_pipe *p, struct io_event **ev, size_t *n,
		   struct iow_error *err);
/* Stop the thread (also mid-trace) and free the pipe. */
void feed_pipe_stop(struct feed_pipe *p);

#endif
