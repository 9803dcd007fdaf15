/*
 * causenames.h: the names a recorder gives the causes it saw (rec_causes.c),
 * found on this machine while recording or just after: kernel functions
 * from /proc/kallsyms, user functions from a process's maps and the ELF
 * symbols of its files, cgroup paths from the cgroup hierarchy's
 * directories (their inode numbers are the ids), file paths by walking
 * the mounted file systems that hold the inodes, or one at a time by a
 * file handle. Each takes its source's
 * path, so that the tests can hand it files of their own.
 */
#ifndef IOWATCHER_CAUSENAMES_H
#define IOWATCHER_CAUSENAMES_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* ---- kernel symbols ---- */

struct ksyms;

/* The text symbols of a /proc/kallsyms-format file (addresses shown:
 * root), sorted. NULL with err when unreadable or all addresses 0. */
struct ksyms *ksyms_load(const char *path, struct iow_error *err);
/* The function holding addr: the last symbol at or before it, or NULL
 * (before the first symbol, or at or past _etext with no symbol between). */
const char *ksyms_name(const struct ksyms *k, uint64_t addr);
size_t ksyms_count(const struct ksyms *k);
void ksyms_free(struct ksyms *k);

/* ---- user symbols ---- */

/* A process's executable mappings, from a /proc/PID/maps-format file. */
struct umaps;

struct umaps *umaps_read(const char *path);
void umaps_free(struct umaps *m);

/* The ELF files' symbols, loaded once per file. */
struct usyms;

struct usyms *usyms_new(void);
void usyms_free(struct usyms *u);
/*
 * addr of a process with maps m, as a frame: the function's name, else
 * FILE+0xOFFSET (the file's base name, the offset in the file), else
 * 0xADDR. Into buf; returns buf.
 */
const char *usyms_frame(struct usyms *u, const struct umaps *m, uint64_t addr,
			char *buf, size_t len);
/* Whether m maps addr (to read the maps again when it does not). */
int umaps_covers(const struct umaps *m, uint64_t addr);

/* ---- cgroups ---- */

/*
 * Where the cgroup ids of the block layer's bios are directories: the
 * io controller's hierarchy (a cgroup v1 mount with blkio among its
 * options, else the cgroup2 mount), from a /proc/self/mountinfo-format
 * file; into dir. 0, or -1 when there is none.
 */
int cgroup_io_root(const char *mountinfo, char *dir, size_t len);

/* The cgroup2 mount's directory, into dir: where a task's cgroup v2 id
 * (bpf_get_current_cgroup_id) is a directory. 0, or -1 when none. */
int cgroup_v2_root(const char *mountinfo, char *dir, size_t len);

/* The paths of ids (0: not wanted, or found; set to 0 as each is found)
 * under root, "/" for root itself: paths[i] is malloc'd or NULL. Returns
 * how many were found. */
size_t cgroup_paths(const char *root, uint64_t *ids, char **paths, size_t n);

/* ---- files ---- */

struct file_query {
	uint32_t dev;		/* the super block's, MAJ << 20 | MIN */
	uint64_t ino;
	char *path;		/* found: malloc'd; else NULL */
};

/*
 * Finds the paths of q's inodes by walking the mounted file systems that
 * hold them (their mount points from a /proc/self/mountinfo-format
 * file), each from its mount point down, not into other mounts, until
 * all are found or budget_ms has gone. Returns how many were found;
 * *timed_out says whether the time ran out first.
 */
size_t file_paths(const char *mountinfo, struct file_query *q, size_t n,
		  long budget_ms, int *timed_out);

/* Whether the regular file at path is not of generation gen, as its
 * file system tells (FS_IOC_GETVERSION: ext2-4, f2fs, btrfs): the walk
 * found another file given the number since. 0 where it cannot tell. */
int file_generation_differs(const char *path, uint32_t gen);

/* What a removed file's name ends with, as /proc's links say it. */
#define FILE_DELETED	" (deleted)"

/*
 * A file's path at once, while recording, without a walk: the inode
 * opened by a file handle through a mount of its file system (needs
 * CAP_DAC_READ_SEARCH), then its link in /proc/self/fd, checked to name
 * that inode. The handle is ext2-4's and f2fs's, with the inode's
 * generation (0: any), so that a file given the number of one deleted
 * is not taken for it; other file systems (xfs, btrfs) refuse it,
 * and after 16 refusals and no path their device is not asked again.
 * A file removed but still open is "PATH (deleted)" (FILE_DELETED).
 * NULL when not found (removed, not mounted, refused). A device's mount
 * is looked up in mountinfo once, the first time it is asked for.
 */
struct file_handles;

struct file_handles *file_handles_new(const char *mountinfo);
char *file_handles_path(struct file_handles *fh, uint32_t dev, uint64_t ino,
			uint32_t gen);
/* rel, a path from the root of dev's file system, as a path of its
 * mount (malloc'd), or NULL when dev is not mounted or rel is outside
 * the mount's subtree. */
char *file_handles_mounted(struct file_handles *fh, uint32_t dev,
			   const char *rel);
void file_handles_free(struct file_handles *fh);

#endif
