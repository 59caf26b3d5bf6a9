// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of user/unwind/row_index.c: a file's page index gives, for
 * every address, a range of rows that holds the row a binary search over
 * the whole file finds (the last with pc <= the address), as the BPF side
 * reads it (bpf/find_row.bpf.h's page_rows); and it stays small.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "unwind/row_index.h"

TestSuite(row_index, .fini = check_leaks);

/* How many rows have pc <= vaddr: the row covering vaddr is this - 1. */
static size_t count_upto(const struct unwind_row *rows, size_t n, __u64 vaddr)
{
	size_t c = 0;

	while (c < n && rows[c].pc <= vaddr)
		c++;
	return c;
}

/* The counts [*lo, *hi] the index gives for vaddr's page, read as
 * page_rows() reads them: the head just before the rows, the slots
 * before it. */
static void index_range(const struct unwind_row *idx, size_t nidx, size_t n, __u64 vaddr,
			size_t *lo, size_t *hi)
{
	struct row_index_head head;
	struct row_index_slot slot;
	__u64 page, p;
	size_t nslots;

	memcpy(&head, &idx[nidx - 1], sizeof(head));
	nslots = (head.npages + ROW_INDEX_PER_SLOT - 1) / ROW_INDEX_PER_SLOT;
	cr_assert_eq(nslots + 1, nidx, "the slots, then the head");
	page = vaddr >> head.shift;
	if (page < head.base_page || page - head.base_page >= head.npages) {
		*lo = *hi = page < head.base_page ? 0 : n;
		return;
	}
	p = page - head.base_page;
	memcpy(&slot, &idx[p / ROW_INDEX_PER_SLOT], sizeof(slot));
	*lo = slot.count[p % ROW_INDEX_PER_SLOT];
	*hi = slot.count[p % ROW_INDEX_PER_SLOT + 1];
}

/* Every address near every row and in between: the row covering it lies
 * among the rows the index points at; and the index is at most one row
 * per ROW_INDEX_ROWS_PER_PAGE * 3 of the file's, plus 2. */
static void check_rows(const struct unwind_row *rows, size_t n)
{
	struct unwind_row *idx;
	size_t nidx;

	cr_assert_eq(row_index__build(rows, n, &idx, &nidx), 0);
	cr_expect_leq(nidx, n / (ROW_INDEX_ROWS_PER_PAGE * ROW_INDEX_PER_SLOT) + 2,
		      "%zu index rows for %zu rows", nidx, n);
	for (size_t i = 0; i < n; i++) {
		__u64 next = i + 1 < n ? rows[i + 1].pc : rows[i].pc + 4096;
		__u64 probes[] = { rows[i].pc - 1, rows[i].pc, rows[i].pc + 1,
				   rows[i].pc + (next - rows[i].pc) / 2, next - 1 };

		for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
			size_t want = count_upto(rows, n, probes[k]), lo, hi;

			index_range(idx, nidx, n, probes[k], &lo, &hi);
			cr_assert(lo <= want && want <= hi && hi <= n,
				  "0x%llx: %zu rows at or below it, the index says %zu..%zu",
				  (unsigned long long)probes[k], want, lo, hi);
		}
	}
	free(idx);
}

/* Functions of 16..4 KiB with 2..40 rows each, a few far apart. */
Test(row_index, covering_row_within_its_page_rows)
{
	size_t n = 0, cap = 60000;
	struct unwind_row *rows = calloc(cap, sizeof(*rows));
	__u64 pc = 0x401000;

	cr_assert_not_null(rows);
	srand(40);
	while (n + 40 < cap) {
		size_t nr = 2 + (size_t)rand() % 39, len = 16 + (size_t)rand() % 4096;

		for (size_t r = 0; r < nr; r++)
			rows[n++] = (struct unwind_row){ .pc = pc + len * r / nr, .cfa_reg = CFA_RSP };
		pc += len + (rand() % 50 == 0 ? 1u << 24 : 0);	/* a gap between sections */
	}
	check_rows(rows, n);
	free(rows);
}

/* One row; two rows far apart; rows of one page. */
Test(row_index, small_files)
{
	struct unwind_row one[] = { { .pc = 0x1234 } };
	struct unwind_row far[] = { { .pc = 0x1000 }, { .pc = 0x7f0000000000ull } };
	struct unwind_row dense[64];

	for (size_t i = 0; i < 64; i++)
		dense[i] = (struct unwind_row){ .pc = 0x2000 + i };
	check_rows(one, 1);
	check_rows(far, 2);
	check_rows(dense, 64);
}
