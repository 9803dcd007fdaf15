/* test_child.c: the one policy for the programs iowatcher runs. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/child.h"
#include "check.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A process's state letter from /proc, 0 when it is gone. */
static char process_state(pid_t pid)
{
	char path[64], line[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

static pid_t start_sh(const char *script)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct child_spec c;
	pid_t pid = 0;

	child_spec_init(&c, argv);
	c.stdin_null = 1;
	CHECK_EQ_INT(child_start(&c, &pid), 0);
	return pid;
}

static void test_exit_status_is_described(void)
{
	char buf[128];
	int status = 0;
	pid_t pid = start_sh("exit 3");

	CHECK(child_wait(pid, &status, 5000));
	child_describe(status, buf, sizeof(buf));
	CHECK(!strcmp(buf, "exit status 3"));
	pid = start_sh("exec no-such-program-for-iowatcher 2>/dev/null");
	CHECK(child_wait(pid, &status, 5000));
	child_describe(status, buf, sizeof(buf));
	CHECK(!strcmp(buf, "exit status 127: command not found"));
}

static void test_missing_program_is_an_errno(void)
{
	char *argv[] = { "no-such-program-for-iowatcher", NULL };
	struct child_spec c;
	pid_t pid = 1;

	child_spec_init(&c, argv);
	CHECK_EQ_INT(child_start(&c, &pid), ENOENT);
	CHECK_EQ_INT(pid, 0);
}

/* A stop reaches what the child started: its whole process group. */
static void test_stop_ends_the_whole_group(void)
{
	int fds[2], status;
	char buf[32] = "";
	pid_t pid, grandchild;
	char *argv[] = { "sh", "-c", "sleep 30 & echo $!; wait", NULL };
	struct child_spec c;

	CHECK(pipe(fds) == 0);
	child_spec_init(&c, argv);
	c.fd[1] = fds[1];
	CHECK_EQ_INT(child_start(&c, &pid), 0);
	close(fds[1]);
	CHECK(read(fds[0], buf, sizeof(buf) - 1) > 0);
	close(fds[0]);
	grandchild = (pid_t)atoi(buf);
	CHECK(grandchild > 0);
	CHECK_EQ_INT(getpgid(pid), pid);
	status = child_stop(pid, SIGTERM, 2000);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	/* the grandchild got SIGTERM too: gone, or a zombie */
	usleep(100000);
	CHECK(process_state(grandchild) == 0 || process_state(grandchild) == 'Z');
}

/* One that ignores the signal is killed when the grace period ends. */
static void test_stop_kills_after_the_grace_period(void)
{
	double t0;
	int status;
	pid_t pid = start_sh("trap '' TERM; while :; do sleep 0.05; done");

	usleep(100000);
	t0 = now_s();
	status = child_stop(pid, SIGTERM, 300);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK(now_s() - t0 >= 0.29 && now_s() - t0 < 3);
}

int main(void)
{
	/* a PATH of our own: one with a directory we may not search
	 * (root's, kept by su) turns "not found" into EACCES */
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
	RUN_TEST(test_exit_status_is_described);
	RUN_TEST(test_missing_program_is_an_errno);
	RUN_TEST(test_stop_ends_the_whole_group);
	RUN_TEST(test_stop_kills_after_the_grace_period);
	return check_report();
}
