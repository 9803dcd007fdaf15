/*
 * fuzz_merge.c: --merge-summaries (output/merge.c, merge_check.c). The
 * input is a summary document, merged with itself once in two (the
 * control is the input's length: odd, alone; even, twice). A refusal
 * is one line; a merge that succeeds is a summary again, and must hold
 * fuzz_props.h's properties (read back and checked, it merges again).
 * Seeds: fuzz/seeds/merge (the samples' summaries, cut to a device or
 * two, and issue #40's reproducers, fuzz/make-seeds.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/merge.h"
#include "fuzz_common.h"
#include "fuzz_props.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[2];
	struct iow_error err = { "" };
	char path[512], out_path[512];
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int r;

	fuzz_write_file("in.json", data, size, path, sizeof(path));
	paths[0] = paths[1] = path;
	out = open_memstream(&text, &len);
	if (!out)
		abort();
	r = summary_merge(out, paths, 1 + (size % 2 == 0), 1, 10, &err);
	fclose(out);
	if (r < 0) {
		fuzz_check_error(&err, "summary_merge");
	} else {
		/* the merge is a summary: valid, checked, and merges again */
		struct json doc;
		const char *why;
		size_t at;

		if (json_parse(text, len, &doc, &at, &why) < 0)
			fuzz_props_fail("the merge is valid JSON", text);
		if (merge_check_document("merged", &doc, &err) < 0)
			fuzz_props_fail(err.msg, text);
		json_free(&doc);
		fuzz_write_file("merged.json", text, len, out_path,
				sizeof(out_path));
		paths[0] = out_path;
		out = fopen("/dev/null", "w");
		if (!out || summary_merge(out, paths, 1, 0, 10, &err) < 0)
			fuzz_props_fail(err.msg[0] ? err.msg : "/dev/null", text);
		fclose(out);
	}
	free(text);
	return 0;
}
