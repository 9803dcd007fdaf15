/*
 * compare_split.c: where the change in latency-seconds (the sum over the
 * timed I/Os of Q2C, or D2C where only it is known) comes from. Each
 * stratification (class, size, offset band, process, comm, cgroup, file,
 * stack, phase, time window) partitions it; in each value, with n I/Os
 * of mean latency m in A and B, the change n_B m_B - n_A m_A is
 *   mix  = (n_B - n_A) (m_A + m_B) / 2   (more or fewer such I/Os)
 *   rate = (m_B - m_A) (n_A + n_B) / 2   (such I/Os slower or faster)
 * (Kitagawa's symmetric split: the parts add up to the change exactly;
 * the mean's change is split alike with shares n / N for n). Offset
 * bands and time windows start fine and neighbours of the same effect
 * per I/O are merged, so that a band holding the change comes out whole.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "graphs/graphs.h"

/* ---- values ---- */

static int push_value(struct cmp_stratum *st, const char *label,
		      struct cmp_value **out)
{
	struct cmp_value *more = realloc(st->values,
					 (st->n + 1) * sizeof(*more));

	if (!more)
		return -1;
	st->values = more;
	*out = &more[st->n];
	memset(*out, 0, sizeof(**out));
	(*out)->label = strdup(label);
	if (!(*out)->label)
		return -1;
	st->n++;
	return 0;
}

/* A value summed elsewhere (a cell), appended under label. */
static int push_cell(struct cmp_stratum *st, const char *label,
		     const struct cmp_value *cell)
{
	struct cmp_value *v;
	char *name;

	if (push_value(st, label, &v) < 0)
		return -1;
	name = v->label;
	*v = *cell;
	v->label = name;
	return 0;
}

static void value_parts(const struct compare *c, struct cmp_value *v)
{
	double ma = v->n[0] ? v->t_s[0] / v->n[0] :
		    v->n[1] ? v->t_s[1] / v->n[1] : 0;
	double mb = v->n[1] ? v->t_s[1] / v->n[1] : ma;
	double wa = c->timed[0] ? v->n[0] / c->timed[0] : 0;
	double wb = c->timed[1] ? v->n[1] / c->timed[1] : 0;

	/* the mean's overall, A's and B's averaged: a mix part of the mean
	 * is the value's weight moved times how far its latency is from
	 * that (the weights moved add up to 0, so the parts still add up
	 * to the change; more I/Os of a typical latency move the mean by
	 * nothing, and are said to, where uncentred they took (ma + mb) / 2
	 * each and other values' fewer I/Os offset it) */
	double big_m = ((c->timed[0] ? c->total_s[0] / c->timed[0] : 0) +
			(c->timed[1] ? c->total_s[1] / c->timed[1] : 0)) / 2;

	v->mix_s = (v->n[1] - v->n[0]) * (ma + mb) / 2;
	v->rate_s = (mb - ma) * (v->n[0] + v->n[1]) / 2;
	v->mean_mix_s = (wb - wa) * ((ma + mb) / 2 - big_m);
	v->mean_rate_s = (mb - ma) * (wa + wb) / 2;
}

static void value_add(struct cmp_value *v, int s, const struct cmp_io *io)
{
	uint64_t end = io->sector + io->bytes / 512;

	if (!v->n[s] || io->time_ns < v->first_ns[s])
		v->first_ns[s] = io->time_ns;
	if (!v->n[s] || io->time_ns > v->last_ns[s])
		v->last_ns[s] = io->time_ns;
	v->n[s] += 1;
	v->t_s[s] += io->lat_ns[CM_LAT] / 1e9;
	v->bytes[s] += io->bytes;
	if (io->op == OP_WRITE)
		v->wbytes[s] += io->bytes;
	if (io->op == OP_FLUSH)
		return;
	if (!v->has_sectors || io->sector < v->lo_sector)
		v->lo_sector = io->sector;
	if (!v->has_sectors || end > v->hi_sector)
		v->hi_sector = end;
	v->has_sectors = 1;
}

static void value_merge(struct cmp_value *into, const struct cmp_value *v)
{
	int s;

	for (s = 0; s < 2; s++) {
		if (v->n[s] && (!into->n[s] || v->first_ns[s] < into->first_ns[s]))
			into->first_ns[s] = v->first_ns[s];
		if (v->n[s] && (!into->n[s] || v->last_ns[s] > into->last_ns[s]))
			into->last_ns[s] = v->last_ns[s];
		into->n[s] += v->n[s];
		into->t_s[s] += v->t_s[s];
		into->bytes[s] += v->bytes[s];
		into->wbytes[s] += v->wbytes[s];
	}
	if (v->has_size) {
		if (!into->has_size || v->size_lo < into->size_lo)
			into->size_lo = v->size_lo;
		if (!into->has_size || v->size_hi > into->size_hi)
			into->size_hi = v->size_hi;
		into->has_size = 1;
	}
	into->mix_s += v->mix_s;
	into->rate_s += v->rate_s;
	into->mean_mix_s += v->mean_mix_s;
	into->mean_rate_s += v->mean_rate_s;
	if (v->has_sectors) {
		if (!into->has_sectors || v->lo_sector < into->lo_sector)
			into->lo_sector = v->lo_sector;
		if (!into->has_sectors || v->hi_sector > into->hi_sector)
			into->hi_sector = v->hi_sector;
		into->has_sectors = 1;
	}
	if (v->has_time) {
		if (!into->has_time || v->start_s < into->start_s)
			into->start_s = v->start_s;
		if (!into->has_time || v->end_s > into->end_s)
			into->end_s = v->end_s;
		into->has_time = 1;
	}
}

/* Whether I/O i of trace s is in the split: paired, with a latency. */
static int counted(const struct compare *c, int s, size_t i)
{
	return c->t[s].group[i] >= 0 &&
	       (c->t[s].side->ios[i].has & (1u << CM_LAT));
}

/* ---- adaptive bands ---- */

static double effect(const struct cmp_value *v)
{
	double n = (v->n[0] + v->n[1]) / 2;

	return (v->t_s[1] - v->t_s[0]) / (n > 1 ? n : 1);
}

/* How alike two neighbours' effects are: 0 the same, >1 never merged
 * but to keep the count down. */
static double merge_cost(const struct cmp_value *a, const struct cmp_value *b,
			 double quiet_s)
{
	double ea = effect(a), eb = effect(b), big, small;
	int empty_a = !a->n[0] && !a->n[1], empty_b = !b->n[0] && !b->n[1];

	if (empty_a || empty_b)
		return 0;
	if (fabs(a->t_s[1] - a->t_s[0]) <= quiet_s &&
	    fabs(b->t_s[1] - b->t_s[0]) <= quiet_s)
		return 0.1;
	if ((ea > 0) != (eb > 0))
		return 2 + fabs(ea - eb);
	big = fmax(fabs(ea), fabs(eb));
	small = fmin(fabs(ea), fabs(eb));
	return big > 0 ? 1 - small / big : 0;
}

/* Merges neighbours of v[0..n) of the same effect; the new count. */
static size_t merge_bands(struct cmp_value *v, size_t n)
{
	double total = 0, quiet_s;
	size_t i;

	for (i = 0; i < n; i++)
		total += fabs(v[i].t_s[1] - v[i].t_s[0]);
	quiet_s = 0.02 * total;
	while (n > 1) {
		double best = INFINITY, cost;
		size_t at = 0;

		for (i = 0; i + 1 < n; i++) {
			cost = merge_cost(&v[i], &v[i + 1], quiet_s);
			if (cost < best) {
				best = cost;
				at = i;
			}
		}
		if (best > 0.33 && n <= CMP_MAX_BANDS)
			break;
		value_merge(&v[at], &v[at + 1]);
		free(v[at + 1].label);
		memmove(&v[at + 1], &v[at + 2], (n - at - 2) * sizeof(*v));
		n--;
	}
	return n;
}

/* ---- the strata ---- */

static int class_stratum(struct compare *c, struct cmp_stratum *st)
{
	struct cmp_value cells[N_OPS];
	size_t i;
	int s, op;

	memset(cells, 0, sizeof(cells));
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++)
			if (counted(c, s, i))
				value_add(&cells[c->t[s].side->ios[i].op], s,
					  &c->t[s].side->ios[i]);
	for (op = 0; op < N_OPS; op++)
		if ((cells[op].n[0] || cells[op].n[1]) &&
		    push_cell(st, cmp_op_name(op), &cells[op]) < 0)
			return -1;
	return 0;
}

static void size_label(uint64_t b, char *buf, size_t len)
{
	if (b >= 1048576 && b % 1048576 == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
}

#define MAX_EXACT_SIZES	24

/* Sizes as they are where there are few, else powers of two. */
static int size_stratum(struct compare *c, struct cmp_stratum *st)
{
	uint64_t sizes[MAX_EXACT_SIZES];
	struct cmp_value cells[64];
	size_t n_sizes = 0, i, j, k;
	int s, exact = 1;

	memset(cells, 0, sizeof(cells));
	for (s = 0; s < 2 && exact; s++)
		for (i = 0; i < c->t[s].side->n && exact; i++) {
			uint32_t b = c->t[s].side->ios[i].bytes;

			if (!counted(c, s, i))
				continue;
			for (j = 0; j < n_sizes && sizes[j] != b; j++)
				;
			if (j == n_sizes && n_sizes == MAX_EXACT_SIZES)
				exact = 0;
			else if (j == n_sizes)
				sizes[n_sizes++] = b;
		}
	for (i = 1; exact && i < n_sizes; i++)	/* in order of size */
		for (j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
			uint64_t t = sizes[j];

			sizes[j] = sizes[j - 1];
			sizes[j - 1] = t;
		}
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++) {
			uint32_t b = c->t[s].side->ios[i].bytes;

			if (!counted(c, s, i))
				continue;
			if (exact)
				for (k = 0; sizes[k] != b; k++)
					;
			else
				k = b ? 64 - __builtin_clzll(b) : 0;
			value_add(&cells[k], s, &c->t[s].side->ios[i]);
		}
	for (k = 0; k < 64; k++) {
		char label[64], lo[24], hi[24];

		if (!cells[k].n[0] && !cells[k].n[1])
			continue;
		cells[k].has_size = 1;
		cells[k].size_lo = exact ? sizes[k] : k ? 1ull << (k - 1) : 0;
		cells[k].size_hi = exact ? sizes[k] : (1ull << k) - 1;
		if (exact) {
			size_label(sizes[k], label, sizeof(label));
		} else {
			size_label(k ? 1ull << (k - 1) : 0, lo, sizeof(lo));
			size_label(1ull << k, hi, sizeof(hi));
			snprintf(label, sizeof(label), "%s-%s", lo, hi);
		}
		if (push_cell(st, label, &cells[k]) < 0)
			return -1;
	}
	return 0;
}

/* Whether I/O i of trace s is on pair's devices, in the split. */
static int on_pair(const struct compare *c, int s, size_t i, size_t pair)
{
	return counted(c, s, i) && (size_t)c->t[s].group[i] == pair * N_OPS;
}

/* The sectors the pair's data I/O spans in both traces: [*lo, *hi). */
static void pair_span(const struct compare *c, size_t pair, uint64_t *lo,
		      uint64_t *hi)
{
	size_t i;
	int s;

	*lo = UINT64_MAX;
	*hi = 0;
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++) {
			const struct cmp_io *io = &c->t[s].side->ios[i];

			if (!on_pair(c, s, i, pair) || io->op == OP_FLUSH)
				continue;
			if (io->sector < *lo)
				*lo = io->sector;
			if (io->sector + io->bytes / 512 + 1 > *hi)
				*hi = io->sector + io->bytes / 512 + 1;
		}
}

/* One pair's offset cells, merged, appended to the stratum; its flushes
 * (no sector) one value of their own. */
static int offset_pair(struct compare *c, struct cmp_stratum *st,
		       size_t pair)
{
	struct cmp_value cells[CMP_OFFSET_CELLS], flush;
	uint64_t lo, hi;
	size_t i, n;
	int s;

	memset(cells, 0, sizeof(cells));
	memset(&flush, 0, sizeof(flush));
	pair_span(c, pair, &lo, &hi);
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++) {
			const struct cmp_io *io = &c->t[s].side->ios[i];

			if (!on_pair(c, s, i, pair))
				continue;
			if (io->op == OP_FLUSH)
				value_add(&flush, s, io);
			else
				value_add(&cells[(size_t)((double)(io->sector - lo) /
							  (double)(hi - lo) *
							  CMP_OFFSET_CELLS)],
					  s, io);
		}
	n = merge_bands(cells, CMP_OFFSET_CELLS);
	for (i = 0; i < n; i++) {
		char label[96], dev[32];

		if (!cells[i].n[0] && !cells[i].n[1])
			continue;
		cmp_device_name(c->pairs[pair][0], dev, sizeof(dev));
		snprintf(label, sizeof(label), "%s%ssectors %llu-%llu",
			 c->n_pairs > 1 ? dev : "", c->n_pairs > 1 ? " " : "",
			 (unsigned long long)cells[i].lo_sector,
			 (unsigned long long)cells[i].hi_sector);
		cells[i].pair = pair;
		if (push_cell(st, label, &cells[i]) < 0)
			return -1;
	}
	flush.has_sectors = 0;
	if ((flush.n[0] || flush.n[1]) &&
	    push_cell(st, "flush (no sector)", &flush) < 0)
		return -1;
	return 0;
}

static int offset_stratum(struct compare *c, struct cmp_stratum *st)
{
	size_t p;

	for (p = 0; p < c->n_pairs; p++)
		if (offset_pair(c, st, p) < 0)
			return -1;
	return 0;
}

static int time_stratum(struct compare *c, struct cmp_stratum *st)
{
	size_t k = c->t[0].n_windows > c->t[1].n_windows ?
		   c->t[0].n_windows : c->t[1].n_windows, i, n;
	double w = (double)c->window_ns / 1e9;
	double end = fmax(c->t[0].span_s, c->t[1].span_s);
	struct cmp_value *cells = calloc(k, sizeof(*cells));
	int s;

	if (!cells)
		return -1;
	for (i = 0; i < k; i++) {
		cells[i].has_time = 1;
		cells[i].start_s = (double)i * w;
		cells[i].end_s = fmin((double)(i + 1) * w, end);
	}
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++)
			if (counted(c, s, i))
				value_add(&cells[c->t[s].window[i]], s,
					  &c->t[s].side->ios[i]);
	n = merge_bands(cells, k);
	for (i = 0; i < n; i++) {
		char label[64];

		if (!cells[i].n[0] && !cells[i].n[1])
			continue;
		snprintf(label, sizeof(label), "%.3f-%.3f s", cells[i].start_s,
			 cells[i].end_s);
		cells[i].has_sectors = 0;
		if (push_cell(st, label, &cells[i]) < 0) {
			free(cells);
			return -1;
		}
	}
	free(cells);
	return 0;
}

/* Q2D (queueing) and D2C (device): every timed I/O has both. */
static int phase_stratum(struct compare *c, struct cmp_stratum *st)
{
	struct cmp_value *q, *d;
	size_t i;
	int s;

	if (push_value(st, "Q2D", &q) < 0 || push_value(st, "D2C", &d) < 0)
		return -1;
	q = &st->values[0];
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++) {
			const struct cmp_io *io = &c->t[s].side->ios[i];
			double qd = io->has & (1u << CM_Q2D) ?
				    io->lat_ns[CM_Q2D] / 1e9 : 0;

			if (!counted(c, s, i))
				continue;
			q->n[s] += 1;
			d->n[s] += 1;
			q->t_s[s] += qd;
			d->t_s[s] += io->lat_ns[CM_LAT] / 1e9 - qd;
		}
	return 0;
}

/* ---- strata of the causes ---- */

enum cause_kind { CK_PROCESS, CK_COMM, CK_CGROUP, CK_FILE, CK_STACK };

static const char *cause_label(const struct cmp_trace *t, uint32_t id,
			       enum cause_kind kind, char *buf, size_t len)
{
	const struct cause *cs = t->causes ? cause_get(t->causes, id) : NULL;
	const char *comm, *stack;
	uint32_t pid;

	if (!cs)
		return "[unknown]";
	pid = cause_credited_pid(cs);
	comm = cause_comm(t->causes, pid);
	switch (kind) {
	case CK_PROCESS:
		if (comm && comm[0])
			snprintf(buf, len, "%s (%u)", comm, pid);
		else
			snprintf(buf, len, "pid %u", pid);
		return buf;
	case CK_COMM:
		return comm && comm[0] ? comm : "[unknown]";
	case CK_CGROUP:
		return cause_cgroup_label(t->causes, cs, buf, len);
	case CK_FILE:
		return cause_file_label(t->causes, cs, buf, len);
	default:
		stack = cause_kstack(t->causes, cs);
		if (!stack)
			return "[no stack]";
		cause_stack_label(stack, buf, len);
		return buf;
	}
}

struct keyed {
	const char *label;
	int side;
	struct cmp_value v;
};

static int cmp_keyed(const void *pa, const void *pb)
{
	return strcmp(((const struct keyed *)pa)->label,
		      ((const struct keyed *)pb)->label);
}

static int cmp_value_size(const void *pa, const void *pb)
{
	const struct cmp_value *a = pa, *b = pb;
	double x = fabs(a->mix_s) + fabs(a->rate_s);
	double y = fabs(b->mix_s) + fabs(b->rate_s);

	return (x < y) - (x > y);
}

/* Per trace, the causes' sums, then merged by label across the two. */
static int keyed_sums(struct compare *c, enum cause_kind kind,
		      struct keyed **out, size_t *n_out)
{
	struct keyed *k = NULL;
	size_t n = 0;
	int s;

	for (s = 0; s < 2; s++) {
		const struct compare_side *side = c->t[s].side;
		uint32_t max_id = 0;
		struct cmp_value *by_id;
		size_t i;

		for (i = 0; i < side->n; i++)
			if (side->ios[i].cause > max_id)
				max_id = side->ios[i].cause;
		by_id = calloc((size_t)max_id + 1, sizeof(*by_id));
		if (!by_id)
			goto oom;
		for (i = 0; i < side->n; i++)
			if (counted(c, s, i))
				value_add(&by_id[side->ios[i].cause], s,
					  &side->ios[i]);
		for (i = 0; i <= max_id; i++) {
			char buf[512];
			struct keyed *more;

			if (!by_id[i].n[s])
				continue;
			more = realloc(k, (n + 1) * sizeof(*k));
			if (!more) {
				free(by_id);
				goto oom;
			}
			k = more;
			k[n].side = s;
			k[n].v = by_id[i];
			k[n].label = strdup(cause_label(&c->t[s], (uint32_t)i,
							kind, buf,
							sizeof(buf)));
			if (!k[n++].label) {
				free(by_id);
				goto oom;
			}
		}
		free(by_id);
	}
	if (n)
		qsort(k, n, sizeof(*k), cmp_keyed);
	*out = k;
	*n_out = n;
	return 0;
oom:
	while (n)
		free((char *)k[--n].label);
	free(k);
	return -1;
}

/*
 * One trace's work by who did it (--compare of groups: c a run against
 * itself, after cmp_table): per process, command and cgroup, each
 * label's timed I/Os and bytes, to fn (a label may come more than once:
 * add them up); -1 out of memory.
 */
int cmp_run_work(struct compare *c,
		 void (*fn)(void *ctx, const char *stratum, const char *label,
			    double n, double bytes),
		 void *ctx)
{
	static const struct {
		const char *name;
		enum cause_kind kind;
	} ks[] = { { "process", CK_PROCESS }, { "comm", CK_COMM },
		   { "cgroup", CK_CGROUP } };
	size_t j, i, n;
	struct keyed *k;

	for (j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
		if (keyed_sums(c, ks[j].kind, &k, &n) < 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (k[i].side == 0)
				fn(ctx, ks[j].name, k[i].label, k[i].v.n[0],
				   k[i].v.bytes[0]);
			free((char *)k[i].label);
		}
		free(k);
	}
	return 0;
}

/* Beyond CMP_MAX_VALUES, the smallest parts go in one value. */
static int fold_others(struct cmp_stratum *st)
{
	size_t i;
	char label[48];

	if (st->n <= CMP_MAX_VALUES)
		return 0;
	qsort(st->values, st->n, sizeof(*st->values), cmp_value_size);
	for (i = CMP_MAX_VALUES; i < st->n; i++) {
		value_merge(&st->values[CMP_MAX_VALUES - 1], &st->values[i]);
		free(st->values[i].label);
	}
	snprintf(label, sizeof(label), "[%zu others]",
		 st->n - CMP_MAX_VALUES + 1);
	free(st->values[CMP_MAX_VALUES - 1].label);
	st->values[CMP_MAX_VALUES - 1].label = strdup(label);
	st->values[CMP_MAX_VALUES - 1].has_sectors = 0;
	st->n = CMP_MAX_VALUES;
	return st->values[CMP_MAX_VALUES - 1].label ? 0 : -1;
}

/* Whether most of each trace's I/O is of values both have (a kernel
 * thread's pid is the same in two runs: most I/O is not). */
static int mostly_shared(const struct cmp_stratum *st)
{
	double shared[2] = { 0, 0 }, all[2] = { 0, 0 };
	size_t i;
	int s;

	for (i = 0; i < st->n; i++)
		for (s = 0; s < 2; s++) {
			all[s] += st->values[i].n[s];
			if (st->values[i].n[0] && st->values[i].n[1])
				shared[s] += st->values[i].n[s];
		}
	return shared[0] * 2 >= all[0] && shared[1] * 2 >= all[1];
}

static void clear_values(struct cmp_stratum *st)
{
	while (st->n)
		free(st->values[--st->n].label);
}

/*
 * A stratum of a part of the causes; processes only where most I/O is
 * of pids both traces have (halves of one run): two runs' pids pair
 * nothing, and every process would be all mix (comm pairs them).
 */
static int cause_stratum(struct compare *c, struct cmp_stratum *st,
			 enum cause_kind kind)
{
	struct keyed *k;
	size_t n, i;
	int r = 0;

	if (keyed_sums(c, kind, &k, &n) < 0)
		return -1;
	for (i = 0; i < n && r == 0; i++) {
		if (i && !strcmp(k[i].label, k[i - 1].label)) {
			value_merge(&st->values[st->n - 1], &k[i].v);
			continue;
		}
		r = push_cell(st, k[i].label, &k[i].v);
	}
	for (i = 0; i < n; i++)
		free((char *)k[i].label);
	free(k);
	if (r == 0 && kind == CK_PROCESS && !mostly_shared(st))
		clear_values(st);
	if (r == 0)
		for (i = 0; i < st->n; i++)
			value_parts(c, &st->values[i]);
	return r < 0 ? -1 : fold_others(st);
}

static int kept_by_both(const struct compare *c, enum cause_part part)
{
	return c->t[0].causes && c->t[1].causes &&
	       cause_table_kept(c->t[0].causes, part) &&
	       cause_table_kept(c->t[1].causes, part);
}

/* ---- contributors ---- */

/* The larger of the value's fractions of A's and of B's I/Os. */
static double coverage(const struct compare *c, const struct cmp_value *v)
{
	return fmax(v->n[0] / fmax(c->timed[0], 1),
		    v->n[1] / fmax(c->timed[1], 1));
}

static int add_contributors(struct compare *c, const struct cmp_stratum *st,
			    double change_s, double mean_change_s)
{
	size_t i;
	int kind;

	for (i = 0; i < st->n; i++) {
		const struct cmp_value *v = &st->values[i];

		for (kind = 0; kind < 2; kind++) {
			double part = kind ? v->rate_s : v->mix_s;
			double mean_part = kind ? v->mean_rate_s :
						  v->mean_mix_s;
			struct cmp_contributor *more, *ct;

			/* as many I/Os of it in A and B moves no
			 * latency-seconds, but the mean when A and B
			 * have not as many I/Os in all */
			if (part == 0 && mean_part == 0)
				continue;
			more = realloc(c->contrib,
				       (c->n_contrib + 1) * sizeof(*more));
			if (!more)
				return -1;
			c->contrib = more;
			ct = &c->contrib[c->n_contrib++];
			ct->stratum = st;
			ct->value = v;
			ct->rate = kind;
			ct->part_s = part;
			ct->mean_part_s = kind ? v->mean_rate_s :
						 v->mean_mix_s;
			ct->share = part / change_s;
			ct->mean_share = mean_change_s != 0 ?
					 ct->mean_part_s / mean_change_s : 0;
			ct->coverage = !strcmp(st->name, "phase") ? 1 :
				       coverage(c, v);
			/* a value of nearly every I/O of a trace (the root
			 * cgroup; one B renamed) is that trace by another
			 * name: last, though its share stays in the sum */
			ct->whole = ct->coverage >= 0.95 &&
				    strcmp(st->name, "phase");
		}
	}
	return 0;
}

/*
 * By share; where shares are close, the value of fewer I/Os first: it
 * is the more specific answer (a slower band, not "reads" or "D2C"; on
 * a recording, dd's writes, not the root cgroup that holds all I/O).
 */
static double rank_key(const struct cmp_contributor *ct)
{
	return ct->share - 0.5 * ct->coverage - 100 * ct->whole;
}

/* The same, of the mean's change: what the verdict's line names. */
static double mean_rank_key(const struct cmp_contributor *ct)
{
	return ct->mean_share - 0.5 * ct->coverage - 100 * ct->whole;
}

static int cmp_contrib(const void *pa, const void *pb)
{
	double a = rank_key(pa), b = rank_key(pb);

	return (a < b) - (a > b);
}

/* The strata, in the order the issue lists them. */
static const char *const stratum_names[] = {
	"class", "size", "offset", "process", "comm", "cgroup", "file",
	"stack", "phase", "time",
};
#define N_STRATA (sizeof(stratum_names) / sizeof(stratum_names[0]))

static int build_stratum(struct compare *c, size_t which,
			 struct cmp_stratum *st)
{
	size_t i;
	int r;

	st->name = stratum_names[which];
	switch (which) {
	case 0: r = class_stratum(c, st); break;
	case 1: r = size_stratum(c, st); break;
	case 2: r = offset_stratum(c, st); break;
	case 3: return cause_stratum(c, st, CK_PROCESS);
	case 4: return cause_stratum(c, st, CK_COMM);
	case 5: return cause_stratum(c, st, CK_CGROUP);
	case 6: return kept_by_both(c, CAUSE_PART_FILES) ?
		       cause_stratum(c, st, CK_FILE) : 0;
	case 7: return kept_by_both(c, CAUSE_PART_STACKS) ?
		       cause_stratum(c, st, CK_STACK) : 0;
	case 8: r = phase_stratum(c, st); break;
	default: r = time_stratum(c, st); break;
	}
	for (i = 0; r == 0 && i < st->n; i++)
		value_parts(c, &st->values[i]);
	return r;
}

static void totals(struct compare *c)
{
	size_t i;
	int s;

	for (s = 0; s < 2; s++) {
		c->total_s[s] = c->timed[s] = c->bytes[s] = 0;
		for (i = 0; i < c->t[s].side->n; i++)
			if (counted(c, s, i)) {
				c->timed[s] += 1;
				c->bytes[s] += c->t[s].side->ios[i].bytes;
				c->total_s[s] +=
					c->t[s].side->ios[i].lat_ns[CM_LAT] / 1e9;
			}
	}
}


/* ---- the work ---- */

/*
 * The strata whose values are work a run does (who, what, where, of
 * what size): one run's value the other lacks, or has far less of, is
 * work it did not do; offsets, time windows, phases and stacks are not.
 */
static int work_stratum(const char *name)
{
	return !strcmp(name, "class") || !strcmp(name, "size") ||
	       !strcmp(name, "process") || !strcmp(name, "comm") ||
	       !strcmp(name, "cgroup") || !strcmp(name, "file");
}

static enum cause_kind stratum_kind(const char *name)
{
	return !strcmp(name, "process") ? CK_PROCESS :
	       !strcmp(name, "comm") ? CK_COMM :
	       !strcmp(name, "cgroup") ? CK_CGROUP : CK_FILE;
}

/*
 * flags[s][i] |= 1 for each I/O of trace s in the values of list (the
 * class by its op, the size by its bytes, the others by their causes'
 * labels, each cause labelled once).
 */
static int mark_values(struct compare *c, const struct cmp_contributor *list,
		       size_t n, uint8_t *flags[2])
{
	int s;

	for (s = 0; s < 2; s++) {
		const struct compare_side *side = c->t[s].side;
		uint32_t max_id = 0;
		uint8_t *by_cause, ops[N_OPS];
		size_t i, k;
		uint32_t id;

		memset(ops, 0, sizeof(ops));
		for (i = 0; i < side->n; i++)
			if (side->ios[i].cause > max_id)
				max_id = side->ios[i].cause;
		by_cause = calloc((size_t)max_id + 1, 1);
		if (!by_cause)
			return -1;
		for (k = 0; k < n; k++) {
			const char *name = list[k].stratum->name;

			if (!strcmp(name, "class")) {
				int op;

				for (op = 0; op < N_OPS; op++)
					if (!strcmp(cmp_op_name(op),
						    list[k].value->label))
						ops[op] = 1;
				continue;
			}
			if (!strcmp(name, "size"))
				continue;
			for (id = 0; id <= max_id; id++) {
				char buf[512];

				if (!by_cause[id] &&
				    !strcmp(cause_label(&c->t[s], id,
							stratum_kind(name), buf,
							sizeof(buf)),
					    list[k].value->label))
					by_cause[id] = 1;
			}
		}
		for (i = 0; i < side->n; i++) {
			const struct cmp_io *io = &side->ios[i];

			if (!counted(c, s, i))
				continue;
			if (ops[io->op] || by_cause[io->cause]) {
				flags[s][i] = 1;
				continue;
			}
			for (k = 0; k < n; k++) {
				const struct cmp_value *v = list[k].value;

				if (!strcmp(list[k].stratum->name, "size") &&
				    v->has_size && io->bytes >= v->size_lo &&
				    io->bytes <= v->size_hi)
					flags[s][i] = 1;
			}
		}
		free(by_cause);
	}
	return 0;
}

/*
 * Whether the difference in a value's I/Os is beyond what the windows'
 * variation explains: |n_B - n_A| over the standard error of the sum of
 * its per-window counts (each trace's windows' variance times their
 * number) at least 3. A value one run lacks is not asked: its absence
 * is not a sample's.
 */
static int beyond_windows(struct compare *c, const struct cmp_contributor *ct,
			  int *r)
{
	uint8_t *flags[2] = { NULL, NULL };
	double var_sum = 0;
	int s;

	*r = 0;
	for (s = 0; s < 2; s++) {
		flags[s] = calloc(c->t[s].side->n + 1, 1);
		if (!flags[s])
			goto oom;
	}
	if (mark_values(c, ct, 1, flags) < 0)
		goto oom;
	for (s = 0; s < 2; s++) {
		size_t k = c->t[s].n_windows, i, w;
		double *cnt = calloc(k, sizeof(double)), mean = 0, var = 0;
		/* A's counts scaled to B's I/Os: the difference asked is of
		 * the value's share, not of the runs' rates */
		double scale = s ? 1 : fmax(c->timed[1], 1) /
				       fmax(c->timed[0], 1);

		if (!cnt)
			goto oom;
		for (i = 0; i < c->t[s].side->n; i++)
			if (flags[s][i])
				cnt[c->t[s].window[i]] += 1;
		for (w = 0; w < k; w++)
			mean += cnt[w];
		mean /= (double)k;
		for (w = 0; w < k; w++)
			var += (cnt[w] - mean) * (cnt[w] - mean);
		var_sum += k > 1 ? var / (double)(k - 1) * (double)k *
				   scale * scale : 0;
		free(cnt);
	}
	*r = fabs(ct->value->n[1] - ct->value->n[0] * fmax(c->timed[1], 1) /
		  fmax(c->timed[0], 1)) >= 3 * sqrt(var_sum) + 1e-9;
	free(flags[0]);
	free(flags[1]);
	return 0;
oom:
	free(flags[0]);
	free(flags[1]);
	return -1;
}

#define CMP_WORK_MIN_IOS	8	/* a value with fewer is no work */
#define CMP_WORK_MIN_SHARE	0.05	/* of the run's I/Os, bytes or time */
#define CMP_WORK_FAR_LESS	0.5	/* the other run's at most this */

/* Whether value v of stratum st is work one run did and the other did
 * not or far less of (before the windows are asked). */
static int work_candidate(const struct compare *c, const struct cmp_value *v)
{
	/* as fractions of each run's I/Os: the same job at another rate
	 * (throttled, or run longer) has the same mix, which the IOPS say;
	 * work one run lacks or has far less of changes the mix */
	double f0 = v->n[0] / fmax(c->timed[0], 1);
	double f1 = v->n[1] / fmax(c->timed[1], 1);
	int more = f1 > f0;
	double hi = more ? f1 : f0, lo = more ? f0 : f1;
	size_t len = strlen(v->label);

	/* "[5 others]" names no work */
	if (v->label[0] == '[' && len > 8 &&
	    !strcmp(v->label + len - 7, "others]"))
		return 0;
	if (v->n[more] < CMP_WORK_MIN_IOS || lo > CMP_WORK_FAR_LESS * hi)
		return 0;
	/* nearly all of a run: that run under another name (its cgroup
	 * renamed), not work the other lacks */
	if (f0 >= 0.95 || f1 >= 0.95)
		return 0;
	/* of the I/Os or the bytes (a kworker's 31 small reads are not,
	 * though of a fast run's little I/O time) */
	return hi >= CMP_WORK_MIN_SHARE ||
	       v->bytes[more] >= CMP_WORK_MIN_SHARE * c->bytes[more];
}

static int push_work(struct compare *c, const struct cmp_stratum *st,
		     const struct cmp_value *v, double change_s)
{
	struct cmp_contributor *more = realloc(c->work_contrib,
					       (c->n_work + 1) * sizeof(*more));
	struct cmp_contributor *ct;

	if (!more)
		return -1;
	c->work_contrib = more;
	ct = &more[c->n_work++];
	memset(ct, 0, sizeof(*ct));
	ct->stratum = st;
	ct->value = v;
	ct->part_s = v->t_s[1] - v->t_s[0];
	ct->share = change_s != 0 ? ct->part_s / change_s : 0;
	ct->coverage = coverage(c, v);
	return 0;
}

/* By the latency-seconds they moved, the largest first. */
static int cmp_work_part(const void *pa, const void *pb)
{
	const struct cmp_contributor *a = pa, *b = pb;
	double x = fabs(a->part_s), y = fabs(b->part_s);

	return (x < y) - (x > y);
}

/*
 * The work: the values of the work strata one run has and the other
 * lacks or has far less of, beyond the windows' variation; each I/O of
 * them marked extra (in both traces: what is left is the work both
 * did, that the verdict is decided on).
 */
static int find_work(struct compare *c, double change_s)
{
	size_t i, j;
	int s, more = 0, less = 0;

	for (i = 0; i < c->n_strata; i++) {
		const struct cmp_stratum *st = &c->strata[i];

		if (!work_stratum(st->name))
			continue;
		for (j = 0; j < st->n; j++) {
			const struct cmp_value *v = &st->values[j];
			struct cmp_contributor probe;
			int beyond = 1;

			if (!work_candidate(c, v))
				continue;
			memset(&probe, 0, sizeof(probe));
			probe.stratum = st;
			probe.value = v;
			if (v->n[0] && v->n[1] &&
			    beyond_windows(c, &probe, &beyond) < 0)
				return -1;
			if (!beyond)
				continue;
			if (push_work(c, st, v, change_s) < 0)
				return -1;
			if (v->n[1] / fmax(c->timed[1], 1) >
			    v->n[0] / fmax(c->timed[0], 1))
				more = 1;
			else
				less = 1;
		}
	}
	c->work = more && less ? WORK_DIFFERENT : more ? WORK_MORE :
		  less ? WORK_LESS : WORK_SAME;
	if (c->n_work)
		qsort(c->work_contrib, c->n_work, sizeof(*c->work_contrib),
		      cmp_work_part);
	for (s = 0; s < 2; s++) {
		c->t[s].extra = calloc(c->t[s].side->n + 1, 1);
		if (!c->t[s].extra)
			return -1;
	}
	if (c->n_work) {
		uint8_t *flags[2] = { c->t[0].extra, c->t[1].extra };

		if (mark_values(c, c->work_contrib, c->n_work, flags) < 0)
			return -1;
	}
	for (s = 0; s < 2; s++) {
		c->work_s[s] = 0;
		for (i = 0; i < c->t[s].side->n; i++)
			if (c->t[s].extra[i])
				c->work_s[s] +=
					c->t[s].side->ios[i].lat_ns[CM_LAT] / 1e9;
	}
	return 0;
}

int cmp_split(struct compare *c)
{
	double change, mean_change = 0;
	size_t i;

	totals(c);
	change = c->total_s[1] - c->total_s[0];
	if (c->timed[0] && c->timed[1])
		mean_change = c->total_s[1] / c->timed[1] -
			      c->total_s[0] / c->timed[0];
	c->strata = calloc(N_STRATA, sizeof(*c->strata));
	if (!c->strata)
		return -1;
	for (i = 0; i < N_STRATA; i++) {
		struct cmp_stratum *st = &c->strata[c->n_strata++];

		if (build_stratum(c, i, st) < 0)
			return -1;
	}
	for (i = 0; change != 0 && i < c->n_strata; i++) {
		const struct cmp_stratum *st = &c->strata[i];

		/* one value explains nothing (all reads, one process) */
		if (st->n < 2 && strcmp(st->name, "phase"))
			continue;
		if (add_contributors(c, st, change, mean_change) < 0)
			return -1;
	}
	if (c->n_contrib)
		qsort(c->contrib, c->n_contrib, sizeof(*c->contrib),
		      cmp_contrib);
	if (find_work(c, change) < 0)
		return -1;
	c->headline = 0;
	for (i = 1; i < c->n_contrib; i++)
		if (mean_rank_key(&c->contrib[i]) >
		    mean_rank_key(&c->contrib[c->headline]))
			c->headline = i;
	return 0;
}

void cmp_split_free(struct compare *c)
{
	size_t i, j;

	for (i = 0; i < c->n_strata; i++) {
		for (j = 0; j < c->strata[i].n; j++)
			free(c->strata[i].values[j].label);
		free(c->strata[i].values);
	}
	free(c->strata);
	free(c->contrib);
	free(c->work_contrib);
	free(c->t[0].extra);
	free(c->t[1].extra);
	c->t[0].extra = c->t[1].extra = NULL;
	c->strata = NULL;
	c->contrib = NULL;
	c->work_contrib = NULL;
	c->n_strata = c->n_contrib = c->n_work = 0;
}
