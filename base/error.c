/* error.c: filling struct iow_error; the stop signals (error.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

volatile sig_atomic_t iow_interrupted;

int iow_fail(struct iow_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static sigset_t stop_set;	/* SIGINT, SIGTERM */

static void iow_on_stop_signal(int sig)
{
	iow_interrupted = sig;
}

void iow_catch_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = iow_on_stop_signal,
				.sa_flags = SA_RESETHAND }, old;
	size_t i;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&stop_set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaddset(&stop_set, sigs[i]);
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

const sigset_t *iow_stop_signals(void)
{
	return &stop_set;
}
