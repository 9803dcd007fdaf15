/* error.c: filling struct iow_error; the stop signals (error.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "utf8.h"

volatile sig_atomic_t iow_interrupted;

/*
 * A message often quotes its input (a line of a trace, a file name, a
 * tagger's answer): its control characters and the bytes that start no
 * UTF-8 character become \xNN, so that the message stays one line of
 * text a terminal shows as it is. Cut short at a character if the
 * escapes make it longer than the room.
 */
void iow_error_escape(struct iow_error *err)
{
	char *msg = err->msg;
	size_t size = sizeof(err->msg);
	char raw[IOW_ERROR_LEN];
	size_t i = 0, o = 0, len, n;

	len = strlen(msg);
	memcpy(raw, msg, len + 1);
	while (i < len) {
		unsigned char c = (unsigned char)raw[i];

		n = c >= 0x20 && c != 0x7f ? utf8_char_len(raw + i) : 0;
		if (n) {
			if (o + n >= size)
				break;
			memcpy(msg + o, raw + i, n);
			o += n;
			i += n;
			continue;
		}
		if (o + 4 >= size)
			break;
		snprintf(msg + o, 5, "\\x%02x", c);
		o += 4;
		i++;
	}
	msg[o] = 0;
}

int iow_fail(struct iow_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	iow_error_escape(err);
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
