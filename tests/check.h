/*
 * check.h: a small unit-test harness. Each test is a function; CHECK
 * records a failure with its line and goes on; RUN_TEST counts a test as
 * passed when none of its checks failed. check_report() prints the closing
 * line tests/run.sh adds up: "N passed, N failed".
 */
#ifndef IOWATCHER_CHECK_H
#define IOWATCHER_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_tests_passed, check_tests_failed, check_failures_now;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "  %s:%d: check failed: %s\n", \
			__FILE__, __LINE__, #cond); \
		check_failures_now++; \
	} \
} while (0)

#define CHECK_EQ_INT(a, b) do { \
	long long check_a = (long long)(a), check_b = (long long)(b); \
	if (check_a != check_b) { \
		fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n", \
			__FILE__, __LINE__, #a, check_a, #b, check_b); \
		check_failures_now++; \
	} \
} while (0)

#define CHECK_NEAR(a, b, tol) do { \
	double check_a = (a), check_b = (b); \
	if (!(check_a - check_b <= (tol) && check_b - check_a <= (tol))) { \
		fprintf(stderr, "  %s:%d: %s == %g, expected %g (+-%g)\n", \
			__FILE__, __LINE__, #a, check_a, check_b, \
			(double)(tol)); \
		check_failures_now++; \
	} \
} while (0)

#define RUN_TEST(fn) do { \
	check_failures_now = 0; \
	fn(); \
	if (check_failures_now) { \
		check_tests_failed++; \
		printf("FAIL %s\n", #fn); \
	} else { \
		check_tests_passed++; \
		printf("ok   %s\n", #fn); \
	} \
} while (0)

static inline int check_report(void)
{
	printf("%d passed, %d failed\n", check_tests_passed,
	       check_tests_failed);
	return check_tests_failed ? 1 : 0;
}

#endif
