/* devlog.c: the per-device log (devlog.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "base/utf8.h"
#include "devlog.h"
#include "options.h"
#include "summary.h"
#include "trace_result.h"

struct devlog {
	struct outfile out;	/* written aside, renamed whole */
	FILE *f;
};

static int devlog_chosen(const struct options *o)
{
	return o->output && o->output_type.ops == &devlog_output;
}

static void devlog_abort(void *w)
{
	struct devlog *l = w;

	if (!l)
		return;
	if (l->f)
		fclose(l->f);
	outfile_abort(&l->out);
	free(l);
}

static int devlog_open(void **w, const struct options *o, size_t n,
		       struct iow_error *err)
{
	struct devlog *l = calloc(1, sizeof(*l));

	(void)n;
	if (!l)
		return iow_fail(err, "out of memory");
	l->out.fd = -1;
	*w = l;
	if (outfile_open(&l->out, o->output, NULL, err) < 0)
		return -1;
	l->f = fdopen(l->out.fd, "w");
	if (!l->f)
		return iow_fail(err, "cannot write %s: %s", o->output,
				strerror(errno));
	l->out.fd = -1;	/* the stream owns it now */
	return 0;
}

/* A string member, or null where there is none. */
static void put_member(FILE *f, const char *name, const char *value)
{
	fprintf(f, "\"%s\": ", name);
	if (value)
		utf8_json_string(f, value);
	else
		fputs("null", f);
	fputs(", ", f);
}

static void put_device(FILE *f, const struct trace_result *t,
		       const struct device_stats *d)
{
	fputc('{', f);
	put_member(f, "trace", t->label);
	put_member(f, "source", t->source);
	put_member(f, "host", t->facts.host[0] ? t->facts.host : NULL);
	put_member(f, "device_name", trace_facts_device(&t->facts, d->device));
	summary_json_device_fields(f, &t->analysis, d);
	fputs("}\n", f);
}

static int devlog_finish(void *w, const struct options *o,
			 struct trace_result *traces, size_t n,
			 struct iow_error *err)
{
	struct devlog *l = w;
	size_t i, j;
	int bad;

	for (i = 0; i < n; i++)
		for (j = 0; j < traces[i].analysis.n_devices; j++)
			if (traces[i].analysis.devices[j].has_io)
				put_device(l->f, &traces[i],
					   &traces[i].analysis.devices[j]);
	bad = fflush(l->f) != 0 || ferror(l->f);
	/* the stream's descriptor goes; the outfile syncs its name */
	if (fclose(l->f))
		bad = 1;
	l->f = NULL;
	if (bad) {
		iow_fail(err, "cannot write %s: %s", o->output,
			 strerror(errno ? errno : EIO));
		devlog_abort(l);
		return -1;
	}
	bad = outfile_commit(&l->out, err) < 0;
	free(l);
	return bad ? -1 : 0;
}

const struct output_ops devlog_output = {
	.name = "devices",
	.help = "one JSON line per device of each trace, as --summary=json counts it",
	.kind = OUTPUT_OTHER,
	.noun = "the per-device log",
	.exts = { { ".jsonl", 0 } },
	.chosen = devlog_chosen,
	.open = devlog_open,
	.finish = devlog_finish,
	.abort = devlog_abort,
};
