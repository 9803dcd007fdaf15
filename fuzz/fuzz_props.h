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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

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

/* ---- the HTML report (-o NAME.html) ---- */

/* a and b the same JSON: types, numbers, strings, members in order */
static inline int fuzz_props_same(const struct json *a, const struct json *b)
{
	size_t i;

	if (a->type != b->type || a->n != b->n)
		return 0;
	switch (a->type) {
	case JSON_BOOL:
		return a->boolean == b->boolean;
	case JSON_NUMBER:
		return a->number == b->number;
	case JSON_STRING:
		return !strcmp(a->string, b->string);
	case JSON_OBJECT:
		for (i = 0; i < a->n; i++)
			if (strcmp(a->keys[i], b->keys[i]))
				return 0;
		/* fall through */
	case JSON_ARRAY:
		for (i = 0; i < a->n; i++)
			if (!fuzz_props_same(&a->items[i], &b->items[i]))
				return 0;
		return 1;
	default:
		return 1;
	}
}

/* The text of <script id="ID" ...>, NUL-ended in place; NULL if none. */
static inline char *fuzz_props_script(char *page, const char *id)
{
	char open[96], *at, *end;

	snprintf(open, sizeof(open), "<script id=\"%s\" type=\"", id);
	at = strstr(page, open);
	if (!at || !(at = strchr(at + strlen(open), '>')))
		return NULL;
	at++;
	end = strstr(at, "</script>");
	if (!end)
		return NULL;
	*end = '\0';
	return at;
}

/* base64 text decoded in place: its length, or -1 */
static inline long fuzz_props_base64(char *text)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char *out = (unsigned char *)text;
	unsigned long bits = 0;
	long n = 0;
	int have = 0;
	const char *p, *d;

	for (p = text; *p && *p != '='; p++) {
		if (!(d = strchr(digits, *p)) || !*p)
			return -1;
		bits = (bits << 6) | (unsigned long)(d - digits);
		have += 6;
		if (have >= 8) {
			have -= 8;
			out[n++] = (unsigned char)(bits >> have);
		}
	}
	return n;
}

struct fuzz_report_blob {
	const unsigned char *raw;
	size_t len;
	const char *text;
};

/* The ref's float32 (size 4) or float64 (8) values into *out (malloc'd). */
static inline size_t fuzz_props_floats(const struct fuzz_report_blob *b,
				       const struct json *ref, size_t size,
				       double **out)
{
	int ok = 1;	/* json_get_whole clears it */
	uint64_t o = json_get_whole(ref, "o", &ok);
	uint64_t n = json_get_whole(ref, "n", &ok);
	size_t i;

	if (!ok || o % size || n > b->len / size ||
	    o > b->len - n * size)
		fuzz_props_fail("the report: an array outside its block", b->text);
	*out = malloc(n ? n * sizeof(double) : 1);
	if (!*out)
		abort();
	for (i = 0; i < n; i++) {
		if (size == 4) {
			float f;

			memcpy(&f, b->raw + o + 4 * i, 4);
			(*out)[i] = f;
		} else {
			memcpy(&(*out)[i], b->raw + o + 8 * i, 8);
		}
	}
	return (size_t)n;
}

/* One level of a trace's bins: I/Os, bytes, D2C n, sum, max per op;
 * depth area, seeks, time lost. */
static inline void fuzz_props_level(const struct fuzz_report_blob *b,
				    const struct json *lv, double longest_ns)
{
	static const char *const keys[] = { "depth", "seeks", "lossy" };
	const struct json *ops = json_get(lv, "ops");
	double width_ns = fuzz_props_num(lv, "w") * 1e9, *v[5];
	size_t n[5], i, k, op;

	for (op = 0; ops && op < ops->n; op++) {
		const struct json *refs = &ops->items[op];

		if (refs->type != JSON_ARRAY || refs->n != 5)
			fuzz_props_fail("the report: a bin's five numbers", b->text);
		for (k = 0; k < 5; k++) {
			n[k] = fuzz_props_floats(b, &refs->items[k], 4, &v[k]);
			if (n[k] != n[0])
				fuzz_props_fail("the report: a level's arrays of one length", b->text);
			for (i = 0; i < n[k]; i++)
				if (!(v[k][i] >= 0) || isinf(v[k][i]))
					fuzz_props_fail("the report: a bin's I/Os, bytes or D2C negative, NaN or infinite", b->text);
		}
		for (i = 0; i < n[0]; i++)
			if (v[4][i] > v[3][i] * (1 + 1e-6) + 1 ||
			    v[4][i] > longest_ns * (1 + 1e-6) + 1e3)
				fuzz_props_fail("the report: a bin's D2C max within its sum and the trace", b->text);
		for (k = 0; k < 5; k++)
			free(v[k]);
	}
	for (k = 0; k < 3; k++) {
		n[0] = fuzz_props_floats(b, json_get(lv, keys[k]), 4, &v[0]);
		for (i = 0; i < n[0]; i++)
			if (!(v[0][i] >= 0) || isinf(v[0][i]) ||
			    (k == 2 && v[0][i] > width_ns * (1 + 1e-6) + 1))
				fuzz_props_fail("the report: a bin's depth, seeks or time lost negative, NaN, infinite or (lost) longer than the bin", b->text);
		free(v[0]);
	}
}

/* A graph's series: never infinite (NaN is a gap); latencies, rates,
 * sizes and shares never negative, a share at most 100, a latency
 * within the trace. */
static inline void fuzz_props_series(const struct fuzz_report_blob *b,
				     const struct json *g, const struct json *s,
				     double longest_ns)
{
	const struct json *axis = json_get(g, "axis"), *d = json_get(s, "d");
	const char *ax = axis && axis->type == JSON_STRING ? axis->string : "";
	int signed_ok = strcmp(ax, "ns") && strcmp(ax, "mbps") &&
			strcmp(ax, "bytes") && strcmp(ax, "pct");
	double *v;
	size_t i, k, n;

	for (k = 0; k < (d ? d->n : 2); k++) {
		int is_y = d || k == 1;

		n = d ? fuzz_props_floats(b, &d->items[k], 4, &v) :
			fuzz_props_floats(b, json_get(s, k ? "y" : "x"), 8, &v);
		for (i = 0; i < n; i++) {
			if (isinf(v[i]))
				fuzz_props_fail("the report: an infinity in a graph", b->text);
			if (!is_y || isnan(v[i]))
				continue;
			if ((!signed_ok && v[i] < 0) ||
			    (!strcmp(ax, "pct") && v[i] > 100 + 1e-3) ||
			    (!strcmp(ax, "ns") &&
			     v[i] > longest_ns * (1 + 1e-6) + 1e3))
				fuzz_props_fail("the report: a graph's latency, rate, size or share negative, or out of its range", b->text);
		}
		free(v);
	}
}

/*
 * The report at path, of the n traces in res: its document is valid
 * JSON (no NaN or infinity), its summary the one summary_print_json
 * prints, and its binary block holds every array the document names,
 * with tests/report_props.py's properties.
 */
static inline void fuzz_props_report(const char *path,
				     const struct trace_result *res, size_t n)
{
	struct json doc, alone;
	struct fuzz_report_blob b;
	const struct json *traces, *graphs, *sum;
	const char *why;
	char *page = NULL, *doc_text, *blob_text, *text = NULL;
	unsigned char *raw;
	size_t cap = 0, len = 0, at, i, j, k;
	uLongf raw_len;
	long zlen;
	double longest_ns = 0;
	int ok = 1;	/* json_get_whole clears it */
	FILE *f = fopen(path, "r");

	if (!f)
		fuzz_props_fail("the report is readable", path);
	if (getdelim(&page, &cap, '\0', f) < 0)
		fuzz_props_fail("the report is readable", path);
	fclose(f);
	doc_text = fuzz_props_script(page, "iow-doc");
	blob_text = doc_text ? fuzz_props_script(doc_text + strlen(doc_text) + 1, "iow-blob") : NULL;
	if (!doc_text || !blob_text)
		fuzz_props_fail("the report holds its document and block", page);
	if (json_parse(doc_text, strlen(doc_text), &doc, &at, &why) < 0)
		fuzz_props_fail("the report's document is valid JSON", doc_text);
	f = open_memstream(&text, &len);
	if (!f)
		abort();
	summary_print_json(f, res, n, 0);
	fclose(f);
	if (json_parse(text, len, &alone, &at, &why) < 0)
		fuzz_props_fail("the summary is valid JSON", text);
	sum = json_get(&doc, "summary");
	if (!sum || !fuzz_props_same(sum, &alone))
		fuzz_props_fail("the report's summary is --summary=json's", doc_text);
	traces = json_get(sum, "traces");
	for (i = 0; traces && i < traces->n; i++)
		longest_ns = fmax(longest_ns, fuzz_props_num(&traces->items[i], "duration_s") * 1e9);
	/* the block */
	raw_len = (uLongf)json_get_whole(json_get(&doc, "blob"), "raw", &ok);
	zlen = fuzz_props_base64(blob_text);
	raw = malloc(raw_len ? raw_len : 1);
	if (!raw)
		abort();
	{
		uLongf got = raw_len;

		if (!ok || zlen < 0 ||
		    uncompress(raw, &got, (const Bytef *)blob_text,
			       (uLong)zlen) != Z_OK || got != raw_len)
			fuzz_props_fail("the report's block inflates to the size its document says", doc_text);
	}
	b.raw = raw;
	b.len = raw_len;
	b.text = doc_text;
	traces = json_get(&doc, "traces");
	for (i = 0; traces && i < traces->n; i++) {
		const struct json *levels = json_get(&traces->items[i], "levels");

		for (j = 0; levels && j < levels->n; j++)
			fuzz_props_level(&b, &levels->items[j], longest_ns);
	}
	graphs = json_get(&doc, "graphs");
	for (i = 0; graphs && i < graphs->n; i++) {
		const struct json *panels = json_get(&graphs->items[i], "panels");

		for (j = 0; panels && j < panels->n; j++) {
			const struct json *series = json_get(&panels->items[j], "series");

			for (k = 0; series && k < series->n; k++)
				fuzz_props_series(&b, &graphs->items[i],
						  &series->items[k], longest_ns);
		}
	}
	free(raw);
	json_free(&alone);
	json_free(&doc);
	free(text);
	free(page);
}

#endif
