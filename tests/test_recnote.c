/*
 * test_recnote.c: the recording's notes of host, devices and clock,
 * written and read back exactly; a message off their format by a byte is
 * none of them; where the wall clock of a row comes from (the clock
 * snapshot, else the TIMESTAMP note's anchor, else nowhere); which
 * names are a block device's.
 */
#include <string.h>

#include "reader/blktrace.h"
#include "reader/recnote.h"
#include "check.h"

static struct io_event message(const char *text, uint16_t len)
{
	struct io_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE;
	ev.pdu = (const unsigned char *)text;
	ev.pdu_len = len;
	return ev;
}

static int take_text(struct trace_facts *f, const char *text)
{
	struct io_event ev = message(text, (uint16_t)(strlen(text) + 1));

	return recnote_take(f, &ev);
}

static void test_host_device_and_clock_come_back(void)
{
	struct recnote_clock c = { TRACE_CLOCK_MONOTONIC, 954788713879ull,
				   954790000000ull,
				   1795317437781736412ll };
	struct trace_facts f;
	char text[RECNOTE_TEXT_MAX];
	uint16_t len;

	memset(&f, 0, sizeof(f));
	len = recnote_format_host("db-7.example", text);
	CHECK(len == strlen("host db-7.example") + 1);
	CHECK_EQ_INT(recnote_take(&f, &(struct io_event){
		.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_MESSAGE,
		.pdu = (const unsigned char *)text, .pdu_len = len }), 1);
	CHECK(!strcmp(f.host, "db-7.example"));
	len = recnote_format_device(7u << 20 | 1, "loop1", text);
	CHECK(!strcmp(text, "device 7,1 is loop1"));
	CHECK_EQ_INT(take_text(&f, text), 1);
	CHECK(!strcmp(trace_facts_device(&f, 7u << 20 | 1), "loop1"));
	CHECK(trace_facts_device(&f, 8u << 20) == NULL);
	len = recnote_format_clock(&c, text);
	CHECK(!strcmp(text, "clock monotonic at 954788713879 ns: boottime 954790000000 ns, realtime 1795317437781736412 ns"));
	CHECK_EQ_INT(take_text(&f, text), 1);
	CHECK_EQ_INT(f.has_clock, 1);
	CHECK_EQ_INT(f.clock.clock, TRACE_CLOCK_MONOTONIC);
	CHECK_EQ_INT(f.clock.boot_ns, 954790000000ull);
	CHECK_EQ_INT(f.clock.real_ns, 1795317437781736412ll);
}

static void test_other_messages_are_none_of_them(void)
{
	static const char *const off[] = {
		"host ", "host two words", "hosts x", "device 7,1 is",
		"device 7 is loop1", "device 07,1 is loop1",
		"device 7,1 is loop1 ", "clock monotonic at 1 ns",
		"clock tai at 1 ns: boottime 2 ns, realtime 3 ns",
		"clock monotonic at 1 ns: boottime 2 ns, realtime 3 ns.",
		"lost 3 events on cpu 0, from 1 to 2 ns",
	};
	struct trace_facts f;
	struct io_event ev;
	size_t i;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		CHECK_EQ_INT(take_text(&f, off[i]), 0);
	/* not NUL-terminated within its payload */
	ev = message("host abc", 8);
	CHECK_EQ_INT(recnote_take(&f, &ev), 0);
	/* a PROCESS note with the same text */
	ev = message("host abc", 9);
	ev.action = BLK_TC_ACT(BLK_TC_NOTIFY) | BLK_TN_PROCESS;
	CHECK_EQ_INT(recnote_take(&f, &ev), 0);
	CHECK(!f.host[0] && !f.n_devices && !f.has_clock);
	CHECK_EQ_INT(recnote_format_host("two words", (char[RECNOTE_TEXT_MAX]){ 0 }), 0);
	CHECK_EQ_INT(recnote_format_host("", (char[RECNOTE_TEXT_MAX]){ 0 }), 0);
}

static void test_wall_clock_from_snapshot_else_anchor_else_none(void)
{
	struct trace_facts f;
	int64_t wall;

	memset(&f, 0, sizeof(f));
	CHECK_EQ_INT(trace_facts_wall_ns(&f, 5, &wall), 0);
	f.has_origin = 1;
	f.origin_ns = 1000;
	CHECK_EQ_INT(trace_facts_wall_ns(&f, 5, &wall), 0);
	f.has_wall = 1;
	f.wall_at_origin_ns = 2000000000;
	CHECK_EQ_INT(trace_facts_wall_ns(&f, 5, &wall), 1);
	CHECK_EQ_INT(wall, 2000000005);
	/* the snapshot, taken at 1500 on the trace's clock, wins */
	take_text(&f, "clock monotonic at 1500 ns: boottime 9000 ns, realtime 3000000000 ns");
	CHECK_EQ_INT(trace_facts_wall_ns(&f, 5, &wall), 1);
	CHECK_EQ_INT(wall, 3000000000 - 495);
	/* a dump's notes are on another clock: neither snapshot nor anchor */
	f.notes_off_clock = 1;
	f.has_wall = 0;
	CHECK_EQ_INT(trace_facts_clock_usable(&f), 0);
	CHECK_EQ_INT(trace_facts_wall_ns(&f, 5, &wall), 0);
}

static void test_device_names(void)
{
	static const char *const yes[] = { "sda", "sdab1", "vda", "xvdb",
		"nvme0n1", "nvme1n2p3", "mmcblk0p1", "loop0", "dm-3", "md127",
		"nbd0", "sr0", "zram0", "rbd2", "pmem0", "ram0" };
	static const char *const no[] = { "fio-randrw", "dd-write", "sda-x",
		"loop", "nvme0", "centos7-sda", "" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(recnote_is_device_name(yes[i]));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!recnote_is_device_name(no[i]));
}

int main(void)
{
	RUN_TEST(test_host_device_and_clock_come_back);
	RUN_TEST(test_other_messages_are_none_of_them);
	RUN_TEST(test_wall_clock_from_snapshot_else_anchor_else_none);
	RUN_TEST(test_device_names);
	return check_report();
}
