/*
 * causefile.c: the causes a recorder keeps beside a trace, written and
 * read back (causefile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytesrc.h"
#include "causefile.h"
#include "base/u64map.h"

/* A live reader told a record (cause_writer_mirror's): below. */
static int cause_reader_push(struct cause_reader *r, unsigned cpu,
			     const struct cause_rec *rec);

#define MAX_CPUS	8192
#define ORDER_MARK	0x01020304u

_Static_assert(sizeof(struct cause_rec) == CAUSE_REC_SIZE,
	       "struct cause_rec is the on-disk record");

static const char *const kind_names[N_FILE_KINDS] = {
	[FILE_KIND_FILE] = "file", [FILE_KIND_METADATA] = "metadata",
	[FILE_KIND_JOURNAL] = "journal", [FILE_KIND_SWAP] = "swap",
	[FILE_KIND_DEVICE] = "device",
};

static const char *const part_names[N_CAUSE_PARTS] = {
	[CAUSE_PART_FILES] = "files", [CAUSE_PART_STACKS] = "stacks",
};

/* ---- writing ---- */

struct cause_writer {
	char *base;		/* DIR/NAME */
	FILE **cpus;
	unsigned n_cpus;
	FILE *dict;
	struct cause_reader *mirror;	/* told the same, or NULL */
	int mirror_failed;
};

static int dict_line(struct cause_reader *r, char *line);

static int fail_io(struct iow_error *err, const char *what, const char *path)
{
	return iow_fail(err, "cannot %s %s: %s", what, path, strerror(errno));
}

struct cause_writer *cause_writer_open(const char *dir, const char *name,
				       struct iow_error *err)
{
	struct cause_writer *w = calloc(1, sizeof(*w));
	char *path = NULL;

	if (!w || asprintf(&w->base, "%s/%s", dir ? dir : ".", name) < 0 ||
	    asprintf(&path, "%s.cause", w->base) < 0) {
		free(w ? w->base : NULL);
		free(w);
		iow_fail(err, "out of memory");
		return NULL;
	}
	w->dict = fopen(path, "we");
	if (!w->dict) {
		fail_io(err, "create", path);
		free(path);
		free(w->base);
		free(w);
		return NULL;
	}
	free(path);
	fputs("iowatcher causes 1\n", w->dict);
	return w;
}

static FILE *cpu_file(struct cause_writer *w, unsigned cpu,
		      struct iow_error *err)
{
	static const uint32_t head[2] = { CAUSE_REC_SIZE, ORDER_MARK };
	FILE **more;
	char path[4096];

	if (cpu < w->n_cpus && w->cpus[cpu])
		return w->cpus[cpu];
	if (cpu >= MAX_CPUS) {
		iow_fail(err, "cause of cpu %u: out of range", cpu);
		return NULL;
	}
	if (cpu >= w->n_cpus) {
		more = realloc(w->cpus, (cpu + 1) * sizeof(*more));
		if (!more) {
			iow_fail(err, "out of memory");
			return NULL;
		}
		memset(more + w->n_cpus, 0,
		       (cpu + 1 - w->n_cpus) * sizeof(*more));
		w->cpus = more;
		w->n_cpus = cpu + 1;
	}
	snprintf(path, sizeof(path), "%s.cause.%u", w->base, cpu);
	w->cpus[cpu] = fopen(path, "we");
	if (!w->cpus[cpu]) {
		fail_io(err, "create", path);
		return NULL;
	}
	if (fwrite(CAUSE_FILE_MAGIC, 8, 1, w->cpus[cpu]) != 1 ||
	    fwrite(head, sizeof(head), 1, w->cpus[cpu]) != 1) {
		fail_io(err, "write", path);
		return NULL;
	}
	return w->cpus[cpu];
}

int cause_write(struct cause_writer *w, unsigned cpu,
		const struct cause_rec *r, struct iow_error *err)
{
	FILE *f = cpu_file(w, cpu, err);
	char path[4096];

	if (!f)
		return -1;
	if (w->mirror && cause_reader_push(w->mirror, cpu, r) < 0)
		w->mirror_failed = 1;
	if (fwrite(r, sizeof(*r), 1, f) == 1)
		return 0;
	snprintf(path, sizeof(path), "%s.cause.%u", w->base, cpu);
	return fail_io(err, "write", path);
}

void cause_writer_mirror(struct cause_writer *w, struct cause_reader *r)
{
	w->mirror = r;
}

/* A name as one field: tabs, newlines and backslashes escaped. */
static void put_field(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else
			fputc(*s, f);
	}
}

/* A dictionary line is made in memory, then written (and mirrored). */
struct dict_line {
	FILE *f;
	char *text;
	size_t len;
};

static FILE *line_start(struct dict_line *l)
{
	l->text = NULL;
	l->f = open_memstream(&l->text, &l->len);
	return l->f;
}

static int line_end(struct cause_writer *w, struct dict_line *l,
		    struct iow_error *err)
{
	char path[4096];

	if (!l->f || fclose(l->f)) {
		free(l->text);
		return iow_fail(err, "out of memory");
	}
	fputs(l->text, w->dict);
	fputc('\n', w->dict);
	if (w->mirror && dict_line(w->mirror, l->text) < 0)
		w->mirror_failed = 1;
	free(l->text);
	if (!ferror(w->dict))
		return 0;
	snprintf(path, sizeof(path), "%s.cause", w->base);
	return fail_io(err, "write", path);
}

int cause_write_task(struct cause_writer *w, uint32_t tid, uint32_t tgid,
		     const char *comm, struct iow_error *err)
{
	struct dict_line l;

	if (line_start(&l)) {
		fprintf(l.f, "task\t%u\t%u\t", tid, tgid);
		put_field(l.f, comm);
	}
	return line_end(w, &l, err);
}

static int write_cgroup_line(struct cause_writer *w, const char *word,
			     uint64_t id, const char *path,
			     struct iow_error *err)
{
	struct dict_line l;

	if (line_start(&l)) {
		fprintf(l.f, "%s\t%llu\t", word, (unsigned long long)id);
		put_field(l.f, path);
	}
	return line_end(w, &l, err);
}

int cause_write_cgroup(struct cause_writer *w, uint64_t id, const char *path,
		       struct iow_error *err)
{
	return write_cgroup_line(w, "cgroup", id, path, err);
}

int cause_write_cgroup2(struct cause_writer *w, uint64_t id, const char *path,
			struct iow_error *err)
{
	return write_cgroup_line(w, "cgroup2", id, path, err);
}

int cause_write_cgroup_root(struct cause_writer *w, const char *root, int v1,
			    struct iow_error *err)
{
	struct dict_line l;

	if (line_start(&l)) {
		fprintf(l.f, "cgroups\t%s\t", v1 ? "v1 blkio" : "v2");
		put_field(l.f, root);
	}
	return line_end(w, &l, err);
}

int cause_write_file(struct cause_writer *w, uint32_t dev, uint64_t ino,
		     uint32_t gen, enum cause_file_kind kind, const char *path,
		     struct iow_error *err)
{
	struct dict_line l;

	if (line_start(&l)) {
		fprintf(l.f, "file\t%u\t%llu", dev, (unsigned long long)ino);
		if (gen)	/* an older reader reads INO and stops there */
			fprintf(l.f, ":%u", gen);
		fprintf(l.f, "\t%s\t",
			kind_names[kind < N_FILE_KINDS ? kind : FILE_KIND_FILE]);
		put_field(l.f, path);
	}
	return line_end(w, &l, err);
}

int cause_write_stack(struct cause_writer *w, int user, int32_t id,
		      const char *const *frames, size_t n,
		      struct iow_error *err)
{
	struct dict_line l;
	size_t i;

	if (line_start(&l)) {
		fprintf(l.f, "%s\t%d\t", user ? "ustack" : "kstack", id);
		for (i = 0; i < n; i++) {
			if (i)
				fputc(';', l.f);
			put_field(l.f, frames[i]);
		}
	}
	return line_end(w, &l, err);
}

int cause_write_note(struct cause_writer *w, const char *text,
		     struct iow_error *err)
{
	struct dict_line l;

	if (line_start(&l)) {
		fputs("note\t", l.f);
		put_field(l.f, text);
	}
	return line_end(w, &l, err);
}

int cause_write_unrecorded(struct cause_writer *w, enum cause_part part,
			   const char *why, struct iow_error *err)
{
	struct dict_line l;

	if (line_start(&l)) {
		fprintf(l.f, "unrecorded\t%s\t", part_names[part]);
		put_field(l.f, why);
	}
	return line_end(w, &l, err);
}

int cause_writer_close(struct cause_writer *w, struct iow_error *err)
{
	char path[4096];
	unsigned i;
	int rc = 0;

	if (!w)
		return 0;
	for (i = 0; i < w->n_cpus; i++) {
		if (w->cpus[i] && fclose(w->cpus[i]) && !rc) {
			snprintf(path, sizeof(path), "%s.cause.%u", w->base, i);
			rc = fail_io(err, "write", path);
		}
	}
	if (fclose(w->dict) && !rc) {
		snprintf(path, sizeof(path), "%s.cause", w->base);
		rc = fail_io(err, "write", path);
	}
	free(w->cpus);
	free(w->base);
	free(w);
	return rc;
}

/* ---- reading ---- */

struct cause_cursor {
	FILE *f;
	int swap;
	int have;		/* cur holds the next record */
	struct cause_rec cur;
	size_t rec_size;	/* its file's: CAUSE_REC_SIZE, or _64 */
	struct cause_rec out;	/* the one last handed out */
	int damaged;		/* ended early: the rest unreadable */
	char suffix[8];		/* its compression's (".gz"), or "" */
	/* a live reader's: the records pushed and not yet taken */
	struct cause_rec *queue;
	size_t head, n, cap;
};

struct file_name {
	uint32_t dev, gen;
	uint64_t ino;
	enum cause_file_kind kind;
	char *path;
};

struct cause_reader {
	char *base;
	int live;			/* records pushed, no files */
	uint64_t pushed;
	struct cause_cursor *cpus;
	unsigned n_cpus;
	/* the dictionary: names, and maps to them */
	char **strings;
	size_t n_strings;
	struct u64map tasks, cgroups, cgroups2, kstacks, ustacks, files;
	/* the io controller's hierarchy: 1 + string index, 0: not said */
	uint32_t cgroup_root;
	int cgroup_v1;
	struct file_name *file_names;
	size_t n_files;
	char *notes;
	uint32_t unrecorded[N_CAUSE_PARTS];	/* 1 + string index, 0: none */
	uint64_t orphans;	/* records matching no QUEUE event */
	char warning[256];
};

static uint32_t swap32(uint32_t v, int swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t swap64(uint64_t v, int swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

static void rec_to_host(struct cause_rec *r, int swap)
{
	if (!swap)
		return;
	r->sequence = swap32(r->sequence, 1);
	r->device = swap32(r->device, 1);
	r->pid = swap32(r->pid, 1);
	r->tgid = swap32(r->tgid, 1);
	r->owner_pid = swap32(r->owner_pid, 1);
	r->owner_tgid = swap32(r->owner_tgid, 1);
	r->cgroup = swap64(r->cgroup, 1);
	r->cgroup2 = swap64(r->cgroup2, 1);
	r->ino_gen = swap32(r->ino_gen, 1);
	r->ino = swap64(r->ino, 1);
	r->ino_dev = swap32(r->ino_dev, 1);
	r->kstack = (int32_t)swap32((uint32_t)r->kstack, 1);
	r->ustack = (int32_t)swap32((uint32_t)r->ustack, 1);
	r->flags = swap32(r->flags, 1);
}

/* cpu's next record into its cursor; have 0 at the end (for now, in a
 * live reader). */
static void cursor_next(struct cause_cursor *c)
{
	if (!c->f) {
		c->have = c->n > 0;
		if (c->have) {
			c->cur = c->queue[c->head];
			c->head = (c->head + 1) % c->cap;
			c->n--;
		}
		return;
	}
	memset(&c->cur, 0, sizeof(c->cur));
	c->have = fread(&c->cur, c->rec_size, 1, c->f) == 1;
	if (c->have)
		rec_to_host(&c->cur, c->swap);
	else if (ferror(c->f))
		c->damaged = 1;	/* a compressed file cut short */
}

/* The suffixes a cause file may have once compressed with the trace. */
static const char *const cause_suffixes[] = { "", ".gz", ".xz", ".zst" };
#define N_CAUSE_SUFFIXES (sizeof(cause_suffixes) / sizeof(cause_suffixes[0]))


/* Which of path, path.gz, path.xz, path.zst is there (into found): 1, or
 * 0 if none. */
static int find_cause_file(const char *path, char *found, size_t size)
{
	size_t i;

	for (i = 0; i < N_CAUSE_SUFFIXES; i++) {
		snprintf(found, size, "%s%s", path, cause_suffixes[i]);
		if (access(found, F_OK) == 0)
			return 1;
	}
	return 0;
}

/* A cause file, plain or compressed: NULL without err set if there is
 * none, NULL with err on one that cannot be read. */
static FILE *open_cause_file(const char *path, char *found, size_t size,
			     struct iow_error *err)
{
	if (!find_cause_file(path, found, size))
		return NULL;
	return bytesrc_fopen(found, err);
}

static int open_cursor(struct cause_cursor *c, const char *path,
		       struct iow_error *err)
{
	char magic[8], found[4096];
	struct iow_error why = { "" };
	uint32_t head[2];

	c->f = open_cause_file(path, found, sizeof(found), &why);
	if (!c->f && why.msg[0])
		return iow_fail(err, "%s", why.msg);
	if (!c->f)
		return 0;	/* a CPU that queued nothing */
	snprintf(c->suffix, sizeof(c->suffix), "%s", found + strlen(path));
	path = found;
	if ((fread(magic, 8, 1, c->f) != 1 ||
	     fread(head, sizeof(head), 1, c->f) != 1) && ferror(c->f))
		return iow_fail(err, "%s: cut short or damaged before its first record: give the whole file, or remove NAME.cause* to read the trace without causes",
				path);
	if (feof(c->f) || memcmp(magic, CAUSE_FILE_MAGIC, 8))
		return iow_fail(err, "%s: not a cause file (expected %s at byte 0): record the trace again, or remove it to read the trace without causes",
				path, CAUSE_FILE_MAGIC);
	c->swap = head[1] != ORDER_MARK;
	c->rec_size = swap32(head[0], c->swap);
	if (swap32(head[1], c->swap) != ORDER_MARK ||
	    (c->rec_size != CAUSE_REC_SIZE &&
	     c->rec_size != CAUSE_REC_SIZE_64))
		return iow_fail(err, "%s: byte 8: records of %u bytes, not %d: written by another version of iowatcher",
				path, swap32(head[0], c->swap), CAUSE_REC_SIZE);
	cursor_next(c);
	return 0;
}

/* A field's escapes undone, in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*out++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static int keep_string(struct cause_reader *r, const char *s, uint32_t *idx)
{
	char **more = realloc(r->strings, (r->n_strings + 1) * sizeof(*more));

	if (!more)
		return -1;
	r->strings = more;
	if (!(more[r->n_strings] = strdup(s)))
		return -1;
	*idx = (uint32_t)r->n_strings++;
	return 0;
}

static uint64_t file_key(uint32_t dev, uint64_t ino, uint32_t gen)
{
	return u64_mix(u64_mix(u64_mix(0, dev), ino), gen);
}

/* The fields of a line, tab-separated, up to max; their number. */
static size_t split_fields(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line || n == max)
			break;
		*line++ = '\0';
	}
	return n;
}

static int add_file(struct cause_reader *r, char **f)
{
	struct file_name *more;
	char *end;
	size_t k;
	uint32_t idx;

	more = realloc(r->file_names, (r->n_files + 1) * sizeof(*more));
	if (!more)
		return -1;
	r->file_names = more;
	more[r->n_files].dev = (uint32_t)strtoul(f[1], NULL, 10);
	more[r->n_files].ino = strtoull(f[2], &end, 10);
	more[r->n_files].gen = *end == ':' ? (uint32_t)strtoul(end + 1, NULL,
							       10) : 0;
	more[r->n_files].kind = FILE_KIND_FILE;
	for (k = 0; k < N_FILE_KINDS; k++)
		if (!strcmp(f[3], kind_names[k]))
			more[r->n_files].kind = (enum cause_file_kind)k;
	unescape(f[4]);
	if (!(more[r->n_files].path = strdup(f[4])))
		return -1;
	idx = (uint32_t)r->n_files++;
	return u64map_put(&r->files, file_key(more[idx].dev, more[idx].ino,
					      more[idx].gen), idx);
}

static int add_note(struct cause_reader *r, char *text)
{
	size_t old = r->notes ? strlen(r->notes) : 0;
	char *more;

	unescape(text);
	more = realloc(r->notes, old + strlen(text) + 3);
	if (!more)
		return -1;
	snprintf(more + old, strlen(text) + 3, "%s%s", old ? "; " : "", text);
	r->notes = more;
	return 0;
}

static int add_unrecorded(struct cause_reader *r, const char *part,
			  char *why)
{
	size_t i;
	uint32_t idx;

	for (i = 0; i < N_CAUSE_PARTS; i++) {
		if (strcmp(part, part_names[i]))
			continue;
		unescape(why);
		if (keep_string(r, why, &idx) < 0)
			return -1;
		r->unrecorded[i] = idx + 1;
	}
	return 0;
}

/* One dictionary line; -1 out of memory (a line not understood is
 * skipped: a newer writer may know more kinds). */
static int dict_line(struct cause_reader *r, char *line)
{
	char *f[5];
	size_t n = split_fields(line, f, 5);
	uint32_t idx;

	if (n == 4 && !strcmp(f[0], "task")) {
		unescape(f[3]);
		return keep_string(r, f[3], &idx) < 0 ? -1 :
		       u64map_put(&r->tasks, strtoull(f[1], NULL, 10), idx);
	}
	if (n == 3 && (!strcmp(f[0], "cgroup") || !strcmp(f[0], "cgroup2"))) {
		unescape(f[2]);
		return keep_string(r, f[2], &idx) < 0 ? -1 :
		       u64map_put(f[0][6] ? &r->cgroups2 : &r->cgroups,
				  strtoull(f[1], NULL, 10), idx);
	}
	if (n == 3 && !strcmp(f[0], "cgroups")) {
		unescape(f[2]);
		if (keep_string(r, f[2], &idx) < 0)
			return -1;
		r->cgroup_root = idx + 1;
		r->cgroup_v1 = !strcmp(f[1], "v1 blkio");
		return 0;
	}
	if (n == 3 && (!strcmp(f[0], "kstack") || !strcmp(f[0], "ustack"))) {
		/* frames keep their escapes: ';' joins them as written */
		return keep_string(r, f[2], &idx) < 0 ? -1 :
		       u64map_put(f[0][0] == 'k' ? &r->kstacks : &r->ustacks,
				  (uint64_t)(uint32_t)atoi(f[1]), idx);
	}
	if (n == 5 && !strcmp(f[0], "file"))
		return add_file(r, f);
	if (n == 2 && !strcmp(f[0], "note"))
		return add_note(r, f[1]);
	if (n == 3 && !strcmp(f[0], "unrecorded"))
		return add_unrecorded(r, f[1], f[2]);
	return 0;
}

static int load_dictionary(struct cause_reader *r, const char *path,
			   struct iow_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0, first = 1;
	struct iow_error why = { "" };
	char found[4096];
	FILE *f;

	f = open_cause_file(path, found, sizeof(found), &why);
	if (!f && why.msg[0])
		return iow_fail(err, "%s", why.msg);
	if (!f)
		return iow_fail(err, "%s: %s (the trace's causes need it beside NAME.cause.N)",
				path, strerror(ENOENT));
	path = found;
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (first && strcmp(line, "iowatcher causes 1"))
			rc = iow_fail(err, "%s: line 1: not an iowatcher cause dictionary (\"iowatcher causes 1\" expected)",
				      path);
		else if (!first && dict_line(r, line) < 0)
			rc = iow_fail(err, "out of memory");
		first = 0;
	}
	if (rc == 0 && ferror(f))
		rc = iow_fail(err, "%s: cut short or damaged: give the whole file, or remove NAME.cause* to read the trace without causes",
			      path);
	free(line);
	fclose(f);
	return rc;
}

struct cause_reader *cause_reader_open(const char *base,
				       struct iow_error *err)
{
	struct cause_reader *r;
	char path[4096], found[4096];
	unsigned cpu, last = 0;
	int any = 0, dict;

	/* the CPUs' files: 0, 1, ... up to the last there (plain, or
	 * compressed as the trace's files may be) */
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "%s.cause.%u", base, cpu);
		if (find_cause_file(path, found, sizeof(found))) {
			any = 1;
			last = cpu;
		} else if (cpu > last + 64) {
			break;
		}
	}
	snprintf(path, sizeof(path), "%s.cause", base);
	dict = find_cause_file(path, found, sizeof(found));
	if (!any && !dict)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->base = strdup(base)) ||
	    !(r->cpus = calloc(last + 1, sizeof(*r->cpus)))) {
		cause_reader_close(r);
		iow_fail(err, "out of memory");
		return NULL;
	}
	r->n_cpus = last + 1;
	for (cpu = 0; cpu < r->n_cpus; cpu++) {
		snprintf(path, sizeof(path), "%s.cause.%u", base, cpu);
		if (open_cursor(&r->cpus[cpu], path, err) < 0) {
			cause_reader_close(r);
			return NULL;
		}
	}
	snprintf(path, sizeof(path), "%s.cause", base);
	if (load_dictionary(r, path, err) < 0) {
		cause_reader_close(r);
		return NULL;
	}
	return r;
}

struct cause_reader *cause_reader_live(void)
{
	struct cause_reader *r = calloc(1, sizeof(*r));

	if (r)
		r->live = 1;
	return r;
}

static int cause_reader_push(struct cause_reader *r, unsigned cpu,
			     const struct cause_rec *rec)
{
	struct cause_cursor *c;

	if (cpu >= MAX_CPUS)
		return 0;
	if (cpu >= r->n_cpus) {
		struct cause_cursor *more = realloc(r->cpus, (cpu + 1) *
						    sizeof(*more));

		if (!more)
			return -1;
		memset(more + r->n_cpus, 0,
		       (cpu + 1 - r->n_cpus) * sizeof(*more));
		r->cpus = more;
		r->n_cpus = cpu + 1;
	}
	c = &r->cpus[cpu];
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256, i;
		struct cause_rec *q = malloc(cap * sizeof(*q));

		if (!q)
			return -1;
		for (i = 0; i < c->n; i++)
			q[i] = c->queue[(c->head + i) % c->cap];
		free(c->queue);
		c->queue = q;
		c->head = 0;
		c->cap = cap;
	}
	c->queue[(c->head + c->n) % c->cap] = *rec;
	c->n++;
	r->pushed++;
	return 0;
}

int cause_reader_kept(const struct cause_reader *r)
{
	return r && (!r->live || r->pushed);
}

const struct cause_rec *cause_reader_match(struct cause_reader *r,
					   const struct io_event *ev)
{
	struct cause_cursor *c;

	if (ev->cpu >= r->n_cpus)
		return NULL;
	c = &r->cpus[ev->cpu];
	if (!c->have && r->live)
		cursor_next(c);
	/* records whose QUEUE was not read (lost with it) are passed */
	while (c->have && c->cur.device == ev->device &&
	       c->cur.sequence < ev->sequence) {
		r->orphans++;
		cursor_next(c);
	}
	if (!c->have || c->cur.device != ev->device ||
	    c->cur.sequence != ev->sequence)
		return NULL;
	c->out = c->cur;
	cursor_next(c);
	return &c->out;
}

static const char *string_of(const struct cause_reader *r,
			     const struct u64map *m, uint64_t key)
{
	uint32_t idx;

	return u64map_get(m, key, &idx) ? r->strings[idx] : NULL;
}

const char *cause_task_name(const struct cause_reader *r, uint32_t tid)
{
	return string_of(r, &r->tasks, tid);
}

const char *cause_cgroup_path(const struct cause_reader *r, uint64_t id)
{
	return string_of(r, &r->cgroups, id);
}

const char *cause_cgroup2_path(const struct cause_reader *r, uint64_t id)
{
	return string_of(r, &r->cgroups2, id);
}

const char *cause_cgroup_root(const struct cause_reader *r, int *v1)
{
	*v1 = r->cgroup_v1;
	return r->cgroup_root ? r->strings[r->cgroup_root - 1] : NULL;
}

const char *cause_file_path(const struct cause_reader *r, uint32_t dev,
			    uint64_t ino, uint32_t gen,
			    enum cause_file_kind *kind)
{
	uint32_t idx;
	const struct file_name *f;

	if (!u64map_get(&r->files, file_key(dev, ino, gen), &idx))
		return NULL;
	f = &r->file_names[idx];
	if (f->dev != dev || f->ino != ino || f->gen != gen)
		return NULL;
	if (kind)
		*kind = f->kind;
	return f->path;
}

const char *cause_stack(const struct cause_reader *r, int user, int32_t id)
{
	if (id < 0)
		return NULL;
	return string_of(r, user ? &r->ustacks : &r->kstacks,
			 (uint64_t)(uint32_t)id);
}

const char *cause_notes(const struct cause_reader *r)
{
	return r->notes;
}

const char *cause_unrecorded(const struct cause_reader *r,
			     enum cause_part part)
{
	if (!r || part >= N_CAUSE_PARTS || !r->unrecorded[part])
		return NULL;
	return r->strings[r->unrecorded[part] - 1];
}

const char *cause_reader_warning(const struct cause_reader *r)
{
	struct cause_reader *w = (struct cause_reader *)r;
	size_t i;

	for (i = 0; r->cpus && i < r->n_cpus; i++)
		if (r->cpus[i].damaged) {
			snprintf(w->warning, sizeof(w->warning),
				 "%s.cause.%zu%s: cut short or damaged: the I/O after it has no cause",
				 r->base ? r->base : "the recording's", i,
				 r->cpus[i].suffix);
			return w->warning;
		}
	if (!r->orphans)
		return NULL;
	snprintf(w->warning, sizeof(w->warning),
		 "%s.cause.*: %llu causes matched no QUEUE record of the trace",
		 r->base ? r->base : "the recording's",
		 (unsigned long long)r->orphans);
	return w->warning;
}

void cause_reader_close(struct cause_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->cpus && i < r->n_cpus; i++) {
		if (r->cpus[i].f)
			fclose(r->cpus[i].f);
		free(r->cpus[i].queue);
	}
	for (i = 0; i < r->n_strings; i++)
		free(r->strings[i]);
	for (i = 0; i < r->n_files; i++)
		free(r->file_names[i].path);
	free(r->strings);
	free(r->file_names);
	u64map_free(&r->tasks);
	u64map_free(&r->cgroups);
	u64map_free(&r->cgroups2);
	u64map_free(&r->kstacks);
	u64map_free(&r->ustacks);
	u64map_free(&r->files);
	free(r->notes);
	free(r->cpus);
	free(r->base);
	free(r);
}
