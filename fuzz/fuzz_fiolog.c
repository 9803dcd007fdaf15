/*
 * fuzz_fiolog.c: fiolog_load, the reader of fio's bandwidth, IOPS and
 * latency logs (-F). The input is the file. Seeds: samples/ *_bw.*.log
 * and tests/data/fio_*.log.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "reader/fiolog.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fiolog log;
	struct iow_error err = { "" };
	char path[512];
	size_t i;

	fuzz_write_file("x_bw.log", data, size, path, sizeof(path));
	memset(&log, 0, sizeof(log));
	if (fiolog_load(path, &log, &err) < 0) {
		fuzz_check_error(&err, "fiolog_load");
	} else {
		for (i = 0; i < log.n; i++)
			if (!isfinite(log.samples[i].time_s) ||
			    log.samples[i].dir > FIOLOG_TRIM)
				abort();
	}
	fiolog_free(&log);
	return 0;
}
