// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of addr_ranges.h: the one containment rule of address ranges,
 * against the rule written as a scan of every range. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr_ranges.h"
#include "leak_check.h"

TestSuite(addr_ranges, .fini = check_leaks);

static struct addr_ranges table_of(const uint64_t (*r)[2], size_t n)
{
	struct addr_ranges t = { 0 };

	for (size_t i = 0; i < n; i++)
		cr_assert_eq(addr_ranges__add(&t, r[i][0], r[i][1], i), 0);
	addr_ranges__sort(&t);
	return t;
}

/* The payload of the range holding addr, -1 for none. */
static long holder(const struct addr_ranges *t, uint64_t addr)
{
	const struct addr_range *r = addr_ranges__find(t, addr);

	return r ? (long)r->at : -1;
}

Test(addr_ranges, end_is_exclusive_and_gaps_hold_nothing)
{
	static const uint64_t r[][2] = { { 0x3000, 0x3800 }, { 0x1000, 0x2000 } };
	struct addr_ranges t = table_of(r, 2);

	cr_assert_eq(holder(&t, 0xfff), -1, "below the first start");
	cr_assert_eq(holder(&t, 0x1000), 1, "a start is inside");
	cr_assert_eq(holder(&t, 0x1fff), 1);
	cr_assert_eq(holder(&t, 0x2000), -1, "an end is outside");
	cr_assert_eq(holder(&t, 0x2fff), -1, "in the gap");
	cr_assert_eq(holder(&t, 0x3000), 0, "added first, sorted second");
	cr_assert_eq(holder(&t, 0x37ff), 0);
	cr_assert_eq(holder(&t, 0x3800), -1);
	cr_assert_eq(holder(&t, UINT64_MAX), -1);
	addr_ranges__free(&t);
}

Test(addr_ranges, empty_table_holds_nothing)
{
	struct addr_ranges t = { 0 };

	addr_ranges__sort(&t);
	cr_assert_null(addr_ranges__find(&t, 0));
	cr_assert_null(addr_ranges__find(&t, UINT64_MAX));
	cr_assert_null(addr_ranges__first_at(&t, 0));
	addr_ranges__free(&t);
}

/* The later start answers; the earlier range is not searched past it. */
Test(addr_ranges, overlap_is_the_later_starts)
{
	static const uint64_t r[][2] = { { 100, 300 }, { 150, 200 } };
	struct addr_ranges t = table_of(r, 2);

	cr_assert_eq(holder(&t, 149), 0);
	cr_assert_eq(holder(&t, 150), 1, "both hold it: the later start's");
	cr_assert_eq(holder(&t, 199), 1);
	cr_assert_eq(holder(&t, 200), -1, "past the later one's end: none");
	addr_ranges__free(&t);
}

Test(addr_ranges, zero_length_holds_nothing_and_hides_from_its_start)
{
	static const uint64_t r[][2] = { { 10, 50 }, { 20, 20 }, { 60, 40 } };
	struct addr_ranges t = table_of(r, 3);

	cr_assert_eq(holder(&t, 19), 0);
	cr_assert_eq(holder(&t, 20), -1, "[20, 20) holds nothing");
	cr_assert_eq(holder(&t, 30), -1, "nor does [10, 50) past 20");
	cr_assert_eq(holder(&t, 60), -1, "end < start: taken as [60, 60)");
	addr_ranges__free(&t);
}

/* Equal starts: the smallest at (ksyms' aliases, a profile's repeated ids). */
Test(addr_ranges, equal_starts_answer_the_first)
{
	static const uint64_t r[][2] = { { 5, 6 }, { 7, 9 }, { 5, 8 }, { 5, 7 }, { 1, 2 } };
	struct addr_ranges t = table_of(r, 5);

	cr_assert_eq(holder(&t, 5), 0);
	cr_assert_eq(holder(&t, 6), -1, "the first of start 5 ends at 6");
	cr_assert_eq(holder(&t, 8), 1);
	cr_assert_eq(addr_ranges__first_at(&t, 5)->at, 0);
	cr_assert_eq(addr_ranges__first_at(&t, 7)->at, 1);
	cr_assert_eq(addr_ranges__first_at(&t, 1)->at, 4);
	cr_assert_null(addr_ranges__first_at(&t, 6), "a key is exact: 6 is inside, not a start");
	cr_assert_null(addr_ranges__first_at(&t, 0));
	cr_assert_null(addr_ranges__first_at(&t, 8));
	addr_ranges__free(&t);
}

/* A caller's array: starts only, each running to the next one. */
struct sym {
	uint32_t name;
	uint64_t addr;
	uint32_t pad;
};

Test(addr_ranges, view_without_ends_runs_to_the_next_start)
{
	static const struct sym s[] = { { 0, 10, 0 }, { 1, 10, 0 }, { 2, 20, 0 }, { 3, 40, 0 } };
	const struct addr_view v = ADDR_VIEW(s, 4, addr);

	cr_assert_eq(v.stride, sizeof(struct sym));
	cr_assert_eq(addr_view__find(&v, 9), ADDR_NONE);
	cr_assert_eq(addr_view__find(&v, 10), 0, "of two at 10, the first");
	cr_assert_eq(addr_view__find(&v, 19), 0);
	cr_assert_eq(addr_view__find(&v, 20), 2);
	cr_assert_eq(addr_view__find(&v, 39), 2);
	cr_assert_eq(addr_view__find(&v, UINT64_MAX), 3, "the last runs on");
	cr_assert_eq(addr_view__first_at(&v, 40), 3);
	cr_assert_eq(addr_view__first_at(&v, 41), ADDR_NONE);
}

/* ---- starts read one at a time ------------------------------------------ */

struct reads {
	const uint64_t *starts;
	size_t count, fail_at;
	size_t seen[64];
};

static int read_start(void *arg, size_t i, uint64_t *start)
{
	struct reads *r = arg;

	if (i == r->fail_at)
		return -EIO;
	r->seen[r->count++ % 64] = i;
	*start = r->starts[i];
	return 0;
}

Test(addr_ranges, find_by_reads_few_and_has_read_what_it_answers)
{
	uint64_t starts[1000];
	size_t at = 0;

	for (size_t i = 0; i < 1000; i++)
		starts[i] = 16 * i;
	for (uint64_t addr = 0; addr < 16000; addr += 7) {
		struct reads r = { .starts = starts, .fail_at = SIZE_MAX };
		bool was_read = false;

		cr_assert_eq(addr_ranges__find_by(1000, read_start, &r, addr, &at), 0);
		cr_assert_eq(at, addr / 16);
		cr_assert_leq(r.count, 12, "%zu reads for 1000 entries", r.count);
		for (size_t i = 0; i < r.count; i++)
			was_read |= r.seen[i] == at;
		cr_assert(was_read, "entry %zu answered without being read", at);
	}
}

Test(addr_ranges, find_by_says_none_and_passes_errors_on)
{
	static const uint64_t starts[] = { 10, 20, 30 };
	struct reads r = { .starts = starts, .fail_at = SIZE_MAX };
	size_t at = 77;

	cr_assert_eq(addr_ranges__find_by(3, read_start, &r, 9, &at), -ENOENT);
	cr_assert_eq(addr_ranges__find_by(0, read_start, &r, 9, &at), -ENOENT);
	cr_assert_eq(at, 77, "untouched when nothing is found");
	r.fail_at = 1;
	cr_assert_eq(addr_ranges__find_by(3, read_start, &r, 25, &at), -EIO);
}

/* ---- the rule as a scan -------------------------------------------------- */

/* The rule of addr_ranges.h, read literally over the sorted table. */
static long scan_holder(const struct addr_ranges *t, uint64_t addr)
{
	const struct addr_range *best = NULL;

	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].start <= addr && (!best || t->r[i].start > best->start))
			best = &t->r[i];
	return best && addr < best->end ? (long)best->at : -1;
}

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

Test(addr_ranges, random_tables_follow_the_rule)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int round = 0; round < 200; round++) {
		struct addr_ranges t = { 0 };
		size_t n = next_random(&x) % 40;

		/* small numbers: many equal starts, overlaps, empty ranges */
		for (size_t i = 0; i < n; i++) {
			uint64_t start = next_random(&x) % 64, len = next_random(&x) % 12;

			cr_assert_eq(addr_ranges__add(&t, start, start + len, i), 0);
		}
		addr_ranges__sort(&t);
		for (uint64_t addr = 0; addr < 80; addr++) {
			const struct addr_range *key = addr_ranges__first_at(&t, addr);
			long first = -1;

			cr_assert_eq(holder(&t, addr), scan_holder(&t, addr), "round %d, addr %lu",
				     round, (unsigned long)addr);
			for (size_t i = 0; i < t.n; i++)
				if (t.r[i].start == addr && (first < 0 || (long)t.r[i].at < first))
					first = (long)t.r[i].at;
			cr_assert_eq(key ? (long)key->at : -1, first);
		}
		addr_ranges__free(&t);
	}
}

Test(addr_ranges, the_top_of_the_address_space)
{
	static const uint64_t r[][2] = { { UINT64_MAX - 1, UINT64_MAX }, { 0, 1 } };
	struct addr_ranges t = table_of(r, 2);

	cr_assert_eq(holder(&t, 0), 1);
	cr_assert_eq(holder(&t, UINT64_MAX - 1), 0);
	cr_assert_eq(holder(&t, UINT64_MAX), -1, "no range can hold the last address");
	addr_ranges__free(&t);
}
