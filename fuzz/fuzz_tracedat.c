/*
 * fuzz_tracedat.c: trace-cmd's trace.dat as a user's is read
 * (reader/tracedat.c): the input is written to a file and read as a
 * trace, its sizes checked first, then read in this process by the
 * program's own reader (tracedat_own.c) when it takes the file, else by
 * libtracecmd in a child of its own, every event's fields read back in
 * this process either way; the events go
 * into the analysis and the summary is printed to /dev/null. A file that
 * starts with xz's, gzip's or zstd's magic is decompressed first (the
 * reproducers in tests/data/regress/tracedat are kept so).
 *
 * Properties besides "no crash, no sanitizer report in this process": an
 * error is one non-empty line, no temporary file is left behind, and no
 * child is left, running or unreaped, once the trace is closed. The
 * child's own crash is an answer (one line), not a finding: it runs the
 * library, which is not ours. Seeds: fuzz/seeds/tracedat, a 40-event cut
 * of samples/tracedat-fio.dat (trace-cmd split -e 40) as version 7 and
 * as version 6 (trace-cmd convert --file-version 6).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "blkparse_feed.h"
#include "fuzz_common.h"
#include "options.h"
#include "output/summary.h"

static FILE *fz_td_devnull;

/*
 * Every child of ours has been reaped: none is listed in /proc, running
 * or a zombie, but the sanitizers' llvm-symbolizer (which they start to
 * name a function in a report and keep).
 */
static void fz_td_no_child(void)
{
	char path[300], comm[64], pids[4096];
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");

	while (d && (de = readdir(d))) {
		char *p, *end;
		FILE *f;
		size_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
			 de->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		n = fread(pids, 1, sizeof(pids) - 1, f);
		fclose(f);
		pids[n] = '\0';
		for (p = pids; *p; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
			comm[0] = '\0';
			if ((f = fopen(path, "r"))) {
				if (!fgets(comm, sizeof(comm), f))
					comm[0] = '\0';
				fclose(f);
			}
			if (strstr(comm, "symbolizer"))
				continue;
			fprintf(stderr, "fuzz: tracedat: child %ld (%s) left behind\n",
				pid, strtok(comm, "\n") ? comm : "?");
			abort();
		}
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_list list = { NULL, 0 };
	struct analysis_config cfg = { 0 };
	struct trace_result res;
	struct iow_error err = { "" };
	struct io_event ev[64];
	struct feed *f;
	char path[512];
	long n, i;
	int r = 0;

	if (!fz_td_devnull)
		fz_td_devnull = fopen("/dev/null", "w");
	fuzz_write_file("in.dat", data, size, path, sizeof(path));
	if (feed_find_traces(path, &list, &err) < 0) {
		fuzz_check_error(&err, "feed_find_traces");
		trace_list_free(&list);
		return 0;
	}
	cfg.stats_only = 1;
	memset(&res, 0, sizeof(res));
	res.label = list.items[0].label;
	res.source = list.items[0].name;
	if (analysis_init(&res.analysis, &cfg, &err) < 0) {
		fuzz_check_error(&err, "analysis_init");
		trace_list_free(&list);
		return 0;
	}
	f = feed_open(&list.items[0], &err);
	if (!f) {
		r = -1;
	} else {
		while (r == 0 &&
		       (n = feed_next_batch(f, ev, 64, 65536, &err)) != 0) {
			if (n < 0)
				r = -1;
			for (i = 0; i < n && r == 0; i++)
				if (analysis_add(&res.analysis, &ev[i], &err) < 0)
					r = -1;
		}
		feed_close(f);
	}
	fz_td_no_child();
	analysis_finish(&res.analysis);
	if (r < 0)
		fuzz_check_error(&err, "reading");
	else
		summary_print_json(fz_td_devnull, &res, 1, 0);
	fuzz_check_no_tmp("reading");
	analysis_free(&res.analysis);
	trace_list_free(&list);
	return 0;
}
