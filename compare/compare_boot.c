/*
 * compare_boot.c: --compare's per-class table. The I/Os of each trace are
 * summed per time window (counts, bytes, latency sums, log-linear
 * latency histograms, histogram.h); a statistic of a trace is then a
 * function of how many times each window is taken. The point values take
 * each window once; the 95% interval of B - A is the 2.5th to 97.5th
 * percentile over CMP_RESAMPLES block-bootstrap resamples, each drawing
 * as many windows as the trace has, with replacement, in runs of about
 * the cube root of their number (I/Os close in time are not independent:
 * resampling windows keeps what they share, and runs of windows what a
 * spell longer than a window shares; a circular moving-block bootstrap,
 * Politis and Romano). Where
 * A and B have as many windows, window k of both is drawn together, so a
 * trace against itself differs by exactly zero in every resample.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "analysis/histogram.h"

struct cell {
	double ios, bytes;
	double sum_ns[N_CMP_METRICS];
	uint32_t n[N_CMP_METRICS];
};

/* A window's histogram as its buckets in use: few where windows hold
 * few I/Os, and never more than the buckets. */
struct hist_entry {
	uint32_t bucket;	/* from the range's lo */
	uint32_t count;
};

struct hist_range {
	size_t lo, width;	/* buckets lo .. lo + width - 1 */
	uint32_t *counts[2];	/* per trace: n_windows rows of width */
	struct hist_entry *entries[2];	/* the rows' buckets in use */
	size_t *row_start[2];	/* window w's: row_start[w] .. [w + 1] */
};

struct boot {
	struct compare *c;
	struct cell *cells[2];	/* [window * n_groups + group] */
	struct hist_range *hists;	/* [group * N_HIST_METRICS + m] */
	uint32_t *mult[2];	/* windows' draw counts */
	uint32_t *drawn[2];	/* the windows drawn */
	size_t n_drawn[2];
	size_t block[2];	/* windows a block of a resample runs over */
	uint32_t last[2];
	uint32_t *tmp;		/* one histogram, summed */
	size_t tmp_width;
	uint64_t rng[2];	/* per trace: its draws whichever side */
};

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t lat_bucket(float ns)
{
	uint64_t v = ns <= 0 ? 0 : (uint64_t)ns;

	if (v >= 1ull << CMP_HIST_MAX_BITS)
		v = (1ull << CMP_HIST_MAX_BITS) - 1;
	return hist_index(v, CMP_HIST_BITS);
}

static double bucket_mid_ns(size_t idx)
{
	uint64_t lo = hist_bucket_low(idx, CMP_HIST_BITS);
	uint64_t hi = hist_bucket_high(idx, CMP_HIST_BITS);

	return hi - lo == 1 ? (double)lo : ((double)lo + (double)(hi - 1)) / 2;
}

/* The groups an I/O counts in: its pair's class and the whole. */
static size_t io_groups(const struct compare *c, int s, size_t i,
			size_t out[3])
{
	int32_t g = c->t[s].group[i];

	if (g < 0)
		return 0;
	out[0] = (size_t)g + c->t[s].side->ios[i].op;
	out[1] = c->n_groups - 2;
	/* the same work: the work both did is the whole (copied after) */
	if (c->work == WORK_SAME || (c->t[s].extra && c->t[s].extra[i]))
		return 2;
	out[2] = c->n_groups - 1;	/* the work both did */
	return 3;
}

static int sum_cells(struct boot *b)
{
	struct compare *c = b->c;
	int s;

	for (s = 0; s < 2; s++) {
		const struct compare_side *side = c->t[s].side;
		size_t i, j, m, g[3], ng;

		b->cells[s] = calloc(c->t[s].n_windows * c->n_groups,
				     sizeof(struct cell));
		if (!b->cells[s])
			return -1;
		for (i = 0; i < side->n; i++) {
			const struct cmp_io *io = &side->ios[i];

			ng = io_groups(c, s, i, g);
			for (j = 0; j < ng; j++) {
				struct cell *ce = &b->cells[s][c->t[s].window[i] *
							  c->n_groups + g[j]];

				ce->ios += io->first;
				ce->bytes += io->bytes;
				for (m = 0; m < N_CMP_METRICS; m++) {
					if (!(io->has & (1u << m)))
						continue;
					ce->sum_ns[m] += io->lat_ns[m];
					ce->n[m]++;
				}
			}
		}
	}
	return 0;
}

/* Each group's and metric's buckets in use, over both traces. */
static void hist_ranges(struct boot *b)
{
	struct compare *c = b->c;
	size_t nh = c->n_groups * N_HIST_METRICS, h, i, j, m, g[3], ng;
	size_t *lo = (size_t *)b->tmp, *hi = lo + nh;
	int s;

	for (h = 0; h < nh; h++) {
		lo[h] = SIZE_MAX;
		hi[h] = 0;
	}
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++) {
			const struct cmp_io *io = &c->t[s].side->ios[i];

			ng = io_groups(c, s, i, g);
			for (m = 0; m < N_HIST_METRICS; m++) {
				size_t k;

				if (!(io->has & (1u << m)))
					continue;
				k = lat_bucket(io->lat_ns[m]);
				for (j = 0; j < ng; j++) {
					h = g[j] * N_HIST_METRICS + m;
					if (k < lo[h])
						lo[h] = k;
					if (k > hi[h])
						hi[h] = k;
				}
			}
		}
	for (h = 0; h < nh; h++) {
		b->hists[h].lo = lo[h];
		b->hists[h].width = lo[h] == SIZE_MAX ? 0 : hi[h] - lo[h] + 1;
		if (b->hists[h].width > b->tmp_width)
			b->tmp_width = b->hists[h].width;
	}
	memset(b->tmp, 0, 2 * nh * sizeof(size_t));	/* quantiles' zeros */
}

/* The dense rows of trace s as their buckets in use (then freed). */
static int sparse_rows(struct hist_range *r, int s, size_t n_windows)
{
	size_t w, k, n = 0;

	for (k = 0; k < n_windows * r->width; k++)
		n += r->counts[s][k] != 0;
	r->entries[s] = malloc((n + 1) * sizeof(*r->entries[s]));
	r->row_start[s] = malloc((n_windows + 1) * sizeof(size_t));
	if (!r->entries[s] || !r->row_start[s])
		return -1;
	n = 0;
	for (w = 0; w < n_windows; w++) {
		const uint32_t *row = r->counts[s] + w * r->width;

		r->row_start[s][w] = n;
		for (k = 0; k < r->width; k++)
			if (row[k]) {
				r->entries[s][n].bucket = (uint32_t)k;
				r->entries[s][n++].count = row[k];
			}
	}
	r->row_start[s][n_windows] = n;
	free(r->counts[s]);
	r->counts[s] = NULL;
	return 0;
}

static int fill_hists(struct boot *b)
{
	struct compare *c = b->c;
	size_t nh = c->n_groups * N_HIST_METRICS, h, i, j, m, g[3], ng;
	int s;

	b->hists = calloc(nh, sizeof(*b->hists));
	/* the ranges' scratch, then the summed histogram */
	b->tmp = calloc(2 * nh + hist_n_buckets(CMP_HIST_BITS,
						 CMP_HIST_MAX_BITS),
			sizeof(size_t));
	if (!b->hists || !b->tmp)
		return -1;
	hist_ranges(b);
	for (h = 0; h < nh; h++)
		for (s = 0; s < 2; s++) {
			b->hists[h].counts[s] = calloc(c->t[s].n_windows *
						       b->hists[h].width + 1,
						       sizeof(uint32_t));
			if (!b->hists[h].counts[s])
				return -1;
		}
	for (s = 0; s < 2; s++)
		for (i = 0; i < c->t[s].side->n; i++) {
			const struct cmp_io *io = &c->t[s].side->ios[i];

			ng = io_groups(c, s, i, g);
			for (m = 0; m < N_HIST_METRICS; m++) {
				if (!(io->has & (1u << m)))
					continue;
				for (j = 0; j < ng; j++) {
					struct hist_range *r =
						&b->hists[g[j] * N_HIST_METRICS + m];

					r->counts[s][c->t[s].window[i] *
						     r->width +
						     lat_bucket(io->lat_ns[m]) -
						     r->lo]++;
				}
			}
		}
	for (h = 0; h < nh; h++)
		for (s = 0; s < 2; s++)
			if (sparse_rows(&b->hists[h], s,
					c->t[s].n_windows) < 0)
				return -1;
	return 0;
}

/*
 * Quantiles q (ascending) of the drawn windows' histogram r of trace s,
 * in us. b->tmp is all zeros between calls: only the buckets touched
 * are scanned and cleared (a small trace's windows hold a few).
 */
static void quantiles(struct boot *b, const struct hist_range *r, int s,
		      const double *q, size_t nq, double *out)
{
	uint32_t *sum = b->tmp;
	uint64_t total = 0, seen = 0, rank;
	size_t i, k, qi, lo = SIZE_MAX, hi = 0;

	for (qi = 0; qi < nq; qi++)
		out[qi] = NAN;
	for (i = 0; r->width && i < b->n_drawn[s]; i++) {
		uint32_t w = b->drawn[s][i], m = b->mult[s][w];
		const struct hist_entry *e = r->entries[s];

		for (k = r->row_start[s][w]; k < r->row_start[s][w + 1]; k++) {
			sum[e[k].bucket] += m * e[k].count;
			total += (uint64_t)m * e[k].count;
			if (e[k].bucket < lo)
				lo = e[k].bucket;
			if (e[k].bucket > hi)
				hi = e[k].bucket;
		}
	}
	if (!total)
		return;
	qi = 0;
	rank = (uint64_t)ceil(q[0] * (double)total);
	for (k = lo; k <= hi; k++) {
		seen += sum[k];
		while (qi < nq && seen >= (rank ? rank : 1)) {
			out[qi++] = bucket_mid_ns(r->lo + k) / 1e3;
			if (qi < nq)
				rank = (uint64_t)ceil(q[qi] * (double)total);
		}
		sum[k] = 0;
	}
}

/* Trace s's measures of group g over the windows drawn. */
static void measure(struct boot *b, int s, size_t g, double *v)
{
	static const double q[4] = { 0.5, 0.9, 0.99, 0.999 };
	const struct compare *c = b->c;
	struct cell sum;
	double span = c->t[s].span_s;
	size_t i, m;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < b->n_drawn[s]; i++) {
		uint32_t w = b->drawn[s][i], k = b->mult[s][w];
		const struct cell *ce = &b->cells[s][w * c->n_groups + g];

		sum.ios += k * ce->ios;
		sum.bytes += k * ce->bytes;
		for (m = 0; m < N_CMP_METRICS; m++) {
			sum.sum_ns[m] += k * ce->sum_ns[m];
			sum.n[m] += k * ce->n[m];
		}
	}
	v[MS_IOS] = sum.ios;
	v[MS_BYTES] = sum.bytes;
	v[MS_TPUT] = sum.bytes / span;
	v[MS_IOPS] = sum.ios / span;
	v[MS_DEPTH] = sum.sum_ns[CM_D2C] / 1e9 / span;
	v[MS_LAT_MEAN] = sum.n[CM_LAT] ? sum.sum_ns[CM_LAT] / sum.n[CM_LAT] /
					 1e3 : NAN;
	v[MS_LAT_SUM] = sum.sum_ns[CM_LAT] / 1e9;
	for (m = 0; m < N_HIST_METRICS; m++) {
		double *out = &v[MS_D2C_MEAN + m * 5];

		out[0] = sum.n[m] ? sum.sum_ns[m] / sum.n[m] / 1e3 : NAN;
		quantiles(b, &b->hists[g * N_HIST_METRICS + m], s, q, 4,
			  out + 1);
	}
}

static void draw_all_once(struct boot *b)
{
	int s;
	uint32_t w;

	for (s = 0; s < 2; s++) {
		for (w = 0; w < b->c->t[s].n_windows; w++) {
			b->mult[s][w] = 1;
			b->drawn[s][w] = w;
		}
		b->n_drawn[s] = b->c->t[s].n_windows;
	}
}

static void draw_resample(struct boot *b)
{
	const struct compare *c = b->c;
	size_t i;
	int s;

	for (s = 0; s < 2; s++) {
		size_t k = c->t[s].n_windows;

		memset(b->mult[s], 0, k * sizeof(uint32_t));
		b->n_drawn[s] = 0;
		if (s == 1 && c->paired_draws) {
			memcpy(b->mult[1], b->mult[0], k * sizeof(uint32_t));
			memcpy(b->drawn[1], b->drawn[0], k * sizeof(uint32_t));
			b->n_drawn[1] = b->n_drawn[0];
			break;
		}
		for (i = 0; i < k; i++) {
			/* a block's next window, or a new block's first */
			uint32_t w = i % b->block[s] ?
				     (uint32_t)((b->last[s] + 1) % k) :
				     (uint32_t)(splitmix64(&b->rng[s]) % k);

			b->last[s] = w;
			if (!b->mult[s][w]++)
				b->drawn[s][b->n_drawn[s]++] = w;
		}
	}
}

/* The I/Os (or samples) measure ms stands on, and how many it needs. */
static void measure_base(const struct boot *b, size_t g, int ms,
			 struct cmp_result *r)
{
	static const double q[4] = { 0.5, 0.9, 0.99, 0.999 };
	const struct compare *c = b->c;
	int metric = ms <= MS_DEPTH ? -1 :
		     ms <= MS_LAT_SUM ? CM_LAT : (ms - MS_D2C_MEAN) / 5;
	int pos = ms >= MS_D2C_MEAN ? (ms - MS_D2C_MEAN) % 5 : 0;
	int s;
	size_t w;

	for (s = 0; s < 2; s++) {
		uint64_t n = 0;
		size_t windows = 0;

		for (w = 0; w < c->t[s].n_windows; w++) {
			const struct cell *ce = &b->cells[s][w * c->n_groups + g];
			double k = metric < 0 ? ce->ios : ce->n[metric];

			n += (uint64_t)k;
			windows += k > 0;
		}
		*(s ? &r->n_b : &r->n_a) = n;
		*(s ? &r->windows_b : &r->windows_a) = windows;
	}
	if (metric < 0) {
		r->needs = CMP_MIN_IOS;
		r->enough = r->n_a + r->n_b >= CMP_MIN_IOS &&
			    r->windows_a + r->windows_b >= CMP_MIN_WINDOWS;
		return;
	}
	r->needs = pos ? (uint64_t)ceil(10 / (1 - q[pos - 1]) - 1e-9) :
			 CMP_MIN_IOS;
	if (ms == MS_LAT_SUM) {
		r->enough = r->n_a + r->n_b >= CMP_MIN_IOS &&
			    r->windows_a + r->windows_b >= CMP_MIN_WINDOWS;
		return;
	}
	r->enough = r->n_a >= r->needs && r->n_b >= r->needs &&
		    r->windows_a >= CMP_MIN_WINDOWS &&
		    r->windows_b >= CMP_MIN_WINDOWS;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/*
 * The percentile interval of the resamples' differences (not NaN), and
 * the two-sided bootstrap p of "no change": twice the share of the
 * resamples on the far side of 0 (ties counted half), (k + 1) / (n + 1)
 * at least; where none is on the far side, the normal tail of the
 * resamples' spread instead (so that a change far beyond the resamples
 * is not held to 2/1001 when the table is corrected for many tests).
 */
static void interval(double *diffs, size_t n, struct cmp_result *r)
{
	size_t ok = 0, i, below = 0, above = 0, ties = 0;
	double mean = 0, var = 0, far;

	for (i = 0; i < n; i++)
		if (!isnan(diffs[i]))
			diffs[ok++] = diffs[i];
	r->p = r->q = NAN;
	if (ok < n * 9 / 10 || !ok) {
		r->lo = r->hi = NAN;
		r->enough = 0;
		return;
	}
	qsort(diffs, ok, sizeof(*diffs), cmp_double);
	r->lo = diffs[(size_t)floor(0.025 * (double)(ok - 1) + 0.5)];
	r->hi = diffs[(size_t)floor(0.975 * (double)(ok - 1) + 0.5)];
	r->raw_sign = !r->enough || isnan(r->diff) ? 0 :
		      r->lo > 0 ? 1 : r->hi < 0 ? -1 : 0;
	for (i = 0; i < ok; i++) {
		below += diffs[i] < 0;
		above += diffs[i] > 0;
		ties += diffs[i] == 0;
		mean += diffs[i];
	}
	mean /= (double)ok;
	for (i = 0; i < ok; i++)
		var += (diffs[i] - mean) * (diffs[i] - mean);
	var /= (double)(ok > 1 ? ok - 1 : 1);
	far = (double)(r->diff >= 0 ? below : above) + ties / 2.0;
	r->p = fmin(1, 2 * (far + 1) / ((double)ok + 1));
	if (far == 0 && var > 0 && !isnan(r->diff))
		r->p = fmin(r->p, erfc(fabs(r->diff) / sqrt(2 * var)));
	r->sign = r->raw_sign;
}

static int resample(struct boot *b)
{
	struct compare *c = b->c;
	size_t per = c->n_groups * N_MEASURES, i, g, m;
	double *diffs = malloc(CMP_RESAMPLES * per * sizeof(double));
	double va[N_MEASURES], vb[N_MEASURES];

	if (!diffs)
		return -1;
	/* each trace's stream seeded by the trace (its windows and I/Os),
	 * not its side: B against A draws what A against B drew, and its
	 * intervals and p are A against B's with the sign flipped (where
	 * the windows are as many, they are drawn together from A's) */
	for (i = 0; i < 2; i++)
		b->rng[i] = CMP_SEED + 0x9e3779b97f4a7c15ull *
			    (uint64_t)c->t[i].n_windows +
			    0xbf58476d1ce4e5b9ull * (uint64_t)c->t[i].side->n;
	for (i = 0; i < CMP_RESAMPLES; i++) {
		draw_resample(b);
		for (g = 0; g < c->n_groups; g++) {
			if (!c->groups[g].r[MS_IOS].n_a &&
			    !c->groups[g].r[MS_IOS].n_b)
				continue;	/* a class neither has */
			measure(b, 0, g, va);
			measure(b, 1, g, vb);
			for (m = 0; m < N_MEASURES; m++)
				diffs[(g * N_MEASURES + m) * CMP_RESAMPLES + i] =
					vb[m] - va[m];
		}
	}
	for (g = 0; g < c->n_groups; g++)
		for (m = 0; (c->groups[g].r[MS_IOS].n_a ||
			     c->groups[g].r[MS_IOS].n_b) && m < N_MEASURES; m++)
			interval(diffs + (g * N_MEASURES + m) * CMP_RESAMPLES,
				 CMP_RESAMPLES, &c->groups[g].r[m]);
	free(diffs);
	return 0;
}

/* The histogram's step at us microseconds, in us. */
double cmp_step_us(double us)
{
	size_t k;

	if (isnan(us) || us <= 0)
		return 0;
	k = lat_bucket((float)(us * 1e3));
	return (double)(hist_bucket_high(k, CMP_HIST_BITS) -
			hist_bucket_low(k, CMP_HIST_BITS)) / 1e3;
}

int cmp_is_quantile(int m)
{
	return m >= MS_D2C_MEAN && (m - MS_D2C_MEAN) % 5 != 0;
}

static int cmp_p(const void *pa, const void *pb)
{
	double a = (*(struct cmp_result *const *)pa)->p;
	double b = (*(struct cmp_result *const *)pb)->p;

	return (a > b) - (a < b);
}

/* A discovery r called: its sign, unless within the histogram's
 * resolution or under min_change of A's value. */
void cmp_call(struct cmp_result *r, double min_change)
{
	if (!r->raw_sign && r->diff != 0)
		r->raw_sign = r->diff > 0 ? 1 : -1;
	if (fabs(r->diff) <= r->resolution)
		r->small = CMP_SMALL_RESOLUTION;
	else if (fabs(r->diff) < min_change * fabs(r->a))
		r->small = CMP_SMALL_MIN_CHANGE;
	else
		r->sign = r->raw_sign;
}

/* Sorts fam by p, sets each q (p * n / rank, the smallest from there
 * up), and returns how many of the first are rejected at CMP_FDR. */
int cmp_bh(struct cmp_result **fam, size_t n, int *rejected)
{
	size_t i, last = 0;
	double q_min = 1;

	(void)rejected;
	if (n)
		qsort(fam, n, sizeof(*fam), cmp_p);
	for (i = 0; i < n; i++)
		if (fam[i]->p <= CMP_FDR * (double)(i + 1) / (double)n)
			last = i + 1;
	for (i = n; i-- > 0;) {
		q_min = fmin(q_min, fam[i]->p * (double)n / (double)(i + 1));
		fam[i]->q = q_min;
	}
	return (int)last;
}

/*
 * What the table calls a change: Benjamini-Hochberg at CMP_FDR over
 * every result that has enough I/Os (each class's and the whole's: one
 * family, so that 25 measures a class do not give a dozen chance
 * "faster"s), and then only a change of --min-change of A's value or
 * more, and for a quantile more than two steps of the histogram it is
 * read from (each side is known to a step).
 */
static int decide(struct compare *c)
{
	struct cmp_result **fam;
	size_t g, m, n = 0, i, last;

	fam = malloc((c->n_groups * N_MEASURES + 1) * sizeof(*fam));
	if (!fam)
		return -1;
	for (g = 0; g < c->n_groups; g++)
		for (m = 0; m < N_MEASURES; m++) {
			struct cmp_result *r = &c->groups[g].r[m];

			r->sign = 0;
			/* the work both did is the whole where the work is
			 * the same: one test, not two */
			if (g == c->n_groups - 1 && c->work == WORK_SAME)
				continue;
			if (cmp_is_quantile((int)m))
				r->resolution = 2 * cmp_step_us(fmax(r->a, r->b));
			if (r->enough && !isnan(r->p))
				fam[n++] = r;
		}
	c->n_tests = n;
	last = cmp_bh(fam, n, NULL);
	for (i = 0; i < last; i++)
		cmp_call(fam[i], c->min_change);
	free(fam);
	return 0;
}

static int boot_alloc(struct boot *b)
{
	int s;

	for (s = 0; s < 2; s++) {
		size_t k = b->c->t[s].n_windows;

		/* blocks of about the cube root of the windows (3 of 40,
		 * 10 of 1000), the usual length for a moving-block
		 * bootstrap: a slow spell longer than a window is drawn
		 * whole more often than cut apart */
		b->block[s] = (size_t)fmax(1, floor(cbrt((double)k)));
		b->mult[s] = calloc(k, sizeof(uint32_t));
		b->drawn[s] = calloc(k, sizeof(uint32_t));
		if (!b->mult[s] || !b->drawn[s])
			return -1;
	}
	return 0;
}

static void boot_free(struct boot *b)
{
	size_t h;
	int s;

	for (s = 0; s < 2; s++) {
		free(b->cells[s]);
		free(b->mult[s]);
		free(b->drawn[s]);
	}
	for (h = 0; b->hists && h < b->c->n_groups * N_HIST_METRICS; h++)
		for (s = 0; s < 2; s++) {
			free(b->hists[h].counts[s]);
			free(b->hists[h].entries[s]);
			free(b->hists[h].row_start[s]);
		}
	free(b->hists);
	free(b->tmp);
}

int cmp_table(struct compare *c)
{
	struct boot b;
	double va[N_MEASURES], vb[N_MEASURES];
	size_t g, m;
	int r = -1;

	memset(&b, 0, sizeof(b));
	b.c = c;
	/* the classes, the whole, and (last, then set apart) the work
	 * both did */
	c->n_groups = c->n_pairs * N_OPS + 2;
	c->groups = calloc(c->n_groups, sizeof(*c->groups));
	if (!c->groups || boot_alloc(&b) < 0 || sum_cells(&b) < 0 ||
	    fill_hists(&b) < 0)
		goto out;
	draw_all_once(&b);
	for (g = 0; g < c->n_groups; g++) {
		struct cmp_group *gr = &c->groups[g];

		gr->pair = g / N_OPS;
		gr->op = g >= c->n_groups - 2 ? -1 : (int)(g % N_OPS);
		measure(&b, 0, g, va);
		measure(&b, 1, g, vb);
		for (m = 0; m < N_MEASURES; m++) {
			gr->r[m].a = va[m];
			gr->r[m].b = vb[m];
			gr->r[m].diff = vb[m] - va[m];
			measure_base(&b, g, (int)m, &gr->r[m]);
		}
	}
	r = c->points_only ? 0 : resample(&b);
	if (r == 0 && !c->points_only)
		r = decide(c);
out:
	boot_free(&b);
	if (r == 0) {
		c->matched = c->groups[--c->n_groups];
		c->has_matched = c->work != WORK_SAME;
		if (!c->has_matched)
			c->matched = c->groups[c->n_groups - 1];
	}
	return r;
}
