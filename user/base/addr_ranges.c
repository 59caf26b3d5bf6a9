// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Address ranges: the table, and the search over starts read one at a
 * time (the search itself is addr_ranges.h's, inlined where views use it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/addr_ranges.h"
#include "base/grow.h"

int addr_ranges__find_by(size_t n, addr_start_fn read, void *arg, uint64_t addr, size_t *index)
{
	const struct addr_starts s = { .read = read, .arg = arg };

	return addr_starts__greatest(&s, n, addr, index);
}

/* ---- the table ---------------------------------------------------------- */

int addr_ranges__reserve(struct addr_ranges *t, size_t n)
{
	struct addr_range *r;

	if (n <= t->cap)
		return 0;
	r = reallocarray(t->r, n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	t->r = r;
	t->cap = n;
	return 0;
}

int addr_ranges__add(struct addr_ranges *t, uint64_t start, uint64_t end, size_t at)
{
	if (t->n == t->cap && GROW(t->r, t->cap, t->n + 1))
		return -ENOMEM;
	t->r[t->n++] = (struct addr_range){ .start = start, .end = end < start ? start : end,
					    .at = at };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct addr_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

void addr_ranges__sort(struct addr_ranges *t)
{
	if (t->n)
		qsort(t->r, t->n, sizeof(*t->r), cmp_range);
}

static struct addr_view table_view(const struct addr_ranges *t)
{
	return ADDR_VIEW_ENDS(t->r, t->n, start, end);
}

const struct addr_range *addr_ranges__find(const struct addr_ranges *t, uint64_t addr)
{
	const struct addr_view v = table_view(t);
	size_t i = addr_view__find(&v, addr);

	return i == ADDR_NONE ? NULL : &t->r[i];
}

const struct addr_range *addr_ranges__first_at(const struct addr_ranges *t, uint64_t start)
{
	const struct addr_view v = table_view(t);
	size_t i = addr_view__first_at(&v, start);

	return i == ADDR_NONE ? NULL : &t->r[i];
}

void addr_ranges__free(struct addr_ranges *t)
{
	free(t->r);
	memset(t, 0, sizeof(*t));
}
