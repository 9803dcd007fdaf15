/*
 * tagger.h: the pipeline stage between reader and analysis that runs an
 * external tagger program (the protocol: the man page's "WRITING A
 * TAGGER") and sets
 * io_event.tag on every event from its answers.
 *
 * Usage, with events streamed (the tagger answers while more are sent):
 *
 *	t = tagger_start(cmd, timeout_s, &err);
 *	while (reader gives ev) {
 *		if (tagger_push(t, &ev, &err) < 0)
 *			goto fail;
 *		while ((r = tagger_next(t, &out, &err)) == 1)
 *			analyse(&out);
 *		if (r < 0)
 *			goto fail;
 *	}
 *	if (tagger_finish(t, &err) < 0)
 *		goto fail;
 *	while (tagger_next(t, &out, &err) == 1)
 *		analyse(&out);
 *	... tagger_label(t, out.tag), tagger_tag_at(t, i) for legends ...
 *	tagger_free(t);
 * fail:
 *	report err.msg; tagger_free(t);
 *
 * Events come out of tagger_next in the order they went in. An event's tag
 * is the one named by the last TAG_IO of its answer, IO_EVENT_NO_TAG when
 * the answer had none. Events are written to the tagger in batches, so
 * tagger_next may report nothing for a while after a push; tagger_finish
 * sends the rest and waits for every answer.
 *
 * Any error (the tagger exits early or with a non-zero status, writes
 * something the protocol does not allow, or gives no answer for timeout_s
 * seconds) is one line in err naming the command and the event number
 * (io_event.index); the tagger is then already killed and reaped, and
 * every later call returns the same error. tagger_free is still needed.
 *
 * tagger_start ignores SIGPIPE in the whole process (the tagger itself gets
 * the default action back): a tagger that dies must not kill iowatcher,
 * and a write to it then fails with EPIPE, reported as an early exit.
 */
#ifndef IOWATCHER_TAGGER_H
#define IOWATCHER_TAGGER_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "event.h"

#define TAGGER_DEFAULT_TIMEOUT_S	30.0
/* Events sent but not yet answered, at most; a push beyond waits. */
#define TAGGER_WINDOW			16384
/* A label longer than this (with its NUL) is an error. */
#define TAGGER_MAX_LABEL		4096

/* Responses, the u32 type that starts each one. */
enum tag_response {
	TAG_RESP_END = 0,
	TAG_RESP_NEW_TAG = 1,
	TAG_RESP_TAG_IO = 2,
};

struct tagger;

struct tag_label {
	int32_t id;
	char *label;
};

/*
 * Starts cmd with /bin/sh -c, its stdin and stdout on pipes, its stderr
 * iowatcher's. The command's first word, when it is a bare name, is looked
 * up first among the shipped taggers (see tagger_resolve), then on PATH by
 * the shell; a first word with a slash must name an executable file.
 * timeout_s <= 0 means TAGGER_DEFAULT_TIMEOUT_S.
 */
struct tagger *tagger_start(const char *cmd, double timeout_s,
			    struct iow_error *err);

/*
 * cmd with a bare first word replaced by the (shell-quoted) path of the
 * first executable file of that name in dirs (a NULL-terminated list), or
 * an unchanged copy. tagger_start searches the directory scripts/ beside
 * the running program (/proc/self/exe, so that a build tree uses its own
 * taggers even when another version is installed), then
 * IOWATCHER_LIBEXECDIR. Returns a malloc'd string, NULL with err on error.
 */
char *tagger_resolve(const char *cmd, const char *const *dirs,
		     struct iow_error *err);

/*
 * Hands one event to the tagger: it is copied with its payload, so ev and
 * ev->pdu may change once this returns. May wait for answers when
 * TAGGER_WINDOW events are unanswered. 0 or -1 (err filled).
 */
int tagger_push(struct tagger *t, const struct io_event *ev,
		struct iow_error *err);

/*
 * 1: the oldest pushed event not yet returned has its answer and is in
 * *out, tag set; its pdu stays valid until the next tagger_next or
 * tagger_free. 0: no answer yet (push more, or finish). -1: error.
 * Never blocks. Call it until it returns 0 after each push: answered
 * events wait here until taken.
 */
int tagger_next(struct tagger *t, struct io_event *out,
		struct iow_error *err);

/*
 * No more events: sends what is left, closes the tagger's stdin, waits
 * for every answer and for the tagger to exit (exit status 0 expected).
 * Afterwards tagger_next returns the remaining events. 0 or -1.
 */
int tagger_finish(struct tagger *t, struct iow_error *err);

/* The label of tag, NULL if the tagger never defined it. */
const char *tagger_label(const struct tagger *t, int32_t tag);

/* Tags defined so far, in the order the tagger defined them. */
size_t tagger_n_tags(const struct tagger *t);
const struct tag_label *tagger_tag_at(const struct tagger *t, size_t i);

/*
 * Frees t (NULL is fine). A tagger still running (an error path before
 * tagger_finish) is sent SIGTERM, then SIGKILL if it has not exited
 * shortly after, and reaped.
 */
void tagger_free(struct tagger *t);

#endif
