/*
 * discover.c: what -t names, as traces (discover.h): the input kinds'
 * table, a per-CPU set by its base name or one of its files, a
 * directory's traces of every kind, standard input.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/vec.h"
#include "blkrec.h"
#include "bytesrc.h"
#include "discover.h"
#include "sniff.h"

const struct input_kind input_kinds[] = {
	[INPUT_PERCPU] = { "blktrace", "blktrace's per-CPU files",
		"NAME.blktrace.N, a file a CPU (blktrace -d DEV -o NAME,\n"
		"iowatcher -d DEV): -t NAME, one of the files, or their directory",
		NULL },
	[INPUT_DUMP] = { "dump", "a blkparse -d dump",
		"the records in time order, one file\n"
		"(blkparse -i NAME -d NAME.dump -o /dev/null)", NULL },
	[INPUT_TRACEDAT] = { "trace.dat", "trace-cmd's trace.dat",
		"the block tracepoints (trace-cmd record -e block)",
		&tracedat_input },
	[INPUT_PERFTEXT] = { "perf-text", "perf script's text",
		"the block tracepoints (perf record -e 'block:*';\n"
		"perf script --ns > NAME.perf.txt)", &perftext_input },
	[INPUT_STDIN] = { "stdin", "standard input",
		"-t -: a dump, trace.dat or perf text\n"
		"(blkparse -i NAME -d - -o /dev/null | iowatcher -t -)", NULL },
};
#define input_kinds_len	(sizeof(input_kinds) / sizeof(input_kinds[0]))

const struct blocktp_input *input_tracepoints(const unsigned char *p,
					      size_t len)
{
	size_t i;

	for (i = 0; i < input_kinds_len; i++)
		if (input_kinds[i].tracepoints &&
		    input_kinds[i].tracepoints->looks(p, len))
			return input_kinds[i].tracepoints;
	return NULL;
}

void input_print_help(FILE *f)
{
	size_t i;

	fprintf(f, "Inputs (-t; each file maybe gzip-, xz- or zstd-compressed)\n");
	for (i = 0; i < input_kinds_len; i++) {
		const char *h = input_kinds[i].help;

		fprintf(f, "  %-16s %s", input_kinds[i].name,
			input_kinds[i].what);
		/* the help's lines under the first's text */
		fprintf(f, "\n%19s", "");
		for (; *h; h++) {
			fputc(*h, f);
			if (*h == '\n')
				fprintf(f, "%19s", "");
		}
		fputc('\n', f);
	}
}

/* ---- finding traces ---- */

static int add_source(struct trace_list *list, enum trace_kind kind,
		      const struct input_kind *input, const char *name,
		      char **paths, size_t n_paths, struct iow_error *err)
{
	struct trace_source *items, *src;
	const char *base = strrchr(name, '/');

	items = realloc(list->items, (list->n + 1) * sizeof(*items));
	if (!items)
		return iow_fail(err, "out of memory");
	list->items = items;
	src = &items[list->n++];
	src->kind = kind;
	src->name = strdup(name);
	src->label = strdup(base && base[1] ? base + 1 : name);
	src->paths = paths;
	src->n_paths = n_paths;
	src->input = input;
	if (!src->name || !src->label)
		return iow_fail(err, "out of memory");
	/* a compressed file's label is the file's: x.dump.xz is x.dump */
	if (kind == TRACE_DUMP)
		src->label[strlen(src->label) -
			   bytesrc_suffix_len(src->label)] = '\0';
	return 0;
}

/*
 * If name is "BASE.blktrace.N", the length of BASE; else 0. A compressed
 * file (BASE.blktrace.N.gz...) is one of the set too.
 */
static size_t percpu_base_len(const char *name)
{
	static const char tail[] = ".blktrace.";
	const size_t tail_len = sizeof(tail) - 1;
	size_t len = strlen(name) - bytesrc_suffix_len(name), digits = 0;

	while (digits < len && isdigit((unsigned char)name[len - 1 - digits]))
		digits++;
	if (!digits || len - digits <= tail_len ||
	    strncmp(name + len - digits - tail_len, tail, tail_len))
		return 0;
	return len - digits - tail_len;
}

/* The N of BASE.blktrace.N[.gz...], whose BASE is base_len long. */
static int cpu_of(const char *name, size_t base_len)
{
	return atoi(name + base_len + strlen(".blktrace."));
}

struct cpu_file {
	int cpu;
	int compressed;		/* by its name: for choosing, not reading */
	char *path;
};

/* By CPU; a CPU's plain file (a copy kept by gzip -k...) first. */
static int cmp_cpu_file(const void *a, const void *b)
{
	const struct cpu_file *x = a, *y = b;

	if (x->cpu != y->cpu)
		return (x->cpu > y->cpu) - (x->cpu < y->cpu);
	if (x->compressed != y->compressed)
		return x->compressed - y->compressed;
	return strcmp(x->path, y->path);
}

/* Collect DIR/BASE.blktrace.N into a per-CPU source; 0 if none found. */
static int find_percpu_set(const char *dir, const char *base,
			   const char *name, struct trace_list *list,
			   struct iow_error *err)
{
	size_t base_len = strlen(base), n = 0, cap = 0, n_kept, i;
	struct cpu_file *files = NULL;
	struct dirent *de;
	char **paths;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct cpu_file *more;

		if (percpu_base_len(de->d_name) != base_len ||
		    strncmp(de->d_name, base, base_len))
			continue;
		if (n == cap) {
			more = vec_grow(files, &cap, n + 1, sizeof(*files), 8);
			if (!more)
				goto oom;
			files = more;
		}
		if (asprintf(&files[n].path, "%s/%s", dir, de->d_name) < 0)
			goto oom;
		files[n].cpu = cpu_of(de->d_name, base_len);
		files[n++].compressed = bytesrc_suffix_len(de->d_name) > 0;
	}
	closedir(d);
	d = NULL;
	if (!n) {
		free(files);
		return 0;
	}
	qsort(files, n, sizeof(*files), cmp_cpu_file);
	paths = calloc(n, sizeof(*paths));
	if (!paths)
		goto oom;
	/* one file a CPU: the first (see cmp_cpu_file) */
	for (i = 0, n_kept = 0; i < n; i++) {
		if (n_kept && files[i].cpu == files[i - 1].cpu) {
			free(files[i].path);
			continue;
		}
		paths[n_kept++] = files[i].path;
	}
	free(files);
	if (add_source(list, TRACE_PERCPU, &input_kinds[INPUT_PERCPU], name,
		       paths, n_kept, err) < 0)
		return -1;
	return 1;
oom:
	if (d)
		closedir(d);
	for (i = 0; i < n; i++)
		free(files[i].path);
	free(files);
	return iow_fail(err, "out of memory");
}

/* What a file that is not a trace seems to be (for a directory's
 * message). */
struct seen_file {
	const char *name;
	const struct sniffed *look;		/* or NULL: unknown */
	const struct compression *compression;	/* or NULL */
};

/*
 * The kind of trace path holds, compressed or not (a dump, a trace.dat,
 * perf script's text: from its decompressed start); NULL if none, and
 * what it seems to be in *seen (or its compression where that is not
 * read here).
 */
static const struct input_kind *probe_file(const char *path,
					   struct seen_file *seen)
{
	unsigned char start[2 * BLKREC_ADDED_LINE_MAX];
	const struct blocktp_input *tp;
	size_t i;
	struct iow_error ignored;
	struct byte_source bs;
	size_t have = 0;
	ssize_t got = -1;

	if (bytesrc_open(&bs, path, 0, &ignored) == 0)
		while (have < sizeof(start) &&
		       (got = bytesrc_read(&bs, start + have,
					   sizeof(start) - have,
					   &ignored)) > 0)
			have += (size_t)got;
	seen->compression = bs.compression;
	seen->look = NULL;
	bytesrc_close(&bs);
	if (got < 0)
		return NULL;
	if (have && blkrec_starts_dump(start, have))
		return &input_kinds[INPUT_DUMP];
	if (have && (tp = input_tracepoints(start, have)))
		for (i = 0; i < input_kinds_len; i++)
			if (input_kinds[i].tracepoints == tp)
				return &input_kinds[i];
	seen->look = sniff(start, have);
	return NULL;
}

static int add_single_file(struct trace_list *list, enum trace_kind kind,
			   const struct input_kind *input, const char *path,
			   struct iow_error *err)
{
	char **paths = calloc(1, sizeof(*paths));

	if (!paths || !(paths[0] = strdup(path))) {
		free(paths);
		return iow_fail(err, "out of memory");
	}
	return add_source(list, kind, input, path, paths, 1, err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How many files a directory's message names. */
#define SEEN_NAMED	3

/*
 * A directory with no trace: what its files seemed to be (the first
 * SEEN_NAMED of them that seemed to be something), and what to give.
 */
static int no_trace_in(const char *dir, const struct seen_file *seen,
		       size_t n_seen, size_t n_files, struct iow_error *err)
{
	const struct sniffed *advice = n_seen ? seen[0].look : NULL;
	char found[IOW_ERROR_LEN] = "";
	size_t i, used = 0;

	for (i = 0; i < n_seen && i < SEEN_NAMED; i++) {
		const struct seen_file *f = &seen[i];
		int n;

		if (f->look != advice)
			advice = NULL;	/* one piece of advice for all */
		if (f->look)
			n = snprintf(found + used, sizeof(found) - used,
				     "%s: %s%s%s; ", f->name, f->look->what,
				     f->compression ? ", compressed with " : "",
				     f->compression ? f->compression->name : "");
		else
			n = snprintf(found + used, sizeof(found) - used,
				     "%s: %s-compressed, not read here; ",
				     f->name, f->compression->name);
		if (n < 0 || (size_t)n >= sizeof(found) - used)
			break;
		used += (size_t)n;
	}
	if (n_files > i)
		snprintf(found + used, sizeof(found) - used,
			 "%s%zu other file%s; ", i ? "and " : "", n_files - i,
			 n_files - i == 1 ? "" : "s");
	if (!n_files)
		return iow_fail(err,
			"%s: directory holds no blktrace trace (no files in it; %s)",
			dir, sniff_instead(NULL, 0));
	return iow_fail(err, "%s: directory holds no blktrace trace (%s%s)",
			dir, found, sniff_instead(advice, 0));
}

static int find_in_directory(const char *dir, struct trace_list *list,
			     struct iow_error *err)
{
	size_t before = list->n, n = 0, cap = 0, set_len = 0, i;
	size_t n_files = 0, n_seen = 0;
	struct seen_file seen[SEEN_NAMED];
	const char *set = NULL;	/* the last set's first file's name */
	char **names = NULL;
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(dir);

	if (!d)
		return iow_fail(err, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **more;

			more = vec_grow(names, &cap, n + 1, sizeof(*names),
					16);
			if (!more) {
				ret = iow_fail(err, "out of memory");
				goto out;
			}
			names = more;
		}
		if (!(names[n] = strdup(de->d_name))) {
			ret = iow_fail(err, "out of memory");
			goto out;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n && ret == 0; i++) {
		size_t base_len = percpu_base_len(names[i]);
		char *path;
		struct stat st;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			ret = iow_fail(err, "out of memory");
			break;
		}
		if (base_len) {
			/* One source per set, found at its first file. */
			if (!set || set_len != base_len ||
			    strncmp(set, names[i], base_len)) {
				path[strlen(dir) + 1 + base_len] = '\0';
				names[i][base_len] = '\0';
				ret = find_percpu_set(dir, names[i], path, list,
						      err) < 0 ? -1 : 0;
				names[i][base_len] = '.';
				set = names[i];
				set_len = base_len;
			}
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			struct seen_file f = { names[i], NULL, NULL };
			const struct input_kind *kind = probe_file(path, &f);

			n_files++;
			if (kind)
				ret = add_single_file(list, TRACE_DUMP, kind,
						      path, err);
			else if (n_seen < SEEN_NAMED &&
				 (f.look || f.compression))
				seen[n_seen++] = f;
		}
		free(path);
	}
	if (ret == 0 && list->n == before)
		ret = no_trace_in(dir, seen, n_seen, n_files, err);
out:
	closedir(d);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int find_by_base(const char *arg, struct trace_list *list,
			struct iow_error *err)
{
	char *copy = strdup(arg), *slash;
	const char *dir = ".", *base = copy;
	int r;

	if (!copy)
		return iow_fail(err, "out of memory");
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		dir = copy[0] ? copy : "/";
		base = slash + 1;
	}
	r = find_percpu_set(dir, base, arg, list, err);
	free(copy);
	return r;
}

int feed_find_traces(const char *arg, struct trace_list *list,
		     struct iow_error *err)
{
	struct stat st;
	size_t base_len;
	int r;

	if (!strcmp(arg, "-")) {
		char **paths = calloc(1, sizeof(*paths));

		if (!paths || !(paths[0] = strdup("<stdin>"))) {
			free(paths);
			return iow_fail(err, "out of memory");
		}
		return add_source(list, TRACE_STDIN, &input_kinds[INPUT_STDIN],
				  "-", paths, 1, err);
	}
	if (stat(arg, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return find_in_directory(arg, list, err);
		base_len = percpu_base_len(arg);
		if (base_len) {
			char *base = strndup(arg, base_len);

			if (!base)
				return iow_fail(err, "out of memory");
			r = find_by_base(base, list, err);
			free(base);
			return r < 0 ? -1 : 0;
		}
		return add_single_file(list, TRACE_DUMP, NULL, arg, err);
	}
	r = find_by_base(arg, list, err);
	if (r < 0)
		return -1;
	if (r == 0)
		return iow_fail(err,
			"%s: no such file, and no %s.blktrace.N files", arg,
			arg);
	return 0;
}

int trace_list_found(const struct trace_list *list, size_t first,
		     const char *arg, char *buf, size_t size)
{
	size_t i, used;
	struct stat st;
	int n;

	if (stat(arg, &st) < 0 || !S_ISDIR(st.st_mode) || first >= list->n)
		return 0;
	n = snprintf(buf, size, "%s: %zu trace%s:", arg, list->n - first,
		     list->n - first == 1 ? "" : "s");
	for (i = first, used = n > 0 ? (size_t)n : 0;
	     i < list->n && used < size; i++, used += n > 0 ? (size_t)n : 0) {
		const struct trace_source *t = &list->items[i];
		const char *what = t->input ? t->input->what : "a trace";

		if (t->kind == TRACE_PERCPU)
			n = snprintf(buf + used, size - used,
				     "%s %s (%s, %zu CPU%s)", i > first ? "," : "",
				     t->label, what, t->n_paths,
				     t->n_paths == 1 ? "" : "s");
		else
			n = snprintf(buf + used, size - used, "%s %s (%s)",
				     i > first ? "," : "", t->label, what);
	}
	return 1;
}

void trace_list_free(struct trace_list *list)
{
	size_t i, j;

	for (i = 0; i < list->n; i++) {
		struct trace_source *src = &list->items[i];

		for (j = 0; j < src->n_paths; j++)
			free(src->paths[j]);
		free(src->paths);
		free(src->name);
		free(src->label);
	}
	free(list->items);
	list->items = NULL;
	list->n = 0;
}
