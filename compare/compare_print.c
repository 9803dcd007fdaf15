/*
 * compare_print.c: --compare's answer as text (the verdict on top in
 * plain words, the contributors, then the table per device and class)
 * or as JSON (the contract in the man page's "COMPARING TWO TRACES").
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "compare_int.h"
#include "report/report_data.h"

enum unit { U_COUNT, U_BYTES, U_RATE, U_PER_S, U_DEPTH, U_US, U_S };

static const struct {
	const char *text, *json;
	enum unit unit;
} measures[N_MEASURES] = {
	{ "I/Os", "ios", U_COUNT },
	{ "bytes", "bytes", U_BYTES },
	{ "throughput", "throughput_bps", U_RATE },
	{ "IOPS", "iops", U_PER_S },
	{ "queue depth", "queue_depth", U_DEPTH },
	{ "latency mean", "latency_mean_us", U_US },
	{ "latency-seconds", "latency_s", U_S },
	{ "D2C mean", "d2c_mean_us", U_US },
	{ "D2C p50", "d2c_p50_us", U_US },
	{ "D2C p90", "d2c_p90_us", U_US },
	{ "D2C p99", "d2c_p99_us", U_US },
	{ "D2C p99.9", "d2c_p999_us", U_US },
	{ "Q2C mean", "q2c_mean_us", U_US },
	{ "Q2C p50", "q2c_p50_us", U_US },
	{ "Q2C p90", "q2c_p90_us", U_US },
	{ "Q2C p99", "q2c_p99_us", U_US },
	{ "Q2C p99.9", "q2c_p999_us", U_US },
	{ "Q2D mean", "q2d_mean_us", U_US },
	{ "Q2D p50", "q2d_p50_us", U_US },
	{ "Q2D p90", "q2d_p90_us", U_US },
	{ "Q2D p99", "q2d_p99_us", U_US },
	{ "Q2D p99.9", "q2d_p999_us", U_US },
};

static int is_latency(int m)
{
	return measures[m].unit == U_US || measures[m].unit == U_S;
}

/* A value in its unit; sign: a difference, with its + or -. */
static const char *fmt(double v, enum unit u, int sign, char *buf,
		       size_t len);

const char *cmp_measure_text(int m)
{
	return measures[m].text;
}

const char *cmp_format(double v, int m, int sign, char *buf, size_t len)
{
	return fmt(v, measures[m].unit, sign, buf, len);
}

const char *cmp_format_us(double us, char *buf, size_t len)
{
	return fmt(us, U_US, 0, buf, len);
}

static const char *fmt(double v, enum unit u, int sign, char *buf,
		       size_t len)
{
	const char *plus = sign && v > 0 ? "+" : "";
	double a = fabs(v);

	if (isnan(v))
		return "-";
	switch (u) {
	case U_US:
		if (a >= 1e6)
			snprintf(buf, len, "%s%.3g s", plus, v / 1e6);
		else if (a >= 1e3)
			snprintf(buf, len, "%s%.3g ms", plus, v / 1e3);
		else
			snprintf(buf, len, "%s%.3g us", plus, v);
		return buf;
	case U_S:
		/* under a second in ms or us (never "8.427e-05 s") */
		if (a < 1)
			return fmt(v * 1e6, U_US, sign, buf, len);
		snprintf(buf, len, "%s%.4g s", plus, v);
		return buf;
	case U_RATE:
		/* MB/s (10^6 bytes) as --summary says the same reads */
		if (a >= 1e9)
			snprintf(buf, len, "%s%.3g GB/s", plus, v / 1e9);
		else if (a >= 1e5 || a == 0)
			snprintf(buf, len, "%s%.3g MB/s", plus, v / 1e6);
		else
			snprintf(buf, len, "%s%.3g kB/s", plus, v / 1e3);
		return buf;
	case U_BYTES:
		if (a >= 1073741824)
			snprintf(buf, len, "%s%.3g GiB", plus, v / 1073741824);
		else if (a >= 1048576)
			snprintf(buf, len, "%s%.3g MiB", plus, v / 1048576);
		else if (a >= 1024)
			snprintf(buf, len, "%s%.3g KiB", plus, v / 1024);
		else
			snprintf(buf, len, "%s%.0f B", plus, v);
		return buf;
	case U_COUNT:
		snprintf(buf, len, "%s%.0f", plus, v);
		return buf;
	default:
		if (a >= 100)
			snprintf(buf, len, "%s%.0f", plus, v);
		else if (a >= 0.001 || a == 0)
			snprintf(buf, len, "%s%.3g", plus, v);
		else	/* a queue depth of a few I/Os: 0.000070 */
			snprintf(buf, len, "%s%.6f", plus, v);
		return buf;
	}
}

/* Whether r lacks I/Os (else windows) for a verdict. */
static int short_of_ios(const struct cmp_result *r, int m)
{
	/* counts and totals need their I/Os in both together */
	if (m <= MS_DEPTH || m == MS_LAT_SUM)
		return r->n_a + r->n_b < r->needs;
	return r->n_a < r->needs || r->n_b < r->needs;
}

const char *cmp_result_word(const struct cmp_result *r, int m, char *buf,
			    size_t len)
{
	if (!r->enough) {
		if (short_of_ios(r, m))
			snprintf(buf, len, "too few I/Os (needs %llu%s)",
				 (unsigned long long)r->needs,
				 m <= MS_DEPTH || m == MS_LAT_SUM ? "" :
				 " in each");
		else
			snprintf(buf, len, "too few windows with I/O (needs %d in each)",
				 CMP_MIN_WINDOWS);
		return buf;
	}
	if (r->small == CMP_SMALL_RESOLUTION)
		return "within resolution";
	if (r->small == CMP_SMALL_MIN_CHANGE)
		return "within --min-change";
	if (!r->sign)
		return "no significant difference";
	if (is_latency(m))
		return r->sign > 0 ? "slower" : "faster";
	return r->sign > 0 ? "higher" : "lower";
}

/* ---- the top line ---- */

/* What trace s is called in sentences: its label (-l, or the trace's
 * name), or "A" and "B" where both are called alike. */
static const char *who(const struct compare *c, int s)
{
	if (!c->t[0].label || !c->t[1].label ||
	    !strcmp(c->t[0].label, c->t[1].label))
		return s ? "B" : "A";
	return c->t[s].label;
}

static const struct cmp_group *overall(const struct compare *c)
{
	return &c->groups[c->n_groups - 1];
}

/* The group the verdict is decided on: the work both did, where one
 * run did work the other did not; else the whole. */
static const struct cmp_group *decided(const struct compare *c)
{
	return c->has_matched ? &c->matched : overall(c);
}

static const char *verdict(const struct compare *c)
{
	int sign = decided(c)->r[MS_LAT_MEAN].sign;

	return sign > 0 ? "slower" : sign < 0 ? "faster" :
			  "no significant difference";
}

/*
 * The I/O rate changed enough to be said: significantly, and by 5% of A's
 * (a job that fio paces at 2000 IOPS twice differs by 1 I/O a second,
 * significantly, as its windows hardly vary).
 */
#define CMP_MIN_RATE_CHANGE	0.05

static int rate_changed(const struct cmp_result *r)
{
	return r->enough && r->sign &&
	       fabs(r->diff) >= CMP_MIN_RATE_CHANGE * fabs(r->a);
}

/* What the I/O rate did, over all paired devices and classes. */
static const char *rate_verdict(const struct compare *c)
{
	const struct cmp_result *r = &overall(c)->r[MS_IOPS];

	if (!r->enough)
		return "too few I/Os";
	if (r->sign && !rate_changed(r))
		return "within 5%";
	return r->sign > 0 ? "more I/Os per second" :
	       r->sign < 0 ? "fewer I/Os per second" :
			     "no significant difference";
}

static void group_name(const struct compare *c, const struct cmp_group *g,
		       char *buf, size_t len)
{
	char a[32], b[32];

	if (g->op < 0) {
		snprintf(buf, len, "all paired devices");
		return;
	}
	cmp_device_name(c->pairs[g->pair][0], a, sizeof(a));
	cmp_device_name(c->pairs[g->pair][1], b, sizeof(b));
	if (strcmp(a, b))
		snprintf(buf, len, "%s=%s %s", a, b, cmp_op_name(g->op));
	else
		snprintf(buf, len, "%s %s", a, cmp_op_name(g->op));
}

/* What the top contributor says, in words. */
static void contributor_words(const struct compare *c, char *buf,
			      size_t len)
{
	const struct cmp_contributor *ct = &c->contrib[c->headline];
	const struct cmp_value *v = ct->value;
	double ma = v->n[0] ? v->t_s[0] / v->n[0] * 1e6 : NAN;
	double mb = v->n[1] ? v->t_s[1] / v->n[1] * 1e6 : NAN;
	char x[32], y[32], d[32], part[32], share[96];

	/* a share of a mean that hardly changed says nothing (a part of
	 * 5 us against a change of 0.01 us is "50000%"): then the part
	 * itself, and that others offset it */
	if (fabs(ct->mean_share) <= 1.5)
		snprintf(share, sizeof(share), "%.0f%% of the change in the mean",
			 ct->mean_share * 100);
	else
		snprintf(share, sizeof(share), "%s on the mean, which other parts offset",
			 fmt(ct->mean_part_s * 1e6, U_US, 1, part,
			     sizeof(part)));
	if (ct->rate && v->has_time && !strcmp(ct->stratum->name, "time")) {
		/* a spell: who had it, and what the I/Os outside it did */
		double na = c->timed[0] - v->n[0], nb = c->timed[1] - v->n[1];
		double oa = na > 0 ? (c->total_s[0] - v->t_s[0]) / na * 1e6 :
				     NAN;
		double ob = nb > 0 ? (c->total_s[1] - v->t_s[1]) / nb * 1e6 :
				     NAN;
		char p[32], q[32];

		snprintf(buf, len, "%s had a slow spell from %.3f s to %.3f s (its I/Os %s -> %s each; rate, %s); outside it, %s%s (mean %s -> %s)",
			 who(c, mb > ma), v->start_s, v->end_s,
			 fmt(ma, U_US, 0, x, sizeof(x)),
			 fmt(mb, U_US, 0, y, sizeof(y)), share,
			 isnan(oa) || isnan(ob) ||
			 fabs(ob - oa) < c->min_change * oa ? "" : who(c, 1),
			 isnan(oa) || isnan(ob) ? "no I/O" :
			 fabs(ob - oa) < c->min_change * oa ?
			 "no difference of --min-change or more" :
			 ob > oa ? " slower, not tested" : " faster, not tested",
			 fmt(oa, U_US, 0, p, sizeof(p)),
			 fmt(ob, U_US, 0, q, sizeof(q)));
	} else if (ct->rate)
		snprintf(buf, len, "the I/Os of %s %s took %s %s each (%s -> %s; rate, %s)",
			 ct->stratum->name, v->label,
			 fmt(fabs(mb - ma), U_US, 0, d, sizeof(d)),
			 mb > ma ? "longer" : "less",
			 fmt(ma, U_US, 0, x, sizeof(x)),
			 fmt(mb, U_US, 0, y, sizeof(y)), share);
	else
		snprintf(buf, len, "%s had %s I/Os of %s %s (%.0f -> %.0f, at %s each; mix, %s)",
			 who(c, 1), v->n[1] >= v->n[0] ? "more" : "fewer",
			 ct->stratum->name, v->label, v->n[0], v->n[1],
			 fmt(isnan(mb) ? ma : mb, U_US, 0, d, sizeof(d)),
			 share);
}

/* The significant change of the largest relative size, if any. */
static void largest_change(const struct compare *c, char *buf, size_t len)
{
	const struct cmp_result *best = NULL;
	const struct cmp_group *bg = NULL;
	double best_rel = 0;
	char name[96], a[32], b[32];
	size_t g;
	int m, bm = 0;

	for (g = 0; g + 1 < c->n_groups; g++)
		for (m = 0; m < N_MEASURES; m++) {
			const struct cmp_result *r = &c->groups[g].r[m];
			double rel = fabs(r->diff) /
				     fmax(fabs(r->a), 1e-12);

			if (r->sign && rel > best_rel) {
				best_rel = rel;
				best = r;
				bg = &c->groups[g];
				bm = m;
			}
		}
	if (!best) {
		snprintf(buf, len, "; nothing in the table changed significantly");
		return;
	}
	group_name(c, bg, name, sizeof(name));
	snprintf(buf, len, "; the largest significant change: %s %s %s -> %s",
		 name, measures[bm].text,
		 fmt(best->a, measures[bm].unit, 0, a, sizeof(a)),
		 fmt(best->b, measures[bm].unit, 0, b, sizeof(b)));
}

/*
 * "; B did fewer I/Os per second: IOPS 1881 -> 500 (-73%, 95% CI ...),
 * throughput ..." when the I/O rate changed significantly, else "". A
 * throttled or slowed-down submitter (blk-throttle holds bios before
 * block_bio_queue, so the trace sees no wait) changes this, not latency.
 */
static void rate_change(const struct compare *c, const char *lead,
			char *buf, size_t len)
{
	const struct cmp_result *r = &overall(c)->r[MS_IOPS];
	const struct cmp_result *t = &overall(c)->r[MS_TPUT];
	char a[32], b[32], lo[32], hi[32], ta[32], tb[32];

	buf[0] = '\0';
	if (!rate_changed(r))
		return;
	snprintf(buf, len, "%s%s did %s I/Os per second: IOPS %s -> %s (%+.0f%%, 95%% CI of the change %s to %s), throughput %s -> %s",
		 lead, who(c, 1), r->sign > 0 ? "more" : "fewer",
		 fmt(r->a, U_PER_S, 0, a, sizeof(a)),
		 fmt(r->b, U_PER_S, 0, b, sizeof(b)),
		 r->a > 0 ? 100 * r->diff / r->a : 0.0,
		 fmt(r->lo, U_PER_S, 1, lo, sizeof(lo)),
		 fmt(r->hi, U_PER_S, 1, hi, sizeof(hi)),
		 fmt(t->a, U_RATE, 0, ta, sizeof(ta)),
		 fmt(t->b, U_RATE, 0, tb, sizeof(tb)));
}

static void speed_headline(const struct compare *c, char *buf, size_t len)
{
	const struct cmp_result *r = &overall(c)->r[MS_LAT_MEAN];
	char a[32], b[32], d[32], lo[32], hi[32], rest[512], rate[512];

	if (!r->enough) {
		if (!short_of_ios(r, MS_LAT_MEAN))
			snprintf(buf, len, "Too few windows with I/O for a verdict: %zu of %zu in %s, %zu of %zu in %s (needs %d together; %llu and %llu timed I/Os)",
				 r->windows_a, c->t[0].n_windows, who(c, 0),
				 r->windows_b, c->t[1].n_windows, who(c, 1),
				 CMP_MIN_WINDOWS, (unsigned long long)r->n_a,
				 (unsigned long long)r->n_b);
		else
			snprintf(buf, len, "Too few I/Os for a verdict: %llu timed in %s, %llu in %s (needs %d in each, over %d windows)",
				 (unsigned long long)r->n_a, who(c, 0),
				 (unsigned long long)r->n_b, who(c, 1),
				 CMP_MIN_IOS, CMP_MIN_WINDOWS);
		return;
	}
	fmt(r->a, U_US, 0, a, sizeof(a));
	fmt(r->b, U_US, 0, b, sizeof(b));
	fmt(r->diff, U_US, 1, d, sizeof(d));
	fmt(r->lo, U_US, 1, lo, sizeof(lo));
	fmt(r->hi, U_US, 1, hi, sizeof(hi));
	if (!r->sign) {
		char cause[512] = "";

		/* the rate changed, the latency did not: said in that
		 * order, and no contributor is named for a change in
		 * latency within the noise */
		rate_change(c, "", rate, sizeof(rate));
		if (rate[0]) {
			snprintf(buf, len, "%s; mean I/O latency not significantly different: %s -> %s (95%% CI of the change %s to %s)",
				 rate, a, b, lo, hi);
			return;
		}

		largest_change(c, rest, sizeof(rest));
		/* what the change there is consists of, said as not sure */
		if (c->n_contrib)
			contributor_words(c, cause, sizeof(cause));
		snprintf(buf, len, "No significant difference: mean I/O latency %s -> %s (95%% CI of the change %s to %s)%s%s%s",
			 a, b, lo, hi,
			 cause[0] ? "; the change, within the noise, is mostly: " :
				    "", cause, rest);
		return;
	}
	rest[0] = '\0';
	if (c->n_contrib)
		contributor_words(c, rest, sizeof(rest));
	rate_change(c, "; ", rate, sizeof(rate));
	snprintf(buf, len, "%s is %s: mean I/O latency %s -> %s (%s, 95%% CI %s to %s)%s%s%s",
		 who(c, 1), r->sign > 0 ? "slower" : "faster", a, b, d, lo, hi,
		 rest[0] ? "; most of it: " : "", rest, rate);
}


/* ---- the work ---- */

static const char *const work_words[] = { "same", "more", "less",
					   "different" };

const char *cmp_work_word(const struct compare *c)
{
	return work_words[c->work];
}

/* The work contributor a sentence leads with: a command where one is
 * (dd), else a process, else the largest. */
static size_t work_lead(const struct compare *c)
{
	static const char *const order[] = { "comm", "process", "cgroup",
					      "file" };
	size_t i, k;

	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (i = 0; i < c->n_work; i++)
			if (!strcmp(c->work_contrib[i].stratum->name, order[k]))
				return i;
	return 0;
}

/* "dd (cgroup /noisy, file /mnt/noise) wrote 32 MiB in 0.15 s, 0.74 s
 * of I/O time (none in alone)" */
static void work_desc(const struct compare *c, char *buf, size_t len)
{
	size_t lead = work_lead(c), i, used;
	const struct cmp_contributor *ct = &c->work_contrib[lead];
	const struct cmp_value *v = ct->value;
	int s = v->n[1] / fmax(c->timed[1], 1) > v->n[0] / fmax(c->timed[0], 1);
	double span = (double)(v->last_ns[s] - v->first_ns[s]) / 1e9;
	char bytes[32], others[400] = "", other[64];
	int named = 0;

	/* the other strata's values of about the same I/Os: the same work
	 * by its other names */
	for (i = 0, used = 0; i < c->n_work; i++) {
		const struct cmp_contributor *o = &c->work_contrib[i];

		if (i == lead || (strcmp(o->stratum->name, "cgroup") &&
				  strcmp(o->stratum->name, "file") &&
				  strcmp(o->stratum->name, "comm")))
			continue;
		if (fabs(o->value->n[s] - v->n[s]) > 0.2 * v->n[s] ||
		    (o->value->n[1] / fmax(c->timed[1], 1) >
		     o->value->n[0] / fmax(c->timed[0], 1)) != s)
			continue;
		used += (size_t)snprintf(others + used, sizeof(others) - used,
					 "%s%s %s", named++ ? ", " : " (",
					 o->stratum->name, o->value->label);
		if (used >= sizeof(others) - 2)
			break;
	}
	if (named && used < sizeof(others) - 2)
		strcat(others, ")");
	if (v->n[!s])
		snprintf(other, sizeof(other), "; %.0f I/Os in %s",
			 v->n[!s], who(c, !s));
	else
		snprintf(other, sizeof(other), "; none in %s", who(c, !s));
	snprintf(buf, len, "%s%s%s%s %s %s in %.3g s, %.3g s of I/O time (%.0f I/Os%s)",
		 strcmp(ct->stratum->name, "comm") ? ct->stratum->name : "",
		 strcmp(ct->stratum->name, "comm") ? " " : "", v->label,
		 others, v->wbytes[s] * 2 >= v->bytes[s] ? "wrote" : "read",
		 fmt(v->bytes[s], U_BYTES, 0, bytes, sizeof(bytes)), span,
		 v->t_s[s], v->n[s], other);
}

/* What the work both runs did says: "the I/O both runs did was not
 * slower: mean ..." */
static void matched_words(const struct compare *c, char *buf, size_t len)
{
	const struct cmp_result *r = &c->matched.r[MS_LAT_MEAN];
	char a[32], b[32], lo[32], hi[32], w[96];

	if (!r->enough) {
		snprintf(buf, len, "the I/O both runs did is too little for a verdict (%s)",
			 cmp_result_word(r, MS_LAT_MEAN, w, sizeof(w)));
		return;
	}
	snprintf(buf, len, "the I/O both runs did (%llu and %llu timed I/Os) was %s: mean %s -> %s (95%% CI of the change %s to %s)",
		 (unsigned long long)r->n_a, (unsigned long long)r->n_b,
		 r->sign > 0 ? "slower" : r->sign < 0 ? "faster" :
		 r->small ? "not slower or faster by --min-change or more" :
			    "not significantly slower or faster",
		 fmt(r->a, U_US, 0, a, sizeof(a)),
		 fmt(r->b, U_US, 0, b, sizeof(b)),
		 fmt(r->lo, U_US, 1, lo, sizeof(lo)),
		 fmt(r->hi, U_US, 1, hi, sizeof(hi)));
}

/*
 * Where one run did work the other did not, the line says the work and
 * the speed of the work both did, the one of more latency-seconds
 * first; else what the speed did.
 */
void cmp_headline(const struct compare *c, char *buf, size_t len)
{
	char desc[768], speed[512], lead[256];
	double change = c->total_s[1] - c->total_s[0];
	double work = c->work_s[1] - c->work_s[0];

	if (!c->has_matched) {
		speed_headline(c, buf, len);
		return;
	}
	work_desc(c, desc, sizeof(desc));
	matched_words(c, speed, sizeof(speed));
	if (c->work == WORK_MORE)
		snprintf(lead, sizeof(lead), "%s did work %s did not",
			 who(c, 1), who(c, 0));
	else if (c->work == WORK_LESS)
		snprintf(lead, sizeof(lead), "%s did work %s did not",
			 who(c, 0), who(c, 1));
	else
		snprintf(lead, sizeof(lead), "%s and %s did different work",
			 who(c, 0), who(c, 1));
	if (fabs(work) >= fabs(change - work))
		snprintf(buf, len, "%s: %s; %s", lead, desc, speed);
	else
		snprintf(buf, len, "%c%s; besides, %s: %s", toupper(speed[0]),
			 speed + 1, lead, desc);
}

/* ---- text ---- */

/* The rows shown, grouped by stratum (in the order of each stratum's
 * first row in the ranking), each stratum's by share, largest first. */
/*
 * Rows from .. to - 1 of the contributors (c->contrib, by size of their
 * part) put in rows[] grouped by stratum, the strata in the order their
 * largest part comes, each stratum's rows by share, largest first.
 * Returns how many (to - from).
 */
size_t cmp_grouped_rows(const struct compare *c, size_t from, size_t to,
			size_t *rows)
{
	size_t i, j, k = 0;

	if (to > c->n_contrib)
		to = c->n_contrib;
	for (i = from; i < to; i++) {
		const struct cmp_stratum *st = c->contrib[i].stratum;
		size_t first = k;

		for (j = 0; j < k && c->contrib[rows[j]].stratum != st; j++)
			;
		if (j < k)
			continue;	/* its stratum is placed already */
		for (j = from; j < to; j++)
			if (c->contrib[j].stratum == st)
				rows[k++] = j;
		/* by share, largest first (insertion: a stratum's rows) */
		for (j = first + 1; j < k; j++) {
			size_t x = rows[j], m = j;

			while (m > first &&
			       c->contrib[rows[m - 1]].share < c->contrib[x].share) {
				rows[m] = rows[m - 1];
				m--;
			}
			rows[m] = x;
		}
	}
	return k;
}

/* A share as a percentage, one decimal, never "-0.0%". */
const char *cmp_share_text(double share, char *buf, size_t len)
{
	double pc = share * 100;

	if (fabs(pc) < 0.05)
		pc = 0;
	snprintf(buf, len, "%.1f%%", pc);
	return buf;
}

static void text_contributors(FILE *out, const struct compare *c)
{
	char d[32], ta[32], tb[32];
	size_t rows[15], n, i, over = 0;
	const struct cmp_stratum *last = NULL;

	fprintf(out, "\nWhere the change in I/O time comes from (the latency-seconds: every timed I/O's latency, Q2C or else D2C, added up; %s: %s -> %s over %.0f and %.0f timed I/Os):\n",
		fmt(c->total_s[1] - c->total_s[0], U_S, 1, d, sizeof(d)),
		fmt(c->total_s[0], U_S, 0, ta, sizeof(ta)),
		fmt(c->total_s[1], U_S, 0, tb, sizeof(tb)), c->timed[0],
		c->timed[1]);
	if (!c->n_contrib) {
		fprintf(out, "  no change to split\n");
		return;
	}
	fprintf(out, "  mix: %s had more or fewer such I/Os; rate: such I/Os each took longer or less long. Each stratum's shares add up to 100%%.\n",
		who(c, 1));
	n = cmp_grouped_rows(c, 0, 15, rows);
	for (i = 0; i < n; i++)
		over += fabs(c->contrib[rows[i]].share) > 1;
	if (over)
		fprintf(out, "  A share above 100%% is offset by parts of the same stratum that go the other way (negative shares).\n");
	fprintf(out, "  %-7s  %7s  %-4s  %-36s %8s %8s %10s %10s\n", "stratum",
		"share", "kind", "value", "A I/Os", "B I/Os", "A mean",
		"B mean");
	for (i = 0; i < n; i++) {
		const struct cmp_contributor *ct = &c->contrib[rows[i]];
		const struct cmp_value *v = ct->value;
		char a[32], b[32], pc[32];

		fprintf(out, "  %-7s  %7s  %-4s  %-36.36s %8.0f %8.0f %10s %10s\n",
			ct->stratum != last ? ct->stratum->name : "",
			cmp_share_text(ct->share, pc, sizeof(pc)), ct->rate ? "rate" : "mix", v->label,
			v->n[0], v->n[1],
			fmt(v->n[0] ? v->t_s[0] / v->n[0] * 1e6 : NAN, U_US,
			    0, a, sizeof(a)),
			fmt(v->n[1] ? v->t_s[1] / v->n[1] * 1e6 : NAN, U_US,
			    0, b, sizeof(b)));
		last = ct->stratum;
	}
	if (c->n_contrib > n)
		fprintf(out, "  (%zu more in --compare=json)\n",
			c->n_contrib - n);
}

static void text_work(FILE *out, const struct compare *c)
{
	size_t i;

	if (!c->n_work)
		return;
	fprintf(out, "\nThe work: what one run did and the other did not, or far less of (the verdict is on the rest, the I/O both did):\n");
	fprintf(out, "  %-7s  %-36s %8s %8s %10s %10s %11s %11s\n", "stratum",
		"value", "A I/Os", "B I/Os", "A bytes", "B bytes", "A I/O time",
		"B I/O time");
	for (i = 0; i < c->n_work; i++) {
		const struct cmp_value *v = c->work_contrib[i].value;
		char a[32], b[32], x[32], y[32];

		fprintf(out, "  %-7s  %-36.36s %8.0f %8.0f %10s %10s %11s %11s\n",
			c->work_contrib[i].stratum->name, v->label, v->n[0],
			v->n[1], fmt(v->bytes[0], U_BYTES, 0, a, sizeof(a)),
			fmt(v->bytes[1], U_BYTES, 0, b, sizeof(b)),
			v->n[0] ? fmt(v->t_s[0] * 1e6, U_US, 0, x, sizeof(x)) :
				  "-",
			v->n[1] ? fmt(v->t_s[1] * 1e6, U_US, 0, y, sizeof(y)) :
				  "-");
	}
}

static void text_group(FILE *out, const struct compare *c,
		       const struct cmp_group *g)
{
	char name[96], a[32], b[32], d[32], lo[32], hi[32], w[64];
	int m;

	group_name(c, g, name, sizeof(name));
	fprintf(out, "\n%s%s:\n", name, g->op < 0 ? ", all classes" : "");
	fprintf(out, "  %-16s %11s %11s %11s  %-25s %s\n", "", "A", "B",
		"B-A", "95% CI", "");
	for (m = 0; m < N_MEASURES; m++) {
		const struct cmp_result *r = &g->r[m];
		char ci[64];

		if (is_latency(m) && !r->n_a && !r->n_b)
			continue;
		snprintf(ci, sizeof(ci), "[%s, %s]",
			 fmt(r->lo, measures[m].unit, 1, lo, sizeof(lo)),
			 fmt(r->hi, measures[m].unit, 1, hi, sizeof(hi)));
		fprintf(out, "  %-16s %11s %11s %11s  %-25s %s\n",
			measures[m].text,
			fmt(r->a, measures[m].unit, 0, a, sizeof(a)),
			fmt(r->b, measures[m].unit, 0, b, sizeof(b)),
			fmt(r->diff, measures[m].unit, 1, d, sizeof(d)), ci,
			cmp_result_word(r, m, w, sizeof(w)));
	}
}

static int group_has_io(const struct cmp_group *g)
{
	return g->r[MS_IOS].n_a || g->r[MS_IOS].n_b;
}

void cmp_print_text(FILE *out, const struct compare *c)
{
	char line[2048];
	size_t g;
	int s;

	cmp_headline(c, line, sizeof(line));
	fprintf(out, "%s\n\n", line);
	for (s = 0; s < 2; s++)
		fprintf(out, "%s: %s (%s), %.3f s, %zu windows of %.3f s\n",
			s ? "B" : "A", c->t[s].label, c->t[s].source,
			c->t[s].span_s, c->t[s].n_windows,
			(double)c->window_ns / 1e9);
	fprintf(out, "95%% intervals: block bootstrap over the windows, %d resamples, seed %u%s\n",
		CMP_RESAMPLES, CMP_SEED,
		c->paired_draws ? " (window k of A and B drawn together)" :
				  "");
	fprintf(out, "They measure how each run varies within itself, not how two runs of one job differ: a rerun can differ by more.\n");
	fprintf(out, "Called faster, slower, higher or lower: significant across the table's %zu tests (Benjamini-Hochberg, false discoveries at %.0f%%) and by %g%% of A's value or more (--min-change), a quantile by more than two steps of its histogram (else \"within resolution\").\n",
		c->n_tests, CMP_FDR * 100, c->min_change * 100);
	text_work(out, c);
	text_contributors(out, c);
	if (c->has_matched) {
		fprintf(out, "\nThe I/O both runs did (the verdict's):");
		text_group(out, c, &c->matched);
	}
	for (g = 0; g < c->n_groups; g++)
		if (group_has_io(&c->groups[g]))
			text_group(out, c, &c->groups[g]);
}

/* ---- JSON ---- */

int cmp_measure_unit(int m)
{
	return (int)measures[m].unit;
}

const char *cmp_measure_json(int m)
{
	return measures[m].json;
}

void cmp_json_estimate(FILE *out, const struct cmp_result *r,
		       const char *a_key, const char *b_key)
{
	fprintf(out, "\"%s\": ", a_key);
	json_num(out, r->a);
	fprintf(out, ", \"%s\": ", b_key);
	json_num(out, r->b);
	fputs(", \"diff\": ", out);
	json_num(out, r->diff);
	fputs(", \"ci\": [", out);
	json_num(out, r->lo);
	fputs(", ", out);
	json_num(out, r->hi);
	fputc(']', out);
}

void cmp_json_result(FILE *out, const struct cmp_result *r, int m)
{
	char w[64];

	fputc('{', out);
	cmp_json_estimate(out, r, "a", "b");
	fprintf(out, ", \"significant\": %s, \"verdict\": ",
		r->sign ? "true" : "false");
	utf8_json_string_html(out, cmp_result_word(r, m, w, sizeof(w)));
	fprintf(out, ", \"n_a\": %llu, \"n_b\": %llu",
		(unsigned long long)r->n_a, (unsigned long long)r->n_b);
	fputs(", \"p\": ", out);
	json_num(out, r->p);
	fputs(", \"q\": ", out);
	json_num(out, r->q);
	if (r->resolution > 0) {
		fputs(", \"resolution\": ", out);
		json_num(out, r->resolution);
	}
	if (!r->enough)
		fprintf(out, ", \"needs_ios\": %llu",
			(unsigned long long)r->needs);
	fputc('}', out);
}

static void json_group(FILE *out, const struct compare *c,
		       const struct cmp_group *g)
{
	char a[32], b[32];
	int m;

	fputs("{", out);
	if (g->op >= 0) {
		cmp_device_name(c->pairs[g->pair][0], a, sizeof(a));
		cmp_device_name(c->pairs[g->pair][1], b, sizeof(b));
		fprintf(out, "\"device\": \"%s\", \"b_device\": \"%s\", ", a,
			b);
	}
	fputs("\"class\": ", out);
	utf8_json_string_html(out, cmp_op_name(g->op));
	for (m = 0; m < N_MEASURES; m++) {
		fprintf(out, ",\n      \"%s\": ", measures[m].json);
		cmp_json_result(out, &g->r[m], m);
	}
	fputs("}", out);
}

static void json_contributor(FILE *out, const struct cmp_contributor *ct,
			     int work)
{
	const struct cmp_value *v = ct->value;

	fputs("{\"stratum\": ", out);
	utf8_json_string_html(out, ct->stratum->name);
	fputs(", \"value\": ", out);
	utf8_json_string_html(out, v->label);
	fprintf(out, ", \"kind\": \"%s\", \"share\": ", work ? "work" :
							ct->rate ? "rate" : "mix");
	json_num(out, ct->share);
	fputs(", \"latency_s\": ", out);
	json_num(out, ct->part_s);
	fputs(", \"mean_us\": ", out);
	json_num(out, ct->mean_part_s * 1e6);
	fputs(", \"mean_share\": ", out);
	json_num(out, ct->mean_share);
	fprintf(out, ", \"a_ios\": %.0f, \"b_ios\": %.0f", v->n[0], v->n[1]);
	fprintf(out, ", \"a_bytes\": %.0f, \"b_bytes\": %.0f", v->bytes[0],
		v->bytes[1]);
	fputs(", \"a_latency_s\": ", out);
	json_num(out, v->t_s[0]);
	fputs(", \"b_latency_s\": ", out);
	json_num(out, v->t_s[1]);
	fputs(", \"a_mean_us\": ", out);
	json_num(out, v->n[0] ? v->t_s[0] / v->n[0] * 1e6 : NAN);
	fputs(", \"b_mean_us\": ", out);
	json_num(out, v->n[1] ? v->t_s[1] / v->n[1] * 1e6 : NAN);
	if (v->has_sectors && !strcmp(ct->stratum->name, "offset"))
		fprintf(out, ", \"lo_sector\": %llu, \"hi_sector\": %llu",
			(unsigned long long)v->lo_sector,
			(unsigned long long)v->hi_sector);
	if (v->has_time) {
		fputs(", \"start_s\": ", out);
		json_num(out, v->start_s);
		fputs(", \"end_s\": ", out);
		json_num(out, v->end_s);
	}
	fputc('}', out);
}

static void json_trace(FILE *out, const struct compare *c, int s)
{
	fprintf(out, "  \"%s\": {\"label\": ", s ? "b" : "a");
	utf8_json_string_html(out, c->t[s].label);
	fputs(", \"source\": ", out);
	utf8_json_string_html(out, c->t[s].source);
	fputs(", \"duration_s\": ", out);
	json_num(out, c->t[s].span_s);
	fprintf(out, ", \"windows\": %zu, \"timed_ios\": %.0f, \"latency_s\": ",
		c->t[s].n_windows, c->timed[s]);
	json_num(out, c->total_s[s]);
	fputs("},\n", out);
}

void cmp_print_json(FILE *out, const struct compare *c)
{
	char line[2048];
	size_t g, i;
	int first = 1;

	cmp_headline(c, line, sizeof(line));
	fputs("{\n  \"verdict\": ", out);
	utf8_json_string_html(out, verdict(c));
	fputs(",\n  \"rate_verdict\": ", out);
	utf8_json_string_html(out, rate_verdict(c));
	fputs(",\n  \"summary\": ", out);
	utf8_json_string_html(out, line);
	fputs(",\n", out);
	json_trace(out, c, 0);
	json_trace(out, c, 1);
	fputs("  \"window_s\": ", out);
	json_num(out, (double)c->window_ns / 1e9);
	fprintf(out, ", \"resamples\": %d, \"seed\": %u, \"paired_windows\": %s,\n",
		CMP_RESAMPLES, CMP_SEED, c->paired_draws ? "true" : "false");
	fprintf(out, "  \"intervals_from\": \"windows within each run\", \"correction\": \"benjamini-hochberg\", \"fdr\": %g, \"tests\": %zu, \"min_change\": ",
		CMP_FDR, c->n_tests);
	json_num(out, c->min_change);
	fputs(",\n", out);
	fputs("  \"work\": ", out);
	utf8_json_string_html(out, cmp_work_word(c));
	fputs(",\n  \"work_contributors\": [", out);
	for (i = 0; i < c->n_work; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_contributor(out, &c->work_contrib[i], 1);
	}
	fputs(c->n_work ? "\n  ],\n" : "],\n", out);
	fputs("  \"verdict_on\": ", out);
	utf8_json_string_html(out, c->has_matched ? "matched" : "overall");
	fputs(",\n  \"overall\": ", out);
	json_group(out, c, overall(c));
	if (c->has_matched) {
		fputs(",\n  \"matched\": ", out);
		json_group(out, c, &c->matched);
	}
	fputs(",\n  \"latency_s_change\": ", out);
	json_num(out, c->total_s[1] - c->total_s[0]);
	fputs(",\n  \"contributors\": [", out);
	for (i = 0; i < c->n_contrib; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_contributor(out, &c->contrib[i], 0);
	}
	fputs(c->n_contrib ? "\n  ],\n  \"classes\": [" : "],\n  \"classes\": [",
	      out);
	for (g = 0; g + 1 < c->n_groups; g++) {
		if (!group_has_io(&c->groups[g]))
			continue;
		fputs(first ? "\n    " : ",\n    ", out);
		first = 0;
		json_group(out, c, &c->groups[g]);
	}
	fputs("\n  ]\n}\n", out);
}
