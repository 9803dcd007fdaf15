/*
 * test_outkind.c: what -o names, by its extension (outkind.c): a
 * picture's format, a movie's container or the report, case-insensitive,
 * the last dot deciding; anything else refused with the extensions that
 * work.
 */
#include <string.h>

#include "check.h"
#include "outputs.h"

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
	CHECK(strstr(err.msg, ".html or .htm for the report") != NULL);
	CHECK(strstr(err.msg, ".jsonl for the per-device log") != NULL);
	CHECK_EQ_INT(output_type_of("noext", &t, &err), -1);
	CHECK_EQ_INT(output_type_of("dir.png/file", &t, &err), -1);
	CHECK_EQ_INT(output_type_of(NULL, &t, NULL), -1);
}

/* Every row's extensions name that row, and no two rows share a name
 * or an extension; a row names how it is chosen. */
static void test_table_rows(void)
{
	struct iow_error err = { "" };
	struct output_type t;
	size_t i, j, k;

	CHECK(output_table_len >= 9 && output_table_len <= OUTPUTS_MAX);
	for (i = 0; i < output_table_len; i++) {
		const struct output_ops *ops = output_table[i];

		CHECK(ops->name && ops->help && ops->chosen && ops->finish);
		CHECK(ops->exts[0].ext || ops->option);
		for (k = 0; k < OUTPUT_MAX_EXTS && ops->exts[k].ext; k++) {
			CHECK_EQ_INT(output_type_of(ops->exts[k].ext, &t, &err),
				     0);
			CHECK(t.ops == ops);
			CHECK_EQ_INT(t.kind, ops->kind);
		}
		for (j = 0; j < i; j++)
			CHECK(strcmp(ops->name, output_table[j]->name) != 0);
	}
	CHECK_EQ_INT(output_type_of("x.JSONL", &t, &err), 0);
	CHECK_EQ_INT(t.kind, OUTPUT_OTHER);
	CHECK(!strcmp(t.ops->name, "devices"));
}

static int named(const char *want, size_t n, const char *a,
		 const char *b)
{
	const char *traces[2] = { a, b };
	char buf[256];

	default_picture_name(traces, n, buf, sizeof(buf));
	if (!strcmp(buf, want))
		return 1;
	printf("  %s%s%s: %s, expected %s\n", a, n > 1 ? " " : "",
	       n > 1 ? b : "", buf, want);
	return 0;
}

static void test_the_default_picture_is_named_after_the_trace(void)
{
	char buf[16], long_name[300];

	CHECK(named("a.svg", 1, "a", NULL));
	CHECK(named("b.svg", 1, "runs/b", NULL));
	CHECK(named("sda.svg", 1, "/tmp/sda.blktrace.0", NULL));
	CHECK(named("sda.svg", 1, "sda.blktrace.12", NULL));
	CHECK(named("sda.svg", 1, "sda.dump.zst", NULL));
	CHECK(named("runs.svg", 1, "data/runs/", NULL));
	CHECK(named("sda.blktrace.old.svg", 1, "sda.blktrace.old", NULL));
	CHECK(named("a+b.svg", 2, "a", "old/b.blktrace.1"));
	/* no name of their own */
	CHECK(named("trace.svg", 1, "-", NULL));
	CHECK(named("trace.svg", 1, ".", NULL));
	CHECK(named("trace.svg", 1, "/", NULL));
	CHECK(named("trace.svg", 1, "..", NULL));
	/* cut to fit, the extension kept */
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	default_picture_name((const char *const[]){ long_name }, 1, buf,
			     sizeof(buf));
	CHECK(!strcmp(buf, "nnnnnnnn.svg"));
}

int main(void)
{
	RUN_TEST(test_pictures_by_extension_case_insensitive);
	RUN_TEST(test_movies_by_extension);
	RUN_TEST(test_html_is_the_report);
	RUN_TEST(test_unknown_extension_is_error);
	RUN_TEST(test_table_rows);
	RUN_TEST(test_the_default_picture_is_named_after_the_trace);
	return check_report();
}
