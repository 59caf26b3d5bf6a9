// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A process's mappings laid out for the BPF side (see proc_entry.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "unwind/proc_entry.h"

void proc_entry__add(struct proc_entry *e, const struct unwind_map *m)
{
	e->all[e->n % MAX_UNWIND_MAPS] = *m;
	e->n++;
}

static int cmp_start(const void *a, const void *b)
{
	const struct unwind_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool overlaps_any(const struct unwind_map *m, const struct unwind_map *kept, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m->start < kept[i].end && kept[i].start < m->end)
			return true;
	return false;
}

void proc_entry__layout(const struct proc_entry *e, struct unwind_proc *out)
{
	size_t i, n = 0, kept = e->n < MAX_UNWIND_MAPS ? e->n : MAX_UNWIND_MAPS;

	for (i = 0; i < kept; i++) {	/* newest first */
		const struct unwind_map *m = &e->all[(e->n - 1 - i) % MAX_UNWIND_MAPS];

		if (!overlaps_any(m, out->maps, n))
			out->maps[n++] = *m;
	}
	qsort(out->maps, n, sizeof(out->maps[0]), cmp_start);
	out->nmaps = (__u32)n;
}
