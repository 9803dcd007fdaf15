/*
 * analysis_end.c: the end of an analysis: finishing it after the last
 * event (every part's bins made the whole one's, the depth areas closed
 * at the last event, then the unseen completions, the holes and the
 * losses), coarsening it to fewer bins, and freeing it. None of it runs
 * per event; the hub's depth helpers it calls come through its table
 * (analysis_hub.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "base/bigmem.h"
#include "base/u64map.h"
#include "iomap.h"
#include "ioset.h"
#include "reader/lossnote.h"
#include "analysis_hub.h"

static void latency_free(struct latency_summary *l)
{
	int op;

	free(l->hist);
	for (op = 0; op < N_OPS; op++)
		free(l->hist_op[op]);
}

void analysis_device_free(struct device_stats *d)
{
	latency_free(&d->d2c);
	latency_free(&d->q2c);
	latency_free(&d->q2d);
	latency_free(&d->flush_d2c);
	free(d->depth_bins);
	free(d->seek_bins);
	free(d->usual_hist);
	if (d->flushes) {
		free(d->flushes->d_ns);
		free(d->flushes->tag);
		free(d->flushes->pid);
		free(d->flushes->cpu);
		free(d->flushes);
	}
}

void analysis_free(struct analysis *a)
{
	struct analysis_private *p = priv(a);
	size_t i, j;

	for (i = 0; i < a->n_devices; i++) {
		analysis_device_free(&a->devices[i]);
		iomap_free(&a->iomaps[i]);
	}
	for (i = 0; i < a->n_tags; i++) {
		struct tag_stats *t = &a->tags[i];

		free(t->label);
		free(t->bins);
		latency_free(&t->d2c);
		for (j = 0; t->lat_bins && j < a->cap_bins; j++)
			free(t->lat_bins[j]);
		free(t->lat_bins);
		free(t->flush_bins);
	}
	for (i = 0; i < a->n_parts; i++)
		analysis_free(&a->parts[i]);
	free(a->parts);
	for (i = 0; i < a->n_ledger; i++)
		free(a->ledger[i].q2c_hist);
	free(a->ledger);
	if (p) {
		u64map_free(&p->ledger_index);
		ioset_free(&p->bios);
		ioset_free(&p->requests);
		free(p->forgotten);
		free(p->tag_index);
		free(p);
	}
	free(a->devices);
	free(a->iomaps);
	free(a->tags);
	free(a->bins);
	free(a->loss);
	free(a->spans);
	for (i = 0; i < N_OPS; i++) {
		bigmem_free(a->lat_hist[i]);
		bigmem_free(a->size_hist[i]);
	}
	memset(a, 0, sizeof(*a));
}

void analysis_finish(struct analysis *a)
{
	size_t i;

	if (a->finished)
		return;
	a->finished = 1;
	for (i = 0; i < a->n_parts; i++) {
		struct analysis *part = &a->parts[i];

		/* every part's bins are the trace's, to its end, so that a
		 * device's panel reads as the whole one does */
		part->last_ns = a->last_ns;
		while (part->bin_width_ns < a->bin_width_ns) {
			if (!part->n_bins)
				part->n_bins = 1;
			coarsen(part);
		}
		if (part->n_bins < a->n_bins)
			part->n_bins = a->n_bins;
		analysis_finish(part);
	}
	/* a flush completion still held (the trace's last) is timed */
	flush_held_apply(a);
	if (a->n_events == 0)
		a->first_ns = 0;
	for (i = 0; i < a->n_devices; i++)
		depth_change(a, &a->devices[i], a->last_ns, 0);
	for (i = 0; i < a->n_tags; i++)
		tag_depth_change(a, a->tags[i].id, a->last_ns, 0);
	unseen_off_depth(a);
	holes_finish(a);
	loss_finish(a);
	for (i = 0; i < a->n_tags; i++)
		if (!a->tags[i].label)
			a->tags[i].label = strdup(a->tags[i].id ==
						  IO_EVENT_NO_TAG ? "untagged"
								  : "?");
}

void analysis_coarsen(struct analysis *a)
{
	size_t i;

	if (!a->n_bins)
		a->n_bins = 1;
	coarsen(a);
	for (i = 0; i < a->n_parts; i++)
		analysis_coarsen(&a->parts[i]);
}
