/*
 * fuzz_mpstat.c: cpustat_load, the reader of `mpstat -P ALL 1` output
 * (NAME.mpstat beside a trace). The input is the file. Seeds: the
 * recorded samples/ *.mpstat and tests/data/mpstat-2cpu.txt.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "reader/cpustat.h"
#include "fuzz_common.h"

static void mpstat_check_series(const struct cpustat_series *s)
{
	size_t i;
	int f;

	if (s->n > s->cap)
		abort();
	for (i = 0; i < s->n; i++) {
		if (!isfinite(s->samples[i].time_s))
			abort();
		for (f = 0; f < CPUSTAT_N_FIELDS; f++)
			if (!isfinite(s->samples[i].pct[f]))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpustat cs;
	struct iow_error err = { "" };
	char path[512];
	size_t i;

	fuzz_write_file("x.mpstat", data, size, path, sizeof(path));
	memset(&cs, 0, sizeof(cs));
	if (cpustat_load(path, &cs, &err) < 0) {
		fuzz_check_error(&err, "cpustat_load");
	} else {
		mpstat_check_series(&cs.all);
		for (i = 0; i < cs.n_cpus; i++)
			mpstat_check_series(&cs.cpus[i]);
	}
	cpustat_free(&cs);
	return 0;
}
