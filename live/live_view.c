/*
 * live_view.c: the live view's screen (see live_view.h). Each frame is
 * built in memory and written at once (no flicker), every line cleared to
 * its end, so a resize needs only a redraw at the new size.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "base/bytebuf.h"
#include "live_view.h"
#include "reader/blktrace.h"

#define SPARK_SECONDS	60

struct frame {
	struct bytebuf text;
	int cols, rows, row;
};

struct live_view {
	int out_fd, key_fd;
	struct termios saved;
	int termios_saved;
	int paused, help, utf8;
	int dirty;		/* a key changed what is shown */
	int cols, rows;
	long drawn_second;
	struct frame f;
};

/* The view whose terminal an exit must put back (atexit takes no
 * argument, so it can only be found here). */
static struct live_view *active_view;

static void restore_terminal(struct live_view *v)
{
	static const char leave[] = "\033[?25h\033[?1049l";

	/* nothing more can be done about a lost terminal */
	(void)!write(v->out_fd, leave, sizeof(leave) - 1);
	if (v->termios_saved)
		tcsetattr(v->key_fd, TCSAFLUSH, &v->saved);
	v->termios_saved = 0;
}

static void restore_at_exit(void)
{
	if (active_view)
		restore_terminal(active_view);
	active_view = NULL;
}

static int locale_is_utf8(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return 0;
}

struct live_view *live_view_open(FILE *out, int key_fd,
				 struct iow_error *err)
{
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";
	static int registered;
	struct live_view *v = calloc(1, sizeof(*v));
	struct termios raw;

	if (!v) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	fflush(out);
	v->out_fd = fileno(out);
	v->key_fd = key_fd;
	v->utf8 = locale_is_utf8();
	v->drawn_second = -1;
	if (key_fd >= 0 && tcgetattr(key_fd, &v->saved) == 0) {
		raw = v->saved;
		/* keys one at a time, unechoed; ^C still interrupts */
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		if (tcsetattr(key_fd, TCSANOW, &raw) == 0)
			v->termios_saved = 1;
	}
	if (!registered && atexit(restore_at_exit) == 0)
		registered = 1;
	active_view = v;
	if (write(v->out_fd, enter, sizeof(enter) - 1) < 0) {
		iow_fail(err, "cannot write to the terminal: %s",
			 strerror(errno));
		live_view_close(v);
		return NULL;
	}
	return v;
}

void live_view_close(struct live_view *v)
{
	if (!v)
		return;
	restore_terminal(v);
	if (active_view == v)
		active_view = NULL;
	bytebuf_free(&v->f.text);
	free(v);
}

/* ---- building a frame ---- */

static void put(struct frame *f, const char *s, size_t n)
{
	/* out of memory: a frame cut short, shown next time */
	(void)bytebuf_append(&f->text, s, n);
}

static void puts_raw(struct frame *f, const char *s)
{
	put(f, s, strlen(s));
}

/*
 * One line of the screen, cut at its width: ASCII text here, so a byte
 * is a column. attr is an SGR code ("1" bold, "7" reverse) or NULL.
 */
static void line(struct frame *f, const char *attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void line(struct frame *f, const char *attr, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	size_t n;

	if (f->row >= f->rows)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	n = strlen(text);
	if (n > (size_t)f->cols)
		n = (size_t)f->cols;
	if (attr) {
		puts_raw(f, "\033[");
		puts_raw(f, attr);
		puts_raw(f, "m");
	}
	put(f, text, n);
	if (attr)
		puts_raw(f, "\033[0m");
	puts_raw(f, "\033[K");
	if (++f->row < f->rows)
		puts_raw(f, "\r\n");
}

/* A latency in 6 columns: 850us, 12.3ms, 1.25s. */
static const char *lat(double ns, char *buf, size_t size)
{
	double us = ns / 1e3;

	if (ns <= 0)
		snprintf(buf, size, "%6s", "-");
	else if (us < 999.5)
		snprintf(buf, size, "%4.0fus", us);
	else if (us < 99950)
		snprintf(buf, size, "%4.1fms", us / 1e3);
	else if (us < 999500)
		snprintf(buf, size, "%4.0fms", us / 1e3);
	else
		snprintf(buf, size, "%5.2fs", us / 1e6);
	return buf;
}

/* /dev/nvme0n1 -> nvme0n1: the table's column is narrow. */
static const char *short_name(const char *name)
{
	return strncmp(name, "/dev/", 5) ? name : name + 5;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / 1048576.0;
}

/* A sparkline of the newest n values of a history ring, scaled to max. */
static void sparkline(struct live_view *v, struct frame *f, const char *label,
		      const float *ring, const struct live_figures *fig,
		      size_t width, const char *unit)
{
	static const char *const blocks[] = { " ", "\xe2\x96\x81",
		"\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
		"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87",
		"\xe2\x96\x88" };
	static const char ascii[] = " .,:-=+*#";
	size_t n = (size_t)(SPARK_SECONDS / fig->interval_s), i;
	char head[64];
	float max = 0;

	if (f->row >= f->rows)
		return;
	if (n < 2)
		n = 2;
	if (n > fig->history_len)
		n = fig->history_len;
	if (n > width)
		n = width;
	for (i = 0; i < n; i++) {
		float x = ring[(fig->history_head + LIVE_HISTORY - n + i) %
			       LIVE_HISTORY];

		if (x > max)
			max = x;
	}
	snprintf(head, sizeof(head), "  %-9s", label);
	puts_raw(f, head);
	for (i = 0; i < n; i++) {
		float x = ring[(fig->history_head + LIVE_HISTORY - n + i) %
			       LIVE_HISTORY];
		int k = max > 0 ? (int)(x / max * 8.0f + 0.999f) : 0;

		if (k > 8)
			k = 8;
		if (v->utf8)
			puts_raw(f, blocks[k]);
		else
			put(f, &ascii[k], 1);
	}
	snprintf(head, sizeof(head), "  max %.1f%s", max, unit);
	if (11 + n + strlen(head) <= (size_t)f->cols)
		puts_raw(f, head);
	puts_raw(f, "\033[K");
	if (++f->row < f->rows)
		puts_raw(f, "\r\n");
}

static void draw_header(struct live_view *v, struct frame *f,
			const struct live_figures *fig)
{
	long el = (long)fig->elapsed_s;

	if (fig->stdin_mode)
		line(f, "7", " iowatcher --live: reading a trace from stdin");
	else if (fig->flight_armed)
		line(f, "7", " iowatcher --live: flight recorder ARMED on %s "
		     "(c: capture now): %u capture%s %s-N", fig->device_list,
		     fig->captures, fig->captures == 1 ? "" : "s",
		     fig->trace_path);
	else
		line(f, "7", " iowatcher --live: recording %s%s%s to %s.blktrace.*",
		     fig->device_list, fig->tracer[0] ? " with " : "",
		     fig->tracer, fig->trace_path);
	line(f, fig->lost_in_interval ? "1" : NULL,
	     " elapsed %ld:%02ld:%02ld   interval %.3g s (%.1f-%.1f s)"
	     "   events %llu   lost %llu (%llu in it)%s", el / 3600,
	     el / 60 % 60, el % 60, fig->interval_s, fig->start_s, fig->end_s,
	     (unsigned long long)fig->events, (unsigned long long)fig->lost,
	     (unsigned long long)fig->lost_in_interval,
	     v->paused ? "   [PAUSED]" : "");
	/* a line of its own: on the one above it was cut off the screen */
	if (fig->late)
		line(f, "1", " %llu records came late (%llu in it): the "
		     "figures may differ from -x",
		     (unsigned long long)fig->late,
		     (unsigned long long)fig->late_in_interval);
	if (fig->workload_output)
		line(f, NULL, " workload output: %s", fig->workload_output);
	if (fig->account[0])
		line(f, NULL, " account: %s", fig->account);
	else if (fig->kernel_completed != UINT64_MAX)
		line(f, NULL, " completions: the kernel's %llu since the "
		     "start, the trace's %llu analysed",
		     (unsigned long long)fig->kernel_completed,
		     (unsigned long long)fig->trace_completed);
}

int live_hole_text(const struct live_device *d, char *buf, size_t len)
{
	int n;

	if (!d->orphans && !d->unmatched) {
		if (!d->overdue)
			return 0;
		snprintf(buf, len, " OVERDUE on %u,%u: %llu request%s out "
			 "more than twice the longest, later ones done (a "
			 "lost completion?): not in the depth shown; the "
			 "trace's end judges",
			 blk_dev_major(d->device), blk_dev_minor(d->device),
			 (unsigned long long)d->overdue,
			 d->overdue == 1 ? "" : "s");
		return 1;
	}
	n = snprintf(buf, len, " HOLE inferred on %u,%u in this interval:",
		     blk_dev_major(d->device), blk_dev_minor(d->device));
	if (d->orphans && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      " %llu request%s whose completion was lost "
			      "(out of the depth from %s issue)%s",
			      (unsigned long long)d->orphans,
			      d->orphans == 1 ? "" : "s",
			      d->orphans == 1 ? "its" : "their",
			      d->unmatched ? "," : "");
	if (d->unmatched && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 " %llu completion%s whose issue was lost (counted, "
			 "not timed)", (unsigned long long)d->unmatched,
			 d->unmatched == 1 ? "" : "s");
	return 1;
}

static void draw_device(struct live_view *v, struct frame *f,
			const struct live_figures *fig,
			const struct live_device *d)
{
	double span = fig->end_s - fig->start_s;
	char a[16], b[16], c[16], e[16], hole[LIVE_HOLE_TEXT];
	size_t spark = (size_t)f->cols > 30 ? (size_t)f->cols - 30 : 1;
	char disc[48] = "";

	if (span <= 0)
		span = fig->interval_s;
	line(f, NULL, " %-10.10s %7.2f %7.0f %7.2f %7.0f %s %s %s %s %5.2f",
	     short_name(d->name), (double)d->bytes[OP_READ] / 1e6 / span,
	     (double)d->ios[OP_READ] / span,
	     (double)d->bytes[OP_WRITE] / 1e6 / span,
	     (double)d->ios[OP_WRITE] / span,
	     lat(d->d2c.p50_ns, a, sizeof(a)), lat(d->d2c.p99_ns, b, sizeof(b)),
	     lat(d->q2c.p50_ns, c, sizeof(c)), lat(d->q2c.p99_ns, e, sizeof(e)),
	     d->depth);
	if (d->total_bytes[OP_DISCARD])
		snprintf(disc, sizeof(disc), ", discarded %.1f MiB",
			 mib(d->total_bytes[OP_DISCARD]));
	line(f, NULL, "   flush/s %-5.1f discard/s %-5.1f total: read %.1f MiB, "
	     "written %.1f MiB%s", (double)d->ios[OP_FLUSH] / span,
	     (double)d->ios[OP_DISCARD] / span, mib(d->total_bytes[OP_READ]),
	     mib(d->total_bytes[OP_WRITE]), disc);
	sparkline(v, f, "MB/s", d->mbps, fig, spark, " MB/s");
	sparkline(v, f, "Q2C p99", d->p99_us, fig, spark, " us");
	if (live_hole_text(d, hole, sizeof(hole)))
		line(f, "1", "%s", hole);
}

static void draw_rows(struct frame *f, const struct live_figures *fig)
{
	static const char *const by[] = { "I/Os", "bytes", "p99 Q2C" };
	char a[16], b[16];
	size_t i;

	line(f, NULL, "%s", "");
	line(f, "1", " %-7s %-15s %-10s %7s %8s %6s %6s  (by %s)",
	     fig->tag_heading, fig->tag_heading[0] == 'P' ? "NAME" : "LABEL",
	     "DEVICE", "I/Os", "MB", "Q2C avg", "p99", by[fig->sort]);
	for (i = 0; i < fig->n_rows && f->row < f->rows - 1; i++) {
		const struct live_row *r = &fig->rows[i];
		const char *dev = "?";
		char pid[24];
		size_t j;

		for (j = 0; j < fig->n_devs; j++)
			if (fig->devs[j].device == r->device)
				dev = fig->devs[j].name;
		if (r->pid >= 0)
			snprintf(pid, sizeof(pid), "%ld", r->pid);
		else
			snprintf(pid, sizeof(pid), "%d", r->tag);
		line(f, NULL, " %-7s %-15.15s %-10.10s %7llu %8.2f %6s %6s",
		     pid, r->name, short_name(dev), (unsigned long long)r->ios,
		     (double)r->bytes / 1e6, lat(r->q2c.mean_ns, a, sizeof(a)),
		     lat(r->q2c.p99_ns, b, sizeof(b)));
	}
}

static void draw_help(struct frame *f)
{
	line(f, NULL, "%s", "");
	line(f, "1", " %s", "Keys");
	line(f, NULL, "   q  quit: stop recording, then draw the pictures (as Ctrl-C)");
	line(f, NULL, "   c  with --flight: write a capture now (as SIGUSR1)");
	line(f, NULL, "   p  pause the display (the recording goes on)");
	line(f, NULL, "   i  sort by I/Os   b  by bytes   l  by p99 Q2C latency");
	line(f, NULL, "   ?  this help (any key closes it)");
}

static void draw(struct live_view *v, const struct live_figures *fig)
{
	struct frame *f = &v->f;
	size_t i;

	f->text.len = 0;
	f->cols = v->cols;
	f->rows = v->rows;
	f->row = 0;
	puts_raw(f, "\033[H");
	if (v->cols < LIVE_VIEW_MIN_COLS || v->rows < LIVE_VIEW_MIN_ROWS) {
		line(f, NULL, "terminal too small (%dx%d, needs %dx%d)",
		     v->cols, v->rows, LIVE_VIEW_MIN_COLS, LIVE_VIEW_MIN_ROWS);
		line(f, NULL, "still recording; q quits");
	} else {
		draw_header(v, f, fig);
		line(f, NULL, "%s", "");
		line(f, "1", " %-10s %7s %7s %7s %7s %6s %6s %6s %6s %5s",
		     "DEVICE", "rMB/s", "rIOPS", "wMB/s", "wIOPS", "D2Cp50",
		     "p99", "Q2Cp50", "p99", "depth");
		for (i = 0; i < fig->n_devs; i++)
			draw_device(v, f, fig, &fig->devs[i]);
		if (!fig->n_devs)
			line(f, NULL, " %s", fig->n_intervals ?
			     "no I/O yet" : "waiting for the first interval");
		if (v->help)
			draw_help(f);
		else
			draw_rows(f, fig);
		while (f->row < f->rows - 1)
			line(f, NULL, "%s", "");
		line(f, "7", " q quit and plot   p pause   i/b/l sort   ? keys");
	}
	puts_raw(f, "\033[J");
	/* a terminal gone: the recording goes on regardless */
	(void)!write(v->out_fd, f->text.data, f->text.len);
}

/* The keys typed since the last call: what they ask of the view's owner
 * into *k; the view's own (pause, help) kept here. */
void live_view_keys(struct live_view *v, struct live_keys *k)
{
	char keys[32];
	ssize_t n, i;

	k->quit = 0;
	k->capture = 0;
	k->sort = -1;
	if (v->key_fd < 0)
		return;
	n = read(v->key_fd, keys, sizeof(keys));
	for (i = 0; i < n; i++) {
		if (v->help) {
			v->help = 0;
			v->dirty = 1;
			if (keys[i] == '?')
				continue;
		}
		switch (keys[i]) {
		case 'q':
		case 'Q':
			k->quit = 1;
			return;
		case 'p':
		case 'P':
			v->paused = !v->paused;
			break;
		case '?':
		case 'h':
			v->help = 1;
			break;
		case 'c':
		case 'C':
			k->capture = 1;
			break;
		case 'i':
			k->sort = LIVE_SORT_IOS;
			break;
		case 'b':
			k->sort = LIVE_SORT_BYTES;
			break;
		case 'l':
			k->sort = LIVE_SORT_LATENCY;
			break;
		default:
			continue;
		}
		v->dirty = 1;
	}
}

void live_view_draw(struct live_view *v, const struct live_figures *fig,
		    int new_interval)
{
	struct winsize ws;
	int cols = 80, rows = 24;

	if (ioctl(v->out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		cols = ws.ws_col;
		rows = ws.ws_row;
	}
	if (cols != v->cols || rows != v->rows) {
		v->cols = cols;
		v->rows = rows;
		v->dirty = 1;
	}
	if (!v->paused && (new_interval ||
			   (long)fig->elapsed_s != v->drawn_second))
		v->dirty = 1;
	if (v->dirty) {
		v->dirty = 0;
		v->drawn_second = (long)fig->elapsed_s;
		draw(v, fig);
	}
}
