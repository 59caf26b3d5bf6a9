/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Unwind tables for --call-graph dwarf: an ELF file's call frame
 * information (.eh_frame, else .debug_frame), read with libdw, turned into
 * the compact rows the BPF unwinder walks (struct unwind_row, bpf/profile.h).
 */
#ifndef BPFPROF_UNWIND_TABLE_H
#define BPFPROF_UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "profile.h"

struct unwind_table {
	struct unwind_row *rows;	/* sorted by pc, no two with the same pc */
	size_t nrows;
	/* what the CFI held that the rows cannot express */
	size_t unsupported;		/* ranges marked CFA_NONE (expressions, odd registers) */
	size_t fdes;			/* FDEs read */
};

/* Builds the table of the ELF file open at fd (read only during the call).
 * Returns 0, -ENOENT when the file has no CFI, -ENOEXEC/-EINVAL for a file
 * that is not a valid ELF, -ENOMEM. */
int unwind_table__build(int fd, struct unwind_table *t);

/* The row that holds for a file virtual address, or NULL. */
const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc);

void unwind_table__free(struct unwind_table *t);

#endif
