/*
 * json.h: a small JSON reader, for the documents iowatcher writes and
 * reads back (summaries merged by --merge-summaries). The whole text is
 * read into a tree of values; a number keeps its text's double and, when
 * it is a whole number from 0 to 2^64 - 1, that exactly.
 */
#ifndef IOWATCHER_JSON_H
#define IOWATCHER_JSON_H

#include <stddef.h>
#include <stdint.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING,
		 JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	int boolean;
	double number;
	uint64_t whole;		/* the number, when is_whole */
	int is_whole;
	char *string;		/* a string's text (NUL-terminated) */
	/* an array's items or an object's values, with keys[i] its name */
	struct json *items;
	char **keys;
	size_t n;
};

/*
 * Parses text (len bytes) into *v; -1 with *at the byte offset where it
 * went wrong and what (a static string) in *why.
 */
int json_parse(const char *text, size_t len, struct json *v, size_t *at,
	       const char **why);
void json_free(struct json *v);
/* An object's member called key, NULL where v is no object or lacks it. */
const struct json *json_get(const struct json *v, const char *key);
/* The member as a whole number: 0 when missing or not one (*ok 0). */
uint64_t json_get_whole(const struct json *v, const char *key, int *ok);

#endif
