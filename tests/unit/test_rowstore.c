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

/* Row i of the file at *at, read through the outer map as the BPF walk
 * reads it: its chunk's slot, then row first + i of the chunk. */
static struct unwind_row read_back(int outer, const struct row_place *at, __u32 i)
{
	struct unwind_row r = { 0 };
	__u32 key = at->slot, id, row = at->first + i;
	int fd;

	cr_assert_eq(bpf_map_lookup_elem(outer, &key, &id), 0, "slot %u: %s", key, strerror(errno));
	fd = bpf_map_get_fd_by_id(id);
	cr_assert_geq(fd, 0);
	cr_assert_eq(bpf_map_lookup_elem(fd, &row, &r), 0, "row %u: %s", row, strerror(errno));
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

static int load_n(struct rowstore *rs, size_t n, size_t seed, struct row_place *at)
{
	struct unwind_row *rows = calloc(n, sizeof(*rows));
	int err;

	cr_assert_not_null(rows);
	for (size_t i = 0; i < n; i++)
		rows[i] = row_of(i + seed);
	err = rowstore__load(rs, rows, n, at);
	free(rows);
	return err;
}

/* Every row as given, for sizes on and off a page's end (4096 / 16 rows a
 * page), the last row of each included; the small ones share a chunk. */
Test(rowstore, rows_read_back_through_the_outer_map)
{
	const size_t sizes[] = { 1, 256, 257, 100003 };
	struct row_place at[4];
	struct rowstore_costs costs;
	int outer = outer_map();
	struct rowstore *rs;

	cr_assert_eq(rowstore__new(outer, SLOTS, 1 << 20, &rs), 0);
	for (size_t s = 0; s < 4; s++) {
		int err = load_n(rs, sizes[s], s, &at[s]);

		cr_assert_eq(err, 0, "%zu rows: %s", sizes[s], strerror(-err));
	}
	cr_expect_eq(rowstore__rows(rs), 1 + 256 + 257 + 100003);
	cr_expect_eq(rowstore__files(rs), 4);
	cr_expect(at[0].slot == at[1].slot && at[1].slot == at[2].slot, "small files share a chunk");
	cr_expect_eq(at[1].first, 1);
	cr_expect_eq(at[2].first, 257);
	rowstore__costs(rs, &costs);
	cr_expect_eq(costs.chunks_made, 2, "the 100003 rows took a chunk of their own");
	for (size_t s = 0; s < 4; s++) {
		for (size_t i = 0; i < sizes[s]; i = next_checked(i, sizes[s])) {
			struct unwind_row got = read_back(outer, &at[s], (__u32)i), want = row_of(i + s);

			cr_assert(!memcmp(&got, &want, sizeof(got)), "file %zu row %zu: pc 0x%llx",
				  s, i, (unsigned long long)got.pc);
		}
	}
	rowstore__free(rs);
	close(outer);
}

/* A thousand files load into one chunk: one update of the outer map (one
 * RCU grace period) for all of them, not one each. */
Test(rowstore, many_files_one_chunk)
{
	struct rowstore_costs costs;
	int outer = outer_map();
	struct rowstore *rs;
	struct row_place at;

	cr_assert_eq(rowstore__new(outer, SLOTS, 1 << 22, &rs), 0);
	for (size_t f = 0; f < 1000; f++)
		cr_assert_eq(load_n(rs, 40, f, &at), 0, "file %zu", f);
	rowstore__costs(rs, &costs);
	cr_expect_eq(costs.chunks_made, 1);
	cr_expect_eq(costs.graces, 0);
	cr_expect_eq(rowstore__files(rs), 1000);
	for (__u32 i = 0; i < 40; i++) {
		struct unwind_row got = read_back(outer, &at, i), want = row_of(i + 999);

		cr_assert(!memcmp(&got, &want, sizeof(got)), "the last file's row %u", i);
	}
	rowstore__free(rs);
	close(outer);
}

/* Over the budget: -ENOSPC, nothing loaded. A dropped file's rows are not
 * given to another before a grace period (a walk may still read them by
 * an entry it copied): the next load that needs them waits for one. */
Test(rowstore, budget_bounds_it_and_drops_wait_a_grace)
{
	struct row_place a, b, c, d;
	struct rowstore_costs costs;
	int outer = outer_map();
	struct rowstore *rs;

	cr_assert_eq(rowstore__new(outer, SLOTS, 16, &rs), 0);
	cr_expect_eq(rowstore__load(rs, NULL, 0, &a), -EINVAL);
	cr_assert_eq(load_n(rs, 8, 0, &a), 0);
	cr_assert_eq(load_n(rs, 4, 0, &b), 0);
	cr_expect_eq(load_n(rs, 5, 0, &c), -ENOSPC, "12 of 16 rows held");
	rowstore__drop(rs, &a, 8);
	cr_expect_eq(rowstore__rows(rs), 4);
	cr_expect_eq(rowstore__files(rs), 1);
	cr_assert_eq(load_n(rs, 4, 7, &c), 0);	/* the 4 free rows: no grace */
	cr_expect(c.first >= 12, "not in the dropped run: row %u", c.first);
	rowstore__costs(rs, &costs);
	cr_expect_eq(costs.graces, 0);
	cr_assert_eq(load_n(rs, 8, 3, &d), 0);	/* the dropped run, after a grace */
	rowstore__costs(rs, &costs);
	cr_expect_eq(costs.graces, 1);
	cr_expect_eq(d.first, 0);
	cr_expect_eq(costs.chunks_made, 1);
	for (__u32 i = 0; i < 8; i++) {
		struct unwind_row got = read_back(outer, &d, i), want = row_of(i + 3);

		cr_assert(!memcmp(&got, &want, sizeof(got)), "row %u", i);
	}
	rowstore__free(rs);
	close(outer);
}
