/*
 * fuzz_args.c: the command line. Exec'ing the program per input would be
 * far too slow, so iowatcher.c is built into this file (its main renamed)
 * and its parse_args is called with an argv made of the input's
 * NUL-separated words; exit() there (usage errors, --help, --version)
 * returns here through a longjmp. Parsing must end in options that hold
 * together or in exit status 0 or 2, never in a crash; the arrays it
 * allocates are freed after each input, also after an exit.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf args_exit_jump;
static int args_exit_status;

_Noreturn static void args_exit(int status)
{
	args_exit_status = status;
	longjmp(args_exit_jump, 1);
}

#define main iowatcher_main
#define exit args_exit
#include "../iowatcher.c"
#undef exit
#undef main

#define ARGS_MAX_WORDS	64

static struct options args_opts;

static void args_free(struct options *o)
{
	free(o->trace_args);
	free(o->labels);
	free(o->devices);
	free(o->prog_argv);
	free(o->fio_logs);
	memset(o, 0, sizeof(*o));
}

/* parse_args, and whether what it left holds together; after an exit too. */
static void args_parse(int argc, char **argv)
{
	memset(&args_opts, 0, sizeof(args_opts));
	args_exit_status = -1;
	optind = 0;	/* glibc: start a new scan */
	if (setjmp(args_exit_jump) == 0) {
		parse_args(argc, argv, &args_opts);
		/* what main relies on once parsing is done */
		if (!args_opts.n_trace_args ||
		    args_opts.n_labels > args_opts.n_trace_args ||
		    (!args_opts.output && !args_opts.summary &&
		     !args_opts.csv_dir))
			abort();
	} else if (args_exit_status != 0 && args_exit_status != EXIT_USAGE) {
		abort();
	}
	args_free(&args_opts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *argv[ARGS_MAX_WORDS + 2];
	char *copy = malloc(size + 1), *p;
	int argc = 1, saved_stdout, null_fd;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "iowatcher";
	for (p = copy; p < copy + size && argc <= ARGS_MAX_WORDS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	/* --help and --version print: to /dev/null while parsing */
	fflush(stdout);
	saved_stdout = dup(1);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved_stdout < 0 || null_fd < 0 || dup2(null_fd, 1) < 0)
		abort();
	args_parse(argc, argv);
	fflush(stdout);
	dup2(saved_stdout, 1);
	close(saved_stdout);
	close(null_fd);
	free(copy);
	return 0;
}
