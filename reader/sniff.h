/*
 * sniff.h: what data that is not a blktrace trace looks like, told from
 * its first bytes where that is cheap (blkparse's text output, fio's
 * output and logs, mpstat's, an image, a PDF, an archive, a program,
 * JSON, text), so that the error can say so and what to give instead.
 */
#ifndef IOWATCHER_SNIFF_H
#define IOWATCHER_SNIFF_H

#include <stddef.h>

struct sniffed {
	const char *what;	/* "a PNG image" */
	/* what to give instead, for a file and for standard input (NULL:
	 * the usual advice, sniff_instead's) */
	const char *instead_file, *instead_stdin;
	/* a file of a recording NAME: what follows NAME in its name
	 * (".cause"), so the advice can say -t NAME; or NULL */
	const char *after_name;
};

/* What p[0, len) (the start of the data) looks like, or NULL. */
const struct sniffed *sniff(const unsigned char *p, size_t len);
/* What to give instead of s (NULL: unknown data), read from a file or
 * standard input. */
const char *sniff_instead(const struct sniffed *s, int is_stdin);
/*
 * The -t that reads the recording whose file path is (s->after_name
 * cut from it, into buf): "give -t NAME"; NULL where s names none or
 * path does not hold it.
 */
const char *sniff_name_instead(const struct sniffed *s, const char *path,
			       char *buf, size_t size);
/* p[0, len) starts with a line of blkparse's text output. */
int sniff_blkparse_text(const unsigned char *p, size_t len);

#endif
