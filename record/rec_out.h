/*
 * rec_out.h: the per-CPU files a recorder writes, DIR/NAME.blktrace.0,
 * .1, ..., as blktrace would: each record in its CPU's file, I/O records
 * numbered per device and CPU as blkparse expects (notes 0, as the
 * kernel writes them), in big writes; each record also handed to a tap
 * (the live view). Loss notes (lossnote.h) are written here too.
 */
#ifndef IOWATCHER_REC_OUT_H
#define IOWATCHER_REC_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "reader/account.h"
#include "reader/blktrace.h"
#include "base/error.h"
#include "reader/lossnote.h"
#include "reader/recnote.h"

struct rec_out;

/* Told of every record written, host order, cpu and sequence set. */
typedef void (*rec_out_tap_fn)(void *ctx, const struct blk_io_trace *t,
			       const void *pdu);

/* Creates the files of CPUs 0 to n_cpus - 1 (more as records need). */
struct rec_out *rec_out_open(const char *dir, const char *name,
			     unsigned n_cpus, struct iow_error *err);
void rec_out_set_tap(struct rec_out *o, rec_out_tap_fn tap, void *ctx);
/* A tap told a record's action bits 32-63 too (version-8 files: the
 * zone categories; 0 otherwise), in place of rec_out_set_tap's. */
typedef void (*rec_out_tap_hi_fn)(void *ctx, const struct blk_io_trace *t,
				  uint32_t action_hi, const void *pdu);
void rec_out_set_tap_hi(struct rec_out *o, rec_out_tap_hi_fn tap, void *ctx);
/* Writes t (and t->pdu_len bytes of pdu) to t->cpu's file; an I/O
 * record's sequence is set here. */
int rec_out_put(struct rec_out *o, struct blk_io_trace *t, const void *pdu,
		struct iow_error *err);
/* rec_out_put in two: t written (and numbered), then handed to the tap,
 * for a recorder that has more to tell first (what the tap will want
 * with t: the BPF recorder's cause of a QUEUE record). */
int rec_out_write(struct rec_out *o, struct blk_io_trace *t, const void *pdu,
		  struct iow_error *err);
void rec_out_tell(struct rec_out *o, const struct blk_io_trace *t,
		  const void *pdu);
/*
 * Version-8 files (the kernel's struct blk_io_trace2, 64 bytes, a 64-bit
 * action): every record from now on, so asked before the first. For a
 * recording whose records carry the zone categories of bits 32-63,
 * which a version-7 record has no room for.
 */
void rec_out_version8(struct rec_out *o);
/* The next record's action bits 32-63 (version-8 files; 0 after it). */
void rec_out_action_hi(struct rec_out *o, uint32_t action_hi);
/* n as a note for each device, in n->cpu's file, at the window's start
 * or, where the file already holds a later record, at that (files stay
 * in time order); counted in rec_out_stats' loss figures once (not per
 * device). */
int rec_out_loss(struct rec_out *o, const struct lossnote *n,
		 const uint32_t *devices, size_t n_devices,
		 struct iow_error *err);

/*
 * What the recording knows of where and when it runs (recnote.h): the
 * host (uname's nodename), each device's kernel name (DEVNAME of
 * /sys/dev/block/MAJ:MIN/uevent, else the last part of its path) and,
 * clock not NULL, the clock snapshot: MESSAGE notes in CPU 0's file at
 * the snapshot's time (0 without one), written before the first record
 * that follows (so after rec_out_version8, as it must) or at the close.
 */
struct record_device;
int rec_out_facts(struct rec_out *o, const struct recnote_clock *clock,
		  const struct record_device *devs, size_t n_devs,
		  struct iow_error *err);

/*
 * The end mark (lossnote.h) in every CPU's file, for device, at the newest
 * time any file holds: written last, so that a reader knows a file
 * without it was cut short.
 */
int rec_out_end(struct rec_out *o, uint32_t device, struct iow_error *err);

struct rec_out_stats {
	uint64_t events;	/* I/O records */
	uint64_t notes;		/* PROCESS, TIMESTAMP and loss notes */
	uint64_t lost;		/* events in loss notes of a known count */
	uint64_t loss_windows;	/* loss notes (one per CPU and window) */
	int lost_unknown;	/* a loss note of unknown count */
	unsigned n_files;
};

void rec_out_stats(const struct rec_out *o, struct rec_out_stats *st);
/* The completions written of device, by class (account.h). */
void rec_out_completions(const struct rec_out *o, uint32_t device,
			 uint64_t n[N_ACCT]);
/* The newest time written to cpu's file (0: nothing yet). */
uint64_t rec_out_last_time(const struct rec_out *o, unsigned cpu);
/* Writes what is buffered, closes and frees o, whatever the result. */
int rec_out_close(struct rec_out *o, struct iow_error *err);

#endif
