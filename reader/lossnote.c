/*
 * lossnote.c: the loss note's text, written and read back (lossnote.h).
 * The parser accepts exactly what the formatter writes, so that a note
 * with another meaning is never taken for a loss.
 */
#include <stdio.h>
#include <string.h>

#include "lossnote.h"

static const char known_lead[] = "lost ";
static const char unknown_lead[] = "lost an unknown number of events on cpu ";
static const char file_end_lead[] = "file of cpu ";
static const char file_end_middle[] = " ends early";

uint16_t lossnote_format(const struct lossnote *n, char *text)
{
	int len;

	if (n->count_known)
		len = snprintf(text, LOSSNOTE_TEXT_MAX,
			       "lost %llu events on cpu %u, from %llu to %llu ns",
			       (unsigned long long)n->count, n->cpu,
			       (unsigned long long)n->t0_ns,
			       (unsigned long long)n->t1_ns);
	else
		len = snprintf(text, LOSSNOTE_TEXT_MAX,
			       "%s%u, from %llu to %llu ns", unknown_lead,
			       n->cpu, (unsigned long long)n->t0_ns,
			       (unsigned long long)n->t1_ns);
	return (uint16_t)(len + 1);
}

uint16_t lossnote_format_file_end(const struct lossnote *n, char *text)
{
	int len = snprintf(text, LOSSNOTE_TEXT_MAX,
			   "%s%u%s, from %llu to %llu ns", file_end_lead,
			   n->cpu, file_end_middle,
			   (unsigned long long)n->t0_ns,
			   (unsigned long long)n->t1_ns);

	return (uint16_t)(len + 1);
}

void lossnote_header(const struct lossnote *n, uint32_t device,
		     uint16_t pdu_len, struct blk_io_trace *t)
{
	memset(t, 0, sizeof(*t));
	t->magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7;
	t->time = n->t0_ns ? n->t0_ns : n->t1_ns;
	t->action = LOSSNOTE_ACTION;
	t->device = device;
	t->cpu = n->cpu;
	t->pdu_len = pdu_len;
}

/* A decimal number without sign, space or leading zero; p moves on. */
int note_read_number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s == end || *s < '0' || *s > '9' || (*s == '0' && s + 1 < end &&
						 s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = x;
	return 0;
}

int note_read_word(const char **p, const char *end, const char *word)
{
	size_t len = strlen(word);

	if ((size_t)(end - *p) < len || memcmp(*p, word, len))
		return -1;
	*p += len;
	return 0;
}

static const char end_mark_lead[] = "end of cpu ";

uint16_t lossnote_format_end_mark(uint32_t cpu, uint64_t t_ns, char *text)
{
	int len = snprintf(text, LOSSNOTE_TEXT_MAX, "%s%u's file at %llu ns",
			   end_mark_lead, cpu, (unsigned long long)t_ns);

	return (uint16_t)(len + 1);
}

int lossnote_is_end_mark(uint32_t action, const void *pdu, size_t pdu_len)
{
	const char *p = pdu, *end;
	uint64_t cpu, t;

	if (action != LOSSNOTE_ACTION || !pdu || !pdu_len)
		return 0;
	end = memchr(p, '\0', pdu_len);
	return end && note_read_word(&p, end, end_mark_lead) == 0 &&
	       note_read_number(&p, end, &cpu) == 0 && cpu <= UINT32_MAX &&
	       note_read_word(&p, end, "'s file at ") == 0 &&
	       note_read_number(&p, end, &t) == 0 &&
	       note_read_word(&p, end, " ns") == 0 && p == end;
}

int lossnote_parse(uint32_t action, const void *pdu, size_t pdu_len,
		   struct lossnote *n)
{
	const char *p = pdu, *end;
	struct lossnote got = { 0 };
	uint64_t cpu;
	int kind = 1;

	if (action != LOSSNOTE_ACTION || !pdu || !pdu_len)
		return 0;
	end = memchr(p, '\0', pdu_len);
	if (!end)
		return 0;	/* not NUL-terminated: not ours */
	if (note_read_word(&p, end, unknown_lead) == 0) {
		got.count_known = 0;
	} else if (note_read_word(&p, end, file_end_lead) == 0) {
		kind = LOSSNOTE_FILE_END;
	} else if (note_read_word(&p, end, known_lead) == 0 &&
		   note_read_number(&p, end, &got.count) == 0 &&
		   note_read_word(&p, end, " events on cpu ") == 0) {
		got.count_known = 1;
	} else {
		return 0;
	}
	if (note_read_number(&p, end, &cpu) || cpu > UINT32_MAX ||
	    (kind == LOSSNOTE_FILE_END && note_read_word(&p, end, file_end_middle)) ||
	    note_read_word(&p, end, ", from ") ||
	    note_read_number(&p, end, &got.t0_ns) || note_read_word(&p, end, " to ") ||
	    note_read_number(&p, end, &got.t1_ns) || note_read_word(&p, end, " ns") ||
	    p != end)
		return 0;
	got.cpu = (uint32_t)cpu;
	*n = got;
	return kind;
}
