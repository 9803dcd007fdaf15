/*
 * child.h: starting, stopping and reaping the programs iowatcher runs (a
 * tagger, the workload, blktrace and mpstat, ffmpeg), with one policy for
 * all of them. Each child leads a process group of its own: the
 * terminal's ^C reaches only iowatcher, which stops its children in
 * order, and a stop reaches everything a child started (sh -c "fio ...").
 * A child starts with no signal blocked and SIGINT, SIGTERM and SIGPIPE at
 * their defaults. Stopping is a signal to the group, a grace period, then
 * SIGKILL to the group.
 */
#ifndef IOWATCHER_CHILD_H
#define IOWATCHER_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#define CHILD_FDS	4	/* what a child can be given: fds 0 to 3 */

struct child_spec {
	const char *path;	/* the program; NULL: argv[0] on PATH */
	char *const *argv;
	char *const *envp;	/* NULL: ours */
	/* fd[i] >= 0 becomes the child's fd i; -1 leaves it as ours */
	int fd[CHILD_FDS];
	const char *stdout_path;	/* created for its stdout, or NULL */
	int stdin_null;		/* stdin from /dev/null */
	/* ended (SIGTERM) when iowatcher dies, however it dies: a helper
	 * of ours (mpstat), never the user's workload */
	int die_with_parent;
};

/* A spec with every fd left as ours. */
void child_spec_init(struct child_spec *c, char *const *argv);
/* 0, or the errno of why it could not start (the caller says what it is). */
int child_start(const struct child_spec *c, pid_t *pid);
/* 1 and its wait status once pid has ended (or is gone), 0 while it runs. */
int child_reaped(pid_t pid, int *status);
/* Waits up to wait_ms for pid to end: 1 and its status once it has. */
int child_wait(pid_t pid, int *status, long wait_ms);
/* sig to pid's group, up to grace_ms for it to end, then SIGKILL to the
 * group; returns its wait status. */
int child_stop(pid_t pid, int sig, long grace_ms);
/* How a child ended: "exit status 3", "signal 9 (Killed)"; 127 and 126
 * (the shell's "not found" and "not executable") are said. */
void child_describe(int status, char *buf, size_t size);

#endif
