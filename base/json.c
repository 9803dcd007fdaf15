/* json.c: a recursive-descent JSON reader into a tree (json.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "vec.h"

/* Deeper than any document iowatcher writes; a bound on the stack. */
#define JSON_MAX_DEPTH	64

struct json_in {
	const char *p, *end, *start;
	const char *why;
};

static int fail(struct json_in *in, const char *why)
{
	if (!in->why)
		in->why = why;
	return -1;
}

static void skip_space(struct json_in *in)
{
	while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' ||
				   *in->p == '\n' || *in->p == '\r'))
		in->p++;
}

static int literal(struct json_in *in, const char *word)
{
	size_t len = strlen(word);

	if ((size_t)(in->end - in->p) < len || memcmp(in->p, word, len))
		return fail(in, "not a JSON value");
	in->p += len;
	return 0;
}

/* One UTF-8 sequence for the code point of a \uXXXX escape. */
static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	o[0] = (char)(0xe0 | cp >> 12);
	o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static int escape(struct json_in *in, char *o, size_t *len)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e = in->p < in->end ? strchr(from, *in->p) : NULL;
	unsigned cp = 0;
	int i;

	if (e && *in->p) {
		o[(*len)++] = to[e - from];
		in->p++;
		return 0;
	}
	if (in->p >= in->end || *in->p != 'u' || in->end - in->p < 5)
		return fail(in, "a bad escape in a string");
	for (i = 1; i <= 4; i++) {
		char c = in->p[i];

		cp <<= 4;
		if (c >= '0' && c <= '9')
			cp |= (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			cp |= (unsigned)((c | 0x20) - 'a' + 10);
		else
			return fail(in, "a bad \\u escape in a string");
	}
	in->p += 5;
	*len += put_utf8(o + *len, cp);
	return 0;
}

static int string(struct json_in *in, char **out)
{
	const char *q = ++in->p;	/* past the quote */
	char *o;
	size_t len = 0;

	while (q < in->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	if (q >= in->end)
		return fail(in, "a string without its closing quote");
	/* an escape never grows: \uXXXX is 6 bytes for at most 3 */
	o = malloc((size_t)(q - in->p) + 1);
	if (!o)
		return fail(in, "out of memory");
	while (*in->p != '"') {
		if ((unsigned char)*in->p < 0x20) {
			free(o);
			return fail(in, "a control character in a string");
		}
		if (*in->p != '\\') {
			o[len++] = *in->p++;
			continue;
		}
		in->p++;
		if (escape(in, o, &len) < 0) {
			free(o);
			return -1;
		}
	}
	in->p++;
	o[len] = 0;
	*out = o;
	return 0;
}

static int number(struct json_in *in, struct json *v)
{
	char buf[64], *end;
	size_t len = 0;
	int whole = 1;

	while (in->p + len < in->end && len < sizeof(buf) - 1 &&
	       strchr("+-0123456789.eE", in->p[len]) && in->p[len]) {
		if (!strchr("0123456789", in->p[len]))
			whole = 0;
		len++;
	}
	memcpy(buf, in->p, len);
	buf[len] = 0;
	v->type = JSON_NUMBER;
	errno = 0;
	v->number = strtod(buf, &end);
	if (!len || end != buf + len)
		return fail(in, "not a JSON value");
	if (whole) {
		v->whole = strtoull(buf, &end, 10);
		v->is_whole = errno == 0;
	}
	in->p += len;
	return 0;
}

static int value(struct json_in *in, struct json *v, int depth);

/* A member's or an item's slot, zeroed (vec.h's growth for both). */
static struct json *add_item(struct json_in *in, struct json *v,
			     size_t *cap, size_t *cap_keys, int keyed)
{
	struct json *items = vec_grow(v->items, cap, v->n + 1,
				      sizeof(*items), 8);
	char **keys;

	if (!items)
		return fail(in, "out of memory"), NULL;
	v->items = items;
	if (keyed) {
		keys = vec_grow(v->keys, cap_keys, v->n + 1, sizeof(*keys), 8);
		if (!keys)
			return fail(in, "out of memory"), NULL;
		v->keys = keys;
		keys[v->n] = NULL;
	}
	memset(&items[v->n], 0, sizeof(items[0]));
	return &items[v->n++];
}

static int members(struct json_in *in, struct json *v, int depth, int keyed)
{
	char close = keyed ? '}' : ']';
	size_t cap = 0, cap_keys = 0;
	struct json *item;

	v->type = keyed ? JSON_OBJECT : JSON_ARRAY;
	in->p++;
	skip_space(in);
	if (in->p < in->end && *in->p == close) {
		in->p++;
		return 0;
	}
	for (;;) {
		if (!(item = add_item(in, v, &cap, &cap_keys, keyed)))
			return -1;
		skip_space(in);
		if (keyed) {
			if (in->p >= in->end || *in->p != '"')
				return fail(in, "an object's member without its name");
			if (string(in, &v->keys[v->n - 1]) < 0)
				return -1;
			skip_space(in);
			if (in->p >= in->end || *in->p++ != ':')
				return fail(in, "a member's name without ':'");
		}
		if (value(in, item, depth + 1) < 0)
			return -1;
		skip_space(in);
		if (in->p < in->end && *in->p == ',') {
			in->p++;
			continue;
		}
		if (in->p < in->end && *in->p == close) {
			in->p++;
			return 0;
		}
		return fail(in, keyed ? "an object without its closing '}'" :
					"an array without its closing ']'");
	}
}

static int value(struct json_in *in, struct json *v, int depth)
{
	skip_space(in);
	if (depth > JSON_MAX_DEPTH)
		return fail(in, "nested too deep");
	if (in->p >= in->end)
		return fail(in, "the text ends where a value should be");
	switch (*in->p) {
	case '{':
		return members(in, v, depth, 1);
	case '[':
		return members(in, v, depth, 0);
	case '"':
		v->type = JSON_STRING;
		return string(in, &v->string);
	case 't':
		v->type = JSON_BOOL;
		v->boolean = 1;
		return literal(in, "true");
	case 'f':
		v->type = JSON_BOOL;
		return literal(in, "false");
	case 'n':
		v->type = JSON_NULL;
		return literal(in, "null");
	default:
		return number(in, v);
	}
}

int json_parse(const char *text, size_t len, struct json *v, size_t *at,
	       const char **why)
{
	struct json_in in = { text, text + len, text, NULL };

	memset(v, 0, sizeof(*v));
	if (value(&in, v, 0) == 0) {
		skip_space(&in);
		if (in.p == in.end)
			return 0;
		fail(&in, "more text after the document");
	}
	*at = (size_t)(in.p - in.start);
	*why = in.why;
	json_free(v);
	return -1;
}

void json_free(struct json *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof(*v));
}

const struct json *json_get(const struct json *v, const char *key)
{
	size_t i;

	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (v->keys[i] && !strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

uint64_t json_get_whole(const struct json *v, const char *key, int *ok)
{
	const struct json *m = json_get(v, key);

	if (!m || m->type != JSON_NUMBER || !m->is_whole) {
		*ok = 0;
		return 0;
	}
	return m->whole;
}
