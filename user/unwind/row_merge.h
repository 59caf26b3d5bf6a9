/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An unwind table's rows merged as they are made: one row per pc (the
 * first in sorted order), runs of one rule as their first row, leading
 * "no rule" rows dropped; what sorting every raw row and merging after
 * gives (unwind_table.c's merge_rows()), without the raw rows: 16 bytes a
 * kept row at a build's peak, not 24 a row made (cc1's 700,000 raw rows
 * were 16.7 MB of a one-shot run's peak).
 */
#ifndef BPFPROF_ROW_MERGE_H
#define BPFPROF_ROW_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/profile.h"

#define RAW_FDE_END		(1ull << 63)

/* A row before sorting: FDE ends sort after rows that start at the same pc
 * (the next function's rules win), ties in section order (seq). The two
 * are one key, the end in its top bit: 24 bytes a row, not 32. */
struct raw_row {
	struct unwind_row row;
	uint64_t order;		/* RAW_FDE_END | seq */
};
_Static_assert(sizeof(struct raw_row) == 24, "a raw row grew");
_Static_assert(sizeof(struct raw_row) >= sizeof(struct unwind_row), "merge_rows() writes in place");

/* The sorted order of raw rows: by pc, then by order (a total order). */
static inline int raw_row__cmp(const void *pa, const void *pb)
{
	const struct raw_row *a = pa, *b = pb;

	if (a->row.pc != b->row.pc)
		return a->row.pc < b->row.pc ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static inline bool unwind_row__same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_reg == b->cfa_reg && a->cfa_offset == b->cfa_offset &&
	       a->rbp_offset == b->rbp_offset;
}

struct row_merge {
	struct unwind_row *out;		/* the merged rows so far */
	size_t n, cap;
	size_t made;			/* rows pushed: what the cap counts */
	struct raw_row end;		/* an FDE's end row, held back */
	bool has_end, any;
	struct raw_row last;		/* the last row taken, in sorted order */
};

/* r, the next row made, into m (zeroed to begin). Rows must come sorted
 * (raw_row__cmp) but where an FDE's end row meets the next FDE's first
 * row at the same pc (which wins): -EAGAIN for any other row out of order
 * (FDEs that overlap: sort raw rows instead), -ENOMEM past max rows made
 * or out of memory. */
int row_merge__push(struct row_merge *m, const struct raw_row *r, size_t max);

/* The merged rows into *rows (malloc'd, shrunk to fit; NULL when none)
 * and *n; m is left empty. 0, -EAGAIN or -ENOMEM as row_merge__push. */
int row_merge__end(struct row_merge *m, struct unwind_row **rows, size_t *n);

void row_merge__free(struct row_merge *m);

#endif
