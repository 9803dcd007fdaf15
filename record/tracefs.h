/*
 * tracefs.h: the kernel's tracing files, as every recorder needs them:
 * tracefs found or mounted (and debugfs, for blktrace), its small
 * control files read and written, the block devices to trace resolved
 * from what the user typed, and the check that nobody else traces them.
 * Below the recorders (recorder.h) and the session (record.c) alike.
 */
#ifndef IOWATCHER_TRACEFS_H
#define IOWATCHER_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct tracefs {
	char dir[256];		/* the tracing directory, with trace_pipe */
	int mounted_debugfs;	/* we mounted these and unmount them */
	int mounted_tracefs;
};

/* Finds tracefs, mounting it where it is not; tracefs_release unmounts
 * what was mounted. */
int tracefs_setup(struct tracefs *t, struct iow_error *err);
/* Mounts debugfs where it is not (blktrace reads its per-CPU files
 * there), to be unmounted by tracefs_release. */
int tracefs_need_debugfs(struct tracefs *t, struct iow_error *err);
void tracefs_release(struct tracefs *t);
/* Reads a small control file into buf without its final newline. */
int tracefs_read(const char *path, char *buf, size_t size,
		 struct iow_error *err);
int tracefs_write(const char *path, const char *value,
		  struct iow_error *err);
/* t's directory and file, into path (PATH_MAX bytes). */
void tracefs_path(const struct tracefs *t, const char *file, char *path);

/* A block device to trace, resolved from its /dev path. */
struct record_device {
	const char *path;	/* as the user gave it: "/dev/sdb", "sdb" */
	char node[80];		/* its /dev node, "" when it has none */
	uint32_t dev;		/* kernel dev_t, as in trace records */
	char trace_dir[64];	/* /sys/dev/block/MAJ:MIN/trace */
	int enabled_by_us;	/* its trace/enable is ours to reset */
};

/* A device by its path, or by its bare name as /dev and /sys/block
 * know it ("loop0", "nvme0n1p2"). */
int record_device_resolve(struct record_device *d, const char *path,
			  struct iow_error *err);
/*
 * Fails with "device busy with another trace" if the blk tracer or a
 * device's trace/enable is already in use. Before it looks, puts back
 * what a killed iowatcher's recording left on (ftrace_owner.h): then
 * *reclaimed is its pid (-1 if unknown), else 0.
 */
int ftrace_check_idle(const struct tracefs *t,
		      const struct record_device *devs, size_t n_devs,
		      long *reclaimed, struct iow_error *err);

#endif
