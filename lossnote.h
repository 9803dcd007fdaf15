/*
 * lossnote.h: where a recording lost events, as a note in the trace
 * itself. A recorder that loses events (a ring buffer overrun, a failed
 * reservation, blktrace's dropped count) writes a MESSAGE note, which
 * Debian's blkparse prints as a message, of the text
 *
 *   lost N events on cpu C, from T0 to T1 ns
 *   lost an unknown number of events on cpu C, from T0 to T1 ns
 *
 * T0 and T1 in the trace's own clock (absolute, as the records' times).
 * The note's own time is T0, the window's start, and it sits in CPU C's
 * file after that CPU's last event before the loss: read in time order it
 * comes before anything the loss touched, so the analysis knows of the
 * window as it opens. Where the start is unknown T0 is 0 (from the trace's
 * start) and the note's time is T1: the loss is then known only after.
 */
#ifndef IOWATCHER_LOSSNOTE_H
#define IOWATCHER_LOSSNOTE_H

#include <stddef.h>
#include <stdint.h>

struct loss_note {
	uint64_t count;		/* events lost, when count_known */
	int count_known;
	uint32_t cpu;
	uint64_t from_ns, to_ns;	/* T0 (0: unknown) and T1 */
};

/* The note's text into buf (NUL-terminated); its length without the NUL,
 * as snprintf. */
size_t lossnote_format(char *buf, size_t size, const struct loss_note *n);
/* A MESSAGE note's text (len bytes, a NUL may end it early) as a loss
 * note: 0, or -1 when it is not one (another message, garbage). */
int lossnote_parse(const char *text, size_t len, struct loss_note *n);

#endif
