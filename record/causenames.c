/* causenames.c: names for the causes a recorder saw (causenames.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "base/vec.h"
#include "causenames.h"
#include "base/u64map.h"

/* ---- kernel symbols ---- */

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset in names */
};

struct ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ksyms_add(struct ksyms *k, uint64_t addr, const char *name)
{
	size_t len = strlen(name) + 1;

	if (k->n == k->cap) {
		struct ksym *more = vec_grow(k->syms, &k->cap, k->n + 1,
					     sizeof(*more), 65536);

		if (!more)
			return -1;
		k->syms = more;
	}
	if (k->names_len + len > k->names_cap) {
		char *more = vec_grow(k->names, &k->names_cap,
				      k->names_len + len, 1, 1 << 20);

		if (!more)
			return -1;
		k->names = more;
	}
	memcpy(k->names + k->names_len, name, len);
	k->syms[k->n++] = (struct ksym){ addr, (uint32_t)k->names_len };
	k->names_len += len;
	return 0;
}

struct ksyms *ksyms_load(const char *path, struct iow_error *err)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	char line[512], name[256], type;
	unsigned long long addr;
	int any_addr = 0;
	FILE *f;

	if (!k) {
		iow_fail(err, "out of memory");
		return NULL;
	}
	f = fopen(path, "re");
	if (!f) {
		iow_fail(err, "cannot read %s: %s", path, strerror(errno));
		free(k);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		/* functions only: text, local or global */
		if (type != 't' && type != 'T')
			continue;
		any_addr |= addr != 0;
		if (ksyms_add(k, addr, name)) {
			fclose(f);
			ksyms_free(k);
			iow_fail(err, "out of memory");
			return NULL;
		}
	}
	fclose(f);
	if (!any_addr) {
		ksyms_free(k);
		iow_fail(err, "%s shows no addresses (kptr_restrict): kernel stacks cannot be named",
			 path);
		return NULL;
	}
	qsort(k->syms, k->n, sizeof(*k->syms), ksym_cmp);
	return k;
}

const char *ksyms_name(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->n || addr < k->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {	/* the last symbol at or before addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* past the kernel's text and before a module's: no function's */
	if (!strcmp(k->names + k->syms[lo].name, "_etext"))
		return NULL;
	return k->names + k->syms[lo].name;
}

size_t ksyms_count(const struct ksyms *k)
{
	return k->n;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

/* ---- user symbols ---- */

struct umap {
	uint64_t start, end, pgoff;
	char *path;
};

struct umaps {
	struct umap *maps;
	size_t n;
};

struct umaps *umaps_read(const char *path)
{
	struct umaps *m = calloc(1, sizeof(*m));
	unsigned long long start, end, pgoff;
	char line[4096], perms[8];
	struct umap *more;
	FILE *f;
	int pos;

	if (!m)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		free(m);
		return NULL;
	}
	while (fgets(line, sizeof(line), f)) {
		char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end,
			   perms, &pgoff, &pos) != 4 || perms[2] != 'x')
			continue;
		file = line + pos;
		file[strcspn(file, "\n")] = '\0';
		more = realloc(m->maps, (m->n + 1) * sizeof(*more));
		if (!more)
			break;
		m->maps = more;
		more[m->n] = (struct umap){ start, end, pgoff, strdup(file) };
		if (!more[m->n].path)
			break;
		m->n++;
	}
	fclose(f);
	return m;
}

void umaps_free(struct umaps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->maps[i].path);
	free(m->maps);
	free(m);
}

static const struct umap *umap_of(const struct umaps *m, uint64_t addr)
{
	size_t i;

	for (i = 0; m && i < m->n; i++)
		if (addr >= m->maps[i].start && addr < m->maps[i].end)
			return &m->maps[i];
	return NULL;
}

int umaps_covers(const struct umaps *m, uint64_t addr)
{
	return umap_of(m, addr) != NULL;
}

/* One ELF file's functions and where its loaded segments sit. */
struct usym {
	uint64_t addr, size;
	uint32_t name;		/* offset in names */
};

struct elf_syms {
	char *path;
	struct usym *syms;	/* sorted by addr */
	size_t n, cap;
	char *names;
	size_t names_cap;
	struct { uint64_t offset, vaddr, filesz; } loads[16];
	size_t n_loads;
};

struct usyms {
	struct elf_syms *files;
	size_t n;
};

struct usyms *usyms_new(void)
{
	return calloc(1, sizeof(struct usyms));
}

static void elf_syms_free(struct elf_syms *e)
{
	free(e->path);
	free(e->syms);
	free(e->names);
}

void usyms_free(struct usyms *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->n; i++)
		elf_syms_free(&u->files[i]);
	free(u->files);
	free(u);
}

#ifdef HAVE_LIBELF
static int usym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The functions of one symbol table, appended to e (names copied). */
static int elf_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		     struct elf_syms *e, size_t *names_len)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (i = 0; data && i < count; i++) {
		const char *name;
		size_t len;
		char *more_names;
		struct usym *more;

		if (!gelf_getsym(data, (int)i, &sym) ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) ||
		    !sym.st_value || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		len = strlen(name) + 1;
		if (e->n == e->cap) {
			more = vec_grow(e->syms, &e->cap, e->n + 1,
					sizeof(*more), 1024);
			if (!more)
				return -1;
			e->syms = more;
		}
		if (*names_len + len > e->names_cap) {
			more_names = vec_grow(e->names, &e->names_cap,
					      *names_len + len, 1, 4096);
			if (!more_names)
				return -1;
			e->names = more_names;
		}
		memcpy(e->names + *names_len, name, len);
		e->syms[e->n++] = (struct usym){ sym.st_value, sym.st_size,
						 (uint32_t)*names_len };
		*names_len += len;
	}
	return 0;
}

static void elf_load(struct elf_syms *e)
{
	int fd = open(e->path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	size_t names_len = 0, i, n_ph;
	int have_symtab = 0;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf *elf;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	if (!elf_getphdrnum(elf, &n_ph))
		for (i = 0; i < n_ph && e->n_loads < 16; i++)
			if (gelf_getphdr(elf, (int)i, &ph) &&
			    ph.p_type == PT_LOAD) {
				e->loads[e->n_loads].offset = ph.p_offset;
				e->loads[e->n_loads].vaddr = ph.p_vaddr;
				e->loads[e->n_loads++].filesz = ph.p_filesz;
			}
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			have_symtab = 1;
	/* .symtab where the file kept it, else the dynamic symbols */
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    sh.sh_type == (have_symtab ? SHT_SYMTAB : SHT_DYNSYM) &&
		    elf_table(elf, scn, &sh, e, &names_len))
			break;
	qsort(e->syms, e->n, sizeof(*e->syms), usym_cmp);
out:
	if (elf)
		elf_end(elf);
	close(fd);
}
#else
static void elf_load(struct elf_syms *e)
{
	(void)e;	/* built without libelf: FILE+0xOFFSET frames */
}
#endif

static struct elf_syms *elf_of(struct usyms *u, const char *path)
{
	struct elf_syms *more;
	size_t i;

	for (i = 0; i < u->n; i++)
		if (!strcmp(u->files[i].path, path))
			return &u->files[i];
	more = realloc(u->files, (u->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	u->files = more;
	memset(&more[u->n], 0, sizeof(*more));
	more[u->n].path = strdup(path);
	if (!more[u->n].path)
		return NULL;
	elf_load(&more[u->n]);
	return &u->files[u->n++];
}

/* The function at vaddr of e, or NULL. */
static const char *elf_name(const struct elf_syms *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->n;

	if (!e->n || vaddr < e->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	if (e->syms[lo].size && vaddr >= e->syms[lo].addr + e->syms[lo].size)
		return NULL;
	return e->names + e->syms[lo].name;
}

const char *usyms_frame(struct usyms *u, const struct umaps *m, uint64_t addr,
			char *buf, size_t len)
{
	const struct umap *map = umap_of(m, addr);
	const struct elf_syms *e;
	uint64_t off, vaddr;
	const char *base, *name = NULL;
	size_t i;

	if (!map) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return buf;
	}
	off = addr - map->start + map->pgoff;
	base = strrchr(map->path, '/');
	base = base ? base + 1 : map->path;
	e = map->path[0] == '/' ? elf_of(u, map->path) : NULL;
	for (i = 0; e && i < e->n_loads; i++) {
		if (off < e->loads[i].offset ||
		    off >= e->loads[i].offset + e->loads[i].filesz)
			continue;
		vaddr = off - e->loads[i].offset + e->loads[i].vaddr;
		name = elf_name(e, vaddr);
		break;
	}
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s+0x%llx", *base ? base : "?",
			 (unsigned long long)off);
	return buf;
}

/* ---- mounts ---- */

struct mount {
	uint32_t dev;		/* MAJ << 20 | MIN */
	char *root, *point, *type, *opts;
};

struct mounts {
	struct mount *m;
	size_t n;
};

/* mountinfo's escapes (\040 for a space) undone, in place. */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static void mounts_free(struct mounts *ms)
{
	size_t i;

	for (i = 0; i < ms->n; i++) {
		free(ms->m[i].root);
		free(ms->m[i].point);
		free(ms->m[i].type);
		free(ms->m[i].opts);
	}
	free(ms->m);
	ms->m = NULL;
	ms->n = 0;
}

/* "36 35 98:0 /root /point opts [optional...] - type source superopts" */
static int mount_line(char *line, struct mount *mt)
{
	char *f[12], *dash, *save = NULL, *tok;
	unsigned maj, min;
	size_t n = 0;

	dash = strstr(line, " - ");
	if (!dash)
		return -1;
	*dash = '\0';
	for (tok = strtok_r(line, " \n", &save); tok && n < 5;
	     tok = strtok_r(NULL, " \n", &save))
		f[n++] = tok;
	if (n < 5 || sscanf(f[2], "%u:%u", &maj, &min) != 2)
		return -1;
	for (tok = strtok_r(dash + 3, " \n", &save); tok && n < 8;
	     tok = strtok_r(NULL, " \n", &save))
		f[n++] = tok;
	if (n < 8)
		return -1;
	unescape_octal(f[3]);
	unescape_octal(f[4]);
	mt->dev = maj << 20 | min;
	mt->root = strdup(f[3]);
	mt->point = strdup(f[4]);
	mt->type = strdup(f[5]);
	mt->opts = strdup(f[7]);
	return mt->root && mt->point && mt->type && mt->opts ? 0 : -1;
}

static int mounts_read(const char *path, struct mounts *ms)
{
	char line[8192];
	struct mount mt, *more;
	FILE *f = fopen(path, "re");

	ms->m = NULL;
	ms->n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		memset(&mt, 0, sizeof(mt));
		if (mount_line(line, &mt) ||
		    !(more = realloc(ms->m, (ms->n + 1) * sizeof(*more)))) {
			free(mt.root);
			free(mt.point);
			free(mt.type);
			free(mt.opts);
			continue;
		}
		ms->m = more;
		ms->m[ms->n++] = mt;
	}
	fclose(f);
	return 0;
}

static int has_option(const char *opts, const char *word)
{
	size_t len = strlen(word);
	const char *p = opts;

	while ((p = strstr(p, word))) {
		if ((p == opts || p[-1] == ',') &&
		    (p[len] == ',' || p[len] == '\0'))
			return 1;
		p += len;
	}
	return 0;
}

/* The mount of dev to look from: one of its whole file system (root
 * "/"), else its first; NULL when dev is not mounted. */
static const struct mount *mount_of(const struct mounts *ms, uint32_t dev)
{
	const struct mount *mt = NULL;
	size_t i;

	for (i = 0; i < ms->n; i++)
		if (ms->m[i].dev == dev &&
		    (!mt || (!strcmp(ms->m[i].root, "/") &&
			     strcmp(mt->root, "/"))))
			mt = &ms->m[i];
	return mt;
}

/* ---- walking a tree for inode numbers ---- */

struct walk {
	struct u64map *want;	/* ino -> index into found */
	char **found;
	size_t left;
	const struct mounts *ms;	/* mount points not to enter */
	const char *top;
	struct timespec deadline;
	int has_deadline, timed_out;
	unsigned long entries;
};

static int past_deadline(struct walk *w)
{
	struct timespec now;

	if (!w->has_deadline || ++w->entries % 256)
		return w->timed_out;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > w->deadline.tv_sec ||
	    (now.tv_sec == w->deadline.tv_sec &&
	     now.tv_nsec >= w->deadline.tv_nsec))
		w->timed_out = 1;
	return w->timed_out;
}

static int is_other_mount(const struct walk *w, const char *path)
{
	size_t i;

	for (i = 0; w->ms && i < w->ms->n; i++)
		if (!strcmp(w->ms->m[i].point, path) &&
		    strcmp(path, w->top))
			return 1;
	return 0;
}

static void walk_found(struct walk *w, uint64_t ino, const char *path)
{
	uint32_t idx;

	if (!u64map_get(w->want, ino, &idx) || w->found[idx])
		return;
	w->found[idx] = strdup(path);
	if (w->found[idx])
		w->left--;
}

/* Depth first, a stack of directories still to read. */
static void walk_tree(struct walk *w, const char *top)
{
	char **stack = NULL, **more, *dir, *child;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	w->top = top;
	if (stat(top, &st) == 0)
		walk_found(w, st.st_ino, top);
	if (!(dir = strdup(top)))
		return;
	for (;;) {
		d = w->left && !w->timed_out ? opendir(dir) : NULL;
		while (d && (de = readdir(d)) && w->left && !past_deadline(w)) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (asprintf(&child, "%s%s%s", dir,
				     dir[strlen(dir) - 1] == '/' ? "" : "/",
				     de->d_name) < 0)
				break;
			walk_found(w, de->d_ino, child);
			if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
			    (de->d_type == DT_UNKNOWN &&
			     (lstat(child, &st) || !S_ISDIR(st.st_mode))) ||
			    is_other_mount(w, child)) {
				free(child);
				continue;
			}
			if (n == cap) {
				more = vec_grow(stack, &cap, n + 1,
						sizeof(*more), 64);
				if (!more) {
					free(child);
					break;
				}
				stack = more;
			}
			stack[n++] = child;
		}
		if (d)
			closedir(d);
		free(dir);
		if (!n || !w->left || w->timed_out)
			break;
		dir = stack[--n];
	}
	while (n)
		free(stack[--n]);
	free(stack);
}

/* ---- cgroups ---- */

int cgroup_io_root(const char *mountinfo, char *dir, size_t len)
{
	struct mounts ms;
	const char *v2 = NULL, *v1 = NULL;
	size_t i;
	int rc = -1;

	if (mounts_read(mountinfo, &ms))
		return -1;
	for (i = 0; i < ms.n; i++) {
		if (!strcmp(ms.m[i].type, "cgroup") &&
		    has_option(ms.m[i].opts, "blkio") && !v1)
			v1 = ms.m[i].point;
		if (!strcmp(ms.m[i].type, "cgroup2") && !v2)
			v2 = ms.m[i].point;
	}
	if (v1 || v2) {
		snprintf(dir, len, "%s", v1 ? v1 : v2);
		rc = 0;
	}
	mounts_free(&ms);
	return rc;
}

int cgroup_v2_root(const char *mountinfo, char *dir, size_t len)
{
	struct mounts ms;
	size_t i;
	int rc = -1;

	if (mounts_read(mountinfo, &ms))
		return -1;
	for (i = 0; i < ms.n && rc; i++) {
		if (strcmp(ms.m[i].type, "cgroup2"))
			continue;
		snprintf(dir, len, "%s", ms.m[i].point);
		rc = 0;
	}
	mounts_free(&ms);
	return rc;
}

size_t cgroup_paths(const char *root, uint64_t *ids, char **paths, size_t n)
{
	struct u64map want = { 0 };
	struct walk w = { .want = &want, .found = paths };
	size_t i, found = 0, root_len = strlen(root);

	for (i = 0; i < n; i++) {
		paths[i] = NULL;
		if (ids[i] && u64map_put(&want, ids[i], (uint32_t)i) == 0)
			w.left++;
	}
	if (w.left)
		walk_tree(&w, root);
	u64map_free(&want);
	/* under the root: "/" and "/a/b" */
	for (i = 0; i < n; i++) {
		char *rel;

		if (!paths[i])
			continue;
		rel = strdup(paths[i][root_len] ? paths[i] + root_len : "/");
		free(paths[i]);
		paths[i] = rel;
		if (rel) {
			ids[i] = 0;
			found++;
		}
	}
	return found;
}

/* ---- files ---- */

size_t file_paths(const char *mountinfo, struct file_query *q, size_t n,
		  long budget_ms, int *timed_out)
{
	struct mounts ms;
	struct walk w = { .has_deadline = budget_ms > 0 };
	size_t i, j, found = 0;
	char **paths = calloc(n ? n : 1, sizeof(*paths));
	char *done = calloc(n ? n : 1, 1);
	struct u64map want;

	*timed_out = 0;
	if (!paths || !done || mounts_read(mountinfo, &ms)) {
		free(paths);
		free(done);
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &w.deadline);
	w.deadline.tv_sec += budget_ms / 1000;
	w.deadline.tv_nsec += (budget_ms % 1000) * 1000000L;
	if (w.deadline.tv_nsec >= 1000000000L) {
		w.deadline.tv_sec++;
		w.deadline.tv_nsec -= 1000000000L;
	}
	w.ms = &ms;
	w.found = paths;
	/* a device at a time: its inodes, from its first whole mount */
	for (i = 0; i < n && !w.timed_out; i++) {
		const struct mount *mt;

		if (done[i] || q[i].path)
			continue;
		memset(&want, 0, sizeof(want));
		w.want = &want;
		w.left = 0;
		for (j = i; j < n; j++) {
			if (q[j].dev != q[i].dev || done[j] || q[j].path)
				continue;
			done[j] = 1;
			if (u64map_put(&want, q[j].ino, (uint32_t)j) == 0)
				w.left++;
		}
		mt = mount_of(&ms, q[i].dev);
		if (mt)
			walk_tree(&w, mt->point);
		u64map_free(&want);
	}
	*timed_out = w.timed_out;
	for (i = 0; i < n; i++) {
		if (paths[i] && !q[i].path) {
			q[i].path = paths[i];
			found++;
		} else {
			free(paths[i]);
		}
	}
	free(paths);
	free(done);
	mounts_free(&ms);
	return found;
}

int file_generation_differs(const char *path, uint32_t gen)
{
	struct stat st;
	int fd, version = 0, differs = 0;

	/* opened only to ask: no device or FIFO, which an open may move */
	if (!gen || lstat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (ioctl(fd, FS_IOC_GETVERSION, &version) == 0)
		differs = (uint32_t)version != gen;
	close(fd);
	return differs;
}

/* ---- a file at a time, by handle ---- */

/* The handle ext2-4 and f2fs decode: a 32-bit inode number and its
 * generation, 0 for "any" (the kernel's FILEID_INO32_GEN): another file
 * given the number since is not taken for it. */
#define HANDLE_INO32_GEN	1
/* A device whose file system fails this many, none found, is let be. */
#define HANDLE_GIVE_UP		16

struct handle_dev {
	uint32_t dev;
	int fd;			/* its mount's directory, or -1: none */
	char *point, *root;	/* that mount's, or NULL */
	unsigned found, failed;
};

struct file_handles {
	const char *mountinfo;
	struct handle_dev *devs;
	size_t n;
};

struct file_handles *file_handles_new(const char *mountinfo)
{
	struct file_handles *fh = calloc(1, sizeof(*fh));

	if (fh)
		fh->mountinfo = mountinfo;
	return fh;
}

void file_handles_free(struct file_handles *fh)
{
	size_t i;

	if (!fh)
		return;
	for (i = 0; i < fh->n; i++) {
		if (fh->devs[i].fd >= 0)
			close(fh->devs[i].fd);
		free(fh->devs[i].point);
		free(fh->devs[i].root);
	}
	free(fh->devs);
	free(fh);
}

/* dev's entry, its mount's directory opened the first time; NULL out of
 * memory. */
static struct handle_dev *handle_dev(struct file_handles *fh, uint32_t dev)
{
	const struct mount *mt;
	struct handle_dev *more, *d;
	struct mounts ms;
	size_t i;

	for (i = 0; i < fh->n; i++)
		if (fh->devs[i].dev == dev)
			return &fh->devs[i];
	more = realloc(fh->devs, (fh->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	fh->devs = more;
	d = &more[fh->n++];
	*d = (struct handle_dev){ .dev = dev, .fd = -1 };
	if (mounts_read(fh->mountinfo, &ms))
		return d;
	mt = mount_of(&ms, dev);
	if (mt) {
		d->fd = open(mt->point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d->point = strdup(mt->point);
		d->root = strdup(mt->root);
	}
	mounts_free(&ms);
	return d;
}

static int stat_is(const struct stat *st, uint32_t dev, uint64_t ino)
{
	return st->st_ino == ino &&
	       (uint32_t)(major(st->st_dev) << 20 | minor(st->st_dev)) == dev;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* The path of what fd is open on, if it is still (dev, ino) there, or
 * was until it was removed: then its link's "PATH (deleted)". */
static char *fd_path(int fd, uint32_t dev, uint64_t ino)
{
	char link[64], path[4096];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	/* a dentry the kernel could not connect names no path of the
	 * tree; a removed file (still open somewhere) names its last */
	if (path[0] != '/')
		return NULL;
	if (ends_with(path, FILE_DELETED) && !fstat(fd, &st) &&
	    stat_is(&st, dev, ino))
		return strdup(path);
	if (stat(path, &st) || !stat_is(&st, dev, ino))
		return NULL;
	return strdup(path);
}

char *file_handles_path(struct file_handles *fh, uint32_t dev, uint64_t ino,
			uint32_t gen)
{
	struct handle_dev *d = handle_dev(fh, dev);
	struct file_handle *h;
	uint32_t words[2] = { (uint32_t)ino, gen };
	char *path = NULL;
	int fd;

	if (!d || d->fd < 0 || ino > UINT32_MAX ||
	    (!d->found && d->failed >= HANDLE_GIVE_UP))
		return NULL;
	h = malloc(sizeof(*h) + sizeof(words));
	if (!h)
		return NULL;
	h->handle_bytes = sizeof(words);
	h->handle_type = HANDLE_INO32_GEN;
	memcpy(h->f_handle, words, sizeof(words));
	fd = open_by_handle_at(d->fd, h, O_PATH | O_CLOEXEC);
	free(h);
	if (fd >= 0) {
		path = fd_path(fd, dev, ino);
		close(fd);
	}
	if (path)
		d->found++;
	else
		d->failed++;
	return path;
}

char *file_handles_mounted(struct file_handles *fh, uint32_t dev,
			   const char *rel)
{
	struct handle_dev *d = handle_dev(fh, dev);
	size_t root_len;
	char *path;

	if (!d || !d->point || !d->root)
		return NULL;
	/* a mount of a subtree (a bind mount) shows what is under it */
	root_len = strcmp(d->root, "/") ? strlen(d->root) : 0;
	if (root_len && (strncmp(rel, d->root, root_len) ||
			 (rel[root_len] != '/' && rel[root_len])))
		return NULL;
	rel += root_len;
	path = malloc(strlen(d->point) + strlen(rel) + 2);
	if (path)
		sprintf(path, "%s%s", strcmp(d->point, "/") ? d->point : "",
			rel);
	return path;
}
