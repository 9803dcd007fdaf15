/*
 * fuzz_props.h: what every output of a run that succeeded must hold,
 * whatever its input (issue #40): the summary JSON is valid JSON (no NaN
 * or infinity: json_parse takes neither) and passes --merge-summaries'
 * own checks of a summary's arithmetic (merge_check.c: no count that
 * wraps, no latency longer than the trace, no negative or non-finite
 * duration, area or time, no loss window outside the trace), and in every
 * latency p50 <= p90 <= p99 <= max and mean <= max, none negative; every
 * line of the events log (JSON lines) is valid JSON whose latencies are
 * neither negative nor longer than the trace. A violation aborts, so
 * libFuzzer keeps the input and test_fuzz_regress fails.
 */
#ifndef IOWATCHER_FUZZ_PROPS_H
#define IOWATCHER_FUZZ_PROPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "output/merge_check.h"
#include "output/summary.h"

static inline void fuzz_props_fail(const char *what, const char *text)
{
	fprintf(stderr, "fuzz: property: %s\n%.2000s\n", what, text ? text : "");
	abort();
}

static inline double fuzz_props_num(const struct json *v, const char *key)
{
	const struct json *n = json_get(v, key);

	return n && n->type == JSON_NUMBER ? n->number : 0;
}

/* Every latency object under v (one with "p50" and "max"). */
static inline void fuzz_props_latencies(const struct json *v, double dur_s,
					const char *text)
{
	size_t i;

	if (!v || (v->type != JSON_OBJECT && v->type != JSON_ARRAY))
		return;
	if (v->type == JSON_OBJECT && json_get(v, "p50") && json_get(v, "max")) {
		double p50 = fuzz_props_num(v, "p50"), p90 = fuzz_props_num(v, "p90");
		double p99 = fuzz_props_num(v, "p99"), max = fuzz_props_num(v, "max");
		double mean = fuzz_props_num(v, "mean");

		/* printed with three decimals: a rounding's room */
		if (p50 < 0 || mean < 0 || p50 > p90 || p90 > p99 ||
		    p99 > max || mean > max + 0.001 ||
		    max / 1e6 > dur_s + 2e-6)
			fuzz_props_fail("a latency's p50 <= p90 <= p99 <= max, mean <= max, 0 <= all, max within the trace", text);
	}
	for (i = 0; i < v->n; i++)
		fuzz_props_latencies(&v->items[i], dur_s, text);
}

/* The summary JSON of n traces. */
static inline void fuzz_props_summary(const struct trace_result *res, size_t n)
{
	struct iow_error err = { "" };
	const struct json *traces;
	struct json doc;
	const char *why;
	char *text = NULL;
	size_t len = 0, at, i;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	summary_print_json(f, res, n, 0);
	fclose(f);
	if (json_parse(text, len, &doc, &at, &why) < 0)
		fuzz_props_fail("the summary is valid JSON", text);
	if (merge_check_document("summary", &doc, &err) < 0)
		fuzz_props_fail(err.msg, text);
	traces = json_get(&doc, "traces");
	for (i = 0; traces && i < traces->n; i++)
		fuzz_props_latencies(json_get(&traces->items[i], "devices"),
				     fuzz_props_num(&traces->items[i], "duration_s"),
				     text);
	json_free(&doc);
	free(text);
}

/* The events log at path (JSON lines), of a trace dur_s long. */
static inline void fuzz_props_events(const char *path, double dur_s)
{
	static const char *const keys[] = { "q2d_us", "d2c_us", "q2c_us" };
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, k, at;
	ssize_t got;

	if (!f)
		return;
	while ((got = getline(&line, &cap, f)) > 0) {
		struct json row;
		const char *why;

		if (json_parse(line, (size_t)got, &row, &at, &why) < 0)
			fuzz_props_fail("an events log line is valid JSON", line);
		for (k = 0; k < 3; k++) {
			double us = fuzz_props_num(&row, keys[k]);

			if (us < 0 || us / 1e6 > dur_s + 2e-6)
				fuzz_props_fail("an events log latency is >= 0 and within the trace", line);
		}
		if (fuzz_props_num(&row, "time_s") < 0)
			fuzz_props_fail("an events log time is >= 0", line);
		json_free(&row);
	}
	free(line);
	fclose(f);
}

#endif
