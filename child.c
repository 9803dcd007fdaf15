/* child.c: the programs iowatcher runs, one policy for all (see child.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

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

int child_start(const struct child_spec *c, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t sigs;
	int i, rc;

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
