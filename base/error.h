/*
 * error.h: errors as values. A function that fails fills a struct
 * iow_error with one line (file, byte offset or event, what was wrong)
 * and returns -1; only main prints it and decides to exit.
 */
#ifndef IOWATCHER_ERROR_H
#define IOWATCHER_ERROR_H

#include <signal.h>

#define IOW_ERROR_LEN 512

struct iow_error {
	char msg[IOW_ERROR_LEN];
};

/* Fill err (if not NULL) with a printf-style message; returns -1. */
int iow_fail(struct iow_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * err's message with its control characters and the bytes that start no
 * UTF-8 character as \xNN (iow_fail does it; for messages written
 * otherwise): quoted input never breaks the line or the terminal.
 */
void iow_error_escape(struct iow_error *err);

/*
 * The SIGINT or SIGTERM that asked iowatcher to stop, 0 while none has:
 * set by the handler iow_catch_stop_signals installs (a handler can
 * reach nothing else). What may run
 * long or wait (reading, a tagger's answers) and the step that renames an
 * output into place look at it and fail, so that an interrupted run ends
 * with one line and leaves no half-written file.
 */
extern volatile sig_atomic_t iow_interrupted;

/*
 * SIGINT and SIGTERM set iow_interrupted, on which the stages stop and
 * clean up (no SA_RESTART: a blocked read returns to look at it); main
 * then says so and dies of the signal. A second one kills at once
 * (SA_RESETHAND), should a stage be slow to look. Not when ignored, as
 * in a script's background job. Recording installs its own while it
 * runs.
 */
void iow_catch_stop_signals(void);
/* The two, to block in a thread that leaves them to another. */
const sigset_t *iow_stop_signals(void);

#endif
