/*
 * compare_groups.c: --compare of groups of runs (-t A1 -t A2 -t A3 --vs
 * -t B1 -t B2 -t B3). Each run is measured alone, as the two-trace
 * comparison measures a trace (compare_boot.c's point values, per paired
 * device and class and over all); each measure's B runs against its A
 * runs: the difference of the means, its 95% interval and p from
 * Welch's t (each run one value: the interval is the run-to-run
 * variation, the honest answer to "did my change help"), then
 * Benjamini-Hochberg across the whole table, --min-change and the
 * histogram's resolution as for two traces. Devices pair by number.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "compare.h"
#include "compare_int.h"
#include "report/report_data.h"

#define MIN_RUNS	3

struct gkey {
	uint32_t dev;
	int op;			/* -1: all paired devices */
};

struct gtable {
	struct gkey *keys;
	size_t n_keys;
	size_t n_runs;
	double *vals;		/* [(key * n_runs + run) * N_MEASURES + m] */
	struct cmp_result *res;	/* [key * N_MEASURES + m] */
	size_t n_tests;
	/* the work: per process, comm and cgroup label, each run's share
	 * of its timed I/Os */
	struct gwork *work;
	size_t n_work;
	double *wn;		/* [work * n_runs + run]: I/Os, then shares */
	double *wbytes;		/* [work * n_runs + run] */
	double *run_ios;	/* [run]: its timed I/Os */
	struct cmp_result *wres;	/* [work] */
	size_t cur_run;
	int oom;
	enum cmp_work verdict_work;
};

struct gwork {
	const char *stratum;
	char *label;
	int sig;		/* significant after the correction */
	int claimed;		/* work one side's runs did, the other's not */
};

/* as for two traces (compare_split.c): a value with fewer I/Os a run on
 * its larger side is no work; nor one under this share of the runs'
 * I/Os; the other side's at most FAR_LESS of it */
#define WORK_MIN_IOS	8
#define WORK_MIN_SHARE	0.05
#define WORK_FAR_LESS	0.5

/* ---- Student's t ---- */

/* The continued fraction of the incomplete beta (Lentz's method). */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-12)
			break;
	}
	return h;
}

/* The regularized incomplete beta I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(|T| >= t) of Student's t with df degrees of freedom. */
static double t_two_sided(double t, double df)
{
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

/* The t with P(|T| >= t) = p (bisection). */
static double t_quantile(double p, double df)
{
	double lo = 0, hi = 1000;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (t_two_sided(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- the runs' values ---- */

static long key_index(struct gtable *t, struct gkey k, int add)
{
	struct gkey *more;
	size_t i;

	for (i = 0; i < t->n_keys; i++)
		if (t->keys[i].dev == k.dev && t->keys[i].op == k.op)
			return (long)i;
	if (!add)
		return -1;
	more = realloc(t->keys, (t->n_keys + 1) * sizeof(*more));
	if (!more)
		return -2;
	t->keys = more;
	t->keys[t->n_keys] = k;
	return (long)t->n_keys++;
}

/* Measures that are sums: a run without the class has 0 of them. */
static int is_sum(int m)
{
	return m <= MS_DEPTH || m == MS_LAT_SUM;
}

static void work_add(void *ctx, const char *stratum, const char *label,
		     double n, double bytes)
{
	struct gtable *t = ctx;
	size_t k, r = t->cur_run;

	for (k = 0; k < t->n_work; k++)
		if (t->work[k].stratum == stratum &&
		    !strcmp(t->work[k].label, label))
			break;
	if (k == t->n_work) {
		struct gwork *w = realloc(t->work, (k + 1) * sizeof(*w));
		double *wn, *wb;

		if (!w) {
			t->oom = 1;
			return;
		}
		t->work = w;
		wn = realloc(t->wn, (k + 1) * t->n_runs * sizeof(*wn));
		if (wn)
			t->wn = wn;
		wb = realloc(t->wbytes, (k + 1) * t->n_runs * sizeof(*wb));
		if (wb)
			t->wbytes = wb;
		w[k].label = strdup(label);
		if (!wn || !wb || !w[k].label) {
			free(w[k].label);
			t->oom = 1;
			return;
		}
		w[k].stratum = stratum;
		w[k].sig = w[k].claimed = 0;
		memset(&t->wn[k * t->n_runs], 0, t->n_runs * sizeof(*wn));
		memset(&t->wbytes[k * t->n_runs], 0, t->n_runs * sizeof(*wb));
		t->n_work++;
	}
	t->wn[k * t->n_runs + r] += n;
	t->wbytes[k * t->n_runs + r] += bytes;
	if (!strcmp(stratum, "process"))
		t->run_ios[r] += n;
}

/* Run r alone, its classes' point values (NaN where it has none). */
static int measure_run(struct gtable *t, const struct options *o,
		       struct trace_result *tr, struct compare_side *side,
		       size_t r, struct iow_error *err)
{
	struct compare c;
	size_t g, k, m;
	int ret = -1;

	if (cmp_setup(&c, o, tr, tr, side, side, err) < 0)
		goto out;
	c.points_only = 1;
	if (cmp_table(&c) < 0) {
		iow_fail(err, "out of memory comparing the runs");
		goto out;
	}
	for (g = 0; g < c.n_groups; g++) {
		const struct cmp_group *gr = &c.groups[g];
		struct gkey key;
		size_t before = t->n_keys;
		long at;

		if (!gr->r[MS_IOS].n_a)
			continue;
		key.op = gr->op;
		key.dev = gr->op < 0 ? 0 : c.pairs[gr->pair][0];
		at = key_index(t, key, 1);
		if (at == -2) {
			iow_fail(err, "out of memory comparing the runs");
			goto out;
		}
		if (t->n_keys > before) {
			double *more = realloc(t->vals, t->n_keys * t->n_runs *
						       N_MEASURES * sizeof(double));

			if (!more) {
				iow_fail(err, "out of memory comparing the runs");
				goto out;
			}
			t->vals = more;
			for (k = 0; k < t->n_runs; k++)
				for (m = 0; m < N_MEASURES; m++)
					t->vals[(((size_t)at * t->n_runs) + k) *
						N_MEASURES + m] =
						is_sum((int)m) ? 0 : NAN;
		}
		for (m = 0; m < N_MEASURES; m++)
			t->vals[(((size_t)at * t->n_runs) + r) * N_MEASURES +
				m] = gr->r[m].a;
	}
	t->cur_run = r;
	if (cmp_run_work(&c, work_add, t) < 0 || t->oom) {
		iow_fail(err, "out of memory comparing the runs");
		goto out;
	}
	ret = 0;
out:
	cmp_free(&c);
	return ret;
}

/* Welch's difference of B's runs' mean and A's for key k, measure m. */
static void welch_on(const double *vals, size_t stride, size_t n_runs,
		     int m, size_t na, struct cmp_result *r)
{
	double sum[2] = { 0, 0 }, ss[2] = { 0, 0 }, mean[2], var[2];
	size_t n[2] = { 0, 0 }, i;
	int s;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < n_runs; i++) {
		double v = vals[i * stride];

		s = i >= na;
		if (isnan(v))
			continue;
		sum[s] += v;
		n[s]++;
	}
	for (s = 0; s < 2; s++)
		mean[s] = n[s] ? sum[s] / (double)n[s] : NAN;
	for (i = 0; i < n_runs; i++) {
		double v = vals[i * stride];

		s = i >= na;
		if (!isnan(v))
			ss[s] += (v - mean[s]) * (v - mean[s]);
	}
	r->a = mean[0];
	r->b = mean[1];
	r->diff = mean[1] - mean[0];
	r->n_a = n[0];
	r->n_b = n[1];
	r->needs = MIN_RUNS;
	r->lo = r->hi = r->p = r->q = NAN;
	r->enough = n[0] >= MIN_RUNS && n[1] >= MIN_RUNS;
	if (!r->enough)
		return;
	for (s = 0; s < 2; s++)
		var[s] = ss[s] / (double)(n[s] - 1) / (double)n[s];
	if (var[0] + var[1] <= 0) {
		/* every run alike on both sides */
		r->lo = r->hi = r->diff;
		r->p = r->diff == 0 ? 1 : 0;
	} else {
		double se = sqrt(var[0] + var[1]);
		double df = (var[0] + var[1]) * (var[0] + var[1]) /
			    (var[0] * var[0] / (double)(n[0] - 1) +
			     var[1] * var[1] / (double)(n[1] - 1));
		double tq = t_quantile(0.05, df);

		r->lo = r->diff - tq * se;
		r->hi = r->diff + tq * se;
		r->p = t_two_sided(fabs(r->diff) / se, df);
	}
	r->raw_sign = r->lo > 0 ? 1 : r->hi < 0 ? -1 : 0;
	if (cmp_is_quantile(m))
		r->resolution = 2 * cmp_step_us(fmax(r->a, r->b));
}

static void welch(struct gtable *t, size_t k, int m, size_t na,
		  struct cmp_result *r)
{
	welch_on(&t->vals[k * t->n_runs * N_MEASURES + (size_t)m], N_MEASURES,
		 t->n_runs, m, na, r);
}

/*
 * The work question for groups: a process, command or cgroup whose share
 * of the runs' I/Os differs between the sides beyond the runs' own
 * variation (Welch over the runs' shares, Benjamini-Hochberg across the
 * labels), where one side's runs have it (WORK_MIN_SHARE of their I/Os,
 * WORK_MIN_IOS a run) and the other's lack it or have at most
 * WORK_FAR_LESS of it. Shares, not counts: the same job at another rate
 * has the same mix.
 */
static int decide_work(struct gtable *t, size_t na)
{
	struct cmp_result **fam;
	size_t k, i, n = 0, last;
	int more = 0, less = 0;

	t->verdict_work = WORK_SAME;
	if (!t->n_work)
		return 0;
	for (k = 0; k < t->n_work; k++)
		for (i = 0; i < t->n_runs; i++)
			t->wn[k * t->n_runs + i] = t->run_ios[i] > 0 ?
				t->wn[k * t->n_runs + i] / t->run_ios[i] : 0;
	t->wres = calloc(t->n_work, sizeof(*t->wres));
	fam = malloc(t->n_work * sizeof(*fam));
	if (!t->wres || !fam) {
		free(fam);
		return -1;
	}
	for (k = 0; k < t->n_work; k++) {
		welch_on(&t->wn[k * t->n_runs], 1, t->n_runs, MS_IOS, na,
			 &t->wres[k]);
		if (t->wres[k].enough && !isnan(t->wres[k].p))
			fam[n++] = &t->wres[k];
	}
	last = (size_t)cmp_bh(fam, n, NULL);
	for (i = 0; i < last; i++)
		t->work[fam[i] - t->wres].sig = 1;
	free(fam);
	for (k = 0; k < t->n_work; k++) {
		const struct cmp_result *r = &t->wres[k];
		struct gwork *w = &t->work[k];
		int b = r->diff > 0;
		double hi = b ? r->b : r->a, lo = b ? r->a : r->b;
		double ios = 0;
		size_t from = b ? na : 0, to = b ? t->n_runs : na;

		for (i = from; i < to; i++)
			ios += t->wn[k * t->n_runs + i] * t->run_ios[i];
		ios /= (double)(to - from);
		/* "[unknown]", "[5 others]": no work of anyone's */
		if (!w->sig || w->label[0] == '[' || ios < WORK_MIN_IOS ||
		    hi < WORK_MIN_SHARE || lo > WORK_FAR_LESS * hi ||
		    hi >= 0.95)
			continue;
		w->claimed = 1;
		if (b)
			more = 1;
		else
			less = 1;
	}
	t->verdict_work = more && less ? WORK_DIFFERENT : more ? WORK_MORE :
			  less ? WORK_LESS : WORK_SAME;
	return 0;
}

static int decide(struct gtable *t, size_t na, double min_change)
{
	struct cmp_result **fam;
	size_t k, n = 0, i, last;
	int m;

	t->res = calloc(t->n_keys * N_MEASURES + 1, sizeof(*t->res));
	fam = malloc((t->n_keys * N_MEASURES + 1) * sizeof(*fam));
	if (!t->res || !fam) {
		free(fam);
		return -1;
	}
	for (k = 0; k < t->n_keys; k++)
		for (m = 0; m < N_MEASURES; m++) {
			struct cmp_result *r = &t->res[k * N_MEASURES +
						       (size_t)m];

			welch(t, k, m, na, r);
			if (r->enough && !isnan(r->p))
				fam[n++] = r;
		}
	t->n_tests = n;
	last = (size_t)cmp_bh(fam, n, NULL);
	for (i = 0; i < last; i++)
		cmp_call(fam[i], min_change);
	free(fam);
	return 0;
}

/* ---- printing ---- */

static const char *const work_words[] = { "same", "more", "less",
					  "different" };

/* "B's runs did work A's did not: comm dd (0% of A's I/Os, 31% of B's)" */
static void work_line(FILE *out, const struct gtable *t)
{
	size_t k, first = 1;

	if (t->verdict_work == WORK_SAME) {
		fprintf(out, "Work: the same (no process, command or cgroup has a share of the I/Os one side's runs have and the other's lack beyond the runs' variation).\n");
		return;
	}
	fprintf(out, "Work: %s (%s):", work_words[t->verdict_work],
		t->verdict_work == WORK_MORE ? "B's runs did work A's did not or far less of" :
		t->verdict_work == WORK_LESS ? "A's runs did work B's did not or far less of" :
		"each side's runs did work the other's did not");
	for (k = 0; k < t->n_work; k++) {
		const struct cmp_result *r = &t->wres[k];

		if (!t->work[k].claimed)
			continue;
		fprintf(out, "%s %s %s (%.0f%% of A's I/Os, %.0f%% of B's; 95%% CI of B-A [%+.0f%%, %+.0f%%])",
			first ? "" : ";", t->work[k].stratum, t->work[k].label,
			r->a * 100, r->b * 100, r->lo * 100, r->hi * 100);
		first = 0;
	}
	fputs(".\n", out);
}

static void work_json(FILE *out, const struct gtable *t, size_t na)
{
	size_t k, i, first = 1;

	fputs(",\n  \"work\": ", out);
	utf8_json_string_html(out, work_words[t->verdict_work]);
	fputs(",\n  \"work_contributors\": [", out);
	for (k = 0; k < t->n_work; k++) {
		const struct cmp_result *r = &t->wres[k];
		double io[2] = { 0, 0 }, by[2] = { 0, 0 };

		if (!t->work[k].claimed)
			continue;
		for (i = 0; i < t->n_runs; i++) {
			io[i >= na] += t->wn[k * t->n_runs + i] * t->run_ios[i];
			by[i >= na] += t->wbytes[k * t->n_runs + i];
		}
		fputs(first ? "\n    {\"stratum\": " : ",\n    {\"stratum\": ",
		      out);
		first = 0;
		utf8_json_string_html(out, t->work[k].stratum);
		fputs(", \"value\": ", out);
		utf8_json_string_html(out, t->work[k].label);
		fputs(", \"kind\": \"work\", ", out);
		cmp_json_estimate(out, r, "a_share", "b_share");
		fputs(", \"p\": ", out);
		json_num(out, r->p);
		fputs(", \"q\": ", out);
		json_num(out, r->q);
		fprintf(out, ", \"a_ios_mean\": %.1f, \"b_ios_mean\": %.1f, \"a_bytes_mean\": %.0f, \"b_bytes_mean\": %.0f}",
			io[0] / (double)na, io[1] / (double)(t->n_runs - na),
			by[0] / (double)na, by[1] / (double)(t->n_runs - na));
	}
	fputs(first ? "]" : "\n  ]", out);
}

static void key_name(const struct gkey *k, char *buf, size_t len)
{
	char d[32];

	if (k->op < 0) {
		snprintf(buf, len, "all paired devices");
		return;
	}
	cmp_device_name(k->dev, d, sizeof(d));
	snprintf(buf, len, "%s %s", d, cmp_op_name(k->op));
}

static const struct cmp_result *overall(const struct gtable *t)
{
	struct gkey all = { 0, -1 };
	long at = key_index((struct gtable *)t, all, 0);

	return at < 0 ? NULL : &t->res[(size_t)at * N_MEASURES + MS_LAT_MEAN];
}

static void headline(const struct gtable *t, size_t na, char *buf,
		     size_t len)
{
	const struct cmp_result *r = overall(t);
	char a[32], b[32], d[32], lo[32], hi[32], w[96];

	if (!r || !r->enough) {
		snprintf(buf, len, "Too few runs with timed I/O for a verdict (needs %d a side)",
			 MIN_RUNS);
		return;
	}
	cmp_format(r->a, MS_LAT_MEAN, 0, a, sizeof(a));
	cmp_format(r->b, MS_LAT_MEAN, 0, b, sizeof(b));
	cmp_format(r->diff, MS_LAT_MEAN, 1, d, sizeof(d));
	cmp_format(r->lo, MS_LAT_MEAN, 1, lo, sizeof(lo));
	cmp_format(r->hi, MS_LAT_MEAN, 1, hi, sizeof(hi));
	if (r->sign)
		snprintf(buf, len, "B is %s: mean I/O latency %s -> %s (%s; means of %zu and %zu runs, 95%% CI %s to %s from how the runs vary)",
			 r->sign > 0 ? "slower" : "faster", a, b, d, na,
			 t->n_runs - na, lo, hi);
	else
		snprintf(buf, len, "No significant difference (%s): mean I/O latency %s -> %s (means of %zu and %zu runs, 95%% CI of the change %s to %s from how the runs vary)",
			 cmp_result_word(r, MS_LAT_MEAN, w, sizeof(w)), a, b,
			 na, t->n_runs - na, lo, hi);
}

static const char *verdict(const struct gtable *t)
{
	const struct cmp_result *r = overall(t);

	return !r || !r->sign ? "no significant difference" :
	       r->sign > 0 ? "slower" : "faster";
}

/* the keys in order: each device's classes, then all */
static int cmp_key(const void *pa, const void *pb)
{
	const struct gkey *a = pa, *b = pb;

	if ((a->op < 0) != (b->op < 0))
		return a->op < 0 ? 1 : -1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->op - b->op;
}

static void print_text(FILE *out, const struct gtable *t, size_t na,
		       struct trace_result *traces, double min_change,
		       const size_t *order)
{
	char line[1024];
	size_t i, k;
	int m;

	headline(t, na, line, sizeof(line));
	fprintf(out, "%s\n\n", line);
	for (i = 0; i < t->n_runs; i++)
		fprintf(out, "%s%s (%s)%s", i == 0 ? "A: " : i == na ? "B: " :
			", ", traces[i].label, traces[i].source,
			i + 1 == na || i + 1 == t->n_runs ? "\n" : "");
	fprintf(out, "95%% intervals: Welch's t over the runs, each run one value: they measure how runs of a job differ from one another.\n");
	fprintf(out, "Called faster, slower, higher or lower: significant across the table's %zu tests (Benjamini-Hochberg, false discoveries at %.0f%%) and by %g%% of A's value or more (--min-change), a quantile by more than two steps of its histogram (else \"within resolution\").\n",
		t->n_tests, CMP_FDR * 100, min_change * 100);
	work_line(out, t);
	for (i = 0; i < t->n_keys; i++) {
		k = order[i];
		key_name(&t->keys[k], line, sizeof(line));
		fprintf(out, "\n%s:\n  %-16s %11s %11s %11s  %-25s %s\n", line,
			"", "A (mean)", "B (mean)", "B-A", "95% CI", "");
		for (m = 0; m < N_MEASURES; m++) {
			const struct cmp_result *r = &t->res[k * N_MEASURES +
							     (size_t)m];
			char a[32], b[32], d[32], lo[32], hi[32], ci[80];
			char w[96];

			if (m > MS_DEPTH && isnan(r->a) && isnan(r->b))
				continue;
			snprintf(ci, sizeof(ci), "[%s, %s]",
				 cmp_format(r->lo, m, 1, lo, sizeof(lo)),
				 cmp_format(r->hi, m, 1, hi, sizeof(hi)));
			if (!r->enough)
				snprintf(w, sizeof(w), "too few runs (%llu and %llu; needs %d a side)",
					 (unsigned long long)r->n_a,
					 (unsigned long long)r->n_b, MIN_RUNS);
			fprintf(out, "  %-16s %11s %11s %11s  %-25s %s\n",
				cmp_measure_text(m),
				cmp_format(r->a, m, 0, a, sizeof(a)),
				cmp_format(r->b, m, 0, b, sizeof(b)),
				cmp_format(r->diff, m, 1, d, sizeof(d)), ci,
				r->enough ? cmp_result_word(r, m, w, sizeof(w)) :
					    w);
		}
	}
}

static void json_key(FILE *out, const struct gtable *t, size_t k)
{
	char d[32];
	int m;

	fputs("{", out);
	if (t->keys[k].op >= 0) {
		cmp_device_name(t->keys[k].dev, d, sizeof(d));
		fprintf(out, "\"device\": \"%s\", ", d);
	}
	fputs("\"class\": ", out);
	utf8_json_string_html(out, cmp_op_name(t->keys[k].op));
	for (m = 0; m < N_MEASURES; m++) {
		fprintf(out, ",\n      \"%s\": ", cmp_measure_json(m));
		cmp_json_result(out, &t->res[k * N_MEASURES + (size_t)m], m);
	}
	fputs("}", out);
}

static void print_json(FILE *out, const struct gtable *t, size_t na,
		       struct trace_result *traces, double min_change,
		       const size_t *order)
{
	char line[1024];
	size_t i, first = 1;
	int s;

	headline(t, na, line, sizeof(line));
	fputs("{\n  \"mode\": \"groups\",\n  \"verdict\": ", out);
	utf8_json_string_html(out, verdict(t));
	fputs(",\n  \"summary\": ", out);
	utf8_json_string_html(out, line);
	for (s = 0; s < 2; s++) {
		fprintf(out, ",\n  \"%s\": {\"runs\": [", s ? "b" : "a");
		for (i = s ? na : 0; i < (s ? t->n_runs : na); i++) {
			fputs(i == (s ? na : 0) ? "{\"label\": " : ", {\"label\": ",
			      out);
			utf8_json_string_html(out, traces[i].label);
			fputs(", \"source\": ", out);
			utf8_json_string_html(out, traces[i].source);
			fputs("}", out);
		}
		fputs("]}", out);
	}
	fprintf(out, ",\n  \"intervals_from\": \"run-to-run variation\", \"interval\": \"welch\", \"correction\": \"benjamini-hochberg\", \"fdr\": %g, \"tests\": %zu, \"min_change\": ",
		CMP_FDR, t->n_tests);
	json_num(out, min_change);
	work_json(out, t, na);
	fputs(",\n  \"classes\": [", out);
	for (i = 0; i < t->n_keys; i++) {
		if (t->keys[order[i]].op < 0)
			continue;
		fputs(first ? "\n    " : ",\n    ", out);
		first = 0;
		json_key(out, t, order[i]);
	}
	fputs("\n  ]", out);
	for (i = 0; i < t->n_keys; i++)
		if (t->keys[order[i]].op < 0) {
			fputs(",\n  \"overall\": ", out);
			json_key(out, t, order[i]);
		}
	fputs("\n}\n", out);
}

static const struct gtable *sort_table;

static int cmp_order(const void *pa, const void *pb)
{
	return cmp_key(&sort_table->keys[*(const size_t *)pa],
		       &sort_table->keys[*(const size_t *)pb]);
}

int compare_groups_print(FILE *out, const struct options *o,
			 struct trace_result *traces, size_t n,
			 struct compare_side *const *sides,
			 struct iow_error *err)
{
	struct gtable t;
	size_t na = o->vs_at - 1, i, *order = NULL;
	int r = -1;

	memset(&t, 0, sizeof(t));
	t.n_runs = n;
	t.run_ios = calloc(n, sizeof(*t.run_ios));
	if (!t.run_ios) {
		iow_fail(err, "out of memory comparing the runs");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (measure_run(&t, o, &traces[i], sides[i], i, err) < 0)
			goto out;
	order = malloc((t.n_keys + 1) * sizeof(*order));
	if (!order || decide(&t, na, o->min_change) < 0 ||
	    decide_work(&t, na) < 0) {
		iow_fail(err, "out of memory comparing the runs");
		goto out;
	}
	for (i = 0; i < t.n_keys; i++)
		order[i] = i;
	sort_table = &t;
	qsort(order, t.n_keys, sizeof(*order), cmp_order);
	if (o->compare == COMPARE_JSON)
		print_json(out, &t, na, traces, o->min_change, order);
	else
		print_text(out, &t, na, traces, o->min_change, order);
	r = 0;
out:
	free(order);
	free(t.keys);
	free(t.vals);
	free(t.res);
	for (i = 0; i < t.n_work; i++)
		free(t.work[i].label);
	free(t.work);
	free(t.wn);
	free(t.wbytes);
	free(t.run_ios);
	free(t.wres);
	return r;
}
