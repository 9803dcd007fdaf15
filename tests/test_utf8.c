/*
 * test_utf8.c: repairing text from traces and taggers so that cairo can
 * draw it and JSON can carry it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/utf8.h"

static void test_well_formed_characters_have_their_length(void)
{
	CHECK_EQ_INT(utf8_char_len("a"), 1);
	CHECK_EQ_INT(utf8_char_len("\xc3\xa9"), 2);		/* é */
	CHECK_EQ_INT(utf8_char_len("\xe2\x80\xa6"), 3);	/* … */
	CHECK_EQ_INT(utf8_char_len("\xf0\x9f\x92\xbe"), 4);	/* 💾 */
	CHECK_EQ_INT(utf8_char_len("\xf4\x8f\xbf\xbf"), 4);	/* U+10FFFF */
}

static void test_malformed_bytes_start_no_character(void)
{
	CHECK_EQ_INT(utf8_char_len("\x89"), 0);		/* lone continuation */
	CHECK_EQ_INT(utf8_char_len("\xc3"), 0);		/* cut at the end */
	CHECK_EQ_INT(utf8_char_len("\xc3("), 0);
	CHECK_EQ_INT(utf8_char_len("\xc0\xaf"), 0);		/* overlong */
	CHECK_EQ_INT(utf8_char_len("\xe0\x80\xaf"), 0);	/* overlong */
	CHECK_EQ_INT(utf8_char_len("\xed\xa0\x80"), 0);	/* surrogate */
	CHECK_EQ_INT(utf8_char_len("\xf4\x90\x80\x80"), 0);	/* > U+10FFFF */
	CHECK_EQ_INT(utf8_char_len("\xff"), 0);
}

static void test_valid_text_is_used_as_it_is(void)
{
	char buf[16];
	const char *s = "k\xc3\xa9rn";

	CHECK(utf8_clean(s, buf, sizeof(buf)) == s);
}

static void test_bad_bytes_become_question_marks(void)
{
	char buf[32];

	/* a kworker name with two bytes of Latin-1 garbage */
	CHECK(!strcmp(utf8_clean("k\x89\x8brker/u256:1", buf, sizeof(buf)),
		      "k??rker/u256:1"));
	CHECK(!strcmp(utf8_clean("\xc3\xa9\xc3", buf, sizeof(buf)),
		      "\xc3\xa9?"));
}

static void test_a_repaired_copy_is_cut_at_a_character(void)
{
	char buf[5];

	/* "\x80" + "é" + "é": room for "?é" and the NUL, not the next é */
	CHECK(!strcmp(utf8_clean("\x80\xc3\xa9\xc3\xa9", buf, sizeof(buf)),
		      "?\xc3\xa9"));
}

static char *as_json(const char *s)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	utf8_json_string(f, s);
	fclose(f);
	return text;
}

static void test_json_strings_carry_characters_as_they_are(void)
{
	char *j = as_json("caf\xc3\xa9.dat \"\\\n");

	/* not "caf\u00c3\u00a9": a byte is not a character */
	CHECK(!strcmp(j, "\"caf\xc3\xa9.dat \\\"\\\\\\u000a\""));
	free(j);
	j = as_json("k\x89rn\xc3");
	CHECK(!strcmp(j, "\"k\\ufffdrn\\ufffd\""));
	free(j);
	j = as_json(NULL);
	CHECK(!strcmp(j, "\"\""));
	free(j);
}

static void test_a_cut_ends_where_a_character_does(void)
{
	const char *s = "caf\xc3\xa9";

	CHECK_EQ_INT(utf8_fit(s, 5, 4), 3);
	CHECK_EQ_INT(utf8_fit(s, 5, 5), 5);
	CHECK_EQ_INT(utf8_fit(s, 4, 9), 3);	/* len itself cuts it */
	CHECK_EQ_INT(utf8_fit("\x89\x89", 2, 1), 1);
}

int main(void)
{
	RUN_TEST(test_well_formed_characters_have_their_length);
	RUN_TEST(test_malformed_bytes_start_no_character);
	RUN_TEST(test_valid_text_is_used_as_it_is);
	RUN_TEST(test_bad_bytes_become_question_marks);
	RUN_TEST(test_a_repaired_copy_is_cut_at_a_character);
	RUN_TEST(test_json_strings_carry_characters_as_they_are);
	RUN_TEST(test_a_cut_ends_where_a_character_does);
	return check_report();
}
