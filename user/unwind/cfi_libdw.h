/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An FDE's unwind rows as libdw gives them: the reference cfi_rows.c is
 * checked against (unwind_limits.reference_libdw, for tests), kept out of
 * the build's way. The same rules as cfi_rows.c's: CFA = rsp or rbp +
 * offset, the return address at CFA - 8, the caller's rbp unchanged or
 * saved at CFA + N, the lazy PLT expression; an undefined return address
 * is the outermost frame (CFA_END), anything else CFA_NONE.
 */
#ifndef BPFPROF_CFI_LIBDW_H
#define BPFPROF_CFI_LIBDW_H

#include <elfutils/libdw.h>

#include "unwind/cfi_check.h"
#include "unwind/cfi_rows.h"

/* f's rows, one dwarf_cfi_addrframe() each, to take(ctx, row); stops at
 * the first non-zero take() and returns it, else 0. */
int cfi_libdw__rows(Dwarf_CFI *cfi, const struct fde_info *f, cfi_row_fn take, void *ctx);

#endif
