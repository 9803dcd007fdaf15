/*
 * gen-stream.c: writes a synthetic dump (version-7 records back to back,
 * native byte order) to stdout, for tests and for timing the tagger stage
 * on millions of events.
 *
 * First a PROCESS note naming each process "proc<i>" (pid 1000 + i), then
 * for I/O k: QUEUE, GETRQ, INSERT, ISSUE by pid 1000 + k % PIDS at sector
 * 8 k, of 4096 * (1 + k % 4) bytes, a write unless k % 3 == 0, sync when
 * k is odd; the COMPLETE of I/O k comes after the ISSUE of I/O k + 4 (so
 * four are in flight), or at the end. Five events per I/O.
 *
 * usage: gen-stream IOS [PIDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/blktrace.h"

#define IN_FLIGHT	4

struct stream {
	unsigned long long time;
	unsigned sequence;
};

static void put(struct stream *s, unsigned action, unsigned pid,
		unsigned long long sector, unsigned bytes,
		const void *pdu, unsigned pdu_len)
{
	struct blk_io_trace rec = {
		.magic = BLK_IO_TRACE_MAGIC | BLK_IO_TRACE_VERSION7,
		.sequence = s->sequence++,
		.time = s->time,
		.sector = sector,
		.bytes = bytes,
		.action = action,
		.pid = pid,
		.device = 8 << 20,
		.pdu_len = pdu_len,
	};

	s->time += 1000;
	fwrite(&rec, sizeof(rec), 1, stdout);
	if (pdu_len)
		fwrite(pdu, pdu_len, 1, stdout);
}

static unsigned categories(unsigned long k)
{
	unsigned c = k % 3 ? BLK_TC_WRITE : BLK_TC_READ;

	return k % 2 ? c | BLK_TC_SYNC : c;
}

static void put_io_start(struct stream *s, unsigned long k, unsigned pids)
{
	static const unsigned codes[] = {
		BLK_TA_QUEUE, BLK_TA_GETRQ, BLK_TA_INSERT, BLK_TA_ISSUE,
	};
	static const unsigned stage[] = {
		BLK_TC_QUEUE, BLK_TC_QUEUE, BLK_TC_QUEUE, BLK_TC_ISSUE,
	};
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		put(s, codes[i] | BLK_TC_ACT(categories(k) | stage[i]),
		    1000 + k % pids, 8ULL * k, 4096 * (1 + k % 4), NULL, 0);
}

static void put_io_complete(struct stream *s, unsigned long k)
{
	put(s, BLK_TA_COMPLETE | BLK_TC_ACT(categories(k) | BLK_TC_COMPLETE),
	    0, 8ULL * k, 4096 * (1 + k % 4), NULL, 0);
}

int main(int argc, char **argv)
{
	struct stream s = { 0, 0 };
	unsigned long ios, k;
	unsigned pids, i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: gen-stream IOS [PIDS]\n");
		return 2;
	}
	ios = strtoul(argv[1], NULL, 0);
	pids = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 4;
	if (!pids)
		pids = 1;
	for (i = 0; i < pids; i++) {
		char comm[16] = "";

		snprintf(comm, sizeof(comm), "proc%u", i);
		put(&s, BLK_TN_PROCESS | BLK_TC_ACT(BLK_TC_NOTIFY), 1000 + i,
		    0, 0, comm, sizeof(comm));
	}
	for (k = 0; k < ios; k++) {
		put_io_start(&s, k, pids);
		if (k >= IN_FLIGHT)
			put_io_complete(&s, k - IN_FLIGHT);
	}
	for (k = ios > IN_FLIGHT ? ios - IN_FLIGHT : 0; k < ios; k++)
		put_io_complete(&s, k);
	return fflush(stdout) ? 1 : 0;
}
