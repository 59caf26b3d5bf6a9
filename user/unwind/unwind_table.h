/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Unwind tables for --call-graph dwarf: an ELF file's call frame
 * information (.eh_frame, else .debug_frame), run by cfi_rows.c, turned into
 * the compact rows the BPF unwinder walks (struct unwind_row, bpf/profile.h).
 */
#ifndef BPFPROF_UNWIND_TABLE_H
#define BPFPROF_UNWIND_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct unwind_table {
	struct unwind_row *rows;	/* sorted by pc, no two with the same pc */
	size_t nrows;
	/* what the CFI held that the rows cannot express */
	size_t unsupported;		/* ranges marked CFA_NONE (expressions, odd registers) */
	size_t fdes;			/* FDEs read */
	size_t fdes_without_fp;		/* functions that do not keep a frame pointer */
	bool direct_retried;		/* FDEs overlap: rows merged after sorting */
};

/* What a build may spend: it is checked between rows and FDEs. */
struct unwind_limits {
	const atomic_bool *cancel;	/* set by another thread: stop (NULL: never) */
	double max_seconds;		/* wall time (0: the default, 10 s) */
	/* For tests: the rows from libdw, asked at each address (the old,
	 * quadratic path), to compare with cfi_rows.c's */
	bool reference_libdw;
	/* For tests: rows sorted and merged after, never as they come */
	bool raw_rows;
};

/* Builds the table of the ELF file open at fd (read only during the call).
 * Returns 0, -ENOENT when the file has no CFI, -ENOEXEC/-EINVAL for a file
 * that is not a valid ELF, -E2BIG for an FDE or table over the caps, -ETIME
 * out of time, -ECANCELED when cancelled, -ENOMEM. */
int unwind_table__build_limited(int fd, struct unwind_table *t, const struct unwind_limits *lim);

/* The same with the default limits. */
int unwind_table__build(int fd, struct unwind_table *t);

/* The row that holds for a file virtual address, or NULL. */
const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc);

/* The file keeps frame pointers everywhere: every function's CFI sets
 * CFA = rbp + 16 with the caller's rbp at CFA - 16 once past its prologue
 * (see fp_shape__keeps() for what else is allowed), so a frame-pointer step
 * from any of its frames but the prologue's instructions is right. */
bool unwind_table__keeps_fp(const struct unwind_table *t);

void unwind_table__free(struct unwind_table *t);

#endif
