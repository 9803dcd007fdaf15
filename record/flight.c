/*
 * flight.c: the flight recorder (flight.h). The records live in chunks
 * of memory in the order they were taken (each drain's merged by time);
 * the oldest chunks go when they fall out of the window or when the
 * memory bound needs their room. A capture reads the chunks that span
 * its window and writes through rec_out, as a recording would.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "flight.h"
#include "flight_int.h"
#include "rec_out.h"
#include "record/bpf/blkrec.h"
#include "tracefs.h"

#define CHUNK_MIN	(64u << 10)
#define CHUNK_MAX	(4u << 20)
#define SLOT_NS		100000000ull	/* a percentile's slot: 100 ms */
#define N_SLOTS		10		/* a sliding second */
#define SUB_BUCKETS	16		/* per power of two */
#define N_BUCKETS	(64 * SUB_BUCKETS)
#define MAX_PENDING	16
#define FIGURE_LEN	160
#define PIDS_MAX	65536		/* PROCESS notes kept for captures */


/* A request between its queue and completion, by device and sector. */
struct inflight {
	uint64_t sector;
	uint32_t dev;
	uint32_t used;
	uint64_t q_ns, d_ns;
};

struct pct_state {
	uint32_t (*slots)[N_BUCKETS];	/* N_SLOTS histograms */
	uint64_t counts[N_SLOTS];
	uint64_t slot;			/* the newest slot's number */
	uint64_t first_slot;		/* where the second began to fill */
	int started;
};

struct capture {
	uint64_t fired_ns, start_ns, end_ns;
	char trigger[FLIGHT_TRIGGER_TEXT + 16];
	char figure[FIGURE_LEN];
	unsigned joined;
};

struct pid_name {
	uint32_t pid;
	char comm[16];
};

struct flight {
	struct flight_opts o;
	struct flight_trigger triggers[FLIGHT_MAX_TRIGGERS];
	struct pct_state pct[FLIGHT_MAX_TRIGGERS];
	char *dir, *name;
	struct record_device *devs;
	uint32_t devices[BLKREC_MAX_DEVS];
	uint64_t depth[BLKREC_MAX_DEVS];
	size_t n_devs;
	unsigned n_cpus;
	int version8;
	struct recnote_clock clock;
	int has_clock;
	/* the records */
	struct flight_chunk *head, *tail;
	struct flight_chunk *spare;		/* one let go, to be used again */
	size_t chunk_size;
	uint64_t held_bytes;		/* chunks, headers included */
	uint64_t oldest_ns;		/* the oldest record kept, 0 none */
	uint64_t newest_ns;
	uint64_t complete_ns;
	uint64_t mem_cut_ns;		/* the newest record let go for the
					 * memory bound */
	/* the requests in flight */
	struct inflight *map;
	size_t map_cap, map_len;
	/* PROCESS notes seen */
	struct pid_name *pids;
	size_t n_pids, cap_pids;
	/* captures waiting for their after part */
	struct capture pending[MAX_PENDING];
	size_t n_pending;
	unsigned next_number;
	int kernel_triggers;		/* the single-I/O ones: the kernel's */
	flight_pending_fn pending_loss;
	void *pending_ctx;
	struct flight_result res;
	const struct blk_io_trace **heads;	/* the merge's */
	size_t *pos;
	struct flight_actions actions;	/* seen, numbered (compact records) */
	uint64_t raw_bytes;		/* the records as blktrace's */
	uint64_t compact_bytes;		/* ... as held */
	/* the kernel's counts as read on each drain, the oldest first */
	struct count_sample {
		uint64_t at_ns;
		struct flight_counts c;
	} *counts;
	size_t n_counts, cap_counts;
};

/* ---- the triggers' language ---- */

static const char trigger_grammar[] =
	"expected [DEVICE.][read.|write.]METRIC>VALUE: METRIC d2c, q2c or "
	"q2d (one I/O's time, VALUE as 10ms, 500us, 1s), pNN(d2c|q2c|q2d) "
	"(a percentile over a sliding second, as p99(q2c)>5ms) or depth "
	"(requests in flight, as depth>64)";

static int parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0) || !isfinite(v))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v * units[i].ns >= 1e18)
				return -1;
			*ns = (uint64_t)(v * units[i].ns + 0.5);
			return *ns ? 0 : -1;
		}
	return -1;
}

static int parse_metric(const char *s, size_t len, struct flight_trigger *t)
{
	static const char *const names[] = { "d2c", "q2c", "q2d" };
	char buf[32];
	size_t i;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!strcmp(buf, "depth")) {
		t->metric = FLIGHT_DEPTH;
		return 0;
	}
	if (buf[0] == 'p' && strchr(buf, '(')) {
		char *end, *open = strchr(buf, '(');

		errno = 0;
		t->pct = strtod(buf + 1, &end);
		if (end != open || errno || !(t->pct > 0) || t->pct >= 100 ||
		    buf[len - 1] != ')')
			return -1;
		buf[len - 1] = '\0';
		memmove(buf, open + 1, strlen(open + 1) + 1);
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(buf, names[i])) {
			t->metric = (enum flight_metric)i;
			return 0;
		}
	return -1;
}

int flight_trigger_parse(const char *expr, struct flight_trigger *t,
			 char *why, size_t why_size)
{
	const char *rest = expr, *gt, *dot, *paren;
	char word[32];

	memset(t, 0, sizeof(*t));
	if (strlen(expr) >= sizeof(t->text))
		goto bad;
	snprintf(t->text, sizeof(t->text), "%s", expr);
	gt = strchr(expr, '>');
	if (!gt)
		goto bad;
	/* the scopes end at the metric: before its '(' (p99.9(d2c)) */
	paren = memchr(expr, '(', (size_t)(gt - expr));
	/* the scopes: a device, then a class, each ending in a dot
	 * (the metric's own dots are in its value, after the '>') */
	while ((dot = memchr(rest, '.', (size_t)((paren ? paren : gt) -
						  rest))) &&
	       !isdigit((unsigned char)dot[1])) {	/* p99.9: no scope */
		size_t len = (size_t)(dot - rest);

		if (!len || len >= sizeof(word))
			goto bad;
		memcpy(word, rest, len);
		word[len] = '\0';
		if (!strcmp(word, "read") && !t->cls)
			t->cls = FLIGHT_READ;
		else if (!strcmp(word, "write") && !t->cls)
			t->cls = FLIGHT_WRITE;
		else if (!t->device[0] && !t->cls &&
			 len < sizeof(t->device))
			memcpy(t->device, word, len + 1);
		else
			goto bad;
		rest = dot + 1;
	}
	if (parse_metric(rest, (size_t)(gt - rest), t))
		goto bad;
	if (t->metric == FLIGHT_DEPTH) {
		char *end;
		unsigned long long v;

		if (t->cls)
			goto bad;	/* depth counts every class */
		errno = 0;
		v = strtoull(gt + 1, &end, 10);
		if (end == gt + 1 || *end || errno || !v || v > 1u << 20 ||
		    gt[1] == '-')
			goto bad;
		t->threshold = v;
	} else if (parse_time_ns(gt + 1, &t->threshold)) {
		goto bad;
	}
	return 0;
bad:
	snprintf(why, why_size, "--trigger %s: %s", expr, trigger_grammar);
	return -1;
}

/* ---- the store ---- */

static const char *device_label(const struct flight *f, uint32_t dev)
{
	size_t i;

	for (i = 0; i < f->n_devs; i++)
		if (f->devices[i] == dev) {
			const char *p = f->devs[i].path, *s = strrchr(p, '/');

			return s ? s + 1 : p;
		}
	return "?";
}

/* The oldest chunk goes: kept as the spare (its pages mapped) where
 * there is none, else freed. */
static void drop_oldest(struct flight *f)
{
	struct flight_chunk *c = f->head;

	f->head = c->next;
	if (!f->head)
		f->tail = NULL;
	if (!f->spare && c->cap == f->chunk_size) {
		f->spare = c;
	} else {
		f->held_bytes -= sizeof(*c) + c->cap;
		bigmem_free(c);
	}
	f->oldest_ns = f->head ? f->head->min_ns : 0;
}

/* Room for size bytes at the tail: the spare chunk, or a new one, the
 * oldest let go for it where the bound says. A new chunk's pages are
 * mapped in one call (a page fault each cost 12-20 us here: 1024 of
 * them a 4 MiB chunk); once the window is full the chunks go round. */
static int make_room(struct flight *f, size_t size, struct iow_error *err)
{
	struct flight_chunk *c;
	size_t cap = f->chunk_size;

	if (f->tail && f->tail->len + size <= f->tail->cap)
		return 0;
	if (size > cap)
		cap = size;
	for (;;) {
		if (f->spare && f->spare->cap >= size) {
			c = f->spare;
			f->spare = NULL;
			break;
		}
		if (f->head &&
		    f->held_bytes + sizeof(*c) + cap > f->o.mem_bytes) {
			f->res.evicted_by_mem += f->head->records;
			f->res.mem_bound = 1;
			if (f->head->max_ns > f->mem_cut_ns)
				f->mem_cut_ns = f->head->max_ns;
			drop_oldest(f);
			continue;
		}
		c = bigmem_calloc(sizeof(*c) + cap);
		if (!c)
			return iow_fail(err, "out of memory for the flight "
					"recorder's records (%zu bytes)", cap);
		c->cap = cap;
		f->held_bytes += sizeof(*c) + cap;
		break;
	}
	c->next = NULL;
	c->len = 0;
	c->min_ns = UINT64_MAX;
	c->max_ns = 0;
	c->records = 0;
	c->base_ns = c->last_ns = 0;
	c->last_pid = 0;
	if (f->tail)
		f->tail->next = c;
	else
		f->head = c;
	f->tail = c;
	if (f->held_bytes > f->res.peak_bytes)
		f->res.peak_bytes = f->held_bytes;
	return 0;
}

static int keep(struct flight *f, const struct blk_io_trace *t,
		struct iow_error *err)
{
	struct flight_chunk *c;
	size_t size;

	/* only records and loss records go to captures */
	if (t->magic != (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7) &&
	    t->magic != BLKREC_LOSS_MAGIC)
		return 0;
	if (make_room(f, FLIGHT_COMPACT_MAX + t->pdu_len, err))
		return -1;
	c = f->tail;
	if (!c->records)
		c->base_ns = c->last_ns = t->time;
	size = (size_t)(flight_encode(&f->actions, f->devices, f->n_devs, c,
				      t, c->data + c->len) - c->data) - c->len;
	c->len += size;
	c->records++;
	f->raw_bytes += sizeof(*t) + t->pdu_len;
	f->compact_bytes += size;
	if (t->time < c->min_ns)
		c->min_ns = t->time;
	if (t->time > c->max_ns)
		c->max_ns = t->time;
	if (!f->oldest_ns || f->head->min_ns < f->oldest_ns)
		f->oldest_ns = f->head->min_ns;
	if (t->time > f->newest_ns)
		f->newest_ns = t->time;
	f->res.records++;
	return 0;
}

/* The chunks older than the window (and than every waiting capture's
 * start) go. */
static void expire(struct flight *f)
{
	uint64_t from = f->complete_ns > f->o.window_ns ?
			f->complete_ns - f->o.window_ns : 0;
	size_t i;

	for (i = 0; i < f->n_pending; i++)
		if (f->pending[i].start_ns < from)
			from = f->pending[i].start_ns;
	while (f->head && f->head != f->tail && f->head->max_ns < from)
		drop_oldest(f);
}

/* ---- the requests in flight ---- */

static size_t slot_of(const struct flight *f, uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (f->map_cap - 1);
}

static struct inflight *find(struct flight *f, uint32_t dev, uint64_t sector)
{
	size_t i = slot_of(f, dev, sector);

	while (f->map[i].used) {
		if (f->map[i].dev == dev && f->map[i].sector == sector)
			return &f->map[i];
		i = (i + 1) & (f->map_cap - 1);
	}
	return NULL;
}

/* Removes e, moving back those after it that it kept from their slot. */
static void forget(struct flight *f, struct inflight *e)
{
	size_t i = (size_t)(e - f->map), j = i, home;

	f->map[i].used = 0;
	f->map_len--;
	for (;;) {
		j = (j + 1) & (f->map_cap - 1);
		if (!f->map[j].used)
			return;
		home = slot_of(f, f->map[j].dev, f->map[j].sector);
		/* j's entry may move to i if its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			f->map[i] = f->map[j];
			f->map[j].used = 0;
			i = j;
		}
	}
}

static int map_resize(struct flight *f, size_t cap, uint64_t stale_before,
		      struct iow_error *err)
{
	struct inflight *old = f->map;
	size_t old_cap = f->map_cap, i;

	f->map = calloc(cap, sizeof(*f->map));
	if (!f->map) {
		f->map = old;
		return iow_fail(err, "out of memory for the requests in "
				"flight");
	}
	f->map_cap = cap;
	f->map_len = 0;
	for (i = 0; i < old_cap; i++) {
		struct inflight *e = &old[i];
		uint64_t last = e->d_ns > e->q_ns ? e->d_ns : e->q_ns;
		size_t s;

		/* a bio merged into a request that completed under another
		 * sector never completes as itself */
		if (!e->used || last < stale_before)
			continue;
		s = slot_of(f, e->dev, e->sector);
		while (f->map[s].used)
			s = (s + 1) & (cap - 1);
		f->map[s] = *e;
		f->map_len++;
	}
	free(old);
	return 0;
}

static struct inflight *add(struct flight *f, uint32_t dev, uint64_t sector,
			    uint64_t now, struct iow_error *err)
{
	struct inflight *e = find(f, dev, sector);
	size_t i;

	if (e)
		return e;
	if ((f->map_len + 1) * 2 > f->map_cap) {
		uint64_t stale = now > f->o.window_ns ? now - f->o.window_ns : 0;

		if (map_resize(f, f->map_cap, stale, err))
			return NULL;
		if ((f->map_len + 1) * 4 > f->map_cap &&
		    map_resize(f, f->map_cap * 2, 0, err))
			return NULL;
	}
	i = slot_of(f, dev, sector);
	while (f->map[i].used)
		i = (i + 1) & (f->map_cap - 1);
	e = &f->map[i];
	memset(e, 0, sizeof(*e));
	e->used = 1;
	e->dev = dev;
	e->sector = sector;
	f->map_len++;
	return e;
}

/* ---- the triggers ---- */

static enum flight_class class_of(uint32_t action)
{
	if (blk_is_write(action))
		return FLIGHT_WRITE;
	if (action & BLK_TC_ACT(BLK_TC_READ))
		return FLIGHT_READ;
	return FLIGHT_ANY;
}

static int applies(const struct flight_trigger *tr, uint32_t dev,
		   enum flight_class cls)
{
	return (!tr->dev || tr->dev == dev) && (!tr->cls || tr->cls == cls);
}

static void fire(struct flight *f, uint64_t at_ns, const char *what,
		 const char *figure)
{
	struct capture *c;
	uint64_t before = f->o.before_ns < f->o.window_ns ? f->o.before_ns :
			  f->o.window_ns;

	if (f->n_pending && at_ns <= f->pending[f->n_pending - 1].end_ns) {
		f->pending[f->n_pending - 1].joined++;
		f->res.joined++;
		return;
	}
	if (f->n_pending == MAX_PENDING) {
		f->res.joined++;	/* cannot happen with a window > 0 */
		return;
	}
	c = &f->pending[f->n_pending++];
	memset(c, 0, sizeof(*c));
	c->fired_ns = at_ns;
	c->start_ns = at_ns > before ? at_ns - before : 0;
	c->end_ns = at_ns + f->o.after_ns;
	snprintf(c->trigger, sizeof(c->trigger), "%s", what);
	snprintf(c->figure, sizeof(c->figure), "%s", figure);
}

void flight_fire(struct flight *f, uint64_t now_ns, const char *what)
{
	fire(f, now_ns, what, "asked for");
}

static const char *class_name(enum flight_class c)
{
	return c == FLIGHT_WRITE ? "write" : c == FLIGHT_READ ? "read" : "I/O";
}

static const char *metric_name(enum flight_metric m)
{
	static const char *const names[] = { "d2c", "q2c", "q2d", "depth" };

	return names[m];
}

static unsigned bucket_of(uint64_t ns)
{
	unsigned e, sub;

	if (ns < SUB_BUCKETS)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	sub = (unsigned)((ns >> (e - 4)) & (SUB_BUCKETS - 1));
	return (e - 3) * SUB_BUCKETS + sub;
}

/* The largest value of a bucket. */
static uint64_t bucket_top(unsigned b)
{
	unsigned e, sub;

	if (b < SUB_BUCKETS)
		return b;
	e = b / SUB_BUCKETS + 3;
	sub = b % SUB_BUCKETS;
	return ((uint64_t)(SUB_BUCKETS + sub + 1) << (e - 4)) - 1;
}

/* The percentile over the slots, as the bucket's top. */
static uint64_t pct_value(const struct flight_trigger *tr,
			  const struct pct_state *p, uint64_t *n)
{
	uint64_t total = 0, rank, seen = 0;
	unsigned b, s;

	for (s = 0; s < N_SLOTS; s++)
		total += p->counts[s];
	*n = total;
	if (!total)
		return 0;
	rank = (uint64_t)ceil(tr->pct / 100.0 * (double)total);
	if (!rank)
		rank = 1;
	for (b = 0; b < N_BUCKETS; b++) {
		for (s = 0; s < N_SLOTS; s++)
			seen += p->slots[s][b];
		if (seen >= rank)
			return bucket_top(b);
	}
	return bucket_top(N_BUCKETS - 1);
}

/* Slots up to the one of now_ns: each closing one's second is looked
 * at, then the slot is emptied for its next turn. */
static void pct_advance(struct flight *f, size_t k, uint64_t now_ns)
{
	const struct flight_trigger *tr = &f->triggers[k];
	struct pct_state *p = &f->pct[k];
	uint64_t slot = now_ns / SLOT_NS, v, n;
	char figure[FIGURE_LEN];

	if (!p->started) {
		p->started = 1;
		p->slot = p->first_slot = slot;
		return;
	}
	while (p->slot < slot) {
		/* a whole second of slots, not the first part of one: a
		 * tenth of a second's few I/Os make no p99 */
		int whole = p->slot + 1 - p->first_slot >= N_SLOTS;

		v = whole ? pct_value(tr, p, &n) : (n = 0);
		if (n && v > tr->threshold) {
			snprintf(figure, sizeof(figure),
				 "p%g(%s) %.3f ms of %llu %s%ss in the second "
				 "to %.3f s", tr->pct, metric_name(tr->metric),
				 (double)v / 1e6, (unsigned long long)n,
				 tr->cls ? class_name(tr->cls) : "completion",
				 "", (double)((p->slot + 1) * SLOT_NS) / 1e9);
			fire(f, (p->slot + 1) * SLOT_NS, tr->text, figure);
		}
		p->slot++;
		if (slot - p->slot >= N_SLOTS) {
			/* a quiet stretch: every slot empties */
			memset(p->slots, 0, N_SLOTS * sizeof(*p->slots));
			memset(p->counts, 0, sizeof(p->counts));
			p->slot = p->first_slot = slot;
			break;
		}
		memset(p->slots[p->slot % N_SLOTS], 0, sizeof(*p->slots));
		p->counts[p->slot % N_SLOTS] = 0;
	}
}

static void latency(struct flight *f, const struct blk_io_trace *t,
		    enum flight_class cls, const uint64_t v[3])
{
	char figure[FIGURE_LEN];
	size_t k;

	for (k = 0; k < f->o.n_triggers; k++) {
		const struct flight_trigger *tr = &f->triggers[k];
		uint64_t x;

		if (tr->metric == FLIGHT_DEPTH || !applies(tr, t->device, cls) ||
		    (f->kernel_triggers && tr->pct == 0))
			continue;
		x = v[tr->metric];
		if (x == UINT64_MAX)
			continue;
		if (tr->pct > 0) {
			struct pct_state *p = &f->pct[k];

			pct_advance(f, k, t->time);
			p->slots[p->slot % N_SLOTS][bucket_of(x)]++;
			p->counts[p->slot % N_SLOTS]++;
			continue;
		}
		if (x <= tr->threshold)
			continue;
		snprintf(figure, sizeof(figure),
			 "%s of %u bytes at sector %llu of %s, %s %.3f ms",
			 class_name(cls), t->bytes,
			 (unsigned long long)t->sector,
			 device_label(f, t->device), metric_name(tr->metric),
			 (double)x / 1e6);
		fire(f, t->time, tr->text, figure);
	}
}

void flight_kernel_triggers(struct flight *f)
{
	f->kernel_triggers = 1;
}

void flight_fire_kernel(struct flight *f, const struct blkrec_fire *x,
			uint64_t noticed_ns)
{
	char figure[FIGURE_LEN];
	const struct flight_trigger *tr;

	if (x->trigger >= f->o.n_triggers)
		return;
	tr = &f->triggers[x->trigger];
	snprintf(figure, sizeof(figure),
		 "%s of %u bytes at sector %llu of %s, %s %.3f ms (the kernel "
		 "woke us %.3f ms after its completion)",
		 class_name(class_of(x->action)), x->bytes,
		 (unsigned long long)x->sector, device_label(f, x->dev),
		 metric_name(tr->metric), (double)x->value_ns / 1e6,
		 noticed_ns > x->complete_ns ?
			(double)(noticed_ns - x->complete_ns) / 1e6 : 0.0);
	fire(f, x->complete_ns, tr->text, figure);
}

void flight_fires_dropped(struct flight *f, uint64_t n)
{
	f->res.joined += (unsigned)n;
}

static void depth_check(struct flight *f, const struct blk_io_trace *t,
			uint64_t depth)
{
	char figure[FIGURE_LEN];
	size_t k;

	for (k = 0; k < f->o.n_triggers; k++) {
		const struct flight_trigger *tr = &f->triggers[k];

		if (tr->metric != FLIGHT_DEPTH || (tr->dev && tr->dev != t->device)
		    || depth <= tr->threshold)
			continue;
		snprintf(figure, sizeof(figure), "%llu requests in flight on %s",
			 (unsigned long long)depth, device_label(f, t->device));
		fire(f, t->time, tr->text, figure);
	}
}

static void remember_pid(struct flight *f, const struct blk_io_trace *t)
{
	size_t i;

	for (i = 0; i < f->n_pids; i++)
		if (f->pids[i].pid == t->pid)
			break;
	if (i == f->n_pids) {
		if (f->n_pids == PIDS_MAX)
			return;
		if (f->n_pids == f->cap_pids) {
			size_t cap = f->cap_pids ? f->cap_pids * 2 : 64;
			struct pid_name *p = realloc(f->pids, cap * sizeof(*p));

			if (!p)
				return;
			f->pids = p;
			f->cap_pids = cap;
		}
		f->n_pids++;
	}
	f->pids[i].pid = t->pid;
	memset(f->pids[i].comm, 0, sizeof(f->pids[i].comm));
	memcpy(f->pids[i].comm, t + 1,
	       t->pdu_len < sizeof(f->pids[i].comm) ? t->pdu_len :
						       sizeof(f->pids[i].comm));
}

/* One record, in time order: matched with its request's others. */
static int evaluate(struct flight *f, const struct blk_io_trace *t,
		    struct iow_error *err)
{
	unsigned code = blk_action_code(t->action);
	enum flight_class cls;
	struct inflight *e;
	int d;

	if (t->magic != (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7))
		return 0;
	if (blk_is_note(t->action)) {
		if (code == BLK_TN_PROCESS)
			remember_pid(f, t);
		return 0;
	}
	d = flight_dev_index(f->devices, f->n_devs, t->device);
	if (d < 0)
		return 0;
	cls = class_of(t->action);
	switch (code) {
	case BLK_TA_QUEUE:
		if (!(e = add(f, t->device, t->sector, t->time, err)))
			return -1;
		e->q_ns = t->time;
		e->d_ns = 0;
		break;
	case BLK_TA_BACKMERGE:
		if ((e = find(f, t->device, t->sector)) && !e->d_ns)
			forget(f, e);
		break;
	case BLK_TA_ISSUE:
		if (!(e = add(f, t->device, t->sector, t->time, err)))
			return -1;
		if (!e->d_ns)
			f->depth[d]++;
		e->d_ns = t->time;
		depth_check(f, t, f->depth[d]);
		break;
	case BLK_TA_REQUEUE:
		if ((e = find(f, t->device, t->sector)) && e->d_ns) {
			e->d_ns = 0;
			f->depth[d] -= f->depth[d] > 0;
		}
		break;
	case BLK_TA_COMPLETE: {
		uint64_t v[3] = { UINT64_MAX, UINT64_MAX, UINT64_MAX };

		e = find(f, t->device, t->sector);
		if (!e)
			break;
		/* two requests of one sector at once are one entry: a
		 * completion before the issue it met is not its own */
		if (t->time < e->d_ns || t->time < e->q_ns) {
			if (e->d_ns)
				f->depth[d] -= f->depth[d] > 0;
			forget(f, e);
			break;
		}
		if (e->d_ns) {
			v[FLIGHT_D2C] = t->time - e->d_ns;
			f->depth[d] -= f->depth[d] > 0;
		}
		if (e->q_ns)
			v[FLIGHT_Q2C] = t->time - e->q_ns;
		if (e->q_ns && e->d_ns)
			v[FLIGHT_Q2D] = e->d_ns - e->q_ns;
		forget(f, e);
		latency(f, t, cls, v);
		break;
	}
	default:
		break;
	}
	return 0;
}

/* ---- captures ---- */

static int is_capture_file(const char *file, const char *name,
			   unsigned *number)
{
	size_t len = strlen(name);
	char *end;
	unsigned long n;

	if (strncmp(file, name, len) || file[len] != '-' ||
	    !(file[len + 1] >= '1' && file[len + 1] <= '9'))
		return 0;
	n = strtoul(file + len + 1, &end, 10);
	if (strcmp(end, ".blktrace.0") || n > 1000000)
		return 0;
	*number = (unsigned)n;
	return 1;
}

/* Captures number on from those an earlier run left (never replaced). */
static unsigned first_number(const char *dir, const char *name)
{
	unsigned n, most = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		if (is_capture_file(de->d_name, name, &n) && n > most)
			most = n;
	if (d)
		closedir(d);
	return most + 1;
}

static void shifted_clock(const struct recnote_clock *c, uint64_t at_ns,
			  struct recnote_clock *out)
{
	int64_t d = (int64_t)(at_ns - c->trace_ns);

	*out = *c;
	out->trace_ns = at_ns;
	out->boot_ns = (uint64_t)((int64_t)c->boot_ns + d);
	out->real_ns = c->real_ns + d;
}

static int put_note(struct rec_out *out, uint32_t device, uint64_t at,
		    unsigned code, uint32_t pid, const void *text,
		    uint16_t len, struct iow_error *err)
{
	struct blk_io_trace note = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
		.action = BLK_TC_ACT(BLK_TC_NOTIFY) | code,
		.time = at, .pid = pid, .device = device, .pdu_len = len,
	};

	return rec_out_put(out, &note, text, err);
}

static void count_note(const struct flight *f, const char *name,
		       uint64_t from, uint64_t to, char *text, size_t size);

/* Whether the memory bound let go a record of the capture's window: a
 * record let go at all (a window whose start is the clock's 0 is not
 * cut by a bound that never cut), and at or after the window's start. */
static int mem_took_start(const struct flight *f, const struct capture *c)
{
	return f->mem_cut_ns && f->mem_cut_ns >= c->start_ns;
}

/* The notes a capture opens with: host, devices, clock, the wall clock,
 * the trigger, the kernel's counts, the processes. */
static int capture_notes(struct flight *f, struct rec_out *out,
			 const struct capture *c, uint64_t from,
			 const char *name, struct iow_error *err)
{
	struct recnote_clock clock;
	char text[768];
	uint32_t words[2];
	size_t i;
	int len;

	shifted_clock(&f->clock, from, &clock);
	if (rec_out_facts(out, f->has_clock ? &clock : NULL, f->devs,
			  f->n_devs, err))
		return -1;
	words[0] = (uint32_t)(clock.real_ns / 1000000000);
	words[1] = (uint32_t)(clock.real_ns % 1000000000);
	if (f->has_clock && put_note(out, f->devices[0], from,
				     BLK_TN_TIMESTAMP, (uint32_t)getpid(),
				     words, sizeof(words), err))
		return -1;
	len = snprintf(text, sizeof(text),
		       "flight capture %s: %s at %llu ns: %s; window %llu to "
		       "%llu ns; %u more triggers joined%s", name, c->trigger,
		       (unsigned long long)c->fired_ns, c->figure,
		       (unsigned long long)from,
		       (unsigned long long)c->end_ns, c->joined,
		       mem_took_start(f, c) ?
		       "; the memory bound let the records before go" : "");
	if (len < 0 || (size_t)len >= sizeof(text))
		len = sizeof(text) - 1;
	text[len] = '\0';
	if (put_note(out, f->devices[0], from, BLK_TN_MESSAGE, 0, text,
		     (uint16_t)(len + 1), err))
		return -1;
	count_note(f, name, from, c->end_ns, text, sizeof(text));
	if (text[0] && put_note(out, f->devices[0], from, BLK_TN_MESSAGE, 0,
				text, (uint16_t)(strlen(text) + 1), err))
		return -1;
	for (i = 0; i < f->n_pids; i++)
		if (put_note(out, f->devices[0], from, BLK_TN_PROCESS,
			     f->pids[i].pid, f->pids[i].comm,
			     sizeof(f->pids[i].comm), err))
			return -1;
	return 0;
}

/*
 * Every record the store holds from lo to hi (both included), oldest
 * chunk first, to fn; a non-zero return from fn stops the walk and is
 * returned.
 */
static int held_each(const struct flight *f, uint64_t lo, uint64_t hi,
		     int (*fn)(void *arg, struct blk_io_trace *t,
			       const unsigned char *pdu),
		     void *arg)
{
	const struct flight_chunk *c;
	int r;

	for (c = f->head; c; c = c->next) {
		uint64_t last_ns = c->base_ns;
		uint32_t last_pid = 0;
		size_t pos = 0;
		struct blk_io_trace t;
		const unsigned char *pdu;

		if (c->max_ns < lo || c->min_ns > hi)
			continue;
		while (!flight_decode(&f->actions, f->devices, f->n_devs, c,
				      &pos, &last_ns, &last_pid, &t, &pdu))
			if (t.time >= lo && t.time <= hi &&
			    (r = fn(arg, &t, pdu)) != 0)
				return r;
	}
	return 0;
}

struct capture_arg {
	struct flight *f;
	struct rec_out *out;
	uint64_t *n;
	struct iow_error *err;
};

static int capture_one(void *arg, struct blk_io_trace *t,
		       const unsigned char *pdu)
{
	struct capture_arg *x = arg;

	if (t->magic == BLKREC_LOSS_MAGIC) {
		struct lossnote l = { t->sector, 1, t->cpu, 0, t->time };

		memcpy(&l.t0_ns, pdu, sizeof(l.t0_ns));
		return rec_out_loss(x->out, &l, x->f->devices, x->f->n_devs,
				    x->err) ? -1 : 0;
	}
	if (t->magic != (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7))
		return 0;
	if (!blk_is_note(t->action)) {
		rec_out_action_hi(x->out, t->sequence);
		++*x->n;
	}
	return rec_out_put(x->out, t, pdu, x->err) ? -1 : 0;
}

static int capture_records(struct flight *f, struct rec_out *out,
			   uint64_t from, uint64_t to, uint64_t *n,
			   struct iow_error *err)
{
	struct capture_arg x = { f, out, n, err };

	*n = 0;
	return held_each(f, from, to, capture_one, &x);
}

void flight_kernel_counts(struct flight *f, uint64_t at_ns,
			  const struct flight_counts *c)
{
	uint64_t need = f->oldest_ns;
	size_t i, drop = 0;

	for (i = 0; i < f->n_pending; i++)
		if (f->pending[i].start_ns < need)
			need = f->pending[i].start_ns;
	/* the readings before the oldest record kept go, but the last
	 * of them (a window's start reads from it) */
	while (drop + 1 < f->n_counts && f->counts[drop + 1].at_ns <= need)
		drop++;
	if (drop) {
		memmove(f->counts, f->counts + drop,
			(f->n_counts - drop) * sizeof(*f->counts));
		f->n_counts -= drop;
	}
	if (f->n_counts == f->cap_counts) {
		size_t cap = f->cap_counts ? f->cap_counts * 2 : 64;
		struct count_sample *p = realloc(f->counts, cap * sizeof(*p));

		if (!p)
			return;	/* the notes then say they are not known */
		f->counts = p;
		f->cap_counts = cap;
	}
	f->counts[f->n_counts].at_ns = at_ns;
	f->counts[f->n_counts++].c = *c;
}

static int count_one(void *arg, struct blk_io_trace *t,
		     const unsigned char *pdu)
{
	struct flight_counts *h = arg;

	(void)pdu;
	h->records++;
	if (t->magic == BLKREC_LOSS_MAGIC) {
		h->lost += t->sector;
		return 0;
	}
	if (blk_is_note(t->action))
		return 0;
	if (blk_action_code(t->action) == BLK_TA_ISSUE)
		h->issued++;
	else if (blk_action_code(t->action) == BLK_TA_COMPLETE)
		h->completed++;
	return 0;
}

/* What the store holds from a to b (b left out): records, issues,
 * completions. */
static void held_counts(const struct flight *f, uint64_t a, uint64_t b,
			struct flight_counts *h)
{
	memset(h, 0, sizeof(*h));
	if (b > a)
		held_each(f, a, b - 1, count_one, h);
}

/*
 * The kernel's counts between the readings around the window [from,
 * to] against what the store holds between them: a note (a message),
 * "" where the readings do not reach around it.
 */
static void count_note(const struct flight *f, const char *name,
		       uint64_t from, uint64_t to, char *text, size_t size)
{
	const struct count_sample *a = NULL, *b = NULL;
	struct flight_counts h;
	size_t i;

	text[0] = '\0';
	for (i = 0; i < f->n_counts; i++) {
		if (f->counts[i].at_ns <= from)
			a = &f->counts[i];
		if (f->counts[i].at_ns >= to && !b)
			b = &f->counts[i];
	}
	/* at the stop, the last reading (the programs detached) */
	if (!b && f->n_counts)
		b = &f->counts[f->n_counts - 1];
	if (!a || !b || b->at_ns <= a->at_ns)
		return;
	held_counts(f, a->at_ns, b->at_ns, &h);
	snprintf(text, size,
		 "flight capture %.200s: kernel counts from %llu to %llu ns (the "
		 "readings around its window): %llu records, %llu requests "
		 "issued, %llu completed, %llu events lost; held from %llu to "
		 "%llu ns: %llu records, %llu issues, %llu completions, %llu "
		 "events noted lost", name, (unsigned long long)a->at_ns,
		 (unsigned long long)b->at_ns,
		 (unsigned long long)(b->c.records - a->c.records),
		 (unsigned long long)(b->c.issued - a->c.issued),
		 (unsigned long long)(b->c.completed - a->c.completed),
		 (unsigned long long)(b->c.lost - a->c.lost),
		 (unsigned long long)a->at_ns, (unsigned long long)b->at_ns,
		 (unsigned long long)h.records, (unsigned long long)h.issued,
		 (unsigned long long)h.completed, (unsigned long long)h.lost);
}

/* The kernel's counted losses not yet on a ring, inside the window. */
static int capture_pending_loss(struct flight *f, struct rec_out *out,
				uint64_t to, struct iow_error *err)
{
	unsigned cpu;

	if (!f->pending_loss)
		return 0;
	for (cpu = 0; cpu < f->n_cpus; cpu++) {
		uint64_t t0 = 0, n = f->pending_loss(f->pending_ctx, cpu, &t0);
		struct lossnote l = { n, 1, cpu, t0, to };

		if (n && t0 <= to && rec_out_loss(out, &l, f->devices,
						  f->n_devs, err))
			return -1;
	}
	return 0;
}

static void capture_path(const struct flight *f, const char *name,
			 unsigned cpu, char *path, size_t size)
{
	snprintf(path, size, "%s/%s.blktrace.%u", f->dir, name, cpu);
}

/* This thread's CPU time: what writing a capture took, whatever else
 * the machine ran meanwhile. */
static double thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The temporary files away, on a failure. */
static void capture_discard(const struct flight *f, const char *tmp)
{
	char path[4096 + 64];
	unsigned cpu;

	for (cpu = 0; cpu < f->n_cpus + 64; cpu++) {
		capture_path(f, tmp, cpu, path, sizeof(path));
		if (unlink(path) && errno == ENOENT && cpu >= f->n_cpus)
			break;
	}
}

/*
 * A capture written whole under a temporary name, then renamed, the
 * file of CPU 0 last: a reader finds the set by it, so it is there
 * whole or not at all.
 */
static int write_capture(struct flight *f, const struct capture *c,
			 int cut_short, struct iow_error *err)
{
	char name[512], tmp[560], from_path[4096 + 600], to_path[4096 + 600];
	struct rec_out_stats st;
	uint64_t from = c->start_ns, n = 0, t0 = clock_now_ns();
	double cpu0 = thread_cpu_s();
	unsigned number = f->next_number++, cpu;
	struct rec_out *out;
	int rc;

	snprintf(name, sizeof(name), "%s-%u", f->name, number);
	snprintf(tmp, sizeof(tmp), ".%s.partial", name);
	if (f->oldest_ns > from)
		from = f->oldest_ns;
	out = rec_out_open(f->dir, tmp, f->n_cpus, err);
	if (!out)
		return -1;
	if (f->version8)
		rec_out_version8(out);
	rc = capture_notes(f, out, c, from, name, err) ||
	     capture_records(f, out, from, c->end_ns, &n, err) ||
	     capture_pending_loss(f, out, c->end_ns, err) ||
	     rec_out_end(out, f->devices[0], err);
	rec_out_stats(out, &st);
	if (rec_out_close(out, rc ? NULL : err))
		rc = -1;
	for (cpu = st.n_files; !rc && cpu-- > 0;) {
		capture_path(f, tmp, cpu, from_path, sizeof(from_path));
		capture_path(f, name, cpu, to_path, sizeof(to_path));
		if (rename(from_path, to_path))
			rc = iow_fail(err, "cannot rename %s to %s: %s",
				      from_path, to_path, strerror(errno));
	}
	if (rc) {
		capture_discard(f, tmp);
		return -1;
	}
	snprintf(f->res.last_capture, sizeof(f->res.last_capture), "%s/%s",
		 f->dir, name);
	f->res.captures++;
	fprintf(stderr, "iowatcher: flight capture %s/%s (%.3f s before, "
		"%.3f s after%s; %llu events%s%s; written in %.3f s, %.3f s "
		"of CPU): %s fired: %s\n", f->dir,
		name, (double)(c->fired_ns - (from < c->fired_ns ? from :
					      c->fired_ns)) / 1e9,
		(double)(c->end_ns - c->fired_ns) / 1e9,
		cut_short ? ", cut short by the stop" : "",
		(unsigned long long)n,
		mem_took_start(f, c) ?
			", the memory bound let the earlier part go" : "",
		st.lost || st.lost_unknown ? ", events lost in it: loss notes"
					   : "",
		(double)(clock_now_ns() - t0) / 1e9, thread_cpu_s() - cpu0,
		c->trigger, c->figure);
	return 0;
}

/* The captures whose window has passed, written in turn. */
static int write_due(struct flight *f, int all, struct iow_error *err)
{
	size_t done = 0;
	int rc = 0;

	while (done < f->n_pending &&
	       (all || f->pending[done].end_ns <= f->complete_ns)) {
		struct iow_error e;

		if (write_capture(f, &f->pending[done], all &&
				  f->pending[done].end_ns > f->complete_ns,
				  &e)) {
			/* said, and recording goes on */
			fprintf(stderr, "iowatcher: flight capture not "
				"written: %s\n", e.msg);
			f->res.failed++;
			if (all && !rc) {
				iow_fail(err, "%s", e.msg);
				rc = -1;
			}
		}
		done++;
	}
	memmove(f->pending, f->pending + done,
		(f->n_pending - done) * sizeof(*f->pending));
	f->n_pending -= done;
	return rc;
}

/* ---- the recorder's side ---- */

int flight_take(struct flight *f, const struct blk_io_trace *const *const *recs,
		const size_t *n, uint64_t complete_ns, struct iow_error *err)
{
	unsigned cpu, best;
	size_t k;

	memset(f->pos, 0, f->n_cpus * sizeof(*f->pos));
	for (;;) {
		const struct blk_io_trace *t = NULL;

		best = 0;
		for (cpu = 0; cpu < f->n_cpus; cpu++)
			if (f->pos[cpu] < n[cpu] &&
			    (!t || recs[cpu][f->pos[cpu]]->time < t->time)) {
				t = recs[cpu][f->pos[cpu]];
				best = cpu;
			}
		if (!t)
			break;
		f->pos[best]++;
		if (keep(f, t, err) || evaluate(f, t, err))
			return -1;
	}
	if (complete_ns > f->complete_ns)
		f->complete_ns = complete_ns;
	/* the percentiles' slots close on the clock too, in a quiet
	 * stretch */
	for (k = 0; k < f->o.n_triggers; k++)
		if (f->triggers[k].pct > 0 && f->pct[k].started)
			pct_advance(f, k, f->complete_ns);
	if (write_due(f, 0, err))
		return -1;
	expire(f);
	return 0;
}

void flight_set_pending(struct flight *f, flight_pending_fn fn, void *ctx)
{
	f->pending_loss = fn;
	f->pending_ctx = ctx;
}

void flight_set_clock(struct flight *f, const struct recnote_clock *c)
{
	f->clock = *c;
	f->has_clock = 1;
}

int flight_finish(struct flight *f, struct iow_error *err)
{
	return write_due(f, 1, err);
}

void flight_progress(const struct flight *f, unsigned *captures,
		     uint64_t *records)
{
	*captures = f->res.captures;
	*records = f->res.records;
}

void flight_result(const struct flight *f, struct flight_result *r)
{
	*r = f->res;
	r->raw_bytes = f->raw_bytes;
	r->held_bytes = f->held_bytes;
	r->compact_bytes = f->compact_bytes;
	r->kept_ns = f->oldest_ns && f->newest_ns > f->oldest_ns ?
		     f->newest_ns - f->oldest_ns : 0;
}

int flight_trigger_dev(const struct flight_trigger *t,
		       const struct record_device *devs,
		       const uint32_t *devices, size_t n_devs, uint32_t *dev)
{
	size_t j;

	*dev = 0;
	/* a device by the name it was given or its /dev node's */
	for (j = 0; t->device[0] && j < n_devs; j++) {
		const char *p = devs[j].path, *s = strrchr(p, '/');

		if (!strcmp(t->device, s ? s + 1 : p) ||
		    !strcmp(t->device, p))
			*dev = devices[j];
	}
	return t->device[0] && !*dev ? -1 : 0;
}

struct flight *flight_new(const struct flight_opts *o, const char *dir,
			  const char *name, const struct record_device *devs,
			  const uint32_t *devices, size_t n_devs,
			  unsigned n_cpus, int version8,
			  struct iow_error *err)
{
	struct flight *f = calloc(1, sizeof(*f));
	size_t i;

	if (!f) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	f->o = *o;
	f->n_cpus = n_cpus;
	f->version8 = version8;
	f->n_devs = n_devs;
	f->dir = strdup(dir);
	f->name = strdup(name);
	f->devs = calloc(n_devs ? n_devs : 1, sizeof(*f->devs));
	f->heads = calloc(n_cpus, sizeof(*f->heads));
	f->pos = calloc(n_cpus, sizeof(*f->pos));
	f->map_cap = 4096;
	f->map = calloc(f->map_cap, sizeof(*f->map));
	if (!f->dir || !f->name || !f->devs || !f->heads || !f->pos ||
	    !f->map || o->n_triggers > FLIGHT_MAX_TRIGGERS ||
	    n_devs > BLKREC_MAX_DEVS) {
		iow_fail(err, "out of memory");
		flight_free(f);
		return NULL;
	}
	memcpy(f->devs, devs, n_devs * sizeof(*devs));
	memcpy(f->devices, devices, n_devs * sizeof(*devices));
	f->chunk_size = (size_t)(o->mem_bytes / 32);
	if (f->chunk_size < CHUNK_MIN)
		f->chunk_size = CHUNK_MIN;
	if (f->chunk_size > CHUNK_MAX)
		f->chunk_size = CHUNK_MAX;
	for (i = 0; i < o->n_triggers; i++) {
		struct flight_trigger *t = &f->triggers[i];

		*t = o->triggers[i];
		if (flight_trigger_dev(t, devs, devices, n_devs, &t->dev)) {
			iow_fail(err, "--trigger %s: %s is not a device being "
				 "recorded (give its name as -d has it)",
				 t->text, t->device);
			flight_free(f);
			return NULL;
		}
		if (t->pct > 0 &&
		    !(f->pct[i].slots = calloc(N_SLOTS, sizeof(*f->pct[i].slots)))) {
			iow_fail(err, "out of memory");
			flight_free(f);
			return NULL;
		}
	}
	f->next_number = first_number(dir, name);
	return f;
}

void flight_free(struct flight *f)
{
	size_t i;

	if (!f)
		return;
	while (f->head)
		drop_oldest(f);
	bigmem_free(f->spare);
	for (i = 0; i < FLIGHT_MAX_TRIGGERS; i++)
		free(f->pct[i].slots);
	free(f->dir);
	free(f->name);
	free(f->devs);
	free(f->heads);
	free(f->pos);
	free(f->map);
	free(f->pids);
	flight_actions_free(&f->actions);
	free(f->counts);
	free(f);
}

void flight_print_end(FILE *out, const struct flight_result *r,
		      const struct flight_opts *o, const char *path,
		      double cpu_s)
{
	double kept = (double)r->kept_ns / 1e9;

	fprintf(out, "iowatcher: flight recorder: %u capture%s", r->captures,
		r->captures == 1 ? "" : "s");
	if (r->captures)
		fprintf(out, " (the last %s)", r->last_capture);
	else
		fprintf(out, " (none fired; %s-N would hold them)", path);
	if (r->joined)
		fprintf(out, ", %u more trigger%s joined one", r->joined,
			r->joined == 1 ? "" : "s");
	if (r->failed)
		fprintf(out, ", %u not written (said above)", r->failed);
	fprintf(out, "; %llu records taken", (unsigned long long)r->records);
	if (r->records)
		fprintf(out, " (held in %.1f bytes each, blktrace's %.1f)",
			(double)r->compact_bytes / (double)r->records,
			(double)r->raw_bytes / (double)r->records);
	fprintf(out, ", %.1f MiB held at most, %.2f s of CPU; ",
		(double)r->peak_bytes / 1048576.0, cpu_s);
	if (r->mem_bound)
		fprintf(out, "the memory bound held (--flight-mem %.0f MiB "
			"kept the last %.2f s of the %g asked; %llu records "
			"let go for it)\n", (double)o->mem_bytes / 1048576.0,
			kept, (double)o->window_ns / 1e9,
			(unsigned long long)r->evicted_by_mem);
	else
		fprintf(out, "the time bound held (the last %g s kept, in at "
			"most %.1f MiB of %.0f)\n", (double)o->window_ns / 1e9,
			(double)r->peak_bytes / 1048576.0,
			(double)o->mem_bytes / 1048576.0);
}
