/* utf8.c: checking and repairing UTF-8 (see utf8.h). */
#include <string.h>

#include "utf8.h"

size_t utf8_char_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long cp;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

const char *utf8_clean(const char *s, char *buf, size_t size)
{
	const char *p;
	size_t n = 0, len;

	for (p = s; *p && utf8_char_len(p); p += utf8_char_len(p))
		;
	if (!*p)
		return s;
	for (p = s; *p; p += len) {
		len = utf8_char_len(p);
		if (n + (len ? len : 1) >= size)
			break;
		if (len) {
			memcpy(buf + n, p, len);
			n += len;
		} else {
			buf[n++] = '?';
			len = 1;
		}
	}
	buf[n] = '\0';
	return buf;
}

size_t utf8_fit(const char *s, size_t len, size_t max)
{
	size_t n = 0, c;

	while (n < len && s[n]) {
		c = utf8_char_len(s + n);
		if (!c)
			c = 1;
		if (n + c > len || n + c > max)
			break;
		n += c;
	}
	return n;
}

/* html_safe: <, > and & escaped too, so that the string can stand in a
 * page's <script> (the report's) */
static void json_string_as(FILE *out, const char *s, int html_safe)
{
	size_t len;

	fputc('"', out);
	for (; s && *s; s += len) {
		unsigned char c = (unsigned char)*s;

		len = utf8_char_len(s);
		if (!len) {
			fputs("\\ufffd", out);
			len = 1;
		} else if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c < 0x20 ||
			   (html_safe && (c == '<' || c == '>' || c == '&'))) {
			fprintf(out, "\\u%04x", c);
		} else {
			fwrite(s, 1, len, out);
		}
	}
	fputc('"', out);
}

void utf8_json_string(FILE *out, const char *s)
{
	json_string_as(out, s, 0);
}

void utf8_json_string_html(FILE *out, const char *s)
{
	json_string_as(out, s, 1);
}
