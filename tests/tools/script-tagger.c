/*
 * script-tagger.c: a tagger that does what its arguments say, to test how
 * the host copes with taggers that behave and with taggers that don't.
 * The words are run in order:
 *
 *	read		read one event (exit 0 at the end of the input)
 *	end		write END
 *	tag N		write TAG_IO N
 *	new N LABEL	write NEW_TAG N with LABEL and its NUL
 *	raw-new N LEN	write NEW_TAG N, LEN, then LEN bytes 'x' (no NUL)
 *	type N		write the u32 N
 *	echo		define tag 1000000 + the last event's sequence,
 *			labelled with all its fields, and tag it with that
 *	drain		read until the end of the input
 *	sleep S		sleep S seconds
 *	exit N		exit with status N
 *	loop		start again from the first word
 *
 * e.g. "read end loop" answers every event with a bare END. Answers are
 * flushed before each read and at exit; native byte order throughout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "tagger.h"

struct last_event {
	struct blk_io_trace rec;
	unsigned char pdu[65536];
};

static void put_u32(uint32_t v)
{
	fwrite(&v, sizeof(v), 1, stdout);
}

static void finish(int status)
{
	fflush(stdout);
	exit(status);
}

static int read_event(struct last_event *ev)
{
	fflush(stdout);
	if (fread(&ev->rec, sizeof(ev->rec), 1, stdin) != 1)
		return 0;
	if (ev->rec.pdu_len &&
	    fread(ev->pdu, ev->rec.pdu_len, 1, stdin) != 1)
		return 0;
	return 1;
}

static void echo_event(const struct last_event *ev)
{
	const struct blk_io_trace *r = &ev->rec;
	char label[256];
	int n, i;

	n = snprintf(label, sizeof(label),
		     "%#x %u %llu %llu %u %#x %u %#x %u %u %u:", r->magic,
		     r->sequence, (unsigned long long)r->time,
		     (unsigned long long)r->sector, r->bytes, r->action,
		     r->pid, r->device, r->cpu, r->error, r->pdu_len);
	for (i = 0; i < r->pdu_len && n < (int)sizeof(label) - 3; i++)
		n += snprintf(label + n, sizeof(label) - n, "%02x",
			      ev->pdu[i]);
	put_u32(TAG_RESP_NEW_TAG);
	put_u32(1000000 + r->sequence);
	put_u32(strlen(label) + 1);
	fwrite(label, 1, strlen(label) + 1, stdout);
	put_u32(TAG_RESP_TAG_IO);
	put_u32(1000000 + r->sequence);
}

static const char *word_at(int argc, char **argv, int i)
{
	if (i >= argc) {
		fprintf(stderr, "script-tagger: %s needs an argument\n",
			argv[i - 1]);
		finish(2);
	}
	return argv[i];
}

int main(int argc, char **argv)
{
	static struct last_event ev;
	int i;

	for (i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "read")) {
			if (!read_event(&ev))
				finish(0);
		} else if (!strcmp(w, "end")) {
			put_u32(TAG_RESP_END);
		} else if (!strcmp(w, "tag")) {
			put_u32(TAG_RESP_TAG_IO);
			put_u32(atol(word_at(argc, argv, ++i)));
		} else if (!strcmp(w, "new")) {
			const char *label;

			put_u32(TAG_RESP_NEW_TAG);
			put_u32(atol(word_at(argc, argv, ++i)));
			label = word_at(argc, argv, ++i);
			put_u32(strlen(label) + 1);
			fwrite(label, 1, strlen(label) + 1, stdout);
		} else if (!strcmp(w, "raw-new")) {
			long len;

			put_u32(TAG_RESP_NEW_TAG);
			put_u32(atol(word_at(argc, argv, ++i)));
			len = atol(word_at(argc, argv, ++i));
			put_u32(len);
			while (len-- > 0)
				putchar('x');
		} else if (!strcmp(w, "type")) {
			put_u32(atol(word_at(argc, argv, ++i)));
		} else if (!strcmp(w, "echo")) {
			echo_event(&ev);
		} else if (!strcmp(w, "drain")) {
			while (read_event(&ev))
				;
		} else if (!strcmp(w, "sleep")) {
			fflush(stdout);
			sleep(atoi(word_at(argc, argv, ++i)));
		} else if (!strcmp(w, "exit")) {
			finish(atoi(word_at(argc, argv, ++i)));
		} else if (!strcmp(w, "loop")) {
			i = 0;
		} else {
			fprintf(stderr, "script-tagger: unknown word %s\n", w);
			finish(2);
		}
	}
	finish(0);
	return 0;
}
