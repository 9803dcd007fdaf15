/* lossnote.c: the loss note's text, written and read (lossnote.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lossnote.h"

size_t lossnote_format(char *buf, size_t size, const struct loss_note *n)
{
	int len;

	if (n->count_known)
		len = snprintf(buf, size, "lost %" PRIu64 " events on cpu %" PRIu32
			       ", from %" PRIu64 " to %" PRIu64 " ns",
			       n->count, n->cpu, n->from_ns, n->to_ns);
	else
		len = snprintf(buf, size, "lost an unknown number of events on cpu %"
			       PRIu32 ", from %" PRIu64 " to %" PRIu64 " ns",
			       n->cpu, n->from_ns, n->to_ns);
	return len < 0 ? 0 : (size_t)len;
}

/* A decimal number of at most 20 digits at *p, moved past it. */
static int number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (s == end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (*v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	return 0;
}

/* The literal word w at *p, moved past it. */
static int word(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *p) < n || memcmp(*p, w, n))
		return -1;
	*p += n;
	return 0;
}

int lossnote_parse(const char *text, size_t len, struct loss_note *n)
{
	const char *p = text, *end = text + strnlen(text, len);
	uint64_t cpu;

	memset(n, 0, sizeof(*n));
	if (word(&p, end, "lost ") < 0)
		return -1;
	if (word(&p, end, "an unknown number of") == 0) {
		n->count_known = 0;
	} else {
		if (number(&p, end, &n->count) < 0)
			return -1;
		n->count_known = 1;
	}
	if (word(&p, end, " events on cpu ") < 0 ||
	    number(&p, end, &cpu) < 0 || cpu > UINT32_MAX ||
	    word(&p, end, ", from ") < 0 || number(&p, end, &n->from_ns) < 0 ||
	    word(&p, end, " to ") < 0 || number(&p, end, &n->to_ns) < 0 ||
	    word(&p, end, " ns") < 0 || p != end || n->to_ns < n->from_ns)
		return -1;
	n->cpu = (uint32_t)cpu;
	return 0;
}
