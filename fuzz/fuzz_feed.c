/*
 * fuzz_feed.c: the trace reader and everything after it. The input is
 * four control bytes and then trace bytes, read either as one blkparse -d
 * dump or, split in two, as a 2-CPU blktrace set (NAME.blktrace.0 and .1,
 * merged by time); the events go through -P tagging (sometimes) into the
 * analysis, the summary is printed to /dev/null, and one input in 32 is
 * drawn (PNG, SVG or PDF) or exported as CSV. A file that starts with
 * gzip's, xz's or zstd's magic is read through its decompressor, and
 * one that is not a trace is sniffed for the error (the seeds have both).
 * Seeds: fuzz/seeds/feed (fuzz/make-seeds.py).
 *
 * Six control bytes come first. c0: bit 0 a per-CPU set, split after
 * byte c1 + 256 c2 of the data; bit 1 -P, bit 2 --merge-comm; bit 3
 * --bin-ms 1; bit 4 -x (one second from (c4 & 0x7f) x 10 ms); bit 5 -y
 * (64 MiB from c5 MiB); bits 6-7 the io graph's action. c3: low five
 * bits all set draws, c3 >> 5 picks the format; 0x1e exports CSV. c4 bit
 * 7 without either: --summary alone (no I/O map, no histograms), which
 * runs several times faster. Events are read in batches whose size and
 * payload room come from c1 ^ c5 and c2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "blkparse_feed.h"
#include "reader/blktrace.h"
#include "output/csv.h"
#include "fuzz_common.h"
#include "graphs/graphs.h"
#include "options.h"
#include "tag/cause.h"
#include "tag/causetag.h"
#include "output/summary.h"

#define FZ_CONTROL	6

static FILE *fz_devnull;

static int fz_feed_run(const struct trace_source *src, const uint8_t *c,
		    struct analysis *a, struct iow_error *err)
{
	/* batches of 1 to 64 events, their payloads' room from 64 KiB up,
	 * as the control bytes happen to say */
	size_t max = 1 + (size_t)(c[1] ^ c[5]) % 64;
	size_t room = 65535 + (size_t)c[2] * 1024;
	struct cause_tags *pt = NULL;
	struct cause_table *ct = NULL;
	struct io_event ev[64];
	struct feed *f;
	long n, i;
	int r = 0;

	f = feed_open(src, err);
	if (!f)
		return -1;
	if (c[0] & 2) {
		/* by process, comm, cgroup, file or stack */
		static const enum cause_by bys[] = { BY_PROCESS, BY_COMM,
			BY_CGROUP, BY_FILE, BY_STACK, BY_PROCESS, BY_PROCESS,
			BY_PROCESS };

		ct = cause_table_open(NULL, err);
		pt = ct ? causetag_new(bys[(c[0] >> 2) & 7], ct) : NULL;
		if (!pt) {
			cause_table_free(ct);
			feed_close(f);
			return iow_fail(err, "out of memory");
		}
		analysis_enable_tags(a);
	}
	while (r == 0 && (n = feed_next_batch(f, ev, max, room, err)) != 0) {
		if (n < 0)
			r = -1;
		for (i = 0; i < n && r == 0; i++)
			if ((ct && cause_table_event(ct, &ev[i], err) < 0) ||
			    (pt && causetag_event(pt, &ev[i], a, err) < 0) ||
			    analysis_add(a, &ev[i], err) < 0)
				r = -1;
	}
	if (r == 0 && feed_warning(f) && strchr(feed_warning(f), '\n'))
		abort();
	feed_close(f);
	causetag_free(pt);
	cause_table_free(ct);
	analysis_finish(a);
	return r;
}

static void fz_feed_draw(const uint8_t *c, struct trace_result *res)
{
	static const char *const names[] = { "out.png", "out.svg", "out.pdf",
					     "out.png", "out.png", "out.svg",
					     "out.png", "out.svg" };
	struct options o;
	struct iow_error err = { "" };
	char path[512];

	memset(&o, 0, sizeof(o));
	o.graph_width = 240;
	o.graph_height = 120;
	o.latency_dirs = 3;
	o.analysis = res->analysis.cfg;
	if ((c[3] & 0x1f) == 0x1f) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_scratch(),
			 names[c[3] >> 5]);
		o.output = path;
		/* every graph, the ones off by default too */
		for (size_t i = 0; i < graph_table_len; i++)
			o.only_graphs[o.n_only++] = graph_table[i].name;
		if (graphs_render(&o, res, 1, &err) < 0)
			fuzz_check_error(&err, "graphs_render");
	} else if (c[3] == 0x1e) {
		o.csv_dir = fuzz_scratch();
		if (csv_export(&o, res, 1, &err) < 0)
			fuzz_check_error(&err, "csv_export");
	}
	fuzz_check_no_tmp("drawing");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned actions[] = { BLK_TA_ISSUE, BLK_TA_QUEUE,
					    BLK_TA_COMPLETE, BLK_TA_ISSUE };
	uint8_t c[FZ_CONTROL] = { 0 };
	struct trace_list list = { NULL, 0 };
	struct analysis_config cfg = { 0 };
	struct trace_result res;
	struct iow_error err = { "" };
	char path[512], base[512];
	int r;

	if (!fz_devnull)
		fz_devnull = fopen("/dev/null", "w");
	if (size >= FZ_CONTROL) {
		memcpy(c, data, FZ_CONTROL);
		data += FZ_CONTROL;
		size -= FZ_CONTROL;
	}
	if (c[0] & 1) {
		size_t split = c[1] + 256 * (size_t)c[2];

		if (split > size)
			split = size;

		fuzz_write_file("cpu.blktrace.0", data, split, path,
				sizeof(path));
		fuzz_write_file("cpu.blktrace.1", data + split, size - split,
				path, sizeof(path));
		snprintf(base, sizeof(base), "%s/cpu", fuzz_scratch());
	} else {
		fuzz_write_file("dump", data, size, base, sizeof(base));
	}
	if (feed_find_traces(base, &list, &err) < 0) {
		fuzz_check_error(&err, "feed_find_traces");
		trace_list_free(&list);
		return 0;
	}
	if (c[0] & 8)
		cfg.bin_width_ns = 1000000;
	if (c[0] & 16) {
		cfg.has_time_range = 1;
		cfg.time_min_ns = (c[4] & 0x7f) * 10000000ull;
		cfg.time_max_ns = cfg.time_min_ns + 1000000000ull;
	}
	if (c[0] & 32) {
		cfg.has_offset_range = 1;
		cfg.offset_min = (uint64_t)c[5] << 20;
		cfg.offset_max = cfg.offset_min + (64ull << 20);
	}
	cfg.iomap_action = actions[c[0] >> 6];
	cfg.stats_only = (c[4] & 0x80) && (c[3] & 0x1f) < 0x1e;
	memset(&res, 0, sizeof(res));
	res.label = list.items[0].label;
	res.source = list.items[0].name;
	if (analysis_init(&res.analysis, &cfg, &err) < 0) {
		fuzz_check_error(&err, "analysis_init");
		trace_list_free(&list);
		return 0;
	}
	r = fz_feed_run(&list.items[0], c, &res.analysis, &err);
	if (r < 0) {
		fuzz_check_error(&err, "reading");
	} else {
		summary_print_json(fz_devnull, &res, 1, 0);
		summary_print_text(fz_devnull, &res, 1, TOP_TAGS_DEFAULT);
		fz_feed_draw(c, &res);
	}
	analysis_free(&res.analysis);
	trace_list_free(&list);
	return 0;
}
