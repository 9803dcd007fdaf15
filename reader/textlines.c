/*
 * textlines.c: a text file line by line (textlines.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textlines.h"

int textlines_read(const char *path, textline_fn each, void *ctx,
		   struct iow_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned line_no = 0;
	int rc = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return iow_fail(err, "%s: %s", path, strerror(errno));
	while (!rc && getline(&line, &cap, f) >= 0)
		rc = each(ctx, line, ++line_no, err);
	if (!rc && ferror(f))
		rc = iow_fail(err, "%s: %s", path, strerror(errno));
	free(line);
	fclose(f);
	return rc;
}
