/* summary.c: the --summary table and --summary=json document. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader/account.h"
#include "reader/blktrace.h"
#include "tag/cause.h"
#include "tag/causesum.h"
#include "analysis/histogram.h"
#include "options.h"
#include "summary.h"
#include "base/utf8.h"

static double us(double ns)
{
	return ns / 1000.0;
}

/*
 * "hist": [[index, count], ...]: the buckets behind the percentiles that
 * hold values, by index in the scheme the document's "histogram" names
 * (summary.h), so that summaries merge exactly (merge.c).
 */
static void json_sparse_histogram(FILE *out, const uint64_t *counts)
{
	size_t i;
	int first = 1;

	fputs("\"hist\": [", out);
	for (i = 0; counts && i < LAT_SUM_BUCKETS; i++) {
		if (!counts[i])
			continue;
		fprintf(out, "%s[%zu, %llu]", first ? "" : ", ", i,
			(unsigned long long)counts[i]);
		first = 0;
	}
	fputc(']', out);
}

/* l's figures of class op (-1: every class's), with what merges them:
 * the sum and maximum in whole ns and the histogram. */
static void json_latency_of(FILE *out, const char *name,
			    const struct latency_summary *l, int op)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	double sum_ns = op < 0 ? l->sum_ns : l->sum_op_ns[op], p[4];

	latency_quantiles_ns(l, op, qs, 4, p);
	fprintf(out, "\"%s\": {\"n\": %llu, \"mean\": %.3f, \"p50\": %.3f, "
		"\"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f, "
		"\"p999\": %.3f, \"sum_ns\": %.0f, \"max_ns\": %llu, ", name,
		(unsigned long long)latency_op_n(l, op),
		us(latency_op_mean_ns(l, op)), us(p[0]), us(p[1]), us(p[2]),
		us((double)latency_op_max_ns(l, op)), us(p[3]), sum_ns,
		(unsigned long long)latency_op_max_ns(l, op));
	json_sparse_histogram(out, op < 0 ? l->hist : l->hist_op[op]);
	fputc('}', out);
}

static void json_latency(FILE *out, const char *name,
			 const struct latency_summary *l)
{
	json_latency_of(out, name, l, -1);
}

/*
 * "latency_by_class": {"read": {"d2c_us": ..., "q2c_us": ...,
 * "q2d_us": ...}, "write": ...}: the classes with timed bios.
 */
static void json_latency_by_class(FILE *out, const struct device_stats *d);

/* "zone-mgmt": {"ios": N, "bytes": 0}, "write-zeroes": {"ios": N,
 * "bytes": N}: a version-2 trace's zone classes, where it has them (a
 * zone management command moves no bytes: 0 whatever its record says). */
static void json_zone_classes(FILE *out, const struct device_stats *d)
{
	int op;

	for (op = OP_ZONE; op <= OP_WRITE_ZEROES; op++)
		if (d->ios[op])
			fprintf(out, "\"%s\": {\"ios\": %llu, \"bytes\": %llu}, ",
				io_op_name(op), (unsigned long long)d->ios[op],
				(unsigned long long)d->bytes[op]);
}

static void json_latency_by_class(FILE *out, const struct device_stats *d)
{
	int op, first = 1;

	fputs(", \"latency_by_class\": {", out);
	/* (a flush's latency is flush_d2c's, a zone command has none) */
	for (op = 0; op < N_OPS; op++) {
		if (!latency_op_n(&d->d2c, op) && !latency_op_n(&d->q2c, op))
			continue;
		fprintf(out, "%s\"%s\": {", first ? "" : ", ", io_op_name(op));
		json_latency_of(out, "d2c_us", &d->d2c, op);
		fputs(", ", out);
		json_latency_of(out, "q2c_us", &d->q2c, op);
		fputs(", ", out);
		json_latency_of(out, "q2d_us", &d->q2d, op);
		fputc('}', out);
		first = 0;
	}
	fputc('}', out);
}

/*
 * Per-direction D2C histogram in log2 buckets of microseconds, as
 * biolatency prints it: bucket k holds [2^k, 2^(k+1)) us, k = 0 also
 * holding everything under 1 us. Folded from the fine histogram, whose
 * buckets never straddle a power of two.
 */
static void json_log2_histogram(FILE *out, const struct latency_summary *l,
				int op)
{
	uint64_t counts[64] = { 0 };
	int k, top = -1, first = 1;
	size_t i;

	if (l->hist_op[op])
		for (i = 0; i < LAT_SUM_BUCKETS; i++) {
			uint64_t c = l->hist_op[op][i];
			uint64_t low_us = hist_bucket_low(i, LAT_SUM_BITS) / 1000;

			if (!c)
				continue;
			k = low_us ? 63 - __builtin_clzll(low_us) : 0;
			counts[k] += c;
			if (k > top)
				top = k;
		}
	fputc('[', out);
	for (k = 0; k <= top; k++) {
		if (!counts[k])
			continue;
		fprintf(out, "%s{\"lo_us\": %llu, \"hi_us\": %llu, \"count\": %llu}",
			first ? "" : ", ", k ? 1ull << k : 0ull,
			1ull << (k + 1), (unsigned long long)counts[k]);
		first = 0;
	}
	fputc(']', out);
}

/* ---- the recording's account (account.h) ---- */

static void json_class_counts(FILE *out, const uint64_t n[N_ACCT],
			      unsigned known)
{
	static const char *const names[N_ACCT] = { "reads", "writes",
						   "discards", "flushes" };
	size_t c;

	fputc('{', out);
	for (c = 0; c < N_ACCT; c++) {
		fprintf(out, "%s\"%s\": ", c ? ", " : "", names[c]);
		if (known >> c & 1)
			fprintf(out, "%llu", (unsigned long long)n[c]);
		else
			fputs("null", out);
	}
	fputc('}', out);
}

/*
 * "diskstats": the kernel's completions over the recording (null: a
 * class it does not count apart), and "account": the trace's by the
 * same classes, the difference and where it went; only for a recording
 * whose note has them.
 */
static void json_account(FILE *out, const struct analysis *a,
			 const struct device_stats *d)
{
	const struct acctnote *n = &d->account;
	uint64_t trace[N_ACCT];
	struct account acc;
	char text[512];
	size_t i;

	if (!d->has_account)
		return;
	analysis_account(a, d, &acc);
	analysis_account_counts(d, trace);
	account_sentence(&acc, text, sizeof(text));
	fputs(", \"diskstats\": ", out);
	json_class_counts(out, n->kernel, n->kernel_known);
	fputs(", \"account\": {\"trace\": ", out);
	json_class_counts(out, trace, (1u << N_ACCT) - 1);
	fprintf(out, ", \"kernel_total\": %llu, \"trace_total\": %llu, "
		"\"missing\": %llu, \"extra\": %llu, \"unseen\": %llu, "
		"\"missed_completion_runs\": %llu, \"in_loss_windows\": %llu, "
		"\"at_tracing_edges\": %llu, \"inferred_holes\": %llu, "
		"\"unexplained\": %llu, "
		"\"in_flight\": {\"start\": %llu, \"end\": %llu}, "
		"\"completed_at_tracing_edges\": %llu, "
		"\"recursion_misses\": {",
		(unsigned long long)acc.kernel_total,
		(unsigned long long)acc.trace_total,
		(unsigned long long)acc.missing, (unsigned long long)acc.extra,
		(unsigned long long)acc.unseen,
		(unsigned long long)acc.missed_runs,
		(unsigned long long)acc.in_loss,
		(unsigned long long)acc.at_edges,
		(unsigned long long)acc.inferred,
		(unsigned long long)acc.unexplained,
		(unsigned long long)n->inflight_start,
		(unsigned long long)n->inflight_end,
		(unsigned long long)n->at_edges);
	for (i = 0; i < n->n_missed; i++) {
		fprintf(out, "%s", i ? ", " : "");
		utf8_json_string(out, n->missed[i].prog);
		fprintf(out, ": %llu", (unsigned long long)n->missed[i].runs);
	}
	fputs("}, \"text\": ", out);
	utf8_json_string(out, text);
	fputc('}', out);
}

/* The account under the device's figures, in its sentence. */
static void text_account(FILE *out, const struct analysis *a,
			 const struct device_stats *d)
{
	struct account acc;
	char text[512];

	if (!d->has_account)
		return;
	analysis_account(a, d, &acc);
	account_sentence(&acc, text, sizeof(text));
	fprintf(out, "  the trace %s\n", text);
}

void summary_json_device_fields(FILE *out, const struct analysis *a,
				const struct device_stats *d)
{
	/* the depth's mean over the device's time outside loss windows */
	double clean = analysis_device_clean_s(a, d->device);

	double span = analysis_device_span_s(a, d->device), first, last;

	/* its own span: where (from the trace's start), how long, and the
	 * time of it in loss windows */
	analysis_device_bounds_s(a, d->device, &first, &last);
	fprintf(out, "\"device\": \"%u,%u\", \"span_s\": %.9f, \"first_s\": %.9f, \"last_s\": %.9f, \"lossy_s\": %.9f, ",
		blk_dev_major(d->device), blk_dev_minor(d->device), span,
		first, last, span > clean ? span - clean : 0);
	fprintf(out, "\"read\": {\"ios\": %llu, \"bytes\": %llu}, ",
		(unsigned long long)d->ios[DIR_READ],
		(unsigned long long)d->bytes[DIR_READ]);
	fprintf(out, "\"write\": {\"ios\": %llu, \"bytes\": %llu}, ",
		(unsigned long long)d->ios[DIR_WRITE],
		(unsigned long long)d->bytes[DIR_WRITE]);
	fprintf(out, "\"queued\": {\"read\": %llu, \"write\": %llu}, ",
		(unsigned long long)d->queued[DIR_READ],
		(unsigned long long)d->queued[DIR_WRITE]);
	fprintf(out, "\"merges\": {\"read\": %llu, \"write\": %llu}, ",
		(unsigned long long)d->merges[DIR_READ],
		(unsigned long long)d->merges[DIR_WRITE]);
	fprintf(out, "\"discard\": {\"ios\": %llu, \"bytes\": %llu}, ",
		(unsigned long long)d->ios[OP_DISCARD],
		(unsigned long long)d->bytes[OP_DISCARD]);
	fprintf(out, "\"flush\": {\"ios\": %llu, ",
		(unsigned long long)d->ios[OP_FLUSH]);
	json_latency(out, "d2c_us", &d->flush_d2c);
	fputs("}, ", out);
	json_zone_classes(out, d);
	fprintf(out, "\"empty_completions\": %llu, ",
		(unsigned long long)d->empty_completions);
	json_latency(out, "d2c_us", &d->d2c);
	fputs(", ", out);
	json_latency(out, "q2c_us", &d->q2c);
	fputs(", ", out);
	json_latency(out, "q2d_us", &d->q2d);
	json_latency_by_class(out, d);
	fputs(", \"d2c_hist_us\": {\"read\": ", out);
	json_log2_histogram(out, &d->d2c, DIR_READ);
	fputs(", \"write\": ", out);
	json_log2_histogram(out, &d->d2c, DIR_WRITE);
	if (d->ios[OP_DISCARD]) {
		fputs(", \"discard\": ", out);
		json_log2_histogram(out, &d->d2c, OP_DISCARD);
	}
	if (d->ios[OP_FLUSH]) {
		fputs(", \"flush\": ", out);
		json_log2_histogram(out, &d->flush_d2c, OP_FLUSH);
	}
	if (d->ios[OP_WRITE_ZEROES]) {
		fputs(", \"write-zeroes\": ", out);
		json_log2_histogram(out, &d->d2c, OP_WRITE_ZEROES);
	}
	/* the area (request-seconds) too: means of merged summaries */
	fprintf(out, "}, \"queue_depth_mean\": %.4f, \"seeks\": %llu, "
		"\"lost_in_flight\": %llu, \"unseen_completions\": %llu, "
		"\"orphan_requests\": %llu, \"unmatched_completions\": %llu, "
		"\"queue_depth_area_s\": %.9f",
		clean > 0 ? d->depth_area_ns / 1e9 / clean : 0,
		(unsigned long long)d->seeks,
		(unsigned long long)d->lost_in_flight,
		(unsigned long long)d->unseen_completions,
		(unsigned long long)d->orphan_requests,
		(unsigned long long)d->unmatched_completions,
		d->depth_area_ns / 1e9);
	json_account(out, a, d);
}

static void json_device(FILE *out, const struct analysis *a,
			const struct device_stats *d)
{
	fputc('{', out);
	summary_json_device_fields(out, a, d);
	fputc('}', out);
}

/*
 * The tags that have I/O, ranked as the graphs' legends rank them (most
 * bytes first: analysis_rank_tags). NULL when out of memory; *n their
 * number.
 */
static const struct tag_stats **ranked_tags(const struct analysis *a,
					    size_t *n)
{
	const struct tag_stats **rank = malloc((a->n_tags + 1) *
					       sizeof(*rank));
	size_t *slots = malloc((a->n_tags + 1) * sizeof(*slots));
	long got = rank && slots ? analysis_rank_tags(a, slots) : -1;
	size_t i;

	*n = 0;
	if (got < 0) {
		free(rank);
		free(slots);
		return NULL;
	}
	for (i = 0; i < (size_t)got; i++)
		rank[i] = &a->tags[slots[i]];
	*n = (size_t)got;
	free(slots);
	return rank;
}

/* "cpus": [0, 1] of a window (bit 63: 63 and above, written as 63). */
static void json_cpus(FILE *out, uint64_t mask)
{
	int c, first = 1;

	fputc('[', out);
	for (c = 0; c < 64; c++)
		if (mask >> c & 1) {
			fprintf(out, "%s%d", first ? "" : ", ", c);
			first = 0;
		}
	fputc(']', out);
}

/* Where the recording lost events, as the trace's loss notes say. */
static void json_loss(FILE *out, const struct analysis *a)
{
	size_t i;
	int unknown = 0;

	for (i = 0; i < a->n_loss; i++)
		unknown |= a->loss[i].count_unknown;
	fprintf(out, "\"duplicate_records\": %llu, ",
		(unsigned long long)a->duplicate_records);
	fprintf(out, "\"lost_events\": %llu, \"lost_count_known\": %s, "
		"\"lost_unlocated\": %llu, \"lossy_s\": %.6f, "
		"\"loss_windows\": [",
		(unsigned long long)a->lost_events, unknown ? "false" : "true",
		(unsigned long long)a->lost_unlocated,
		(double)a->lossy_ns / 1e9);
	for (i = 0; i < a->n_loss; i++) {
		const struct loss_window *w = &a->loss[i];
		uint64_t from = w->from_ns, to = w->to_ns;

		/* within -x's window: a loss that runs past the window's
		 * edge is this summary's up to the edge (a merge of -x
		 * halves sees each half's part) */
		if (a->cfg.has_time_range) {
			if (from < a->cfg.time_min_ns)
				from = a->cfg.time_min_ns;
			if (to > a->cfg.time_max_ns)
				to = a->cfg.time_max_ns;
			if (to < from)
				to = from;
		}
		/* and within the trace: a loss noted after its last event
		 * (perf's LOST record at the end of a recording) is the
		 * trace's up to its end, as duration_s counts it, so that
		 * --merge-summaries takes the summary back */
		if (to > a->last_ns)
			to = a->last_ns;
		if (from > to)
			from = to;
		fprintf(out, "%s{\"from_s\": %.6f, \"to_s\": %.6f, "
			"\"events\": %llu, \"count_known\": %s, "
			"\"noted_late\": %s, \"inferred\": %s, \"cpus\": ",
			i ? ", " : "",
			(double)from / 1e9, (double)to / 1e9,
			(unsigned long long)w->events,
			w->count_unknown ? "false" : "true",
			w->noted_late ? "true" : "false",
			w->inferred ? "true" : "false");
		json_cpus(out, w->cpu_mask);
		if (w->inferred)
			fprintf(out, ", \"device\": \"%u,%u\", \"what\": \"%s\", "
				"\"requests\": %llu", blk_dev_major(w->device),
				blk_dev_minor(w->device),
				w->hole_kind == HOLE_ORPHANS ?
					"completions lost" : "issues lost",
				(unsigned long long)w->requests);
		fputc('}', out);
	}
	fputs("], ", out);
}

/* The CPUs whose files end early (cut short), each where it ends. */
static void json_files_ended(FILE *out, const struct analysis *a)
{
	size_t i;
	int cpu, first = 1;

	fputs("\"files_ended_early\": [", out);
	for (i = 0; i < a->n_loss; i++)
		for (cpu = 0; cpu < 64; cpu++) {
			if (!(a->loss[i].ended_cpu_mask >> cpu & 1))
				continue;
			fprintf(out, "%s{\"cpu\": %d, \"at_s\": %.6f}",
				first ? "" : ", ", cpu,
				(double)a->loss[i].from_ns / 1e9);
			first = 0;
		}
	fputs("], ", out);
}

/* The files the recorder saw, most bytes first (none: no causes kept). */
static void json_files(FILE *out, const struct trace_result *r)
{
	struct file_sums *f;
	size_t n, i;

	if (!r->causes || !cause_table_kept(r->causes, CAUSE_PART_FILES) ||
	    causesum_files(&r->analysis, r->causes, &f, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", out);
		fputs("{\"file\": ", out);
		utf8_json_string(out, f[i].label);
		fprintf(out, ", \"read_bytes\": %llu, \"write_bytes\": %llu, "
			"\"discard_bytes\": %llu, \"bios\": %llu, "
			"\"q2c_mean_us\": %.3f, \"q2c_p99_us\": %.3f}",
			(unsigned long long)f[i].bytes[OP_READ],
			(unsigned long long)f[i].bytes[OP_WRITE],
			(unsigned long long)f[i].bytes[OP_DISCARD],
			(unsigned long long)f[i].bios,
			us(file_q2c_mean_ns(&f[i])), us(file_q2c_p99_ns(&f[i])));
	}
	causesum_free_files(f, n);
}

/* Every tag, ranked (a script wants them all; the text caps them). */
static void json_tags(FILE *out, const struct analysis *a)
{
	size_t n, i;
	const struct tag_stats **rank = ranked_tags(a, &n);

	for (i = 0; rank && i < n; i++) {
		fputs(i ? ", " : "", out);
		fputs("{\"label\": ", out);
		utf8_json_string(out, rank[i]->label);
		fprintf(out, ", \"ios\": %llu, \"bytes\": %llu}",
			(unsigned long long)analysis_tag_ios(rank[i]),
			(unsigned long long)analysis_tag_bytes(rank[i]));
	}
	free(rank);
}

void summary_print_json(FILE *out, const struct trace_result *traces,
			size_t n, int one_line)
{
	/* one line: a JSON-lines stream (--live=json) stays one per line */
	const char *nl = one_line ? "" : "\n";
	size_t i, j;

	fputs("{\"traces\": [", out);
	for (i = 0; i < n; i++) {
		const struct analysis *a = &traces[i].analysis;
		int first = 1;

		fprintf(out, "%s%s%s{", i ? "," : "", nl, one_line ? "" : "  ");
		fputs("\"label\": ", out);
		utf8_json_string(out, traces[i].label);
		fputs(", \"source\": ", out);
		utf8_json_string(out, traces[i].source);
		if (traces[i].recorder) {
			fputs(", \"recorder\": ", out);
			utf8_json_string(out, traces[i].recorder);
		}
		fprintf(out, ", \"events\": %llu, \"notes\": %llu, "
			"\"duration_s\": %.6f, \"bin_width_s\": %.6f, ",
			(unsigned long long)a->n_events,
			(unsigned long long)a->n_notes,
			analysis_duration_s(a), (double)a->bin_width_ns / 1e9);
		json_loss(out, a);
		json_files_ended(out, a);
		fputs("\"devices\": [", out);
		for (j = 0; j < a->n_devices; j++) {
			if (!a->devices[j].has_io)
				continue;
			fprintf(out, "%s%s%s", first ? "" : ",", nl,
				one_line ? (first ? "" : " ") : "    ");
			json_device(out, a, &a->devices[j]);
			first = 0;
		}
		fprintf(out, "],%s%s", nl, one_line ? " " : "   ");
		if (traces[i].tags_source[0]) {
			fputs("\"tags_source\": ", out);
			utf8_json_string(out, traces[i].tags_source);
			fputs(", ", out);
		}
		fputs("\"tags\": [", out);
		json_tags(out, a);
		fputs("], \"files\": [", out);
		json_files(out, &traces[i]);
		fputs("]}", out);
	}
	fprintf(out, "%s], \"histogram\": {\"scheme\": \"%s\", "
		"\"version\": %d, \"bits\": %d, \"max_bits\": %d, "
		"\"unit\": \"ns\"}}\n", nl, SUMMARY_HIST_SCHEME,
		SUMMARY_HIST_VERSION, LAT_SUM_BITS, LAT_SUM_MAX_BITS);
}

/* A size in the unit that keeps it short: "51.2 MiB". */
static void short_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB",
					     "TiB" };
	double v = (double)b;
	int u = 0;

	/* 1023.96 KiB would print as 1024.0 KiB */
	while (v >= 1023.95 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* "s" where n is not one. */
static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* A row of latency figures: name (D2C read), then l's of class op. */
static void text_latency_row(FILE *out, const char *name,
			     const struct latency_summary *l, int op)
{
	/* a longer name ("D2C write-zeroes") takes the count's room */
	static const double qs[] = { 0.5, 0.9, 0.99 };
	int name_w = strlen(name) > 12 ? (int)strlen(name) : 12;
	int count_w = 22 - name_w > 1 ? 22 - name_w : 1;
	double p[3];

	latency_quantiles_ns(l, op, qs, 3, p);
	fprintf(out, "  %-*s %*llu %10.1f %10.1f %10.1f %10.1f %10.1f\n",
		name_w, name, count_w, (unsigned long long)latency_op_n(l, op),
		us(latency_op_mean_ns(l, op)), us(p[0]), us(p[1]), us(p[2]),
		us((double)latency_op_max_ns(l, op)));
}

/*
 * A latency's rows, one per class with timed bios (reads' and writes'
 * latencies differ too much to read from their pool): "D2C read",
 * "D2C write", "D2C discard"; "-" where none was timed.
 */
static void text_latency(FILE *out, const char *metric,
			 const struct latency_summary *l)
{
	char name[32];
	int op;

	if (!l->n) {
		fprintf(out, "  %-12s %10s\n", metric, "-");
		return;
	}
	for (op = 0; op < N_OPS; op++) {
		if (!latency_op_n(l, op))
			continue;
		snprintf(name, sizeof(name), "%s %s", metric, io_op_name(op));
		text_latency_row(out, name, l, op);
	}
}

/* A class's name and I/O count, the count's last digit in column 20
 * whatever the name's length ("write-zeroes" takes some of its room). */
static void text_class_head(FILE *out, const char *what, uint64_t ios)
{
	int name_w = strlen(what) > 7 ? (int)strlen(what) : 7;
	int count_w = 17 - name_w > 1 ? 17 - name_w : 1;

	fprintf(out, "  %-*s %*llu I/O%-1s", name_w, what, count_w,
		(unsigned long long)ios, plural(ios));
}

static void text_bytes(FILE *out, const char *what, uint64_t ios,
		       uint64_t bytes, double dur)
{
	char size[32];

	short_bytes(bytes, size, sizeof(size));
	text_class_head(out, what, ios);
	fprintf(out, " %12s %10.2f MB/s %10.1f IOPS\n", size,
		dur > 0 ? (double)bytes / 1e6 / dur : 0,
		dur > 0 ? (double)ios / dur : 0);
}

/* The zone classes of a version-2 trace, where it has them: zone
 * management moves no bytes, so its line has none. */
static void text_zone_classes(FILE *out, const struct device_stats *d,
			      double dur)
{
	if (d->ios[OP_ZONE]) {
		text_class_head(out, io_op_name(OP_ZONE), d->ios[OP_ZONE]);
		fprintf(out, " %12s %10s      %10.1f IOPS\n", "no bytes", "",
			dur > 0 ? (double)d->ios[OP_ZONE] / dur : 0);
	}
	if (d->ios[OP_WRITE_ZEROES])
		text_bytes(out, io_op_name(OP_WRITE_ZEROES),
			   d->ios[OP_WRITE_ZEROES], d->bytes[OP_WRITE_ZEROES],
			   dur);
}

/* A tag's row: its I/Os and bytes, then its label (last: a long one, a
 * file's path, breaks no column). */
static void text_tag_row(FILE *out, const char *label, uint64_t ios,
			 uint64_t bytes)
{
	char size[32];

	short_bytes(bytes, size, sizeof(size));
	fprintf(out, "  %10llu %12s  %s\n", (unsigned long long)ios, size,
		label);
}

/*
 * The tags, most bytes first, top of them by name and the rest in one
 * line, as the graphs' legends keep the top ones and an "other".
 */
static void text_tags(FILE *out, const struct analysis *a, size_t top,
		      const char *source)
{
	size_t n, i;
	uint64_t more_ios = 0, more_bytes = 0;
	const struct tag_stats **rank = ranked_tags(a, &n);

	if (!rank || !n) {
		free(rank);
		return;
	}
	fprintf(out, " tags (by bytes%s%s)\n  %10s %12s  %s\n",
		source[0] ? "; " : "", source, "I/Os", "bytes", "tag");
	for (i = 0; i < n; i++) {
		uint64_t ios = analysis_tag_ios(rank[i]);
		uint64_t bytes = analysis_tag_bytes(rank[i]);

		if (i >= top && n > top + 1) {
			more_ios += ios;
			more_bytes += bytes;
			continue;
		}
		text_tag_row(out, rank[i]->label ? rank[i]->label : "?", ios,
			     bytes);
	}
	if (n > top + 1) {
		char more[48];

		/* --top N shows more of them, --summary=json all */
		snprintf(more, sizeof(more), "%zu more tags", n - top);
		text_tag_row(out, more, more_ios, more_bytes);
	}
	free(rank);
}

/* Events lost at no known time: what was done of them, in words. */
static void text_unlocated_loss(FILE *out, const struct analysis *a)
{
	uint64_t unseen = 0;
	size_t i;

	for (i = 0; i < a->n_devices; i++)
		unseen += a->devices[i].unseen_completions;
	fprintf(out, " LOST %llu event%s at times the recorder could not tell",
		(unsigned long long)a->lost_unlocated,
		plural(a->lost_unlocated));
	if (unseen)
		fprintf(out, " (completions the kernel made without running it): the %llu request%s longest in flight at the end %s taken as theirs and left out of the queue depth;",
			(unsigned long long)unseen, plural(unseen),
			unseen == 1 ? "is" : "are");
	else
		fputc(':', out);
	fputs(" a completion is paired with the newest request of its sector, so none is timed from an older one whose completion was lost\n",
	      out);
}

/*
 * A loss, in words, under the trace's line: what was lost, where, and
 * what the figures below do about it.
 */
static void text_loss(FILE *out, const struct analysis *a)
{
	uint64_t cpus = 0, in_flight = 0;
	size_t i;
	int unknown = 0, late = 0, c, n_cpus = 0, one_cpu = 0;
	size_t n_loss = 0, first = 0;
	int one;

	if (a->lost_unlocated)
		text_unlocated_loss(out, a);
	for (i = a->n_loss; i-- > 0;)
		if (!a->loss[i].inferred) {
			n_loss++;
			first = i;
		}
	if (!n_loss)
		return;
	one = n_loss == 1;
	for (i = 0; i < a->n_loss; i++) {
		if (a->loss[i].inferred)
			continue;
		cpus |= a->loss[i].cpu_mask;
		unknown |= a->loss[i].count_unknown;
		late |= a->loss[i].noted_late;
	}
	for (i = 0; i < a->n_devices; i++)
		in_flight += a->devices[i].lost_in_flight;
	for (c = 0; c < 64; c++)
		if (cpus >> c & 1) {
			n_cpus++;
			one_cpu = c;
		}
	if (unknown && !a->lost_events)	/* a file cut short, say */
		fprintf(out, " LOST an unknown number of events on ");
	else if (!a->lost_events && a->cfg.has_time_range)
		fprintf(out, " LOST events (counted with the time before -x's window, where their loss began) on ");
	else
		fprintf(out, " LOST %s%llu event%s on ",
			unknown ? "at least " : "",
			(unsigned long long)a->lost_events,
			plural(a->lost_events));
	if (n_cpus == 1)
		fprintf(out, "CPU %d%s", one_cpu, one_cpu == 63 ? " or above" : "");
	else
		fprintf(out, "%d CPUs", n_cpus);
	if (one)
		fprintf(out, ", from %.3f s to %.3f s",
			a->loss[first].from_ns / 1e9,
			a->loss[first].to_ns / 1e9);
	else
		fprintf(out, ", in %zu stretches of time", n_loss);
	fprintf(out, " (%.3f s of the %.3f s): no latency or queue depth is counted %s",
		(double)a->lossy_ns / 1e9, analysis_duration_s(a),
		one ? "then" : "in them");
	if (in_flight)
		fprintf(out, ", and the %llu I/O%s in flight as %s began %s not timed",
			(unsigned long long)in_flight, plural(in_flight),
			one ? "it" : "they", in_flight == 1 ? "is" : "are");
	fputc('\n', out);
	if (late)
		fprintf(out, " (a loss was noted only after events it touched were counted: figures before then may hold what it made up)\n");
}

/* "CPU 3", "CPUs 0, 1" of a mask (bit 63: 63 and above). */
static void text_cpus(FILE *out, uint64_t mask)
{
	int c, n = 0;

	for (c = 0; c < 64; c++)
		n += (int)(mask >> c & 1);
	fputs(n == 1 ? "CPU " : "CPUs ", out);
	for (c = 0, n = 0; c < 64; c++)
		if (mask >> c & 1)
			fprintf(out, "%s%d%s", n++ ? ", " : "", c,
				c == 63 ? " and above" : "");
}

/*
 * Holes the trace's own evidence shows (analysis_holes.c), one line per
 * device and kind: what, where, how many requests, on which device and
 * CPUs, and what the figures do about it.
 */
static void text_inferred(FILE *out, const struct analysis *a)
{
	size_t i, j;
	int kind;

	for (i = 0; i < a->n_devices; i++)
		for (kind = HOLE_ORPHANS; kind <= HOLE_UNMATCHED; kind++) {
			const struct device_stats *d = &a->devices[i];
			uint64_t from = 0, to = 0, cpus = 0, reqs = 0;
			size_t n = 0;

			for (j = 0; j < a->n_loss; j++) {
				const struct loss_window *w = &a->loss[j];

				if (!w->inferred || w->device != d->device ||
				    w->hole_kind != kind)
					continue;
				if (!n++)
					from = w->from_ns;
				to = w->to_ns;
				cpus |= w->cpu_mask;
				reqs += w->requests;
			}
			if (!n)
				continue;
			fprintf(out, " HOLE inferred on %u,%u: %llu %s, ",
				blk_dev_major(d->device),
				blk_dev_minor(d->device),
				(unsigned long long)reqs,
				kind == HOLE_ORPHANS ?
				(reqs == 1 ? "request whose completion was lost"
					   : "requests whose completions were lost")
				: (reqs == 1 ? "completion whose issue was lost"
					     : "completions whose issues were lost"));
			if (n == 1)
				fprintf(out, "from %.3f s to %.3f s", from / 1e9,
					to / 1e9);
			else
				fprintf(out, "in %zu stretches from %.3f s to %.3f s",
					n, from / 1e9, to / 1e9);
			if (cpus) {
				fputs(", ", out);
				text_cpus(out, cpus);
			}
			fputs(kind == HOLE_ORPHANS ?
			      ": not timed, out of the queue depth from their issue\n" :
			      ": counted as I/O, not timed\n", out);
		}
	for (i = 0; i < a->n_devices; i++) {
		const struct device_stats *d = &a->devices[i];
		uint64_t said = 0;

		for (j = 0; j < a->n_loss; j++)
			if (a->loss[j].inferred &&
			    a->loss[j].device == d->device &&
			    a->loss[j].hole_kind == HOLE_UNMATCHED)
				said += a->loss[j].requests;
		/* those at the trace's start are usual: issued before it */
		if (d->unmatched_completions > said)
			fprintf(out, " %u,%u: %llu completion%s of requests not issued in the trace (at its start: issued before it), counted as I/O, not timed\n",
				blk_dev_major(d->device),
				blk_dev_minor(d->device),
				(unsigned long long)(d->unmatched_completions - said),
				plural(d->unmatched_completions - said));
	}
}

/* A CPU's file cut short, in words: where, and what it does to the rest. */
static void text_files_ended(FILE *out, const struct analysis *a)
{
	size_t i;
	int cpu;

	for (i = 0; i < a->n_loss; i++)
		for (cpu = 0; cpu < 64; cpu++)
			if (a->loss[i].ended_cpu_mask >> cpu & 1)
				fprintf(out, " CUT cpu %d's file is cut short at %.3f s while the others go on to %.3f s: its events after are lost, so nothing after %.3f s is timed or in the queue depth\n",
					cpu, (double)a->loss[i].from_ns / 1e9,
					(double)a->last_ns / 1e9,
					(double)a->loss[i].from_ns / 1e9);
}

/* A file's row: bytes read and written, bios and their Q2C (none:
 * blank), then its path (last: a long one breaks no column). */
static void text_file_row(FILE *out, const char *label, uint64_t read,
			  uint64_t written, uint64_t bios,
			  const struct file_sums *timed)
{
	char rd[32], wr[32], mean[16] = "", p99[16] = "";

	short_bytes(read, rd, sizeof(rd));
	short_bytes(written, wr, sizeof(wr));
	if (timed) {
		snprintf(mean, sizeof(mean), "%.1f",
			 us(file_q2c_mean_ns(timed)));
		snprintf(p99, sizeof(p99), "%.1f", us(file_q2c_p99_ns(timed)));
	}
	fprintf(out, "  %10s %12s %10llu %14s %9s  %s\n", rd, wr,
		(unsigned long long)bios, mean, p99, label);
}

/* The files the recorder saw: the top ones by bytes, the rest in a line;
 * nothing (not even the heading) where no bio was timed. */
static void text_files(FILE *out, const struct trace_result *r, size_t top)
{
	uint64_t more[3] = { 0 }, more_bios = 0;
	struct file_sums *f;
	size_t n, i, shown = 0;

	if (!r->causes || !cause_table_kept(r->causes, CAUSE_PART_FILES) ||
	    causesum_files(&r->analysis, r->causes, &f, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		if (!f[i].bios)
			continue;
		if (!shown++)
			fprintf(out, " files (by bytes)\n  %10s %12s %10s %14s %9s  %s\n",
				"read", "written", "bios", "Q2C mean (us)",
				"p99 (us)", "file");
		if (shown > top && n > top + 1) {
			more[0] += f[i].bytes[OP_READ];
			more[1] += f[i].bytes[OP_WRITE];
			more[2] += f[i].bytes[OP_DISCARD];
			more_bios += f[i].bios;
			continue;
		}
		text_file_row(out, f[i].label, f[i].bytes[OP_READ],
			      f[i].bytes[OP_WRITE] + f[i].bytes[OP_DISCARD],
			      f[i].bios, &f[i]);
	}
	if (shown > top + 1) {
		char label[48];

		snprintf(label, sizeof(label), "%zu more files", shown - top);
		text_file_row(out, label, more[0], more[1] + more[2],
			      more_bios, NULL);
	}
	causesum_free_files(f, n);
}

void summary_print_text(FILE *out, const struct trace_result *traces,
			size_t n, size_t top_tags)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct analysis *a = &traces[i].analysis;
		double dur = analysis_duration_s(a);
		const char *src = traces[i].source;
		/* the source in brackets only where it says more */
		int show_src = src && strcmp(src, traces[i].label);

		fprintf(out, "%s%s%s%s: %llu event%s, %.3f s%s%s\n",
			traces[i].label, show_src ? " (" : "",
			show_src ? src : "", show_src ? ")" : "",
			(unsigned long long)a->n_events, plural(a->n_events),
			dur,
			traces[i].recorder ? ", recorded with " : "",
			traces[i].recorder ? traces[i].recorder : "");
		if (a->duplicate_records)
			fprintf(out, " %llu duplicate record%s ignored (the same CPU, time, task, event and fields as one before: one record)\n",
				(unsigned long long)a->duplicate_records,
				plural(a->duplicate_records));
		text_loss(out, a);
		text_inferred(out, a);
		text_files_ended(out, a);
		for (j = 0; j < a->n_devices; j++) {
			const struct device_stats *d = &a->devices[j];

			if (!d->has_io)
				continue;
			/* rates over the device's own span, said where it
			 * is not the trace's */
			dur = analysis_device_span_s(a, d->device);
			if (fabs(dur - analysis_duration_s(a)) >= 0.0005)
				fprintf(out, " device %u,%u (rates and depth over its own %.3f s, first event to last, of the trace's %.3f s)\n",
					blk_dev_major(d->device),
					blk_dev_minor(d->device), dur,
					analysis_duration_s(a));
			else
				fprintf(out, " device %u,%u\n",
					blk_dev_major(d->device),
					blk_dev_minor(d->device));
			text_bytes(out, "read", d->ios[DIR_READ],
				   d->bytes[DIR_READ], dur);
			text_bytes(out, "write", d->ios[DIR_WRITE],
				   d->bytes[DIR_WRITE], dur);
			if (d->ios[OP_DISCARD])
				text_bytes(out, "discard", d->ios[OP_DISCARD],
					   d->bytes[OP_DISCARD], dur);
			if (d->ios[OP_FLUSH])
				fprintf(out, "  %-7s %10llu I/O%-1s %40.1f IOPS\n",
					"flush",
					(unsigned long long)d->ios[OP_FLUSH],
					plural(d->ios[OP_FLUSH]),
					dur > 0 ? (double)d->ios[OP_FLUSH] /
							  dur : 0);
			text_zone_classes(out, d, dur);
			if (d->empty_completions == 1)
				fprintf(out, "  1 empty completion (the end of a flush sequence, not an I/O)\n");
			else if (d->empty_completions)
				fprintf(out, "  %llu empty completions (ends of flush sequences, not I/Os)\n",
					(unsigned long long)d->empty_completions);
			/* n counts bios: a merged request's bios each count */
			fprintf(out, "  %-12s %10s %10s %10s %10s %10s %10s\n",
				"latency (us)", "bios", "mean", "p50", "p90",
				"p99", "max");
			text_latency(out, "D2C", &d->d2c);
			text_latency(out, "Q2C", &d->q2c);
			text_latency(out, "Q2D", &d->q2d);
			if (d->flush_d2c.n)
				text_latency(out, "D2C", &d->flush_d2c);
			fprintf(out, "  queue depth (mean) %.3f, seeks %llu\n",
				analysis_device_clean_s(a, d->device) > 0 ?
					d->depth_area_ns / 1e9 /
					analysis_device_clean_s(a, d->device) :
					0,
				(unsigned long long)d->seeks);
			text_account(out, a, d);
		}
		text_tags(out, a, top_tags, traces[i].tags_source);
		text_files(out, &traces[i], top_tags);
	}
}

/* One stack's line: bytes, process, then its frames innermost first. */
static void text_stack(FILE *out, const struct trace_result *r,
		       const struct stack_sums *s)
{
	const struct cause_table *t = r->causes;
	const char *comm = cause_comm(t, s->pid), *frames = NULL;
	char rd[32], wr[32], frame[256];
	size_t len;
	const char *p, *end;

	short_bytes(s->bytes[OP_READ], rd, sizeof(rd));
	short_bytes(s->bytes[OP_WRITE] + s->bytes[OP_DISCARD], wr, sizeof(wr));
	fprintf(out, "  %10s read %10s written  %s (%u)\n", rd, wr,
		comm ? comm : "?", s->pid);
	if (s->kstack >= 0) {
		struct cause c = { .kstack = s->kstack };

		frames = cause_kstack(t, &c);
	}
	if (!frames) {
		fprintf(out, "      [no kernel stack]\n");
		return;
	}
	/* the dictionary has them outermost first: print from the end */
	end = frames + strlen(frames);
	while (end > frames) {
		p = end;
		while (p > frames && p[-1] != ';')
			p--;
		len = (size_t)(end - p);
		snprintf(frame, sizeof(frame), "%.*s", (int)len, p);
		fprintf(out, "      %s\n", frame);
		end = p > frames ? p - 1 : p;
	}
}

/*
 * iostack's view: bytes read and written per device, kernel stack and
 * process, biggest first, a device at a time.
 */
void summary_print_stacks(FILE *out, const struct trace_result *traces,
			  size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct trace_result *r = &traces[i];
		struct stack_sums *s;
		size_t ns;
		uint64_t device = 0;	/* 1 + the device last printed */

		fprintf(out, "%s: bytes per device, kernel stack and process, most first\n",
			r->label);
		if (!r->causes)
			continue;
		/* what the recorder could not keep (stacks not recorded) */
		if (cause_table_notes(r->causes))
			fprintf(out, " note: %s\n",
				cause_table_notes(r->causes));
		if (causesum_stacks(&r->analysis, r->causes, &s, &ns) < 0)
			continue;
		for (;;) {
			uint64_t next = UINT64_MAX;

			for (k = 0; k < ns; k++)
				if (s[k].device + 1ull > device &&
				    s[k].device + 1ull < next)
					next = s[k].device + 1ull;
			if (next == UINT64_MAX)
				break;
			device = next;
			fprintf(out, " device %u,%u\n",
				blk_dev_major((uint32_t)(device - 1)),
				blk_dev_minor((uint32_t)(device - 1)));
			for (k = 0; k < ns; k++)
				if (s[k].device + 1ull == device)
					text_stack(out, r, &s[k]);
		}
		free(s);
	}
}

/* ---- the summary as an output (base/outkind.h) ---- */

static int summary_chosen(const struct options *o)
{
	return o->summary != SUMMARY_NONE;
}

static unsigned summary_needs(const struct options *o)
{
	if (o->summary != SUMMARY_STACKS)
		return 0;
	return OUTPUT_NEEDS_CAUSES | OUTPUT_NEEDS_STACKS | OUTPUT_NEEDS_LEDGER;
}

static int summary_finish(void *w, const struct options *o,
			  struct trace_result *traces, size_t n,
			  struct iow_error *err)
{
	(void)w;
	(void)err;
	if (o->summary == SUMMARY_JSON)
		summary_print_json(stdout, traces, n, o->live == LIVE_JSON);
	else if (o->summary == SUMMARY_STACKS)
		summary_print_stacks(stdout, traces, n);
	else
		summary_print_text(stdout, traces, n,
				   o->top_tags > 0 ? (size_t)o->top_tags :
						     TOP_TAGS_DEFAULT);
	return 0;
}

const struct output_ops summary_output = {
	.name = "summary",
	.help = "statistics per trace and device on standard output: text, JSON or stacks",
	.kind = OUTPUT_NONE,
	.option = "--summary",
	.chosen = summary_chosen,
	.needs = summary_needs,
	.finish = summary_finish,
};
