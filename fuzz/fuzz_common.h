/*
 * fuzz_common.h: what the fuzz targets share: a scratch directory (on
 * /dev/shm when there is one, removed at exit), writing the input to a
 * file there, and the properties every target checks besides "no crash":
 * an error is one non-empty line, and no temporary file is left behind.
 * A violated property aborts, so libFuzzer keeps the input.
 */
#ifndef IOWATCHER_FUZZ_COMMON_H
#define IOWATCHER_FUZZ_COMMON_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"

static char fuzz_dir[64];

static inline void fuzz_remove_dir(void)
{
	DIR *d = opendir(fuzz_dir);
	struct dirent *de;
	char path[512];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(fuzz_dir);
}

/* The scratch directory, made on first use. */
static inline const char *fuzz_scratch(void)
{
	if (fuzz_dir[0])
		return fuzz_dir;
	const char *parent = getenv("IOWFUZZ_SCRATCH");

	/* fuzz/run.sh names a parent it removes at the end: a target that
	 * aborts (a finding, a sanitizer report, a timeout) never runs the
	 * atexit clean-up below */
	if (!parent || !*parent)
		parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/iowfuzz-XXXXXX", parent);
	if (!mkdtemp(fuzz_dir)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fuzz_remove_dir);
	return fuzz_dir;
}

/* Writes len bytes to SCRATCH/name; its path goes in path. */
static inline void fuzz_write_file(const char *name, const void *data, size_t len,
			    char *path, size_t path_len)
{
	int fd;

	snprintf(path, path_len, "%s/%s", fuzz_scratch(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len)) {
		perror(path);
		abort();
	}
	close(fd);
}

/* An error must say something, on one line. */
static inline void fuzz_check_error(const struct iow_error *err, const char *where)
{
	if (!err->msg[0] || strchr(err->msg, '\n')) {
		fprintf(stderr, "fuzz: %s: bad error message \"%s\"\n", where,
			err->msg);
		abort();
	}
}

/* No NAME.tmp* may be left in the scratch directory. */
static inline void fuzz_check_no_tmp(const char *where)
{
	DIR *d = opendir(fuzz_scratch());
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (strstr(de->d_name, ".tmp")) {
			fprintf(stderr, "fuzz: %s: left %s behind\n", where,
				de->d_name);
			abort();
		}
	}
	if (d)
		closedir(d);
}

#endif
