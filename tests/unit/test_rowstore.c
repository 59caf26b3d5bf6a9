// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of user/unwind/rowstore.c against the kernel's own maps (the
 * tests run as root): an array-of-maps made as bpf/maps.bpf.h's
 * unwind_files, rows loaded into it and read back through it, as the BPF
 * walk and user/unwind/replay.c read them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "leak_check.h"
#include "unwind/rowstore.h"

TestSuite(rowstore, .fini = check_leaks);

#define SLOTS	4

/* An outer map whose inner maps are rows maps as the BPF object declares
 * them (struct unwind_rows_map): the kernel takes only inner maps of the
 * template's flags. */
static int outer_map(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, inner_opts, .map_flags = BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(__u32),
				   sizeof(struct unwind_row), 1, &inner_opts), fd;

	cr_assert_geq(inner, 0, "inner template: %s", strerror(errno));
	opts.inner_map_fd = inner;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, NULL, sizeof(__u32), sizeof(__u32), SLOTS,
			    &opts);
	cr_assert_geq(fd, 0, "outer map: %s", strerror(errno));
	close(inner);
	return fd;
}

static struct unwind_row row_of(size_t i)
{
	return (struct unwind_row){ .pc = 0x1000 + 16 * (__u64)i, .cfa_offset = (__s32)(i % 4096),
				    .rbp_offset = (__s16)-(__s16)(i % 64), .cfa_reg = (__u8)(i % 3) };
}

/* The row at index i of the file in slot, read through the outer map. */
static struct unwind_row read_back(int outer, int slot, __u32 i)
{
	struct unwind_row r = { 0 };
	__u32 key = (__u32)slot, id;
	int fd;

	cr_assert_eq(bpf_map_lookup_elem(outer, &key, &id), 0, "slot %d: %s", slot, strerror(errno));
	fd = bpf_map_get_fd_by_id(id);
	cr_assert_geq(fd, 0);
	cr_assert_eq(bpf_map_lookup_elem(fd, &i, &r), 0, "row %u: %s", i, strerror(errno));
	close(fd);
	return r;
}

/* The rows checked: every 997th, and the last. */
static size_t next_checked(size_t i, size_t n)
{
	if (i + 1 == n)
		return n;
	return i + 997 < n - 1 ? i + 997 : n - 1;
}

/* Every row as given, for sizes on and off a page's end (4096 / 16 rows a
 * page), the last row of each included. */
Test(rowstore, rows_read_back_through_the_outer_map)
{
	const size_t sizes[] = { 1, 256, 257, 100003 };
	int outer = outer_map(), handle[4];
	struct rowstore *rs;

	cr_assert_eq(rowstore__new(outer, SLOTS, 1 << 20, &rs), 0);
	for (size_t s = 0; s < 4; s++) {
		struct unwind_row *rows = calloc(sizes[s], sizeof(*rows));

		cr_assert_not_null(rows);
		for (size_t i = 0; i < sizes[s]; i++)
			rows[i] = row_of(i + s);
		handle[s] = rowstore__load(rs, rows, sizes[s]);
		cr_assert_geq(handle[s], 0, "%zu rows: %s", sizes[s], strerror(-handle[s]));
		free(rows);
	}
	cr_expect_eq(rowstore__rows(rs), 1 + 256 + 257 + 100003);
	cr_expect_eq(rowstore__files(rs), 4);
	for (size_t s = 0; s < 4; s++) {
		for (size_t i = 0; i < sizes[s]; i = next_checked(i, sizes[s])) {
			struct unwind_row got = read_back(outer, handle[s], (__u32)i), want = row_of(i + s);

			cr_assert(!memcmp(&got, &want, sizeof(got)), "file %zu row %zu: pc 0x%llx",
				  s, i, (unsigned long long)got.pc);
		}
	}
	rowstore__free(rs);
	close(outer);
}

/* Over the budget, or out of slots: -ENOSPC, nothing loaded; a drop gives
 * both back. */
Test(rowstore, budget_and_slots_bound_it)
{
	struct unwind_row rows[8] = { 0 };
	int outer = outer_map(), h[2];
	struct rowstore *rs;

	cr_assert_eq(rowstore__new(outer, SLOTS, 16, &rs), 0);
	cr_expect_eq(rowstore__load(rs, rows, 0), -EINVAL);
	h[0] = rowstore__load(rs, rows, 8);
	h[1] = rowstore__load(rs, rows, 8);
	cr_assert(h[0] >= 0 && h[1] >= 0);
	cr_expect_eq(rowstore__load(rs, rows, 1), -ENOSPC);	/* 16 rows held */
	rowstore__drop(rs, h[0]);
	cr_expect_eq(rowstore__rows(rs), 8);
	cr_expect_eq(rowstore__files(rs), 1);
	for (int i = 2; i < SLOTS + 1; i++)	/* the three slots left */
		cr_assert_geq(rowstore__load(rs, rows, 1), 0, "slot %d", i);
	cr_expect_eq(rowstore__load(rs, rows, 1), -ENOSPC);	/* every slot taken */
	cr_expect_eq(rowstore__files(rs), SLOTS);
	rowstore__free(rs);
	close(outer);
}
