/*
 * slowfs: a FUSE file system of one file, "disk", that answers late when
 * told: the tests' slow device. A loop device on /MNT/disk (losetup
 * --direct-io=on) then has requests that truly take as long as asked,
 * while the others complete, so a recording holds a real slow request
 * among fast ones (tests/lib.sh: slow_loop).
 *
 *   slowfs BACKING MOUNTPOINT [fuse options...]
 *
 * BACKING is an existing file (in /dev/shm, say) whose bytes "disk"
 * serves, read and written with pread and pwrite. The file "ctl" takes
 * one line per write:
 *
 *   DELAY_MS                       every request from now on, until "0"
 *   DELAY_MS OFFSET LENGTH [COUNT] requests touching [OFFSET, +LENGTH)
 *                                  of "disk", the next COUNT of them
 *                                  (0 or none: until cleared)
 *   0                              clear every rule
 *
 * Reading "ctl" gives the rules in force and how many requests each has
 * delayed ("delayed N" last). Requests are served by several threads, so
 * a delayed one holds up no other.
 *
 * Built only where libfuse3 is (Makefile: HAVE_FUSE3); elsewhere this
 * program says so and exits 2, and the tests that need it are skipped.
 */
#ifdef HAVE_FUSE3
#define FUSE_USE_VERSION 31
#include <fuse.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_FUSE3

#define MAX_RULES 16

struct rule {
	uint64_t delay_ms;
	uint64_t from, to;	/* byte range, to exclusive; 0, 0: every byte */
	uint64_t left;		/* requests still to delay; 0: no limit */
	int limited;
	uint64_t delayed;
};

static struct {
	int fd;
	pthread_mutex_t lock;
	struct rule rules[MAX_RULES];
	int n_rules;
	uint64_t delayed;
} fs = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/* The delay for a request of [off, off + len): the largest of the rules
 * it touches, each counting it once. */
static uint64_t slowfs_delay(uint64_t off, uint64_t len)
{
	uint64_t ms = 0;

	pthread_mutex_lock(&fs.lock);
	for (int i = 0; i < fs.n_rules; i++) {
		struct rule *r = &fs.rules[i];
		int all = r->from == 0 && r->to == 0;

		if (!all && (off >= r->to || off + len <= r->from))
			continue;
		if (r->limited && r->left == 0)
			continue;
		if (r->limited)
			r->left--;
		r->delayed++;
		if (r->delay_ms > ms)
			ms = r->delay_ms;
	}
	if (ms)
		fs.delayed++;
	pthread_mutex_unlock(&fs.lock);
	return ms;
}

static void slowfs_sleep(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int slowfs_getattr(const char *path, struct stat *st,
			  struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (!strcmp(path, "/disk")) {
		struct stat b;

		if (fstat(fs.fd, &b))
			return -errno;
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = b.st_size;
		st->st_blksize = 4096;
		st->st_blocks = b.st_blocks;
		return 0;
	}
	if (!strcmp(path, "/ctl")) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = 4096;
		return 0;
	}
	return -ENOENT;
}

static int slowfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
			  off_t off, struct fuse_file_info *fi,
			  enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	fill(buf, "ctl", NULL, 0, 0);
	return 0;
}

static int slowfs_open(const char *path, struct fuse_file_info *fi)
{
	if (!strcmp(path, "/ctl")) {
		fi->direct_io = 1;	/* every read sees the rules now */
		return 0;
	}
	if (strcmp(path, "/disk"))
		return -ENOENT;
	/* no page cache between the loop device and us: each request
	 * reaches read or write, where its delay is served */
	fi->direct_io = 1;
	return 0;
}

static int slowfs_ctl_text(char *buf, size_t size)
{
	size_t n = 0;

	pthread_mutex_lock(&fs.lock);
	for (int i = 0; i < fs.n_rules && n < size; i++) {
		struct rule *r = &fs.rules[i];

		n += (size_t)snprintf(buf + n, size - n,
				"%" PRIu64 " ms, bytes %" PRIu64 "-%" PRIu64
				", %s%" PRIu64 " left, delayed %" PRIu64 "\n",
				r->delay_ms, r->from, r->to,
				r->limited ? "" : "no limit, ",
				r->limited ? r->left : 0, r->delayed);
	}
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "delayed %" PRIu64 "\n",
				      fs.delayed);
	pthread_mutex_unlock(&fs.lock);
	return n < size ? (int)n : (int)size;
}

static int slowfs_read(const char *path, char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	(void)fi;
	if (!strcmp(path, "/ctl")) {
		char text[4096];
		int n = slowfs_ctl_text(text, sizeof(text));

		if (off >= n)
			return 0;
		if ((size_t)(n - off) < size)
			size = (size_t)(n - off);
		memcpy(buf, text + off, size);
		return (int)size;
	}
	uint64_t ms = slowfs_delay((uint64_t)off, size);

	if (ms)
		slowfs_sleep(ms);
	ssize_t got = pread(fs.fd, buf, size, off);

	return got < 0 ? -errno : (int)got;
}

/* One line of ctl: see the comment at the top. */
static int slowfs_ctl(const char *text, size_t size)
{
	char line[256];
	uint64_t v[4] = { 0, 0, 0, 0 };
	int n;

	if (size >= sizeof(line))
		return -EINVAL;
	memcpy(line, text, size);
	line[size] = '\0';
	n = sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &v[0], &v[1], &v[2], &v[3]);
	if (n != 1 && n != 3 && n != 4)
		return -EINVAL;
	pthread_mutex_lock(&fs.lock);
	if (n == 1 && v[0] == 0) {
		fs.n_rules = 0;
	} else if (fs.n_rules == MAX_RULES) {
		pthread_mutex_unlock(&fs.lock);
		return -ENOSPC;
	} else {
		struct rule r = { .delay_ms = v[0] };

		if (n >= 3) {
			r.from = v[1];
			r.to = v[1] + v[2];
		}
		if (n == 4 && v[3]) {
			r.limited = 1;
			r.left = v[3];
		}
		fs.rules[fs.n_rules++] = r;
	}
	pthread_mutex_unlock(&fs.lock);
	return (int)size;
}

static int slowfs_write(const char *path, const char *buf, size_t size,
			off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	if (!strcmp(path, "/ctl"))
		return slowfs_ctl(buf, size);
	uint64_t ms = slowfs_delay((uint64_t)off, size);

	if (ms)
		slowfs_sleep(ms);
	ssize_t put = pwrite(fs.fd, buf, size, off);

	return put < 0 ? -errno : (int)put;
}

static int slowfs_truncate(const char *path, off_t size,
			   struct fuse_file_info *fi)
{
	(void)fi;
	(void)size;
	/* ctl is truncated by the shell's ">"; the disk keeps its size */
	return strcmp(path, "/ctl") && strcmp(path, "/disk") ? -ENOENT : 0;
}

static int slowfs_fsync(const char *path, int datasync,
			struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	return (datasync ? fdatasync(fs.fd) : fsync(fs.fd)) ? -errno : 0;
}

static const struct fuse_operations slowfs_ops = {
	.getattr = slowfs_getattr,
	.readdir = slowfs_readdir,
	.open = slowfs_open,
	.read = slowfs_read,
	.write = slowfs_write,
	.truncate = slowfs_truncate,
	.fsync = slowfs_fsync,
};

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: slowfs BACKING MOUNTPOINT [fuse options]\n");
		return 2;
	}
	fs.fd = open(argv[1], O_RDWR);
	if (fs.fd < 0) {
		fprintf(stderr, "slowfs: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	/* fuse_main sees the program's name, the mount point and the rest */
	argv[1] = argv[0];
	return fuse_main(argc - 1, argv + 1, &slowfs_ops, NULL);
}

#else

int main(void)
{
	fprintf(stderr, "slowfs: built without libfuse3 (install libfuse3-dev "
		"and fuse3, then make)\n");
	return 2;
}

#endif
