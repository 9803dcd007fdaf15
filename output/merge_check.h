/*
 * merge_check.h: a --summary=json document's arithmetic, checked before
 * --merge-summaries merges it (merge_check.c says what must hold).
 */
#ifndef IOWATCHER_MERGE_CHECK_H
#define IOWATCHER_MERGE_CHECK_H

#include <stdint.h>

#include "base/error.h"

struct json;

/* The longest trace: times are 64-bit nanoseconds, and the durations of
 * many merged summaries add up (2^62 ns: 146 years). */
#define MERGE_MAX_TRACE_NS	(1ull << 62)

/*
 * 0 when every trace of doc (read from path) holds numbers iowatcher
 * could have written; else -1 with err naming path, the trace, device
 * and class, the field and what is wrong with it.
 */
int merge_check_document(const char *path, const struct json *doc,
			 struct iow_error *err);

#endif
