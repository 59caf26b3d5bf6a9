/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The unwind rows of one FDE, from one run of its CFA program.
 *
 * Why not libdw: it answers "the rules at address X" (dwarf_cfi_addrframe)
 * by running the FDE's program from its start up to X, so asking at each of
 * an FDE's n rows costs ~n^2: cc1's table (2.3 MB of .eh_frame, ~600k rows)
 * took 1-2.5 s, and short compiles under make never got theirs. Here the
 * CIE's initial instructions run once per CIE and each FDE's instructions
 * once, start to end, and a row is given at the FDE's start and at each
 * advance of the location, the row libdw's frame would give there (as
 * unwind_table.c's reference path reads it, elfutils 0.188's semantics).
 *
 * Only what a row can say is kept: the CFA as rsp/rbp + offset or the lazy
 * PLT expression, the return address (at CFA - 8; undefined: the stack
 * ends) and the caller's rbp (unchanged, or saved at CFA + N). Any other
 * rule gives CFA_NONE while it holds; an unknown or malformed instruction,
 * CFA_NONE for the rest of the FDE.
 *
 * The programs run here were checked by cfi_check.c first (register
 * numbers, remember_state nesting, operands within their entry); every
 * read is bounded here anyway, there is no recursion, and the stack of
 * remembered rules is bounded (CFI_MAX_DEPTH).
 */
#ifndef BPFPROF_CFI_ROWS_H
#define BPFPROF_CFI_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "unwind/cfi_check.h"
#include "bpf/profile.h"

/* One operation of a DWARF expression: its opcode and first operand. */
struct cfi_op {
	uint8_t atom;
	uint64_t number;
};

/* The lazy PLT's CFA expression, as ld emits it for .plt (CFA_PLT). */
#define CFI_PLT_EXPR_OPS	9
extern const struct cfi_op cfi_plt_expr[CFI_PLT_EXPR_OPS];

/* Where a register's caller value is, as far as a row can tell. */
enum cfi_reg_kind {
	CFI_REG_SAME,		/* unchanged: the x86-64 ABI's default for rbp and rip */
	CFI_REG_UNDEF,		/* undefined, or never said (libdw reads both alike) */
	CFI_REG_AT_CFA,		/* saved at CFA + off */
	CFI_REG_OTHER,		/* in another register, an expression, a value */
};

struct cfi_reg_rule {
	uint8_t kind;		/* enum cfi_reg_kind */
	int64_t off;		/* CFI_REG_AT_CFA */
};

/* The CFA rule, as libdw keeps it. */
enum cfi_cfa_kind {
	CFI_CFA_NONE,		/* undefined, invalid, or an expression out of reach */
	CFI_CFA_REG,		/* reg + off, set by def_cfa (def_cfa_offset may change it) */
	CFI_CFA_EXPR_REG,	/* reg + off, as a one-operation expression */
	CFI_CFA_PLT,		/* the lazy PLT expression */
};

/* The rules a row is made of. */
struct cfi_rules {
	uint8_t cfa;		/* enum cfi_cfa_kind */
	uint64_t cfa_reg, cfa_off;
	struct cfi_reg_rule ra, rbp;
};

/* A section's interpreter: the last CIE used, with its initial rules (most
 * FDEs in a row share one CIE). */
struct cfi_rows {
	const struct cfi_section *sec;
	bool have_cie;		/* cie_off was read */
	bool cie_ok;		/* ... and its initial instructions ran */
	uint64_t cie_off;
	struct cfi_cie cie;
	struct cfi_rules initial;
};

/* Takes one row (in the FDE's order); nonzero stops the FDE's run. */
typedef int (*cfi_row_fn)(void *ctx, const struct unwind_row *row);

void cfi_rows__init(struct cfi_rows *r, const struct cfi_section *sec);

/* The rows of f, a placed FDE that cfi_check__read_fdes() read from r's
 * section, each given to take: the first at f->start, none at or past
 * f->end. Returns 0, or take's error. */
int cfi_rows__fde(struct cfi_rows *r, const struct fde_info *f, cfi_row_fn take, void *ctx);

#endif
