/*
 * test_account.c: the account note's text round-trips through the parser
 * (the kernel's classes, "?" for one it does not count apart, the BPF
 * recorder's unseen completions and missed runs per program), anything
 * else is not an account note; a completion's class is the kernel's
 * (a preflush alone a write, a flush sequence's empty end none);
 * the kernel's counts set against the trace's say "holds all N" when
 * they agree and otherwise where the missing ones went, in order.
 */
#include <stdint.h>
#include <string.h>

#include "reader/account.h"
#include "reader/blktrace.h"
#include "check.h"
#include "reader/lossnote.h"

static int parses(const char *text, size_t len)
{
	struct acctnote n;

	return acctnote_parse(LOSSNOTE_ACTION, text, len, &n);
}

#define PARSES(s) parses(s, sizeof(s))

static void test_kernel_counts_round_trip(void)
{
	struct acctnote n = { .kernel = { 12000, 34, 5, 6 }, .kernel_known = 0xf,
			      .inflight_start = 1, .inflight_end = 2 }, back;
	char text[ACCTNOTE_TEXT_MAX];
	uint16_t len = acctnote_format(&n, text);

	CHECK(!strcmp(text, "account: the kernel completed 12000 reads, 34 writes, 5 discards, 6 flushes; 1 in flight at the start, 2 at the end; 0 as tracing began or ended"));
	CHECK_EQ_INT(len, strlen(text) + 1);
	CHECK(acctnote_parse(LOSSNOTE_ACTION, text, len, &back) == 1);
	CHECK(!memcmp(back.kernel, n.kernel, sizeof(n.kernel)));
	CHECK(back.kernel_known == 0xf && back.inflight_start == 1 &&
	      back.inflight_end == 2 && !back.has_recorder);
}

static void test_unknown_classes_are_question_marks(void)
{
	struct acctnote n, back;
	char text[ACCTNOTE_TEXT_MAX];

	memset(&n, 0, sizeof(n));
	n.kernel[ACCT_READ] = 7;
	n.kernel[ACCT_WRITE] = 8;
	n.kernel_known = 1u << ACCT_READ | 1u << ACCT_WRITE;
	acctnote_format(&n, text);
	CHECK(!strcmp(text, "account: the kernel completed 7 reads, 8 writes, ? discards, ? flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended"));
	CHECK(acctnote_parse(LOSSNOTE_ACTION, text, strlen(text) + 1, &back));
	CHECK(back.kernel_known == n.kernel_known && back.kernel[0] == 7 &&
	      back.kernel[1] == 8 && back.kernel[2] == 0);
}

static void test_recorder_part_round_trips(void)
{
	struct acctnote n, back;
	char text[ACCTNOTE_TEXT_MAX];

	memset(&n, 0, sizeof(n));
	n.kernel_known = 0xf;
	n.has_recorder = 1;
	n.unseen = 2;
	acctnote_format(&n, text);
	CHECK(strstr(text, "; 2 completions unseen; missed runs: none") != NULL);
	CHECK(acctnote_parse(LOSSNOTE_ACTION, text, strlen(text) + 1, &back));
	CHECK(back.has_recorder && back.unseen == 2 && !back.n_missed);
	strcpy(n.missed[0].prog, "rq_complete");
	n.missed[0].runs = 3;
	strcpy(n.missed[1].prog, "bio_queue");
	n.missed[1].runs = 1;
	n.n_missed = 2;
	acctnote_format(&n, text);
	CHECK(strstr(text, "; 2 completions unseen; missed runs: rq_complete 3, bio_queue 1") != NULL);
	CHECK(acctnote_parse(LOSSNOTE_ACTION, text, strlen(text) + 1, &back));
	CHECK(back.n_missed == 2 && !strcmp(back.missed[0].prog,
					    "rq_complete") &&
	      back.missed[0].runs == 3 &&
	      !strcmp(back.missed[1].prog, "bio_queue") &&
	      back.missed[1].runs == 1);
}

static void test_largest_note_fits(void)
{
	struct acctnote n, back;
	char text[ACCTNOTE_TEXT_MAX];
	size_t i;
	uint16_t len;

	memset(&n, 0, sizeof(n));
	for (i = 0; i < N_ACCT; i++)
		n.kernel[i] = UINT64_MAX;
	n.kernel_known = 0xf;
	n.inflight_start = n.inflight_end = n.unseen = UINT64_MAX;
	n.at_edges = UINT64_MAX;
	n.has_recorder = 1;
	for (i = 0; i < ACCT_MAX_PROGS; i++) {
		memset(n.missed[i].prog, 'a', ACCT_PROG_NAME - 1);
		n.missed[i].prog[ACCT_PROG_NAME - 1] = '\0';
		n.missed[i].runs = UINT64_MAX;
	}
	n.n_missed = ACCT_MAX_PROGS;
	len = acctnote_format(&n, text);
	CHECK(len <= ACCTNOTE_TEXT_MAX && len == strlen(text) + 1);
	CHECK(acctnote_parse(LOSSNOTE_ACTION, text, len, &back) == 1);
	CHECK(back.n_missed == ACCT_MAX_PROGS &&
	      back.missed[7].runs == UINT64_MAX && back.unseen == UINT64_MAX);
}

static void test_anything_else_is_no_account_note(void)
{
	static const char ok[] = "account: the kernel completed 1 reads, 2 writes, 3 discards, 4 flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended";
	struct acctnote n;

	CHECK(PARSES(ok) == 1);
	CHECK(acctnote_parse(BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_PROCESS, ok,
			     sizeof(ok), &n) == 0);
	CHECK(parses(ok, sizeof(ok) - 1) == 0);	/* no NUL */
	CHECK(PARSES("lost 1 events on cpu 0, from 0 to 1 ns") == 0);
	CHECK(PARSES("account: the kernel completed 1 reads, 2 writes, 3 discards, 4 flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended.") == 0);
	CHECK(PARSES("account: the kernel completed 01 reads, 2 writes, 3 discards, 4 flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended; x") == 0);
	CHECK(PARSES("account: the kernel completed 1 reads, 2 writes, 3 discards; 0 in flight at the start, 0 at the end; 0 as tracing began or ended; x") == 0);
	CHECK(PARSES("account: the kernel completed 1 reads, 2 writes, 3 discards, 4 flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended; 1 completions unseen; missed runs: ") == 0);
	CHECK(PARSES("account: the kernel completed 1 reads, 2 writes, 3 discards, 4 flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended; 1 completions unseen; missed runs: Rq 1") == 0);
	CHECK(PARSES("account: the kernel completed 1 reads, 2 writes, 3 discards, 4 flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended; 1 completions unseen; missed runs: none, x 1") == 0);
	CHECK(PARSES("account: the kernel completed 1 reads, 2 writes, 3 discards, 4 flushes; 0 in flight at the start, 0 at the end; 0 as tracing began or ended; 1 completions unseen") == 0);
}

static void test_completion_classes_are_the_analysis_ones(void)
{
	uint32_t c = BLK_TC_ACT(BLK_TC_COMPLETE) | BLK_TA_COMPLETE;

	uint32_t ws = c | BLK_TC_ACT(BLK_TC_WRITE | BLK_TC_SYNC);

	CHECK_EQ_INT(acct_class(c | BLK_TC_ACT(BLK_TC_FLUSH), 0, 0),
		     ACCT_FLUSH);
	/* the empty end of a flush sequence, where its data ended: none */
	CHECK_EQ_INT(acct_class(ws, 0, 8), -1);
	CHECK_EQ_INT(acct_class(c | BLK_TC_ACT(BLK_TC_WRITE | BLK_TC_DISCARD),
				4096, 8), ACCT_DISCARD);
	CHECK_EQ_INT(acct_class(c | BLK_TC_ACT(BLK_TC_WRITE), 4096, 8),
		     ACCT_WRITE);
	CHECK_EQ_INT(acct_class(c | BLK_TC_ACT(BLK_TC_READ), 4096, 8),
		     ACCT_READ);
	/* a write with no data (a preflush alone, sector 0): a write */
	CHECK_EQ_INT(acct_class(ws, 0, 0), ACCT_WRITE);
	/* a write with a preflush, its data: a write */
	CHECK_EQ_INT(acct_class(c | BLK_TC_ACT(BLK_TC_WRITE | BLK_TC_FLUSH),
				4096, 8), ACCT_WRITE);
}

static struct acctnote kernel_counts(uint64_t r, uint64_t w, uint64_t d,
				     uint64_t f)
{
	struct acctnote n;

	memset(&n, 0, sizeof(n));
	n.kernel[ACCT_READ] = r;
	n.kernel[ACCT_WRITE] = w;
	n.kernel[ACCT_DISCARD] = d;
	n.kernel[ACCT_FLUSH] = f;
	n.kernel_known = 0xf;
	return n;
}

static void test_agreeing_counts_say_so(void)
{
	struct acctnote n = kernel_counts(1188000, 264, 0, 10);
	const uint64_t trace[N_ACCT] = { 1188000, 264, 0, 10 };
	struct account a;
	char s[512];

	account_compare(&n, trace, 0, 0, &a);
	account_sentence(&a, s, sizeof(s));
	CHECK(!strcmp(s, "holds all 1,188,274 completions the kernel counted"));
	CHECK(a.kernel_total == 1188274 && !a.missing && !a.extra);
}

static void test_missing_ones_are_explained_in_order(void)
{
	struct acctnote n = kernel_counts(12000, 100, 0, 0);
	const uint64_t trace[N_ACCT] = { 11990, 98, 0, 0 };
	struct account a;
	char s[512];

	n.has_recorder = 1;
	n.unseen = 3;
	strcpy(n.missed[0].prog, "bio_queue");
	n.missed[0].runs = 50;	/* not a completion's program */
	strcpy(n.missed[1].prog, "rq_complete");
	n.missed[1].runs = 1;
	n.n_missed = 2;
	n.at_edges = 3;
	account_compare(&n, trace, 4, 0, &a);
	account_sentence(&a, s, sizeof(s));
	CHECK(a.missing == 12 && a.missed_runs == 1 && a.unseen == 2 &&
	      a.in_loss == 4 && a.at_edges == 3 && a.unexplained == 2);
	CHECK(!strcmp(s, "holds 12,088 of the 12,100 completions the kernel counted, 12 missing: 1 the completion program was not run for (recursion misses), 2 unseen by the BPF program, up to 4 in loss windows, up to 3 completed as tracing began or ended, 2 not explained"));
}

static void test_explanations_stop_at_what_is_missing(void)
{
	struct acctnote n = kernel_counts(100, 0, 0, 0);
	const uint64_t trace[N_ACCT] = { 98, 0, 0, 0 };
	struct account a;
	char s[512];

	n.has_recorder = 1;
	n.unseen = 2;
	account_compare(&n, trace, 5000, 0, &a);
	account_sentence(&a, s, sizeof(s));
	CHECK(a.unseen == 2 && !a.in_loss && !a.unexplained);
	CHECK(!strcmp(s, "holds 98 of the 100 completions the kernel counted, 2 missing: 2 unseen by the BPF program"));
	account_compare(&n, (const uint64_t[N_ACCT]){ 90, 0, 0, 0 }, 5000, 0, &a);
	CHECK(a.unseen == 2 && a.in_loss == 8 && !a.unexplained);
}

/* requests the analysis judged to have lost their completions explain
 * what the loss windows and the edges do not */
static void test_inferred_holes_explain_the_rest(void)
{
	struct acctnote n = kernel_counts(100, 0, 0, 0);
	const uint64_t trace[N_ACCT] = { 40, 0, 0, 0 };
	struct account a;
	char s[512];

	n.has_recorder = 1;
	n.at_edges = 2;
	account_compare(&n, trace, 0, 58, &a);
	account_sentence(&a, s, sizeof(s));
	CHECK(a.missing == 60 && a.at_edges == 2 && a.inferred == 58 &&
	      !a.unexplained);
	CHECK(!strcmp(s, "holds 40 of the 100 completions the kernel counted, 60 missing: up to 2 completed as tracing began or ended, 58 judged lost by the trace's own evidence (inferred holes)"));
	/* no more than are missing */
	account_compare(&n, trace, 0, 500, &a);
	CHECK(a.inferred == 58 && !a.unexplained);
}

static void test_more_in_the_trace_says_why(void)
{
	struct acctnote n = kernel_counts(10, 0, 0, 0);
	const uint64_t trace[N_ACCT] = { 12, 0, 0, 0 };
	struct account a;
	char s[512];

	account_compare(&n, trace, 0, 0, &a);
	account_sentence(&a, s, sizeof(s));
	CHECK(a.extra == 2 && !a.missing);
	CHECK(!strcmp(s, "holds 12 completions, 2 more than the kernel counted (a request completed in parts counts each part)"));
}

static void test_old_kernels_classes(void)
{
	/* before 4.18 discards are writes; before 5.5 no flushes */
	struct acctnote n = kernel_counts(5, 30, 0, 0);
	const uint64_t trace[N_ACCT] = { 5, 20, 10, 7 };
	struct account a;

	n.kernel_known = 1u << ACCT_READ | 1u << ACCT_WRITE;
	account_compare(&n, trace, 0, 0, &a);
	CHECK(!a.missing && !a.extra && a.kernel_total == 35 &&
	      a.trace_total == 35);
	CHECK(a.compared == (1u << ACCT_READ | 1u << ACCT_WRITE));
}

int main(void)
{
	RUN_TEST(test_kernel_counts_round_trip);
	RUN_TEST(test_unknown_classes_are_question_marks);
	RUN_TEST(test_recorder_part_round_trips);
	RUN_TEST(test_largest_note_fits);
	RUN_TEST(test_anything_else_is_no_account_note);
	RUN_TEST(test_completion_classes_are_the_analysis_ones);
	RUN_TEST(test_agreeing_counts_say_so);
	RUN_TEST(test_missing_ones_are_explained_in_order);
	RUN_TEST(test_explanations_stop_at_what_is_missing);
	RUN_TEST(test_inferred_holes_explain_the_rest);
	RUN_TEST(test_more_in_the_trace_says_why);
	RUN_TEST(test_old_kernels_classes);
	return check_report();
}
