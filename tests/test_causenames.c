/*
 * test_causenames.c: the names the BPF recorder gives what it saw, each
 * from files the test writes in place of /proc and /sys: kernel functions
 * from a kallsyms file (sorted, text only, none past _etext, hidden
 * addresses refused), user frames from a maps file over a real ELF file
 * (this test's own binary) and a file that is none, the io controller's
 * cgroup root from mountinfo (cgroup2, v1's blkio), cgroup paths by the
 * directories' inode numbers, files' paths by walking a directory a fake
 * mountinfo mounts (not into other mounts, within a time budget), or
 * one by its file handle (as root on ext4: this test's directory's); the
 * tracing's own frames of a kernel stack; and rec_causes end to end: its
 * dictionary read back by the reader, and told to a live view's reader
 * with each record, the names of its cause with it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/bpf/blkrec.h"
#include "reader/causefile.h"
#include "record/causenames.h"
#include "check.h"
#include "record/rec_causes.h"

static char dir[] = "/tmp/test_causenames.XXXXXX";

/* DIR/name, in one of 64 buffers taken in turn: enough for any test's
 * paths at once (loops keep theirs). */
static const char *path_in(const char *name)
{
	static char paths[64][512];
	static int next;
	char *p = paths[next++ % 64];

	snprintf(p, 512, "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static uint64_t inode_of(const char *path)
{
	struct stat st;

	CHECK(stat(path, &st) == 0);
	return st.st_ino;
}

/* The kernel's dev_t of the file system holding path (MAJ << 20 | MIN). */
static uint32_t kdev_of(const char *path)
{
	struct stat st;

	CHECK(stat(path, &st) == 0);
	return major(st.st_dev) << 20 | minor(st.st_dev);
}

/* A mountinfo line mounting file system kdev's root at point. */
static void mount_line(FILE *f, int id, uint32_t kdev, const char *root,
		       const char *point, const char *type, const char *opts)
{
	fprintf(f, "%d 1 %u:%u %s %s rw,relatime shared:1 - %s none %s\n",
		id, kdev >> 20, kdev & 0xfffff, root, point, type, opts);
}

/* ---- kernel symbols ---- */

static const char kallsyms[] =
	"ffffffff81000200 T global_fn\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000100 t local_fn\n"
	"ffffffffc0000000 t mod_fn\t[mod]\n"
	"ffffffff81000400 T _etext\n"
	"ffffffff82000000 d data_past_text\n";

static void test_ksyms_name_the_function_holding_an_address(void)
{
	struct iow_error err = { "" };
	struct ksyms *k;

	write_file(path_in("kallsyms"), kallsyms);
	k = ksyms_load(path_in("kallsyms"), &err);
	CHECK(k != NULL);
	if (!k)
		return;
	CHECK_EQ_INT(ksyms_count(k), 5);	/* text symbols only */
	CHECK(ksyms_name(k, 0x1000) == NULL);
	CHECK(!strcmp(ksyms_name(k, 0xffffffff81000000ull), "_stext"));
	CHECK(!strcmp(ksyms_name(k, 0xffffffff81000150ull), "local_fn"));
	CHECK(!strcmp(ksyms_name(k, 0xffffffff81000200ull), "global_fn"));
	/* data is no function: the one before it goes on */
	CHECK(!strcmp(ksyms_name(k, 0xffffffff81000350ull), "global_fn"));
	/* past the kernel's text, before a module's */
	CHECK(ksyms_name(k, 0xffffffff81000400ull) == NULL);
	CHECK(ksyms_name(k, 0xffffffffa0000000ull) == NULL);
	CHECK(!strcmp(ksyms_name(k, 0xffffffffc0000010ull), "mod_fn"));
	ksyms_free(k);
}

static void test_ksyms_refuse_hidden_addresses(void)
{
	struct iow_error err = { "" };

	write_file(path_in("kallsyms0"),
		   "0000000000000000 T _stext\n0000000000000000 t local_fn\n");
	CHECK(ksyms_load(path_in("kallsyms0"), &err) == NULL);
	CHECK(strstr(err.msg, "kallsyms0 shows no addresses (kptr_restrict)"));
	err.msg[0] = '\0';
	CHECK(ksyms_load(path_in("no-such-file"), &err) == NULL);
	CHECK(strstr(err.msg, "cannot read") && strstr(err.msg, "no-such-file"));
}

/* ---- user symbols ---- */

/* Kept out of line, so that it has an address of its own in .symtab. */
__attribute__((noinline)) int causenames_marker(int x)
{
	return x * 3 + 1;
}

/* The line of /proc/self/maps that maps addr: start, offset, path. */
static int self_map(uint64_t addr, uint64_t *start, uint64_t *pgoff,
		    char *path, size_t len)
{
	unsigned long long s, e, off;
	char line[4096], perms[8];
	int pos, found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e,
			   perms, &off, &pos) != 4 || addr < s || addr >= e)
			continue;
		line[strcspn(line, "\n")] = '\0';
		*start = s;
		*pgoff = off;
		snprintf(path, len, "%s", line + pos);
		found = 1;
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

static void test_user_frames_name_functions_else_file_and_offset(void)
{
	uint64_t addr = (uint64_t)(uintptr_t)&causenames_marker;
	uint64_t start = 0, pgoff = 0;
	char exe[1024], maps[4096], buf[160];
	struct usyms *u = usyms_new();
	struct umaps *m;

	CHECK(causenames_marker(1) == 4);
	CHECK(self_map(addr, &start, &pgoff, exe, sizeof(exe)) == 0);
	write_file(path_in("plain.bin"), "not an ELF file\n");
	/* this binary's text moved to 0x10000000; a file that is no ELF;
	 * a mapping that is not executable; a name with a space */
	snprintf(maps, sizeof(maps),
		 "10000000-10800000 r-xp %08llx 08:01 1234 %s\n"
		 "20000000-20001000 r-xp 00003000 08:01 99 %s\n"
		 "30000000-30001000 r--p 00000000 08:01 99 %s\n"
		 "40000000-40001000 r-xp 00000000 00:00 0 [vdso]\n"
		 "50000000-50001000 r-xp 00001000 08:01 98 /no/such dir/lib x.so\n",
		 (unsigned long long)pgoff, exe, path_in("plain.bin"),
		 path_in("plain.bin"));
	write_file(path_in("maps"), maps);
	m = umaps_read(path_in("maps"));
	CHECK(m != NULL && u != NULL);
	if (!m || !u)
		goto out;
	CHECK(umaps_covers(m, 0x10000000 + (addr - start)));
	CHECK(!umaps_covers(m, 0x30000010));
	CHECK(!umaps_covers(m, 0x60000000));
#ifdef HAVE_LIBELF
	CHECK(!strcmp(usyms_frame(u, m, 0x10000000 + (addr - start), buf,
				  sizeof(buf)), "causenames_marker"));
	/* loaded once, asked again */
	CHECK(!strcmp(usyms_frame(u, m, 0x10000000 + (addr - start) + 1, buf,
				  sizeof(buf)), "causenames_marker"));
#else
	(void)usyms_frame(u, m, 0x10000000 + (addr - start), buf, sizeof(buf));
	CHECK(strstr(buf, "+0x") != NULL);
#endif
	CHECK(!strcmp(usyms_frame(u, m, 0x20000010, buf, sizeof(buf)),
		      "plain.bin+0x3010"));
	CHECK(!strcmp(usyms_frame(u, m, 0x30000010, buf, sizeof(buf)),
		      "0x30000010"));
	CHECK(!strcmp(usyms_frame(u, m, 0x40000020, buf, sizeof(buf)),
		      "[vdso]+0x20"));
	CHECK(!strcmp(usyms_frame(u, m, 0x50000004, buf, sizeof(buf)),
		      "lib x.so+0x1004"));
	CHECK(umaps_read(path_in("no-such-maps")) == NULL);
out:
	umaps_free(m);
	usyms_free(u);
}

/* ---- cgroups ---- */

static void test_cgroup_root_is_the_io_controllers(void)
{
	char root[256];
	FILE *f = fopen(path_in("mi-v2"), "w");

	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 20, 3, "/", "/proc", "proc", "rw");
	mount_line(f, 30, 26, "/", "/sys/fs/cgroup", "cgroup2",
		   "rw,nsdelegate,memory_recursiveprot");
	fclose(f);
	CHECK(cgroup_io_root(path_in("mi-v2"), root, sizeof(root)) == 0 &&
	      !strcmp(root, "/sys/fs/cgroup"));

	/* v1: blkio's hierarchy, even beside a cgroup2 one; an option
	 * that only contains the word is not it */
	f = fopen(path_in("mi-v1"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 31, 27, "/", "/sys/fs/cgroup/unified", "cgroup2", "rw");
	mount_line(f, 32, 28, "/", "/sys/fs/cgroup/cpu,cpuacct", "cgroup",
		   "rw,cpu,cpuacct");
	mount_line(f, 33, 29, "/", "/sys/fs/cgroup/x", "cgroup",
		   "rw,name=blkiox");
	mount_line(f, 34, 30, "/", "/sys/fs/cgroup/blk\\040io", "cgroup",
		   "rw,blkio");
	fclose(f);
	CHECK(cgroup_io_root(path_in("mi-v1"), root, sizeof(root)) == 0 &&
	      !strcmp(root, "/sys/fs/cgroup/blk io"));

	f = fopen(path_in("mi-none"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 32, 28, "/", "/sys/fs/cgroup/cpu", "cgroup", "rw,cpu");
	fputs("garbage line\n", f);
	fclose(f);
	CHECK(cgroup_io_root(path_in("mi-none"), root, sizeof(root)) == -1);
	CHECK(cgroup_io_root(path_in("no-such-mountinfo"), root,
			     sizeof(root)) == -1);
}

static void test_cgroup_ids_are_directories_inode_numbers(void)
{
	const char *root = path_in("cg");
	uint64_t ids[5];
	char *paths[5];
	size_t i;

	ids[0] = inode_of(path_in("cg/a/b"));
	ids[1] = inode_of(path_in("cg/c"));
	ids[2] = inode_of(root);
	ids[3] = inode_of(path_in("outside"));	/* in no cgroup */
	ids[4] = 0;				/* not wanted */
	CHECK_EQ_INT(cgroup_paths(root, ids, paths, 5), 3);
	CHECK(paths[0] && !strcmp(paths[0], "/a/b"));
	CHECK(paths[1] && !strcmp(paths[1], "/c"));
	CHECK(paths[2] && !strcmp(paths[2], "/"));
	CHECK(paths[3] == NULL && paths[4] == NULL);
	/* the ones found are marked so */
	CHECK(ids[0] == 0 && ids[1] == 0 && ids[2] == 0 && ids[3] != 0);
	for (i = 0; i < 5; i++)
		free(paths[i]);
}

/* ---- files ---- */

static void test_files_are_found_under_their_mounts(void)
{
	const char *top = path_in("fs");
	uint32_t dev;
	struct file_query q[5];
	int timed_out = 1;
	size_t i;
	FILE *f;

	dev = kdev_of(top);
	f = fopen(path_in("mi-files"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	/* a bind mount of a subdirectory first: the whole one is walked */
	mount_line(f, 40, dev, "/sub", "/nonexistent", "ext4", "rw");
	mount_line(f, 41, dev, "/", top, "ext4", "rw");
	/* another file system over fs/other: not walked into */
	mount_line(f, 42, 7 << 20 | 9, "/", path_in("fs/other"), "tmpfs", "rw");
	fclose(f);
	memset(q, 0, sizeof(q));
	q[0] = (struct file_query){ dev, inode_of(path_in("fs/top file")), NULL };
	q[1] = (struct file_query){ dev, inode_of(path_in("fs/d/deep")), NULL };
	q[2] = (struct file_query){ dev, inode_of(path_in("fs/other/hidden")),
				    NULL };
	q[3] = (struct file_query){ 8 << 20 | 1, q[0].ino, NULL }; /* no mount */
	q[4] = (struct file_query){ dev, inode_of(path_in("outside")), NULL };
	CHECK_EQ_INT(file_paths(path_in("mi-files"), q, 5, 5000, &timed_out),
		     2);
	CHECK(timed_out == 0);
	CHECK(q[0].path && !strcmp(q[0].path, path_in("fs/top file")));
	CHECK(q[1].path && !strcmp(q[1].path, path_in("fs/d/deep")));
	CHECK(q[2].path == NULL && q[3].path == NULL && q[4].path == NULL);
	for (i = 0; i < 5; i++)
		free(q[i].path);
}

/* Whether file handles name this test's files: root (the handles need
 * CAP_DAC_READ_SEARCH), its directory on ext2-4. Said once when not. */
static int handles_here(void)
{
	static int said;
	struct statfs sf;

	if (geteuid() == 0 && statfs(dir, &sf) == 0 && sf.f_type == 0xEF53)
		return 1;
	if (!said++)
		printf("  skipped: files by their handles: not root, or %s not on ext4\n",
		       dir);
	return 0;
}

static void test_a_file_is_named_by_its_handle(void)
{
	uint32_t dev = kdev_of(path_in("fs"));
	struct file_handles *fh;
	uint64_t gone;
	char *p;
	int fd;
	FILE *f;

	if (!handles_here())
		return;
	f = fopen(path_in("mi-handles"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 41, dev, "/", path_in("fs"), "ext4", "rw");
	fclose(f);
	fh = file_handles_new(path_in("mi-handles"));
	CHECK(fh != NULL);
	if (!fh)
		return;
	/* by its inode number alone, through the mount, wherever it is */
	p = file_handles_path(fh, dev, inode_of(path_in("fs/d/deep")), 0);
	CHECK(p && !strcmp(p, path_in("fs/d/deep")));
	free(p);
	p = file_handles_path(fh, dev, inode_of(path_in("fs/top file")), 0);
	CHECK(p && !strcmp(p, path_in("fs/top file")));
	free(p);
	/* removed, held open (the inode is still there): by its last
	 * name, said removed */
	write_file(path_in("fs/gone"), "x");
	gone = inode_of(path_in("fs/gone"));
	fd = open(path_in("fs/gone"), O_RDONLY);
	CHECK(fd >= 0 && unlink(path_in("fs/gone")) == 0);
	p = file_handles_path(fh, dev, gone, 0);
	CHECK(p && !strcmp(p, path_in("fs/gone (deleted)")));
	free(p);
	if (fd >= 0)
		close(fd);
	/* a path from the file system's root, as a path of its mount */
	p = file_handles_mounted(fh, dev, "/d/deep");
	CHECK(p && !strcmp(p, path_in("fs/d/deep")));
	free(p);
	CHECK(file_handles_mounted(fh, 8 << 20 | 1, "/d/deep") == NULL);
	/* a device not mounted, an inode number past 32 bits */
	CHECK(file_handles_path(fh, 8 << 20 | 1, 12, 0) == NULL);
	CHECK(file_handles_path(fh, dev, 1ull << 40, 0) == NULL);
	file_handles_free(fh);
}

static void test_file_walk_stops_when_its_time_is_up(void)
{
	const char *top = path_in("big"), *first = path_in("big/0");
	struct file_query q;
	int timed_out = 0, n = 0;
	char name[600];
	size_t found;
	FILE *f;

	CHECK(mkdir(top, 0755) == 0);
	write_file(first, "");
	/* 20000 names (links to one file) take longer than 1 ms to walk */
	for (n = 1; n < 20000; n++) {
		snprintf(name, sizeof(name), "%s/%d", top, n);
		if (link(first, name))
			break;
	}
	CHECK_EQ_INT(n, 20000);
	f = fopen(path_in("mi-big"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 41, kdev_of(top), "/", top, "ext4", "rw");
	fclose(f);
	q = (struct file_query){ kdev_of(top), inode_of(path_in("outside")),
				 NULL };
	found = file_paths(path_in("mi-big"), &q, 1, 1, &timed_out);
	CHECK(found == 0 && timed_out == 1 && q.path == NULL);
	/* no budget: the whole tree, and not found */
	found = file_paths(path_in("mi-big"), &q, 1, 0, &timed_out);
	CHECK(found == 0 && timed_out == 0);
	/* found before the time is up */
	q.ino = inode_of(path_in("big/0"));
	found = file_paths(path_in("mi-big"), &q, 1, 5000, &timed_out);
	CHECK(found == 1 && timed_out == 0 && q.path &&
	      !strncmp(q.path, top, strlen(top)));
	free(q.path);
}

/* ---- rec_causes ---- */

static void test_tracing_frames_are_dropped(void)
{
	const char *glue[] = { "bpf_prog_6deef7357e7b4530_bio_queue",
			       "bpf_trace_run1", "__bpf_trace_block_bio_queue",
			       "__traceiter_block_bio_queue",
			       "submit_bio_noacct_nocheck", "submit_bio" };
	const char *unnamed[] = { "?", "bpf_trace_run1", "submit_bio",
				  "bpf_later" };
	const char *none[] = { "submit_bio_noacct_nocheck", "submit_bio" };
	const char *trailing[] = { "__bpf_trace_block_bio_queue", "?",
				   "submit_bio" };

	CHECK_EQ_INT(rec_causes_tracing_frames(glue, 6), 4);
	/* an unnamed program image among them; a bpf_ frame past the
	 * tracepoint is the I/O's */
	CHECK_EQ_INT(rec_causes_tracing_frames(unnamed, 4), 2);
	CHECK_EQ_INT(rec_causes_tracing_frames(none, 2), 0);
	CHECK_EQ_INT(rec_causes_tracing_frames(trailing, 3), 1);
	CHECK_EQ_INT(rec_causes_tracing_frames(glue, 0), 0);
}

/* The programs' stacks: 0 and 1 the same functions at other offsets,
 * 2 another path; the first frame, the program's, named by none. */
static int fake_stack(void *ctx, int user, int32_t id, uint64_t *ips,
		      size_t max)
{
	static const uint64_t stacks[3][4] = {
		{ 0xffffffffa0000010ull, 0xffffffff81000110ull,
		  0xffffffff81000210ull, 0xffffffff81000310ull },
		{ 0xffffffffa0000020ull, 0xffffffff81000120ull,
		  0xffffffff81000220ull, 0xffffffff81000320ull },
		{ 0xffffffffa0000010ull, 0xffffffff81000110ull,
		  0xffffffff81000310ull, 0 },
	};
	size_t n;

	(void)ctx;
	(void)user;
	if (id < 0 || id > 2)
		return -1;
	for (n = 0; n < 4 && n < max && stacks[id][n]; n++)
		ips[n] = stacks[id][n];
	return (int)n;
}

static const char stack_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T bpf_trace_run1\n"
	"ffffffff81000200 T submit_bio_noacct_nocheck\n"
	"ffffffff81000300 T wb_workfn\n"
	"ffffffff81000400 T _etext\n";

static void put(struct rec_causes *rc, uint32_t cpu, uint32_t seq,
		struct blkrec_cause *c)
{
	struct iow_error err = { "" };
	struct blk_io_trace t;

	memset(&t, 0, sizeof(t));
	t.cpu = cpu;
	t.sequence = seq;
	t.device = 7 << 20 | 1;
	CHECK(rec_causes_put(rc, &t, c, &err) == 0);
}

static const struct cause_rec *match(struct cause_reader *r, uint32_t cpu,
				     uint32_t seq)
{
	struct io_event e;

	memset(&e, 0, sizeof(e));
	e.cpu = cpu;
	e.sequence = seq;
	e.device = 7 << 20 | 1;
	return cause_reader_match(r, &e);
}

/* rec_causes's sources (it keeps their paths) */
static char proc_dir[512], kallsyms_path[512], mountinfo_path[512];

static struct rec_causes_env causes_env(const char *name, unsigned what,
					const char *mountinfo)
{
	struct rec_causes_env env = {
		.dir = dir, .name = name, .what = what,
		.read_stack = fake_stack, .proc = proc_dir,
		.kallsyms = kallsyms_path, .mountinfo = mountinfo_path,
		.file_walk_ms = 5000,
	};

	snprintf(proc_dir, sizeof(proc_dir), "%s", path_in("proc"));
	snprintf(kallsyms_path, sizeof(kallsyms_path), "%s",
		 path_in("stack-kallsyms"));
	snprintf(mountinfo_path, sizeof(mountinfo_path), "%s",
		 path_in(mountinfo));
	return env;
}

static void test_rec_causes_writes_what_the_reader_reads(void)
{
	struct rec_causes_env env = causes_env("rec", BLKREC_CAUSES |
					       BLKREC_KSTACKS, "mi-rec");
	struct iow_error err = { "" };
	struct blkrec_cause c;
	const struct cause_rec *r0, *r1, *r2, *r3;
	struct cause_rec r0c, r1c;
	struct cause_reader *r;
	struct rec_causes *rc;
	char base[512];
	FILE *f;

	f = fopen(path_in("mi-rec"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 41, kdev_of(path_in("fs")), "/", path_in("fs"), "ext4",
		   "rw");
	mount_line(f, 50, 26, "/", path_in("cg"), "cgroup2", "rw");
	fclose(f);

	rc = rec_causes_open(&env, &err);
	CHECK(rc != NULL);
	if (!rc)
		return;
	CHECK(rec_causes_process(rc, 100, "dd", 2) == 0);
	/* dd's writeback, queued by a kworker, on two stacks of one path */
	memset(&c, 0, sizeof(c));
	c.pid = c.tgid = 42;
	c.owner_pid = c.owner_tgid = 100;
	memcpy(c.owner_comm, "dd", 3);
	c.cgroup = inode_of(path_in("cg/a/b"));
	c.ino = inode_of(path_in("fs/d/deep"));
	c.ino_dev = kdev_of(path_in("fs"));
	c.kind = BLKREC_FILE;
	c.flags = BLKREC_WRITEBACK;
	c.kstack = 0;
	c.ustack = -1;
	put(rc, 0, 1, &c);
	c.kstack = 1;
	put(rc, 0, 2, &c);
	/* the journal, on another stack; then a stack lost to the map */
	memset(&c, 0, sizeof(c));
	c.pid = c.tgid = 100;
	c.kind = BLKREC_JOURNAL;
	c.kstack = 2;
	c.ustack = -1;
	put(rc, 1, 1, &c);
	c.kstack = -17;		/* -EEXIST: its bucket held another */
	put(rc, 1, 2, &c);
	CHECK(rec_causes_pump(rc, &err) == 0);
	CHECK(rec_causes_close(rc, 1, &err) == 0);

	snprintf(base, sizeof(base), "%s/rec", dir);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	r0 = match(r, 0, 1);
	if (r0)
		r0c = *r0;
	r1 = match(r, 0, 2);
	if (r1)
		r1c = *r1;
	CHECK(r0 && r1);
	if (!r0 || !r1)
		goto out;
	CHECK(r0c.owner_pid == 100 && r0c.flags == CAUSE_WRITEBACK);
	/* one stack by its names, outermost first, the tracing dropped */
	CHECK(r0c.kstack >= 0 && r0c.kstack == r1c.kstack);
	CHECK(cause_stack(r, 0, r0c.kstack) &&
	      !strcmp(cause_stack(r, 0, r0c.kstack),
		      "wb_workfn;submit_bio_noacct_nocheck"));
	r2 = match(r, 1, 1);
	CHECK(r2 && r2->flags == CAUSE_JOURNAL && r2->kstack >= 0 &&
	      r2->kstack != r0c.kstack &&
	      !strcmp(cause_stack(r, 0, r2->kstack), "wb_workfn"));
	r3 = match(r, 1, 2);
	CHECK(r3 && r3->kstack == -1);
	/* the note's task, the kworker named from proc, the dirtier */
	CHECK(cause_task_name(r, 100) && !strcmp(cause_task_name(r, 100), "dd"));
	CHECK(cause_task_name(r, 42) &&
	      !strcmp(cause_task_name(r, 42), "kworker/u8:1"));
	CHECK(cause_cgroup_path(r, inode_of(path_in("cg/a/b"))) &&
	      !strcmp(cause_cgroup_path(r, inode_of(path_in("cg/a/b"))),
		      "/a/b"));
	CHECK(cause_file_path(r, kdev_of(path_in("fs")),
			      inode_of(path_in("fs/d/deep")), 0, NULL) &&
	      !strcmp(cause_file_path(r, kdev_of(path_in("fs")),
				      inode_of(path_in("fs/d/deep")), 0, NULL),
		      path_in("fs/d/deep")));
	CHECK(cause_notes(r) &&
	      strstr(cause_notes(r), "1 kernel stacks not kept"));
out:
	cause_reader_close(r);
}

/* With a live view: each record's cause told to its reader as written,
 * the names of the cause (its task, cgroup and file) before it, so that
 * the view can name the I/O at once; the dictionary names each once. */
static void test_rec_causes_tell_the_live_view_as_they_go(void)
{
	struct rec_causes_env env = causes_env("live", BLKREC_CAUSES,
					       "mi-rec");
	struct cause_reader *live = cause_reader_live();
	uint64_t cg = inode_of(path_in("cg/a/b"));
	uint32_t dev = kdev_of(path_in("fs"));
	uint64_t ino = inode_of(path_in("fs/d/deep"));
	struct iow_error err = { "" };
	const struct cause_rec *rec;
	struct blkrec_cause c;
	struct rec_causes *rc;
	char line[600], want[600];
	int tasks = 0, files = 0, cgroups = 0;
	FILE *f;

	CHECK(live != NULL);
	if (!live)
		return;
	env.mirror = live;
	rc = rec_causes_open(&env, &err);	/* mi-rec: the test before's */
	CHECK(rc != NULL);
	if (!rc) {
		cause_reader_close(live);
		return;
	}
	/* a PROCESS note's name, then dd's writeback queued by it */
	CHECK(rec_causes_process(rc, 42, "kworker/0:1", 11) == 0);
	memset(&c, 0, sizeof(c));
	c.pid = c.tgid = 42;
	c.owner_pid = c.owner_tgid = 100;
	memcpy(c.owner_comm, "dd", 3);
	c.cgroup = cg;
	c.ino = ino;
	c.ino_dev = dev;
	c.kind = BLKREC_FILE;
	c.flags = BLKREC_WRITEBACK;
	c.kstack = c.ustack = -1;
	put(rc, 0, 1, &c);
	/* told at once, no batch's end (pump) needed */
	rec = match(live, 0, 1);
	CHECK(rec && rec->owner_pid == 100 && rec->ino == ino);
	CHECK(cause_task_name(live, 100) &&
	      !strcmp(cause_task_name(live, 100), "dd"));
	CHECK(cause_task_name(live, 42) &&
	      !strcmp(cause_task_name(live, 42), "kworker/0:1"));
	CHECK(cause_cgroup_path(live, cg) &&
	      !strcmp(cause_cgroup_path(live, cg), "/a/b"));
	if (handles_here())
		CHECK(cause_file_path(live, dev, ino, 0, NULL) &&
		      !strcmp(cause_file_path(live, dev, ino, 0, NULL),
			      path_in("fs/d/deep")));
	/* the same again: nothing more to name */
	put(rc, 1, 1, &c);
	CHECK(match(live, 1, 1) != NULL);
	CHECK(rec_causes_pump(rc, &err) == 0);
	CHECK(rec_causes_close(rc, 1, &err) == 0);
	cause_reader_close(live);

	f = fopen(path_in("live.cause"), "r");
	CHECK(f != NULL);
	if (!f)
		return;
	snprintf(want, sizeof(want), "file\t%u\t%llu\tfile\t%s\n", dev,
		 (unsigned long long)ino, path_in("fs/d/deep"));
	while (fgets(line, sizeof(line), f)) {
		tasks += !strncmp(line, "task\t100\t", 9) ||
			 !strncmp(line, "task\t42\t", 8);
		files += !strcmp(line, want);
		cgroups += !strncmp(line, "cgroup\t", 7);
	}
	fclose(f);
	CHECK_EQ_INT(tasks, 2);
	CHECK_EQ_INT(files, 1);
	CHECK_EQ_INT(cgroups, 1);
}

static void test_rec_causes_without_stacks_says_so(void)
{
	struct rec_causes_env env = causes_env("nostacks", BLKREC_CAUSES,
					       "mi-nocgroup");
	struct iow_error err = { "" };
	const struct cause_rec *rec;
	struct blkrec_cause c;
	struct cause_reader *r;
	struct rec_causes *rc;
	char base[512];

	/* no io controller mounted */
	write_file(path_in("mi-nocgroup"),
		   "20 1 0:3 / /proc rw - proc proc rw\n");
	rc = rec_causes_open(&env, &err);
	CHECK(rc != NULL);
	if (!rc)
		return;
	memset(&c, 0, sizeof(c));
	c.pid = c.tgid = 100;
	c.cgroup = 12345;
	c.kstack = 0;		/* ignored: stacks not kept */
	c.ustack = -1;
	put(rc, 0, 1, &c);
	CHECK(rec_causes_close(rc, 1, &err) == 0);
	snprintf(base, sizeof(base), "%s/nostacks", dir);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	rec = match(r, 0, 1);
	CHECK(rec && rec->pid == 100 && rec->kstack == -1);
	CHECK(cause_notes(r) &&
	      strstr(cause_notes(r), "cgroups not named: no cgroup hierarchy"));
	CHECK(cause_unrecorded(r, CAUSE_PART_STACKS) &&
	      strstr(cause_unrecorded(r, CAUSE_PART_STACKS),
		     "record with --stacks kernel"));
	CHECK(!cause_unrecorded(r, CAUSE_PART_FILES));
	cause_reader_close(r);
}

/* path's inode generation, 0 where its file system does not say. */
static uint32_t generation_of(const char *path)
{
	int fd = open(path, O_RDONLY), version = 0;

	if (fd < 0 || ioctl(fd, FS_IOC_GETVERSION, &version))
		version = 0;
	if (fd >= 0)
		close(fd);
	return (uint32_t)version;
}

/* An unlink record of the file: its components, the file's first. */
static void unlinked(struct rec_causes *rc, uint32_t dev, uint64_t ino,
		     uint32_t gen, uint32_t nlink, const char *const *parts,
		     size_t n)
{
	struct iow_error err = { "" };
	struct blkrec_name name;
	struct blk_io_trace t;
	size_t i, off = 0;

	memset(&t, 0, sizeof(t));
	memset(&name, 0, sizeof(name));
	t.device = dev;
	name.ino = ino;
	name.gen = gen;
	name.nlink = nlink;
	name.whole = 1;
	for (i = 0; i < n; i++) {
		strcpy(name.names + off, parts[i]);
		off += strlen(parts[i]) + 1;
		name.depth++;
	}
	CHECK(rec_causes_unlinked(rc, &t, &name, &err) == 0);
}

/* A file deleted after its I/O was seen keeps the name it had, said
 * deleted; one of two links removed is no deletion; a name unlinked of
 * another generation was another file's (its number given again), and
 * the file of a number found at the end is not taken for one of another
 * generation (where the file system tells generations). */
static void test_rec_causes_name_files_deleted_before_the_end(void)
{
	struct rec_causes_env env = causes_env("del", BLKREC_CAUSES,
					       "mi-del");
	static const char *const gone[] = { "gone", "sub" };
	static const char *const link2[] = { "second" };
	static const char *const before[] = { "earlier" };
	uint32_t dev = kdev_of(path_in("fs"));
	struct iow_error err = { "" };
	struct blkrec_cause c;
	struct blk_io_trace t;
	struct cause_reader *r;
	struct rec_causes *rc;
	uint64_t ino_gone, ino_kept, ino_new;
	uint32_t gen_new;
	const char *p;
	char base[512];
	FILE *f;

	CHECK(mkdir(path_in("fs/sub"), 0755) == 0);
	write_file(path_in("fs/sub/gone"), "x");
	write_file(path_in("fs/kept"), "x");
	write_file(path_in("fs/new"), "x");
	ino_gone = inode_of(path_in("fs/sub/gone"));
	ino_kept = inode_of(path_in("fs/kept"));
	ino_new = inode_of(path_in("fs/new"));
	gen_new = generation_of(path_in("fs/new"));
	f = fopen(path_in("mi-del"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 41, dev, "/", path_in("fs"), "ext4", "rw");
	fclose(f);
	rc = rec_causes_open(&env, &err);
	CHECK(rc != NULL);
	if (!rc)
		return;
	memset(&c, 0, sizeof(c));
	memset(&t, 0, sizeof(t));
	c.pid = c.tgid = 100;
	c.kind = BLKREC_FILE;
	c.ino_dev = dev;
	c.kstack = c.ustack = -1;
	t.device = 7 << 20 | 1;
	t.time = 1000;
	/* the new file's number, unlinked as another file's */
	unlinked(rc, dev, ino_new, gen_new + 1, 0, before, 1);
	c.ino = ino_gone;
	t.sequence = 1;
	CHECK(rec_causes_put(rc, &t, &c, &err) == 0);
	c.ino = ino_kept;
	t.sequence = 2;
	CHECK(rec_causes_put(rc, &t, &c, &err) == 0);
	c.ino = ino_new;
	c.ino_gen = gen_new;
	t.sequence = 3;
	CHECK(rec_causes_put(rc, &t, &c, &err) == 0);
	/* a file the number was given to before this one */
	c.ino_gen = gen_new + 2;
	t.sequence = 4;
	CHECK(rec_causes_put(rc, &t, &c, &err) == 0);
	CHECK(rec_causes_pump(rc, &err) == 0);
	/* then gone, and kept's second link */
	CHECK(unlink(path_in("fs/sub/gone")) == 0);
	unlinked(rc, dev, ino_gone, 0, 0, gone, 2);
	unlinked(rc, dev, ino_kept, 0, 1, link2, 1);
	CHECK(rec_causes_close(rc, 1, &err) == 0);

	snprintf(base, sizeof(base), "%s/del", dir);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	p = cause_file_path(r, dev, ino_gone, 0, NULL);
	CHECK(p && !strcmp(p, path_in("fs/sub/gone (deleted)")));
	p = cause_file_path(r, dev, ino_kept, 0, NULL);
	CHECK(p && !strcmp(p, path_in("fs/kept")));
	p = cause_file_path(r, dev, ino_new, gen_new, NULL);
	CHECK(p && !strcmp(p, path_in("fs/new")));
	if (gen_new)
		CHECK(cause_file_path(r, dev, ino_new, gen_new + 2, NULL) ==
		      NULL);
	else
		printf("  skipped: a file's generation: %s does not tell it\n",
		       dir);
	cause_reader_close(r);
}

/* Where the io controller is v1's blkio, the dictionary says so, and a
 * record keeps the task's cgroup v2 group, named from the cgroup2
 * mount; where it is v2's, the bio's group is the task's: none kept. */
static void test_rec_causes_keep_the_v2_group_where_io_is_v1(void)
{
	struct rec_causes_env env = causes_env("v1", BLKREC_CAUSES, "mi-cg1");
	struct iow_error err = { "" };
	struct blkrec_cause c;
	const struct cause_rec *rec;
	struct cause_reader *r;
	struct rec_causes *rc;
	const char *root;
	char base[512];
	int v1 = 0;
	FILE *f;

	f = fopen(path_in("mi-cg1"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 50, 26, "/", path_in("cg/a"), "cgroup", "rw,blkio");
	mount_line(f, 51, 27, "/", path_in("cg"), "cgroup2", "rw");
	fclose(f);
	rc = rec_causes_open(&env, &err);
	CHECK(rc != NULL);
	if (!rc)
		return;
	memset(&c, 0, sizeof(c));
	c.pid = c.tgid = 100;
	c.kstack = c.ustack = -1;
	c.cgroup = inode_of(path_in("cg/a"));
	c.cgroup2 = inode_of(path_in("cg/c"));
	put(rc, 0, 1, &c);
	CHECK(rec_causes_pump(rc, &err) == 0);
	CHECK(rec_causes_close(rc, 1, &err) == 0);
	snprintf(base, sizeof(base), "%s/v1", dir);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	root = cause_cgroup_root(r, &v1);
	CHECK(root && !strcmp(root, path_in("cg/a")) && v1);
	rec = match(r, 0, 1);
	CHECK(rec && rec->cgroup2 == inode_of(path_in("cg/c")));
	CHECK(cause_cgroup_path(r, c.cgroup) &&
	      !strcmp(cause_cgroup_path(r, c.cgroup), "/"));
	CHECK(cause_cgroup2_path(r, c.cgroup2) &&
	      !strcmp(cause_cgroup2_path(r, c.cgroup2), "/c"));
	cause_reader_close(r);

	/* the io controller's is cgroup2's */
	env = causes_env("v2", BLKREC_CAUSES, "mi-rec");
	rc = rec_causes_open(&env, &err);
	CHECK(rc != NULL);
	if (!rc)
		return;
	c.cgroup = inode_of(path_in("cg/c"));
	put(rc, 0, 1, &c);
	CHECK(rec_causes_close(rc, 1, &err) == 0);
	snprintf(base, sizeof(base), "%s/v2", dir);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	root = cause_cgroup_root(r, &v1);
	CHECK(root && !strcmp(root, path_in("cg")) && !v1);
	rec = match(r, 0, 1);
	CHECK(rec && rec->cgroup2 == 0 && rec->cgroup == c.cgroup);
	cause_reader_close(r);

	/* v1's blkio and no cgroup2 mount: v1's, no v2 group kept */
	f = fopen(path_in("mi-v1only"), "w");
	CHECK(f != NULL);
	if (!f)
		return;
	mount_line(f, 50, 26, "/", path_in("cg/a"), "cgroup", "rw,blkio");
	fclose(f);
	env = causes_env("v1only", BLKREC_CAUSES, "mi-v1only");
	rc = rec_causes_open(&env, &err);
	CHECK(rc != NULL);
	if (!rc)
		return;
	c.cgroup = inode_of(path_in("cg/a"));
	put(rc, 0, 1, &c);
	CHECK(rec_causes_close(rc, 1, &err) == 0);
	snprintf(base, sizeof(base), "%s/v1only", dir);
	r = cause_reader_open(base, &err);
	CHECK(r != NULL);
	if (!r)
		return;
	root = cause_cgroup_root(r, &v1);
	CHECK(root && !strcmp(root, path_in("cg/a")) && v1);
	rec = match(r, 0, 1);
	CHECK(rec && rec->cgroup2 == 0);
	cause_reader_close(r);
}


/* The trees the tests walk: a cgroup hierarchy's directories, a file
 * system's files, a file in neither. */
static int make_trees(void)
{
	static const char *const dirs[] = { "cg", "cg/a", "cg/a/b", "cg/c",
					    "fs", "fs/d", "fs/other", "proc",
					    "proc/42" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdir(path_in(dirs[i]), 0755))
			return -1;
	write_file(path_in("outside"), "");
	write_file(path_in("fs/top file"), "x");
	write_file(path_in("fs/d/deep"), "x");
	write_file(path_in("fs/other/hidden"), "x");
	write_file(path_in("proc/42/comm"), "kworker/u8:1\n");
	write_file(path_in("stack-kallsyms"), stack_kallsyms);
	return 0;
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir) || make_trees()) {
		perror(dir);
		return 1;
	}
	RUN_TEST(test_ksyms_name_the_function_holding_an_address);
	RUN_TEST(test_ksyms_refuse_hidden_addresses);
	RUN_TEST(test_user_frames_name_functions_else_file_and_offset);
	RUN_TEST(test_cgroup_root_is_the_io_controllers);
	RUN_TEST(test_cgroup_ids_are_directories_inode_numbers);
	RUN_TEST(test_files_are_found_under_their_mounts);
	RUN_TEST(test_a_file_is_named_by_its_handle);
	RUN_TEST(test_file_walk_stops_when_its_time_is_up);
	RUN_TEST(test_tracing_frames_are_dropped);
	RUN_TEST(test_rec_causes_writes_what_the_reader_reads);
	RUN_TEST(test_rec_causes_tell_the_live_view_as_they_go);
	RUN_TEST(test_rec_causes_without_stacks_says_so);
	RUN_TEST(test_rec_causes_name_files_deleted_before_the_end);
	RUN_TEST(test_rec_causes_keep_the_v2_group_where_io_is_v1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return check_report();
}
