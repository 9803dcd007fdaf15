/*
 * tag-example.c: an example tagger in C, and a fast one. It tags each I/O
 * by its direction and sync flag ("read", "sync write", ...) or, with -p,
 * by the process that queued it ("pid 1234").
 *
 * The protocol (iowatcher(1), "WRITING A TAGGER"): events arrive on
 * stdin as version-7 records (48 bytes, native byte order) each followed
 * by its payload; for each one we write zero or more responses and an END.
 * Like the taggers in Python, it tags QUEUE and ISSUE events only:
 * iowatcher gives an I/O the tag of its QUEUE event, else of its ISSUE.
 *
 * Speed comes from reading large blocks and answering into a buffer of
 * our own (stdio's fwrite per answer was a third of this program's time)
 * that is written out only before a read that may have to wait: then
 * iowatcher has every answer it can get before we sleep.
 *
 * usage: tag-example [-p]
 */
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "tagger.h"

#define IN_BYTES	(1 << 20)
#define OUT_BYTES	(64 * 1024)

struct input {
	unsigned char buf[IN_BYTES];
	size_t start, len;
};

struct output {
	unsigned char buf[OUT_BYTES];
	size_t len;
};

static struct output out;

struct pid_tag {
	uint32_t pid;
	uint32_t tag;
};

struct tags {
	bool by_pid;
	uint32_t n_defined;
	int32_t class_tag[4];	/* by direction and sync; -1 if not yet */
	void *pid_tags;		/* tsearch tree of struct pid_tag */
};

static void die(const char *what)
{
	fprintf(stderr, "tag-example: %s%s%s\n", what, errno ? ": " : "",
		errno ? strerror(errno) : "");
	exit(1);
}

/* Writes out the answers so far. */
static void flush_answers(void)
{
	size_t done = 0;

	while (done < out.len) {
		ssize_t n = write(1, out.buf + done, out.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("writing answers");
		done += (size_t)n;
	}
	out.len = 0;
}

/* Answers are at most a few dozen bytes: one always fits. */
static void put(const void *p, size_t n)
{
	if (out.len + n > sizeof(out.buf))
		flush_answers();
	memcpy(out.buf + out.len, p, n);
	out.len += n;
}

/* Makes at least need bytes available; false at the end of the input. */
static bool fill(struct input *in, size_t need)
{
	memmove(in->buf, in->buf + in->start, in->len);
	in->start = 0;
	while (in->len < need) {
		ssize_t n;

		/* We may wait now: let iowatcher have our answers first. */
		flush_answers();
		n = read(0, in->buf + in->len, sizeof(in->buf) - in->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("reading events");
		if (n == 0)
			return false;
		in->len += (size_t)n;
	}
	return true;
}

/* The next record (its payload skipped); false at the end of the input. */
static bool read_event(struct input *in, struct blk_io_trace *rec)
{
	if (in->len < sizeof(*rec) && !fill(in, sizeof(*rec))) {
		errno = 0;
		if (in->len)
			die("truncated event at the end of the input");
		return false;
	}
	memcpy(rec, in->buf + in->start, sizeof(*rec));
	errno = 0;
	if ((rec->magic & BLK_IO_TRACE_MAGIC_MASK) != BLK_IO_TRACE_MAGIC)
		die("input is not blktrace records");
	if (in->len < sizeof(*rec) + rec->pdu_len &&
	    !fill(in, sizeof(*rec) + rec->pdu_len))
		die("truncated payload at the end of the input");
	in->start += sizeof(*rec) + rec->pdu_len;
	in->len -= sizeof(*rec) + rec->pdu_len;
	return true;
}

static void write_u32s(const uint32_t *words, size_t n)
{
	put(words, n * sizeof(*words));
}

static void write_new_tag(uint32_t tag, const char *label)
{
	uint32_t head[3] = { TAG_RESP_NEW_TAG, tag, strlen(label) + 1 };

	write_u32s(head, 3);
	put(label, head[2]);
}

static void write_tag_io(uint32_t tag)
{
	uint32_t resp[2] = { TAG_RESP_TAG_IO, tag };

	write_u32s(resp, 2);
}

static void write_end(void)
{
	uint32_t end = TAG_RESP_END;

	write_u32s(&end, 1);
}

static int compare_pids(const void *a, const void *b)
{
	uint32_t x = ((const struct pid_tag *)a)->pid;
	uint32_t y = ((const struct pid_tag *)b)->pid;

	return x < y ? -1 : x > y;
}

/* The tag of the record's process, defined on first use. */
static uint32_t tag_of_pid(struct tags *tags, uint32_t pid)
{
	struct pid_tag key = { pid, 0 }, *entry, **found;
	char label[32];

	found = tfind(&key, &tags->pid_tags, compare_pids);
	if (found)
		return (*found)->tag;
	entry = malloc(sizeof(*entry));
	if (!entry)
		die("out of memory");
	*entry = (struct pid_tag){ pid, tags->n_defined++ };
	if (!tsearch(entry, &tags->pid_tags, compare_pids))
		die("out of memory");
	snprintf(label, sizeof(label), "pid %u", pid);
	write_new_tag(entry->tag, label);
	return entry->tag;
}

/* The tag of the record's direction and sync flag, defined on first use. */
static uint32_t tag_of_class(struct tags *tags, uint32_t action)
{
	static const char *const labels[4] = {
		"read", "sync read", "write", "sync write",
	};
	int sync = (action & BLK_TC_ACT(BLK_TC_SYNC)) != 0;
	int class = blk_is_write(action) * 2 + sync;

	if (tags->class_tag[class] < 0) {
		tags->class_tag[class] = (int32_t)tags->n_defined++;
		write_new_tag((uint32_t)tags->class_tag[class], labels[class]);
	}
	return (uint32_t)tags->class_tag[class];
}

static void answer(struct tags *tags, const struct blk_io_trace *rec)
{
	unsigned code = blk_action_code(rec->action);
	uint32_t tag;

	if (!blk_is_note(rec->action) &&
	    (code == BLK_TA_QUEUE || code == BLK_TA_ISSUE)) {
		tag = tags->by_pid ? tag_of_pid(tags, rec->pid) :
				     tag_of_class(tags, rec->action);
		write_tag_io(tag);
	}
	write_end();
}

int main(int argc, char **argv)
{
	static struct input in;
	struct tags tags = { .class_tag = { -1, -1, -1, -1 } };
	struct blk_io_trace rec;
	int opt;

	while ((opt = getopt(argc, argv, "p")) != -1) {
		if (opt != 'p') {
			fprintf(stderr, "usage: tag-example [-p]\n");
			return 2;
		}
		tags.by_pid = true;
	}
	while (read_event(&in, &rec))
		answer(&tags, &rec);
	flush_answers();
	return 0;
}
