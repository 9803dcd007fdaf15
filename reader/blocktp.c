/*
 * blocktp.c: the block tracepoints as blktrace records (blocktp.h): the
 * action and categories of kernel/trace/blktrace.c for each tracepoint,
 * as bpf/blkrec.bpf.c writes them too, so that the same I/O read from
 * perf's text, trace-cmd's trace.dat, blktrace or iowatcher's own
 * recorders comes to the same statistics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktrace.h"
#include "blocktp.h"
#include "lossnote.h"

#define COMM_LEN	16	/* the kernel's TASK_COMM_LEN */
#define CPU_LIMIT	BLOCKTP_CPU_LIMIT

#define TC(c)	BLK_TC_ACT(BLK_TC_##c)

static const struct blocktp_event block_events[] = {
	{ "block_bio_queue", BLOCKTP_BIO, BLK_TA_QUEUE | TC(QUEUE) },
	{ "block_getrq", BLOCKTP_BIO, BLK_TA_GETRQ | TC(QUEUE) },
	{ "block_bio_backmerge", BLOCKTP_BIO, BLK_TA_BACKMERGE | TC(QUEUE) },
	{ "block_bio_frontmerge", BLOCKTP_BIO, BLK_TA_FRONTMERGE | TC(QUEUE) },
	{ "block_bio_complete", BLOCKTP_BIO_DONE,
	  BLK_TA_COMPLETE | TC(COMPLETE) },
	{ "block_rq_insert", BLOCKTP_RQ, BLK_TA_INSERT | TC(QUEUE) },
	{ "block_rq_issue", BLOCKTP_RQ, BLK_TA_ISSUE | TC(ISSUE) },
	/* a request merged into another: blktrace files it as a back merge */
	{ "block_rq_merge", BLOCKTP_RQ, BLK_TA_BACKMERGE | TC(QUEUE) },
	{ "block_rq_complete", BLOCKTP_RQ_DONE,
	  BLK_TA_COMPLETE | TC(COMPLETE) },
	{ "block_rq_requeue", BLOCKTP_RQ_DONE,
	  BLK_TA_REQUEUE | TC(REQUEUE) },
	{ "block_split", BLOCKTP_SPLIT, BLK_TA_SPLIT },
	{ "block_bio_remap", BLOCKTP_REMAP, BLK_TA_REMAP | TC(QUEUE) },
	{ "block_rq_remap", BLOCKTP_REMAP, BLK_TA_REMAP | TC(QUEUE) },
	/* no device in their fields (plug, unplug), or no I/O of the block
	 * layer's (the accounting's start and end, buffer heads, the
	 * error a completion also reports, bounce buffers, zone plugs) */
	{ "block_plug", BLOCKTP_SKIP, 0 },
	{ "block_unplug", BLOCKTP_SKIP, 0 },
	{ "block_io_start", BLOCKTP_SKIP, 0 },
	{ "block_io_done", BLOCKTP_SKIP, 0 },
	{ "block_dirty_buffer", BLOCKTP_SKIP, 0 },
	{ "block_touch_buffer", BLOCKTP_SKIP, 0 },
	{ "block_rq_error", BLOCKTP_SKIP, 0 },
	{ "block_bio_bounce", BLOCKTP_SKIP, 0 },
	{ "blk_zone_append_update_request_bio", BLOCKTP_SKIP, 0 },
	{ "blk_zone_wplug_bio", BLOCKTP_SKIP, 0 },
	{ "blkdev_zone_mgmt", BLOCKTP_SKIP, 0 },
	{ "disk_zone_wplug_add_bio", BLOCKTP_SKIP, 0 },
};

const struct blocktp_event *blocktp_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(block_events) / sizeof(block_events[0]); i++)
		if (len == strlen(block_events[i].name) &&
		    !strncmp(name, block_events[i].name, len))
			return &block_events[i];
	return NULL;
}

int blocktp_rwbs(const char **s, uint32_t *what)
{
	const char *p;
	int preflush = 0;

	while (**s == ' ')
		(*s)++;
	p = *s;
	if (p[0] == 'F' && p[1] && strchr("WRDFN", p[1]))
		preflush = 1, p++;
	switch (*p) {
	case 'W':
	case 'N':	/* write zeroes and the like: the write direction */
		*what = TC(WRITE);
		break;
	case 'R':
		*what = TC(READ);
		break;
	case 'D':	/* discard, secure erase */
		*what = TC(WRITE) | TC(DISCARD);
		if (p[1] == 'E')
			p++;
		break;
	case 'F':	/* a flush request of its own */
		*what = TC(READ) | TC(FLUSH);
		break;
	default:
		return -1;
	}
	for (p++; *p && *p != ' '; p++) {
		switch (*p) {
		case 'F':
			*what |= TC(FUA);
			break;
		case 'A':
			*what |= TC(AHEAD);
			break;
		case 'S':
			*what |= TC(SYNC);
			break;
		case 'M':
			*what |= TC(META);
			break;
		case 'U':	/* atomic: no category */
			break;
		default:
			return -1;
		}
	}
	if (preflush)
		*what |= TC(FLUSH);
	*s = p;
	return 0;
}

static int emit(struct blocktp_out *o, uint64_t time_ns, uint64_t sector,
		uint32_t bytes, uint32_t action, uint32_t pid, uint32_t dev,
		uint32_t cpu, uint16_t error, const void *pdu, uint16_t pdu_len)
{
	struct blk_io_trace r = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
		.sequence = ++o->sequence,
		.time = time_ns,
		.sector = sector,
		.bytes = bytes,
		.action = action,
		.pid = pid,
		.device = dev,
		.cpu = cpu,
		.error = error,
		.pdu_len = pdu_len,
	};

	if (bytebuf_append(&o->out, &r, sizeof(r)) ||
	    (pdu_len && bytebuf_append(&o->out, pdu, pdu_len)))
		return -1;
	return 0;
}

/* A PROCESS note where (pid, device)'s name is new, as blktrace notes a
 * task the first time it traces it. */
static int note_comm(struct blocktp_out *o, const struct blocktp_task *task,
		     uint32_t dev)
{
	char comm[COMM_LEN];
	uint64_t key = (uint64_t)task->pid << 32 | dev;
	uint32_t seen, hash = 2166136261u;
	size_t n = task->comm_len < COMM_LEN - 1 ? task->comm_len :
		   COMM_LEN - 1;
	size_t i;

	for (i = 0; i < n; i++)
		hash = (hash ^ (unsigned char)task->comm[i]) * 16777619u;
	hash |= 1;
	if (u64map_get(&o->comms, key, &seen) && seen == hash)
		return 0;
	if (u64map_put(&o->comms, key, hash))
		return -1;
	memset(comm, 0, sizeof(comm));
	memcpy(comm, task->comm, n);
	return emit(o, task->time_ns, 0, 0, TC(NOTIFY) | BLK_TN_PROCESS,
		    task->pid, dev, task->cpu, 0, comm, (uint16_t)(n + 1));
}

static int see_device(struct blocktp_out *o, uint32_t dev)
{
	uint32_t *d;
	size_t i;

	for (i = 0; i < o->n_devices; i++)
		if (o->devices[i] == dev)
			return 0;
	d = realloc(o->devices, (o->n_devices + 1) * sizeof(*d));
	if (!d)
		return -1;
	o->devices = d;
	d[o->n_devices++] = dev;
	return 0;
}

int blocktp_see_cpu(struct blocktp_out *o, uint32_t cpu, uint64_t time_ns)
{
	if (cpu >= o->n_cpus) {
		size_t n = (size_t)cpu + 1;
		uint64_t *c = cpu >= CPU_LIMIT ? NULL :
			      realloc(o->cpu_last_ns, n * sizeof(*c));

		if (!c)
			return -1;
		memset(c + o->n_cpus, 0, (n - o->n_cpus) * sizeof(*c));
		o->cpu_last_ns = c;
		o->n_cpus = n;
	}
	o->cpu_last_ns[cpu] = time_ns;
	return 0;
}

int blocktp_emit(struct blocktp_out *o, const struct blocktp_event *be,
		 const struct blocktp_fields *f,
		 const struct blocktp_task *task)
{
	unsigned char pdu[BLK_REMAP_PDU_SIZE];
	uint16_t pdu_len = 0;
	uint32_t bytes, action;

	if (blocktp_see_cpu(o, task->cpu, task->time_ns) < 0)
		return -1;
	o->block_events++;
	if (be->shape == BLOCKTP_SKIP)
		return 0;
	bytes = (uint32_t)(f->has_bytes ? f->bytes : f->nr_sector << 9);
	action = be->action | f->what;
	if (be->shape == BLOCKTP_RQ || be->shape == BLOCKTP_RQ_DONE)
		action |= f->passthrough ? TC(PC) : TC(FS);
	if (be->shape == BLOCKTP_SPLIT) {
		uint64_t be64 = __builtin_bswap64(f->rest_sector);

		memcpy(pdu, &be64, 8);
		pdu_len = 8;
		bytes = 0;
	} else if (be->shape == BLOCKTP_REMAP) {
		uint32_t from = __builtin_bswap32(f->from_dev);
		uint32_t to = __builtin_bswap32(f->dev);
		uint64_t sector = __builtin_bswap64(f->from_sector);

		memcpy(pdu, &from, 4);
		memcpy(pdu + 4, &to, 4);
		memcpy(pdu + 8, &sector, 8);
		pdu_len = BLK_REMAP_PDU_SIZE;
	}
	if (see_device(o, f->dev) < 0 || note_comm(o, task, f->dev) < 0)
		return -1;
	return emit(o, task->time_ns, f->sector, bytes, action, task->pid,
		    f->dev, task->cpu, f->error, pdu, pdu_len);
}

int blocktp_lost(struct blocktp_out *o, uint32_t cpu, uint64_t time_ns,
		 uint64_t count, int count_known)
{
	struct lossnote n = {
		.count = count_known ? count : 0,
		.count_known = count_known,
		.cpu = cpu,
		.t0_ns = cpu < o->n_cpus ? o->cpu_last_ns[cpu] : 0,
		.t1_ns = time_ns,
	};
	char text[LOSSNOTE_TEXT_MAX];
	uint16_t len = lossnote_format(&n, text);
	size_t i;

	for (i = 0; i < o->n_devices; i++) {
		struct blk_io_trace r;

		lossnote_header(&n, o->devices[i], len, &r);
		r.sequence = ++o->sequence;
		if (bytebuf_append(&o->out, &r, sizeof(r)) ||
		    bytebuf_append(&o->out, text, len))
			return -1;
	}
	return 0;
}

int blocktp_duplicates(struct blocktp_out *o, uint64_t time_ns,
		       uint64_t count)
{
	struct lossnote n = { .t1_ns = time_ns };
	struct blk_io_trace r;
	char text[80];
	int len = snprintf(text, sizeof(text), BLOCKTP_DUP_LEAD "%llu"
			   BLOCKTP_DUP_TAIL, (unsigned long long)count);

	if (!o->n_devices || !count)
		return 0;
	lossnote_header(&n, o->devices[0], (uint16_t)(len + 1), &r);
	r.sequence = ++o->sequence;
	return bytebuf_append(&o->out, &r, sizeof(r)) ||
	       bytebuf_append(&o->out, text, (size_t)len + 1) ? -1 : 0;
}

size_t blocktp_pending(const struct blocktp_out *o)
{
	return o->out.len - o->out_start;
}

size_t blocktp_take(struct blocktp_out *o, unsigned char *buf, size_t len)
{
	size_t n = blocktp_pending(o);

	if (n > len)
		n = len;
	if (!n)
		return 0;
	memcpy(buf, o->out.data + o->out_start, n);
	o->out_start += n;
	if (o->out_start == o->out.len)
		o->out.len = o->out_start = 0;
	return n;
}

void blocktp_out_free(struct blocktp_out *o)
{
	bytebuf_free(&o->out);
	u64map_free(&o->comms);
	free(o->cpu_last_ns);
	free(o->devices);
	memset(o, 0, sizeof(*o));
}
