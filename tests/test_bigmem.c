/*
 * test_bigmem.c: big zeroed arrays. Both kinds (mapped now, mapped as
 * used) come zeroed at every size, small ones from malloc; mapping ahead
 * any range, aligned or not, leaves the bytes as they were and maps the
 * pages (counted as the kernel's minor faults, none left to take).
 */
#include <stdint.h>
#include <sys/resource.h>

#include "base/bigmem.h"
#include "check.h"

static long minor_faults(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

static int all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void test_zeroed_at_every_size(void)
{
	static const size_t sizes[] = { 1, 100, 65535, 65536, 1 << 20,
					(4 << 20) + 3 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *a = bigmem_calloc(sizes[i]);
		unsigned char *b = bigmem_lazy_calloc(sizes[i]);

		CHECK(a && b);
		if (!a || !b)
			continue;
		CHECK(((uintptr_t)a & 63) == 0);
		CHECK(all_zero(a, sizes[i]));
		CHECK(all_zero(b, sizes[i]));
		a[sizes[i] - 1] = b[sizes[i] - 1] = 7;	/* the last byte is ours */
		bigmem_free(a);
		bigmem_free(b);
	}
	bigmem_free(NULL);
}

static void test_prefault_maps_ahead_and_keeps_bytes(void)
{
	size_t n = 4 << 20, i;
	unsigned char *p = bigmem_lazy_calloc(n);
	long before, after;

	CHECK(p != NULL);
	if (!p)
		return;
	p[5000] = 1;
	/* an unaligned range over the byte written, then the rest */
	bigmem_prefault(p, 4097, 100000);
	bigmem_prefault(p, 104000, n - 104000);
	bigmem_prefault(p, 0, 4097);
	CHECK_EQ_INT(p[5000], 1);
	p[5000] = 0;
	before = minor_faults();
	for (i = 0; i < n; i += 4096)
		p[i] = 2;
	p[n - 1] = 2;
	after = minor_faults();
	CHECK_EQ_INT(after - before, 0);
	bigmem_free(p);
}

static void test_prefault_of_a_small_block_is_harmless(void)
{
	unsigned char *p = bigmem_lazy_calloc(100);

	CHECK(p != NULL);
	bigmem_prefault(p, 0, 100);
	bigmem_prefault(NULL, 0, 100);
	if (p)
		CHECK(all_zero(p, 100));
	bigmem_free(p);
}

int main(void)
{
	RUN_TEST(test_zeroed_at_every_size);
	RUN_TEST(test_prefault_maps_ahead_and_keeps_bytes);
	RUN_TEST(test_prefault_of_a_small_block_is_harmless);
	return check_report();
}
