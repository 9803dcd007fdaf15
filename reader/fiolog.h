/*
 * fiolog.h: fio's per-job logs (write_bw_log=NAME gives NAME_bw.1.log,
 * and the iops and latency logs share the format): one sample a line,
 * "msec, value, ddir, bs[, offset[, prio ...]]".
 */
#ifndef IOWATCHER_FIOLOG_H
#define IOWATCHER_FIOLOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum fiolog_dir { FIOLOG_READ = 0, FIOLOG_WRITE = 1, FIOLOG_TRIM = 2 };

struct fiolog_sample {
	double time_s;		/* fio's msec / 1000: since the job began */
	uint64_t value;		/* KiB/s in a bw log (IOPS, ns in others) */
	enum fiolog_dir dir;
	uint32_t bs;		/* block size; 0 in averaged logs */
};

struct fiolog {
	struct fiolog_sample *samples;	/* in file order */
	size_t n, cap;
};

/* Returns 0 (an empty log gives n == 0), or -1 with "FILE:LINE: what". */
int fiolog_load(const char *path, struct fiolog *out,
		struct iow_error *err);
void fiolog_free(struct fiolog *log);

/* A fio log given with -F, drawn beside the traces. */
struct fio_input {
	char *path;
	double offset_s;	/* -F FILE@SECONDS: when the job started */
	struct fiolog log;
};

/*
 * -F's argument, FILE or FILE@SECONDS (fio stamps a job's log from that
 * job's start, after its startdelay: SECONDS says where that is in the
 * trace), read into in. -1 with err; in is to be freed all the same
 * (fio_input_free).
 */
int fio_input_load(const char *arg, struct fio_input *in,
		   struct iow_error *err);
void fio_input_free(struct fio_input *in);

#endif
