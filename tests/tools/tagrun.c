/*
 * tagrun.c: runs a tagger over a dump and counts completed I/O per tag, to
 * test the tagger stage end to end without the rest of iowatcher.
 *
 * The dump is version-7 records back to back in native byte order, as
 * `blkparse -d` writes them; times are passed on as they are. Each event
 * goes through the tagger (tagger.h), then an I/O gets the tag of its
 * QUEUE event, else of its ISSUE event, and its COMPLETE counts for that
 * tag. I/Os are matched by device and sector; a back merge's bio is
 * dropped (its request completes for it), a front merge's request moves
 * to the bio's sector and keeps its tag.
 *
 * Prints "label<TAB>ios<TAB>bytes" for each tag with completions, in the
 * order the tagger defined them, then "untagged<TAB>ios<TAB>bytes".
 * Without a tagger command every I/O is untagged: that run times reading
 * and matching alone. -v adds "N events in S s, R events/s" on stderr.
 *
 * usage: tagrun [-v] [-t TIMEOUT_S] DUMP [TAGGER-COMMAND]
 */
#include <fcntl.h>
#include <inttypes.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reader/blktrace.h"
#include "base/error.h"
#include "event.h"
#include "tagger.h"

struct dump {
	const unsigned char *data;
	size_t size, offset;
	uint64_t index;
};

/* An I/O on its way: queued or issued, not yet completed. */
struct pending_io {
	uint32_t device;
	uint64_t sector;
	int32_t tag;
};

struct tag_count {
	int32_t tag;
	uint64_t ios, bytes;
};

struct counts {
	void *pending;		/* tsearch tree of struct pending_io */
	void *per_tag;		/* tsearch tree of struct tag_count */
	uint64_t events;
};

static int compare_ios(const void *a, const void *b)
{
	const struct pending_io *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->sector < y->sector ? -1 : x->sector > y->sector;
}

static int compare_tags(const void *a, const void *b)
{
	const struct tag_count *x = a, *y = b;

	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "tagrun: out of memory\n");
		exit(1);
	}
	return p;
}

static struct pending_io *find_io(struct counts *c, uint32_t dev,
				  uint64_t sector)
{
	struct pending_io key = { dev, sector, 0 }, **found;

	found = tfind(&key, &c->pending, compare_ios);
	return found ? *found : NULL;
}

static struct pending_io *add_io(struct counts *c, uint32_t dev,
				 uint64_t sector, int32_t tag)
{
	struct pending_io *io = must(malloc(sizeof(*io)));

	*io = (struct pending_io){ dev, sector, tag };
	return *(struct pending_io **)must(tsearch(io, &c->pending,
						   compare_ios));
}

static void drop_io(struct counts *c, struct pending_io *io)
{
	tdelete(io, &c->pending, compare_ios);
	free(io);
}

static void count_completion(struct counts *c, int32_t tag, uint32_t bytes)
{
	struct tag_count key = { tag, 0, 0 }, *entry, **found;

	found = tfind(&key, &c->per_tag, compare_tags);
	if (!found) {
		entry = must(calloc(1, sizeof(*entry)));
		entry->tag = tag;
		found = must(tsearch(entry, &c->per_tag, compare_tags));
	}
	(*found)->ios++;
	(*found)->bytes += bytes;
}

static void account(struct counts *c, const struct io_event *ev)
{
	struct pending_io *io, *request;

	c->events++;
	if (blk_is_note(ev->action))
		return;
	io = find_io(c, ev->device, ev->sector);
	switch (blk_action_code(ev->action)) {
	case BLK_TA_QUEUE:
		if (io)
			io->tag = ev->tag;
		else
			add_io(c, ev->device, ev->sector, ev->tag);
		break;
	case BLK_TA_BACKMERGE:
		if (io)
			drop_io(c, io);
		break;
	case BLK_TA_FRONTMERGE:
		request = find_io(c, ev->device, ev->sector + ev->bytes / 512);
		if (!request)
			break;
		if (io)
			io->tag = request->tag;
		else
			add_io(c, ev->device, ev->sector, request->tag);
		drop_io(c, request);
		break;
	case BLK_TA_ISSUE:
		if (!io)
			add_io(c, ev->device, ev->sector, ev->tag);
		else if (io->tag == IO_EVENT_NO_TAG)
			io->tag = ev->tag;
		break;
	case BLK_TA_COMPLETE:
		count_completion(c, io ? io->tag : IO_EVENT_NO_TAG, ev->bytes);
		if (io)
			drop_io(c, io);
		break;
	}
}

/* The next record as an event; 1, 0 at the end, -1 on a bad record. */
static int next_event(struct dump *d, struct io_event *ev)
{
	struct blk_io_trace rec;

	if (d->offset == d->size)
		return 0;
	if (d->size - d->offset < sizeof(rec))
		return -1;
	memcpy(&rec, d->data + d->offset, sizeof(rec));
	if (rec.magic != (BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7) ||
	    d->size - d->offset - sizeof(rec) < rec.pdu_len)
		return -1;
	*ev = (struct io_event){
		.time_ns = rec.time, .sector = rec.sector,
		.sequence = rec.sequence, .bytes = rec.bytes,
		.action = rec.action, .pid = rec.pid, .device = rec.device,
		.cpu = rec.cpu, .error = rec.error, .pdu_len = rec.pdu_len,
		.pdu = d->data + d->offset + sizeof(rec),
		.index = d->index++,
		.tag = IO_EVENT_NO_TAG,
	};
	d->offset += sizeof(rec) + rec.pdu_len;
	return 1;
}

static int take_answers(struct tagger *t, struct counts *c,
			struct iow_error *err)
{
	struct io_event ev;
	int r;

	while ((r = tagger_next(t, &ev, err)) == 1)
		account(c, &ev);
	return r;
}

static int run_tagger(struct dump *d, const char *cmd, double timeout_s,
		      struct counts *c, struct tagger **tp,
		      struct iow_error *err)
{
	struct io_event ev;
	int r;

	*tp = tagger_start(cmd, timeout_s, err);
	if (!*tp)
		return -1;
	while ((r = next_event(d, &ev)) == 1) {
		if (tagger_push(*tp, &ev, err) || take_answers(*tp, c, err))
			return -1;
	}
	if (r < 0)
		return iow_fail(err, "bad record at byte %zu", d->offset);
	if (tagger_finish(*tp, err))
		return -1;
	return take_answers(*tp, c, err);
}

static int run_untagged(struct dump *d, struct counts *c,
			struct iow_error *err)
{
	struct io_event ev;
	int r;

	while ((r = next_event(d, &ev)) == 1)
		account(c, &ev);
	if (r < 0)
		return iow_fail(err, "bad record at byte %zu", d->offset);
	return 0;
}

static void print_count(struct counts *c, int32_t tag, const char *label)
{
	struct tag_count key = { tag, 0, 0 }, **found;

	found = tfind(&key, &c->per_tag, compare_tags);
	if (found && (*found)->ios)
		printf("%s\t%" PRIu64 "\t%" PRIu64 "\n", label,
		       (*found)->ios, (*found)->bytes);
	else if (tag == IO_EVENT_NO_TAG)
		printf("%s\t0\t0\n", label);
}

static void print_counts(struct counts *c, const struct tagger *t)
{
	size_t i;

	for (i = 0; t && i < tagger_n_tags(t); i++) {
		const struct tag_label *tl = tagger_tag_at(t, i);

		print_count(c, tl->id, tl->label);
	}
	print_count(c, IO_EVENT_NO_TAG, "untagged");
}

static int map_dump(const char *path, struct dump *d)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return -1;
	}
	d->size = (size_t)st.st_size;
	d->data = d->size ? mmap(NULL, d->size, PROT_READ, MAP_PRIVATE, fd, 0)
			  : NULL;
	close(fd);
	if (d->data == MAP_FAILED) {
		perror(path);
		return -1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tagrun [-v] [-t TIMEOUT_S] DUMP "
		"[TAGGER-COMMAND]\n");
	return 2;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct dump d = { 0 };
	struct counts c = { 0 };
	struct tagger *t = NULL;
	struct iow_error err = { "" };
	double timeout_s = 0, start;
	bool verbose = false;
	int opt, r;

	while ((opt = getopt(argc, argv, "vt:")) != -1) {
		if (opt == 'v') {
			verbose = true;
		} else if (opt == 't') {
			timeout_s = atof(optarg);
		} else {
			return usage();
		}
	}
	if (optind >= argc || argc - optind > 2)
		return usage();
	if (map_dump(argv[optind], &d))
		return 1;
	start = seconds();
	if (optind + 1 < argc)
		r = run_tagger(&d, argv[optind + 1], timeout_s, &c, &t, &err);
	else
		r = run_untagged(&d, &c, &err);
	if (r) {
		fprintf(stderr, "tagrun: %s: %s\n", argv[optind], err.msg);
		tagger_free(t);
		return 1;
	}
	if (verbose) {
		double elapsed = seconds() - start;

		fprintf(stderr, "%" PRIu64 " events in %.3f s, %.0f events/s\n",
			c.events, elapsed, c.events / elapsed);
	}
	print_counts(&c, t);
	tagger_free(t);
	tdestroy(c.pending, free);
	tdestroy(c.per_tag, free);
	return 0;
}
