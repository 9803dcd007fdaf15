/*
 * test_json.c: the JSON reader keeps whole numbers to 2^64 - 1 exactly
 * and knows the others are not, decodes escapes to UTF-8, finds an
 * object's members by name, and refuses what is not JSON (cut short,
 * trailing text, nested past its bound) with the byte where it went
 * wrong.
 */
#include <stdint.h>
#include <string.h>

#include "base/json.h"
#include "check.h"

static int parse(const char *text, struct json *v, size_t *at)
{
	const char *why = NULL;
	size_t where = 0;
	int rc = json_parse(text, strlen(text), v, &where, &why);

	if (at)
		*at = where;
	return rc;
}

static void test_whole_numbers_are_exact_to_2_64(void)
{
	struct json v;
	int ok = 1;

	CHECK_EQ_INT(parse("{\"big\": 18446744073709551615, \"n\": 9007199254740993, "
			   "\"over\": 18446744073709551616, \"neg\": -1, "
			   "\"frac\": 1.5, \"exp\": 1e3}", &v, NULL), 0);
	CHECK(json_get_whole(&v, "big", &ok) == UINT64_MAX);
	CHECK(json_get_whole(&v, "n", &ok) == 9007199254740993ull);
	CHECK_EQ_INT(ok, 1);
	json_get_whole(&v, "over", &ok);
	CHECK_EQ_INT(ok, 0);
	ok = 1;
	json_get_whole(&v, "neg", &ok);
	CHECK_EQ_INT(ok, 0);
	ok = 1;
	json_get_whole(&v, "frac", &ok);
	CHECK_EQ_INT(ok, 0);
	CHECK_NEAR(json_get(&v, "frac")->number, 1.5, 0);
	CHECK_NEAR(json_get(&v, "exp")->number, 1000, 0);
	ok = 1;
	json_get_whole(&v, "missing", &ok);
	CHECK_EQ_INT(ok, 0);
	json_free(&v);
}

static void test_strings_decode_escapes(void)
{
	struct json v;

	CHECK_EQ_INT(parse("[\"a\\\"b\\\\c\\n\", \"caf\\u00e9 \\u20ac\", \"\"]",
			   &v, NULL), 0);
	CHECK_EQ_INT(v.type, JSON_ARRAY);
	CHECK_EQ_INT(v.n, 3);
	if (v.n == 3) {
		CHECK(!strcmp(v.items[0].string, "a\"b\\c\n"));
		CHECK(!strcmp(v.items[1].string, "caf\xc3\xa9 \xe2\x82\xac"));
		CHECK(!strcmp(v.items[2].string, ""));
	}
	json_free(&v);
}

static void test_members_by_name_and_literals(void)
{
	struct json v;
	const struct json *m;

	CHECK_EQ_INT(parse(" {\"a\": {\"b\": [true, false, null]}, \"c\": {}} ",
			   &v, NULL), 0);
	m = json_get(json_get(&v, "a"), "b");
	CHECK(m != NULL && m->type == JSON_ARRAY && m->n == 3);
	if (m && m->n == 3) {
		CHECK(m->items[0].type == JSON_BOOL && m->items[0].boolean);
		CHECK(m->items[1].type == JSON_BOOL && !m->items[1].boolean);
		CHECK_EQ_INT(m->items[2].type, JSON_NULL);
	}
	CHECK(json_get(&v, "c") && json_get(&v, "c")->n == 0);
	CHECK(json_get(m, "x") == NULL);	/* an array has no members */
	json_free(&v);
}

/* n arrays, one in another: [[...]] */
static void nested(char *out, size_t n)
{
	memset(out, '[', n);
	memset(out + n, ']', n);
	out[2 * n] = 0;
}

static void test_bad_text_is_refused_where_it_goes_wrong(void)
{
	struct json v;
	size_t at;
	char deep[202];

	CHECK_EQ_INT(parse("{\"a\": [1, 2", &v, &at), -1);
	CHECK_EQ_INT(at, 11);
	CHECK_EQ_INT(parse("{\"a\": 1} x", &v, &at), -1);
	CHECK_EQ_INT(at, 9);
	CHECK_EQ_INT(parse("{\"a\" 1}", &v, &at), -1);
	CHECK_EQ_INT(parse("\"open", &v, &at), -1);
	CHECK_EQ_INT(parse("[1,]", &v, &at), -1);
	CHECK_EQ_INT(parse("\"\\x\"", &v, &at), -1);
	CHECK_EQ_INT(parse("", &v, &at), -1);
	CHECK_EQ_INT(parse("tru", &v, &at), -1);
	/* 66 arrays one in another are past the bound (64 below the
	 * top's), 65 are not */
	nested(deep, 66);
	CHECK_EQ_INT(parse(deep, &v, &at), -1);
	CHECK(v.items == NULL && v.n == 0);	/* nothing left to free */
	nested(deep, 65);
	CHECK_EQ_INT(parse(deep, &v, &at), 0);
	json_free(&v);
	CHECK_EQ_INT(parse("{\"a\": 1} x", &v, &at), -1);
	CHECK(v.items == NULL && v.n == 0);	/* nothing left to free */
}

int main(void)
{
	RUN_TEST(test_whole_numbers_are_exact_to_2_64);
	RUN_TEST(test_strings_decode_escapes);
	RUN_TEST(test_members_by_name_and_literals);
	RUN_TEST(test_bad_text_is_refused_where_it_goes_wrong);
	return check_report();
}
