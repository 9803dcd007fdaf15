/*
 * test_fuzz_regress.c: every fuzz target (fuzz/fuzz_*.c, built in here
 * with their entry points renamed) run over its seeds (fuzz/seeds/TARGET)
 * and over the inputs that once crashed it or broke one of its checks
 * (tests/data/regress/TARGET). An input passes by coming back: a crash,
 * a sanitizer report or a failed check aborts the test.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define LLVMFuzzerTestOneInput fuzz_feed_one
#include "../fuzz/fuzz_feed.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tagger_one
#include "../fuzz/fuzz_tagger.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_mpstat_one
#include "../fuzz/fuzz_mpstat.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_fiolog_one
#include "../fuzz/fuzz_fiolog.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_args_one
#include "../fuzz/fuzz_args.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_ftrace_page_one
#include "../fuzz/fuzz_ftrace_page.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_perftext_one
#include "../fuzz/fuzz_perftext.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_merge_one
#include "../fuzz/fuzz_merge.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tracedat_one
#include "../fuzz/fuzz_tracedat.c"
#undef LLVMFuzzerTestOneInput

typedef int (*fuzz_entry)(const uint8_t *data, size_t size);

static unsigned char *read_whole(const char *path, size_t *size)
{
	unsigned char *buf = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		buf = malloc((size_t)st.st_size + 1);
		if (buf && read(fd, buf, (size_t)st.st_size) != st.st_size) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)st.st_size;
	}
	close(fd);
	return buf;
}

/* Runs every file in dir through entry; the number run, -1 if none. */
static long run_dir(const char *dir, fuzz_entry entry)
{
	struct dirent *de;
	long n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[1024];
		unsigned char *data;
		size_t size = 0;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		data = read_whole(path, &size);
		if (!data)
			continue;
		entry(data, size);
		free(data);
		n++;
	}
	closedir(d);
	return n;
}

static void run_target(const char *name, fuzz_entry entry)
{
	char dir[256];
	long seeds, regress;

	snprintf(dir, sizeof(dir), "fuzz/seeds/%s", name);
	seeds = run_dir(dir, entry);
	snprintf(dir, sizeof(dir), "tests/data/regress/%s", name);
	regress = run_dir(dir, entry);
	CHECK(seeds > 0);
	printf("  %s: %ld seeds, %ld regression inputs\n", name, seeds,
	       regress < 0 ? 0 : regress);
}

static void test_trace_reader_survives_seeds_and_past_crashes(void)
{
	run_target("feed", fuzz_feed_one);
}

static void test_tagger_answers_survive_seeds_and_past_crashes(void)
{
	run_target("tagger", fuzz_tagger_one);
}

static void test_mpstat_reader_survives_seeds_and_past_crashes(void)
{
	run_target("mpstat", fuzz_mpstat_one);
}

static void test_fio_log_reader_survives_seeds_and_past_crashes(void)
{
	run_target("fiolog", fuzz_fiolog_one);
}

static void test_command_line_survives_seeds_and_past_crashes(void)
{
	run_target("args", fuzz_args_one);
}

static void test_ring_buffer_pages_survive_seeds_and_past_crashes(void)
{
	run_target("ftrace_page", fuzz_ftrace_page_one);
}

static void test_perf_text_and_its_outputs_survive_seeds(void)
{
	run_target("perftext", fuzz_perftext_one);
}

static void test_merged_summaries_survive_seeds(void)
{
	run_target("merge", fuzz_merge_one);
}

static void test_trace_dat_survives_seeds_and_past_crashes(void)
{
	run_target("tracedat", fuzz_tracedat_one);
}

int main(void)
{
	RUN_TEST(test_trace_reader_survives_seeds_and_past_crashes);
	RUN_TEST(test_tagger_answers_survive_seeds_and_past_crashes);
	RUN_TEST(test_mpstat_reader_survives_seeds_and_past_crashes);
	RUN_TEST(test_fio_log_reader_survives_seeds_and_past_crashes);
	RUN_TEST(test_command_line_survives_seeds_and_past_crashes);
	RUN_TEST(test_ring_buffer_pages_survive_seeds_and_past_crashes);
	RUN_TEST(test_perf_text_and_its_outputs_survive_seeds);
	RUN_TEST(test_merged_summaries_survive_seeds);
	RUN_TEST(test_trace_dat_survives_seeds_and_past_crashes);
	return check_report();
}
