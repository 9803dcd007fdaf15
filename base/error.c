/* error.c: filling struct iow_error. */
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
