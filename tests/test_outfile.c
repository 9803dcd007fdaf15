/* test_outfile.c: outputs written aside and renamed into place whole. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "check.h"

static char dir[] = "/tmp/iow-outfile-XXXXXX";

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

static void test_commit_puts_the_whole_file_in_place(void)
{
	struct outfile f;
	struct iow_error err;
	char path[256], buf[64];

	snprintf(path, sizeof(path), "%s/a.svg", dir);
	CHECK(outfile_open(&f, path, NULL, &err) == 0);
	CHECK(write(f.fd, "whole", 5) == 5);
	/* until the commit, only the temporary is there */
	CHECK(access(path, F_OK) != 0);
	CHECK_EQ_INT(entries(), 1);
	CHECK(outfile_commit(&f, &err) == 0);
	slurp(path, buf, sizeof(buf));
	CHECK(!strcmp(buf, "whole"));
	CHECK_EQ_INT(entries(), 1);
	unlink(path);
}

static void test_abort_and_interrupt_leave_nothing(void)
{
	struct outfile f;
	struct iow_error err;
	char path[256], buf[64];

	snprintf(path, sizeof(path), "%s/b.csv", dir);
	CHECK(outfile_open(&f, path, NULL, &err) == 0);
	outfile_abort(&f);
	CHECK_EQ_INT(entries(), 0);
	/* an interrupt keeps the earlier file as it was */
	CHECK(outfile_open(&f, path, NULL, &err) == 0);
	CHECK(write(f.fd, "old", 3) == 3);
	CHECK(outfile_commit(&f, &err) == 0);
	CHECK(outfile_open(&f, path, NULL, &err) == 0);
	CHECK(write(f.fd, "new", 3) == 3);
	iow_interrupted = 2;
	CHECK(outfile_commit(&f, &err) < 0);
	iow_interrupted = 0;
	CHECK(strstr(err.msg, "interrupted") != NULL);
	slurp(path, buf, sizeof(buf));
	CHECK(!strcmp(buf, "old"));
	CHECK_EQ_INT(entries(), 1);
	unlink(path);
}

/* ffmpeg writes the temporary by its name, which ends as the output's. */
static void test_a_program_writes_the_temporary_by_name(void)
{
	struct outfile f;
	struct iow_error err;
	char path[256], buf[64];
	FILE *w;

	snprintf(path, sizeof(path), "%s/c.mp4", dir);
	CHECK(outfile_open(&f, path, ".mp4", &err) == 0);
	close(f.fd);
	f.fd = -1;
	CHECK(strlen(f.tmp_path) > 4 &&
	      !strcmp(f.tmp_path + strlen(f.tmp_path) - 4, ".mp4"));
	w = fopen(f.tmp_path, "w");
	CHECK(w != NULL);
	if (w) {
		fputs("frames", w);
		fclose(w);
	}
	CHECK(outfile_commit(&f, &err) == 0);
	slurp(path, buf, sizeof(buf));
	CHECK(!strcmp(buf, "frames"));
	unlink(path);
}

static void test_unwritable_directory_is_one_error(void)
{
	struct outfile f;
	struct iow_error err;

	CHECK(outfile_open(&f, "/nonexistent/x.png", NULL, &err) < 0);
	/* the user's name and what is wrong with it, never the temporary */
	CHECK(!strcmp(err.msg,
		      "cannot create /nonexistent/x.png: no directory /nonexistent"));
	CHECK(!strstr(err.msg, ".tmp"));
	outfile_abort(&f);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_commit_puts_the_whole_file_in_place);
	RUN_TEST(test_abort_and_interrupt_leave_nothing);
	RUN_TEST(test_a_program_writes_the_temporary_by_name);
	RUN_TEST(test_unwritable_directory_is_one_error);
	rmdir(dir);
	return check_report();
}
