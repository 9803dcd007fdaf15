/* outfile.c: outputs written aside and renamed into place (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

/* "DIR" of "DIR/NAME" ("." for a bare NAME, "/" for "/NAME"); malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/*
 * Why path cannot be created, in the user's words: the temporary name is
 * ours, never theirs to see. A missing directory is named.
 */
static int fail_create(const char *path, int e, struct iow_error *err)
{
	char *dir = dir_of(path);
	int rc;

	if (e == ENOENT && dir && access(dir, F_OK))
		rc = iow_fail(err, "cannot create %s: no directory %s", path,
			      dir);
	else
		rc = iow_fail(err, "cannot create %s: %s", path, strerror(e));
	free(dir);
	return rc;
}

int outfile_open(struct outfile *f, const char *path, const char *suffix,
		 struct iow_error *err)
{
	size_t len = strlen(path) + (suffix ? strlen(suffix) : 0) + 40;
	struct timespec ts;
	int attempt;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = strdup(path);
	f->tmp_path = malloc(len);
	if (!f->path || !f->tmp_path) {
		outfile_abort(f);
		return iow_fail(err, "%s: out of memory", path);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (attempt = 0; attempt < 100; attempt++) {
		snprintf(f->tmp_path, len, "%s.tmp%d-%lx%s", path,
			 (int)getpid(), (unsigned long)ts.tv_nsec + attempt,
			 suffix ? suffix : "");
		f->fd = open(f->tmp_path,
			     O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (f->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	fail_create(path, errno, err);
	free(f->tmp_path);
	f->tmp_path = NULL;
	outfile_abort(f);
	return -1;
}

/* Best effort: makes the rename itself survive a crash. */
static void sync_dir_of(const char *path)
{
	char *dir = dir_of(path);
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Syncs and closes the temporary; 0 or an errno. */
static int sync_tmp(struct outfile *f)
{
	int fd = f->fd, e = 0;

	f->fd = -1;
	if (fd < 0 && (fd = open(f->tmp_path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno;
	if (fsync(fd))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	return e;
}

int outfile_commit(struct outfile *f, struct iow_error *err)
{
	int e = sync_tmp(f), rc = 0;

	if (e)
		rc = iow_fail(err, "cannot write %s: %s", f->path,
			      strerror(e));
	else if (iow_interrupted)
		rc = iow_fail(err, "%s: interrupted", f->path);
	else if (rename(f->tmp_path, f->path))
		rc = iow_fail(err, "cannot put %s in place: %s", f->path,
			      strerror(errno));
	if (rc) {
		outfile_abort(f);
		return rc;
	}
	sync_dir_of(f->path);
	free(f->tmp_path);
	f->tmp_path = NULL;
	outfile_abort(f);
	return 0;
}

void outfile_abort(struct outfile *f)
{
	if (f->tmp_path && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp_path)
		unlink(f->tmp_path);
	free(f->tmp_path);
	free(f->path);
	f->tmp_path = f->path = NULL;
}
