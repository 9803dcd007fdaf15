/* child.c: the programs iowatcher runs, one policy for all (see child.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

extern char **environ;

void child_spec_init(struct child_spec *c, char *const *argv)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->argv = argv;
	for (i = 0; i < CHILD_FDS; i++)
		c->fd[i] = -1;
}

/* In the forked child: c's fds, then the program; never returns. */
static void exec_child(const struct child_spec *c, pid_t parent)
{
	sigset_t none;
	int i, fd;

	/* the parent may have died before the death signal was asked for */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (c->stdin_null && (fd = open("/dev/null", O_RDONLY)) >= 0 &&
	    fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (c->stdout_path &&
	    (fd = open(c->stdout_path, O_WRONLY | O_CREAT | O_TRUNC,
		       0644)) >= 0 && fd != 1) {
		dup2(fd, 1);
		close(fd);
	}
	for (i = 0; i < CHILD_FDS; i++)
		if (c->fd[i] >= 0)
			dup2(c->fd[i], i);
	if (c->path)
		execve(c->path, c->argv, c->envp ? c->envp : environ);
	else
		execvpe(c->argv[0], c->argv, c->envp ? c->envp : environ);
	_exit(127);
}

/*
 * A helper that must not outlive us: forked, so that it can ask for a
 * death signal (posix_spawn cannot). It cannot say why an exec failed:
 * it ends with status 127, as a shell's "not found" does.
 */
/* Whether name runs as execvp would find it: 0, or ENOENT. */
static int on_path(const char *name)
{
	const char *path = getenv("PATH"), *end;
	char file[4096];

	if (strchr(name, '/'))
		return access(name, X_OK) ? errno : 0;
	for (; path; path = *end ? end + 1 : NULL) {
		end = strchrnul(path, ':');
		if (end == path)	/* an empty entry: the directory we are in */
			snprintf(file, sizeof(file), "./%s", name);
		else
			snprintf(file, sizeof(file), "%.*s/%s",
				 (int)(end - path), path, name);
		if (!access(file, X_OK))
			return 0;
	}
	return ENOENT;
}

static int start_tied(const struct child_spec *c, pid_t *pid)
{
	pid_t parent = getpid();
	int missing = on_path(c->path ? c->path : c->argv[0]), e;
	sigset_t all, old;

	*pid = 0;
	if (missing)
		return missing;	/* as posix_spawnp says it */

	/* every signal held across the fork: one sent to the child before
	 * it has put back the default actions would run this process's
	 * handler in the child and be lost (a stop's SIGINT to an mpstat
	 * just started, which then ran on for the whole grace time) */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	*pid = fork();
	if (*pid == 0)
		exec_child(c, parent);	/* unblocks after the defaults */
	e = errno;
	if (*pid > 0)
		setpgid(*pid, *pid);	/* either side may be first */
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (*pid < 0) {
		*pid = 0;
		return e;
	}
	return 0;
}

int child_start(const struct child_spec *c, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t sigs;
	int i, rc;

	if (c->die_with_parent)
		return start_tied(c, pid);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setpgroup(&attr, 0);
	sigemptyset(&sigs);
	posix_spawnattr_setsigmask(&attr, &sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &sigs);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
				 POSIX_SPAWN_SETSIGDEF |
				 POSIX_SPAWN_SETSIGMASK);
	if (c->stdin_null)
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						 O_RDONLY, 0);
	if (c->stdout_path)
		posix_spawn_file_actions_addopen(&fa, 1, c->stdout_path,
						 O_WRONLY | O_CREAT | O_TRUNC,
						 0644);
	for (i = 0; i < CHILD_FDS; i++)
		if (c->fd[i] >= 0)
			posix_spawn_file_actions_adddup2(&fa, c->fd[i], i);
	if (c->path)
		rc = posix_spawn(pid, c->path, &fa, &attr, c->argv,
				 c->envp ? c->envp : environ);
	else
		rc = posix_spawnp(pid, c->argv[0], &fa, &attr, c->argv,
				  c->envp ? c->envp : environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		*pid = 0;
	return rc;
}

int child_reaped(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, WNOHANG);
	while (r < 0 && errno == EINTR);
	return r == pid || (r < 0 && errno == ECHILD);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int child_wait(pid_t pid, int *status, long wait_ms)
{
	long long deadline = now_ms() + wait_ms;
	long nap_us = 1000;

	for (;;) {
		struct timespec nap;

		if (child_reaped(pid, status))
			return 1;
		if (now_ms() >= deadline)
			return 0;
		/* 1 ms, doubling to 20: a quick exit is seen at once */
		nap.tv_sec = 0;
		nap.tv_nsec = nap_us * 1000;
		nanosleep(&nap, NULL);
		if (nap_us < 20000)
			nap_us *= 2;
	}
}

int child_stop(pid_t pid, int sig, long grace_ms)
{
	int status = 0;

	kill(-pid, sig);
	if (grace_ms > 0 && child_wait(pid, &status, grace_ms))
		return status;
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

void child_describe(int status, char *buf, size_t size)
{
	if (WIFEXITED(status)) {
		int code = WEXITSTATUS(status);

		snprintf(buf, size, "exit status %d%s", code,
			 code == 127 ? ": command not found" :
			 code == 126 ? ": command not executable" : "");
	} else if (WIFSIGNALED(status)) {
		snprintf(buf, size, "signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	} else {
		snprintf(buf, size, "wait status 0x%x", (unsigned)status);
	}
}
