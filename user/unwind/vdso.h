/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The vDSO's unwind table. Its code (clock_gettime, gettimeofday...) is
 * no file on disk, but every 64-bit process of this kernel maps the same
 * image: ours, read once, gives the CFI for the [vdso] mapping of every
 * process, so a sample whose leaf is in the vDSO keeps its callers.
 */
#ifndef BPFPROF_VDSO_H
#define BPFPROF_VDSO_H

#include <stdbool.h>
#include <stddef.h>
#include "unwind/unwind_table.h"

struct elf_syms;
struct vma;

/* Builds the table of this process's vDSO image; *es gets its segments
 * (file offset -> virtual address) and *size its mapping's size. Returns
 * 0, or what finding the image or building its table returned. */
int vdso_table__build(struct unwind_table *t, struct elf_syms **es, size_t *size);

/* True when v is a process's [vdso] mapping of size bytes: a process of
 * another ABI (x32, 32-bit) maps another image, of another size. */
bool vdso_table__matches(const struct vma *v, size_t size);

#endif
