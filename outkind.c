/* outkind.c: what -o names, from its extension (see outkind.h). */
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
