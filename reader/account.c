/*
 * account.c: the account note written and read back, and the kernel's
 * counts set against the trace's in a sentence (account.h). The parser
 * accepts exactly what the formatter writes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "account.h"
#include "blktrace.h"
#include "lossnote.h"	/* the action word of a MESSAGE note */

/* The BPF program whose missed runs are missed completions. */
#define COMPLETION_PROG	"rq_complete"

static const char lead[] = "account: the kernel completed ";
static const char *const class_words[N_ACCT] = {
	" reads, ", " writes, ", " discards, ", " flushes; ",
};

int acct_class(uint32_t action, uint32_t bytes, uint64_t sector)
{
	uint32_t cats = action >> BLK_TC_SHIFT;

	if (!bytes && (cats & BLK_TC_FLUSH))
		return ACCT_FLUSH;
	/* a write that never had data (a preflush alone: its bio had no
	 * sector) ends as a write; a flush sequence's empty end comes
	 * where its data ended, and the kernel counted the data */
	if (!bytes)
		return !sector && blk_is_write(action) ? ACCT_WRITE : -1;
	if (cats & BLK_TC_DISCARD)
		return ACCT_DISCARD;
	return blk_is_write(action) ? ACCT_WRITE : ACCT_READ;
}

/* Appends to the note's text; the length stays within the buffer. */
static size_t put(char *text, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= ACCTNOTE_TEXT_MAX - 1)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(text + len, ACCTNOTE_TEXT_MAX - len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return len;
	len += (size_t)n;
	return len < ACCTNOTE_TEXT_MAX ? len : ACCTNOTE_TEXT_MAX - 1;
}

static size_t put_recorder(const struct acctnote *n, char *text, size_t len)
{
	size_t i;

	len = put(text, len, "; %llu completions unseen; missed runs: ",
		  (unsigned long long)n->unseen);
	if (!n->n_missed)
		return put(text, len, "none");
	for (i = 0; i < n->n_missed; i++)
		len = put(text, len, "%s%s %llu", i ? ", " : "",
			  n->missed[i].prog,
			  (unsigned long long)n->missed[i].runs);
	return len;
}

uint16_t acctnote_format(const struct acctnote *n, char *text)
{
	size_t len = put(text, 0, "%s", lead), c;

	for (c = 0; c < N_ACCT; c++) {
		if (n->kernel_known >> c & 1)
			len = put(text, len, "%llu",
				  (unsigned long long)n->kernel[c]);
		else
			len = put(text, len, "?");
		len = put(text, len, "%s", class_words[c]);
	}
	len = put(text, len, "%llu in flight at the start, %llu at the end; "
		  "%llu as tracing began or ended",
		  (unsigned long long)n->inflight_start,
		  (unsigned long long)n->inflight_end,
		  (unsigned long long)n->at_edges);
	if (n->has_recorder)
		len = put_recorder(n, text, len);
	return (uint16_t)(len + 1);
}

/* ---- reading it back ---- */

static int read_classes(const char **p, const char *end, struct acctnote *n)
{
	size_t c;

	for (c = 0; c < N_ACCT; c++) {
		if (note_read_word(p, end, "?") == 0)
			n->kernel[c] = 0;
		else if (note_read_number(p, end, &n->kernel[c]) == 0)
			n->kernel_known |= 1u << c;
		else
			return -1;
		if (note_read_word(p, end, class_words[c]))
			return -1;
	}
	return 0;
}

/* "rq_complete 3, bio_queue 1" or "none", to the end. */
static int read_missed(const char **p, const char *end, struct acctnote *n)
{
	const char *s;
	size_t len;

	if (note_read_word(p, end, "none") == 0)
		return *p == end ? 0 : -1;
	while (*p < end) {
		struct acct_missed *m = &n->missed[n->n_missed];

		if (n->n_missed == ACCT_MAX_PROGS ||
		    (n->n_missed && note_read_word(p, end, ", ")))
			return -1;
		m = &n->missed[n->n_missed];
		for (s = *p; s < end && ((*s >= 'a' && *s <= 'z') ||
					 (*s >= '0' && *s <= '9') || *s == '_');
		     s++)
			;
		len = (size_t)(s - *p);
		if (!len || len >= ACCT_PROG_NAME)
			return -1;
		memcpy(m->prog, *p, len);
		m->prog[len] = '\0';
		*p = s;
		if (note_read_word(p, end, " ") || note_read_number(p, end, &m->runs))
			return -1;
		n->n_missed++;
	}
	return n->n_missed ? 0 : -1;
}

int acctnote_parse(uint32_t action, const void *pdu, size_t pdu_len,
		   struct acctnote *n)
{
	const char *p = pdu, *end;
	struct acctnote got;

	memset(&got, 0, sizeof(got));
	if (action != LOSSNOTE_ACTION || !pdu || !pdu_len)
		return 0;
	end = memchr(p, '\0', pdu_len);
	if (!end || note_read_word(&p, end, lead) || read_classes(&p, end, &got) ||
	    note_read_number(&p, end, &got.inflight_start) ||
	    note_read_word(&p, end, " in flight at the start, ") ||
	    note_read_number(&p, end, &got.inflight_end) ||
	    note_read_word(&p, end, " at the end; ") ||
	    note_read_number(&p, end, &got.at_edges) ||
	    note_read_word(&p, end, " as tracing began or ended"))
		return 0;
	if (p != end) {
		got.has_recorder = 1;
		if (note_read_word(&p, end, "; ") ||
		    note_read_number(&p, end, &got.unseen) ||
		    note_read_word(&p, end, " completions unseen; missed runs: ") ||
		    read_missed(&p, end, &got))
			return 0;
	}
	*n = got;
	return 1;
}

/* ---- the comparison ---- */

static uint64_t at_most(uint64_t v, uint64_t cap)
{
	return v < cap ? v : cap;
}

/* The trace's counts as the kernel's classes have them: discards among
 * the writes before Linux 4.18, flushes not counted before 5.5. */
static void trace_as_kernel(const struct acctnote *n,
			    const uint64_t trace[N_ACCT], uint64_t out[N_ACCT],
			    unsigned *compared)
{
	memcpy(out, trace, N_ACCT * sizeof(*out));
	*compared = (1u << ACCT_READ) | (1u << ACCT_WRITE);
	if (n->kernel_known >> ACCT_DISCARD & 1)
		*compared |= 1u << ACCT_DISCARD;
	else
		out[ACCT_WRITE] += out[ACCT_DISCARD];
	if (n->kernel_known >> ACCT_FLUSH & 1)
		*compared |= 1u << ACCT_FLUSH;
}

static uint64_t completion_misses(const struct acctnote *n)
{
	size_t i;

	for (i = 0; i < n->n_missed; i++)
		if (!strcmp(n->missed[i].prog, COMPLETION_PROG))
			return n->missed[i].runs;
	return 0;
}

void account_compare(const struct acctnote *n, const uint64_t trace[N_ACCT],
		     uint64_t lost_events, uint64_t judged_lost,
		     struct account *a)
{
	uint64_t t[N_ACCT], left, misses;
	size_t c;

	memset(a, 0, sizeof(*a));
	trace_as_kernel(n, trace, t, &a->compared);
	for (c = 0; c < N_ACCT; c++) {
		if (!(a->compared >> c & 1))
			continue;
		a->kernel_total += n->kernel[c];
		a->trace_total += t[c];
		a->diff[c] = (int64_t)(n->kernel[c] - t[c]);
		if (a->diff[c] > 0)
			a->missing += (uint64_t)a->diff[c];
		else
			a->extra += (uint64_t)-a->diff[c];
	}
	left = a->missing;
	/* a completion program the kernel did not run left its request
	 * unseen too: those first, then the rest of the unseen ones */
	misses = completion_misses(n);
	a->missed_runs = at_most(at_most(misses, n->unseen), left);
	left -= a->missed_runs;
	a->unseen = at_most(n->unseen - at_most(misses, n->unseen), left);
	left -= a->unseen;
	a->in_loss = at_most(lost_events, left);
	left -= a->in_loss;
	a->at_edges = at_most(n->at_edges, left);
	left -= a->at_edges;
	a->inferred = at_most(judged_lost, left);
	a->unexplained = left - a->inferred;
}

/* 1188274 as "1,188,274". */
static void grouped(uint64_t v, char *buf, size_t size)
{
	char digits[24];
	size_t len, i, j = 0;

	len = (size_t)snprintf(digits, sizeof(digits), "%llu",
			       (unsigned long long)v);
	for (i = 0; i < len && j + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = digits[i];
	}
	buf[j] = '\0';
}

static size_t add_part(char *buf, size_t size, size_t len, int *first,
		       const char *fmt, uint64_t v)
{
	char num[32];

	if (!v || len >= size)
		return len;
	grouped(v, num, sizeof(num));
	len += (size_t)snprintf(buf + len, size - len, "%s", *first ? ": " :
				", ");
	if (len < size)
		len += (size_t)snprintf(buf + len, size - len, fmt, num);
	*first = 0;
	return len;
}

void account_sentence(const struct account *a, char *buf, size_t size)
{
	char kernel[32], trace[32], n[32];
	size_t len;
	int first = 1;

	grouped(a->kernel_total, kernel, sizeof(kernel));
	grouped(a->trace_total, trace, sizeof(trace));
	if (!a->missing && !a->extra) {
		snprintf(buf, size, "holds all %s completions the kernel "
			 "counted", kernel);
		return;
	}
	if (!a->missing) {
		grouped(a->extra, n, sizeof(n));
		snprintf(buf, size, "holds %s completions, %s more than the "
			 "kernel counted (a request completed in parts counts "
			 "each part)", trace, n);
		return;
	}
	grouped(a->missing, n, sizeof(n));
	len = (size_t)snprintf(buf, size, "holds %s of the %s completions "
			       "the kernel counted, %s missing", trace,
			       kernel, n);
	len = add_part(buf, size, len, &first, "%s the completion program "
		       "was not run for (recursion misses)", a->missed_runs);
	len = add_part(buf, size, len, &first, "%s unseen by the BPF "
		       "program", a->unseen);
	len = add_part(buf, size, len, &first, "up to %s in loss windows",
		       a->in_loss);
	len = add_part(buf, size, len, &first, "up to %s completed as "
		       "tracing began or ended", a->at_edges);
	len = add_part(buf, size, len, &first, "%s judged lost by the "
		       "trace's own evidence (inferred holes)", a->inferred);
	len = add_part(buf, size, len, &first, "%s not explained",
		       a->unexplained);
	if (a->extra && len < size) {
		grouped(a->extra, n, sizeof(n));
		snprintf(buf + len, size - len, "; %s more of other classes",
			 n);
	}
}
