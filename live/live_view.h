/*
 * live_view.h: the live view's full screen, drawn with plain ANSI escapes
 * on the alternate screen: per device its rates, latencies, queue depth,
 * totals and a minute of sparklines; the busiest processes; keys q (quit
 * and plot), p (pause), i/b/l (sort), ? (keys). The terminal is put back
 * by live_view_close, and at exit should a path miss it.
 */
#ifndef IOWATCHER_LIVE_VIEW_H
#define IOWATCHER_LIVE_VIEW_H

#include <stdio.h>

#include "base/error.h"

#define LIVE_VIEW_MIN_COLS	78
#define LIVE_VIEW_MIN_ROWS	14

struct live;
struct live_view;

/* Takes over the terminal out is (keys from key_fd, -1: none). */
struct live_view *live_view_open(FILE *out, int key_fd,
				 struct iow_error *err);
/* Reads the keys and redraws what changed: 1 when q was pressed. */
int live_view_update(struct live_view *v, struct live *l, int new_interval);
void live_view_close(struct live_view *v);

#endif
