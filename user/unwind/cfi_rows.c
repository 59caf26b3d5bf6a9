// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One run of each FDE's CFA program (cfi_rows.h says why). What each
 * instruction does follows libdw (elfutils 0.188: execute_cfi() in cfi.c,
 * dwarf_frame_register(), dwarf_frame_cfa()), so that the rows are those of
 * unwind_table.c's reference path, which asks libdw at each address. */
#include <dwarf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/cfi_bytes.h"
#include "unwind/cfi_rows.h"

/* DWARF register numbers of the x86-64 psABI. */
#define DWARF_RBP		6
#define DWARF_RSP		7
#define DWARF_RA		16

/* rsp + 8, plus 8 once the PLT entry's push (which ends at offset 11 of
 * each 16-byte entry) ran. */
const struct cfi_op cfi_plt_expr[CFI_PLT_EXPR_OPS] = {
	{ DW_OP_breg7, 8 }, { DW_OP_breg16, 0 }, { DW_OP_lit15, 0 },
	{ DW_OP_and, 0 }, { DW_OP_lit11, 0 }, { DW_OP_ge, 0 },
	{ DW_OP_lit3, 0 }, { DW_OP_shl, 0 }, { DW_OP_plus, 0 },
};

/* What one instruction did. */
enum step {
	STEP_RULE,		/* changed the rules, or nothing */
	STEP_LOC,		/* moved the location: a new row may start */
	STEP_END,		/* no instruction left */
	STEP_BAD,		/* unknown or malformed: libdw fails here */
};

/* One program's run. */
struct run {
	const struct cfi_rows *r;
	const uint8_t *p, *end;
	bool in_cie;		/* the CIE's own instructions: no location, no restore */
	uint64_t loc;
	struct cfi_rules now;
	struct cfi_rules saved[CFI_MAX_DEPTH];	/* remember_state's stack */
	unsigned int depth;
};

/* ---- operands ------------------------------------------------------------ */

static bool uleb(struct run *x, uint64_t *v)
{
	return !cfi__read_leb128(&x->p, x->end, false, v);
}

static bool sleb(struct run *x, uint64_t *v)
{
	return !cfi__read_leb128(&x->p, x->end, true, v);
}

/* A DW_FORM_block: its length, then its bytes. */
static bool block(struct run *x, const uint8_t **start, const uint8_t **end)
{
	uint64_t len;

	if (!uleb(x, &len) || len > (uint64_t)(x->end - x->p))
		return false;
	*start = x->p;
	x->p += len;
	*end = x->p;
	return true;
}

/* An offset times the CIE's data alignment factor, in libdw's unsigned
 * arithmetic. */
static uint64_t factored(const struct run *x, uint64_t v)
{
	return v * (uint64_t)x->r->cie.data_align;
}

/* ---- expressions --------------------------------------------------------- */

static bool is_breg(uint8_t atom)
{
	return atom >= DW_OP_breg0 && atom <= DW_OP_breg31;
}

/* The bytes are exactly the lazy PLT's expression (cfi_plt_expr). */
static bool is_plt_expr(const uint8_t *p, const uint8_t *end)
{
	uint64_t v;

	for (size_t i = 0; i < CFI_PLT_EXPR_OPS; i++) {
		if (p >= end || *p++ != cfi_plt_expr[i].atom)
			return false;
		if (is_breg(cfi_plt_expr[i].atom) &&
		    (cfi__read_leb128(&p, end, true, &v) || v != cfi_plt_expr[i].number))
			return false;
	}
	return p == end;
}

/* DW_CFA_def_cfa_expression: the PLT's, one DW_OP_bregN / DW_OP_bregx
 * (register + offset), or out of reach. */
static void cfa_expr(struct cfi_rules *now, const uint8_t *p, const uint8_t *end)
{
	uint64_t reg, off;
	uint8_t atom;

	now->cfa = CFI_CFA_NONE;
	if (is_plt_expr(p, end)) {
		now->cfa = CFI_CFA_PLT;
		return;
	}
	if (p >= end)
		return;
	atom = *p++;
	if (is_breg(atom))
		reg = atom - DW_OP_breg0;
	else if (atom != DW_OP_bregx || cfi__read_leb128(&p, end, false, &reg))
		return;
	if (cfi__read_leb128(&p, end, true, &off) || p != end)
		return;
	now->cfa = CFI_CFA_EXPR_REG;
	now->cfa_reg = reg;
	now->cfa_off = off;
}

/* DW_CFA_expression: the address where the register is saved, computed
 * from the CFA pushed first. Empty, libdw reads it as undefined. */
static struct cfi_reg_rule saved_by_expr(const uint8_t *p, const uint8_t *end)
{
	struct cfi_reg_rule other = { .kind = CFI_REG_OTHER };
	uint64_t off;

	if (p == end)
		return (struct cfi_reg_rule){ .kind = CFI_REG_UNDEF };
	if (*p++ != DW_OP_plus_uconst || cfi__read_leb128(&p, end, false, &off) || p != end)
		return other;
	return (struct cfi_reg_rule){ .kind = CFI_REG_AT_CFA, .off = (int64_t)off };
}

/* ---- instructions -------------------------------------------------------- */

/* The rule of a register that matters to a row, else NULL. */
static struct cfi_reg_rule *rule_of(struct cfi_rules *rules, uint64_t reg)
{
	if (reg == DWARF_RA)
		return &rules->ra;
	return reg == DWARF_RBP ? &rules->rbp : NULL;
}

static void set_rule(struct run *x, uint64_t reg, uint8_t kind, uint64_t off)
{
	struct cfi_reg_rule *rule = rule_of(&x->now, reg);

	if (rule)
		*rule = (struct cfi_reg_rule){ .kind = kind, .off = (int64_t)off };
}

/* DW_CFA_restore: the rule after the CIE's initial instructions (which
 * cannot use it themselves). */
static enum step restore(struct run *x, uint64_t reg)
{
	if (x->in_cie)
		return STEP_BAD;
	if (reg == DWARF_RA)
		x->now.ra = x->r->initial.ra;
	else if (reg == DWARF_RBP)
		x->now.rbp = x->r->initial.rbp;
	return STEP_RULE;
}

/* The location moves by delta code alignment units, or to an address. */
static enum step advance(struct run *x, uint64_t delta)
{
	x->loc += delta * x->r->cie.code_align;
	return x->in_cie ? STEP_BAD : STEP_LOC;
}

/* DW_CFA_advance_loc1 (size 1), 2, 4, MIPS_advance_loc8. */
static enum step advance_fixed(struct run *x, unsigned int size)
{
	static const uint8_t enc[9] = {
		[2] = DW_EH_PE_udata2, [4] = DW_EH_PE_udata4, [8] = DW_EH_PE_udata8,
	};
	uint64_t delta;

	if (size == 1) {
		if (x->p >= x->end)
			return STEP_BAD;
		return advance(x, *x->p++);
	}
	if (cfi__read_raw(enc[size], &x->p, x->end, &delta))
		return STEP_BAD;
	return advance(x, delta);
}

static enum step set_loc(struct run *x)
{
	const Elf_Data *d = x->r->sec->data;

	if (cfi__read_field(x->r->cie.enc, &x->p, d->d_buf, x->end, x->r->sec->vaddr, 0, &x->loc))
		return STEP_BAD;
	return x->in_cie ? STEP_BAD : STEP_LOC;
}

/* Instructions that move the location; STEP_END when op is none. */
static enum step loc_insn(struct run *x, uint8_t op)
{
	switch (op) {
	case DW_CFA_set_loc:
		return set_loc(x);
	case DW_CFA_advance_loc1:
		return advance_fixed(x, 1);
	case DW_CFA_advance_loc2:
		return advance_fixed(x, 2);
	case DW_CFA_advance_loc4:
		return advance_fixed(x, 4);
	case DW_CFA_MIPS_advance_loc8:
		return advance_fixed(x, 8);
	default:
		return STEP_END;
	}
}

static void def_cfa(struct run *x, uint64_t reg, uint64_t off)
{
	x->now.cfa = CFI_CFA_REG;
	x->now.cfa_reg = reg;
	x->now.cfa_off = off;
}

/* def_cfa_register and def_cfa_offset change one half of a def_cfa rule:
 * without one (no CFA yet, or an expression), libdw makes the CFA invalid
 * until the next def_cfa. */
static void change_cfa(struct run *x, uint64_t *half, uint64_t v)
{
	if (x->now.cfa == CFI_CFA_REG)
		*half = v;
	else
		x->now.cfa = CFI_CFA_NONE;
}

/* Instructions that set the CFA; STEP_END when op is none. */
static enum step cfa_insn(struct run *x, uint8_t op)
{
	const uint8_t *start, *end;
	uint64_t reg, off;

	switch (op) {
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
		if (!uleb(x, &reg) || !(op == DW_CFA_def_cfa ? uleb(x, &off) : sleb(x, &off)))
			return STEP_BAD;
		def_cfa(x, reg, op == DW_CFA_def_cfa ? off : factored(x, off));
		return STEP_RULE;
	case DW_CFA_def_cfa_register:
		if (!uleb(x, &reg))
			return STEP_BAD;
		change_cfa(x, &x->now.cfa_reg, reg);
		return STEP_RULE;
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
		if (!(op == DW_CFA_def_cfa_offset ? uleb(x, &off) : sleb(x, &off)))
			return STEP_BAD;
		change_cfa(x, &x->now.cfa_off, op == DW_CFA_def_cfa_offset ? off : factored(x, off));
		return STEP_RULE;
	case DW_CFA_def_cfa_expression:
		if (!block(x, &start, &end))
			return STEP_BAD;
		cfa_expr(&x->now, start, end);
		return STEP_RULE;
	default:
		return STEP_END;
	}
}

/* A register saved at CFA + a factored offset: DW_CFA_offset_extended,
 * _sf, GNU_negative_offset_extended. */
static enum step saved_at_cfa(struct run *x, uint8_t op)
{
	uint64_t reg, off;

	if (!uleb(x, &reg) || !(op == DW_CFA_offset_extended_sf ? sleb(x, &off) : uleb(x, &off)))
		return STEP_BAD;
	if (op == DW_CFA_GNU_negative_offset_extended)
		off = 0 - off;
	set_rule(x, reg, CFI_REG_AT_CFA, factored(x, off));
	return STEP_RULE;
}

/* DW_CFA_expression and DW_CFA_val_expression. */
static enum step expr_rule(struct run *x, uint8_t op)
{
	const uint8_t *start, *end;
	struct cfi_reg_rule *rule;
	uint64_t reg;

	if (!uleb(x, &reg) || !block(x, &start, &end))
		return STEP_BAD;
	rule = rule_of(&x->now, reg);
	if (!rule)
		return STEP_RULE;
	if (op == DW_CFA_expression)
		*rule = saved_by_expr(start, end);
	else	/* a value: out of reach, or undefined when empty */
		rule->kind = start == end ? CFI_REG_UNDEF : CFI_REG_OTHER;
	return STEP_RULE;
}

/* Rules out of reach whatever their operands: DW_CFA_register, val_offset. */
static enum step other_rule(struct run *x, uint8_t op)
{
	uint64_t reg, v;

	if (!uleb(x, &reg) || !(op == DW_CFA_val_offset_sf ? sleb(x, &v) : uleb(x, &v)))
		return STEP_BAD;
	set_rule(x, reg, CFI_REG_OTHER, 0);
	return STEP_RULE;
}

/* Instructions that set one register's rule; STEP_END when op is none. */
static enum step reg_insn(struct run *x, uint8_t op)
{
	uint64_t reg;

	switch (op) {
	case DW_CFA_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_GNU_negative_offset_extended:
		return saved_at_cfa(x, op);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return expr_rule(x, op);
	case DW_CFA_register:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
		return other_rule(x, op);
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
		if (!uleb(x, &reg))
			return STEP_BAD;
		if (op == DW_CFA_restore_extended)
			return restore(x, reg);
		set_rule(x, reg, op == DW_CFA_undefined ? CFI_REG_UNDEF : CFI_REG_SAME, 0);
		return STEP_RULE;
	default:
		return STEP_END;
	}
}

/* The rest: the remembered states, and what changes nothing a row says. */
static enum step state_insn(struct run *x, uint8_t op)
{
	uint64_t size;

	switch (op) {
	case DW_CFA_remember_state:
		if (x->depth == CFI_MAX_DEPTH)
			return STEP_BAD;
		x->saved[x->depth++] = x->now;
		return STEP_RULE;
	case DW_CFA_restore_state:
		if (!x->depth)
			return STEP_BAD;
		x->now = x->saved[--x->depth];
		return STEP_RULE;
	case DW_CFA_nop:
		return STEP_RULE;
	case DW_CFA_GNU_args_size:
		return uleb(x, &size) ? STEP_RULE : STEP_BAD;
	case DW_CFA_GNU_window_save:
		/* SPARC's shorthand, which libdw applies on x86-64 too: among
		 * others, register 16 saved at CFA + 0. */
		set_rule(x, DWARF_RA, CFI_REG_AT_CFA, 0);
		return STEP_RULE;
	default:
		return STEP_BAD;
	}
}

/* The three opcodes with an operand in their low six bits. */
static enum step primary_insn(struct run *x, uint8_t op)
{
	uint64_t off;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance(x, op & 0x3f);
	case DW_CFA_offset:
		if (!uleb(x, &off))
			return STEP_BAD;
		set_rule(x, op & 0x3f, CFI_REG_AT_CFA, factored(x, off));
		return STEP_RULE;
	default:
		return restore(x, op & 0x3f);
	}
}

/* Runs the next instruction. */
static enum step step(struct run *x)
{
	enum step s;
	uint8_t op;

	if (x->p >= x->end)
		return STEP_END;
	op = *x->p++;
	if (op & 0xc0)
		return primary_insn(x, op);
	s = loc_insn(x, op);
	if (s == STEP_END)
		s = cfa_insn(x, op);
	if (s == STEP_END)
		s = reg_insn(x, op);
	return s == STEP_END ? state_insn(x, op) : s;
}

/* ---- rows ---------------------------------------------------------------- */

/* CFA = rsp or rbp + a 32-bit offset, or the PLT's expression. */
static bool cfa_of(const struct cfi_rules *now, struct unwind_row *row)
{
	int64_t off = (int64_t)now->cfa_off;

	if (now->cfa == CFI_CFA_PLT) {
		row->cfa_reg = CFA_PLT;
		row->cfa_offset = 8;
		return true;
	}
	if (now->cfa == CFI_CFA_NONE || off < INT32_MIN || off > INT32_MAX)
		return false;
	if (now->cfa_reg == DWARF_RSP)
		row->cfa_reg = CFA_RSP;
	else if (now->cfa_reg == DWARF_RBP)
		row->cfa_reg = CFA_RBP;
	else
		return false;
	row->cfa_offset = (int32_t)off;
	return true;
}

/* The caller's rbp: unchanged (undefined is read the same way: the frame
 * did not save it), or saved at CFA + N with N != 0 in rbp_offset's range. */
static bool rbp_of(const struct cfi_rules *now, struct unwind_row *row)
{
	const struct cfi_reg_rule *rbp = &now->rbp;

	if (rbp->kind == CFI_REG_SAME || rbp->kind == CFI_REG_UNDEF) {
		row->rbp_offset = RBP_SAME;
		return true;
	}
	if (rbp->kind != CFI_REG_AT_CFA || !rbp->off || rbp->off < INT16_MIN ||
	    rbp->off > INT16_MAX)
		return false;
	row->rbp_offset = (int16_t)rbp->off;
	return true;
}

/* The row the rules make at pc (NULL rules: none, CFA_NONE). */
static int give_row(const struct cfi_rows *r, const struct cfi_rules *now, uint64_t pc,
		    cfi_row_fn take, void *ctx)
{
	struct unwind_row row = { .pc = pc, .cfa_reg = CFA_NONE };

	if (!now || r->cie.ra_reg != DWARF_RA || now->ra.kind == CFI_REG_SAME ||
	    now->ra.kind == CFI_REG_OTHER)
		return take(ctx, &row);
	if (now->ra.kind == CFI_REG_UNDEF) {
		row.cfa_reg = CFA_END;
		return take(ctx, &row);
	}
	if (now->ra.off != -8 || !cfa_of(now, &row) || !rbp_of(now, &row))
		row = (struct unwind_row){ .pc = pc, .cfa_reg = CFA_NONE };
	return take(ctx, &row);
}

/* ---- programs ------------------------------------------------------------ */

/* The CIE's initial rules: the x86-64 ABI's (rbp and the return address
 * unchanged, no CFA), then its instructions, where the location may not
 * move. False when they fail. */
/* A run of [p, end) from the rules now (saved[] is left as it is: only
 * what remember_state put there is read). */
static void run_init(struct run *x, const struct cfi_rows *r, const uint8_t *p,
		     const uint8_t *end, const struct cfi_rules *now)
{
	x->r = r;
	x->p = p;
	x->end = end;
	x->in_cie = false;
	x->loc = 0;
	x->now = *now;
	x->depth = 0;
}

static bool run_cie(struct cfi_rows *r)
{
	static const struct cfi_rules abi = {
		.cfa = CFI_CFA_NONE, .ra.kind = CFI_REG_SAME, .rbp.kind = CFI_REG_SAME,
	};
	struct run x;
	enum step s;

	run_init(&x, r, r->cie.insns, r->cie.insns_end, &abi);
	x.in_cie = true;
	while ((s = step(&x)) == STEP_RULE)
		;
	r->initial = x.now;
	return s == STEP_END;
}

/* The CIE at off is r's, ready: false when it cannot be run. */
static bool use_cie(struct cfi_rows *r, uint64_t off)
{
	if (r->have_cie && r->cie_off == off)
		return r->cie_ok;
	r->have_cie = true;
	r->cie_off = off;
	r->cie_ok = !cfi_check__cie(r->sec, off, &r->cie) && run_cie(r);
	return r->cie_ok;
}

void cfi_rows__init(struct cfi_rows *r, const struct cfi_section *sec)
{
	*r = (struct cfi_rows){ .sec = sec };
}

/* A row at each location the program moves past the last row's, as libdw
 * finds them: asked at pc, it runs until an advance moves the location
 * beyond pc, and that is where the next row starts. */
int cfi_rows__fde(struct cfi_rows *r, const struct fde_info *f, cfi_row_fn take, void *ctx)
{
	const uint8_t *base = r->sec->data->d_buf;
	uint64_t pc = f->start;
	struct run x;
	enum step s;
	int err;

	if (f->insns > f->insns_end || f->insns_end > r->sec->data->d_size || !use_cie(r, f->cie))
		return give_row(r, NULL, pc, take, ctx);
	run_init(&x, r, base + f->insns, base + f->insns_end, &r->initial);
	x.loc = f->start;
	while ((s = step(&x)) != STEP_END) {
		if (s == STEP_BAD)
			return give_row(r, NULL, pc, take, ctx);
		if (s != STEP_LOC || x.loc <= pc)
			continue;
		err = give_row(r, &x.now, pc, take, ctx);
		if (err)
			return err;
		pc = x.loc;
		if (pc >= f->end)
			return 0;
	}
	return give_row(r, &x.now, pc, take, ctx);
}
