/*
 * tracefs.c: the kernel's tracing files, as every recorder needs them
 * (tracefs.h): finding or mounting tracefs (and debugfs for blktrace),
 * reading and writing its small control files, resolving the devices to
 * trace, and checking that nobody else traces them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ftrace_owner.h"
#include "tracefs.h"

#define DEBUGFS_DIR		"/sys/kernel/debug"
#define TRACEFS_DIR		"/sys/kernel/tracing"

static int is_fs(const char *path, long magic)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && (long)sfs.f_type == magic;
}

static int use_if_tracefs(struct tracefs *t, const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/trace_pipe", dir);
	if (access(path, F_OK))
		return 0;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	return 1;
}

int tracefs_setup(struct tracefs *t, struct iow_error *err)
{
	memset(t, 0, sizeof(*t));
	/* the ftrace and bpf recorders need tracefs alone: debugfs is
	 * mounted only for blktrace (tracefs_need_debugfs), so a recording
	 * killed outright leaves nothing mounted that was not */
	if (use_if_tracefs(t, TRACEFS_DIR) ||
	    use_if_tracefs(t, DEBUGFS_DIR "/tracing"))
		return 0;
	if (mount("tracefs", TRACEFS_DIR, "tracefs", 0, NULL) == 0) {
		t->mounted_tracefs = 1;
		if (use_if_tracefs(t, TRACEFS_DIR))
			return 0;
		errno = ENOENT;
	}
	iow_fail(err, "cannot mount tracefs on %s: %s", TRACEFS_DIR,
		 strerror(errno));
	tracefs_release(t);
	return -1;
}

int tracefs_need_debugfs(struct tracefs *t, struct iow_error *err)
{
	if (is_fs(DEBUGFS_DIR, DEBUGFS_MAGIC))
		return 0;
	if (mount("debugfs", DEBUGFS_DIR, "debugfs", 0, NULL) < 0)
		return iow_fail(err, "cannot mount debugfs on %s: %s",
				DEBUGFS_DIR, strerror(errno));
	t->mounted_debugfs = 1;
	return 0;
}

void tracefs_release(struct tracefs *t)
{
	if (t->mounted_tracefs)
		umount2(TRACEFS_DIR, MNT_DETACH);
	if (t->mounted_debugfs) {
		/* the kernel automounts tracefs inside debugfs */
		umount2(DEBUGFS_DIR "/tracing", MNT_DETACH);
		umount2(DEBUGFS_DIR, MNT_DETACH);
	}
	t->mounted_tracefs = t->mounted_debugfs = 0;
}

int tracefs_read(const char *path, char *buf, size_t size,
		 struct iow_error *err)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int saved_errno = errno;

		iow_fail(err, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		errno = saved_errno;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int tracefs_write(const char *path, const char *value,
		  struct iow_error *err)
{
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return iow_fail(err, "cannot open %s: %s", path,
				strerror(errno));
	if (write(fd, value, len) != (ssize_t)len) {
		int saved_errno = errno;

		iow_fail(err, "cannot write '%s' to %s: %s", value, path,
			 strerror(errno));
		close(fd);
		errno = saved_errno;
		return -1;
	}
	close(fd);
	return 0;
}

void tracefs_path(const struct tracefs *t, const char *file, char *path)
{
	snprintf(path, PATH_MAX, "%s/%s", t->dir, file);
}

/* A bare name's MAJ:MIN from /sys/class/block/NAME/dev (a device with no
 * /dev node: in a container); 0, or -1. */
static int sysfs_dev(const char *name, unsigned *maj, unsigned *min)
{
	char path[PATH_MAX], value[32];

	if (strchr(name, '/') || !name[0] || name[0] == '.')
		return -1;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (tracefs_read(path, value, sizeof(value), NULL) ||
	    sscanf(value, "%u:%u", maj, min) != 2)
		return -1;
	return 0;
}

/* path exists but is no block device: what it is, and what -d takes. */
static int not_a_block_device(const char *path, const struct stat *st,
			      struct iow_error *err)
{
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))
		return iow_fail(err, "%s: a %s, not a block device (to trace "
				"the I/O to it, give -d the device it is on: "
				"df %s names it)", path,
				S_ISREG(st->st_mode) ? "file" : "directory",
				path);
	return iow_fail(err, "%s: a %s, not a block device (-d takes a "
			"disk, a partition or a loop device: lsblk lists "
			"them)", path,
			S_ISCHR(st->st_mode) ? "character device" :
			S_ISFIFO(st->st_mode) ? "pipe" :
			S_ISSOCK(st->st_mode) ? "socket" : "special file");
}

/*
 * A device of no sectors (a loop device with no backing file, a drive
 * with no disc in it) sees no I/O: a recording would say nothing
 * happened. Refused before anything starts, with what to do instead.
 */
static int no_medium(const char *path, unsigned maj, unsigned min,
		     struct iow_error *err)
{
	char sys[PATH_MAX], value[32], link[PATH_MAX], backing[PATH_MAX];
	const char *name;
	ssize_t len;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/size", maj, min);
	if (tracefs_read(sys, value, sizeof(value), NULL) ||
	    strcmp(value, "0"))
		return 0;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", maj, min);
	len = readlink(sys, link, sizeof(link) - 1);
	link[len > 0 ? len : 0] = '\0';
	name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	/* a bound loop device has loop/backing_file */
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/loop/backing_file",
		 maj, min);
	if (!tracefs_read(sys, backing, sizeof(backing), NULL))
		return iow_fail(err, "%s: a loop device of 0 bytes (its "
				"backing file %s is empty), so no I/O reaches "
				"it", path, backing);
	if (!strncmp(name, "loop", 4))
		return iow_fail(err, "%s: a loop device with no backing file, "
				"so no I/O reaches it (attach one: losetup "
				"/dev/%s FILE; or losetup -f --show FILE "
				"attaches FILE to a free loop device and "
				"prints it)", path, name);
	return iow_fail(err, "%s: the device has no medium (0 sectors), so "
			"no I/O reaches it", path);
}

int record_device_resolve(struct record_device *d, const char *path,
			  struct iow_error *err)
{
	struct stat st;
	unsigned maj, min;
	int found;

	memset(d, 0, sizeof(*d));
	d->path = path;
	found = stat(path, &st) == 0;
	/* a bare name, as the man page says: /dev/NAME, else sysfs's */
	if (!found && !strchr(path, '/')) {
		snprintf(d->node, sizeof(d->node), "/dev/%s", path);
		found = stat(d->node, &st) == 0;
		if (!found && sysfs_dev(path, &maj, &min) == 0) {
			d->node[0] = '\0';
			goto have_dev;
		}
	} else if (found) {
		snprintf(d->node, sizeof(d->node), "%s", path);
	}
	if (!found)
		return iow_fail(err, "no such device: %s (neither a path nor a name in /dev or /sys/block: lsblk lists them)",
				path);
	if (!S_ISBLK(st.st_mode))
		return not_a_block_device(path, &st, err);
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
have_dev:
	if (no_medium(path, maj, min, err))
		return -1;
	/* works for partitions as for whole disks */
	snprintf(d->trace_dir, sizeof(d->trace_dir),
		 "/sys/dev/block/%u:%u/trace", maj, min);
	if (access(d->trace_dir, F_OK))
		return iow_fail(err, "%s: the kernel offers no block tracing "
				"for it (%s: %s)", path, d->trace_dir,
				strerror(errno));
	d->dev = (uint32_t)(maj << 20 | min);
	return 0;
}

int ftrace_check_idle(const struct tracefs *t,
		      const struct record_device *devs, size_t n_devs,
		      long *reclaimed, struct iow_error *err)
{
	char path[PATH_MAX], value[64];
	struct ftrace_owner owner;
	size_t i;

	/* what a killed recording left goes back first */
	if (ftrace_owner_take(&owner, t->dir, reclaimed, err))
		return -1;
	ftrace_owner_release(&owner, 1);
	tracefs_path(t, "current_tracer", path);
	if (tracefs_read(path, value, sizeof(value), err))
		return -1;
	if (!strcmp(value, "blk"))
		return iow_fail(err, "device busy with another trace: "
				"current_tracer is already 'blk' (not an "
				"iowatcher's; if nothing traces, 'echo nop > "
				"%s' frees it)", path);
	for (i = 0; i < n_devs; i++) {
		snprintf(path, sizeof(path), "%s/enable", devs[i].trace_dir);
		if (tracefs_read(path, value, sizeof(value), err))
			return -1;
		if (value[0] == '1')
			return iow_fail(err, "%s: device busy with another "
					"trace (%s is 1)", devs[i].path, path);
	}
	return 0;
}
