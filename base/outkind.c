/* outkind.c: the picture's name when -o names none (see outkind.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "outkind.h"

/* How long s is without the suffix that ends it (0 where none does). */
static size_t cut_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !strncmp(s + len - n, suffix, n) ? len - n : len;
}

/* ".blktrace.N" ending s (N digits): len without it, or len. */
static size_t cut_per_cpu(const char *s, size_t len)
{
	size_t end = len, stem;

	while (end && s[end - 1] >= '0' && s[end - 1] <= '9')
		end--;
	stem = cut_suffix(s, end, ".blktrace.");
	return end < len && stem < end ? stem : len;
}

/* The name of the trace path names: its last component, without the
 * per-CPU file's or a dump's ending (and compression's); len its length. */
static const char *trace_stem(const char *path, size_t *len)
{
	static const char *const packed[] = { ".gz", ".xz", ".zst" };
	const char *base;
	size_t n = strlen(path), i;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (base = path + n; base > path && base[-1] != '/'; base--)
		;
	n -= (size_t)(base - path);
	for (i = 0; i < sizeof(packed) / sizeof(packed[0]); i++)
		n = cut_suffix(base, n, packed[i]);
	n = cut_suffix(base, n, ".dump");
	*len = cut_per_cpu(base, n);
	return base;
}

void default_picture_name(const char *const *traces, size_t n, char *buf,
			  size_t size)
{
	size_t used = 0, i, len;
	const char *stem;

	buf[0] = '\0';
	for (i = 0; i < n && used + 8 < size; i++) {
		stem = trace_stem(traces[i], &len);
		/* standard input, ".", "/": no name of their own */
		if (!strcmp(traces[i], "-") || !len ||
		    (len <= 2 && !strncmp(stem, "..", len)))
			stem = "trace", len = 5;
		if (len > size - used - 8)
			len = size - used - 8;
		used += (size_t)snprintf(buf + used, size - used, "%s%.*s",
					 i ? "+" : "", (int)len, stem);
	}
	snprintf(buf + used, size - used, ".svg");
}
