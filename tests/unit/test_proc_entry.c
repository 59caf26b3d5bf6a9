// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of proc_entry.c: a process's mappings as the BPF side searches
 * them (sorted by start, none overlapping, the newest winning an overlap,
 * the newest MAX_UNWIND_MAPS kept).
 */
#include <criterion/criterion.h>

#include "leak_check.h"
#include "unwind/proc_entry.h"

TestSuite(proc_entry, .fini = check_leaks);

static void add(struct proc_entry *e, __u64 start, __u64 end, __u32 file)
{
	proc_entry__add(e, &(struct unwind_map){ .start = start, .end = end, .file = file });
}

Test(proc_entry, sorted_by_start)
{
	struct proc_entry e = { 0 };
	struct unwind_proc out = { 0 };

	add(&e, 0x7000, 0x8000, 3);
	add(&e, 0x1000, 0x2000, 1);
	add(&e, 0x4000, 0x5000, 2);
	proc_entry__layout(&e, &out);
	cr_assert_eq(out.nmaps, 3);
	for (__u32 i = 0; i < 3; i++)
		cr_assert_eq(out.maps[i].file, i + 1, "slot %u holds file %u", i, out.maps[i].file);
}

/* A later mmap over part of a range replaces it: the older mapping that
 * overlaps the newer one is not walked with the newer one's addresses. */
Test(proc_entry, newest_wins_an_overlap)
{
	struct proc_entry e = { 0 };
	struct unwind_proc out = { 0 };

	add(&e, 0x1000, 0x5000, 1);	/* old, overlapped */
	add(&e, 0x6000, 0x7000, 2);
	add(&e, 0x3000, 0x4000, 3);	/* new, over the first */
	proc_entry__layout(&e, &out);
	cr_assert_eq(out.nmaps, 2);
	cr_assert_eq(out.maps[0].file, 3);
	cr_assert_eq(out.maps[1].file, 2);
}

/* Ranges are half-open: touching ones both stay. */
Test(proc_entry, touching_ranges_both_stay)
{
	struct proc_entry e = { 0 };
	struct unwind_proc out = { 0 };

	add(&e, 0x1000, 0x2000, 1);
	add(&e, 0x2000, 0x3000, 2);
	proc_entry__layout(&e, &out);
	cr_assert_eq(out.nmaps, 2);
}

/* More mappings than an entry holds: the newest MAX_UNWIND_MAPS are kept. */
Test(proc_entry, keeps_the_newest)
{
	struct proc_entry e = { 0 };
	struct unwind_proc out = { 0 };
	__u32 extra = 5;

	for (__u32 i = 0; i < MAX_UNWIND_MAPS + extra; i++)
		add(&e, 0x1000 * (i + 1), 0x1000 * (i + 1) + 0x800, i);
	proc_entry__layout(&e, &out);
	cr_assert_eq(out.nmaps, MAX_UNWIND_MAPS);
	cr_assert_eq(out.maps[0].file, extra, "the oldest kept is %u", out.maps[0].file);
	cr_assert_eq(out.maps[MAX_UNWIND_MAPS - 1].file, MAX_UNWIND_MAPS + extra - 1);
}
