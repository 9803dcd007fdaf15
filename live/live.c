/*
 * live.c: the live view's figures (see live.h): records merged by time,
 * one analysis fed as they come, its completions and latency samples
 * (analysis_config.on_sample) summed per interval, per device and per
 * process, and each closed interval handed to the screen or printed.
 */
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "analysis/histogram.h"
#include "base/vec.h"
#include "live.h"
#include "live_view.h"
#include "options.h"
#include "reader/blkrec.h"
#include "tag/cause.h"
#include "tag/causetag.h"
#include "base/utf8.h"

#define NS_PER_MS		1000000ull
#define PDU_KEPT		64	/* notes' text, splits, remaps */
#define RELEASE_EVERY		1024	/* records between merges */
#define CPU_LIMIT		8192
#define CLOCKS_AGREE_NS		(10ull * 1000000000ull)

/* A record waiting for the merge. */
struct queued {
	struct blk_io_trace t;
	uint32_t action_hi;	/* a version-8 record's zone categories */
	unsigned char pdu[PDU_KEPT];
};

struct cpu_queue {
	struct queued *ring;
	size_t head, len, cap;
	uint64_t newest_ns;	/* of the records it was given */
	int seen;
};

/* Latencies of one interval, at the summary's resolution. */
struct lat_acc {
	uint64_t n, max_ns;
	double sum_ns;
	uint64_t hist[LAT_SUM_BUCKETS];
};

/* A device's sums for the interval being filled. */
struct dev_acc {
	uint64_t ios[N_OPS], bytes[N_OPS];
	struct lat_acc d2c, q2c, flush_d2c;
	double area_at_start;	/* depth area up to the interval's start */
	/* of that area, taken back since (requests judged lost before the
	 * interval began): not the interval's to lose */
	double removed_before;
	uint64_t orphans_seen, unmatched_seen;	/* the analysis's, at close */
	double overdue_ns;	/* overdue requests' time left out, in all */
};

/* A (tag, device)'s sums for the interval being filled. */
struct proc_acc {
	int32_t tag;
	uint32_t device;
	int used;
	uint64_t ios, bytes, q2c_n;
	double q2c_sum_ns;
	uint32_t hist[LAT_BIN_BUCKETS];
};

struct live {
	struct live_opts o;
	uint64_t interval_ns;
	struct analysis a;
	struct cause_table *causes;
	struct cause_tags *ctags;
	struct iow_error err;
	int failed;
	/* the merge */
	struct cpu_queue *cpus;
	size_t n_cpus;
	uint64_t newest_ns, last_released_ns, arrived, arrived_at_tick;
	int tracer_known, per_cpu_files;	/* blktrace: see on_tick */
	int complete_known;	/* the recorder tells how far it is whole */
	uint64_t hold_ns;	/* the reorder window, where it is not */
	uint64_t late_open;	/* late records in the interval being filled */
	uint64_t shown_end_ns;	/* the end of the last interval closed */
	size_t since_release;
	int started;
	uint64_t genesis_ns, n_released;
	/* intervals */
	uint64_t k;			/* the one being filled */
	struct dev_acc *acc;		/* per figures.devs */
	struct proc_acc *procs;		/* open addressing on (tag, dev) */
	size_t procs_cap, procs_len;
	struct live_figures fig;
	size_t rows_cap;
	char device_list[256];
	struct timespec t0;
	struct live_view *view;
	int new_interval;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- devices ---- */

static const char *device_path(const struct live *l, uint32_t device)
{
	struct stat st;
	size_t i;

	for (i = 0; i < l->o.n_devices; i++) {
		const char *p = l->o.device_paths[i];

		if (stat(p, &st) == 0 && S_ISBLK(st.st_mode) &&
		    (uint32_t)(major(st.st_rdev) << 20 | minor(st.st_rdev)) ==
			    device)
			return p;
	}
	return NULL;
}

/* The figures' slot of device, made at its first sight; -1 out of memory. */
static long device_slot(struct live *l, uint32_t device)
{
	struct live_figures *f = &l->fig;
	struct live_device *devs, *d;
	struct dev_acc *acc;
	const char *path;
	size_t i;

	for (i = 0; i < f->n_devs; i++)
		if (f->devs[i].device == device)
			return (long)i;
	devs = realloc(f->devs, (f->n_devs + 1) * sizeof(*devs));
	if (devs)
		f->devs = devs;
	acc = realloc(l->acc, (f->n_devs + 1) * sizeof(*acc));
	if (acc)
		l->acc = acc;
	if (!devs || !acc)
		return -1;
	d = &f->devs[f->n_devs];
	memset(d, 0, sizeof(*d));
	memset(&acc[f->n_devs], 0, sizeof(*acc));
	d->device = device;
	path = device_path(l, device);
	if (path)
		snprintf(d->name, sizeof(d->name), "%s", path);
	else
		snprintf(d->name, sizeof(d->name), "%u,%u",
			 blk_dev_major(device), blk_dev_minor(device));
	return (long)f->n_devs++;
}

/* ---- samples, from the analysis ---- */

static void lat_add(struct lat_acc *l, uint64_t ns)
{
	/* as the summary's histograms take them */
	l->hist[latency_count(&l->n, &l->sum_ns, &l->max_ns, ns)]++;
}

static struct proc_acc *proc_get(struct live *l, int32_t tag,
				 uint32_t device);

static void proc_grow(struct live *l)
{
	struct proc_acc *old = l->procs;
	size_t old_cap = l->procs_cap, i;

	l->procs_cap = old_cap ? 2 * old_cap : 64;
	l->procs = calloc(l->procs_cap, sizeof(*l->procs));
	if (!l->procs) {
		l->procs = old;
		l->procs_cap = old_cap;
		return;
	}
	l->procs_len = 0;
	for (i = 0; i < old_cap; i++)
		if (old[i].used) {
			struct proc_acc *p = proc_get(l, old[i].tag,
						      old[i].device);

			if (p)
				*p = old[i];
		}
	free(old);
}

/* The sums of (tag, device), made when new; NULL when out of memory. */
static struct proc_acc *proc_get(struct live *l, int32_t tag,
				 uint32_t device)
{
	size_t mask, i;

	if ((l->procs_len + 1) * 2 > l->procs_cap) {
		proc_grow(l);
		if ((l->procs_len + 1) * 2 > l->procs_cap)
			return NULL;
	}
	mask = l->procs_cap - 1;
	for (i = ((uint32_t)tag * 2654435761u ^ device) & mask;
	     l->procs[i].used; i = (i + 1) & mask)
		if (l->procs[i].tag == tag && l->procs[i].device == device)
			return &l->procs[i];
	l->procs[i].used = 1;
	l->procs[i].tag = tag;
	l->procs[i].device = device;
	l->procs_len++;
	return &l->procs[i];
}

static void on_sample(void *ctx, const struct analysis_sample *s)
{
	struct live *l = ctx;
	long slot = device_slot(l, s->device);
	struct proc_acc *p = proc_get(l, s->tag, s->device);
	struct dev_acc *d;

	if (slot < 0 || !p) {
		l->failed = iow_fail(&l->err, "out of memory");
		return;
	}
	d = &l->acc[slot];
	if (s->what == ANALYSIS_COMPLETION) {
		d->ios[s->op]++;
		d->bytes[s->op] += s->bytes;
		p->ios++;
		p->bytes += s->bytes;
		return;
	}
	if (s->op == OP_FLUSH) {
		lat_add(&d->flush_d2c, s->d2c_ns);
		return;
	}
	if (s->what & ANALYSIS_D2C)
		lat_add(&d->d2c, s->d2c_ns);
	if (s->what & ANALYSIS_Q2C) {
		uint64_t q2c = s->q2c_ns;

		lat_add(&d->q2c, q2c);
		if (q2c >= 1ull << LAT_BIN_MAX_BITS)
			q2c = (1ull << LAT_BIN_MAX_BITS) - 1;
		p->q2c_n++;
		p->q2c_sum_ns += (double)q2c;
		p->hist[hist_index(q2c, LAT_BIN_BITS)]++;
	}
}

/* ---- closing an interval ---- */

/* As latency_quantile_ns: a bucket's midpoint, at most the largest. */
static void lat_figures(const struct lat_acc *acc, struct live_latency *out)
{
	double p50, p99;

	out->n = acc->n;
	out->mean_ns = acc->n ? acc->sum_ns / (double)acc->n : 0;
	if (!acc->n) {
		out->p50_ns = out->p99_ns = 0;
		return;
	}
	p50 = hist_quantile64(acc->hist, LAT_SUM_BUCKETS, LAT_SUM_BITS, 0.5);
	p99 = hist_quantile64(acc->hist, LAT_SUM_BUCKETS, LAT_SUM_BITS, 0.99);
	out->p50_ns = p50 > (double)acc->max_ns ? (double)acc->max_ns : p50;
	out->p99_ns = p99 > (double)acc->max_ns ? (double)acc->max_ns : p99;
}

static void lat_reset(struct lat_acc *acc)
{
	if (acc->n)
		memset(acc, 0, sizeof(*acc));
}

/* Requests in flight on device, integrated over time up to t. */
static double depth_area_upto(const struct analysis *a, uint32_t device,
			      uint64_t t)
{
	size_t i;

	for (i = 0; i < a->n_devices; i++) {
		const struct device_stats *d = &a->devices[i];

		if (d->device != device)
			continue;
		if (t <= d->depth_since_ns)
			return d->depth_area_ns;
		return d->depth_area_ns +
		       (double)d->in_flight * (double)(t - d->depth_since_ns);
	}
	return 0;
}

/*
 * The loss windows' part of [start, end): the events lost in those that
 * began there, and their time in it.
 */
static void loss_in(const struct analysis *a, uint64_t start, uint64_t end,
		    uint64_t *events, uint64_t *lossy_ns)
{
	size_t i;

	*events = *lossy_ns = 0;
	for (i = 0; i < a->n_loss; i++) {
		const struct loss_window *w = &a->loss[i];
		uint64_t from = w->from_ns > start ? w->from_ns : start;
		uint64_t to = w->to_ns < end ? w->to_ns : end;

		/* an inferred window's time stays in the depth's mean */
		if (w->inferred)
			continue;
		if (w->from_ns >= start && w->from_ns < end)
			*events += w->events;
		if (to > from)
			*lossy_ns += to - from;
	}
}

/* cfg.on_depth_removed: a request judged lost leaves the depth from its
 * issue; what of that lay before the open interval, already in its
 * area_at_start, is no part of the interval's. */
static void on_depth_removed(void *ctx, uint32_t device, uint64_t from_ns,
			     uint64_t to_ns)
{
	struct live *l = ctx;
	uint64_t start = l->k * l->interval_ns;
	long slot;

	if (from_ns >= start || (slot = device_slot(l, device)) < 0)
		return;
	l->acc[slot].removed_before +=
		(double)((to_ns < start ? to_ns : start) - from_ns);
}

/* The holes the analysis inferred on d's device since the last close. */
static void holes_of(const struct live *l, struct live_device *d,
		     struct dev_acc *acc)
{
	size_t i;

	d->orphans = d->unmatched = 0;
	for (i = 0; i < l->a.n_devices; i++) {
		const struct device_stats *s = &l->a.devices[i];

		if (s->device != d->device)
			continue;
		d->orphans = s->orphan_requests - acc->orphans_seen;
		d->unmatched = s->unmatched_completions - acc->unmatched_seen;
		acc->orphans_seen = s->orphan_requests;
		acc->unmatched_seen = s->unmatched_completions;
	}
}

static void close_device(struct live *l, size_t i, uint64_t start,
			 uint64_t end)
{
	struct live_device *d = &l->fig.devs[i];
	struct dev_acc *acc = &l->acc[i];
	double area = depth_area_upto(&l->a, d->device, end), overdue_ns;
	/* the depth's mean over the interval's time outside loss windows */
	double span_s = (double)(end - start) / 1e9 - l->fig.lossy_s;
	size_t h = l->fig.history_head, op;
	uint64_t bytes = 0;

	for (op = 0; op < N_OPS; op++) {
		d->ios[op] = acc->ios[op];
		d->bytes[op] = acc->bytes[op];
		d->total_ios[op] += acc->ios[op];
		d->total_bytes[op] += acc->bytes[op];
		bytes += acc->bytes[op];
		acc->ios[op] = acc->bytes[op] = 0;
	}
	lat_figures(&acc->d2c, &d->d2c);
	lat_figures(&acc->q2c, &d->q2c);
	lat_figures(&acc->flush_d2c, &d->flush_d2c);
	lat_reset(&acc->d2c);
	lat_reset(&acc->q2c);
	lat_reset(&acc->flush_d2c);
	d->overdue = analysis_overdue(&l->a, d->device, start, end,
				      &overdue_ns);
	acc->overdue_ns += overdue_ns;
	d->depth = span_s > 0 ? (area - acc->area_at_start +
				 acc->removed_before - overdue_ns) /
				1e9 / span_s : 0;
	if (d->depth < 0)	/* rounding of what was taken back */
		d->depth = 0;
	acc->area_at_start = area;
	acc->removed_before = 0;
	holes_of(l, d, acc);
	d->mbps[h] = span_s > 0 ? (float)((double)bytes / 1e6 / span_s) : 0;
	d->p99_us[h] = (float)((d->q2c.n ? d->q2c.p99_ns : d->d2c.p99_ns) /
			       1e3);
}

/* "comm (pid)" as ptag names a process: its name and pid. */
static void row_name(const struct live *l, struct live_row *r)
{
	const char *label = NULL, *open;
	size_t i, len;

	r->pid = -1;
	for (i = 0; i < l->a.n_tags; i++)
		if (l->a.tags[i].id == r->tag)
			label = l->a.tags[i].label;
	if (!label) {
		snprintf(r->name, sizeof(r->name), "%s",
			 r->tag == IO_EVENT_NO_TAG ? "untagged" : "?");
		return;
	}
	len = strlen(label);
	open = strrchr(label, '(');
	if (l->o.by == BY_PROCESS && open && open > label + 1 &&
	    open[-1] == ' ' && label[len - 1] == ')' &&
	    strtol(open + 1, NULL, 10) == r->tag) {
		r->pid = r->tag;
		len = (size_t)(open - 1 - label);
	} else if (l->o.by == BY_PROCESS && !strncmp(label, "pid ", 4)) {
		r->pid = r->tag;
		snprintf(r->name, sizeof(r->name), "?");
		return;
	}
	/* a long name cut where a character ends: it stays UTF-8 */
	len = utf8_fit(label, len, sizeof(r->name) - 1);
	snprintf(r->name, sizeof(r->name), "%.*s", (int)len, label);
}

static int row_cmp_ios(const void *x, const void *y)
{
	const struct live_row *a = x, *b = y;

	if (a->ios != b->ios)
		return a->ios < b->ios ? 1 : -1;
	return a->bytes < b->bytes ? 1 : a->bytes > b->bytes ? -1 : 0;
}

static int row_cmp_bytes(const void *x, const void *y)
{
	const struct live_row *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return a->ios < b->ios ? 1 : a->ios > b->ios ? -1 : 0;
}

static int row_cmp_latency(const void *x, const void *y)
{
	const struct live_row *a = x, *b = y;

	if (a->q2c.p99_ns != b->q2c.p99_ns)
		return a->q2c.p99_ns < b->q2c.p99_ns ? 1 : -1;
	return row_cmp_ios(x, y);
}

void live_sort(struct live *l, enum live_sort sort)
{
	static int (*const cmp[])(const void *, const void *) = {
		row_cmp_ios, row_cmp_bytes, row_cmp_latency
	};

	l->fig.sort = sort;
	qsort(l->fig.rows, l->fig.n_rows, sizeof(*l->fig.rows), cmp[sort]);
}

/* The interval's processes become the rows; their sums start again. */
static void close_procs(struct live *l)
{
	struct live_figures *f = &l->fig;
	struct live_row *r;
	size_t i;

	f->n_rows = 0;
	for (i = 0; i < l->procs_cap; i++) {
		struct proc_acc *p = &l->procs[i];

		if (!p->used || (!p->ios && !p->q2c_n))
			continue;
		if (f->n_rows == l->rows_cap) {
			r = vec_grow(f->rows, &l->rows_cap, f->n_rows + 1,
				     sizeof(*r), 32);
			if (!r)
				break;
			f->rows = r;
		}
		r = &f->rows[f->n_rows++];
		memset(r, 0, sizeof(*r));
		r->tag = p->tag;
		r->device = p->device;
		r->ios = p->ios;
		r->bytes = p->bytes;
		r->q2c.n = p->q2c_n;
		r->q2c.mean_ns = p->q2c_n ? p->q2c_sum_ns / (double)p->q2c_n
					  : 0;
		r->q2c.p99_ns = hist_quantile(p->hist, LAT_BIN_BUCKETS,
					      LAT_BIN_BITS, 0.99);
		row_name(l, r);
	}
	/* a new table each interval: processes come and go */
	memset(l->procs, 0, l->procs_cap * sizeof(*l->procs));
	l->procs_len = 0;
	live_sort(l, f->sort);
}

static void print_text(struct live *l);
static void print_json(struct live *l);

/* The completions analysed, and the account notes' sentences
 * (account.h) once they have come. */
static void account_line(struct live *l)
{
	struct live_figures *f = &l->fig;
	size_t i, c, len = 0, n = 0;
	uint64_t trace[N_ACCT];
	struct account acc;
	char text[384];

	f->trace_completed = 0;
	for (i = 0; i < l->a.n_devices; i++) {
		n += l->a.devices[i].has_account;
		analysis_account_counts(&l->a.devices[i], trace);
		for (c = 0; c < N_ACCT; c++)
			f->trace_completed += trace[c];
	}
	f->account[0] = '\0';
	for (i = 0; i < l->a.n_devices && len < sizeof(f->account); i++) {
		const struct device_stats *d = &l->a.devices[i];

		if (!d->has_account)
			continue;
		analysis_account(&l->a, d, &acc);
		account_sentence(&acc, text, sizeof(text));
		if (n == 1)
			len += (size_t)snprintf(f->account, sizeof(f->account),
						"the trace %s", text);
		else
			len += (size_t)snprintf(f->account + len,
						sizeof(f->account) - len,
						"%s%u,%u: %s", len ? "; " : "",
						blk_dev_major(d->device),
						blk_dev_minor(d->device), text);
	}
}

/* Interval k ends at end (its full width, or the trace's last event). */
static int close_interval(struct live *l, uint64_t end)
{
	struct live_figures *f = &l->fig;
	uint64_t start = l->k * l->interval_ns, lossy_ns;
	size_t i;

	for (i = 0; i < l->a.n_devices; i++)
		if (l->a.devices[i].has_io &&
		    device_slot(l, l->a.devices[i].device) < 0)
			return iow_fail(&l->err, "out of memory");
	loss_in(&l->a, start, end, &f->lost_in_interval, &lossy_ns);
	f->late_in_interval = l->late_open;
	l->late_open = 0;
	f->lossy_s = (double)lossy_ns / 1e9;
	f->holes_from = f->holes_to;
	f->holes_to = l->a.n_loss;
	account_line(l);
	for (i = 0; i < f->n_devs; i++)
		close_device(l, i, start, end);
	close_procs(l);
	f->history_head = (f->history_head + 1) % LIVE_HISTORY;
	if (f->history_len < LIVE_HISTORY)
		f->history_len++;
	f->start_s = (double)start / 1e9;
	f->end_s = (double)end / 1e9;
	f->n_intervals++;
	l->shown_end_ns = end;
	l->k++;
	l->new_interval = 1;
	if (l->o.mode == LIVE_TEXT)
		print_text(l);
	else if (l->o.mode == LIVE_JSON)
		print_json(l);
	return 0;
}

/* ---- events ---- */

/* Closes the intervals that end at or before t. */
static int close_before(struct live *l, uint64_t t)
{
	while ((l->k + 1) * l->interval_ns <= t)
		if (close_interval(l, (l->k + 1) * l->interval_ns) < 0)
			return -1;
	return 0;
}

/* One event, in trace order, times from the first: tags, then the
 * analysis (whose samples land in the interval being filled). */
static int analyse(struct live *l, struct io_event *ev)
{
	if (!blk_is_note(ev->action) && close_before(l, ev->time_ns) < 0)
		return -1;
	ev->tag = IO_EVENT_NO_TAG;
	if (cause_table_event(l->causes, ev, &l->err) < 0 ||
	    causetag_event(l->ctags, ev, &l->a, &l->err) < 0 ||
	    analysis_add(&l->a, ev, &l->err) < 0)
		return -1;
	return l->failed;
}

int live_event(struct live *l, const struct io_event *ev,
	       struct iow_error *err)
{
	struct io_event copy = *ev;

	if (!blk_is_note(ev->action)) {
		l->started = 1;
		l->fig.events++;
	}
	l->n_released++;
	if (analyse(l, &copy) < 0) {
		if (err)
			*err = l->err;
		return -1;
	}
	return 0;
}

/* A queued record as an event, through the reader's decoder: the
 * record is a version-7 header in this machine's byte order. */
_Static_assert(sizeof(struct blk_io_trace) == BLK_IO_TRACE7_SIZE,
	       "a queued record is a version-7 header as written");

static void decode(const struct queued *q, struct io_event *ev)
{
	blkrec_decode((const unsigned char *)&q->t, ev, 1, 0);
	ev->action_hi = q->action_hi;
	ev->pdu = q->t.pdu_len ? q->pdu : NULL;
	ev->index = 0;
}

/* The oldest record of all queues, if older than limit (absolute ns). */
static struct cpu_queue *oldest_before(struct live *l, uint64_t limit)
{
	struct cpu_queue *best = NULL;
	uint64_t best_t = limit;
	size_t i;

	for (i = 0; i < l->n_cpus; i++) {
		struct cpu_queue *c = &l->cpus[i];

		/* strictly older: at equal times the lower CPU goes first */
		if (c->len && c->ring[c->head].t.time < best_t) {
			best = c;
			best_t = c->ring[c->head].t.time;
		}
	}
	return best;
}

/*
 * A record older than one already analysed (the recorder handed it over
 * after the merge had passed its time): the analysis, which goes forward
 * in time, cannot put it where it belongs. A completion is still taken,
 * so that its request leaves the depth (its counts go to the interval
 * being filled); anything else is left out, as a request issued after
 * its completion would stay in flight for ever. Said per interval.
 * Returns 1 when ev is to be left out.
 */
static int late_record(struct live *l, const struct io_event *ev)
{
	uint64_t behind = l->last_released_ns - ev->time_ns;

	if (blk_is_note(ev->action))
		return 0;
	l->fig.late++;
	l->late_open++;
	/* the window grows to what came late, where it is a guess */
	if (2 * behind > l->hold_ns)
		l->hold_ns = 2 * behind < LIVE_IDLE_MS * NS_PER_MS ?
			     2 * behind : LIVE_IDLE_MS * NS_PER_MS;
	return blk_action_code(ev->action) != BLK_TA_COMPLETE;
}

/* Analyses, in trace order, every record older than limit. */
static int release(struct live *l, uint64_t limit)
{
	struct cpu_queue *c;
	struct io_event ev;

	l->since_release = 0;
	while (!l->failed && (c = oldest_before(l, limit))) {
		decode(&c->ring[c->head], &ev);
		c->head = (c->head + 1) % c->cap;
		c->len--;
		if (l->n_released && ev.time_ns < l->last_released_ns) {
			if (late_record(l, &ev))
				continue;
		} else {
			l->last_released_ns = ev.time_ns;
		}
		/* time 0 is the first event that is not a note, as read */
		if (!l->started && !blk_is_note(ev.action)) {
			l->started = 1;
			l->genesis_ns = ev.time_ns;
		}
		ev.time_ns = l->started && ev.time_ns > l->genesis_ns ?
			     ev.time_ns - l->genesis_ns : 0;
		ev.index = l->n_released++;
		if (analyse(l, &ev) < 0)
			l->failed = -1;
	}
	return l->failed;
}

static int queue_push(struct live *l, const struct blk_io_trace *t,
		      uint32_t action_hi, const void *pdu)
{
	struct cpu_queue *c;
	struct queued *q;

	if (t->cpu >= l->n_cpus) {
		size_t n = (size_t)t->cpu + 1;
		struct cpu_queue *more;

		if (t->cpu >= CPU_LIMIT)
			return iow_fail(&l->err, "record of cpu %u out of range",
					t->cpu);
		more = realloc(l->cpus, n * sizeof(*more));
		if (!more)
			return iow_fail(&l->err, "out of memory");
		memset(more + l->n_cpus, 0, (n - l->n_cpus) * sizeof(*more));
		l->cpus = more;
		l->n_cpus = n;
	}
	c = &l->cpus[t->cpu];
	if (c->len == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096, i;
		struct queued *ring = malloc(cap * sizeof(*ring));

		if (!ring)
			return iow_fail(&l->err, "out of memory");
		for (i = 0; i < c->len; i++)
			ring[i] = c->ring[(c->head + i) % c->cap];
		free(c->ring);
		c->ring = ring;
		c->head = 0;
		c->cap = cap;
	}
	q = &c->ring[(c->head + c->len) % c->cap];
	q->t = *t;
	q->action_hi = action_hi;
	if (q->t.pdu_len > PDU_KEPT)
		q->t.pdu_len = PDU_KEPT;	/* long notes: their start */
	if (q->t.pdu_len)
		memcpy(q->pdu, pdu, q->t.pdu_len);
	c->len++;
	return 0;
}

static void on_record_hi(void *ctx, const struct blk_io_trace *t,
			 uint32_t action_hi, const void *pdu)
{
	struct live *l = ctx;

	if (l->failed)
		return;
	if (queue_push(l, t, action_hi, pdu) < 0) {
		l->failed = -1;
		return;
	}
	l->arrived++;
	if (t->time > l->newest_ns)
		l->newest_ns = t->time;
	if (t->time > l->cpus[t->cpu].newest_ns)
		l->cpus[t->cpu].newest_ns = t->time;
	l->cpus[t->cpu].seen = 1;
	/* records read as they come, with no word of how far they are
	 * whole: merged so, to keep queues short */
	if (++l->since_release >= RELEASE_EVERY && l->tracer_known &&
	    !l->per_cpu_files && !l->complete_known &&
	    l->newest_ns > l->hold_ns)
		release(l, l->newest_ns - l->hold_ns);
}

/*
 * How far blktrace's files can be merged: each file is in time order but
 * they grow in blktrace's own buffered steps, so up to the oldest of the
 * newest records of the CPUs that have written any, or, when it is later
 * and the clocks agree, LIVE_FILES_LAG_MS before now.
 */
static uint64_t files_limit(const struct live *l, uint64_t now)
{
	uint64_t limit = UINT64_MAX;
	size_t i;

	for (i = 0; i < l->n_cpus; i++)
		if (l->cpus[i].seen && l->cpus[i].newest_ns < limit)
			limit = l->cpus[i].newest_ns;
	if (limit == UINT64_MAX)
		limit = 0;
	if (now > LIVE_FILES_LAG_MS * NS_PER_MS &&
	    (!l->newest_ns || now - l->newest_ns < CLOCKS_AGREE_NS) &&
	    now - LIVE_FILES_LAG_MS * NS_PER_MS > limit)
		limit = now - LIVE_FILES_LAG_MS * NS_PER_MS;
	return limit;
}

/* After a pump: what no CPU can now precede goes to the analysis. */
static int on_tick(void *ctx, const struct record_progress *p)
{
	struct live *l = ctx;
	uint64_t limit = 0, now = now_mono_ns();

	l->fig.tracer = record_tracer_name(p->tracer);
	if (p->flight_armed && l->o.mode == LIVE_TEXT &&
	    (!l->fig.flight_armed || p->captures != l->fig.captures))
		fprintf(l->o.out, "# flight recorder armed: %u capture%s\n",
			p->captures, p->captures == 1 ? "" : "s");
	l->fig.flight_armed = p->flight_armed;
	l->fig.captures = p->captures;
	l->fig.flight_held_ns = p->flight_held_ns;
	l->fig.flight_held_bytes = p->flight_held_bytes;
	l->fig.events = p->events;
	l->fig.lost = p->lost;
	if (p->kernel_completed != UINT64_MAX)
		l->fig.kernel_completed = p->kernel_completed;
	l->tracer_known = 1;
	l->per_cpu_files = p->tracer == RECORD_BLKTRACE;
	if (p->complete_ns)
		l->complete_known = 1;
	if (l->complete_known)
		limit = p->complete_ns;
	else if (l->per_cpu_files)
		limit = files_limit(l, now);
	else if (l->newest_ns > l->hold_ns)
		limit = l->newest_ns - l->hold_ns;
	/* nothing came for a pump: the pipe is empty up to about now
	 * (the tracers' clock is the monotonic one) */
	if (!l->complete_known && l->arrived == l->arrived_at_tick &&
	    now > LIVE_IDLE_MS * NS_PER_MS &&
	    (!l->newest_ns || now - l->newest_ns < CLOCKS_AGREE_NS) &&
	    now - LIVE_IDLE_MS * NS_PER_MS > limit)
		limit = now - LIVE_IDLE_MS * NS_PER_MS;
	l->arrived_at_tick = l->arrived;
	release(l, limit);
	if (l->started && !l->failed && limit > l->genesis_ns)
		close_before(l, limit - l->genesis_ns);
	account_line(l);
	return live_poll(l) || l->failed;
}

static void on_record(void *ctx, const struct blk_io_trace *t,
		      const void *pdu)
{
	on_record_hi(ctx, t, 0, pdu);
}

void live_tap(struct live *l, struct record_tap *tap)
{
	tap->record = on_record;
	tap->record_hi = on_record_hi;
	tap->tick = on_tick;
	tap->ctx = l;
	tap->causes = cause_table_reader(l->causes);
}

int live_poll(struct live *l)
{
	int quit = 0;

	l->fig.elapsed_s = now_s() - ((double)l->t0.tv_sec +
				      (double)l->t0.tv_nsec / 1e9);
	if (l->view) {
		struct live_keys keys;

		live_view_keys(l->view, &keys);
		/* a capture as SIGUSR1 asks (record.c takes it while armed) */
		if (keys.capture && l->fig.flight_armed)
			raise(SIGUSR1);
		if (keys.sort >= 0)
			live_sort(l, (enum live_sort)keys.sort);
		quit = keys.quit;
		if (!quit)
			live_view_draw(l->view, &l->fig, l->new_interval);
	}
	l->new_interval = 0;
	if (l->o.mode != LIVE_SCREEN)
		fflush(l->o.out);
	return quit;
}

static void print_unseen(struct live *l, const double *in_flight_s);

/*
 * Completions the recorder did not see (the kernel made them without
 * running its program) are noted at its end, with no time: the analysis
 * then takes the requests longest in flight as theirs and leaves them
 * out of the depth, as the summary does. The intervals shown counted
 * them in flight from their issue: how long in all is said per device.
 */
static void holes_at_end(struct live *l);

static void unseen_at_end(struct live *l)
{
	const struct analysis *a = &l->a;
	double *area, idle_ns = 0;
	size_t i;

	if (!a->lost_unlocated || !a->n_devices ||
	    !(area = calloc(a->n_devices, sizeof(*area)))) {
		/* the rules that judge at the end (analysis_holes.c) */
		if (a->n_devices) {
			analysis_finish(&l->a);
			holes_at_end(l);
		}
		return;
	}
	for (i = 0; i < a->n_devices; i++)
		area[i] = depth_area_upto(a, a->devices[i].device, a->last_ns);
	analysis_finish(&l->a);
	holes_at_end(l);
	/* intervals closed while idle went on past the trace's end */
	if (l->shown_end_ns > a->last_ns)
		idle_ns = (double)(l->shown_end_ns - a->last_ns);
	for (i = 0; i < a->n_devices; i++) {
		long slot = device_slot(l, a->devices[i].device);

		area[i] = area[i] - a->devices[i].depth_area_ns +
			  (double)a->devices[i].unseen_completions * idle_ns;
		/* what the intervals left out as overdue they never counted */
		if (slot >= 0)
			area[i] -= l->acc[slot].overdue_ns;
		area[i] = area[i] > 0 ? area[i] / 1e9 : 0;
	}
	print_unseen(l, area);
	free(area);
}

int live_finish(struct live *l, struct iow_error *err)
{
	release(l, UINT64_MAX);
	if (!l->failed && l->started && close_before(l, l->a.last_ns) == 0 &&
	    l->a.last_ns > l->k * l->interval_ns)
		close_interval(l, l->a.last_ns);
	if (!l->failed && l->started)
		unseen_at_end(l);
	account_line(l);
	live_poll(l);
	if (l->failed) {
		if (err)
			*err = l->err;
		return -1;
	}
	return 0;
}

/* ---- text and JSON ---- */

static double mb(uint64_t bytes)
{
	return (double)bytes / 1e6;
}

static void print_text(struct live *l)
{
	const struct live_figures *f = &l->fig;
	double span = f->end_s - f->start_s;
	size_t i;

	if (f->n_intervals == 1)
		fprintf(l->o.out, "# start_s    end_s device        rMB/s    "
			"rIOPS    wMB/s    wIOPS  flush/s discard/s "
			"d2c_p50_us d2c_p99_us q2c_p50_us q2c_p99_us  depth"
			"     lost     late\n");
	for (i = 0; i < f->n_devs; i++) {
		const struct live_device *d = &f->devs[i];

		fprintf(l->o.out, "%9.3f %8.3f %-12s %8.2f %8.0f %8.2f %8.0f "
			"%8.1f %9.1f %10.1f %10.1f %10.1f %10.1f %6.2f "
			"%8llu %8llu\n",
			f->start_s, f->end_s, d->name,
			mb(d->bytes[OP_READ]) / span,
			(double)d->ios[OP_READ] / span,
			mb(d->bytes[OP_WRITE]) / span,
			(double)d->ios[OP_WRITE] / span,
			(double)d->ios[OP_FLUSH] / span,
			(double)d->ios[OP_DISCARD] / span,
			d->d2c.p50_ns / 1e3, d->d2c.p99_ns / 1e3,
			d->q2c.p50_ns / 1e3, d->q2c.p99_ns / 1e3, d->depth,
			(unsigned long long)f->lost_in_interval,
			(unsigned long long)f->late_in_interval);
	}
	for (i = 0; i < f->n_devs; i++) {
		char hole[LIVE_HOLE_TEXT];

		if (live_hole_text(&f->devs[i], hole, sizeof(hole)))
			fprintf(l->o.out, "#%s\n", hole);
	}
}

static void json_latency(FILE *out, const char *name,
			 const struct live_latency *l)
{
	fprintf(out, "\"%s\": {\"n\": %llu, \"mean\": %.3f, \"p50\": %.3f, "
		"\"p99\": %.3f}", name, (unsigned long long)l->n,
		l->mean_ns / 1e3, l->p50_ns / 1e3, l->p99_ns / 1e3);
}

static void json_device(FILE *out, const struct live_device *d)
{
	static const char *const names[N_DATA_OPS] = { "read", "write",
						       "discard" };
	int op;

	fprintf(out, "{\"device\": \"%u,%u\", \"name\": ",
		blk_dev_major(d->device), blk_dev_minor(d->device));
	utf8_json_string(out, d->name);
	for (op = 0; op < N_DATA_OPS; op++)
		fprintf(out, ", \"%s\": {\"ios\": %llu, \"bytes\": %llu}",
			names[op], (unsigned long long)d->ios[op],
			(unsigned long long)d->bytes[op]);
	fprintf(out, ", \"flush\": {\"ios\": %llu, ",
		(unsigned long long)d->ios[OP_FLUSH]);
	json_latency(out, "d2c_us", &d->flush_d2c);
	fputs("}, ", out);
	/* a zoned device's classes, as the summary's: where it has them */
	for (op = OP_ZONE; op <= OP_WRITE_ZEROES; op++)
		if (d->ios[op])
			fprintf(out, "\"%s\": {\"ios\": %llu, \"bytes\": %llu}, ",
				io_op_name(op), (unsigned long long)d->ios[op],
				(unsigned long long)d->bytes[op]);
	json_latency(out, "d2c_us", &d->d2c);
	fputs(", ", out);
	json_latency(out, "q2c_us", &d->q2c);
	fprintf(out, ", \"queue_depth_mean\": %.4f, \"orphan_requests\": %llu, "
		"\"unmatched_completions\": %llu, \"overdue_requests\": %llu}",
		d->depth, (unsigned long long)d->orphans,
		(unsigned long long)d->unmatched,
		(unsigned long long)d->overdue);
}

/* The inferred windows the analysis added in the interval. */
static void json_holes(FILE *out, const struct analysis *a,
		       const struct live_figures *f)
{
	const char *sep = "";
	size_t i;

	fputs(", \"inferred_windows\": [", out);
	for (i = f->holes_from; i < f->holes_to && i < a->n_loss; i++) {
		const struct loss_window *w = &a->loss[i];

		if (!w->inferred)
			continue;
		fprintf(out, "%s{\"device\": \"%u,%u\", \"kind\": \"%s\", "
			"\"from_s\": %.6f, \"to_s\": %.6f, \"requests\": %llu}",
			sep, blk_dev_major(w->device), blk_dev_minor(w->device),
			w->hole_kind == HOLE_UNMATCHED ? "unmatched_completions"
						       : "orphan_requests",
			(double)w->from_ns / 1e9, (double)w->to_ns / 1e9,
			(unsigned long long)w->requests);
		sep = ", ";
	}
	fputs("]", out);
}

static void json_row(FILE *out, const struct live_row *r)
{
	fprintf(out, "{\"tag\": %d, \"pid\": %ld, \"name\": ", r->tag, r->pid);
	utf8_json_string(out, r->name);
	fprintf(out, ", \"device\": \"%u,%u\", \"ios\": %llu, \"bytes\": %llu"
		", \"q2c_mean_us\": %.3f, \"q2c_p99_us\": %.3f}",
		blk_dev_major(r->device), blk_dev_minor(r->device),
		(unsigned long long)r->ios, (unsigned long long)r->bytes,
		r->q2c.mean_ns / 1e3, r->q2c.p99_ns / 1e3);
}

static void print_json(struct live *l)
{
	const struct live_figures *f = &l->fig;
	FILE *out = l->o.out;
	size_t i;

	fprintf(out, "{\"start_s\": %.6f, \"end_s\": %.6f, \"records\": %llu, "
		"\"events_lost\": %llu, \"lost_in_interval\": %llu, "
		"\"lossy_s\": %.6f, \"late_records\": %llu, "
		"\"late_in_interval\": %llu, \"devices\": [",
		f->start_s, f->end_s, (unsigned long long)l->n_released,
		(unsigned long long)f->lost,
		(unsigned long long)f->lost_in_interval, f->lossy_s,
		(unsigned long long)f->late,
		(unsigned long long)f->late_in_interval);
	for (i = 0; i < f->n_devs; i++) {
		fputs(i ? ", " : "", out);
		json_device(out, &f->devs[i]);
	}
	fputs("], \"top\": [", out);
	for (i = 0; i < f->n_rows && i < 10; i++) {
		fputs(i ? ", " : "", out);
		json_row(out, &f->rows[i]);
	}
	fputs("]", out);
	json_holes(out, &l->a, f);
	/* --flight: armed, the captures, what the records hold */
	if (f->flight_armed)
		fprintf(out, ", \"flight\": {\"armed\": true, \"captures\": "
			"%u, \"held_s\": %.6f, \"held_bytes\": %llu}",
			f->captures, (double)f->flight_held_ns / 1e9,
			(unsigned long long)f->flight_held_bytes);
	fputs("}\n", out);
}

/*
 * The holes judged when the trace ended (analysis_finish: a request
 * still out far longer than the device's others, the queue's bound): the
 * intervals shown counted their requests in flight since their issue;
 * said per device, as the summary's HOLE line says them.
 */
static void holes_at_end(struct live *l)
{
	const struct analysis *a = &l->a;
	struct live_figures *f = &l->fig;
	FILE *out = l->o.out;
	const char *sep = "";
	size_t i;
	long s;

	for (i = 0; i < a->n_devices; i++) {
		const struct device_stats *d = &a->devices[i];
		uint64_t orphans, unmatched;

		if ((s = device_slot(l, d->device)) < 0)
			continue;
		orphans = d->orphan_requests - l->acc[s].orphans_seen;
		unmatched = d->unmatched_completions -
			    l->acc[s].unmatched_seen;
		if (!orphans && !unmatched)
			continue;
		if (l->o.mode == LIVE_JSON)
			fprintf(out, "%s{\"device\": \"%u,%u\", "
				"\"orphan_requests\": %llu, "
				"\"unmatched_completions\": %llu}",
				*sep ? sep : "{\"holes_at_end\": [",
				blk_dev_major(d->device),
				blk_dev_minor(d->device),
				(unsigned long long)orphans,
				(unsigned long long)unmatched);
		else if (l->o.mode == LIVE_TEXT)
			fprintf(out, "# HOLE inferred on %u,%u when the trace "
				"ended: %llu request%s whose completion was "
				"lost, %llu completion%s whose issue was lost: "
				"the intervals since their issue counted %s in "
				"flight; the summary leaves %s out of the queue "
				"depth\n", blk_dev_major(d->device),
				blk_dev_minor(d->device),
				(unsigned long long)orphans,
				orphans == 1 ? "" : "s",
				(unsigned long long)unmatched,
				unmatched == 1 ? "" : "s",
				orphans == 1 ? "it" : "them",
				orphans == 1 ? "it" : "them");
		sep = ", ";
	}
	if (l->o.mode == LIVE_JSON && *sep) {
		/* every inferred window, as the trace's end left them (the
		 * end's holes often join windows begun earlier) */
		f->holes_from = 0;
		f->holes_to = a->n_loss;
		fputs("]", out);
		json_holes(out, a, f);
		fputs("}\n", out);
	}
}

static void print_unseen(struct live *l, const double *in_flight_s)
{
	const struct analysis *a = &l->a;
	FILE *out = l->o.out;
	const char *sep = "";
	uint64_t unseen = 0;
	size_t i;

	for (i = 0; i < a->n_devices; i++)
		unseen += a->devices[i].unseen_completions;
	if (!unseen)
		return;
	if (l->o.mode == LIVE_JSON)
		fputs("{\"unseen_completions\": [", out);
	for (i = 0; i < a->n_devices; i++) {
		const struct device_stats *d = &a->devices[i];

		if (!d->unseen_completions)
			continue;
		if (l->o.mode == LIVE_JSON)
			fprintf(out, "%s{\"device\": \"%u,%u\", \"requests\": "
				"%llu, \"counted_in_flight_s\": %.6f}", sep,
				blk_dev_major(d->device),
				blk_dev_minor(d->device),
				(unsigned long long)d->unseen_completions,
				in_flight_s[i]);
		else if (l->o.mode == LIVE_TEXT)
			fprintf(out, "# %u,%u: %llu completions the recorder "
				"did not see (noted at its end): their requests "
				"were counted in flight, %.3f s in all, in the "
				"intervals since their issue; the summary leaves "
				"them out of the queue depth\n",
				blk_dev_major(d->device),
				blk_dev_minor(d->device),
				(unsigned long long)d->unseen_completions,
				in_flight_s[i]);
		sep = ", ";
	}
	if (l->o.mode == LIVE_JSON)
		fputs("]}\n", out);
}

/* ---- the whole ---- */

const struct live_figures *live_figures(struct live *l)
{
	return &l->fig;
}

static void list_devices(struct live *l)
{
	size_t i, used = 0;

	for (i = 0; i < l->o.n_devices && used < sizeof(l->device_list); i++)
		used += (size_t)snprintf(l->device_list + used,
					 sizeof(l->device_list) - used, "%s%s",
					 i ? " " : "", l->o.device_paths[i]);
	l->fig.device_list = l->device_list;
}

struct live *live_open(const struct live_opts *o, struct iow_error *err)
{
	struct analysis_config cfg = { .stats_only = 1,
				       .on_sample = on_sample,
				       .on_depth_removed = on_depth_removed };
	struct live *l = calloc(1, sizeof(*l));

	if (!l) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	l->o = *o;
	l->interval_ns = (uint64_t)llround(o->interval_s * 1e9);
	l->hold_ns = LIVE_REORDER_MS * NS_PER_MS;
	if (!l->interval_ns)
		l->interval_ns = 1;
	cfg.sample_ctx = l;
	cfg.depth_ctx = l;
	clock_gettime(CLOCK_MONOTONIC, &l->t0);
	l->fig.interval_s = o->interval_s;
	l->fig.kernel_completed = UINT64_MAX;
	l->fig.sort = LIVE_SORT_BYTES;
	/* by process unless --by says otherwise (a -T tagger runs on the
	 * trace once it is recorded) */
	if (!l->o.by)
		l->o.by = BY_PROCESS;
	l->fig.tag_heading = l->o.by == BY_PROCESS ? "PID" : "TAG";
	l->fig.tracer = "";
	l->fig.trace_path = o->trace_path;
	l->fig.workload_output = o->workload_output;
	l->fig.stdin_mode = !o->n_devices;
	list_devices(l);
	/* a recording's causes come as the recorder writes them (the tap) */
	l->causes = o->n_devices ? cause_table_live(err) :
				   cause_table_open(NULL, err);
	l->ctags = l->causes ? causetag_new((enum cause_by)l->o.by,
					    l->causes) : NULL;
	if (!l->ctags || analysis_init(&l->a, &cfg, err) < 0) {
		if (!l->ctags)
			iow_fail(err, "out of memory");
		live_close(l);
		return NULL;
	}
	analysis_enable_tags(&l->a);
	if (o->mode == LIVE_SCREEN) {
		l->view = live_view_open(o->out, o->key_fd, err);
		if (!l->view) {
			live_close(l);
			return NULL;
		}
	}
	return l;
}

void live_close(struct live *l)
{
	size_t i;

	if (!l)
		return;
	live_view_close(l->view);
	if (l->o.own_key_fd && l->o.key_fd >= 0)
		close(l->o.key_fd);
	analysis_free(&l->a);
	causetag_free(l->ctags);
	cause_table_free(l->causes);
	for (i = 0; i < l->n_cpus; i++)
		free(l->cpus[i].ring);
	free(l->cpus);
	free(l->acc);
	free(l->procs);
	free(l->fig.devs);
	free(l->fig.rows);
	free(l);
}

struct live *live_start(const struct options *o, const char *trace_path,
			const char *workload_output, struct iow_error *err)
{
	struct live_opts lo = {
		.mode = (enum live_mode)o->live,
		.interval_s = o->live_interval_s > 0 ? o->live_interval_s : 1,
		.device_paths = o->devices,
		.n_devices = o->n_devices,
		.trace_path = trace_path,
		.workload_output = workload_output,
		.by = o->by,
		.tagger = o->tagger != NULL,
		.out = stdout,
		.key_fd = -1,
	};
	struct live *l;

	if (lo.mode == LIVE_SCREEN && o->n_devices && isatty(0)) {
		lo.key_fd = 0;
	} else if (lo.mode == LIVE_SCREEN) {
		lo.key_fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
		lo.own_key_fd = 1;
	}
	l = live_open(&lo, err);
	if (!l && lo.own_key_fd && lo.key_fd >= 0)
		close(lo.key_fd);
	return l;
}
