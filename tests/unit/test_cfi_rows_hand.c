// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cfi_rows.c on hand-written CFI whose rows are known:
 * remember/restore nesting, a rule restored to the CIE's, long advances,
 * expressions and the end of a function (the same as libdw's too).
 */
#include "cfi_rows_fixture.h"

TestSuite(cfi_rows, .fini = check_leaks);

/* ---- hand-written CFI ---------------------------------------------------- */

/* A shared object of one function f of size nops whose CFI is src (the
 * directives between .cfi_startproc and .cfi_endproc, nops included). */
static struct path with_cfi(const char *name, const char *body)
{
	struct path s = path_of("hand.s"), so = path_of(name);
	struct text t = { 0 };

	put(&t, "	.text\n	.globl f\n	.type f, @function\n	.p2align 4\nf:\n"
		"	.cfi_startproc\n%s	.cfi_endproc\n	.size f, .-f\n", body);
	write_file(s.s, t.s, t.len);
	free(t.s);
	run("gcc -shared -nostdlib '%s' -o '%s'", s.s, so.s);
	return so;
}

/* A shared object whose .eh_frame is written by hand: a "zR" CIE (code
 * alignment caf, data alignment daf, pcrel sdata4 addresses) with
 * cie_insns, and f's FDE with fde_insns (assembler lines: .byte, and
 * ".long L - ." for set_loc's operand); f is size bytes of nops. */
static struct path raw_cfi(const char *name, int caf, int daf, const char *cie_insns,
			   const char *fde_insns, int size)
{
	struct path s = path_of("raw.s"), so = path_of(name);
	struct text t = { 0 };

	/* hidden: .eh_frame's pcrel fields may point at it in a shared object */
	put(&t, "	.text\n	.globl f\n	.hidden f\n	.type f, @function\n	.p2align 4\nf:\n"
		"	.skip %d, 0x90\n.Lf_end:\n	.size f, .-f\n", size);
	put(&t, "	.section .eh_frame,\"a\",@progbits\n	.p2align 3\n"
		".Lcie:\n	.long .Lcie_end - .Lcie_id\n.Lcie_id:\n	.long 0\n	.byte 1\n"
		"	.asciz \"zR\"\n	.uleb128 %d\n	.sleb128 %d\n	.byte 16\n"
		"	.uleb128 1\n	.byte 0x1b\n%s	.balign 8, 0\n.Lcie_end:\n", caf, daf, cie_insns);
	put(&t, "	.long .Lfde_end - .Lfde_id\n.Lfde_id:\n	.long .Lfde_id - .Lcie\n"
		"	.long f - .\n	.long .Lf_end - f\n	.uleb128 0\n%s	.balign 8, 0\n"
		".Lfde_end:\n", fde_insns);
	write_file(s.s, t.s, t.len);
	free(t.s);
	run("gcc -shared -nostdlib '%s' -o '%s'", s.s, so.s);
	return so;
}

/* The table of path, as libdw's, is exactly want (f's rows, from f). */
static void expect_rows(const char *path, const struct unwind_row *want, size_t n)
{
	struct unwind_table t;
	uint64_t f = sym_addr(path, "f");

	cr_assert_eq(expect_same(path), n, "%s", path);
	cr_assert_eq(build_table(path, &t), 0);
	for (size_t i = 0; i < n; i++)
		cr_expect(t.rows[i].pc == f + want[i].pc && t.rows[i].cfa_reg == want[i].cfa_reg &&
			  t.rows[i].cfa_offset == want[i].cfa_offset &&
			  t.rows[i].rbp_offset == want[i].rbp_offset,
			  "%s row %zu: f+%llu reg %d off %d rbp %d, want f+%llu reg %d off %d rbp %d",
			  path, i, (unsigned long long)(t.rows[i].pc - f), t.rows[i].cfa_reg,
			  t.rows[i].cfa_offset, t.rows[i].rbp_offset,
			  (unsigned long long)want[i].pc, want[i].cfa_reg, want[i].cfa_offset,
			  want[i].rbp_offset);
	unwind_table__free(&t);
}

#define ROW(at, reg, off, rbp) { .pc = (at), .cfa_reg = (reg), .cfa_offset = (off), .rbp_offset = (rbp) }
#define EXPECT_ROWS(path, ...) do {						\
		const struct unwind_row want_[] = { __VA_ARGS__ };		\
		expect_rows((path), want_, sizeof(want_) / sizeof(want_[0]));	\
	} while (0)

Test(cfi_rows, remember_restore_nesting, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("nest.so",
		"	nop\n	.cfi_def_cfa_offset 16\n	.cfi_offset %rbp, -16\n"
		"	.cfi_remember_state\n	nop\n	.cfi_def_cfa %rbp, 16\n"
		"	.cfi_remember_state\n	nop\n	.cfi_def_cfa_offset 32\n	.cfi_offset %rbp, -24\n"
		"	nop\n	.cfi_restore_state\n	nop\n	.cfi_restore_state\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(1, CFA_RSP, 16, -16),
		    ROW(2, CFA_RBP, 16, -16), ROW(3, CFA_RBP, 32, -24), ROW(4, CFA_RBP, 16, -16),
		    ROW(5, CFA_RSP, 16, -16), ROW(6, CFA_NONE, 0, 0));
}

/* DW_CFA_restore: back to the CIE's rule (the return address's too). */
Test(cfi_rows, restore_to_cie_rule, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("restore.so",
		"	nop\n	.cfi_offset %rbp, -16\n	.cfi_offset 16, -16\n	nop\n"
		"	.cfi_restore 16\n	nop\n	.cfi_restore %rbp\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(1, CFA_NONE, 0, 0),
		    ROW(2, CFA_RSP, 8, -16), ROW(3, CFA_RSP, 8, RBP_SAME), ROW(4, CFA_NONE, 0, 0));
}

/* advance_loc2 and advance_loc4 (gas picks them for the gaps). */
Test(cfi_rows, long_advances, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("far.so",
		"	.skip 300, 0x90\n	.cfi_def_cfa_offset 16\n"
		"	.skip 70000, 0x90\n	.cfi_def_cfa_offset 24\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(300, CFA_RSP, 16, RBP_SAME),
		    ROW(70300, CFA_RSP, 24, RBP_SAME), ROW(70301, CFA_NONE, 0, 0));
}

/* Expressions: the PLT's, one breg (rsp + 24), anything else out of reach;
 * an undefined return address ends the stack. */
Test(cfi_rows, expressions_and_the_end, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("expr.so",
		"	.cfi_escape 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22\n"
		"	nop\n	.cfi_escape 0x0f, 2, 0x77, 24\n"
		"	nop\n	.cfi_escape 0x0f, 3, 0x77, 8, 0x06\n"		/* deref */
		"	nop\n	.cfi_def_cfa %rsp, 8\n	.cfi_escape 0x10, 6, 2, 0x23, 24\n"	/* rbp at CFA+24 */
		"	nop\n	.cfi_escape 0x14, 16, 1\n"			/* val_offset ra */
		"	nop\n	.cfi_undefined 16\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_PLT, 8, RBP_SAME), ROW(1, CFA_RSP, 24, RBP_SAME),
		    ROW(2, CFA_NONE, 0, 0), ROW(3, CFA_RSP, 8, 24), ROW(4, CFA_NONE, 0, 0),
		    ROW(5, CFA_END, 0, 0), ROW(6, CFA_NONE, 0, 0));
}

/* The _sf forms scale by the data alignment (-8); GNU_negative_offset_extended
 * negates. */
Test(cfi_rows, factored_offsets, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("sf.so",
		"	nop\n	.cfi_escape 0x12, 7, 0x7e\n"		/* def_cfa_sf rsp, -2: 16 */
		"	nop\n	.cfi_escape 0x13, 0x7c\n"		/* def_cfa_offset_sf -4: 32 */
		"	nop\n	.cfi_escape 0x11, 6, 3\n"		/* offset_extended_sf rbp, 3: -24 */
		"	nop\n	.cfi_escape 0x2f, 6, 2\n"		/* negative: rbp at +16 */
		"	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(1, CFA_RSP, 16, RBP_SAME),
		    ROW(2, CFA_RSP, 32, RBP_SAME), ROW(3, CFA_RSP, 32, -24), ROW(4, CFA_RSP, 32, 16),
		    ROW(5, CFA_NONE, 0, 0));
}

/* The CIE's rules of the hand-written .eh_frame: CFA = rsp + 8, return
 * address at CFA - 8, rbp at CFA - 16. */
#define CIE_RULES	"	.byte 0x0c, 7, 8\n	.byte 0x90, 1\n	.byte 0x86, 2\n"

/* DW_CFA_set_loc, forwards and back: a row starts where the location first
 * passes the last one; rules set meanwhile belong to that last row. */
Test(cfi_rows, set_loc, .init = setup, .fini = teardown)
{
	struct path so = raw_cfi("setloc.so", 1, -8, CIE_RULES,
		"	.byte 0x01\n	.long f + 4 - .\n	.byte 0x0e, 16\n"
		"	.byte 0x01\n	.long f + 8 - .\n	.byte 0x0e, 8\n"
		"	.byte 0x01\n	.long f + 6 - .\n	.byte 0x0e, 24\n"	/* back: f+8's */
		"	.byte 0x41\n	.byte 0x0e, 40\n"	/* f+7: still f+8's */
		"	.byte 0x43\n	.byte 0x08, 6\n", 16);	/* f+10, rbp same */

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, -16), ROW(4, CFA_RSP, 16, -16),
		    ROW(8, CFA_RSP, 40, -16), ROW(10, CFA_RSP, 40, RBP_SAME),
		    ROW(16, CFA_NONE, 0, 0));
}

/* The code alignment factor scales advance_loc; advance_loc4 and
 * MIPS_advance_loc8 by hand. */
Test(cfi_rows, code_alignment_and_wide_advances, .init = setup, .fini = teardown)
{
	struct path so = raw_cfi("caf.so", 4, -8, CIE_RULES,
		"	.byte 0x41\n	.byte 0x0e, 16\n"		/* f+4 */
		"	.byte 0x04\n	.long 2\n	.byte 0x0e, 24\n"	/* f+12 */
		"	.byte 0x1d\n	.quad 1\n	.byte 0x0e, 32\n", 32);	/* f+16 */

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, -16), ROW(4, CFA_RSP, 16, -16),
		    ROW(12, CFA_RSP, 24, -16), ROW(16, CFA_RSP, 32, -16), ROW(32, CFA_NONE, 0, 0));
}

/* What a CIE's own instructions may not do (restore, move the location)
 * leaves its FDEs without rows; remembered states do not outlive it. */
Test(cfi_rows, cie_programs, .init = setup, .fini = teardown)
{
	struct path a = raw_cfi("cie_restore.so", 1, -8, CIE_RULES "	.byte 0xc6\n",
				"	.byte 0x41\n	.byte 0x0e, 16\n", 8);
	struct path b = raw_cfi("cie_advance.so", 1, -8, CIE_RULES "	.byte 0x41\n",
				"	.byte 0x41\n	.byte 0x0e, 16\n", 8);
	struct path c = raw_cfi("cie_remember.so", 1, -8, CIE_RULES "	.byte 0x0a, 0x0e, 32\n",
				"	.byte 0x41\n	.byte 0x0b\n", 8);
	struct path d = raw_cfi("cie_undefined.so", 1, -8, "	.byte 0x0c, 7, 8\n	.byte 0x07, 16\n",
				"	.byte 0x41\n	.byte 0x90, 1\n", 8);

	cr_expect_eq(expect_same(a.s), 0);
	cr_expect_eq(expect_same(b.s), 0);
	/* rsp + 32 from the CIE; the FDE's restore_state has nothing to pop */
	EXPECT_ROWS(c.s, ROW(0, CFA_RSP, 32, -16), ROW(1, CFA_NONE, 0, 0));
	EXPECT_ROWS(d.s, ROW(0, CFA_END, 0, 0), ROW(1, CFA_RSP, 8, RBP_SAME),
		    ROW(8, CFA_NONE, 0, 0));
}
