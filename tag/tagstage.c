/* tagstage.c: the tag stage (tagstage.h). */
#include <string.h>

#include "tagstage.h"

/* --by file and stack need what only a recorder that saw them kept. */
static int tag_causes_recorded(const struct options *o,
			       const struct trace_source *src, unsigned needs,
			       const struct cause_table *ct,
			       struct iow_error *err)
{
	enum cause_part part = o->by == BY_FILE ? CAUSE_PART_FILES
						: CAUSE_PART_STACKS;
	const char *what = o->by == BY_FILE ? "files" : "stacks", *why;

	if ((o->by != BY_FILE && o->by != BY_STACK &&
	     !(needs & OUTPUT_NEEDS_STACKS)) ||
	    cause_table_kept(ct, part))
		return 0;
	why = cause_table_unrecorded(ct, part);
	if (why)
		return iow_fail(err, "%s: %s were not recorded with this trace (%s; --by process, comm and cgroup work on it)",
				src->name, what, why);
	return iow_fail(err, "%s: %s were not recorded with this trace (only the bpf recorder keeps them, in NAME.cause.N beside the per-CPU files: record with --tracer bpf; --by process, comm and cgroup work on any trace)",
			src->name, what);
}

int tag_stage_start(const struct options *o, const struct trace_source *src,
		    unsigned needs, struct tag_stage *ts, struct analysis *a,
		    struct iow_error *err)
{
	memset(ts, 0, sizeof(*ts));
	/* the causes a recorder kept are read whenever they are there: the
	 * summary names the files; else only when something asks */
	if (o->by || (needs & OUTPUT_NEEDS_CAUSES) ||
	    (src->kind == TRACE_PERCPU && cause_files_beside(src->name))) {
		ts->causes = cause_table_open(src->kind == TRACE_PERCPU ?
					      src->name : NULL, err);
		if (!ts->causes ||
		    tag_causes_recorded(o, src, needs, ts->causes, err))
			return -1;
		/* the log's pid and cgroup of each bio, from the records */
		if (needs & OUTPUT_NEEDS_CAUSE_IDS)
			cause_table_intern_plain(ts->causes);
		a->cfg.cause_ledger = cause_table_recorded(ts->causes) ||
				      (needs & OUTPUT_NEEDS_LEDGER);
	}
	if (o->by) {
		ts->by_cause = causetag_new((enum cause_by)o->by, ts->causes);
		if (!ts->by_cause)
			return iow_fail(err, "out of memory");
		analysis_enable_tags(a);
	} else if (o->tagger) {
		ts->tagger = tagger_start(o->tagger, o->tagger_timeout_s, err);
		if (!ts->tagger)
			return -1;
		analysis_enable_tags(a);
	}
	/* decided once: an event goes straight to the analysis when
	 * there are no causes, no --by and no tagger */
	ts->plain = !ts->causes && !ts->by_cause && !ts->tagger;
	return 0;
}

/* Hand every answered event to the analysis. */
static int tag_drain(struct tagger *t, struct analysis *a,
		     struct iow_error *err)
{
	struct io_event tagged;
	int r;

	while ((r = tagger_next(t, &tagged, err)) == 1)
		if (analysis_add(a, &tagged, err) < 0)
			return -1;
	return r;
}

int tag_stage_event_slow(struct tag_stage *ts, struct io_event *ev,
			 struct analysis *a, struct iow_error *err)
{
	if (ts->causes && cause_table_event(ts->causes, ev, err) < 0)
		return -1;
	if (ts->by_cause && causetag_event(ts->by_cause, ev, a, err) < 0)
		return -1;
	if (!ts->tagger)
		return analysis_add(a, ev, err);
	if (tagger_push(ts->tagger, ev, err) < 0)
		return -1;
	return tag_drain(ts->tagger, a, err);
}

int tag_stage_finish(struct tag_stage *ts, struct analysis *a,
		     struct iow_error *err)
{
	size_t i;

	if (!ts->tagger)
		return 0;
	if (tagger_finish(ts->tagger, err) < 0 ||
	    tag_drain(ts->tagger, a, err) < 0)
		return -1;
	for (i = 0; i < tagger_n_tags(ts->tagger); i++) {
		const struct tag_label *l = tagger_tag_at(ts->tagger, i);

		if (analysis_set_tag_label(a, l->id, l->label, err) < 0)
			return -1;
	}
	return 0;
}

int tag_stage_has_process(const struct tag_stage *ts)
{
	return ts->tagger != NULL;
}

void tag_stage_free(struct tag_stage *ts)
{
	causetag_free(ts->by_cause);
	cause_table_free(ts->causes);
	tagger_free(ts->tagger);
}
