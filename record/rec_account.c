/*
 * rec_account.c: the kernel's counts read around a recording and the
 * account notes written (rec_account.h). The stat file's fields
 * (Documentation/admin-guide/iostats.rst): 1 reads completed, 5 writes
 * completed, 9 I/Os in flight, 12 discards completed (Linux 4.18 on),
 * 16 flushes completed (5.5 on). They count requests (after merging) as
 * each ends: a flush request as a flush (on the whole disk only: a
 * partition's flushes are not compared), the data request of a flush
 * sequence as a write, not its empty end, a preflush without data as a
 * write (measured on Linux 6.18, ext4 with fsyncs).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "reader/lossnote.h"
#include "rec_account.h"
#include "rec_out.h"

#define STAT_FIELDS	17

int diskstat_read(uint32_t dev, struct diskstat *s)
{
	unsigned long long v[STAT_FIELDS];
	char path[96];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat",
		 blk_dev_major(dev), blk_dev_minor(dev));
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		   "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
		   &v[11], &v[12], &v[13], &v[14], &v[15], &v[16]);
	fclose(f);
	if (n < 11)
		return -1;
	memset(s, 0, sizeof(*s));
	s->ios[ACCT_READ] = v[0];
	s->ios[ACCT_WRITE] = v[4];
	s->in_flight = v[8];
	s->known = 1u << ACCT_READ | 1u << ACCT_WRITE;
	if (n >= 15) {
		s->ios[ACCT_DISCARD] = v[11];
		s->known |= 1u << ACCT_DISCARD;
	}
	/* a partition's flushes are its disk's (counted there only) */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition",
		 blk_dev_major(dev), blk_dev_minor(dev));
	if (n >= 17 && access(path, F_OK)) {
		s->ios[ACCT_FLUSH] = v[15];
		s->known |= 1u << ACCT_FLUSH;
	}
	return 0;
}

void rec_account_begin(struct rec_account *acc, size_t n)
{
	size_t i;

	for (i = 0; acc && i < n; i++)
		acc[i].have_start = !diskstat_read(acc[i].device,
						   &acc[i].start);
}

void rec_account_attached(struct rec_account *acc, size_t n)
{
	size_t i;

	for (i = 0; acc && i < n; i++)
		acc[i].have_attached = !diskstat_read(acc[i].device,
						      &acc[i].attached);
}

void rec_account_detaching(struct rec_account *acc, size_t n)
{
	size_t i;

	for (i = 0; acc && i < n; i++)
		acc[i].have_detaching = !diskstat_read(acc[i].device,
						       &acc[i].detaching);
}

void rec_account_end(struct rec_account *acc, size_t n)
{
	size_t i;

	for (i = 0; acc && i < n; i++)
		acc[i].have_end = !diskstat_read(acc[i].device, &acc[i].end);
}

/* Completions of the known classes from a to b. */
static uint64_t completed_between(const struct diskstat *a,
				  const struct diskstat *b, unsigned known)
{
	uint64_t n = 0;
	size_t c;

	for (c = 0; c < N_ACCT; c++)
		if (known >> c & 1)
			n += b->ios[c] - a->ios[c];
	return n;
}

void rec_account_settle(struct rec_account *a)
{
	size_t c;

	memset(&a->note, 0, sizeof(a->note));
	if (!a->have_start || !a->have_end)
		return;
	a->note.kernel_known = a->start.known & a->end.known;
	for (c = 0; c < N_ACCT; c++)
		if (a->note.kernel_known >> c & 1)
			a->note.kernel[c] = a->end.ios[c] - a->start.ios[c];
	a->note.inflight_start = a->start.in_flight;
	a->note.inflight_end = a->end.in_flight;
	/* a recorder that took no count in between: all of it might be */
	a->note.at_edges = completed_between(&a->start, a->have_attached ?
					     &a->attached : &a->end,
					     a->note.kernel_known);
	if (a->have_attached)
		a->note.at_edges += completed_between(a->have_detaching ?
						      &a->detaching :
						      &a->attached, &a->end,
						      a->note.kernel_known);
}

static int write_note(struct rec_out *o, const struct rec_account *a,
		      uint64_t time, struct iow_error *err)
{
	char text[ACCTNOTE_TEXT_MAX];
	struct blk_io_trace t = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
		.time = time,
		.action = LOSSNOTE_ACTION,
		.device = a->device,
	};

	t.pdu_len = acctnote_format(&a->note, text);
	return rec_out_put(o, &t, text, err);
}

int rec_account_write(struct rec_account *acc, size_t n, struct rec_out *o,
		      const struct acctnote *recorder, struct iow_error *err)
{
	struct rec_out_stats st;
	uint64_t last = 0;
	unsigned cpu;
	size_t i;

	rec_out_stats(o, &st);
	for (cpu = 0; cpu < st.n_files; cpu++)
		if (rec_out_last_time(o, cpu) > last)
			last = rec_out_last_time(o, cpu);
	for (i = 0; acc && i < n; i++) {
		struct rec_account *a = &acc[i];

		rec_account_settle(a);
		if (recorder) {
			a->note.has_recorder = 1;
			a->note.unseen = recorder->unseen;
			a->note.n_missed = recorder->n_missed;
			memcpy(a->note.missed, recorder->missed,
			       sizeof(a->note.missed));
		}
		rec_out_completions(o, a->device, a->trace);
		if (!a->have_start || !a->have_end)
			continue;
		if (write_note(o, a, last, err))
			return -1;
		a->noted = 1;
	}
	return 0;
}
