/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Address ranges: the one table and the one search for "which range holds
 * this address" (kernel and ELF symbols, perf maps' entries, a process's
 * mappings, unwind rows; and a profile's ids, looked up as exact keys).
 *
 * The containment rule, of every lookup here:
 *  - a range is [start, end): start inclusive, end EXCLUSIVE;
 *  - the range asked about is the one with the greatest start <= addr; of
 *    ranges with that same start, the first in the table's order;
 *  - it holds addr when addr < its end; otherwise no range does. Ranges
 *    before it are not asked: of two overlapping ranges, an address both
 *    hold is the later-starting one's, and an address past the later one's
 *    end but inside the earlier one is in none (a caller that wants the
 *    earlier one there makes its ranges disjoint first, as perfmap.c does);
 *  - a zero-length range [s, s) holds nothing, and it hides an earlier one
 *    from s on in the same way.
 * Ranges without an end (a view's ADDR_NO_END: sorted starts, each entry
 * running up to the next greater start and the last one to the end of the
 * address space) answer every addr >= the first start.
 *
 * Lookups are O(log n), by binary search over the sorted starts: no
 * allocation, nothing changed, safe from any thread that does not sort.
 */
#ifndef BPFPROF_ADDR_RANGES_H
#define BPFPROF_ADDR_RANGES_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define ADDR_NONE	SIZE_MAX	/* an index: no entry holds the address */
#define ADDR_NO_END	SIZE_MAX	/* a view's end_at: each runs to the next start */

/* ---- a caller's own sorted array, seen as ranges ------------------------ */

/* n entries of stride bytes from base, sorted by start (a uint64_t at
 * start_at in each), each ending at the uint64_t at end_at, or running to
 * the next start (ADDR_NO_END). For arrays whose layout is not ours to
 * choose (shared with the BPF side) or that a copy would double. */
struct addr_view {
	const void *base;
	size_t n, stride, start_at, end_at;
};

/* A view of count elements of arr, by the names of their start and end
 * fields (uint64_t, checked at compile time). */
#define ADDR_CHECK_U64(arr, field)	(sizeof(char[sizeof((arr)->field) == 8 ? 1 : -1]) * 0)
#define ADDR_VIEW_ENDS(arr, count, start_field, end_field) ((struct addr_view){		\
	.base = (arr), .n = (count), .stride = sizeof(*(arr)),				\
	.start_at = offsetof(__typeof__(*(arr)), start_field) + ADDR_CHECK_U64(arr, start_field), \
	.end_at = offsetof(__typeof__(*(arr)), end_field) + ADDR_CHECK_U64(arr, end_field) })
#define ADDR_VIEW(arr, count, start_field) ((struct addr_view){				\
	.base = (arr), .n = (count), .stride = sizeof(*(arr)),				\
	.start_at = offsetof(__typeof__(*(arr)), start_field) + ADDR_CHECK_U64(arr, start_field), \
	.end_at = ADDR_NO_END })

/* The start of entry i into *start: 0, or a negative errno that ends the
 * search with it. */
typedef int (*addr_start_fn)(void *arg, size_t i, uint64_t *start);

/* ---- the one search ------------------------------------------------------
 * Inline: where a view is made of a constant stride and offsets, the
 * search compiles to one written for that array alone (a call with a
 * stride to multiply cost symbolization 15-20% a lookup). */

/* Where the starts are: a view's memory, or a reader's calls. */
struct addr_starts {
	const struct addr_view *v;
	addr_start_fn read;
	void *arg;
};

static inline uint64_t addr_view__u64(const struct addr_view *v, size_t i, size_t at)
{
	uint64_t x;

	__builtin_memcpy(&x, (const char *)v->base + i * v->stride + at, sizeof(x));
	return x;
}

static inline int addr_starts__at(const struct addr_starts *s, size_t i, uint64_t *start)
{
	if (s->v) {
		*start = addr_view__u64(s->v, i, s->v->start_at);
		return 0;
	}
	return s->read(s->arg, i, start);
}

/* The first index in [0, hi) whose start is >= key (hi if none): 0 or
 * the reader's error. */
static inline int addr_starts__first_not_below(const struct addr_starts *s, size_t hi,
					       uint64_t key, size_t *out)
{
	size_t lo = 0;
	uint64_t at;
	int err;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		err = addr_starts__at(s, mid, &at);
		if (err)
			return err;
		if (at < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = lo;
	return 0;
}

/* The first of the n entries with the greatest start <= addr: 0 with its
 * index, -ENOENT when every start is above addr, or the reader's error. */
static inline int addr_starts__greatest(const struct addr_starts *s, size_t n, uint64_t addr,
					size_t *index)
{
	size_t lo = 0, hi = n;
	uint64_t at, found = 0;
	int err;

	while (lo < hi) {	/* lo: the count of starts <= addr */
		size_t mid = lo + (hi - lo) / 2;

		err = addr_starts__at(s, mid, &at);
		if (err)
			return err;
		if (at <= addr) {
			lo = mid + 1;
			found = at;	/* the last such read is entry lo - 1's */
		} else {
			hi = mid;
		}
	}
	if (!lo)
		return -ENOENT;
	*index = lo - 1;
	if (lo == 1)
		return 0;
	err = addr_starts__at(s, lo - 2, &at);
	if (err || at != found)
		return err;
	/* entries of one start: the first of them */
	return addr_starts__first_not_below(s, lo - 2, found, index);
}

/* The index of the entry that holds addr by the rule above, or ADDR_NONE. */
static inline size_t addr_view__find(const struct addr_view *v, uint64_t addr)
{
	const struct addr_starts s = { .v = v };
	size_t i;

	if (addr_starts__greatest(&s, v->n, addr, &i))
		return ADDR_NONE;
	if (v->end_at != ADDR_NO_END && addr >= addr_view__u64(v, i, v->end_at))
		return ADDR_NONE;
	return i;
}

/* The index of the first entry whose start is exactly start, or ADDR_NONE
 * (a lookup by key: ends play no part). */
static inline size_t addr_view__first_at(const struct addr_view *v, uint64_t start)
{
	const struct addr_starts s = { .v = v };
	size_t i;

	if (addr_starts__first_not_below(&s, v->n, start, &i) || i == v->n ||
	    addr_view__u64(v, i, v->start_at) != start)
		return ADDR_NONE;
	return i;
}

/* ---- entries read one at a time (a BPF map's) --------------------------- */

/* addr_view__find over n entries without ends whose starts start_of reads
 * (about log2(n) + 2 reads; more only where starts repeat). The entry
 * found is always one of those read: a caller that keeps what it read
 * need not read it again. Returns 0 with the
 * entry's index in *index, -ENOENT when every start is above addr, or
 * start_of's error. */
int addr_ranges__find_by(size_t n, addr_start_fn start_of, void *arg, uint64_t addr,
			 size_t *index);

/* ---- the table: ranges of ours, with a payload ------------------------- */

struct addr_range {
	uint64_t start, end;	/* [start, end) */
	size_t at;		/* the caller's: an index into its own array */
};

/* Ranges added in any order, sorted once, then looked up; zero it to start. */
struct addr_ranges {
	struct addr_range *r;
	size_t n, cap;
};

/* Room for n ranges in all, allocated at once (a table whose size is
 * known); 0 or -ENOMEM. */
int addr_ranges__reserve(struct addr_ranges *t, size_t n);

/* One more range; 0 or -ENOMEM (the table as it was). end < start is
 * taken as end == start: a range that holds nothing. */
int addr_ranges__add(struct addr_ranges *t, uint64_t start, uint64_t end, size_t at);

/* Sorts by start, ranges of one start by at (smallest first): call once
 * after the last add, before the first lookup. */
void addr_ranges__sort(struct addr_ranges *t);

/* The range that holds addr by the rule above, or NULL. */
const struct addr_range *addr_ranges__find(const struct addr_ranges *t, uint64_t addr);

/* The first range that starts exactly at start, or NULL (a lookup by key,
 * for ids: ends play no part). */
const struct addr_range *addr_ranges__first_at(const struct addr_ranges *t, uint64_t start);

void addr_ranges__free(struct addr_ranges *t);

#endif
