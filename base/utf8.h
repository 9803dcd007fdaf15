/*
 * utf8.h: text that comes from traces and taggers (process names, tag
 * labels, file names) is bytes; what cairo draws and what JSON carries
 * must be UTF-8. These make it so, character by character.
 */
#ifndef IOWATCHER_UTF8_H
#define IOWATCHER_UTF8_H

#include <stddef.h>
#include <stdio.h>

/*
 * Bytes of the well-formed UTF-8 character at s (1 to 4; no overlong
 * forms, surrogates or code points past U+10FFFF), 0 if s does not
 * start one. s is NUL-terminated.
 */
size_t utf8_char_len(const char *s);

/*
 * s itself when it is valid UTF-8, else a copy in buf (size bytes, at
 * least 1) with every byte that starts no character replaced by '?',
 * cut short at a character if it does not fit.
 */
const char *utf8_clean(const char *s, char *buf, size_t size);

/*
 * The bytes of s's first len that fit in max without cutting a
 * character in two (a byte that starts none is one).
 */
size_t utf8_fit(const char *s, size_t len, size_t max);

/*
 * s as a JSON string: its characters as they are (JSON is UTF-8), '"'
 * and '\\' escaped, control characters as \u00XX, and each byte that
 * starts no character as U+FFFD. NULL is "".
 */
void utf8_json_string(FILE *out, const char *s);
/* The same, with <, > and & as \u escapes: safe inside an HTML page's
 * <script> (the report, --compare's page and JSON). */
void utf8_json_string_html(FILE *out, const char *s);

#endif
