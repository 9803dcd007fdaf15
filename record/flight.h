/*
 * flight.h: the flight recorder (--flight). The BPF recorder's records
 * are kept in memory, not written: the last SECONDS of them, at most
 * --flight-mem bytes, the oldest let go first. Triggers (--trigger, a
 * SIGUSR1, a key in the live view) each ask for a capture: the records
 * from --before seconds before the trigger to --after seconds after it,
 * written as an ordinary trace set DIR/NAME-N.blktrace.<cpu> (first
 * under a temporary name, renamed once whole), with the recording's
 * notes and one naming the trigger. Triggers inside a capture's window
 * join it. Recording goes on while a capture is written.
 *
 * The single-I/O triggers (d2c, q2c, q2d: one request's time from issue
 * or queue to completion, or queue to issue) are evaluated by the BPF
 * programs at each completion, which wake the reader at once
 * (flight_fire_kernel); without them (flight_kernel_triggers not
 * called: the unit tests) on each drain here. The queue depth is
 * evaluated on each timed drain of the rings, in time order, by matching
 * each request's records; the percentile triggers over a sliding second
 * of 100 ms slots, from a histogram of 16 buckets per power of two (a
 * figure to within 1/16 of itself).
 */
#ifndef IOWATCHER_FLIGHT_H
#define IOWATCHER_FLIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "reader/blktrace.h"
#include "reader/recnote.h"

enum flight_metric { FLIGHT_D2C, FLIGHT_Q2C, FLIGHT_Q2D, FLIGHT_DEPTH };
enum flight_class { FLIGHT_ANY, FLIGHT_READ, FLIGHT_WRITE };

#define FLIGHT_TRIGGER_TEXT	64
#define FLIGHT_MAX_TRIGGERS	16
#define FLIGHT_DEFAULT_S	30
#define FLIGHT_DEFAULT_MEM	(256ull << 20)
#define FLIGHT_MIN_MEM		(1ull << 20)
#define FLIGHT_DEFAULT_AFTER_S	2

struct flight_trigger {
	char text[FLIGHT_TRIGGER_TEXT];	/* as given */
	enum flight_metric metric;
	double pct;			/* 0: one I/O's; else pNN's NN */
	enum flight_class cls;
	char device[32];		/* "": any; else a device's name */
	uint64_t threshold;		/* ns; requests for depth */
	uint32_t dev;			/* device resolved at the start, 0
					 * any */
};

/*
 * "[DEVICE.][read.|write.]METRIC>VALUE" into t: 0, or -1 with why (one
 * line saying what is allowed).
 */
int flight_trigger_parse(const char *expr, struct flight_trigger *t,
			 char *why, size_t why_size);

struct flight_opts {
	uint64_t window_ns;		/* --flight SECONDS */
	uint64_t mem_bytes;		/* --flight-mem */
	uint64_t before_ns;		/* --before; UINT64_MAX: all kept */
	uint64_t after_ns;		/* --after */
	const struct flight_trigger *triggers;
	size_t n_triggers;
};

/* What a flight recording came to, for the summary line. */
struct flight_result {
	unsigned captures;		/* written */
	unsigned joined;		/* triggers that joined one */
	unsigned failed;		/* captures not written (said) */
	uint64_t records;		/* records taken */
	uint64_t raw_bytes;		/* they came to, as blktrace's */
	uint64_t compact_bytes;		/* they were held in */
	uint64_t peak_bytes;		/* memory held by the records */
	uint64_t evicted_by_mem;	/* records let go for the bound */
	uint64_t kept_ns;		/* the span held at the end */
	uint64_t held_bytes;		/* the memory held now */
	int mem_bound;			/* the memory bound, not the time
					 * bound, let records go */
	char last_capture[4096];	/* DIR/NAME-N of the last */
};

struct record_device;
struct flight;

/*
 * The records are held compact (12-20 bytes for blktrace's 48: times
 * from the record before, the action by its number in a table, the
 * device by its index, varints), expanded when a capture is written.
 *
 * A flight recorder for the BPF recorder: n_cpus rings, the traced
 * devices (devs, and their numbers as the records carry them). Returns
 * NULL with err.
 */
struct flight *flight_new(const struct flight_opts *o, const char *dir,
			  const char *name, const struct record_device *devs,
			  const uint32_t *devices, size_t n_devs,
			  unsigned n_cpus, int version8,
			  struct iow_error *err);
/* The trace's clock at a known time (the TIMESTAMP and clock notes). */
void flight_set_clock(struct flight *f, const struct recnote_clock *c);
/*
 * One drain's records, each CPU's in time order (n_cpus arrays of n[cpu]
 * pointers to a record and its payload), all older than complete_ns
 * handed over: kept, matched, the triggers evaluated, and the captures
 * whose window has passed written.
 */
int flight_take(struct flight *f, const struct blk_io_trace *const *const *recs,
		const size_t *n, uint64_t complete_ns, struct iow_error *err);
/*
 * The device a trigger names, as the records number it (0: any): its
 * name as -d gave it or its /dev node's; -1 where it is not recorded.
 */
int flight_trigger_dev(const struct flight_trigger *t,
		       const struct record_device *devs,
		       const uint32_t *devices, size_t n_devs, uint32_t *dev);
/*
 * The single-I/O triggers are evaluated by the kernel (the BPF
 * programs): the user side leaves them to it, and takes its fires.
 */
void flight_kernel_triggers(struct flight *f);
struct blkrec_fire;
/* A fire of the kernel's, noticed at noticed_ns. */
void flight_fire_kernel(struct flight *f, const struct blkrec_fire *x,
			uint64_t noticed_ns);
/* Fires the kernel could not tell (its ring full): they joined. */
void flight_fires_dropped(struct flight *f, uint64_t n);
/*
 * The kernel's own counts (the programs', summed over the CPUs) as read
 * at at_ns, on each drain: every record before at_ns is counted (but
 * those being written as they were read). A capture's note compares
 * them, between the readings around its window, with what it held.
 */
struct flight_counts {
	uint64_t records;	/* records put on the rings */
	uint64_t issued, completed;	/* requests */
	uint64_t lost;		/* events with no room on a ring */
};
void flight_kernel_counts(struct flight *f, uint64_t at_ns,
			  const struct flight_counts *c);
/* A capture asked for at now_ns, by what (a SIGUSR1, a key). */
void flight_fire(struct flight *f, uint64_t now_ns, const char *what);
/* The loss of a CPU's events the kernel has counted, not yet noted: for
 * a capture written now. */
typedef uint64_t (*flight_pending_fn)(void *ctx, unsigned cpu,
				       uint64_t *t0_ns);
void flight_set_pending(struct flight *f, flight_pending_fn fn, void *ctx);
/* At the stop: the captures still waiting for their after part are
 * written with what came (said in their note). */
int flight_finish(struct flight *f, struct iow_error *err);
/* How it goes: captures written so far, records held. */
void flight_progress(const struct flight *f, unsigned *captures,
		     uint64_t *records);
void flight_result(const struct flight *f, struct flight_result *r);
void flight_free(struct flight *f);
/* The recording's end in one line: the captures, which bound held. */
void flight_print_end(FILE *out, const struct flight_result *r,
		      const struct flight_opts *o, const char *path,
		      double cpu_s);

#endif
