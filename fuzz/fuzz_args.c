/*
 * fuzz_args.c: the command line. options_parse is called with an argv
 * made of the input's NUL-separated words. Parsing must end in options
 * that hold together, in --help or --version, or in a usage error that
 * says something, never in a crash; what it allocates is freed after
 * each input, whatever it returned.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define ARGS_MAX_WORDS	64

/* options_parse, and whether what it left holds together. */
static void args_parse(int argc, char **argv)
{
	struct iow_error err = { "" };
	struct options o;

	switch (options_parse(argc, argv, &o, &err)) {
	case CLI_OK:
		/* what main relies on once parsing is done: summaries to
		 * merge and nothing else (check_merge_args), or traces
		 * with somewhere to put what is read (--compare writes its
		 * text to standard output) */
		if (o.n_merge_paths) {
			if (o.n_trace_args || o.output || o.n_labels)
				abort();
		} else if (!o.n_trace_args || o.n_labels > o.n_trace_args ||
			   (!o.output && !o.summary && !o.csv_dir &&
			    !o.events_path && !o.compare)) {
			abort();
		}
		break;
	case CLI_USAGE:
		if (!err.msg[0])
			abort();
		break;
	case CLI_HELP:
	case CLI_VERSION:
		break;
	default:
		abort();
	}
	options_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *argv[ARGS_MAX_WORDS + 2];
	char *copy = malloc(size + 1), *p;
	int argc = 1;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "iowatcher";
	for (p = copy; p < copy + size && argc <= ARGS_MAX_WORDS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	args_parse(argc, argv);
	free(copy);
	return 0;
}
