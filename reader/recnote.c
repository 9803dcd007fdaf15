/*
 * recnote.c: the recording's notes of host, devices and clock, written
 * and read back (recnote.h). The parser accepts exactly what the
 * formatters write, so that a message with another meaning is never
 * taken for one of these.
 */
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "blktrace.h"
#include "lossnote.h"
#include "recnote.h"

#define NOTE_ACTION	(BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE)

static const char *const clock_names[] = {
	[TRACE_CLOCK_MONOTONIC] = "monotonic",
	[TRACE_CLOCK_BOOTTIME] = "boottime",
};

/* "monotonic", "boottime", or NULL for a clock the trace does not name. */
static const char *trace_clock_name(enum trace_clock clock)
{
	if ((size_t)clock >= sizeof(clock_names) / sizeof(clock_names[0]))
		return NULL;
	return clock_names[clock];
}

static int name_ok(const char *name, size_t len)
{
	size_t i;

	if (!len || len > RECNOTE_NAME_MAX)
		return 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f)
			return 0;
	return 1;
}

uint16_t recnote_format_host(const char *host, char *text)
{
	if (!name_ok(host, strlen(host)))
		return 0;
	return (uint16_t)(snprintf(text, RECNOTE_TEXT_MAX, "host %s", host) +
			  1);
}

uint16_t recnote_format_device(uint32_t device, const char *name, char *text)
{
	if (!name_ok(name, strlen(name)))
		return 0;
	return (uint16_t)(snprintf(text, RECNOTE_TEXT_MAX, "device %u,%u is %s",
				   blk_dev_major(device),
				   blk_dev_minor(device), name) + 1);
}

uint16_t recnote_format_clock(const struct recnote_clock *c, char *text)
{
	const char *name = trace_clock_name(c->clock);

	if (!name || c->real_ns < 0)
		return 0;
	return (uint16_t)(snprintf(text, RECNOTE_TEXT_MAX,
				   "clock %s at %llu ns: boottime %llu ns, realtime %llu ns",
				   name, (unsigned long long)c->trace_ns,
				   (unsigned long long)c->boot_ns,
				   (unsigned long long)c->real_ns) + 1);
}

static uint64_t read_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void recnote_clock_now(enum trace_clock clock, struct recnote_clock *c)
{
	clockid_t id = clock == TRACE_CLOCK_BOOTTIME ? CLOCK_BOOTTIME :
						       CLOCK_MONOTONIC;

	/* the trace's clock between the other two: each off by the time
	 * of one read at most */
	c->clock = clock;
	c->boot_ns = read_clock(CLOCK_BOOTTIME);
	c->trace_ns = read_clock(id);
	c->real_ns = (int64_t)read_clock(CLOCK_REALTIME);
}

/* ---- reading ---- */

/* The rest of the text as a name, into out. */
static int read_name(const char *p, const char *end, char *out)
{
	size_t len = (size_t)(end - p);

	if (!name_ok(p, len))
		return -1;
	memcpy(out, p, len);
	out[len] = '\0';
	return 0;
}

static int take_device(struct trace_facts *f, const char *p, const char *end)
{
	char name[RECNOTE_NAME_MAX + 1];
	uint64_t major, minor;
	uint32_t device;
	size_t i;

	if (note_read_number(&p, end, &major) || major > 0xfff ||
	    note_read_word(&p, end, ",") || note_read_number(&p, end, &minor) ||
	    minor > 0xfffff || note_read_word(&p, end, " is ") ||
	    read_name(p, end, name))
		return 0;
	device = (uint32_t)(major << 20 | minor);
	for (i = 0; i < f->n_devices && f->devices[i].device != device; i++)
		;
	if (i == RECNOTE_DEVICES_MAX)
		return 1;	/* more than a recorder traces: the first kept */
	if (i == f->n_devices)
		f->n_devices++;
	f->devices[i].device = device;
	memcpy(f->devices[i].name, name, sizeof(name));
	return 1;
}

static int take_clock(struct trace_facts *f, const char *p, const char *end)
{
	struct recnote_clock c = { TRACE_CLOCK_UNKNOWN, 0, 0, 0 };
	uint64_t real;
	size_t i;

	for (i = 1; i < sizeof(clock_names) / sizeof(clock_names[0]); i++)
		if (note_read_word(&p, end, clock_names[i]) == 0) {
			c.clock = (enum trace_clock)i;
			break;
		}
	if (c.clock == TRACE_CLOCK_UNKNOWN || note_read_word(&p, end, " at ") ||
	    note_read_number(&p, end, &c.trace_ns) ||
	    note_read_word(&p, end, " ns: boottime ") ||
	    note_read_number(&p, end, &c.boot_ns) ||
	    note_read_word(&p, end, " ns, realtime ") ||
	    note_read_number(&p, end, &real) || real > INT64_MAX ||
	    note_read_word(&p, end, " ns") || p != end)
		return 0;
	c.real_ns = (int64_t)real;
	f->clock = c;
	f->has_clock = 1;
	return 1;
}

int recnote_take(struct trace_facts *facts, const struct io_event *ev)
{
	const char *p = (const char *)ev->pdu, *end;
	size_t len = ev->pdu_len;

	if ((ev->action & ~BLK_TA_CGROUP) != NOTE_ACTION || !p)
		return 0;
	if (ev->action & BLK_TA_CGROUP) {
		if (len < 8)
			return 0;
		p += 8;
		len -= 8;
	}
	end = memchr(p, '\0', len);
	if (!end)
		return 0;
	if (note_read_word(&p, end, "host ") == 0)
		return read_name(p, end, facts->host) == 0;
	if (note_read_word(&p, end, "device ") == 0)
		return take_device(facts, p, end);
	if (note_read_word(&p, end, "clock ") == 0)
		return take_clock(facts, p, end);
	return 0;
}

int recnote_is_device_name(const char *name)
{
	static const char pattern[] =
		"^((sd|vd|xvd|hd)[a-z]+[0-9]*|nvme[0-9]+n[0-9]+(p[0-9]+)?|"
		"mmcblk[0-9]+(p[0-9]+)?|(loop|md|nbd|sr|zram|rbd|pmem|ram)[0-9]+|"
		"dm-[0-9]+)$";
	regex_t re;
	int match;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return 0;
	match = regexec(&re, name, 0, NULL, 0) == 0;
	regfree(&re);
	return match;
}

const char *trace_facts_device(const struct trace_facts *facts,
			       uint32_t device)
{
	size_t i;

	for (i = 0; i < facts->n_devices; i++)
		if (facts->devices[i].device == device)
			return facts->devices[i].name;
	return NULL;
}

/*
 * The clock snapshot is on the events' clock unless the trace's notes are
 * not (the feed saw its TIMESTAMP note stamped after time 0): a blkparse
 * -d dump counts its events from its first record, the notes included,
 * and keeps the snapshot's text. A dump of this program's BPF recording
 * of 28 Nov (tests/data/compare/alone) had its wall_time the recording
 * machine's uptime early (20 min 50 s) from the snapshot.
 */
int trace_facts_clock_usable(const struct trace_facts *facts)
{
	return facts->has_clock && facts->has_origin &&
	       !facts->notes_off_clock;
}

int trace_facts_wall_ns(const struct trace_facts *facts, uint64_t time_ns,
			int64_t *wall_ns)
{
	if (!facts->has_origin)
		return 0;
	if (trace_facts_clock_usable(facts)) {
		/* signed: the snapshot may come after the event */
		int64_t since = (int64_t)(facts->origin_ns + time_ns -
					  facts->clock.trace_ns);

		*wall_ns = facts->clock.real_ns + since;
		return 1;
	}
	if (!facts->has_wall)
		return 0;
	*wall_ns = facts->wall_at_origin_ns + (int64_t)time_ns;
	return 1;
}
