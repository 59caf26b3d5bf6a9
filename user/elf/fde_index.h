/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where the functions of an ELF file start, as its call frame information
 * sees them: every FDE of .eh_frame covers one function (or one part of a
 * split one), [initial location, + range). A stripped file keeps its
 * .eh_frame (it runs: exceptions, unwinders), so an address no symbol names
 * still has a function, and all samples in it can be one frame.
 */
#ifndef BPFPROF_FDE_INDEX_H
#define BPFPROF_FDE_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct fde_index;

/* Every FDE of the ELF file open at fd (only read during the call; the
 * caller closes it), sorted by start. NULL with errno: ENOENT when the file
 * has no .eh_frame, ENOEXEC/EINVAL when it is not ELF or its CFI is
 * malformed, E2BIG beyond a bound of elf_limits.h, ENOMEM. */
struct fde_index *fde_index__open_fd(int fd);

/* The same from .eh_frame's bytes, loaded at vaddr (tests, fuzzing). */
struct fde_index *fde_index__from_eh_frame(const void *bytes, size_t size, uint64_t vaddr);

/* The start of the FDE covering vaddr (as the ELF's headers number
 * addresses). Returns 0, or -ENOENT when no FDE covers it. */
int fde_index__find(const struct fde_index *fi, uint64_t vaddr, uint64_t *start);

size_t fde_index__count(const struct fde_index *fi);

/* The memory fi holds, in bytes (what the file registry budgets). */
size_t fde_index__bytes(const struct fde_index *fi);
void fde_index__free(struct fde_index *fi);

#endif
