/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF side's store of unwind rows: a few large mmapable array maps
 * ("chunks", in slots of the unwind_files array-of-maps), each holding the
 * rows of many files, a file's rows a run of one chunk (slot, first row,
 * rows). Loading a table is a write into a chunk's free space: putting a
 * map into the array-of-maps waits for an RCU grace period (10-20 ms
 * here), which a map per file cost every file, and a mapping churner
 * thousands of them a second; now only a new chunk waits. Dropping frees
 * the run after a grace period (a walk may still read the rows of an entry
 * it copied before), counted, one for every run freed since the last. A
 * budget of rows bounds the chunks' kernel memory together.
 */
#ifndef BPFPROF_ROWSTORE_H
#define BPFPROF_ROWSTORE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct rowstore;

/* Where a file's rows are: unwind_map.file, .first. */
struct row_place {
	__u32 slot, first;
};

/* files_fd: the unwind_files map, of nslots slots; chunks of at most
 * budget_rows rows together. */
int rowstore__new(int files_fd, unsigned int nslots, size_t budget_rows, struct rowstore **out);

/* Loads n (> 0) rows of one file, at *at. 0, -ENOSPC when they do not
 * fit the budget (once the runs dropped are free), or -errno. */
int rowstore__load(struct rowstore *rs, const struct unwind_row *rows, size_t n,
		   struct row_place *at);

/* The same, with nhead rows (a page index) just before the n rows, in the
 * same run: *at is where the n rows are; the run, to drop, starts nhead
 * rows before and is nhead + n rows long. */
int rowstore__load_after(struct rowstore *rs, const struct unwind_row *head, size_t nhead,
			 const struct unwind_row *rows, size_t n, struct row_place *at);

/* Frees the n rows loaded at *at (free for a later load after a grace
 * period). */
void rowstore__drop(struct rowstore *rs, const struct row_place *at, size_t n);

/* Chunks that held no rows for a while go (their kernel memory with
 * them); called now and then. */
void rowstore__tidy(struct rowstore *rs);

/* No program reads the rows any more and the outer map is about to go:
 * drops from now on free only the bookkeeping, not the kernel's slots. */
void rowstore__closing(struct rowstore *rs);

/* Rows and files loaded now. */
size_t rowstore__rows(const struct rowstore *rs);
size_t rowstore__files(const struct rowstore *rs);
/* The kernel memory of the chunks (kmem.h), in bytes. */
uint64_t rowstore__bytes(const struct rowstore *rs);

/* What loading cost the main loop: chunks made (each an RCU grace period
 * in the outer map's update), and grace periods waited to reuse the rows
 * of dropped files. */
struct rowstore_costs {
	size_t chunks, chunks_made, chunks_freed, graces;
};
void rowstore__costs(const struct rowstore *rs, struct rowstore_costs *c);

void rowstore__free(struct rowstore *rs);

#endif
