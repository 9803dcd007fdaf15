/*
 * merge.c: --merge-summaries. Each --summary=json document is read back
 * into one merged analysis, as if its traces had run one after another:
 * counts, bytes, latency sums and histograms add up, maxima are the
 * largest, loss windows keep their place shifted by the durations before
 * them; devices merge when their numbers match, tags when their labels
 * do. The merged analysis is printed by summary.c like any other, so a
 * merge is a summary again and merges again.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/vec.h"
#include "reader/blktrace.h"
#include "analysis/histogram.h"
#include "merge.h"
#include "merge_check.h"
#include "summary.h"

/* The merge so far, and where in which file it is reading (for errors). */
struct merge {
	struct trace_result r;
	size_t cap_devices, cap_tags, cap_loss;
	uint64_t offset_ns;	/* the durations merged so far */
	int concurrent;		/* side by side: nothing shifted, the longest
				 * duration and span, not their sum */
	double duration_s;	/* the trace being read's */
	const char *path;
	char where[160];	/* "trace 2, device 8,0" */
	struct iow_error *err;
};

static const char redo[] = "write it again with this iowatcher's --summary=json";

static int bad(struct merge *m, const char *what)
{
	return iow_fail(m->err, "%s: %s%s%s", m->path, m->where,
			m->where[0] ? ": " : "", what);
}

static uint64_t whole(struct merge *m, const struct json *v, const char *key,
		      int *ok)
{
	int here = 1;
	uint64_t n = json_get_whole(v, key, &here);

	if (!here && *ok) {
		char what[96];

		snprintf(what, sizeof(what), "\"%s\" is missing or not a whole number", key);
		bad(m, what);
		*ok = 0;
	}
	return n;
}

/* A count a summary from before it was written lacks: 0 then. */
static uint64_t whole_or_0(struct merge *m, const struct json *v,
			   const char *key, int *ok)
{
	return json_get(v, key) ? whole(m, v, key, ok) : 0;
}

static double number(struct merge *m, const struct json *v, const char *key,
		     int *ok)
{
	const struct json *n = json_get(v, key);

	if ((!n || n->type != JSON_NUMBER) && *ok) {
		char what[96];

		snprintf(what, sizeof(what), "\"%s\" is missing or not a number", key);
		bad(m, what);
		*ok = 0;
	}
	return n && n->type == JSON_NUMBER ? n->number : 0;
}

static uint64_t to_ns(double s)
{
	return s > 0 ? (uint64_t)llround(s * 1e9) : 0;
}

/* items with room for item n (elem bytes), zeroed; NULL out of memory
 * (items then as they were). */
static void *room_for(void *items, size_t *cap, size_t n, size_t elem)
{
	char *bigger = vec_grow(items, cap, n + 1, elem, 8);

	if (bigger)
		memset(bigger + n * elem, 0, elem);
	return bigger;
}

/* ---- latencies ---- */

/* h's [index, count] pairs into counts; their total in *total. */
static int add_histogram(struct merge *m, const struct json *h,
			 uint64_t *counts, uint64_t *total)
{
	size_t i;

	*total = 0;
	for (i = 0; i < h->n; i++) {
		const struct json *p = &h->items[i];

		if (p->type != JSON_ARRAY || p->n != 2 ||
		    !p->items[0].is_whole || !p->items[1].is_whole ||
		    p->items[0].whole >= LAT_SUM_BUCKETS)
			return bad(m, "\"hist\" holds something other than [index, count] pairs of the scheme's buckets");
		counts[p->items[0].whole] += p->items[1].whole;
		*total += p->items[1].whole;
	}
	return 0;
}

static int ensure_hist(uint64_t **h)
{
	if (!*h)
		*h = calloc(LAT_SUM_BUCKETS, sizeof(**h));
	return *h ? 0 : -1;
}

/* One class's latency object (n, sum_ns, max_ns, hist) into l as op's. */
static int add_latency(struct merge *m, struct latency_summary *l, int op,
		       const struct json *v, const char *metric)
{
	const struct json *h = json_get(v, "hist");
	uint64_t n, sum, max, counted;
	int ok = 1;
	size_t len = strlen(m->where);

	snprintf(m->where + len, sizeof(m->where) - len, ", %s %s",
		 io_op_name(op), metric);
	if (!v || v->type != JSON_OBJECT)
		return bad(m, "not a latency object");
	if (!h || h->type != JSON_ARRAY) {
		char what[300];

		snprintf(what, sizeof(what), "no latency histogram (\"hist\"): a summary from an older iowatcher; %s", redo);
		return bad(m, what);
	}
	n = whole(m, v, "n", &ok);
	sum = whole(m, v, "sum_ns", &ok);
	max = whole(m, v, "max_ns", &ok);
	if (!ok)
		return -1;
	/* a class with nothing timed keeps its histograms unmade */
	if (n && (ensure_hist(&l->hist) < 0 || ensure_hist(&l->hist_op[op]) < 0))
		return bad(m, "out of memory");
	if (!n && h->n)
		return bad(m, "its histogram holds values, its \"n\" says 0");
	if (n && (add_histogram(m, h, l->hist_op[op], &counted) < 0 ||
		  add_histogram(m, h, l->hist, &counted) < 0))
		return -1;
	if (n && counted != n) {
		char what[160];

		snprintf(what, sizeof(what), "its histogram holds %llu values, its \"n\" says %llu",
			 (unsigned long long)counted, (unsigned long long)n);
		return bad(m, what);
	}
	l->n += n;
	l->n_op[op] += n;
	l->sum_ns += (double)sum;
	l->sum_op_ns[op] += (double)sum;
	if (max > l->max_ns)
		l->max_ns = max;
	if (max > l->max_op_ns[op])
		l->max_op_ns[op] = max;
	m->where[len] = 0;
	return 0;
}

static int op_of(const char *name)
{
	int op;

	for (op = 0; op < N_OPS; op++)
		if (!strcmp(io_op_name(op), name))
			return op;
	return -1;
}

/* "latency_by_class": each class's D2C, Q2C and Q2D. */
static int add_classes(struct merge *m, struct device_stats *d,
		       const struct json *by_class)
{
	static const char *const metrics[] = { "d2c_us", "q2c_us", "q2d_us" };
	struct latency_summary *into[] = { &d->d2c, &d->q2c, &d->q2d };
	size_t i, k;

	if (!by_class || by_class->type != JSON_OBJECT)
		return bad(m, "no \"latency_by_class\" object");
	for (i = 0; i < by_class->n; i++) {
		int op = op_of(by_class->keys[i]);

		if (op < 0)
			return bad(m, "\"latency_by_class\" names a class iowatcher does not know");
		for (k = 0; k < 3; k++)
			if (add_latency(m, into[k], op,
					json_get(&by_class->items[i], metrics[k]),
					metrics[k]) < 0)
				return -1;
	}
	return 0;
}

/* ---- devices ---- */

static struct device_stats *device_of(struct merge *m, uint32_t device)
{
	struct analysis *a = &m->r.analysis;
	struct device_stats *d;
	size_t i;

	for (i = 0; i < a->n_devices; i++)
		if (a->devices[i].device == device)
			return &a->devices[i];
	d = room_for(a->devices, &m->cap_devices, a->n_devices, sizeof(*d));
	if (!d)
		return NULL;
	a->devices = d;
	a->devices[a->n_devices].device = device;
	a->devices[a->n_devices].has_io = 1;
	return &a->devices[a->n_devices++];
}

/*
 * The device's own span and its time in loss windows (the trace's, from
 * a summary that did not say them): added one after another, the
 * longest side by side.
 */
static int add_span(struct merge *m, uint32_t device, const struct json *v)
{
	struct analysis *a = &m->r.analysis;
	struct device_span *sp;
	double first_s = 0, last_s = m->duration_s;
	uint64_t first, last;
	int ok = 1;
	size_t i;

	if (json_get(v, "first_s")) {
		first_s = number(m, v, "first_s", &ok);
		last_s = number(m, v, "last_s", &ok);
		if (!ok)
			return -1;
	}
	/* one after another, each trace after the durations before it;
	 * side by side, all from the same start */
	first = m->offset_ns + to_ns(first_s);
	last = m->offset_ns + to_ns(last_s);
	for (i = 0; i < a->n_spans && a->spans[i].device != device; i++)
		;
	if (i == a->n_spans) {
		sp = room_for(a->spans, &a->cap_spans, a->n_spans, sizeof(*sp));
		if (!sp)
			return bad(m, "out of memory");
		a->spans = sp;
		memset(&sp[i], 0, sizeof(*sp));
		sp[i].device = device;
		sp[i].first_ns = first;
		sp[i].last_ns = last;
		a->n_spans++;
	}
	sp = &a->spans[i];
	if (first < sp->first_ns)
		sp->first_ns = first;
	if (last > sp->last_ns)
		sp->last_ns = last;
	return 0;
}

/* {"read": N, "write": N} of queued and merges. */
static void add_by_dir(struct merge *m, uint64_t into[N_DIRS],
		       const struct json *v, int *ok)
{
	into[DIR_READ] += whole(m, v, "read", ok);
	into[DIR_WRITE] += whole(m, v, "write", ok);
}

/* A class's {"ios": N, "bytes": N}, where the device has it. */
static void add_class(struct merge *m, struct device_stats *d, int op,
		      const struct json *v, int *ok)
{
	if (!v)
		return;
	d->ios[op] += whole(m, v, "ios", ok);
	d->bytes[op] += whole(m, v, "bytes", ok);
}

static int add_device(struct merge *m, const struct json *v, size_t len)
{
	const struct json *name = json_get(v, "device");
	unsigned major, minor;
	struct device_stats *d;
	int op, ok = 1;
	char end;

	if (!name || name->type != JSON_STRING ||
	    sscanf(name->string, "%u,%u%c", &major, &minor, &end) != 2)
		return bad(m, "a device without its \"device\": \"MAJOR,MINOR\"");
	snprintf(m->where + len, sizeof(m->where) - len, ", device %u,%u",
		 major, minor);
	if (!(d = device_of(m, major << 20 | minor)))
		return bad(m, "out of memory");
	add_class(m, d, DIR_READ, json_get(v, "read"), &ok);
	add_class(m, d, DIR_WRITE, json_get(v, "write"), &ok);
	add_class(m, d, OP_DISCARD, json_get(v, "discard"), &ok);
	d->ios[OP_FLUSH] += whole(m, json_get(v, "flush"), "ios", &ok);
	for (op = OP_ZONE; op <= OP_WRITE_ZEROES; op++)
		add_class(m, d, op, json_get(v, io_op_name(op)), &ok);
	add_by_dir(m, d->queued, json_get(v, "queued"), &ok);
	add_by_dir(m, d->merges, json_get(v, "merges"), &ok);
	d->empty_completions += whole(m, v, "empty_completions", &ok);
	d->seeks += whole(m, v, "seeks", &ok);
	d->lost_in_flight += whole(m, v, "lost_in_flight", &ok);
	d->unseen_completions += whole(m, v, "unseen_completions", &ok);
	d->orphan_requests += whole_or_0(m, v, "orphan_requests", &ok);
	d->unmatched_completions += whole_or_0(m, v, "unmatched_completions",
					       &ok);
	d->depth_area_ns += number(m, v, "queue_depth_area_s", &ok) * 1e9;
	if (!ok)
		return -1;
	if (add_span(m, d->device, v) < 0)
		return -1;
	if (add_classes(m, d, json_get(v, "latency_by_class")) < 0 ||
	    add_latency(m, &d->flush_d2c, OP_FLUSH,
			json_get(json_get(v, "flush"), "d2c_us"), "d2c_us") < 0)
		return -1;
	m->where[len] = 0;
	return 0;
}

/* ---- loss, tags ---- */

static uint64_t cpu_mask_of(const struct json *cpus)
{
	uint64_t mask = 0;
	size_t i;

	for (i = 0; cpus && cpus->type == JSON_ARRAY && i < cpus->n; i++)
		if (cpus->items[i].is_whole)
			mask |= 1ull << (cpus->items[i].whole < 63 ?
					 cpus->items[i].whole : 63);
	return mask;
}

static int flag(const struct json *v, const char *key)
{
	const struct json *b = json_get(v, key);

	return b && b->type == JSON_BOOL && b->boolean;
}

/* The trace's loss windows, shifted by the durations merged before it. */
static int add_loss(struct merge *m, const struct json *trace)
{
	struct analysis *a = &m->r.analysis;
	const struct json *w = json_get(trace, "loss_windows");
	const struct json *ended = json_get(trace, "files_ended_early");
	size_t first = a->n_loss, i, k;
	int ok = 1;

	for (i = 0; w && w->type == JSON_ARRAY && i < w->n; i++) {
		const struct json *v = &w->items[i];
		struct loss_window *l;

		l = room_for(a->loss, &m->cap_loss, a->n_loss, sizeof(*l));
		if (!l)
			return bad(m, "out of memory");
		a->loss = l;
		l = &a->loss[a->n_loss++];
		l->from_ns = m->offset_ns + to_ns(number(m, v, "from_s", &ok));
		l->to_ns = m->offset_ns + to_ns(number(m, v, "to_s", &ok));
		l->events = whole(m, v, "events", &ok);
		l->count_unknown = !flag(v, "count_known");
		l->noted_late = flag(v, "noted_late");
		l->cpu_mask = cpu_mask_of(json_get(v, "cpus"));
	}
	for (i = 0; ended && ended->type == JSON_ARRAY && i < ended->n; i++) {
		const struct json *v = &ended->items[i];
		uint64_t at = m->offset_ns + to_ns(number(m, v, "at_s", &ok));
		uint64_t cpu = whole(m, v, "cpu", &ok);

		for (k = first; k < a->n_loss && a->loss[k].from_ns != at; k++)
			;
		if (!ok)
			return -1;
		if (k == a->n_loss)
			return bad(m, "a file that ended early where no loss window begins");
		a->loss[k].ended_cpu_mask |= 1ull << (cpu < 63 ? cpu : 63);
	}
	return ok ? 0 : -1;
}

static int same_label(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A tag's I/Os and bytes, added to those of its label (all in one
 * class's slot: the summary shows a tag's totals alone). */
static int add_tags(struct merge *m, const struct json *tags)
{
	struct analysis *a = &m->r.analysis;
	size_t i, k;
	int ok = 1;

	for (i = 0; tags && tags->type == JSON_ARRAY && i < tags->n; i++) {
		const struct json *v = &tags->items[i];
		const struct json *label = json_get(v, "label");
		const char *text = label && label->type == JSON_STRING ?
					   label->string : NULL;

		for (k = 0; k < a->n_tags && !same_label(a->tags[k].label, text);
		     k++)
			;
		if (k == a->n_tags) {
			struct tag_stats *t = room_for(a->tags, &m->cap_tags,
						       a->n_tags, sizeof(*t));

			if (!t)
				return bad(m, "out of memory");
			a->tags = t;
			if (text && !(t[k].label = strdup(text)))
				return bad(m, "out of memory");
			a->n_tags++;
		}
		a->tags[k].ios[0] += whole(m, v, "ios", &ok);
		a->tags[k].bytes[0] += whole(m, v, "bytes", &ok);
	}
	return ok ? 0 : -1;
}

/* ---- traces, documents ---- */

static int add_trace(struct merge *m, const struct json *t, size_t index)
{
	struct analysis *a = &m->r.analysis;
	const struct json *devices = json_get(t, "devices");
	double duration_s, bin_s, lossy_s;
	size_t i, len;
	int ok = 1;

	len = (size_t)snprintf(m->where, sizeof(m->where), "trace %zu",
			       index + 1);
	a->n_events += whole(m, t, "events", &ok);
	a->n_notes += whole(m, t, "notes", &ok);
	a->lost_events += whole(m, t, "lost_events", &ok);
	a->lost_unlocated += whole(m, t, "lost_unlocated", &ok);
	a->duplicate_records += whole_or_0(m, t, "duplicate_records", &ok);
	lossy_s = number(m, t, "lossy_s", &ok);
	duration_s = number(m, t, "duration_s", &ok);
	m->duration_s = duration_s;
	/* one after another, the loss windows' time adds; side by side,
	 * the trace that lost longest says it */
	if (!m->concurrent)
		a->lossy_ns += to_ns(lossy_s);
	else if (to_ns(lossy_s) > a->lossy_ns)
		a->lossy_ns = to_ns(lossy_s);
	bin_s = number(m, t, "bin_width_s", &ok);
	if (!ok)
		return -1;
	if (to_ns(bin_s) > a->bin_width_ns)
		a->bin_width_ns = to_ns(bin_s);
	if (!devices || devices->type != JSON_ARRAY)
		return bad(m, "no \"devices\" array");
	for (i = 0; i < devices->n; i++)
		if (add_device(m, &devices->items[i], len) < 0)
			return -1;
	if (add_loss(m, t) < 0 || add_tags(m, json_get(t, "tags")) < 0)
		return -1;
	if (to_ns(duration_s) > MERGE_MAX_TRACE_NS - m->offset_ns)
		return bad(m, "\"duration_s\": the traces merged so far and this one last longer than any trace (146 years): merge fewer");
	if (!m->concurrent) {
		m->offset_ns += to_ns(duration_s);
		a->last_ns = m->offset_ns;
	} else if (to_ns(duration_s) > a->last_ns) {
		a->last_ns = to_ns(duration_s);
	}
	m->where[0] = 0;
	return 0;
}

/* The document's histogram scheme is the one this iowatcher writes. */
static int check_scheme(struct merge *m, const struct json *doc)
{
	const struct json *h = json_get(doc, "histogram");
	const struct json *scheme = json_get(h, "scheme");
	int ok = 1;
	uint64_t version, bits, max_bits;
	char what[400];

	if (!h) {
		snprintf(what, sizeof(what), "a summary without latency histograms (from an older iowatcher): %s", redo);
		return bad(m, what);
	}
	version = json_get_whole(h, "version", &ok);
	bits = json_get_whole(h, "bits", &ok);
	max_bits = json_get_whole(h, "max_bits", &ok);
	if (ok && scheme && scheme->type == JSON_STRING &&
	    !strcmp(scheme->string, SUMMARY_HIST_SCHEME) &&
	    version == SUMMARY_HIST_VERSION && bits == LAT_SUM_BITS &&
	    max_bits == LAT_SUM_MAX_BITS)
		return 0;
	snprintf(what, sizeof(what), "histograms of scheme %s%s%s version %llu, bits %llu, max_bits %llu; this iowatcher merges %s version %d, bits %d, max_bits %d: %s",
		 scheme && scheme->type == JSON_STRING ? "\"" : "",
		 scheme && scheme->type == JSON_STRING ? scheme->string : "?",
		 scheme && scheme->type == JSON_STRING ? "\"" : "",
		 (unsigned long long)version, (unsigned long long)bits,
		 (unsigned long long)max_bits, SUMMARY_HIST_SCHEME,
		 SUMMARY_HIST_VERSION, LAT_SUM_BITS, LAT_SUM_MAX_BITS, redo);
	return bad(m, what);
}

static int read_whole(struct merge *m, char **text, size_t *len)
{
	FILE *f = fopen(m->path, "rb");
	size_t cap = 1 << 16, n = 0, got;
	char *buf = f ? malloc(cap) : NULL, *bigger;

	if (!f)
		return iow_fail(m->err, "%s: cannot read it: %s", m->path,
				strerror(errno));
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		bigger = realloc(buf, cap * 2);
		if (!bigger)
			free(buf);
		buf = bigger;
		cap *= 2;
	}
	if (!buf || ferror(f)) {
		fclose(f);
		free(buf);
		return iow_fail(m->err, "%s: cannot read it: %s", m->path,
				buf ? "a read error" : "out of memory");
	}
	fclose(f);
	*text = buf;
	*len = n;
	return 0;
}

static int add_document(struct merge *m)
{
	struct json doc;
	const struct json *traces;
	const char *why;
	char *text = NULL;
	size_t len = 0, at, i;
	int rc = -1;

	m->where[0] = 0;
	if (read_whole(m, &text, &len) < 0)
		return -1;
	if (json_parse(text, len, &doc, &at, &why) < 0) {
		free(text);
		/* a --live=json stream ends with the summary on its last line */
		return iow_fail(m->err, "%s: not an iowatcher summary (at byte %zu, %s): give files written by iowatcher --summary=json%s",
				m->path, at, why,
				strcmp(why, "more text after the document") ? "" :
				" (of a --live=json stream, its last line)");
	}
	free(text);
	traces = json_get(&doc, "traces");
	if (!traces || traces->type != JSON_ARRAY)
		iow_fail(m->err, "%s: JSON, but not an iowatcher summary (no \"traces\" array): give files written by iowatcher --summary=json",
			 m->path);
	else if (check_scheme(m, &doc) == 0 &&
		 merge_check_document(m->path, &doc, m->err) == 0)
		for (i = 0, rc = 0; rc == 0 && i < traces->n; i++)
			rc = add_trace(m, &traces->items[i], i);
	json_free(&doc);
	return rc;
}

static void merge_free(struct merge *m)
{
	struct analysis *a = &m->r.analysis;
	struct latency_summary *l[4];
	size_t i, k;
	int op;

	for (i = 0; i < a->n_devices; i++) {
		l[0] = &a->devices[i].d2c;
		l[1] = &a->devices[i].q2c;
		l[2] = &a->devices[i].q2d;
		l[3] = &a->devices[i].flush_d2c;
		for (k = 0; k < 4; k++) {
			free(l[k]->hist);
			for (op = 0; op < N_OPS; op++)
				free(l[k]->hist_op[op]);
		}
	}
	for (i = 0; i < a->n_tags; i++)
		free(a->tags[i].label);
	free(a->devices);
	free(a->tags);
	free(a->loss);
	free(a->spans);
	free((char *)m->r.source);
}

/* "a.json + b.json": the merge's source. */
static char *sources(const char *const *paths, size_t n)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(paths[i]) + 3;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = 0;
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, " + ");
		strcat(s, paths[i]);
	}
	return s;
}

int summary_merge(FILE *out, const char *const *paths, size_t n, int json,
		  size_t top_tags, struct iow_error *err)
{
	return summary_merge_as(out, paths, n, 0, json, top_tags, err);
}

int summary_merge_as(FILE *out, const char *const *paths, size_t n,
		     int concurrent, int json, size_t top_tags,
		     struct iow_error *err)
{
	struct merge m;
	size_t i;
	int rc = 0;

	memset(&m, 0, sizeof(m));
	m.err = err;
	m.concurrent = concurrent;
	/* the label says which merge it is, in the text and the JSON */
	m.r.label = concurrent ? "merged side by side" :
		    "merged one after another";
	if (!(m.r.source = sources(paths, n)))
		return iow_fail(err, "out of memory");
	for (i = 0; rc == 0 && i < n; i++) {
		m.path = paths[i];
		rc = add_document(&m);
	}
	if (rc == 0 && json)
		summary_print_json(out, &m.r, 1, 0);
	else if (rc == 0)
		summary_print_text(out, &m.r, 1, top_tags);
	merge_free(&m);
	return rc;
}
