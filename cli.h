/*
 * cli.h: the command line as one table. Each row is an option: its names,
 * the type of its argument, where it lands in struct options, its limits
 * or choices and its --help lines. getopt's arrays, --help and the errors
 * for values out of range or not among the choices are all made from the
 * rows; a new option is a new row (and its lines in the man page, which a
 * test checks).
 */
#ifndef IOWATCHER_CLI_H
#define IOWATCHER_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "options.h"

/* What options_parse found, and so what main does next. */
enum cli_result {
	CLI_OK,		/* the options are in o: run */
	CLI_HELP,	/* --help, or -h alone: cli_print_help, exit 0 */
	CLI_VERSION,	/* --version: print the version, exit 0 */
	CLI_USAGE,	/* err says what was wrong: cli_print_usage_error,
			 * exit CLI_EXIT_USAGE */
};

#define CLI_EXIT_USAGE	2

/* How a row reads its argument (if any) into its field. */
enum cli_type {
	CLI_FLAG,	/* no argument: the int field becomes 1 */
	CLI_INT,	/* a whole number from min to max, into an int */
	CLI_SECONDS,	/* a positive number of seconds, into a double */
	CLI_STRING,	/* the argument itself, into a const char * */
	CLI_LIST,	/* repeatable: appended to a const char ** array,
			 * counted in the size_t at count_offset */
	CLI_CHOICE,	/* one of choices' words: its value, into an int */
	CLI_CUSTOM,	/* an argument that parse reads */
	CLI_ACTION,	/* no argument: parse says what it means */
};

/* --help's sections, in the order printed. */
enum cli_group {
	CLI_INPUT,
	CLI_ANALYSIS,
	CLI_OUTPUT,
	CLI_RECORDING,
	CLI_MOVIES,
	CLI_TAGGING,
	CLI_OTHER,
	CLI_N_GROUPS,
};

struct cli_choice {
	const char *word;
	int value;
};

/* One entry of --help; a row may have a second one in another group. */
struct cli_help {
	enum cli_group group;
	const char *metavar;	/* "TRACE"; NULL without an argument */
	const char *text;	/* lines split by \n; {min} is the row's min */
};

struct cli_parse;
struct cli_option;

typedef enum cli_result (*cli_parse_fn)(struct cli_parse *p,
					const struct cli_option *row,
					const char *arg);

struct cli_option {
	const char *name;	/* the long name, without "--" */
	char letter;		/* the short one, 0 for none */
	enum cli_type type;
	size_t offset;		/* offsetof(struct options, field) */
	size_t size;		/* sizeof that field */
	size_t count_offset;	/* CLI_LIST and picks: the size_t count */
	long min, max;		/* CLI_INT */
	/* CLI_INT: "a width in pixels", why_min after the minimum;
	 * CLI_CHOICE: what comes before the choices ("the action is ") */
	const char *what, *why_min;
	const struct cli_choice *choices;	/* CLI_CHOICE, ends at NULL */
	const char *def;	/* CLI_CHOICE: the word in force unless given */
	const char *bare;	/* CLI_CHOICE: the word meant by the option
				 * alone (its argument is then optional) */
	cli_parse_fn parse;	/* CLI_CUSTOM, CLI_ACTION */
	struct cli_help help[2];
};

extern const struct cli_option cli_options[];

/* A choice or custom row whose argument may be left out (--summary,
 * --summary=json): "--name[=ARG]" in --help, getopt's optional_argument. */
static inline int cli_takes_optional_argument(const struct cli_option *row)
{
	return (row->type == CLI_CHOICE || row->type == CLI_CUSTOM) &&
	       row->bare;
}
extern const size_t cli_n_options;

/*
 * Fills o from the command line, checks that the options hold together
 * and fills in what follows from them (-o trace.svg, the analysis'
 * windows, the name of a recording). Whatever it returns, options_free(o)
 * may be called; unless CLI_OK, o holds nothing more to free. Not
 * reentrant: getopt's state is global.
 */
enum cli_result options_parse(int argc, char **argv, struct options *o,
			      struct iow_error *err);
void options_free(struct options *o);

void cli_print_help(FILE *f);
/* "iowatcher: WHAT", the usage line and where the options are listed. */
void cli_print_usage_error(FILE *f, const struct iow_error *err);

/*
 * A word of an argv-form -p workload that is one of iowatcher's options
 * (up to its =VALUE, in buf), or NULL: typed after -p, it went to the
 * workload.
 */
const char *cli_misplaced_option(char *const *prog_argv, char *buf,
				 size_t size);

#endif
