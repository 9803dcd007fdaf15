/*
 * test_tagger.c: the tagger stage against the shipped taggers and against
 * taggers that misbehave (tests/tools/script-tagger, shell one-liners).
 * Every failure must be one line naming the event and the reason, come
 * within seconds, and leave no child behind.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "check.h"
#include "tagger.h"

static char top[PATH_MAX];	/* the checkout: tests/.. */

/* Makes event i of a test sequence; pdu may point into buf. */
typedef void (*make_event_fn)(struct io_event *ev, uint64_t i,
			      unsigned char *buf);

struct run {
	struct tagger *t;	/* still to be freed */
	int rc;
	struct iow_error err;
	size_t n_out;
	int32_t *tags;		/* per event taken, in order */
	bool in_order;		/* indexes came back 0, 1, 2, ... */
	bool payloads_intact;
	double seconds;
};

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void find_top(void)
{
	ssize_t n = readlink("/proc/self/exe", top, sizeof(top) - 1);
	char *slash;

	top[n > 0 ? n : 0] = '\0';
	for (int i = 0; i < 2 && (slash = strrchr(top, '/')); i++)
		*slash = '\0';
}

static bool no_children(void)
{
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

/*
 * A tagger's stderr is the program's. Where a test expects it to complain,
 * that complaint is captured (and checked), not printed among the results;
 * check failures in the meantime are printed once the capture ends.
 */
struct stderr_capture {
	FILE *file;
	int saved_fd;
	int failures_before;
};

static int stderr_capture_start(struct stderr_capture *cap)
{
	cap->failures_before = check_failures_now;
	cap->file = tmpfile();
	CHECK(cap->file != NULL);
	if (!cap->file)
		return -1;
	fflush(stderr);
	cap->saved_fd = dup(STDERR_FILENO);
	CHECK(cap->saved_fd >= 0);
	if (cap->saved_fd < 0 ||
	    dup2(fileno(cap->file), STDERR_FILENO) < 0) {
		fclose(cap->file);
		return -1;
	}
	return 0;
}

/* Puts stderr back and leaves what was written to it in buf. */
static void stderr_capture_end(struct stderr_capture *cap, char *buf,
			       size_t size)
{
	size_t n;

	fflush(stderr);
	dup2(cap->saved_fd, STDERR_FILENO);
	close(cap->saved_fd);
	rewind(cap->file);
	n = fread(buf, 1, size - 1, cap->file);
	buf[n] = '\0';
	fclose(cap->file);
	if (check_failures_now > cap->failures_before)
		fputs(buf, stderr);
}

static struct io_event io(uint64_t i, unsigned code, unsigned cats,
			  uint32_t pid)
{
	return (struct io_event){
		.time_ns = i * 1000, .sector = 8 * i, .sequence = (uint32_t)i,
		.bytes = 4096, .action = code | BLK_TC_ACT(cats), .pid = pid,
		.device = 8 << 20, .cpu = (uint32_t)(i % 2), .index = i,
		.tag = IO_EVENT_NO_TAG,
	};
}

/* Queued writes by pids 100..102, each with an 8-byte payload. */
static void make_plain(struct io_event *ev, uint64_t i, unsigned char *buf)
{
	*ev = io(i, BLK_TA_QUEUE, BLK_TC_WRITE | BLK_TC_QUEUE, 100 + i % 3);
	memcpy(buf, &i, sizeof(i));
	ev->pdu = buf;
	ev->pdu_len = sizeof(i);
}

/* make_plain's payload: the event's own index. */
static bool payload_matches(const struct io_event *ev)
{
	return ev->pdu_len == sizeof(ev->index) && ev->pdu &&
	       !memcmp(ev->pdu, &ev->index, sizeof(ev->index));
}

static int take(struct run *r, make_event_fn make)
{
	struct io_event ev;
	int rc;

	while ((rc = tagger_next(r->t, &ev, &r->err)) == 1) {
		if (ev.index != r->n_out)
			r->in_order = false;
		if (make == make_plain && !payload_matches(&ev))
			r->payloads_intact = false;
		r->tags[r->n_out++] = ev.tag;
	}
	return rc;
}

/* The pipeline's loop: push each event, take what is answered, finish. */
static struct run run_tagger(const char *cmd, double timeout_s, size_t n,
			     make_event_fn make)
{
	struct run r = { .in_order = true, .payloads_intact = true };
	unsigned char buf[64];
	double start = seconds_now();
	struct io_event ev;
	size_t i;

	r.tags = calloc(n + 1, sizeof(*r.tags));
	r.t = tagger_start(cmd, timeout_s, &r.err);
	r.rc = r.t ? 0 : -1;
	for (i = 0; i < n && !r.rc; i++) {
		make(&ev, i, buf);
		r.rc = tagger_push(r.t, &ev, &r.err);
		if (!r.rc)
			r.rc = take(&r, make);
	}
	if (!r.rc)
		r.rc = tagger_finish(r.t, &r.err);
	if (!r.rc)
		r.rc = take(&r, make);
	r.seconds = seconds_now() - start;
	if (r.rc && getenv("TEST_VERBOSE"))
		printf("  (%.2f s) %s\n", r.seconds, r.err.msg);
	return r;
}

static void end_run(struct run *r)
{
	tagger_free(r->t);
	free(r->tags);
}

static const char *label_of(const struct run *r, size_t i)
{
	const char *label = tagger_label(r->t, r->tags[i]);

	return label ? label : "(none)";
}

static char *script(const char *words)
{
	static char cmd[PATH_MAX + 256];

	snprintf(cmd, sizeof(cmd), "'%s/tests/tools/script-tagger' %s", top,
		 words);
	return cmd;
}

static char *shipped(const char *name_and_args)
{
	static char cmd[PATH_MAX + 256];

	snprintf(cmd, sizeof(cmd), "%s/scripts/%s", top, name_and_args);
	return cmd;
}

/*
 * The tagger fails: one line with where and why, within limit_s seconds,
 * the tagger reaped, and later calls give the same error.
 */
static void check_fails(const char *cmd, size_t n, double timeout_s,
			const char *where, const char *why, double limit_s)
{
	struct run r = run_tagger(cmd, timeout_s, n, make_plain);
	struct io_event ev;
	struct iow_error again = { "" };

	CHECK(r.rc < 0);
	CHECK(strstr(r.err.msg, where) != NULL);
	CHECK(strstr(r.err.msg, why) != NULL);
	CHECK(strstr(r.err.msg, "tagger '") == r.err.msg);
	CHECK(strchr(r.err.msg, '\n') == NULL);
	CHECK(r.seconds < limit_s);
	CHECK(no_children());
	if (r.t) {
		CHECK_EQ_INT(tagger_next(r.t, &ev, &again), -1);
		CHECK(strcmp(again.msg, r.err.msg) == 0);
	}
	if (check_failures_now)
		fprintf(stderr, "  message: %s (%.2f s)\n", r.err.msg,
			r.seconds);
	end_run(&r);
}

/* ---- taggers that behave ---- */

static void make_mixed(struct io_event *ev, uint64_t i, unsigned char *buf)
{
	static const unsigned codes[] = {
		BLK_TA_QUEUE, BLK_TA_ISSUE, BLK_TA_COMPLETE, BLK_TA_GETRQ,
	};
	unsigned cats = (i / 4) % 2 ? BLK_TC_WRITE : BLK_TC_READ;

	(void)buf;
	if ((i / 8) % 2)
		cats |= BLK_TC_SYNC;
	*ev = io(i, codes[i % 4], cats, 100 + i % 5);
}

/* What tag-example calls event i of make_mixed; NULL for no tag. */
static const char *mixed_label(uint64_t i)
{
	static const char *const labels[4] = {
		"read", "sync read", "write", "sync write",
	};

	if (i % 4 >= 2)
		return NULL;
	return labels[((i / 4) % 2) * 2 + (i / 8) % 2];
}

static bool labels_match_mixed(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->n_out; i++) {
		const char *want = mixed_label(i);

		if (want ? strcmp(label_of(r, i), want) != 0 :
			   r->tags[i] != IO_EVENT_NO_TAG)
			return false;
	}
	return true;
}

static void test_tag_example_tags_queue_and_issue_by_direction_and_sync(void)
{
	struct run r = run_tagger(shipped("tag-example"), 5, 64, make_mixed);

	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(r.n_out, 64);
	CHECK(r.in_order);
	CHECK(labels_match_mixed(&r));
	CHECK_EQ_INT(tagger_n_tags(r.t), 4);
	CHECK(strcmp(tagger_tag_at(r.t, 0)->label, "read") == 0);
	CHECK(no_children());
	end_run(&r);
}

static void test_tag_example_by_pid(void)
{
	struct run r = run_tagger(shipped("tag-example -p"), 5, 30,
				  make_plain);

	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(r.n_out, 30);
	CHECK_EQ_INT(tagger_n_tags(r.t), 3);
	CHECK(strcmp(label_of(&r, 0), "pid 100") == 0);
	CHECK(strcmp(label_of(&r, 4), "pid 101") == 0);
	CHECK(strcmp(label_of(&r, 29), "pid 102") == 0);
	end_run(&r);
}

static void test_big_stream_streams_without_deadlock(void)
{
	size_t n = 200000;
	struct run r = run_tagger(shipped("tag-example"), 10, n, make_mixed);

	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(r.n_out, n);
	CHECK(r.in_order);
	CHECK(labels_match_mixed(&r));
	CHECK(r.seconds < 10);
	end_run(&r);
}

static void test_no_events_is_fine(void)
{
	struct run r = run_tagger(shipped("tag-example"), 5, 0, make_plain);

	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(r.n_out, 0);
	CHECK_EQ_INT(tagger_n_tags(r.t), 0);
	CHECK(no_children());
	end_run(&r);
}

/* Each event's label is the record the tagger read, field by field. */
static void test_events_reach_the_tagger_as_v7_records_with_payload(void)
{
	struct run r = run_tagger(script("read echo end loop"), 5, 200,
				  make_plain);
	char want[256];
	uint64_t i = 137;

	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(r.n_out, 200);
	CHECK(r.in_order);
	CHECK(r.payloads_intact);
	snprintf(want, sizeof(want), "0x65617407 137 137000 1096 4096 %#x "
		 "%u 0x800000 1 0 8:%02x%02x000000000000",
		 BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_WRITE | BLK_TC_QUEUE),
		 (unsigned)(100 + i % 3), (unsigned)(i & 0xff),
		 (unsigned)(i >> 8));
	CHECK(strcmp(label_of(&r, 137), want) == 0);
	if (strcmp(label_of(&r, 137), want))
		fprintf(stderr, "  got  %s\n  want %s\n", label_of(&r, 137),
			want);
	end_run(&r);
}

static void test_last_tag_io_of_an_answer_wins(void)
{
	struct run r = run_tagger(script("read new 7 first new 9 second "
					 "tag 7 tag 9 end loop"), 5, 3,
				  make_plain);

	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(r.tags[0], 9);
	CHECK_EQ_INT(r.tags[2], 9);
	CHECK_EQ_INT(tagger_n_tags(r.t), 2);
	CHECK_EQ_INT(tagger_tag_at(r.t, 0)->id, 7);
	CHECK(strcmp(tagger_label(r.t, 9), "second") == 0);
	CHECK(tagger_label(r.t, 8) == NULL);
	end_run(&r);
}

static void test_a_tag_defined_again_takes_the_new_label(void)
{
	struct run r = run_tagger(script("read new 0 old new 0 new tag 0 "
					 "end loop"), 5, 2, make_plain);

	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(tagger_n_tags(r.t), 1);
	CHECK(strcmp(tagger_label(r.t, 0), "new") == 0);
	end_run(&r);
}

static void make_processes(struct io_event *ev, uint64_t i,
			   unsigned char *buf)
{
	static const uint32_t pids[] = { 100, 100, 100, 200, 300, 301, 100 };
	static const unsigned codes[] = {
		0, BLK_TA_QUEUE, BLK_TA_COMPLETE, BLK_TA_QUEUE, BLK_TA_QUEUE,
		BLK_TA_ISSUE, BLK_TA_ISSUE,
	};

	*ev = io(i, codes[i], BLK_TC_WRITE, pids[i]);
	if (i == 0) {
		ev->action = BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY);
		memset(buf, 0, 16);
		strcpy((char *)buf, "fio");
		ev->pdu = buf;
		ev->pdu_len = 16;
	}
}

static void test_tag_by_pid_names_processes_and_groups(void)
{
	struct run r;

	if (system("command -v python3 >/dev/null 2>&1")) {
		printf("  (no python3: tag-by-pid not tried)\n");
		return;
	}
	r = run_tagger(shipped("tag-by-pid -g grp:300,301"), 10, 7,
		       make_processes);
	CHECK_EQ_INT(r.rc, 0);
	CHECK_EQ_INT(r.n_out, 7);
	CHECK_EQ_INT(r.tags[0], IO_EVENT_NO_TAG);
	CHECK(strcmp(label_of(&r, 1), "fio (100)") == 0);
	CHECK_EQ_INT(r.tags[2], IO_EVENT_NO_TAG);
	CHECK(strcmp(label_of(&r, 3), "? (200)") == 0);
	CHECK(strcmp(label_of(&r, 4), "grp") == 0);
	CHECK_EQ_INT(r.tags[5], r.tags[4]);
	CHECK_EQ_INT(r.tags[6], r.tags[1]);
	CHECK_EQ_INT(tagger_n_tags(r.t), 3);
	if (r.rc)
		fprintf(stderr, "  %s\n", r.err.msg);
	end_run(&r);
}

static void test_bare_names_resolve_to_shipped_taggers(void)
{
	char dir[PATH_MAX + 16], want[PATH_MAX + 64];
	const char *dirs[] = { "/nonexistent", dir, NULL };
	struct iow_error err = { "" };
	char *s;

	snprintf(dir, sizeof(dir), "%s/scripts", top);
	snprintf(want, sizeof(want), "'%s/tag-example' -p", dir);
	s = tagger_resolve("  tag-example -p", dirs, &err);
	CHECK(s && strcmp(s, want) == 0);
	free(s);
	s = tagger_resolve("cat -u", dirs, &err);
	CHECK(s && strcmp(s, "cat -u") == 0);
	free(s);
	s = tagger_resolve("X=1 tag-example", dirs, &err);
	CHECK(s && strcmp(s, "X=1 tag-example") == 0);
	free(s);
	s = tagger_resolve("/nonexistent/tagger -x", dirs, &err);
	CHECK(s == NULL);
	CHECK(strstr(err.msg, "/nonexistent/tagger") != NULL);
	CHECK(strstr(err.msg, "not an executable file") != NULL);
}

/* ---- taggers that don't ---- */

static void test_tagger_not_found(void)
{
	struct iow_error err = { "" };
	struct tagger *t = tagger_start("no-such-tagger-for-iowatcher", 5,
					&err);

	/* Found missing before starting: one line, no shell message. */
	CHECK(t == NULL);
	CHECK(strstr(err.msg, "tagger 'no-such-tagger-for-iowatcher': "
			      "command not found") == err.msg);
	CHECK(no_children());
	tagger_free(t);
}

static void test_missing_command_inside_shell_line_fails_at_first_event(void)
{
	struct stderr_capture cap;
	char said[1024];

	if (stderr_capture_start(&cap))
		return;
	check_fails("exec no-such-tagger-for-iowatcher", 10, 5, "event 0",
		    "exit status 127: command not found", 5);
	stderr_capture_end(&cap, said, sizeof(said));
	/* The tagger's stderr is the user's: the shell's own word shows. */
	CHECK(strstr(said, "no-such-tagger-for-iowatcher: not found") != NULL);
}

static void test_path_to_nothing_fails_at_start(void)
{
	struct iow_error err = { "" };
	struct tagger *t = tagger_start("/nonexistent/tagger", 5, &err);

	CHECK(t == NULL);
	CHECK(strstr(err.msg, "not an executable file") != NULL);
	CHECK(no_children());
}

static void test_exits_at_once(void)
{
	/* Enough events that writes hit the closed pipe: no SIGPIPE death. */
	check_fails("true", 100000, 5, "event 0",
		    "exited before answering (exit status 0)", 5);
}

static void test_exits_nonzero_after_answering(void)
{
	check_fails(script("read end read end exit 3"), 5, 5, "event 2",
		    "exit status 3", 5);
}

static void test_nonzero_exit_after_the_last_answer(void)
{
	check_fails(script("read end read end drain exit 3"), 2, 5,
		    "after event 1", "exited with exit status 3", 5);
}

static void test_killed_by_a_signal(void)
{
	check_fails("kill -9 $$", 5, 5, "event 0", "signal 9", 5);
}

static void test_unknown_response_type(void)
{
	check_fails(script("read end read type 7 end loop"), 5, 5, "event 1",
		    "unknown response type 7 (0x00000007)", 5);
}

static void test_tag_io_for_an_undefined_tag(void)
{
	check_fails(script("read new 0 a tag 0 end read tag 5 end loop"), 5,
		    5, "event 1", "TAG_IO names tag 5, never defined", 5);
}

static void test_label_without_its_nul(void)
{
	check_fails(script("read raw-new 0 4 end loop"), 5, 5, "event 0",
		    "label of 4 bytes without its NUL", 5);
}

static void test_label_of_5000_bytes(void)
{
	check_fails(script("read raw-new 0 5000 end loop"), 5, 5, "event 0",
		    "label of 5000 bytes (at most 4096)", 5);
}

static void test_end_with_no_event(void)
{
	check_fails(script("read end end loop"), 1, 5, "after event 0",
		    "END with no event waiting", 5);
}

static void test_hang_times_out(void)
{
	check_fails(script("read end read sleep 30"), 5, 1, "event 1",
		    "no answer for 1 s", 4);
}

static void test_never_reading_its_input_times_out(void)
{
	/* Its stdin pipe fills, the window fills, and then we wait. */
	check_fails("exec sleep 30", 200000, 1, "event 0",
		    "no answer for 1 s", 6);
}

static void test_still_running_after_its_input_ends(void)
{
	check_fails(script("read end read end sleep 30"), 2, 1,
		    "after event 1", "still running 1 s after the end", 4);
}

static void test_closes_output_early(void)
{
	char cmd[PATH_MAX + 300];

	snprintf(cmd, sizeof(cmd), "%s; exec 1>&-; sleep 30",
		 script("read end"));
	check_fails(cmd, 5, 1, "event 1",
		    "closed its output without answering", 4);
}

int main(void)
{
	/* a PATH of our own: one with a directory we may not search
	 * (root's, kept by su) turns "not found" into EACCES */
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
	find_top();
	RUN_TEST(test_tag_example_tags_queue_and_issue_by_direction_and_sync);
	RUN_TEST(test_tag_example_by_pid);
	RUN_TEST(test_big_stream_streams_without_deadlock);
	RUN_TEST(test_no_events_is_fine);
	RUN_TEST(test_events_reach_the_tagger_as_v7_records_with_payload);
	RUN_TEST(test_last_tag_io_of_an_answer_wins);
	RUN_TEST(test_a_tag_defined_again_takes_the_new_label);
	RUN_TEST(test_tag_by_pid_names_processes_and_groups);
	RUN_TEST(test_bare_names_resolve_to_shipped_taggers);
	RUN_TEST(test_tagger_not_found);
	RUN_TEST(test_missing_command_inside_shell_line_fails_at_first_event);
	RUN_TEST(test_path_to_nothing_fails_at_start);
	RUN_TEST(test_exits_at_once);
	RUN_TEST(test_exits_nonzero_after_answering);
	RUN_TEST(test_nonzero_exit_after_the_last_answer);
	RUN_TEST(test_killed_by_a_signal);
	RUN_TEST(test_unknown_response_type);
	RUN_TEST(test_tag_io_for_an_undefined_tag);
	RUN_TEST(test_label_without_its_nul);
	RUN_TEST(test_label_of_5000_bytes);
	RUN_TEST(test_end_with_no_event);
	RUN_TEST(test_hang_times_out);
	RUN_TEST(test_never_reading_its_input_times_out);
	RUN_TEST(test_still_running_after_its_input_ends);
	RUN_TEST(test_closes_output_early);
	return check_report();
}
