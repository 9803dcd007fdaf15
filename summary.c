/* summary.c: the --summary table and --summary=json document. */
#include <math.h>
#include <stdint.h>

#include "blktrace.h"
#include "histogram.h"
#include "summary.h"
#include "utf8.h"

/* JSON is UTF-8: a byte that starts no character becomes U+FFFD. */
static void json_string(FILE *out, const char *s)
{
	size_t len;

	fputc('"', out);
	for (; s && *s; s += len) {
		unsigned char c = (unsigned char)*s;

		len = utf8_char_len(s);
		if (!len) {
			fputs("\\ufffd", out);
			len = 1;
		} else if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
		} else {
			fwrite(s, 1, len, out);
		}
	}
	fputc('"', out);
}

static double us(double ns)
{
	return ns / 1000.0;
}

static void json_latency(FILE *out, const char *name,
			 const struct latency_summary *l)
{
	fprintf(out, "\"%s\": {\"n\": %llu, \"mean\": %.3f, \"p50\": %.3f, "
		"\"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f}", name,
		(unsigned long long)l->n, us(latency_mean_ns(l)),
		us(latency_quantile_ns(l, -1, 0.5)),
		us(latency_quantile_ns(l, -1, 0.9)),
		us(latency_quantile_ns(l, -1, 0.99)), us((double)l->max_ns));
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

static void json_device(FILE *out, const struct analysis *a,
			const struct device_stats *d)
{
	double dur = analysis_duration_s(a);

	fprintf(out, "{\"device\": \"%u,%u\", ", blk_dev_major(d->device),
		blk_dev_minor(d->device));
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
	fprintf(out, "}, \"empty_completions\": %llu, ",
		(unsigned long long)d->empty_completions);
	json_latency(out, "d2c_us", &d->d2c);
	fputs(", ", out);
	json_latency(out, "q2c_us", &d->q2c);
	fputs(", ", out);
	json_latency(out, "q2d_us", &d->q2d);
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
	fprintf(out, "}, \"queue_depth_mean\": %.4f, \"seeks\": %llu}",
		dur > 0 ? d->depth_area_ns / 1e9 / dur : 0,
		(unsigned long long)d->seeks);
}

void summary_print_json(FILE *out, const struct trace_result *traces,
			size_t n)
{
	size_t i, j;

	fputs("{\"traces\": [", out);
	for (i = 0; i < n; i++) {
		const struct analysis *a = &traces[i].analysis;
		int first = 1;

		fputs(i ? ",\n  {" : "\n  {", out);
		fputs("\"label\": ", out);
		json_string(out, traces[i].label);
		fputs(", \"source\": ", out);
		json_string(out, traces[i].source);
		if (traces[i].recorder) {
			fputs(", \"recorder\": ", out);
			json_string(out, traces[i].recorder);
		}
		fprintf(out, ", \"events\": %llu, \"notes\": %llu, "
			"\"duration_s\": %.6f, \"bin_width_s\": %.6f, "
			"\"devices\": [", (unsigned long long)a->n_events,
			(unsigned long long)a->n_notes,
			analysis_duration_s(a), (double)a->bin_width_ns / 1e9);
		for (j = 0; j < a->n_devices; j++) {
			if (!a->devices[j].has_io)
				continue;
			fputs(first ? "\n    " : ",\n    ", out);
			json_device(out, a, &a->devices[j]);
			first = 0;
		}
		fputs("],\n   \"tags\": [", out);
		first = 1;
		for (j = 0; j < a->n_tags; j++) {
			const struct tag_stats *t = &a->tags[j];

			if (!analysis_tag_ios(t))
				continue;
			fputs(first ? "" : ", ", out);
			first = 0;
			fputs("{\"label\": ", out);
			json_string(out, t->label);
			fprintf(out, ", \"ios\": %llu, \"bytes\": %llu}",
				(unsigned long long)analysis_tag_ios(t),
				(unsigned long long)analysis_tag_bytes(t));
		}
		fputs("]}", out);
	}
	fputs("\n]}\n", out);
}

static void text_latency(FILE *out, const char *name,
			 const struct latency_summary *l)
{
	if (!l->n) {
		fprintf(out, "  %-9s %10s\n", name, "-");
		return;
	}
	fprintf(out, "  %-9s %10llu %10.1f %10.1f %10.1f %10.1f %10.1f\n",
		name, (unsigned long long)l->n, us(latency_mean_ns(l)),
		us(latency_quantile_ns(l, -1, 0.5)),
		us(latency_quantile_ns(l, -1, 0.9)),
		us(latency_quantile_ns(l, -1, 0.99)), us((double)l->max_ns));
}

static void text_bytes(FILE *out, const char *what, uint64_t ios,
		       uint64_t bytes, double dur)
{
	fprintf(out, "  %-7s %10llu I/Os %12.1f KiB %10.2f MB/s %10.1f IOPS\n",
		what, (unsigned long long)ios, (double)bytes / 1024.0,
		dur > 0 ? (double)bytes / 1e6 / dur : 0,
		dur > 0 ? (double)ios / dur : 0);
}

void summary_print_text(FILE *out, const struct trace_result *traces,
			size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct analysis *a = &traces[i].analysis;
		double dur = analysis_duration_s(a);
		int tags_shown = 0;

		fprintf(out, "%s (%s): %llu events, %.3f s%s%s\n",
			traces[i].label, traces[i].source,
			(unsigned long long)a->n_events, dur,
			traces[i].recorder ? ", recorded with " : "",
			traces[i].recorder ? traces[i].recorder : "");
		for (j = 0; j < a->n_devices; j++) {
			const struct device_stats *d = &a->devices[j];

			if (!d->has_io)
				continue;
			fprintf(out, " device %u,%u\n", blk_dev_major(d->device),
				blk_dev_minor(d->device));
			text_bytes(out, "read", d->ios[DIR_READ],
				   d->bytes[DIR_READ], dur);
			text_bytes(out, "write", d->ios[DIR_WRITE],
				   d->bytes[DIR_WRITE], dur);
			if (d->ios[OP_DISCARD])
				text_bytes(out, "discard", d->ios[OP_DISCARD],
					   d->bytes[OP_DISCARD], dur);
			if (d->ios[OP_FLUSH])
				fprintf(out, "  %-7s %10llu I/Os %37.1f IOPS\n",
					"flush",
					(unsigned long long)d->ios[OP_FLUSH],
					dur > 0 ? (double)d->ios[OP_FLUSH] /
							  dur : 0);
			if (d->empty_completions)
				fprintf(out, "  %llu empty completions (ends of flush sequences, not I/Os)\n",
					(unsigned long long)d->empty_completions);
			fprintf(out, "  latency (us)       n       mean        p50        p90        p99        max\n");
			text_latency(out, "D2C", &d->d2c);
			text_latency(out, "Q2C", &d->q2c);
			text_latency(out, "Q2D", &d->q2d);
			if (d->flush_d2c.n)
				text_latency(out, "D2C flush", &d->flush_d2c);
			fprintf(out, "  queue depth (mean) %.3f, seeks %llu\n",
				dur > 0 ? d->depth_area_ns / 1e9 / dur : 0,
				(unsigned long long)d->seeks);
		}
		for (j = 0; j < a->n_tags; j++) {
			const struct tag_stats *t = &a->tags[j];

			if (!analysis_tag_ios(t))
				continue;
			if (!tags_shown++)
				fprintf(out, " tags\n");
			fprintf(out, "  %-32s %10llu I/Os %12.1f KiB\n",
				t->label ? t->label : "?",
				(unsigned long long)analysis_tag_ios(t),
				(double)analysis_tag_bytes(t) / 1024.0);
		}
	}
}
