/*
 * feed_pipe.c: the reader thread (see feed_pipe.h). A small ring of
 * blocks goes between the two threads; each block holds up to BLOCK_EVENTS
 * events and their payloads, copied into the block's arena, so the reader
 * may reuse its buffers at once. Handing over a block costs one lock, not
 * one per event, and a wake-up only when the other side sleeps: the
 * reader, usually the faster, sleeps on a full ring and is woken when
 * half of it is free again.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "feed_pipe.h"

#define BLOCK_EVENTS	4096
#define BLOCK_PDU	(256 * 1024)
#define N_BLOCKS	4

struct block {
	struct io_event ev[BLOCK_EVENTS];
	unsigned char pdu[BLOCK_PDU];
	size_t n, pdu_used;
	int last;		/* the trace ends after this block */
	int status;		/* with last: 0 the end, -1 an error */
};

struct feed_pipe {
	struct feed *f;
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

/* Fill one block; returns 1 if the trace goes on after it. */
static int fill_block(struct feed_pipe *p, struct block *b)
{
	int r;

	b->n = b->pdu_used = 0;
	b->last = 0;
	b->status = 0;
	while (b->n < BLOCK_EVENTS) {
		struct io_event *ev = &b->ev[b->n];

		r = feed_next(p->f, ev, &p->err);
		if (r <= 0) {
			b->last = 1;
			b->status = r;
			return 0;
		}
		if (ev->pdu_len) {
			memcpy(b->pdu + b->pdu_used, ev->pdu, ev->pdu_len);
			ev->pdu = b->pdu + b->pdu_used;
			b->pdu_used += ev->pdu_len;
		}
		b->n++;
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
		p->produced++;
		if (p->consumer_waits)
			pthread_cond_signal(&p->data);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

struct feed_pipe *feed_pipe_start(struct feed *f, struct iow_error *err)
{
	struct feed_pipe *p = calloc(1, sizeof(*p));

	if (!p || !(p->blocks = malloc(N_BLOCKS * sizeof(*p->blocks)))) {
		free(p);
		iow_fail(err, "out of memory");
		return NULL;
	}
	p->f = f;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->space, NULL);
	pthread_cond_init(&p->data, NULL);
	if (pthread_create(&p->thread, NULL, reader, p) != 0) {
		free(p->blocks);
		free(p);
		iow_fail(err, "cannot start the reader thread");
		return NULL;
	}
	return p;
}

int feed_pipe_next(struct feed_pipe *p, struct io_event **ev,
		   struct iow_error *err)
{
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
		}
		pthread_mutex_lock(&p->lock);
		while (p->produced == p->consumed) {
			p->consumer_waits = 1;
			pthread_cond_wait(&p->data, &p->lock);
		}
		p->consumer_waits = 0;
		pthread_mutex_unlock(&p->lock);
		p->cur = &p->blocks[p->consumed % N_BLOCKS];
		p->pos = 0;
	}
	*ev = &p->cur->ev[p->pos++];
	return 1;
}

void feed_pipe_stop(struct feed_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->space);
	pthread_mutex_unlock(&p->lock);
	/*
	 * A reader blocked on a stream that stalls (stdin) would keep the
	 * join waiting: its read, a cancellation point, is cut short.
	 */
	pthread_cancel(p->thread);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->space);
	pthread_cond_destroy(&p->data);
	free(p->blocks);
	free(p);
}
