/*
 * test_sniff.c: what data that is not a trace is taken for, from the
 * first bytes of real files of each kind (the samples' own where there
 * are some) and of made ones.
 */
#include <stdlib.h>

#include "check.h"
#include "reader/sniff.h"

static const char *what_of(const void *p, size_t len)
{
	const struct sniffed *s = sniff(p, len);

	return s ? s->what : "(nothing)";
}

static int looks_like(const void *p, size_t len, const char *want)
{
	const char *got = what_of(p, len);

	if (!strcmp(got, want))
		return 1;
	printf("  \"%.30s...\": %s, expected %s\n", (const char *)p, got,
	       want);
	return 0;
}

#define LOOKS(str, want) CHECK(looks_like(str, sizeof(str) - 1, want))

/* A file of the checkout's start, or NULL. */
static unsigned char *start_of(const char *path, size_t *len)
{
	static unsigned char buf[4096];
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	*len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return buf;
}

static void test_blkparse_text_is_told_apart(void)
{
	LOOKS("  8,0    1        1     0.000000000  1234  Q   W 123 + 8 [dd]\n",
	      "blkparse's text output");
	LOOKS("  7,0    1        1     0.000000000 25895  Q RAM 518 + 2 [x]\n",
	      "blkparse's text output");
	LOOKS("259,0    0       17     1.234567890     0  C   R 0 + 8 [0]",
	      "blkparse's text output");
	/* blkparse -i X > file: its "Input file" lines first */
	LOOKS("Input file sda.blktrace.0 added\nInput file sda.blktrace.1 added\n"
	      "  8,0    1        1     0.000000000  1234  Q   W 123 + 8 [dd]\n",
	      "blkparse's text output");
	LOOKS("  8,0  is not a line of blkparse's\n", "text");
	CHECK(sniff_blkparse_text((const unsigned char *)
				  "  8,0  1  1  0.000000001  1  D  W", 33));
	CHECK(!sniff_blkparse_text((const unsigned char *)"8,0 1 1 0.1 1 D", 15));
}

static void test_other_programs_output_is_told_apart(void)
{
	size_t len;
	unsigned char *p;

	LOOKS("burst1: (g=0): rw=randrw, bs=(R) 4096B-4096B, ioengine=libaio\n",
	      "fio's output");
	LOOKS("{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : []\n}\n",
	      "fio's JSON output");
	LOOKS("396, 1202, 0, 0, 0\n808, 1216, 1, 0, 0\n", "a fio log");
	LOOKS("Linux 6.1.0 (vm) \t2026-11-22 \t_x86_64_\t(2 CPU)\n\n",
	      "mpstat's output");
	LOOKS("{\"traces\": []}\n", "a JSON document");
	LOOKS("  [1, 2]", "a JSON document");
	LOOKS("<?xml version=\"1.0\"?>\n<svg width=\"1\"></svg>\n",
	      "an SVG image");
	LOOKS("<!DOCTYPE html><html></html>", "an HTML page");
	LOOKS("just words\nand more\n", "text");
	/* a fio job file's section is no JSON array */
	LOOKS("[global]\nrw=randread\n\n[job1]\n", "a fio job file");
	LOOKS("; comment\n\n  [burst1]\r\nbs=4k\n", "a fio job file");
	LOOKS("[1]\n", "a JSON document");
	LOOKS("[\"a\", \"b\"]\n[", "a JSON document");
	p = start_of("samples/fio-randrw.fio", &len);
	CHECK(p && looks_like(p, len, "a fio job file"));
	LOOKS("# tracer: nop\n#\n", "the text of a kernel trace "
	      "(ftrace's or trace-cmd report's)");
	LOOKS("  <idle>-0       [001] d.h1.  1234.567890: block_rq_complete: 7,0 R () 0 + 8 [0]\n",
	      "the text of a kernel trace "
	      "(ftrace's or trace-cmd report's)");
	LOOKS("cpus=2\n              dd-1234  [000]  1234.567890: block_rq_issue: 7,0 W\n",
	      "the text of a kernel trace "
	      "(ftrace's or trace-cmd report's)");
	LOOKS("  dd 16111 [001]   376.294661:    block:block_rq_issue: 254,0 WS\n",
	      "the text of a kernel trace "
	      "(ftrace's or trace-cmd report's)");
	LOOKS("# a heading\nsee [1] 2.5: words\n", "text");
	p = start_of("samples/ext4-causes.cause", &len);
	CHECK(p && looks_like(p, len, "iowatcher's causes file (NAME.cause)"));
	p = start_of("samples/fio-randrw.fio-output", &len);
	CHECK(p && looks_like(p, len, "fio's output"));
	p = start_of("samples/fio-randrw.mpstat", &len);
	CHECK(p && looks_like(p, len, "mpstat's output"));
	p = start_of("samples/fio-randrw_bw.1.log", &len);
	CHECK(p && looks_like(p, len, "a fio log"));
	p = start_of("README.md", &len);
	CHECK(p && looks_like(p, len, "text"));
}

static void test_binary_files_are_told_by_magic(void)
{
	unsigned char tar[600] = "file.txt";
	size_t len;
	unsigned char *p;

	LOOKS("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "a PNG image");
	LOOKS("\xff\xd8\xff\xe0\0\x10JFIF", "a JPEG image");
	LOOKS("GIF89a\x01\0\x01\0", "a GIF image");
	LOOKS("%PDF-1.7\n%\xe2\xe3", "a PDF document");
	LOOKS("PK\x03\x04\x14\0\0\0", "a zip archive");
	LOOKS("\x7f" "ELF\x02\x01\x01\0", "an ELF program or library");
	LOOKS("\0\0\0\x20" "ftypisom\0\0\x02\0", "an MP4 video");
	LOOKS("\x17\x08\x44tracing6\0\0\0\0",
	      "a trace-cmd recording (trace.dat)");
	LOOKS("PERFILE2h\0\0\0", "a perf recording (perf.data: perf script prints it)");
	/* a TracePacket of 4 bytes padded to 4, then one naming a track */
	LOOKS("\x0a\x84\x80\x80\x00\x50\x01\x68\x01\x0a\x20\x50\x01"
	      "\x12\x12" "block device 7,1",
	      "iowatcher's own Perfetto trace (written by -o NAME.pftrace)");
	LOOKS("\x0a\x0c\x08\x01\x10\x02 six more", "a Perfetto trace");
	p = start_of("samples/ext4-causes.cause.0", &len);
	CHECK(p && looks_like(p, len,
			      "iowatcher's per-CPU causes file (NAME.cause.N)"));
	memcpy(tar + 257, "ustar", 5);
	CHECK(looks_like(tar, sizeof(tar), "a tar archive"));
	p = start_of("samples/fio-randrw.png", &len);
	CHECK(p && looks_like(p, len, "a PNG image"));
}

/* A trace's record is nothing of these; nor are bytes of noise. */
static void test_traces_and_noise_are_not_taken_for_anything(void)
{
	unsigned char noise[512];
	size_t len, i;
	unsigned char *p;

	for (i = 0; i < sizeof(noise); i++)
		noise[i] = (unsigned char)(i * 131 + 7);
	CHECK(sniff(noise, sizeof(noise)) == NULL);
	p = start_of("samples/fio-randrw.blktrace.0", &len);
	CHECK(p && sniff(p, len) == NULL);
	CHECK(sniff((const unsigned char *)"", 0) == NULL);
	/* a NUL is no text, nor white space before JSON */
	CHECK(sniff((const unsigned char *)"name\0\0\0\0", 8) == NULL);
	CHECK(sniff((const unsigned char *)"\0{}", 3) == NULL);
}

static void test_advice_fits_the_input(void)
{
	const struct sniffed *text = sniff((const unsigned char *)
		"  8,0    1        1     0.000000000  1234  Q   W 1 + 8 [dd]", 58);

	CHECK(text && strstr(sniff_instead(text, 1), "-o /dev/null"));
	CHECK(text && strstr(sniff_instead(text, 0), "blkparse -i NAME -d NAME.dump"));
	CHECK(strstr(sniff_instead(NULL, 0), "NAME.blktrace.N"));
	CHECK(strstr(sniff_instead(NULL, 1), "iowatcher -t -"));
}

static void test_a_causes_file_names_its_trace(void)
{
	const struct sniffed *dict = sniff((const unsigned char *)
					   "iowatcher causes 1\n", 19);
	const struct sniffed *cpu = sniff((const unsigned char *)
					  "IOWCAUS1@\0\0\0", 12);
	char buf[256];

	CHECK(dict && !strcmp(sniff_name_instead(dict, "d/x.cause.y.cause",
						 buf, sizeof(buf)),
			      "give -t d/x.cause.y: a recording's causes are read with its trace"));
	CHECK(cpu && strstr(sniff_name_instead(cpu, "run.cause.3", buf,
					       sizeof(buf)), "give -t run:"));
	CHECK(dict && !sniff_name_instead(dict, "causes", buf, sizeof(buf)));
	CHECK(!sniff_name_instead(sniff((const unsigned char *)"text\n", 5),
				  "a.cause", buf, sizeof(buf)));
}

int main(void)
{
	RUN_TEST(test_blkparse_text_is_told_apart);
	RUN_TEST(test_other_programs_output_is_told_apart);
	RUN_TEST(test_binary_files_are_told_by_magic);
	RUN_TEST(test_traces_and_noise_are_not_taken_for_anything);
	RUN_TEST(test_advice_fits_the_input);
	RUN_TEST(test_a_causes_file_names_its_trace);
	return check_report();
}
