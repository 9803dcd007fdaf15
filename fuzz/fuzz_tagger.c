/*
 * fuzz_tagger.c: the tagger host's reading of a tagger's answers (END,
 * TAG_IO, NEW_TAG with its label), without a process: tagger.c is built
 * into this file so that its static parser can be driven directly. A
 * tagger with no child holds some pushed events; the input arrives in
 * reads of varying size, as from a pipe, and then the end of its output
 * is checked as tagger_finish does. Every error must be one line, and
 * events come out in order with a tag that was defined.
 *
 * Control bytes: c0 events waiting for answers (0-255), c1 the size of
 * each read (1-256 bytes).
 */
#include "tagger.c"

#include "fuzz_common.h"

static struct tagger *fuzz_tagger_new(size_t n_events)
{
	struct tagger *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		abort();
	t->to_fd = t->from_fd = -1;
	t->answer_tag = IO_EVENT_NO_TAG;
	t->timeout_ns = 1000000;
	t->cmd = strdup("fuzz");
	t->in = malloc(IN_BUF_BYTES);
	if (!t->cmd || !t->in || grow_ring(t))
		abort();
	for (i = 0; i < n_events; i++) {
		unsigned char pdu[4] = { 1, 2, 3, 4 };
		struct io_event ev = {
			.time_ns = i, .sector = i * 8, .bytes = 4096,
			.action = BLK_TA_QUEUE, .index = i,
			.pdu = pdu, .pdu_len = (uint16_t)(i % 5),
		};

		if (hold_event(t, &ev))
			abort();
		t->pushed_any = true;
		t->last_index = i;
	}
	return t;
}

/* What tagger_next hands out: in order, tags defined or none. */
static void fuzz_tagger_drain(struct tagger *t, uint64_t *next_index)
{
	struct io_event out;
	struct iow_error err = { "" };

	while (tagger_next(t, &out, &err) == 1) {
		if (out.index != (*next_index)++ ||
		    (out.tag != IO_EVENT_NO_TAG && !tagger_label(t, out.tag)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iow_error err = { "" };
	struct tagger *t;
	size_t chunk = 1, n_events = 16;
	uint64_t next_index = 0;

	if (size >= 2) {
		n_events = data[0];
		chunk = (size_t)data[1] + 1;
		data += 2;
		size -= 2;
	}
	t = fuzz_tagger_new(n_events);
	while (size && !t->failed) {
		size_t n = size < chunk ? size : chunk;

		/* read_answers without the read: the buffer never overflows */
		if (t->in_start) {
			memmove(t->in, t->in + t->in_start, t->in_len);
			t->in_start = 0;
		}
		if (n > IN_BUF_BYTES - t->in_len)
			n = IN_BUF_BYTES - t->in_len;
		memcpy(t->in + t->in_len, data, n);
		t->in_len += n;
		data += n;
		size -= n;
		if (take_responses(t, &err))
			fuzz_check_error(&err, "take_responses");
		else
			fuzz_tagger_drain(t, &next_index);
	}
	/* tagger_finish's checks once the output has ended */
	if (!t->failed && t->answer_tag != IO_EVENT_NO_TAG)
		tagger_fail(t, &err, "TAG_IO without its END");
	else if (!t->failed && t->in_len)
		tagger_fail(t, &err, "%zu bytes of an incomplete response at "
			    "the end", t->in_len);
	if (t->failed)
		fuzz_check_error(&t->error, "tagger");
	if (t->n_answered > t->n_held)
		abort();
	tagger_free(t);
	return 0;
}
