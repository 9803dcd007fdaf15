/*
 * bpf/blkrec.h: what the BPF recorder's kernel side (blkrec.bpf.c) and
 * its user side (rec_bpf.c) share: the records on the ring buffers, the
 * traced devices and the per-CPU counts of lost events.
 *
 * A record on a ring is a version-7 blktrace record (48 bytes, host
 * order, sequence 0) and its payload: an I/O event, a PROCESS note, or,
 * with BLKREC_LOSS_MAGIC, a loss record: sector = events lost on that CPU
 * since the last record before them, time = the first record reserved
 * after them, an 8-byte payload = that last record's time (0: none).
 */
#ifndef IOWATCHER_BPF_BLKREC_H
#define IOWATCHER_BPF_BLKREC_H

#include <linux/types.h>

#define BLKREC_MAX_DEVS		16
#define BLKREC_LOSS_MAGIC	0x4c4f5353u	/* "LOSS" */
#define BLKREC_COMM_LEN		16

/* A traced device: events of disk (MAJ << 20 | MIN of the whole disk)
 * at sectors start_lba..end_lba are written as device dev. */
struct blkrec_dev {
	__u32 disk;
	__u32 dev;
	__u64 start_lba;
	__u64 end_lba;
};

/* Per CPU, in a one-entry per-CPU array the user side reads. */
struct blkrec_cpu {
	__u64 last_ok_ns;	/* the newest record reserved */
	__u64 pending;		/* lost since, not yet on the ring */
	__u64 t0_ns;		/* last_ok_ns when the pending ones began */
	__u64 first_fail_ns;	/* the first of the pending ones */
	__u64 last_fail_ns;	/* the newest failed reservation */
	__u64 lost_total;	/* every event lost on this CPU */
	__u64 records;		/* records reserved, for wake-up pacing */
	/* requests issued, requeued, wholly completed (of traced devices):
	 * what the kernel completed without running our program shows in
	 * them (rec_bpf.c) */
	__u64 issued, requeued, completed;
};

#endif
