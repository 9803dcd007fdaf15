/*
 * test_outkind.c: what -o names, by its extension (outkind.c): a
 * picture's format, a movie's container or the report, case-insensitive,
 * the last dot deciding; anything else refused with the extensions that
 * work.
 */
#include <string.h>

#include "check.h"
#include "outkind.h"

static void test_pictures_by_extension_case_insensitive(void)
{
	struct output_type t;
	struct iow_error err;

	CHECK_EQ_INT(output_type_of("a/b.png", &t, &err), 0);
	CHECK_EQ_INT(t.kind, OUTPUT_PICTURE);
	CHECK_EQ_INT(t.picture, PLOT_PNG);
	CHECK_EQ_INT(output_type_of("OUT.PDF", &t, &err), 0);
	CHECK_EQ_INT(t.picture, PLOT_PDF);
	CHECK_EQ_INT(output_type_of("x.tar.Svg", &t, &err), 0);
	CHECK_EQ_INT(t.kind, OUTPUT_PICTURE);
	CHECK_EQ_INT(t.picture, PLOT_SVG);
}

static void test_movies_by_extension(void)
{
	struct output_type t;
	struct iow_error err;

	CHECK_EQ_INT(output_type_of("run.mp4", &t, &err), 0);
	CHECK_EQ_INT(t.kind, OUTPUT_MOVIE);
	CHECK_EQ_INT(t.movie, MOVIE_MP4);
	CHECK_EQ_INT(output_type_of("run.WebM", &t, &err), 0);
	CHECK_EQ_INT(t.movie, MOVIE_WEBM);
	CHECK_EQ_INT(output_type_of("run.ogg", &t, &err), 0);
	CHECK_EQ_INT(t.movie, MOVIE_OGV);
	CHECK_EQ_INT(output_type_of("run.gif", &t, &err), 0);
	CHECK_EQ_INT(t.movie, MOVIE_GIF);
}

static void test_html_is_the_report(void)
{
	struct output_type t;
	struct iow_error err;

	CHECK_EQ_INT(output_type_of("out/run.html", &t, &err), 0);
	CHECK_EQ_INT(t.kind, OUTPUT_REPORT);
	CHECK_EQ_INT(output_type_of("RUN.HTM", &t, &err), 0);
	CHECK_EQ_INT(t.kind, OUTPUT_REPORT);
}

static void test_unknown_extension_is_error(void)
{
	struct output_type t;
	struct iow_error err = { "" };

	CHECK_EQ_INT(output_type_of("graph.jpg", &t, &err), -1);
	CHECK_EQ_INT(t.kind, OUTPUT_NONE);
	CHECK(strstr(err.msg, "graph.jpg") != NULL);
	CHECK(strstr(err.msg, ".svg, .png or .pdf") != NULL);
	CHECK(strstr(err.msg, ".html for the report") != NULL);
	CHECK_EQ_INT(output_type_of("noext", &t, &err), -1);
	CHECK_EQ_INT(output_type_of("dir.png/file", &t, &err), -1);
	CHECK_EQ_INT(output_type_of(NULL, &t, NULL), -1);
}

int main(void)
{
	RUN_TEST(test_pictures_by_extension_case_insensitive);
	RUN_TEST(test_movies_by_extension);
	RUN_TEST(test_html_is_the_report);
	RUN_TEST(test_unknown_extension_is_error);
	return check_report();
}
