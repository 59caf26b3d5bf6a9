/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF side's store of unwind rows: each file's rows in an array map of
 * their own, sized to them, in a slot of the unwind_files array-of-maps.
 * Loading takes a slot and the rows' kernel memory; dropping frees both
 * (the kernel frees the inner map once no program can still see it), so
 * tables come and go with the files that processes map. A budget of rows
 * bounds the kernel memory of all loaded files together.
 */
#ifndef BPFPROF_ROWSTORE_H
#define BPFPROF_ROWSTORE_H

#include <stddef.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct rowstore;

/* files_fd: the unwind_files map, of nslots slots; at most budget_rows
 * rows loaded at once. */
int rowstore__new(int files_fd, unsigned int nslots, size_t budget_rows, struct rowstore **out);

/* Loads n (> 0) rows of one file. Returns its handle (>= 0), -ENOSPC when
 * they do not fit the budget or no slot is free, or -errno. */
int rowstore__load(struct rowstore *rs, const struct unwind_row *rows, size_t n);

/* Frees a handle's rows and slot. */
void rowstore__drop(struct rowstore *rs, int handle);

/* No program reads the rows any more and the outer map is about to go:
 * drops from now on free only the handles, not the kernel's slots. */
void rowstore__closing(struct rowstore *rs);

/* Rows and files loaded now. */
size_t rowstore__rows(const struct rowstore *rs);
size_t rowstore__files(const struct rowstore *rs);
/* The kernel memory of the loaded rows' maps (kmem.h), in bytes. */
uint64_t rowstore__bytes(const struct rowstore *rs);

void rowstore__free(struct rowstore *rs);

#endif
