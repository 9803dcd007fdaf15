/*
 * outfile.h: an output file (a picture, a CSV, a movie) written under a
 * temporary name beside its own and renamed into place only once whole,
 * so that no one ever sees half a file and a failed or interrupted run
 * leaves nothing behind. One policy for every output: the temporary
 * (PATH.tmpPID-N, then SUFFIX) is created exclusively; committing checks
 * for an interrupt, syncs the file, renames it and syncs the directory;
 * aborting removes the temporary.
 */
#ifndef IOWATCHER_OUTFILE_H
#define IOWATCHER_OUTFILE_H

#include "error.h"

struct outfile {
	char *path;		/* the name it gets */
	char *tmp_path;		/* the name it is written under */
	int fd;			/* open on tmp_path, or -1 */
};

/*
 * Creates the temporary, open for writing in f->fd. suffix (or NULL)
 * ends its name: ffmpeg picks a container by the name it writes.
 */
int outfile_open(struct outfile *f, const char *path, const char *suffix,
		 struct iow_error *err);
/* Closes f->fd (written through it) or syncs what another program wrote
 * under f->tmp_path, then renames it into place; aborts on any failure. */
int outfile_commit(struct outfile *f, struct iow_error *err);
/* Removes the temporary; safe on a zeroed, aborted or committed f. */
void outfile_abort(struct outfile *f);

#endif
