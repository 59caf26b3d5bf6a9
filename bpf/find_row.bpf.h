/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A file's unwind rows (a run of a chunk of unwind_files, sorted by pc):
 * the row that covers an address, by the per-CPU hint of the last search that
 * ended there, else by the file's page index (struct row_index_head) and a
 * binary search, a step per bpf_loop() call, among the few rows that start
 * in the address's page. Included by stack.bpf.h, whose walk asks it once
 * per frame.
 */
#ifndef BPFPROF_FIND_ROW_BPF_H
#define BPFPROF_FIND_ROW_BPF_H

#define ROW_SEARCH_STEPS	24	/* binary search over up to 16M rows */

/* A binary search over some of one file's rows, a step per bpf_loop() call: the
 * verifier checks one step, not every path through 24 of them. */
struct row_search {
	__u64 vaddr;
	__u32 file;
	__u32 lo, hi;
	bool failed;
};

static long row_search_step(__u32 i, struct row_search *rs)
{
	const struct unwind_row *row;
	void *rows;
	__u32 mid;

	if (rs->lo >= rs->hi)
		return 1;
	rows = bpf_map_lookup_elem(&unwind_files, &rs->file);
	mid = rs->lo + (rs->hi - rs->lo) / 2;
	row = rows ? bpf_map_lookup_elem(rows, &mid) : NULL;
	if (!row) {
		rs->failed = true;
		return 1;
	}
	if (row->pc <= rs->vaddr)
		rs->lo = mid + 1;
	else
		rs->hi = mid;
	return 0;
}

/* Row i of the chunk's rows if it is the file's (in [first, end)) and the
 * last with pc <= vaddr: its pc is at or below vaddr and the next row's
 * (if any) above. Rows are sorted, so this is exactly the row the binary
 * search finds; a row of another file of the chunk is never taken. */
static __always_inline const struct unwind_row *row_if_last(void *rows, __u32 first, __u32 end,
							    __u32 i, __u64 vaddr)
{
	const struct unwind_row *row, *next;
	__u32 after = i + 1;

	if (i < first || i >= end)
		return NULL;
	row = bpf_map_lookup_elem(rows, &i);
	if (!row || row->pc > vaddr)
		return NULL;
	if (after >= end)
		return row;
	next = bpf_map_lookup_elem(rows, &after);
	return next && next->pc > vaddr ? row : NULL;
}

/* The hint slot of (chunk, first row, vaddr's region): a sampled loop hits
 * the same addresses again and again, and a hit replaces ~20 cold reads of
 * the search by two. */
static __always_inline struct row_hint *row_hint_slot(__u32 file, __u32 first, __u64 vaddr)
{
	__u64 region = vaddr >> ROW_HINT_REGION_SHIFT;
	__u32 slot = (__u32)((region ^ (region >> 10) ^ ((__u64)(file ^ first) * 0x9e3779b1u)) &
			     (ROW_HINTS - 1));

	return bpf_map_lookup_elem(&row_hints, &slot);
}

/* The rows [*lo, *hi) of the chunk among which the last with pc <= vaddr
 * is, by the file's page index (the rows before first): the rows that
 * start in vaddr's page, past the one before them. Returns false when
 * the index cannot be read. */
static __always_inline bool page_rows(void *rows, __u32 first, __u32 n, __u64 vaddr, __u32 *lo,
				      __u32 *hi)
{
	const struct row_index_head *head;
	const struct row_index_slot *slot;
	const __u32 *counts;
	__u32 at = first - 1, j;
	__u64 page, p;

	if (!first)
		return false;
	head = bpf_map_lookup_elem(rows, &at);
	if (!head)
		return false;
	page = vaddr >> (head->shift & 63);
	/* before the first row: none; past the last page: the last row */
	*lo = *hi = page < head->base_page ? first : first + n;
	if (page < head->base_page || page - head->base_page >= head->npages)
		return true;
	p = page - head->base_page;
	at = first - 1 - (head->npages + ROW_INDEX_PER_SLOT - 1) / ROW_INDEX_PER_SLOT +
	     (__u32)(p / ROW_INDEX_PER_SLOT);
	slot = bpf_map_lookup_elem(rows, &at);
	j = (__u32)(p % ROW_INDEX_PER_SLOT);
	/* the compiler knows j < 3 and drops the check the verifier needs */
	asm volatile("" : "+r"(j));
	if (!slot || j >= ROW_INDEX_PER_SLOT)
		return false;
	counts = &slot->count[j];	/* one bounded pointer: the verifier checks both reads */
	*lo = first + counts[0];
	*hi = first + counts[1];
	/* user space's counts, bounded to the file's rows all the same */
	if (*hi > first + n)
		*hi = first + n;
	if (*lo > *hi)
		*lo = *hi;
	return true;
}

/* The last row of the file's n rows (from row first of chunk file) with
 * pc <= vaddr: by its hint, else by its page and a search among that
 * page's rows, whose result becomes the hint. */
static __always_inline const struct unwind_row *find_row(__u32 file, __u32 first, __u32 n,
							 __u64 vaddr)
{
	struct row_search rs = { .vaddr = vaddr, .file = file };
	struct row_hint *hint = row_hint_slot(file, first, vaddr);
	const struct unwind_row *row;
	void *rows = bpf_map_lookup_elem(&unwind_files, &file);

	if (!rows)
		return NULL;
	if (hint && hint->file == file) {
		row = row_if_last(rows, first, first + n, hint->row, vaddr);
		if (row) {
			stage_mark(STAGE_WALK_ROW_HINT);
			return row;
		}
	}
	if (!page_rows(rows, first, n, vaddr, &rs.lo, &rs.hi))
		return NULL;
	if (rs.lo < rs.hi)
		bpf_loop(ROW_SEARCH_STEPS, row_search_step, &rs, 0);
	if (rs.failed || rs.lo == first)
		return NULL;
	rs.lo--;
	if (hint) {
		hint->file = file;
		hint->row = rs.lo;
	}
	return bpf_map_lookup_elem(rows, &rs.lo);
}

#endif
