/*
 * feed_pipe.c: events from a feed, read in the caller's thread or in a
 * reader thread beside it (see feed_pipe.h).
 *
 * With the thread, a small ring of blocks goes between the two; each
 * block holds up to BLOCK_EVENTS events and their payloads, copied into
 * the block's arena, so the reader may reuse its buffers at once. Handing
 * over a block costs one lock, not one per event, and a wake-up only when
 * the other side sleeps: the reader sleeps on a full ring and is woken
 * when half of it is free again.
 *
 * Which way is faster is the machine's to say, and it changes: on this
 * project's 2-vCPU VM the thread read the recorded benchmark trace (2.8M
 * events, with the summary's analysis) in 0.07-0.09 s at some minutes and
 * 0.15-0.21 s at others, the caller's thread in 0.10-0.11 s, and at yet
 * other minutes 0.13 s and 0.17 s; the thread's events crossing between
 * the cores cost, at times, more than the work it shares. So a pipe over
 * files measures both: after WARMUP_EVENTS read in the caller's thread,
 * PROBE_EVENTS more are timed there, then the thread starts (its blocks'
 * pages mapped first) and PROBE_EVENTS are timed with it, from its first
 * block; each in segments of SEGMENT_EVENTS whose fastest counts (a
 * moment the VM stalls spoils a segment, not the choice), but for the
 * thread's first (the blocks it read ahead would make it look fast).
 * Unless the thread was faster by PROBE_MARGIN (early in a trace it can
 * look a little faster than it will be: with the SVG's graphs it probed
 * 6% faster and then took 0.29 s where the caller's thread took 0.18 s),
 * it is stopped at the end of a block, what it had read is handed out,
 * and the rest is read in the caller's thread. A stream (stdin) always
 * has the thread: a read that stalls there must not hold the caller. So
 * does a compressed trace: decompressing costs more than the analysis
 * (xz several times more), and is done beside it.
 * Where the caller says no CPU is to spare (another process of the
 * run works beside it, as a tagger does, on a machine of two), the
 * caller's thread reads without a probe: with tag-example on this VM's
 * two cores it took 6% less time than the thread, and 13% less CPU.
 * IOWATCHER_READER=thread or =caller sets the way instead (=auto, or
 * unset: measured, or as the caller said; anything else is an error);
 * =switch and =keep probe, then drop or keep the thread whatever was
 * measured (tests read a trace every way and compare; a benchmark may
 * compare them).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bigmem.h"
#include "feed_pipe.h"

#define BLOCK_EVENTS	4096
#define BLOCK_PDU	(256 * 1024)
#define N_BLOCKS	4
#define WARMUP_EVENTS	65536
#define PROBE_EVENTS	163840	/* with the thread: its first segment not kept */
#define SEGMENT_EVENTS	32768
#define PROBE_MARGIN	1.15	/* the thread must be 15% faster to stay */
#define HERE_EVENTS	64	/* a batch read in the caller's thread */
#define SPIN_NS		100000	/* the consumer's wait before it sleeps */

struct block {
	struct io_event ev[BLOCK_EVENTS];
	unsigned char pdu[BLOCK_PDU];
	size_t n, pdu_used;
	int last;		/* the trace ends after this block */
	int status;		/* with last: 0 the end, -1 an error */
};

enum pipe_mode {
	MODE_WARMUP,		/* caller's thread, not timed */
	MODE_PROBE_HERE,	/* caller's thread, timed */
	MODE_PROBE_THREAD,	/* the reader thread, timed */
	MODE_THREAD,		/* the reader thread, for good */
	MODE_DRAIN,		/* the thread stopped: its blocks handed out */
	MODE_HERE,		/* caller's thread, for good */
};

struct feed_pipe {
	struct feed_pipe_source f;
	enum pipe_mode mode;
	struct io_event here[HERE_EVENTS];	/* read in the caller's thread */
	uint64_t n_events;		/* handed out in this mode */
	uint64_t t0, segment_end;	/* a probe's segment: start, last event */
	uint64_t best_ns;		/* the probe's fastest segment so far */
	int skip_segment;		/* the first is the ring filling: not kept */
	uint64_t here_ns;		/* the caller's thread's fastest */
	int decided;			/* 1 drop the thread, 2 keep it */
	int have_thread;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t space, data;	/* the reader's, the consumer's */
	int reader_waits, consumer_waits;
	struct block *blocks;
	size_t produced, consumed;	/* blocks handed over, and done */
	int stop;
	struct iow_error err;		/* the reader's error */
	struct block *cur;		/* the consumer's block */
	size_t pos;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Starts timing a probe's segments. */
static void probe_start(struct feed_pipe *p)
{
	p->n_events = 0;
	p->t0 = now_ns();
	p->segment_end = SEGMENT_EVENTS;
	p->best_ns = UINT64_MAX;
}

/* At a segment's end (n_events past it): its time, the fastest kept. */
static void probe_segment(struct feed_pipe *p)
{
	uint64_t t = now_ns();

	if (!p->skip_segment && t - p->t0 < p->best_ns)
		p->best_ns = t - p->t0;
	p->skip_segment = 0;
	p->t0 = t;
	p->segment_end = p->n_events + SEGMENT_EVENTS;
}

/* Fill one block; returns 1 if the trace goes on after it. */
static int fill_block(struct feed_pipe *p, struct block *b)
{
	b->n = b->pdu_used = 0;
	b->last = 0;
	b->status = 0;
	while (b->n < BLOCK_EVENTS) {
		long n = p->f.next_batch(p->f.feed, &b->ev[b->n],
					 BLOCK_EVENTS - b->n,
					 BLOCK_PDU - b->pdu_used, &p->err);
		size_t end;

		if (n <= 0) {
			b->last = 1;
			b->status = (int)n;
			return 0;
		}
		/* the payloads into the block's arena (they fit: see the
		 * batch's pdu_room) */
		for (end = b->n + (size_t)n; b->n < end; b->n++) {
			struct io_event *ev = &b->ev[b->n];

			if (!ev->pdu_len)
				continue;
			memcpy(b->pdu + b->pdu_used, ev->pdu, ev->pdu_len);
			ev->pdu = b->pdu + b->pdu_used;
			b->pdu_used += ev->pdu_len;
		}
		/* Room for the largest payload still, else hand over. */
		if (BLOCK_PDU - b->pdu_used < 65536)
			break;
	}
	return 1;
}

static void *reader(void *arg)
{
	struct feed_pipe *p = arg;
	int more = 1;

	/* Cancelled only inside fill_block: see feed_pipe_stop. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	while (more) {
		struct block *b;

		pthread_mutex_lock(&p->lock);
		while (p->produced - p->consumed >= N_BLOCKS && !p->stop) {
			p->reader_waits = 1;
			pthread_cond_wait(&p->space, &p->lock);
		}
		p->reader_waits = 0;
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		b = &p->blocks[p->produced % N_BLOCKS];
		pthread_mutex_unlock(&p->lock);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		more = fill_block(p, b);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		pthread_mutex_lock(&p->lock);
		/* the block's events before the count (block_ready) */
		__atomic_store_n(&p->produced, p->produced + 1,
				 __ATOMIC_RELEASE);
		if (p->consumer_waits)
			pthread_cond_signal(&p->data);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

static int start_thread(struct feed_pipe *p, struct iow_error *err)
{
	size_t i;

	if (!p->blocks) {
		/* the events' pages mapped now, not a fault at a time while
		 * the probe times the thread (payloads are rare: as used) */
		p->blocks = bigmem_lazy_calloc(N_BLOCKS * sizeof(*p->blocks));
		if (!p->blocks)
			return iow_fail(err, "out of memory");
		for (i = 0; i < N_BLOCKS; i++)
			bigmem_prefault(p->blocks, i * sizeof(*p->blocks),
					sizeof(p->blocks[i].ev));
	}
	if (pthread_create(&p->thread, NULL, reader, p) != 0)
		return iow_fail(err, "cannot start the reader thread");
	p->have_thread = 1;
	return 0;
}

struct feed_pipe *feed_pipe_start(const struct feed_pipe_source *f,
				  int cpu_to_spare, struct iow_error *err)
{
	struct feed_pipe *p = calloc(1, sizeof(*p));
	const char *way;

	if (!p) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	p->f = *f;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->space, NULL);
	pthread_cond_init(&p->data, NULL);
	way = getenv("IOWATCHER_READER");
	if (way && *way && strcmp(way, "thread") && strcmp(way, "caller") &&
	    strcmp(way, "auto") && strcmp(way, "switch") &&
	    strcmp(way, "keep")) {
		iow_fail(err, "IOWATCHER_READER=%s: expected thread, caller or "
			 "auto (auto, or unset: the faster, measured)", way);
		feed_pipe_stop(p);
		return NULL;
	}
	/* no core to spare for the thread: the caller's thread it is */
	if (((way && !strcmp(way, "caller")) || (!way && cpu_to_spare == 0)) &&
	    !f->is_stream)
		p->mode = MODE_HERE;
	p->decided = !way ? 0 : !strcmp(way, "switch") ? 1 :
		     !strcmp(way, "keep") ? 2 : 0;
	if (f->is_stream || f->decompresses ||
	    (way && !strcmp(way, "thread"))) {
		p->mode = MODE_THREAD;
		if (start_thread(p, err) < 0) {
			feed_pipe_stop(p);
			return NULL;
		}
	}
	return p;
}

/* Ends the reader thread after the block it is filling (none is lost:
 * the blocks it handed over stay for the consumer). */
static void end_thread(struct feed_pipe *p, int cancel)
{
	if (!p->have_thread)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->space);
	pthread_mutex_unlock(&p->lock);
	/*
	 * A reader blocked on a stream that stalls (stdin) would keep the
	 * join waiting: its read, a cancellation point, is cut short.
	 */
	if (cancel)
		pthread_cancel(p->thread);
	pthread_join(p->thread, NULL);
	p->have_thread = 0;
}

/*
 * The next events from the caller's thread, read as a batch. A batch
 * ends at limit events handed out in this mode (where the probe's
 * segments and modes change), so none is left over when the thread
 * starts reading.
 */
static int next_here(struct feed_pipe *p, struct io_event **ev, size_t *n,
		     uint64_t limit, struct iow_error *err)
{
	uint64_t want = limit - p->n_events;
	long got = p->f.next_batch(p->f.feed, p->here,
				   want < HERE_EVENTS ? want : HERE_EVENTS,
				   SIZE_MAX, err);

	if (got <= 0)
		return (int)got;
	*ev = p->here;
	*n = (size_t)got;
	p->n_events += (uint64_t)got;
	return 1;
}

/* The reader has handed over a block the consumer has not taken. */
static int block_ready(const struct feed_pipe *p)
{
	return __atomic_load_n(&p->produced, __ATOMIC_ACQUIRE) != p->consumed;
}

/*
 * Waits up to SPIN_NS for the reader's next block before sleeping on it:
 * a sleep and its wake-up are futex calls, 23 us each (under strace) on
 * this project's VM, and where the reader was the slower side the
 * consumer slept at every block (675 times in a --summary of the
 * recorded trace).
 */
static void spin_for_block(const struct feed_pipe *p)
{
	uint64_t until = 0;
	unsigned i;

	for (i = 0; !block_ready(p); i++) {
		if (i % 32 == 0) {
			uint64_t t = now_ns();

			if (!until)
				until = t + SPIN_NS;
			else if (t >= until)
				return;
		}
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

/* The next events from the thread's blocks (the rest of a block); 0
 * also when, draining, the stopped thread's blocks are all handed out
 * (then *ev is NULL). */
static int next_block_events(struct feed_pipe *p, struct io_event **ev,
			     size_t *n, struct iow_error *err)
{
	*ev = NULL;
	while (!p->cur || p->pos == p->cur->n) {
		if (p->cur) {
			if (p->cur->last) {
				if (p->cur->status < 0)
					*err = p->err;
				return p->cur->status;
			}
			pthread_mutex_lock(&p->lock);
			p->consumed++;
			if (p->reader_waits &&
			    p->produced - p->consumed <= N_BLOCKS / 2)
				pthread_cond_signal(&p->space);
			pthread_mutex_unlock(&p->lock);
			p->cur = NULL;
			/* segments and the probe end at a block's end */
			if (p->mode == MODE_PROBE_THREAD && p->t0 &&
			    p->n_events >= p->segment_end)
				probe_segment(p);
			if (p->mode == MODE_PROBE_THREAD &&
			    p->n_events >= PROBE_EVENTS)
				return 1;
		}
		if (p->mode == MODE_DRAIN && p->produced == p->consumed)
			return 0;
		spin_for_block(p);
		pthread_mutex_lock(&p->lock);
		while (p->produced == p->consumed) {
			p->consumer_waits = 1;
			pthread_cond_wait(&p->data, &p->lock);
		}
		p->consumer_waits = 0;
		pthread_mutex_unlock(&p->lock);
		p->cur = &p->blocks[p->consumed % N_BLOCKS];
		p->pos = 0;
		/* the thread's probe is timed from its first block */
		if (p->mode == MODE_PROBE_THREAD && !p->t0) {
			probe_start(p);
			/* blocks read ahead while the first was awaited would
			 * make the first segment look fast */
			p->skip_segment = 1;
		}
	}
	*ev = &p->cur->ev[p->pos];
	*n = p->cur->n - p->pos;
	p->pos = p->cur->n;
	p->n_events += *n;
	return 1;
}

int feed_pipe_next(struct feed_pipe *p, struct io_event **ev, size_t *n,
		   struct iow_error *err)
{
	int r;

	for (;;) {
		switch (p->mode) {
		case MODE_WARMUP:
			if (p->n_events < WARMUP_EVENTS)
				return next_here(p, ev, n, WARMUP_EVENTS, err);
			p->mode = MODE_PROBE_HERE;
			probe_start(p);
			break;
		case MODE_PROBE_HERE:
			if (p->n_events >= p->segment_end)
				probe_segment(p);
			if (p->n_events < PROBE_EVENTS)
				return next_here(p, ev, n,
						 p->segment_end < PROBE_EVENTS ?
						 p->segment_end : PROBE_EVENTS,
						 err);
			p->here_ns = p->best_ns;
			if (start_thread(p, err) < 0) {
				/* no thread: read here (err is not kept) */
				p->mode = MODE_HERE;
				break;
			}
			p->mode = MODE_PROBE_THREAD;
			p->n_events = 0;
			p->t0 = 0;
			break;
		case MODE_PROBE_THREAD:
			r = next_block_events(p, ev, n, err);
			if (r <= 0 || *ev)
				return r;
			/* the probe is over: keep the faster way */
			if (p->decided ? p->decided == 2 :
			    (double)p->best_ns * PROBE_MARGIN <
			    (double)p->here_ns) {
				p->mode = MODE_THREAD;
				break;
			}
			end_thread(p, 0);
			p->mode = MODE_DRAIN;
			break;
		case MODE_THREAD:
			return next_block_events(p, ev, n, err);
		case MODE_DRAIN:
			r = next_block_events(p, ev, n, err);
			if (r != 0 || *ev)
				return r;
			if (p->cur && p->cur->last)
				return 0;	/* the trace's end, drained */
			p->mode = MODE_HERE;
			break;
		case MODE_HERE:
			return next_here(p, ev, n, UINT64_MAX, err);
		}
	}
}

void feed_pipe_stop(struct feed_pipe *p)
{
	if (!p)
		return;
	end_thread(p, 1);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->space);
	pthread_cond_destroy(&p->data);
	bigmem_free(p->blocks);
	free(p);
}
