/*
 * plot_scale.c: the arithmetic of axes, pure functions without a surface:
 * ranges made usable, ticks on 1-2-5 steps and on log decades, the unit
 * an axis of seconds, bytes or rates takes from its range, and tick
 * labels formatted so that no two read alike. Unit-tested on their own
 * in tests/test_plot_scale.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"

/* ---- Ranges and ticks ---- */

/* Relative slack for floating-point comparisons of tick multiples. */
#define TICK_EPS	1e-9
/* Finite values beyond this are clamped so a range never overflows. */
#define HUGE_VALUE	1e300

static double clamp_huge(double v)
{
	if (v > HUGE_VALUE)
		return HUGE_VALUE;
	if (v < -HUGE_VALUE)
		return -HUGE_VALUE;
	return v;
}

static int range_is_empty(double min, double max)
{
	double range = max - min;
	double mag = fmax(fabs(min), fabs(max));

	return !(range > mag * TICK_EPS) || range < 1e-200;
}

void plot_sanitize_range(double *min, double *max)
{
	double lo = *min, hi = *max, t;

	if (!isfinite(lo))
		lo = hi;
	if (!isfinite(hi))
		hi = lo;
	if (!isfinite(lo) || !isfinite(hi))
		lo = hi = 0;
	lo = clamp_huge(lo);
	hi = clamp_huge(hi);
	if (lo > hi) {
		t = lo;
		lo = hi;
		hi = t;
	}
	if (range_is_empty(lo, hi)) {
		t = fabs(hi) > fabs(lo) ? hi : lo;
		lo = t < 0 ? 2 * t : 0;
		hi = t > 0 ? 2 * t : 0;
	}
	if (range_is_empty(lo, hi)) {
		lo = 0;
		hi = 1;
	}
	*min = lo;
	*max = hi;
}

/* The smallest 1, 2 or 5 x 10^k that is >= raw (raw > 0). */
static double nice_step_at_least(double raw)
{
	double mag = pow(10, floor(log10(raw)));
	double m = raw / mag;

	if (m <= 1 + TICK_EPS)
		return mag;
	if (m <= 2 + TICK_EPS)
		return 2 * mag;
	if (m <= 5 + TICK_EPS)
		return 5 * mag;
	return 10 * mag;
}

/* The nice step after step: 1 -> 2 -> 5 -> 10. */
static double next_nice_step(double step)
{
	double mag = pow(10, floor(log10(step) + TICK_EPS));
	double m = step / mag;

	if (m < 1.5)
		return 2 * mag;
	if (m < 3.5)
		return 5 * mag;
	return 10 * mag;
}

/* The nice step before step: 10 -> 5 -> 2 -> 1. */
static double prev_nice_step(double step)
{
	double mag = pow(10, floor(log10(step) + TICK_EPS));
	double m = step / mag;

	if (m < 1.5)
		return mag / 2;
	if (m < 3.5)
		return mag;
	return 2 * mag;
}

static double first_multiple(double min, double step)
{
	return ceil(min / step - TICK_EPS);
}

static double last_multiple(double max, double step)
{
	return floor(max / step + TICK_EPS);
}

static double count_multiples(double min, double max, double step)
{
	return last_multiple(max, step) - first_multiple(min, step) + 1;
}

double plot_ticks_min_step(double min, double max, int max_ticks,
			   double min_step, double *ticks, int *n)
{
	double step, k0, v;
	int i, count;

	plot_sanitize_range(&min, &max);
	if (max_ticks < 1)
		max_ticks = 1;
	step = nice_step_at_least(fmax((max - min) / (max_ticks + 1),
				       min_step > 0 ? min_step : 1e-300));
	while (count_multiples(min, max, step) > max_ticks)
		step = next_nice_step(step);
	/* A step past the whole range leaves no tick: go back to one
	 * that has some and keep the middle ones. */
	while (count_multiples(min, max, step) < 1 &&
	       prev_nice_step(step) >= min_step * (1 - TICK_EPS))
		step = prev_nice_step(step);
	k0 = first_multiple(min, step);
	count = (int)fmax(0, count_multiples(min, max, step));
	if (count > max_ticks) {
		k0 += (count - max_ticks) / 2;
		count = max_ticks;
	}
	for (i = 0; i < count; i++) {
		v = (k0 + i) * step;
		ticks[i] = fabs(v) < step * TICK_EPS ? 0 : v;
	}
	*n = count;
	return step;
}

double plot_ticks(double min, double max, int max_ticks,
		  double *ticks, int *n)
{
	return plot_ticks_min_step(min, max, max_ticks, 0, ticks, n);
}

double plot_nice_range(double *min, double *max, int max_ticks,
		       double min_step)
{
	double lo = *min, hi = *max, step, nlo, nhi;
	int tries;

	plot_sanitize_range(&lo, &hi);
	if (max_ticks < 2)
		max_ticks = 2;
	step = nice_step_at_least(fmax((hi - lo) / (max_ticks + 1),
				       min_step > 0 ? min_step : 1e-300));
	/* An axis across zero needs three ticks at least: stop trying. */
	for (tries = 0; tries < 64; tries++) {
		nlo = floor(lo / step + TICK_EPS) * step;
		nhi = ceil(hi / step - TICK_EPS) * step;
		if (count_multiples(nlo, nhi, step) <= max_ticks)
			break;
		step = next_nice_step(step);
	}
	*min = fabs(nlo) < step * TICK_EPS ? 0 : nlo;
	*max = fabs(nhi) < step * TICK_EPS ? 0 : nhi;
	return step;
}

void plot_log_range(double *min, double *max, int nice)
{
	double lo = *min, hi = *max;

	if (!isfinite(hi) || hi <= 0)
		hi = isfinite(lo) && lo > 0 ? lo * 10 : 10;
	if (!isfinite(lo) || lo <= 0 || lo >= hi)
		lo = lo > 0 && lo == hi ? hi / 10 : hi / 1000;
	hi = fmin(hi, HUGE_VALUE);
	lo = fmax(lo, 1e-300);
	if (nice) {
		lo = pow(10, floor(log10(lo) + TICK_EPS));
		hi = pow(10, ceil(log10(hi) - TICK_EPS));
		if (hi <= lo)
			hi = lo * 10;
	}
	*min = lo;
	*max = hi;
}

static int in_log_range(double v, double lo, double hi)
{
	return v >= lo * (1 - TICK_EPS) && v <= hi * (1 + TICK_EPS);
}

/* Decades e0..e1, every stride-th (aligned to multiples of stride). */
static int log_decade_ticks(int e0, int e1, int max_ticks, double *ticks)
{
	int stride, e, n;

	for (stride = 1;; stride++) {
		n = 0;
		for (e = e0; e <= e1; e++)
			if (e % stride == 0)
				n++;
		if (n <= max_ticks)
			break;
	}
	n = 0;
	for (e = e0; e <= e1; e++)
		if (e % stride == 0)
			ticks[n++] = pow(10, e);
	return n;
}

/* 1, 2 and 5 x 10^k inside [lo, hi]; -1 if more than max_ticks. */
static int log_125_ticks(double lo, double hi, int max_ticks, double *ticks)
{
	static const double mult[] = { 1, 2, 5 };
	int e, i, n = 0;
	double v;

	for (e = (int)floor(log10(lo)); e <= (int)floor(log10(hi)) + 1; e++) {
		for (i = 0; i < 3; i++) {
			v = mult[i] * pow(10, e);
			if (!in_log_range(v, lo, hi))
				continue;
			if (n == max_ticks)
				return -1;
			ticks[n++] = v;
		}
	}
	return n;
}

void plot_log_ticks(double min, double max, int max_ticks,
		    double *ticks, int *n)
{
	int e0, e1;

	plot_log_range(&min, &max, 0);
	if (max_ticks < 1)
		max_ticks = 1;
	e0 = (int)ceil(log10(min) - TICK_EPS);
	e1 = (int)floor(log10(max) + TICK_EPS);
	if (e1 - e0 + 1 >= 3) {
		*n = log_decade_ticks(e0, e1, max_ticks, ticks);
		return;
	}
	*n = log_125_ticks(min, max, max_ticks, ticks);
	if (*n < 0 && e1 >= e0)
		*n = log_decade_ticks(e0, e1, max_ticks, ticks);
	if (*n < 2)
		plot_ticks(min, max, max_ticks, ticks, n);
}

/* ---- Labels ---- */

/* Digits after the point needed to show multiples of step exactly. */
static int decimals_for(double step)
{
	double s;
	int d;

	step = fabs(step);
	if (!(step > 0) || !isfinite(step))
		return 0;
	for (d = 0; d < 15; d++) {
		s = step * pow(10, d);
		if (fabs(s - nearbyint(s)) <= 1e-6 * s)
			return d;
	}
	return 15;
}

/* Drops trailing zeros (and a bare point) after a decimal point. */
static void strip_zeros(char *s)
{
	char *dot = strchr(s, '.'), *end;

	if (!dot)
		return;
	end = dot + strlen(dot) - 1;
	while (end > dot && *end == '0')
		*end-- = '\0';
	if (end == dot)
		*dot = '\0';
}

/* Writes value / scale with decimals and a suffix, never "-0". */
static void format_scaled(double value, double scale, int decimals,
			  const char *sep, const char *suffix,
			  char *buf, size_t len)
{
	double m = value / scale;
	char num[64];

	snprintf(num, sizeof(num), "%.*f", decimals, m);
	strip_zeros(num);
	if (strcmp(num, "-0") == 0)
		strcpy(num, "0");
	snprintf(buf, len, "%s%s%s", num, *suffix ? sep : "", suffix);
}

/* The spacing labels must resolve: the axis step, or for log axes and
 * lone values the value's own leading digits. */
static double label_step(double value, const struct plot_tick_context *ctx,
			 int digits)
{
	if (ctx && !ctx->log && ctx->step > 0)
		return ctx->step;
	if (value == 0 || !isfinite(value))
		return 1;
	return pow(10, floor(log10(fabs(value)) + TICK_EPS) - (digits - 1));
}

void plot_format_si(double value, const struct plot_tick_context *ctx,
		    char *buf, size_t len)
{
	static const char *const suffix[] = { "", "K", "M", "G", "T", "P",
					      "E" };
	double scale = 1, a = fabs(value);
	double step = label_step(value, ctx, 3);
	int p = 0;

	if (!isfinite(value) || a >= 1e21) {
		snprintf(buf, len, "%.3g", value);
		return;
	}
	while (a >= 1000 * (1 - TICK_EPS) && p < 6) {
		a /= 1000;
		scale *= 1000;
		p++;
	}
	format_scaled(value, scale, decimals_for(step / scale), "", suffix[p],
		      buf, len);
}

struct time_unit {
	double scale;
	const char *name;
};

static const struct time_unit time_units[] = {
	{ 1, "s" }, { 1e-3, "ms" }, { 1e-6, "\xc2\xb5s" }, { 1e-9, "ns" },
};

/* The largest unit u with magnitude >= factor * u (ns if none). */
static const struct time_unit *time_unit_for(double magnitude, double factor)
{
	size_t i;

	for (i = 0; i < 3; i++)
		if (magnitude >= factor * time_units[i].scale * (1 - TICK_EPS))
			return &time_units[i];
	return &time_units[3];
}

void plot_format_seconds(double value, const struct plot_tick_context *ctx,
			 char *buf, size_t len)
{
	const struct time_unit *u;
	double step = label_step(value, ctx, 3);

	if (!isfinite(value)) {
		snprintf(buf, len, "%g s", value);
		return;
	}
	if (ctx && !ctx->log)
		u = time_unit_for(fmax(fabs(ctx->min), fabs(ctx->max)), 2);
	else
		u = time_unit_for(fabs(value), 1);
	if (fabs(value) >= 1e15) {
		snprintf(buf, len, "%.6g %s", value, u->name);
		return;
	}
	format_scaled(value, u->scale, decimals_for(step / u->scale), " ",
		      u->name, buf, len);
}

void plot_format_ns(double value, const struct plot_tick_context *ctx,
		    char *buf, size_t len)
{
	struct plot_tick_context s;

	if (!ctx) {
		plot_format_seconds(value / 1e9, NULL, buf, len);
		return;
	}
	s = *ctx;
	s.min /= 1e9;
	s.max /= 1e9;
	s.step /= 1e9;
	plot_format_seconds(value / 1e9, &s, buf, len);
}

/* ---- Units ---- */

static const char *const bytes_unit_names[] = {
	"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
};
#define BYTES_UNITS \
	(int)(sizeof(bytes_unit_names) / sizeof(bytes_unit_names[0]))

int plot_bytes_unit(double max_bytes, int min_power, double *scale)
{
	int k = min_power < 0 ? 0 : min_power >= BYTES_UNITS ? BYTES_UNITS - 1
							     : min_power;
	double s = pow(1024, k), m = fabs(max_bytes);

	/* Up while the numbers would reach 1000 ("1.18K GiB"). */
	while (k + 1 < BYTES_UNITS && isfinite(m) &&
	       m / s >= 1000 * (1 - TICK_EPS)) {
		s *= 1024;
		k++;
	}
	*scale = s;
	return k;
}

const char *plot_bytes_unit_name(int power)
{
	if (power < 0 || power >= BYTES_UNITS)
		return "?";
	return bytes_unit_names[power];
}

void plot_format_bytes(double value, const struct plot_tick_context *ctx,
		       char *buf, size_t len)
{
	double m = ctx && !ctx->log ? fmax(fabs(ctx->min), fabs(ctx->max))
				    : fabs(value);
	double step, scale;
	int k;

	if (!isfinite(value) || !isfinite(m)) {
		snprintf(buf, len, "%g bytes", value);
		return;
	}
	k = plot_bytes_unit(m, 0, &scale);
	/* a lone value: three digits of it in its unit, not of bytes */
	step = ctx && !ctx->log ? label_step(value, ctx, 3) / scale :
				  label_step(value / scale, NULL, 3);
	format_scaled(value, scale, decimals_for(step), " ",
		      bytes_unit_names[k], buf, len);
}

void plot_format_kib(double value, const struct plot_tick_context *ctx,
		     char *buf, size_t len)
{
	struct plot_tick_context s;

	if (!ctx) {
		plot_format_bytes(value * 1024, NULL, buf, len);
		return;
	}
	s = *ctx;
	s.min *= 1024;
	s.max *= 1024;
	s.step *= 1024;
	plot_format_bytes(value * 1024, &s, buf, len);
}

static const char *const rate_unit_names[] = {
	"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s",
};

void plot_format_bytes_per_s(double value,
			     const struct plot_tick_context *ctx, char *buf,
			     size_t len)
{
	double m = ctx && !ctx->log ? fmax(fabs(ctx->min), fabs(ctx->max))
				    : fabs(value);
	double step = label_step(value, ctx, 3), scale = 1;
	int k = 0;

	if (!isfinite(value) || !isfinite(m)) {
		snprintf(buf, len, "%g B/s", value);
		return;
	}
	while (k < 6 && m / scale >= 1000 * (1 - TICK_EPS)) {
		scale *= 1000;
		k++;
	}
	format_scaled(value, scale, decimals_for(step / scale), " ",
		      rate_unit_names[k], buf, len);
}

void plot_format_mb_per_s(double value, const struct plot_tick_context *ctx,
			  char *buf, size_t len)
{
	struct plot_tick_context s;

	if (!ctx) {
		plot_format_bytes_per_s(value * 1e6, NULL, buf, len);
		return;
	}
	s = *ctx;
	s.min *= 1e6;
	s.max *= 1e6;
	s.step *= 1e6;
	plot_format_bytes_per_s(value * 1e6, &s, buf, len);
}

static int labels_repeat(char labels[][PLOT_LABEL_LEN], int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (strcmp(labels[i - 1], labels[i]) == 0)
			return 1;
	return 0;
}

void plot_format_labels(plot_format_fn fn, const struct plot_tick_context *ctx,
			const double *ticks, int n,
			char labels[][PLOT_LABEL_LEN])
{
	int i, digits;

	if (!fn)
		fn = plot_format_si;
	for (i = 0; i < n; i++)
		fn(ticks[i], ctx, labels[i], PLOT_LABEL_LEN);
	for (digits = 1; digits <= 17 && labels_repeat(labels, n); digits++)
		for (i = 0; i < n; i++)
			snprintf(labels[i], PLOT_LABEL_LEN, "%.*g", digits,
				 ticks[i]);
}
