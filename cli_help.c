/*
 * cli_help.c: what the command line prints of itself: --help, made from
 * the options' table (cli_options, cli.c) with the inputs, graphs and
 * outputs each stage lists, and the usage line under a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "reader/discover.h"
#include "cli.h"
#include "graphs/graphs.h"
#include "outputs.h"

static const char usage_line[] =
	"usage: iowatcher -t TRACE [-t TRACE ...] [-l LABEL ...] [-o FILE] [--summary[=json]] [options]";

static const char *const group_titles[CLI_N_GROUPS] = {
	[CLI_INPUT] = "Input",
	[CLI_ANALYSIS] = "Analysis",
	[CLI_OUTPUT] = "Output",
	[CLI_RECORDING] = "Recording (root)",
	[CLI_MOVIES] = "Movies",
	[CLI_TAGGING] = "Tagging",
	[CLI_OTHER] = "Other",
};

/* The text starts in this column; a longer left part is followed by two
 * spaces instead. */
#define HELP_TEXT_COLUMN	24

/* The help text, its later lines indented to the text's column. */
static void print_help_text(FILE *f, const struct cli_option *row,
			    const char *text)
{
	for (; *text; text++) {
		if (*text == '\n')
			fprintf(f, "\n%*s", HELP_TEXT_COLUMN, "");
		else if (!strncmp(text, "{min}", 5)) {
			fprintf(f, "%ld", row->min);
			text += 4;
		} else {
			fputc(*text, f);
		}
	}
	fputc('\n', f);
}

/* "  -w, --width PX        width of one graph ..." */
static void print_help_entry(FILE *f, const struct cli_option *row,
			     const struct cli_help *h)
{
	char left[96];
	int len;

	if (row->letter)
		len = snprintf(left, sizeof(left), "  -%c, --%s", row->letter,
			       row->name);
	else
		len = snprintf(left, sizeof(left), "      --%s", row->name);
	if (h->metavar)
		snprintf(left + len, sizeof(left) - (size_t)len,
			 cli_takes_optional_argument(row) ? "[=%s]" : " %s",
			 h->metavar);
	if (strlen(left) < HELP_TEXT_COLUMN)
		fprintf(f, "%-*s", HELP_TEXT_COLUMN, left);
	else
		fprintf(f, "%s  ", left);
	print_help_text(f, row, h->text);
}

void cli_print_help(FILE *f)
{
	size_t i, k;
	int g;

	fprintf(f, "%s\n\n", usage_line);
	for (g = 0; g < CLI_N_GROUPS; g++) {
		fprintf(f, "%s\n", group_titles[g]);
		for (i = 0; i < cli_n_options; i++) {
			const struct cli_option *row = &cli_options[i];

			for (k = 0; k < 2; k++)
				if (row->help[k].text &&
				    (int)row->help[k].group == g)
					print_help_entry(f, row, &row->help[k]);
		}
	}
	input_print_help(f);
	fprintf(f, "Graphs (-O / -N names)\n");
	for (i = 0; i < graph_table_len; i++)
		fprintf(f, "  %-16s %s%s\n", graph_table[i].name,
			graph_table[i].help,
			graph_table[i].default_on ? "" : " (off by default)");
	outputs_print_help(f);
}

void cli_print_usage_error(FILE *f, const struct iow_error *err)
{
	fprintf(f, "iowatcher: %s\n%s\n(iowatcher --help lists the options)\n",
		err->msg, usage_line);
}
