/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A file's page index (struct row_index_head, bpf/profile.h): built from
 * its sorted rows, loaded before them in the same run of a chunk, so the
 * BPF walk finds an address's row by two reads and a search within its
 * page rather than by a binary search over the whole file.
 */
#ifndef BPFPROF_ROW_INDEX_H
#define BPFPROF_ROW_INDEX_H

#include <linux/types.h>
#include <stddef.h>

#include "bpf/profile.h"

/* At most one page per ROW_INDEX_ROWS_PER_PAGE rows: the index costs up to
 * 1 / (3 * this) + 1 row per file of the rows' kernel memory (11%), and a
 * page holds this many rows on average (a search of 1-2 reads). */
#define ROW_INDEX_ROWS_PER_PAGE	3

/* The index of n (> 0) rows sorted by pc, as rows to load just before
 * them (the slots, then the head): *out (malloc'd) and *nout. 0 or
 * -errno. */
int row_index__build(const struct unwind_row *rows, size_t n, struct unwind_row **out,
		     size_t *nout);

#endif
