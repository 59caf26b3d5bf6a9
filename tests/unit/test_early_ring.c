// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of early.c's ring let go (early__close_ring): a real BPF ring
 * buffer map of the size a run makes, mapped by libbpf, unmapped after. */
#include <bpf/bpf.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "sampling/early.h"

TestSuite(early_ring, .fini = check_leaks);

/* KiB of this process's mappings of BPF maps (anon_inode:bpf-map). */
static unsigned long bpf_map_kib(void)
{
	char line[512];
	bool in = false;
	unsigned long kib, sum = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)	/* a mapping's first line */
			in = strstr(line, "anon_inode:bpf-map") != NULL;
		if (in && sscanf(line, "Size: %lu kB", &kib) == 1)
			sum += kib;
	}
	fclose(f);
	return sum;
}

static void never(const struct early_stack *e, void *arg)
{
	(void)e;
	(void)arg;
	cr_assert_fail("no stack overflows an empty queue");
}

Test(early_ring, closed_ring_is_unmapped_and_reads_nothing)
{
	struct early *q = NULL;
	unsigned long before, open_kib, after;
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root: creating a BPF map");
	before = bpf_map_kib();
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "early_test", 0, 0, EARLY_RING_BYTES, NULL);
	cr_assert(fd >= 0, "bpf_map_create: %s", strerror(errno));
	cr_assert_eq(early__new(fd, never, NULL, &q), 0);
	open_kib = bpf_map_kib();
	/* the data pages mapped twice, beside the consumer's page */
	cr_assert_geq(open_kib - before, 2 * (EARLY_RING_BYTES >> 10), "%lu KiB mapped",
		      open_kib - before);
	cr_expect_geq(early__fd(q), 0);
	cr_expect_eq(early__read(q), 0);
	early__close_ring(q);
	after = bpf_map_kib();
	cr_expect_leq(after, before, "%lu KiB still mapped (%lu before)", after, before);
	cr_expect_eq(early__fd(q), -1);
	cr_expect_eq(early__read(q), 0);
	cr_expect_eq(early__held(q), 0);
	early__free(q);
	close(fd);
}
