/*
 * merge_check.c: a summary's arithmetic, checked before --merge-summaries
 * adds it to the others. A summary is often another host's file, edited,
 * damaged or made up: what iowatcher could not have written is refused
 * with one line naming the file, where in it and which field, never
 * merged into figures (a histogram count of 2^64 - 1 that wraps the total
 * back to "n", a sum of latencies above n times their maximum, a maximum
 * outside its own histogram or longer than the trace, a negative or
 * infinite duration, a device number that aliases another).
 *
 * What holds in every summary iowatcher writes (spec: io-accounting.md):
 * - durations, times and areas are finite and not negative; a trace is
 *   shorter than MERGE_MAX_TRACE_NS (times are 64-bit nanoseconds);
 * - lossy time and every loss window lie inside the trace's duration;
 * - counts of I/Os, queued, merges and timed latencies are at most the
 *   trace's events (each needs one event at least), and the events fewer
 *   than 2^53 (so that the sums of many summaries neither wrap nor lose
 *   ones in a double);
 * - bytes are at most 2^32 per I/O (a request's size is 32 bits);
 * - a latency's histogram counts add up to "n" without overflowing; its
 *   "sum_ns" lies between the lowest and highest values its buckets
 *   allow (so between n times the lowest bucket and n times "max_ns");
 *   "max_ns" lies inside the highest bucket that has a count, and is no
 *   longer than the trace;
 * - the queue-depth area is at most events times the duration (the depth
 *   is never more than the I/Os queued);
 * - "MAJOR,MINOR" is two decimal numbers, the major below 4096 and the
 *   minor below 2^20 (the kernel's dev_t in a trace), so no two devices
 *   alias.
 * Durations are written with six decimals: comparisons with them allow a
 * microsecond; sums of latencies are added in doubles: a part in 10^9.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/histogram.h"
#include "base/json.h"
#include "merge_check.h"

#define MAX_EVENTS	(1ull << 53)
#define MAX_REQ_BYTES	(1ull << 32)
#define SLACK_S		1e-6

struct check {
	const char *path;
	char where[200];
	struct iow_error *err;
	uint64_t events;
	double duration_s;
};

static const char rewrite[] = "not a summary iowatcher writes; write it again with iowatcher --summary=json";

static int refuse(struct check *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct check *c, const char *field, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return iow_fail(c->err, "%s: %s%s\"%s\" %s: %s", c->path, c->where,
			c->where[0] ? ": " : "", field, what, rewrite);
}

/* key's number, finite and not negative (0 and -1 if not). */
static int seconds(struct check *c, const struct json *v, const char *key,
		   double *out)
{
	const struct json *n = json_get(v, key);

	*out = 0;
	if (!n)
		return 0;	/* merge.c says what is missing */
	if (n->type != JSON_NUMBER)
		return refuse(c, key, "is not a number");
	if (!isfinite(n->number))
		return refuse(c, key, "is not finite");
	if (n->number < 0)
		return refuse(c, key, "is %g, below 0", n->number);
	*out = n->number;
	return 0;
}

/* key's whole number, at most max (what is named by max_what). */
static int count(struct check *c, const struct json *v, const char *key,
		 uint64_t max, const char *max_what, uint64_t *out)
{
	const struct json *n = json_get(v, key);

	if (out)
		*out = 0;
	if (!n)
		return 0;
	if (!n->is_whole)
		return refuse(c, key, "is not a whole number from 0");
	if (n->whole > max)
		return refuse(c, key, "is %llu, more than %s (%llu)",
			      (unsigned long long)n->whole, max_what,
			      (unsigned long long)max);
	if (out)
		*out = n->whole;
	return 0;
}

/* ---- latencies ---- */

static int check_latency(struct check *c, const struct json *v,
			 const char *name)
{
	const struct json *h = json_get(v, "hist");
	uint64_t n = 0, sum, max, total = 0;
	long double low_sum = 0, high_sum = 0, slack;
	size_t i, top = 0, len = strlen(c->where);
	const struct json *sn = json_get(v, "sum_ns");
	const struct json *mn = json_get(v, "max_ns");

	if (!v || v->type != JSON_OBJECT || !h || h->type != JSON_ARRAY ||
	    !sn || !sn->is_whole || !mn || !mn->is_whole)
		return 0;	/* merge.c says what is missing */
	snprintf(c->where + len, sizeof(c->where) - len, "%s%s",
		 len ? ", " : "", name);
	if (count(c, v, "n", c->events, "the trace's events", &n) < 0)
		return -1;
	sum = sn->whole;
	max = mn->whole;
	for (i = 0; i < h->n; i++) {
		const struct json *p = &h->items[i];
		uint64_t k, cnt;

		if (p->type != JSON_ARRAY || p->n != 2 ||
		    !p->items[0].is_whole || !p->items[1].is_whole ||
		    p->items[0].whole >= LAT_SUM_BUCKETS)
			return 0;	/* merge.c says so */
		k = p->items[0].whole;
		cnt = p->items[1].whole;
		if (total + cnt < total)
			return refuse(c, "hist",
				      "counts add up past 2^64 at bucket %llu (a count of %llu): they wrap",
				      (unsigned long long)k,
				      (unsigned long long)cnt);
		total += cnt;
		if (cnt && k >= top)
			top = (size_t)k + 1;
		low_sum += (long double)cnt *
			   hist_bucket_low((size_t)k, LAT_SUM_BITS);
		high_sum += (long double)cnt *
			    (hist_bucket_high((size_t)k, LAT_SUM_BITS) - 1);
	}
	if (total != n)
		return 0;	/* merge.c says so */
	if (!n) {
		if (sum || max)
			return refuse(c, sum ? "sum_ns" : "max_ns",
				      "is %llu, with nothing timed (\"n\" is 0)",
				      (unsigned long long)(sum ? sum : max));
		c->where[len] = 0;
		return 0;
	}
	top--;
	if (max < hist_bucket_low(top, LAT_SUM_BITS) ||
	    max >= hist_bucket_high(top, LAT_SUM_BITS))
		return refuse(c, "max_ns",
			      "is %llu, outside the highest bucket its histogram counts (%llu to %llu ns)",
			      (unsigned long long)max,
			      (unsigned long long)hist_bucket_low(top, LAT_SUM_BITS),
			      (unsigned long long)hist_bucket_high(top, LAT_SUM_BITS) - 1);
	if ((double)max / 1e9 > c->duration_s + SLACK_S)
		return refuse(c, "max_ns",
			      "is %llu, longer than the trace's %.6f s (\"duration_s\")",
			      (unsigned long long)max, c->duration_s);
	if ((long double)max * n < high_sum)
		high_sum = (long double)max * n;
	slack = 2 + high_sum * 1e-9L;
	if ((long double)sum < low_sum - slack ||
	    (long double)sum > high_sum + slack)
		return refuse(c, "sum_ns",
			      "is %llu, outside what %llu latencies of its histogram and \"max_ns\" add up to (%.0Lf to %.0Lf ns)",
			      (unsigned long long)sum, (unsigned long long)n,
			      low_sum, high_sum);
	c->where[len] = 0;
	return 0;
}

static int check_classes(struct check *c, const struct json *d)
{
	static const char *const metrics[] = { "d2c_us", "q2c_us", "q2d_us" };
	const struct json *by = json_get(d, "latency_by_class");
	size_t i, k, len = strlen(c->where);
	char name[64];

	for (i = 0; by && by->type == JSON_OBJECT && i < by->n; i++)
		for (k = 0; k < 3; k++) {
			snprintf(name, sizeof(name), "%.20s %s", by->keys[i],
				 metrics[k]);
			if (check_latency(c, json_get(&by->items[i], metrics[k]),
					  name) < 0)
				return -1;
			c->where[len] = 0;
		}
	return check_latency(c, json_get(json_get(d, "flush"), "d2c_us"),
			     "flush d2c_us");
}

/* ---- devices ---- */

/* "MAJOR,MINOR": decimal digits only, in the ranges of a trace's dev_t. */
static int check_device_name(struct check *c, const struct json *name)
{
	const char *s;
	unsigned long long major = 0, minor = 0;
	int digits = 0;

	if (!name || name->type != JSON_STRING)
		return 0;	/* merge.c says so */
	s = name->string;
	for (; *s >= '0' && *s <= '9' && major < MAX_REQ_BYTES; s++, digits++)
		major = major * 10 + (unsigned)(*s - '0');
	if (!digits || *s++ != ',')
		goto bad;
	for (digits = 0; *s >= '0' && *s <= '9' && minor < MAX_REQ_BYTES;
	     s++, digits++)
		minor = minor * 10 + (unsigned)(*s - '0');
	if (!digits || *s)
		goto bad;
	if (major >= 1u << 12 || minor >= 1u << 20)
		return refuse(c, "device",
			      "is \"%.40s\": a major of 0 to 4095 and a minor of 0 to 1048575 (a trace's device numbers) are all there are, and others would alias them",
			      name->string);
	return 0;
bad:
	return refuse(c, "device", "is \"%.40s\", not \"MAJOR,MINOR\" in decimal",
		      name->string);
}

/* A class's {"ios": N, "bytes": N}. */
static int check_ios_bytes(struct check *c, const struct json *v,
			   const char *class)
{
	size_t len = strlen(c->where);
	uint64_t ios;
	int rc;

	if (!v || v->type != JSON_OBJECT)
		return 0;
	if (class[0])
		snprintf(c->where + len, sizeof(c->where) - len, ", %s", class);
	rc = count(c, v, "ios", c->events, "the trace's events", &ios);
	if (rc == 0)
		rc = count(c, v, "bytes", ios >= MAX_REQ_BYTES ? UINT64_MAX :
			   ios * MAX_REQ_BYTES,
			   "4 GiB for each of its \"ios\"", NULL);
	if (rc == 0)
		c->where[len] = 0;
	return rc;
}

static int check_device(struct check *c, const struct json *d)
{
	static const char *const dirs[] = { "queued", "merges" };
	static const char *const plain[] = { "empty_completions", "seeks",
		"lost_in_flight", "unseen_completions", "orphan_requests",
		"unmatched_completions" };
	const struct json *name = json_get(d, "device");
	size_t len = strlen(c->where), i, k;
	double area;
	int op;

	if (check_device_name(c, name) < 0)
		return -1;
	if (name && name->type == JSON_STRING)
		snprintf(c->where + len, sizeof(c->where) - len,
			 ", device %.40s", name->string);
	for (op = 0; op < N_OPS; op++)
		if (check_ios_bytes(c, json_get(d, io_op_name(op)),
				    io_op_name(op)) < 0)
			return -1;
	for (i = 0; i < 2; i++) {
		const struct json *v = json_get(d, dirs[i]);
		static const char *const rw[] = { "read", "write" };

		for (k = 0; v && k < 2; k++) {
			char key[32];

			snprintf(key, sizeof(key), "%s.%s", dirs[i], rw[k]);
			if (json_get(v, rw[k]) && json_get(v, rw[k])->is_whole &&
			    json_get(v, rw[k])->whole > c->events)
				return refuse(c, key, "is %llu, more than the trace's events (%llu)",
					      (unsigned long long)json_get(v, rw[k])->whole,
					      (unsigned long long)c->events);
		}
	}
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (count(c, d, plain[i], c->events, "the trace's events",
			  NULL) < 0)
			return -1;
	if (seconds(c, d, "queue_depth_area_s", &area) < 0)
		return -1;
	if (area > (double)c->events * (c->duration_s + SLACK_S) + SLACK_S)
		return refuse(c, "queue_depth_area_s",
			      "is %g, more than the trace's events (%llu) queued for all its %.6f s",
			      area, (unsigned long long)c->events, c->duration_s);
	if (check_classes(c, d) < 0)
		return -1;
	c->where[len] = 0;
	return 0;
}

/* ---- traces ---- */

static int check_loss(struct check *c, const struct json *t)
{
	const struct json *w = json_get(t, "loss_windows");
	const struct json *ended = json_get(t, "files_ended_early");
	size_t i, len = strlen(c->where);
	double from, to, at;

	for (i = 0; w && w->type == JSON_ARRAY && i < w->n; i++) {
		snprintf(c->where + len, sizeof(c->where) - len,
			 ", loss window %zu", i + 1);
		if (seconds(c, &w->items[i], "from_s", &from) < 0 ||
		    seconds(c, &w->items[i], "to_s", &to) < 0 ||
		    count(c, &w->items[i], "events", MAX_EVENTS,
			  "any trace holds", NULL) < 0)
			return -1;
		if (to < from)
			return refuse(c, "to_s", "is %.6f, before its \"from_s\" (%.6f)",
				      to, from);
		if (to > c->duration_s + SLACK_S)
			return refuse(c, "to_s", "is %.6f, after the trace's end (\"duration_s\" %.6f)",
				      to, c->duration_s);
	}
	for (i = 0; ended && ended->type == JSON_ARRAY && i < ended->n; i++) {
		snprintf(c->where + len, sizeof(c->where) - len,
			 ", file ended early %zu", i + 1);
		if (seconds(c, &ended->items[i], "at_s", &at) < 0)
			return -1;
		if (at > c->duration_s + SLACK_S)
			return refuse(c, "at_s", "is %.6f, after the trace's end (\"duration_s\" %.6f)",
				      at, c->duration_s);
	}
	c->where[len] = 0;
	return 0;
}

static int check_trace(struct check *c, const struct json *t)
{
	const struct json *devices = json_get(t, "devices");
	const struct json *tags = json_get(t, "tags");
	double lossy, bin;
	size_t i, len = strlen(c->where);

	c->events = 0;
	c->duration_s = 0;
	if (count(c, t, "events", MAX_EVENTS - 1, "any trace holds",
		  &c->events) < 0 ||
	    count(c, t, "notes", MAX_EVENTS - 1, "any trace holds", NULL) < 0 ||
	    count(c, t, "lost_events", MAX_EVENTS - 1, "any trace loses",
		  NULL) < 0 ||
	    count(c, t, "lost_unlocated", MAX_EVENTS - 1, "any trace loses",
		  NULL) < 0 ||
	    seconds(c, t, "duration_s", &c->duration_s) < 0 ||
	    seconds(c, t, "lossy_s", &lossy) < 0 ||
	    seconds(c, t, "bin_width_s", &bin) < 0)
		return -1;
	if (c->duration_s * 1e9 > (double)MERGE_MAX_TRACE_NS)
		return refuse(c, "duration_s", "is %g s, longer than any trace (%.0f s)",
			      c->duration_s, (double)MERGE_MAX_TRACE_NS / 1e9);
	if (bin * 1e9 > (double)MERGE_MAX_TRACE_NS)
		return refuse(c, "bin_width_s", "is %g s, longer than any trace (%.0f s)",
			      bin, (double)MERGE_MAX_TRACE_NS / 1e9);
	if (lossy > c->duration_s + SLACK_S)
		return refuse(c, "lossy_s", "is %.6f s, longer than the trace (\"duration_s\" %.6f)",
			      lossy, c->duration_s);
	if (check_loss(c, t) < 0)
		return -1;
	for (i = 0; devices && devices->type == JSON_ARRAY && i < devices->n;
	     i++)
		if (check_device(c, &devices->items[i]) < 0)
			return -1;
	for (i = 0; tags && tags->type == JSON_ARRAY && i < tags->n; i++) {
		snprintf(c->where + len, sizeof(c->where) - len, ", tag %zu",
			 i + 1);
		if (check_ios_bytes(c, &tags->items[i], "") < 0)
			return -1;
	}
	c->where[len] = 0;
	return 0;
}

int merge_check_document(const char *path, const struct json *doc,
			 struct iow_error *err)
{
	const struct json *traces = json_get(doc, "traces");
	struct check c;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.path = path;
	c.err = err;
	for (i = 0; traces && traces->type == JSON_ARRAY && i < traces->n; i++) {
		snprintf(c.where, sizeof(c.where), "trace %zu", i + 1);
		if (check_trace(&c, &traces->items[i]) < 0)
			return -1;
	}
	return 0;
}
