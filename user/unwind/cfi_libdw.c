// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference rows (cfi_libdw.h): libdw asked at each address where the
 * rules change. It re-runs the FDE's program from the start for each row
 * (an FDE of n rows costs ~n^2), and dwarf_frame_info() gives where the
 * next row starts.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdlib.h>

#include "unwind/cfi_libdw.h"

/* DWARF register numbers of the x86-64 psABI. */
#define DWARF_RBP		6
#define DWARF_RSP		7
#define DWARF_RA		16

static bool is_plt_expr(const Dwarf_Op *ops, size_t nops)
{
	size_t i;

	if (nops != CFI_PLT_EXPR_OPS)
		return false;
	for (i = 0; i < nops; i++)
		if (ops[i].atom != cfi_plt_expr[i].atom || ops[i].number != cfi_plt_expr[i].number)
			return false;
	return true;
}

/* CFA = register + offset, as libdw gives it: one DW_OP_bregx for a
 * DW_CFA_def_cfa rule, one DW_OP_bregN for a DW_CFA_def_cfa_expression. */
static bool cfa_rule(Dwarf_Frame *frame, struct unwind_row *row)
{
	uint64_t reg, off;
	Dwarf_Op *ops;
	size_t nops;

	if (dwarf_frame_cfa(frame, &ops, &nops) || !ops)
		return false;
	if (is_plt_expr(ops, nops)) {
		row->cfa_reg = CFA_PLT;
		row->cfa_offset = 8;
		return true;
	}
	if (nops != 1)
		return false;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = ops[0].number;
	} else {
		return false;
	}
	if ((int64_t)off < INT32_MIN || (int64_t)off > INT32_MAX)
		return false;
	if (reg == DWARF_RSP)
		row->cfa_reg = CFA_RSP;
	else if (reg == DWARF_RBP)
		row->cfa_reg = CFA_RBP;
	else
		return false;
	row->cfa_offset = (int32_t)(int64_t)off;
	return true;
}

/* libdw's form of an offset(N) rule: DW_OP_call_frame_cfa, then
 * DW_OP_plus_uconst N unless N is 0. */
static bool saved_at_cfa(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (!ops || nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int64_t)ops[1].number;
	return true;
}

/* Where the caller's return address is. */
enum ra_where {
	RA_AT_CFA_MINUS_8,	/* the only place the BPF side reads it from */
	RA_UNDEFINED,		/* the outermost frame: _start, a new thread */
	RA_ELSEWHERE,
};

/* libdw gives "undefined" as no ops in the caller's array, "same value"
 * (never right for a return address) as no ops and a NULL pointer. */
static enum ra_where ra_rule(Dwarf_Frame *frame)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	if (dwarf_frame_register(frame, DWARF_RA, mem, &ops, &nops))
		return RA_ELSEWHERE;
	if (nops == 0)
		return ops == mem ? RA_UNDEFINED : RA_ELSEWHERE;
	return saved_at_cfa(ops, nops, &off) && off == -8 ? RA_AT_CFA_MINUS_8 : RA_ELSEWHERE;
}

/* The caller's rbp: unchanged (same value; undefined is read the same way:
 * the frame did not save it), or saved at CFA + N with N != 0, which is
 * what rbp_offset can hold. */
static bool rbp_rule(Dwarf_Frame *frame, struct unwind_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	if (dwarf_frame_register(frame, DWARF_RBP, mem, &ops, &nops))
		return false;
	if (nops == 0) {
		row->rbp_offset = RBP_SAME;
		return true;
	}
	if (!saved_at_cfa(ops, nops, &off) || off == 0 || off < INT16_MIN || off > INT16_MAX)
		return false;
	row->rbp_offset = (int16_t)off;
	return true;
}

/* Fills *row (pc already set) from the frame: CFA_END where the CFI says
 * the stack ends, CFA_NONE if any rule is out of reach of the BPF side. */
static void frame_rules(Dwarf_Frame *frame, int ra_reg, struct unwind_row *row)
{
	enum ra_where ra = ra_reg == DWARF_RA ? ra_rule(frame) : RA_ELSEWHERE;

	if (ra == RA_UNDEFINED) {
		row->cfa_reg = CFA_END;
		return;
	}
	if (ra == RA_AT_CFA_MINUS_8 && cfa_rule(frame, row) && rbp_rule(frame, row))
		return;
	*row = (struct unwind_row){ .pc = row->pc, .cfa_reg = CFA_NONE };
}

/* The row at addr, and in *next where the frame's rules stop holding (the
 * FDE's end when libdw has no frame there). */
static void frame_row(Dwarf_CFI *cfi, uint64_t addr, uint64_t end, struct unwind_row *row,
		      uint64_t *next)
{
	Dwarf_Addr rstart, rend;
	Dwarf_Frame *frame;
	int ra_reg;

	*row = (struct unwind_row){ .pc = addr, .cfa_reg = CFA_NONE };
	*next = end;
	/* libdw's error codes are not public, so an allocation failure
	 * cannot be told from bad CFI: either way, no rule here. */
	if (dwarf_cfi_addrframe(cfi, addr, &frame))
		return;
	ra_reg = dwarf_frame_info(frame, &rstart, &rend, NULL);
	/* Malformed CFI can move the location backwards: insist on progress. */
	if (ra_reg >= 0 && rstart <= addr && rend > addr) {
		*next = rend;
		frame_rules(frame, ra_reg, row);
	}
	free(frame);
}

int cfi_libdw__rows(Dwarf_CFI *cfi, const struct fde_info *f, cfi_row_fn take, void *ctx)
{
	struct unwind_row row;
	uint64_t addr = f->start, next;
	int err;

	while (addr < f->end) {
		frame_row(cfi, addr, f->end, &row, &next);
		err = take(ctx, &row);
		if (err)
			return err;
		addr = next;
	}
	return 0;
}
