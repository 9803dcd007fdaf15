/*
 * fuzz_ftrace_page.c: the reader of the kernel's ring-buffer pages
 * (ftrace_raw.c), as the ftrace recorder reads them from trace_pipe_raw.
 * The input is a page; its layout is Linux 6.18's on 64 bits (header_page:
 * timestamp at 0, an 8-byte commit at 8, the data at 16), or 32-bit's
 * (a 4-byte commit, data at 12) when the input's first byte is odd,
 * which the byte then does not otherwise say. Every event must lie
 * within the page's data and its time never run backwards except by an
 * absolute stamp; a blk entry taken from it must say its own length.
 * Seeds: the real pages of tests/data/trace_pipe_raw-loop0.cpu*.
 */
#include <stdint.h>
#include <stdlib.h>

#include "record/ftrace_raw.h"
#include "fuzz_common.h"

static void fuzz_check_event(const struct ftrace_page *p,
			     const struct ftrace_event *ev,
			     const unsigned char *page, size_t size)
{
	const unsigned char *end = page + size;
	const unsigned char *pdu;
	struct blk_io_trace t;
	struct iow_error err = { "" };

	if (ev->data < p->data || ev->data + ev->len > p->data + p->data_len ||
	    ev->data + ev->len > end || ev->offset >= size)
		abort();
	if (ev->len < 4)
		return;
	(void)ftrace_event_type(ev);
	if (ftrace_blk_entry(ev, 1, &t, &pdu, &err)) {
		fuzz_check_error(&err, "ftrace_blk_entry");
		return;
	}
	if (pdu + t.pdu_len > ev->data + ev->len || t.time != ev->time)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ftrace_page_layout l64 = { 0, 8, 8, 16 };
	static const struct ftrace_page_layout l32 = { 0, 8, 4, 12 };
	const struct ftrace_page_layout *l = size && data[0] & 1 ? &l32 : &l64;
	struct iow_error err = { "" };
	struct ftrace_event ev;
	struct ftrace_page p;
	unsigned char *page;
	int rc, n = 0;

	/* a copy of its own size: ASan sees any read past the input */
	page = malloc(size ? size : 1);
	if (!page)
		return 0;
	memcpy(page, data, size);
	if (ftrace_page_open(&p, l, page, size, &err)) {
		fuzz_check_error(&err, "ftrace_page_open");
		free(page);
		return 0;
	}
	while ((rc = ftrace_page_next(&p, &ev, &err)) > 0) {
		fuzz_check_event(&p, &ev, page, size);
		if (++n > (int)size)	/* each event takes 4 bytes at least */
			abort();
	}
	if (rc < 0)
		fuzz_check_error(&err, "ftrace_page_next");
	free(page);
	return 0;
}
