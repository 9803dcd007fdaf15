/*
 * compare.c: --compare's collection and pairing. Each trace's rows of the
 * per-I/O log (analysis cfg.on_row) are kept compactly; then the devices
 * of A and B are paired (by number, or as --pair says), each I/O is put
 * in its pair's group and its time window, and the table, the split and
 * the printing follow (compare_boot.c, compare_split.c, compare_print.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/bigmem.h"
#include "compare.h"
#include "compare_int.h"
#include "report/report.h"

struct compare_side *compare_side_new(void)
{
	return calloc(1, sizeof(struct compare_side));
}

void compare_side_free(struct compare_side *side)
{
	if (!side)
		return;
	if (side->ios)
		munmap(side->ios, side->map_bytes);
	free(side);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/*
 * The rows live in a mapping of their own, grown by mremap (the pages
 * move, none is copied or touched again) and mapped ahead a chunk at a
 * time (MADV_POPULATE_WRITE: one call, not 512 faults; where the kernel
 * lacks it, the pages fault in as used). A 2.6M-event trace keeps about
 * 18 MB of rows: grown by realloc and faulted a page at a time they took
 * 4,400 faults each, a quarter of --compare's CPU time in a perf
 * profile on this VM, where a fault costs 12-20 us (base/bigmem.h).
 */
#define ROWS_FIRST	(4u << 20)	/* the first mapping's bytes */
#define ROWS_CHUNK	(1u << 20)	/* mapped ahead at a time */

static int side_grow(struct compare_side *s)
{
	size_t bytes = s->map_bytes ? s->map_bytes * 2 : ROWS_FIRST;
	void *more;

	if (bytes < s->map_bytes)
		return -1;
	if (!s->ios)
		more = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		more = mremap(s->ios, s->map_bytes, bytes, MREMAP_MAYMOVE);
	if (more == MAP_FAILED)
		return -1;
#ifdef MADV_HUGEPAGE
	(void)madvise(more, bytes, MADV_HUGEPAGE);
#endif
	s->ios = more;
	s->map_bytes = bytes;
	s->cap = bytes / sizeof(*s->ios);
	return 0;
}

/* The chunk the next row falls in mapped now, if it is not yet. */
static void side_map_ahead(struct compare_side *s)
{
	size_t need = (s->n + 1) * sizeof(*s->ios), len;

	if (need <= s->mapped)
		return;
	len = s->map_bytes - s->mapped < ROWS_CHUNK ?
	      s->map_bytes - s->mapped : ROWS_CHUNK;
	(void)madvise((char *)s->ios + s->mapped, len, MADV_POPULATE_WRITE);
	s->mapped += len;
}

/* cfg.on_row: one row kept (out of memory: noted, said at the end). */
static void compare_row(void *ctx, const struct analysis_row *r)
{
	struct compare_side *s = ctx;
	struct cmp_io *io;

	if (s->next_row)
		s->next_row(s->next_ctx, r);
	if (s->oom || (s->n == s->cap && side_grow(s) < 0)) {
		s->oom = 1;
		return;
	}
	side_map_ahead(s);
	io = &s->ios[s->n++];
	memset(io, 0, sizeof(*io));
	io->time_ns = r->time_ns;
	io->sector = r->sector;
	io->device = r->device;
	io->bytes = r->bytes;
	io->cause = r->cause;
	io->op = (uint8_t)r->op;
	io->first = !s->any || r->io != s->last_io;
	s->any = 1;
	s->last_io = r->io;
	if (r->has & ANALYSIS_HAS_D2C) {
		io->lat_ns[CM_D2C] = (float)r->d2c_ns;
		io->has |= 1u << CM_D2C;
	}
	if (r->has & ANALYSIS_HAS_Q2C) {
		io->lat_ns[CM_Q2C] = (float)r->q2c_ns;
		io->has |= 1u << CM_Q2C;
	}
	if (r->has & ANALYSIS_HAS_Q2D) {
		io->lat_ns[CM_Q2D] = (float)r->q2d_ns;
		io->has |= 1u << CM_Q2D;
	}
	if (r->has & (ANALYSIS_HAS_Q2C | ANALYSIS_HAS_D2C)) {
		io->lat_ns[CM_LAT] = r->has & ANALYSIS_HAS_Q2C ?
				     (float)r->q2c_ns : (float)r->d2c_ns;
		io->has |= 1u << CM_LAT;
	}
}

void compare_attach(const struct options *o, size_t i,
		    struct compare_side *side, struct analysis_config *cfg)
{
	side->next_row = cfg->on_row;
	side->next_ctx = cfg->row_ctx;
	cfg->on_row = compare_row;
	cfg->row_ctx = side;
	if (i == 1 && o->has_x2_range) {
		cfg->has_time_range = 1;
		cfg->time_min_ns = (uint64_t)(o->x2_min_s * 1e9);
		cfg->time_max_ns = o->x2_max_s * 1e9 >= 1.8e19 ?
				   UINT64_MAX : (uint64_t)(o->x2_max_s * 1e9);
	}
}

/* ---- pairing ---- */

static int side_has_device(const struct compare_side *s, uint32_t dev)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->ios[i].device == dev)
			return 1;
	return 0;
}

/* The devices a side's I/O went to, "8,0 8,16" (at most a line). */
static void side_devices(const struct compare_side *s, char *buf,
			 size_t len)
{
	uint32_t seen[16];
	size_t n = 0, i, j, used = 0;

	buf[0] = '\0';
	for (i = 0; i < s->n && n < 16; i++) {
		for (j = 0; j < n && seen[j] != s->ios[i].device; j++)
			;
		if (j < n)
			continue;
		seen[n++] = s->ios[i].device;
		used += (size_t)snprintf(buf + used, len - used, "%s%u,%u",
					 n > 1 ? " " : "",
					 s->ios[i].device >> 20,
					 s->ios[i].device & 0xfffff);
		if (used >= len)
			break;
	}
}

static int add_pair(struct compare *c, uint32_t a, uint32_t b)
{
	uint32_t (*more)[2];
	size_t i;

	for (i = 0; i < c->n_pairs; i++)
		if (c->pairs[i][0] == a || c->pairs[i][1] == b)
			return 0;
	more = realloc(c->pairs, (c->n_pairs + 1) * sizeof(*more));
	if (!more)
		return -1;
	c->pairs = more;
	c->pairs[c->n_pairs][0] = a;
	c->pairs[c->n_pairs][1] = b;
	c->n_pairs++;
	return 0;
}

/* --pair first, then the devices both traces have by number. */
static int pair_devices(struct compare *c, const struct options *o,
			struct iow_error *err)
{
	const struct compare_side *a = c->t[0].side, *b = c->t[1].side;
	char da[256], db[256];
	size_t i;

	for (i = 0; i < o->n_pairs; i++) {
		if (!side_has_device(a, o->pairs[i][0]) ||
		    !side_has_device(b, o->pairs[i][1])) {
			side_devices(a, da, sizeof(da));
			side_devices(b, db, sizeof(db));
			return iow_fail(err, "--pair %u,%u=%u,%u: A (%s) has I/O on %s, B (%s) on %s",
					o->pairs[i][0] >> 20,
					o->pairs[i][0] & 0xfffff,
					o->pairs[i][1] >> 20,
					o->pairs[i][1] & 0xfffff,
					c->t[0].source, da[0] ? da : "none",
					c->t[1].source, db[0] ? db : "none");
		}
		if (add_pair(c, o->pairs[i][0], o->pairs[i][1]) < 0)
			return iow_fail(err, "out of memory");
	}
	for (i = 0; i < a->n; i++) {
		uint32_t dev = a->ios[i].device;

		if ((i && dev == a->ios[i - 1].device) ||
		    !side_has_device(b, dev))
			continue;
		if (add_pair(c, dev, dev) < 0)
			return iow_fail(err, "out of memory");
	}
	if (c->n_pairs)
		return 0;
	side_devices(a, da, sizeof(da));
	side_devices(b, db, sizeof(db));
	return iow_fail(err, "--compare: A (%s) and B (%s) have no device in common: A has I/O on %s, B on %s; pair them with --pair %s=%s",
			c->t[0].source, c->t[1].source, da, db,
			strtok(da, " "), strtok(db, " "));
}

/* ---- windows ---- */

static void trace_span(struct cmp_trace *t, const struct analysis *a,
		       const struct analysis_config *cfg)
{
	uint64_t end = a->last_ns;

	t->origin_ns = cfg->has_time_range ? cfg->time_min_ns : a->first_ns;
	if (cfg->has_time_range && cfg->time_max_ns < end)
		end = cfg->time_max_ns;
	t->span_s = end > t->origin_ns ? (double)(end - t->origin_ns) / 1e9 :
					 1e-9;
}

/* Windows as wide in both traces, CMP_WINDOWS over the shorter. */
static void choose_windows(struct compare *c)
{
	double shorter = c->t[0].span_s < c->t[1].span_s ? c->t[0].span_s :
							   c->t[1].span_s;
	double longer = c->t[0].span_s + c->t[1].span_s - shorter;
	double w = shorter / CMP_WINDOWS;
	size_t i;

	if (longer / w > CMP_MAX_WINDOWS)
		w = longer / CMP_MAX_WINDOWS;
	c->window_ns = w * 1e9 >= 1 ? (uint64_t)(w * 1e9) : 1;
	for (i = 0; i < 2; i++) {
		/* no sliver of a window at the end (the width is rounded
		 * down to whole ns; two runs' lengths differ by a little):
		 * the last window takes it */
		double k = ceil(c->t[i].span_s * 1e9 / (double)c->window_ns -
				0.05);

		c->t[i].n_windows = k < 1 ? 1 : (size_t)k;
	}
	c->paired_draws = c->t[0].n_windows == c->t[1].n_windows;
}

static long pair_index(const struct compare *c, int side, uint32_t dev)
{
	size_t i;

	for (i = 0; i < c->n_pairs; i++)
		if (c->pairs[i][side] == dev)
			return (long)i;
	return -1;
}

/* Each I/O's group (its pair's first; -1 unpaired) and window. */
static int place_ios(struct compare *c)
{
	int s;

	for (s = 0; s < 2; s++) {
		struct cmp_trace *t = &c->t[s];
		const struct compare_side *side = t->side;
		uint32_t last_dev = 0;
		long pair = -1;
		size_t i;

		t->group = bigmem_calloc((side->n + 1) * sizeof(*t->group));
		t->window = bigmem_calloc((side->n + 1) *
					  sizeof(*t->window));
		if (!t->group || !t->window)
			return -1;
		for (i = 0; i < side->n; i++) {
			const struct cmp_io *io = &side->ios[i];
			uint64_t rel = io->time_ns > t->origin_ns ?
				       io->time_ns - t->origin_ns : 0;
			uint64_t k = rel / c->window_ns;

			if (!i || io->device != last_dev)
				pair = pair_index(c, s, io->device);
			last_dev = io->device;
			t->group[i] = pair < 0 ? -1 : (int32_t)(pair * N_OPS);
			t->window[i] = k >= t->n_windows ?
				       (uint32_t)(t->n_windows - 1) :
				       (uint32_t)k;
		}
	}
	return 0;
}

/* ---- the whole ---- */

/* A trace, or its window, without I/O: which, and where it has some. */
static int no_io(const struct cmp_trace *t, int s, struct iow_error *err)
{
	const struct analysis *a = t->analysis;
	const struct analysis_config *cfg = &a->cfg;
	char window[96] = "";

	if (cfg->has_time_range)
		snprintf(window, sizeof(window), " in -x %g:%g%s",
			 (double)cfg->time_min_ns / 1e9,
			 (double)cfg->time_max_ns / 1e9,
			 s ? " (the second -x is B's)" : "");
	if (!a->n_events_all && cfg->n_only_devices)
		return iow_fail(err, "--compare: %s (%s) has no I/O on the --device given",
				s ? "B" : "A", t->source);
	if (!a->n_events_all)
		return iow_fail(err, "--compare: %s (%s) holds no events",
				s ? "B" : "A", t->source);
	return iow_fail(err, "--compare: %s (%s) has no I/O to compare%s (its events run from %.3f to %.3f s%s)",
			s ? "B" : "A", t->source, window,
			(double)a->first_ns / 1e9, (double)a->last_ns / 1e9,
			cfg->n_only_devices ? ", and -d picks devices" : "");
}

static int check_sides(const struct compare *c, struct iow_error *err)
{
	int s;

	for (s = 0; s < 2; s++) {
		const struct cmp_trace *t = &c->t[s];

		if (t->side->oom)
			return iow_fail(err, "out of memory keeping %s's I/Os for --compare",
					t->source);
		if (t->side->n)
			continue;
		return no_io(t, s, err);
	}
	return 0;
}

/* The headline's first clause: up to its first ';' outside brackets
 * (one inside, "(32 I/Os; none in A)", left the title's bracket open). */
static void first_clause(char *line)
{
	int depth = 0;
	char *p;

	for (p = line; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (*p == ';' && !depth)
			break;
	}
	*p = '\0';
}

/* -o: the pictures, titled with the verdict (the line to its cause),
 * or the report of both traces holding them. */
static int draw(const struct compare *c, const struct options *o,
		struct trace_result traces[2], struct iow_error *err)
{
	char line[2048], title[2200];

	cmp_headline(c, line, sizeof(line));
	first_clause(line);
	snprintf(title, sizeof(title), "%s vs %s: %s", c->t[0].label,
		 c->t[1].label, line);
	if (o->output_type.kind == OUTPUT_REPORT)
		return cmp_write_report(c, o, traces, title, err);
	return cmp_draw(c, o->output, o->output_type.picture,
			o->graph_width, o->graph_height, title, err);
}

void cmp_free(struct compare *c)
{
	int s;

	cmp_split_free(c);
	for (s = 0; s < 2; s++) {
		bigmem_free(c->t[s].group);
		bigmem_free(c->t[s].window);
	}
	free(c->groups);
	free(c->pairs);
}

int cmp_setup(struct compare *c, const struct options *o,
	      struct trace_result *a, struct trace_result *b,
	      struct compare_side *sa, struct compare_side *sb,
	      struct iow_error *err)
{
	struct trace_result *traces[2] = { a, b };
	struct compare_side *sides[2] = { sa, sb };
	int s;

	memset(c, 0, sizeof(*c));
	c->min_change = o->min_change;
	for (s = 0; s < 2; s++) {
		c->t[s].label = traces[s]->label;
		c->t[s].source = traces[s]->source;
		c->t[s].side = sides[s];
		c->t[s].causes = traces[s]->causes;
		c->t[s].analysis = &traces[s]->analysis;
		trace_span(&c->t[s], &traces[s]->analysis,
			   &traces[s]->analysis.cfg);
	}
	if (check_sides(c, err) < 0 || pair_devices(c, o, err) < 0)
		return -1;
	choose_windows(c);
	if (place_ios(c) < 0)
		return iow_fail(err, "out of memory comparing the traces");
	return 0;
}

int compare_print(FILE *out, const struct options *o,
		  struct trace_result traces[2],
		  struct compare_side *const sides[2], struct iow_error *err)
{
	struct compare c;
	int r = -1;

	if (cmp_setup(&c, o, &traces[0], &traces[1], sides[0], sides[1],
		      err) < 0)
		goto out;
	if (cmp_split(&c) < 0 || cmp_table(&c) < 0) {
		iow_fail(err, "out of memory comparing the traces");
		goto out;
	}
	if (o->output && draw(&c, o, traces, err) < 0)
		goto out;
	if (o->compare == COMPARE_JSON)
		cmp_print_json(out, &c);
	else
		cmp_print_text(out, &c);
	r = 0;
out:
	cmp_free(&c);
	return r;
}
