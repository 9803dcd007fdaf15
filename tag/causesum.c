/* causesum.c: the ledger's sums per file and per stack (causesum.h). */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "causesum.h"
#include "analysis/histogram.h"
#include "base/u64map.h"

static uint64_t total_bytes(const uint64_t *bytes)
{
	uint64_t t = 0;
	int op;

	for (op = 0; op < N_OPS; op++)
		t += bytes[op];
	return t;
}

static int cmp_files(const void *pa, const void *pb)
{
	const struct file_sums *a = pa, *b = pb;
	uint64_t x = total_bytes(a->bytes), y = total_bytes(b->bytes);

	if (x != y)
		return x < y ? 1 : -1;
	if (a->bios != b->bios)
		return a->bios < b->bios ? 1 : -1;
	return strcmp(a->label, b->label);
}

/* The file's key: its label, so that kinds and unnamed inodes group. */
static uint64_t label_key(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

int causesum_files(const struct analysis *a, const struct cause_table *t,
		   struct file_sums **out, size_t *n)
{
	struct u64map index = { 0 };
	struct file_sums *files = NULL;
	size_t i, k, cap = 0;
	char label[1024];
	uint32_t idx;

	*out = NULL;
	*n = 0;
	for (i = 0; i < a->n_ledger; i++) {
		const struct cause_sums *e = &a->ledger[i];
		const struct cause *c = cause_get(t, e->cause);
		struct file_sums *f;
		uint64_t key;

		if (c)
			cause_file_label(t, c, label, sizeof(label));
		else
			strcpy(label, "[no file]");
		key = label_key(label);
		/* a clash of two labels: the next key */
		while (u64map_get(&index, key, &idx) &&
		       strcmp(files[idx].label, label))
			key++;
		if (!u64map_get(&index, key, &idx)) {
			if (*n == cap) {
				struct file_sums *more;

				more = vec_grow(files, &cap, *n + 1,
						sizeof(*more), 32);
				if (!more)
					goto oom;
				files = more;
			}
			memset(&files[*n], 0, sizeof(files[*n]));
			if (!(files[*n].label = strdup(label)) ||
			    u64map_put(&index, key, (uint32_t)*n) < 0)
				goto oom;
			idx = (uint32_t)(*n)++;
		}
		f = &files[idx];
		f->bytes[e->op] += e->bytes;
		f->bios += e->bios;
		f->q2c_sum_ns += e->q2c_sum_ns;
		for (k = 0; e->q2c_hist && k < LAT_BIN_BUCKETS; k++)
			f->q2c_hist[k] += e->q2c_hist[k];
	}
	u64map_free(&index);
	if (*n)
		qsort(files, *n, sizeof(*files), cmp_files);
	*out = files;
	return 0;
oom:
	u64map_free(&index);
	causesum_free_files(files, *n);
	*n = 0;
	return -1;
}

void causesum_free_files(struct file_sums *f, size_t n)
{
	size_t i;

	for (i = 0; f && i < n; i++)
		free(f[i].label);
	free(f);
}

double file_q2c_mean_ns(const struct file_sums *f)
{
	return f->bios ? f->q2c_sum_ns / (double)f->bios : 0;
}

double file_q2c_p99_ns(const struct file_sums *f)
{
	return f->bios ? hist_quantile(f->q2c_hist, LAT_BIN_BUCKETS,
				       LAT_BIN_BITS, 0.99) : 0;
}

static int cmp_stacks(const void *pa, const void *pb)
{
	const struct stack_sums *a = pa, *b = pb;
	uint64_t x = total_bytes(a->bytes), y = total_bytes(b->bytes);

	if (x != y)
		return x < y ? 1 : -1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->kstack != b->kstack)
		return a->kstack < b->kstack ? -1 : 1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

int causesum_stacks(const struct analysis *a, const struct cause_table *t,
		    struct stack_sums **out, size_t *n)
{
	struct u64map index = { 0 };
	struct stack_sums *s = NULL;
	size_t i, cap = 0;
	uint32_t idx;

	*out = NULL;
	*n = 0;
	for (i = 0; i < a->n_ledger; i++) {
		const struct cause_sums *e = &a->ledger[i];
		const struct cause *c = cause_get(t, e->cause);
		int32_t kstack = c ? c->kstack : -1;
		uint32_t pid = c ? cause_credited_pid(c) : 0;
		uint64_t key = u64_mix(u64_mix(u64_mix(0, e->device),
					       (uint32_t)kstack), pid);
		struct stack_sums *k;

		while (u64map_get(&index, key, &idx) &&
		       (s[idx].device != e->device || s[idx].kstack != kstack ||
			s[idx].pid != pid))
			key++;
		if (!u64map_get(&index, key, &idx)) {
			if (*n == cap) {
				struct stack_sums *more;

				more = vec_grow(s, &cap, *n + 1,
						sizeof(*more), 32);
				if (!more)
					goto oom;
				s = more;
			}
			memset(&s[*n], 0, sizeof(s[*n]));
			s[*n].device = e->device;
			s[*n].kstack = kstack;
			s[*n].pid = pid;
			if (u64map_put(&index, key, (uint32_t)*n) < 0)
				goto oom;
			idx = (uint32_t)(*n)++;
		}
		k = &s[idx];
		k->bytes[e->op] += e->bytes;
		k->bios[e->op] += e->bios;
		k->q2c_sum_ns[e->op] += e->q2c_sum_ns;
	}
	u64map_free(&index);
	if (*n)
		qsort(s, *n, sizeof(*s), cmp_stacks);
	*out = s;
	return 0;
oom:
	u64map_free(&index);
	free(s);
	*n = 0;
	return -1;
}
