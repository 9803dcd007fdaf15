/*
 * tagstage.h: the tag stage, between the reader and the analysis: the
 * causes a recorder kept (when something reads them), then --by or a -T
 * tagger, or nothing; each event goes through it to the analysis.
 */
#ifndef IOWATCHER_TAGSTAGE_H
#define IOWATCHER_TAGSTAGE_H

#include "analysis/analysis.h"
#include "base/error.h"
#include "blkparse_feed.h"
#include "event.h"
#include "options.h"
#include "tagger.h"
#include "tag/cause.h"
#include "tag/causetag.h"

struct tag_stage {
	struct cause_table *causes;
	struct cause_tags *by_cause;
	struct tagger *tagger;
	int plain;	/* none of the three: tag_stage_event's fast path */
};

/*
 * Sets up ts for trace src, feeding a: needs is what the outputs ask
 * (OUTPUT_NEEDS_*, base/outkind.h). -1 with err (a --by or an output
 * that needs what the recorder did not keep, a tagger that does not
 * start); ts is then to be freed all the same.
 */
int tag_stage_start(const struct options *o, const struct trace_source *src,
		    unsigned needs, struct tag_stage *ts, struct analysis *a,
		    struct iow_error *err);
/* One event, through the causes and the tags, to the analysis. */
int tag_stage_event_slow(struct tag_stage *ts, struct io_event *ev,
			 struct analysis *a, struct iow_error *err);
/*
 * Inline, so that a trace with no causes, no --by and no tagger (the
 * common case) pays one test an event for the stage, not a call.
 */
static inline int tag_stage_event(struct tag_stage *ts, struct io_event *ev,
				  struct analysis *a, struct iow_error *err)
{
	if (ts->plain)
		return analysis_add(a, ev, err);
	return tag_stage_event_slow(ts, ev, a, err);
}
/* The tagger's last answers and its labels. */
int tag_stage_finish(struct tag_stage *ts, struct analysis *a,
		     struct iow_error *err);
/* Whether the stage runs a process of its own (a tagger), which takes
 * a CPU. */
int tag_stage_has_process(const struct tag_stage *ts);
void tag_stage_free(struct tag_stage *ts);

#endif
