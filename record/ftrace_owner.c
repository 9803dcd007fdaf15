/*
 * ftrace_owner.c: the blk tracer's owner file (ftrace_owner.h). A lock
 * (flock) says a recording is alive: the kernel drops it with the
 * process however it ends. The lines say what a recording that died
 * while holding it changed. The devices' tracing goes off first, then
 * the settings go back in the order the recorder wrote them (its own
 * restoring order). Only files under the tracing directory and devices'
 * trace directories under /sys are written: the file is root's, but a
 * line that names anything else is refused rather than followed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftrace_owner.h"

#define OWNER_TEXT_MAX	8192

static const char *owner_path(void)
{
	struct stat st;

	if (stat("/run", &st) == 0 && S_ISDIR(st.st_mode) &&
	    access("/run", W_OK) == 0)
		return FTRACE_OWNER_FILE;
	return FTRACE_OWNER_FALLBACK;
}

static int write_value(void *ctx, const char *path, const char *value)
{
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc;

	(void)ctx;
	if (fd < 0)
		return -1;
	rc = write(fd, value, len) == (ssize_t)len ? 0 : -1;
	close(fd);
	return rc;
}

/* A tracing file's name: relative, no "..", nothing odd in it. */
static int plain_name(const char *name)
{
	return name[0] && name[0] != '/' && !strstr(name, "..") &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_/") ==
	       strlen(name);
}

static int sys_dir(const char *dir)
{
	return !strncmp(dir, "/sys/", 5) && !strstr(dir, "..");
}

static int put_back_line(char *line, const char *tracing_dir,
			 ftrace_owner_write_fn write_fn, void *ctx,
			 long *pid, struct iow_error *err)
{
	char path[4096], *value;

	if (!strncmp(line, "pid ", 4)) {
		*pid = strtol(line + 4, NULL, 10);
		return 0;
	}
	if (!strncmp(line, "enable ", 7) && sys_dir(line + 7)) {
		snprintf(path, sizeof(path), "%s/enable", line + 7);
		value = "0";
	} else if (!strncmp(line, "set ", 4) &&
		   (value = strchr(line + 4, ' '))) {
		*value++ = '\0';
		if (!plain_name(line + 4))
			goto refused;
		snprintf(path, sizeof(path), "%s/%s", tracing_dir, line + 4);
	} else if (!line[0]) {
		return 0;
	} else {
		goto refused;
	}
	if (write_fn(ctx, path, value) == 0)
		return 0;
	return iow_fail(err, "%s: cannot put back the tracing state a killed "
			"recording left ('%s' to %s: %s)", owner_path(), value,
			path, strerror(errno));
refused:
	return iow_fail(err, "%s: a line that is no setting of the tracer "
			"('%.60s'): remove the file if no iowatcher records",
			owner_path(), line);
}

int ftrace_owner_put_back(const char *lines, const char *tracing_dir,
			  ftrace_owner_write_fn write_fn, void *ctx,
			  long *pid, struct iow_error *err)
{
	char *copy = strdup(lines), *line, *next;
	int rc = 0;

	if (!copy)
		return iow_fail(err, "out of memory");
	*pid = 0;
	/* the devices first: nothing more comes into the buffers then */
	for (line = copy; !rc && line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "enable ", 7) || !strncmp(line, "pid ", 4))
			rc = put_back_line(line, tracing_dir, write_fn, ctx,
					   pid, err);
	}
	free(copy);
	copy = rc ? NULL : strdup(lines);
	for (line = copy; !rc && line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "enable ", 7) && strncmp(line, "pid ", 4))
			rc = put_back_line(line, tracing_dir, write_fn, ctx,
					   pid, err);
	}
	free(copy);
	if (!rc && !*pid)
		*pid = -1;	/* a dead recording, whose pid it did not say */
	return rc;
}

/* The pid in the lines of a living owner, for the busy message. */
static long living_pid(int fd)
{
	char text[64];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	if (n <= 4 || strncmp(text, "pid ", 4))
		return 0;
	text[n] = '\0';
	return strtol(text + 4, NULL, 10);
}

static int reclaim(struct ftrace_owner *o, const char *tracing_dir,
		   long *reclaimed, struct iow_error *err)
{
	char text[OWNER_TEXT_MAX];
	ssize_t n = pread(o->fd, text, sizeof(text) - 1, 0);

	if (n < 0)
		return iow_fail(err, "cannot read %s: %s", owner_path(),
				strerror(errno));
	if (n == 0)
		return 0;
	text[n] = '\0';
	if (ftrace_owner_put_back(text, tracing_dir, write_value, NULL,
				  reclaimed, err))
		return -1;
	if (ftruncate(o->fd, 0))
		return iow_fail(err, "cannot empty %s: %s", owner_path(),
				strerror(errno));
	return 0;
}

int ftrace_owner_take(struct ftrace_owner *o, const char *tracing_dir,
		      long *reclaimed, struct iow_error *err)
{
	const char *path = owner_path();
	long pid;

	*reclaimed = 0;
	o->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (o->fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	if (flock(o->fd, LOCK_EX | LOCK_NB)) {
		pid = errno == EWOULDBLOCK ? living_pid(o->fd) : 0;
		close(o->fd);
		o->fd = -1;
		if (pid > 0)
			return iow_fail(err, "device busy with another trace: "
					"iowatcher (pid %ld) records with the "
					"kernel's blk tracer; wait for it to "
					"end", pid);
		return iow_fail(err, "device busy with another trace: %s is "
				"locked by another iowatcher", path);
	}
	if (reclaim(o, tracing_dir, reclaimed, err)) {
		ftrace_owner_release(o, 0);
		return -1;
	}
	return 0;
}

int ftrace_owner_save(struct ftrace_owner *o, const char *lines,
		      struct iow_error *err)
{
	size_t len = strlen(lines);

	if (ftruncate(o->fd, 0) ||
	    pwrite(o->fd, lines, len, 0) != (ssize_t)len)
		return iow_fail(err, "cannot write %s: %s", owner_path(),
				strerror(errno));
	return 0;
}

void ftrace_owner_release(struct ftrace_owner *o, int restored)
{
	if (o->fd < 0)
		return;
	/* left with its lines, the next recording puts them back */
	if (restored && ftruncate(o->fd, 0))
		(void)0;
	close(o->fd);	/* and with it the lock */
	o->fd = -1;
}
