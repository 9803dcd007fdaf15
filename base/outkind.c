/* outkind.c: what -o names, from its extension (see outkind.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "outkind.h"

static const struct {
	const char *ext;
	struct output_type type;
} extensions[] = {
	{ ".svg", { OUTPUT_PICTURE, PLOT_SVG, 0 } },
	{ ".png", { OUTPUT_PICTURE, PLOT_PNG, 0 } },
	{ ".pdf", { OUTPUT_PICTURE, PLOT_PDF, 0 } },
	{ ".mp4", { OUTPUT_MOVIE, 0, MOVIE_MP4 } },
	{ ".webm", { OUTPUT_MOVIE, 0, MOVIE_WEBM } },
	{ ".ogv", { OUTPUT_MOVIE, 0, MOVIE_OGV } },
	{ ".ogg", { OUTPUT_MOVIE, 0, MOVIE_OGV } },
	{ ".gif", { OUTPUT_MOVIE, 0, MOVIE_GIF } },
	{ ".html", { OUTPUT_REPORT, 0, 0 } },
	{ ".htm", { OUTPUT_REPORT, 0, 0 } },
	{ ".pftrace", { OUTPUT_PERFETTO, 0, 0 } },
	{ ".perfetto-trace", { OUTPUT_PERFETTO, 0, 0 } },
};

int output_type_of(const char *path, struct output_type *t,
		   struct iow_error *err)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	size_t i;

	for (i = 0; dot && i < sizeof(extensions) / sizeof(extensions[0]);
	     i++)
		if (!strcasecmp(dot, extensions[i].ext)) {
			*t = extensions[i].type;
			return 0;
		}
	memset(t, 0, sizeof(*t));
	return iow_fail(err, "%s: unknown output format (the name must "
			"end in %s for a picture, .html for the report, or "
			".pftrace for Perfetto)",
			path ? path : "(null)",
			output_extensions(OUTPUT_PICTURE));
}

const char *output_extensions(enum output_kind k)
{
	switch (k) {
	case OUTPUT_PICTURE:
		return ".svg, .png or .pdf";
	case OUTPUT_MOVIE:
		return ".mp4, .webm, .ogv, .ogg or .gif";
	case OUTPUT_REPORT:
		return ".html or .htm";
	case OUTPUT_PERFETTO:
		return ".pftrace or .perfetto-trace";
	default:
		return "";
	}
}

/* How long s is without the suffix that ends it (0 where none does). */
static size_t cut_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !strncmp(s + len - n, suffix, n) ? len - n : len;
}

/* ".blktrace.N" ending s (N digits): len without it, or len. */
static size_t cut_per_cpu(const char *s, size_t len)
{
	size_t end = len, stem;

	while (end && s[end - 1] >= '0' && s[end - 1] <= '9')
		end--;
	stem = cut_suffix(s, end, ".blktrace.");
	return end < len && stem < end ? stem : len;
}

/* The name of the trace path names: its last component, without the
 * per-CPU file's or a dump's ending (and compression's); len its length. */
static const char *trace_stem(const char *path, size_t *len)
{
	static const char *const packed[] = { ".gz", ".xz", ".zst" };
	const char *base;
	size_t n = strlen(path), i;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (base = path + n; base > path && base[-1] != '/'; base--)
		;
	n -= (size_t)(base - path);
	for (i = 0; i < sizeof(packed) / sizeof(packed[0]); i++)
		n = cut_suffix(base, n, packed[i]);
	n = cut_suffix(base, n, ".dump");
	*len = cut_per_cpu(base, n);
	return base;
}

void default_picture_name(const char *const *traces, size_t n, char *buf,
			  size_t size)
{
	size_t used = 0, i, len;
	const char *stem;

	buf[0] = '\0';
	for (i = 0; i < n && used + 8 < size; i++) {
		stem = trace_stem(traces[i], &len);
		/* standard input, ".", "/": no name of their own */
		if (!strcmp(traces[i], "-") || !len ||
		    (len <= 2 && !strncmp(stem, "..", len)))
			stem = "trace", len = 5;
		if (len > size - used - 8)
			len = size - used - 8;
		used += (size_t)snprintf(buf + used, size - used, "%s%.*s",
					 i ? "+" : "", (int)len, stem);
	}
	snprintf(buf + used, size - used, ".svg");
}
