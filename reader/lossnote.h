/*
 * lossnote.h: the note a recorder writes where the kernel lost events,
 * so that reading a trace later knows what recording knew. A version-7
 * MESSAGE note (action BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE, pid 0)
 * in the file of the CPU whose events were lost, one per traced device,
 * at time T0 (T1 where T0 is unknown), whose NUL-terminated text
 * (blkparse prints it) is exactly
 *
 *   lost N events on cpu C, from T0 to T1 ns
 *   lost an unknown number of events on cpu C, from T0 to T1 ns
 *
 * or, made by the reader (never written to a file) where one CPU's file
 * ends while the set's others go on (a copy cut short, a disk that
 * filled), its events after that lost, how many unknown,
 *
 *   file of cpu C ends early, from T0 to T1 ns
 *
 * (T0 that file's last record, T1 the set's last).
 * N, C, T0 and T1 in decimal; T0 and T1 absolute times in the trace's
 * clock: T0 the last event recorded on that CPU before the loss (0 when
 * unknown), T1 when the loss was noticed or the first event after it.
 * At T0, after that CPU's last event before the loss, the note is read
 * (in time order) before anything the loss touched: the analysis knows
 * of the window as it opens. A note whose T0 is unknown (a count the
 * kernel keeps per program, not per CPU or time) comes at T1, after.
 * Formatting and parsing live here together, for the recorders and for
 * the analysis.
 */
#ifndef IOWATCHER_LOSSNOTE_H
#define IOWATCHER_LOSSNOTE_H

#include <stddef.h>
#include <stdint.h>

#include "blktrace.h"

/* The longest text, its NUL included (three 20-digit numbers). */
#define LOSSNOTE_TEXT_MAX	128

struct lossnote {
	uint64_t count;		/* events lost; 0 when count_known is 0 */
	int count_known;
	uint32_t cpu;
	uint64_t t0_ns, t1_ns;
};

#define LOSSNOTE_FILE_END	2

/*
 * The end mark: a recorder's last note in every CPU's file, at the newest
 * time any of the files holds, says that file is whole to the end
 * (action and header as a loss note's, at that time):
 *
 *   end of cpu C's file at T ns
 *
 * A file of a set without it, where the others have it, was cut short
 * (even at a record's end). Not a loss note: lossnote_parse says 0.
 */
uint16_t lossnote_format_end_mark(uint32_t cpu, uint64_t t_ns, char *text);
int lossnote_is_end_mark(uint32_t action, const void *pdu, size_t pdu_len);

/*
 * Reading a note's text (these, account.h's and recnote.h's), p moving on
 * past what was read; 0, or -1 (p unmoved) where the text is not that: a
 * decimal number without sign, space or leading zero that fits 64 bits;
 * the given word, exactly.
 */
int note_read_number(const char **p, const char *end, uint64_t *v);
int note_read_word(const char **p, const char *end, const char *word);

/* The note's action word (a MESSAGE note). */
#define LOSSNOTE_ACTION	(BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE)

/*
 * Writes the note's text with its NUL into text (LOSSNOTE_TEXT_MAX
 * bytes); returns its length, the NUL included: the record's pdu_len.
 */
uint16_t lossnote_format(const struct lossnote *n, char *text);

/* The reader's note of a file that ends early (count_known 0). */
uint16_t lossnote_format_file_end(const struct lossnote *n, char *text);

/*
 * The note's record header for one device: magic and version 7, the
 * action above, pid 0, time T0 (T1 when T0 is 0), the CPU, and the
 * payload's length.
 * sequence is the caller's.
 */
void lossnote_header(const struct lossnote *n, uint32_t device,
		     uint16_t pdu_len, struct blk_io_trace *t);

/*
 * Whether a record (action, payload) is a loss note; if so fills n.
 * Anything else, another message or a text that does not follow the
 * format to the byte, is not one: returns 0. Returns 1 for a loss note,
 * LOSSNOTE_FILE_END for the note of a file that ends early.
 */
int lossnote_parse(uint32_t action, const void *pdu, size_t pdu_len,
		   struct lossnote *n);

#endif
