/*
 * pftrace.h: -o NAME.pftrace (or NAME.perfetto-trace), the trace in
 * Perfetto's format (a protobuf Trace of TracePackets), for its UI and
 * its trace processor. Per device of each trace: every bio a slice on a
 * lane track (the lowest lane free at its queueing, so that concurrent
 * I/Os stack and never nest), with its queue (Q2D) and device (D2C)
 * phases nested in it and a flow from the one to the other; counters of
 * the queue depth and of IOPS and MB/s by class; the recorder's loss
 * windows on a track of their own. Each slice carries its sector, bytes,
 * class, latencies and, where the trace has them, its process, cgroup,
 * file, tag and kernel stack. Times are the trace's, from its first
 * event; or, for one trace whose recorder noted its clock with boottime
 * and the wall clock (recnote.h), on that clock, with a ClockSnapshot
 * that puts them on boottime, as a Perfetto system trace of the same run
 * is. Encoded here: no protobuf library is needed.
 */
#ifndef IOWATCHER_PFTRACE_H
#define IOWATCHER_PFTRACE_H

#include "analysis/analysis.h"
#include "reader/recnote.h"
#include "tag/cause.h"
#include "base/error.h"

struct pftrace;

/* Opens PATH (written aside, renamed whole at pftrace_close); NULL with
 * err when it cannot be created. */
struct pftrace *pftrace_open(const char *path, struct iow_error *err);
/* The rows that follow are of this trace (its label, analysis, causes
 * and facts, filled as it is read, outlive pftrace_close). */
void pftrace_trace(struct pftrace *p, const char *label,
		   const struct analysis *a, const struct cause_table *causes,
		   const struct trace_facts *facts);
/* analysis_config.on_row, with the writer as ctx. */
void pftrace_row(void *ctx, const struct analysis_row *r);
/* Writes the file and puts it in place; frees p. */
int pftrace_close(struct pftrace *p, struct iow_error *err);
/* Frees p, leaving no file. */
void pftrace_abort(struct pftrace *p);

/* The trace for Perfetto, a row of the outputs' table. */
extern const struct output_ops perfetto_output;

#endif
