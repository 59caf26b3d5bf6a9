// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unwind tables from an ELF file's call frame information, for the BPF
 * unwinder (--call-graph dwarf).
 *
 * libdw executes the CFI programs; this file only asks it, at each address
 * where the rules change, what they are, and keeps what the BPF side can
 * follow: CFA = rsp or rbp + offset, the return address at CFA - 8, the
 * caller's rbp unchanged or saved at CFA + N, and the lazy PLT expression;
 * an undefined return address marks the outermost frame (CFA_END).
 *
 * libdw finds a frame by address but does not list the FDEs, so they are
 * enumerated with dwarf_next_cfi() over the raw section and each FDE's
 * range is decoded here (its pointer encoding comes from the CIE's
 * augmentation). Within an FDE, dwarf_frame_info() gives the range over
 * which one frame's rules hold, which is where the next row starts.
 *
 * The files are untrusted: every read is bounded, the row count and each
 * FDE's size are capped, and the build has a time budget and can be
 * cancelled from another thread, since each row re-runs its FDE's program
 * from the start (an FDE of n rows costs ~n^2). Nothing is bounded by the
 * file's size: a sparse 2 GiB file is free to make.
 * libdw itself trusts what it runs: a crafted register number makes it
 * allocate gigabytes, and it follows .eh_frame_hdr's table wherever it
 * points. So before it runs anything, every FDE and its CIE are read here
 * and their instructions' register numbers and nesting checked, and the
 * table must name only those FDEs; a file that fails is refused.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "cfi_bytes.h"
#include "unwind_table.h"

/* Rows accepted before merging, at most: 4M rows are 64 MiB of table, four
 * times the largest real file's (libLLVM-15.so: 980k; libc.so.6: 28k). */
#define UNWIND_MAX_ROWS		(4u << 20)

/* The bytes of one FDE, at most: the largest of Debian 12's files is 20 KB
 * (lto-dump's), libc's 1.3 KB. A row replays its FDE, so this bounds the
 * cost of a row (~0.6 ms at libdw's ~400 MB/s). */
#define MAX_FDE_BYTES		(256u << 10)

/* Wall time a build may take: the largest real table (libLLVM-14, 950k
 * rows) builds in under 2 s; a crafted one stops here. */
#define UNWIND_MAX_SECONDS	10.0

/* How often (rows or FDEs) the clock is read. */
#define CLOCK_EVERY		64

/* DWARF register numbers of the x86-64 psABI. */
#define DWARF_RBP		6
#define DWARF_RSP		7
#define DWARF_RA		16

/* The lazy PLT's CFA, emitted by ld for .plt: rsp + 8, plus 8 once the
 * entry's push (which ends at offset 11 of each 16-byte entry) ran. */
static const struct {
	uint8_t atom;
	uint64_t number;
} plt_expr[] = {
	{ DW_OP_breg7, 8 }, { DW_OP_breg16, 0 }, { DW_OP_lit15, 0 },
	{ DW_OP_and, 0 }, { DW_OP_lit11, 0 }, { DW_OP_ge, 0 },
	{ DW_OP_lit3, 0 }, { DW_OP_shl, 0 }, { DW_OP_plus, 0 },
};

/* A row before sorting: FDE ends sort after rows that start at the same pc
 * (the next function's rules win), ties in section order. */
struct raw_row {
	struct unwind_row row;
	size_t seq;
	bool fde_end;
};

/* The last CIE read, as most FDEs share one. */
struct cie_info {
	Dwarf_Off off;
	uint8_t enc;		/* DW_EH_PE_* of the FDEs' addresses */
	bool sized;		/* "z": FDEs carry sized augmentation data */
	bool valid;
};

/* One FDE, read and checked before libdw runs any. */
struct fde_info {
	uint64_t off;		/* in the section */
	uint64_t start, end;	/* the range it covers, if placed */
	bool placed;		/* false: an address encoding we cannot place */
};

struct builder {
	struct unwind_table *t;
	Elf *elf;
	Dwarf *dw;		/* only for .debug_frame */
	Dwarf_CFI *cfi;
	bool eh;		/* .eh_frame, else .debug_frame */
	Elf_Data *data;		/* the raw section the FDEs are read from */
	uint64_t vaddr;		/* its address: base of pc-relative pointers */
	const unsigned char *ident;
	const struct unwind_limits *lim;
	double deadline;	/* CLOCK_MONOTONIC seconds */
	unsigned int ticks;	/* steps since the clock was read */
	struct raw_row *raw;
	size_t nraw, cap;
	struct cie_info cie;
	struct fde_info *fdes;	/* in section order */
	size_t nfdes, fdes_cap;
	struct { uint64_t start, end; } plt[4];	/* .plt* sections: stubs */
	size_t nplt;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 0 while the build may go on, else why not: cancelled by another thread,
 * or out of time. */
static int over_budget(struct builder *b)
{
	if (b->lim->cancel && atomic_load_explicit(b->lim->cancel, memory_order_relaxed))
		return -ECANCELED;
	if (++b->ticks < CLOCK_EVERY)
		return 0;
	b->ticks = 0;
	return now_seconds() > b->deadline ? -ETIME : 0;
}

static int push_raw(struct builder *b, const struct unwind_row *row, bool fde_end)
{
	struct raw_row *r;

	if (b->nraw == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;

		if (b->nraw >= UNWIND_MAX_ROWS)
			return -ENOMEM;	/* over the cap: as if out of memory */
		if (cap > UNWIND_MAX_ROWS)
			cap = UNWIND_MAX_ROWS;
		r = reallocarray(b->raw, cap, sizeof(*r));
		if (!r)
			return -ENOMEM;
		b->raw = r;
		b->cap = cap;
	}
	b->raw[b->nraw] = (struct raw_row){ .row = *row, .seq = b->nraw, .fde_end = fde_end };
	b->nraw++;
	return 0;
}

/* [off, off + len) lies inside a file of fsize bytes, without overflow. */
static bool in_file(uint64_t off, uint64_t len, uint64_t fsize)
{
	return off <= fsize && len <= fsize - off;
}

/* ---- CIEs and FDEs ------------------------------------------------------- */

/* The FDE pointer encoding of a CIE (cfi_bytes.h). */
static int parse_augmentation(const Dwarf_CIE *cie, struct cie_info *ci)
{
	return cfi__fde_encoding(cie->augmentation, cie->augmentation_data,
				 cie->augmentation_data_size, &ci->enc, &ci->sized);
}

/* A version 4 CIE (.debug_frame) states the address size: the FDEs are
 * read as 8-byte addresses, which it must then say. */
static bool address_size_ok(const Dwarf_CIE *cie)
{
	const uint8_t *a = (const uint8_t *)cie->augmentation;
	const uint8_t *after = a + strlen(cie->augmentation) + 1;

	if (a[-1] != 4)		/* the version, just before */
		return true;
	return cie->initial_instructions - after >= 2 && after[0] == 8 && after[1] == 0;
}

/* The CIE an FDE names (most FDEs share the last one), checked. */
static int read_cie(struct builder *b, Dwarf_Off off)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;

	if (b->cie.valid && b->cie.off == off)
		return 0;
	b->cie.valid = false;
	if (dwarf_next_cfi(b->ident, b->data, b->eh, off, &next, &e) || !dwarf_cfi_cie_p(&e) ||
	    parse_augmentation(&e.cie, &b->cie) || !address_size_ok(&e.cie) ||
	    !cfi__insns_ok(e.cie.initial_instructions, e.cie.initial_instructions_end, b->cie.enc))
		return -EINVAL;
	b->cie.off = off;
	b->cie.valid = true;
	return 0;
}

/* An FDE's range and checked instructions. Every FDE is checked, even one
 * whose range cannot be placed: libdw may still find and run it. */
static int read_fde(struct builder *b, const Dwarf_FDE *fde, Dwarf_Off off, struct fde_info *f)
{
	const uint8_t *base = b->data->d_buf, *p = fde->start, *end = fde->end;
	uint64_t field = b->vaddr + (uint64_t)(p - base), raw, len, skip = 0;
	int err = read_cie(b, fde->CIE_pointer);

	if (err)
		return err;
	if (end - p > (ptrdiff_t)MAX_FDE_BYTES)
		return -E2BIG;
	/* The range is a length: the same format, never relative. */
	if (cfi__read_raw(b->cie.enc, &p, end, &raw) || cfi__read_raw(b->cie.enc, &p, end, &len))
		return -EINVAL;
	if (b->cie.sized && (cfi__read_leb128(&p, end, false, &skip) || skip > (uint64_t)(end - p)))
		return -EINVAL;
	if (!cfi__insns_ok(p + skip, end, b->cie.enc))
		return -EINVAL;
	*f = (struct fde_info){ .off = off };
	/* datarel: from 0, as libdw reads .eh_frame FDEs. */
	f->placed = !cfi__apply_enc(b->cie.enc, raw, field, 0, &f->start) && f->start + len >= f->start;
	f->end = f->placed ? f->start + len : 0;
	return 0;
}

static int push_fde(struct builder *b, const struct fde_info *f)
{
	struct fde_info *v;

	if (b->nfdes == b->fdes_cap) {
		size_t cap = b->fdes_cap ? b->fdes_cap * 2 : 256;

		v = reallocarray(b->fdes, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->fdes = v;
		b->fdes_cap = cap;
	}
	b->fdes[b->nfdes++] = *f;
	b->t->fdes++;
	return 0;
}

/* Every entry of the section, in order (as libdw reads them when it has
 * no search table): FDEs kept, their CIEs and instructions checked. */
static int read_fdes(struct builder *b)
{
	Dwarf_Off off = 0, next;
	struct fde_info f;
	Dwarf_CFI_Entry e;
	int ret;

	for (;;) {
		ret = dwarf_next_cfi(b->ident, b->data, b->eh, off, &next, &e);
		if (ret > 0)
			return 0;
		if (ret < 0 || next <= off)
			return -EINVAL;
		ret = over_budget(b);
		if (!ret && b->nfdes >= UNWIND_MAX_ROWS)
			ret = -E2BIG;
		if (ret)
			return ret;
		if (!dwarf_cfi_cie_p(&e)) {
			ret = read_fde(b, &e.fde, off, &f);
			if (!ret)
				ret = push_fde(b, &f);
			if (ret)
				return ret;
		}
		off = next;
	}
}

static int cmp_fde_off(const void *key, const void *elem)
{
	uint64_t off = *(const uint64_t *)key;
	const struct fde_info *f = elem;

	return off < f->off ? -1 : off > f->off;
}

/* One entry of .eh_frame_hdr's table: the FDE it names must be one of
 * ours (b->fdes is in section order, so sorted by offset). */
static bool hdr_entry_ok(struct builder *b, uint8_t enc, const uint8_t **p, const uint8_t *end,
			 uint64_t hdr)
{
	uint64_t loc, fde;

	/* Never pc-relative (checked): the field's address does not matter. */
	if (cfi__read_raw(enc, p, end, &loc) || cfi__read_field(enc, p, *p, end, 0, hdr, &fde))
		return false;
	fde -= b->vaddr;
	return b->nfdes && bsearch(&fde, b->fdes, b->nfdes, sizeof(*b->fdes), cmp_fde_off);
}

/* One .eh_frame_hdr, read as libdw does. It trusts the table: an entry
 * pointing between entries would run unchecked bytes, a count beyond the
 * section would be read past it, and it reads only datarel or absolute
 * entries safely. */
static int check_hdr(struct builder *b, const uint8_t *p, size_t size, uint64_t hdr)
{
	const uint8_t *start = p, *end = p + size;
	uint64_t ptr, count;
	uint8_t enc_ptr, enc_count, enc;

	if (size < 4 || p[0] != 1)
		return -EINVAL;
	enc_ptr = p[1];
	enc_count = p[2];
	enc = p[3];
	p += 4;
	if (cfi__read_field(enc_ptr, &p, start, end, hdr, hdr, &ptr))
		return -EINVAL;
	/* libdw ignores a table of another .eh_frame, or without a count */
	if (ptr != b->vaddr || enc_count == DW_EH_PE_omit || enc == DW_EH_PE_omit ||
	    (enc & ~DW_EH_PE_signed) == DW_EH_PE_uleb128)
		return 0;
	if (cfi__read_field(enc_count, &p, start, end, hdr, hdr, &count))
		return -EINVAL;
	if (!count)
		return 0;
	if ((enc & 0x07) == DW_EH_PE_uleb128 ||
	    ((enc & 0xf0) != DW_EH_PE_datarel && (enc & 0xf0) != DW_EH_PE_absptr))
		return -EINVAL;
	/* Each entry is read within the section: a count beyond it fails. */
	for (; count; count--)
		if (!hdr_entry_ok(b, enc, &p, end, hdr))
			return -EINVAL;
	return 0;
}

/* Every section called .eh_frame_hdr: libdw takes the last one before
 * .eh_frame, which is not worth telling apart. */
static int check_eh_frame_hdrs(struct builder *b, uint64_t fsize)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *s;
	int err;

	if (elf_getshdrstrndx(b->elf, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(b->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		s = elf_strptr(b->elf, shstrndx, sh.sh_name);
		if (!s || strcmp(s, ".eh_frame_hdr") || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		if (!in_file(sh.sh_offset, sh.sh_size, fsize))
			return -EINVAL;
		data = elf_rawdata(scn, NULL);
		if (!data || !data->d_buf)
			return -EINVAL;
		err = check_hdr(b, data->d_buf, data->d_size, sh.sh_addr);
		if (err)
			return err;
	}
	return 0;
}

/* ---- rules of one frame -------------------------------------------------- */

static bool is_plt_expr(const Dwarf_Op *ops, size_t nops)
{
	size_t i;

	if (nops != sizeof(plt_expr) / sizeof(plt_expr[0]))
		return false;
	for (i = 0; i < nops; i++)
		if (ops[i].atom != plt_expr[i].atom || ops[i].number != plt_expr[i].number)
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
static void frame_row(struct builder *b, uint64_t addr, uint64_t end,
		      struct unwind_row *row, uint64_t *next)
{
	Dwarf_Addr rstart, rend;
	Dwarf_Frame *frame;
	int ra_reg;

	*row = (struct unwind_row){ .pc = addr, .cfa_reg = CFA_NONE };
	*next = end;
	/* libdw's error codes are not public, so an allocation failure
	 * cannot be told from bad CFI: either way, no rule here. */
	if (dwarf_cfi_addrframe(b->cfi, addr, &frame)) {
		b->t->unsupported++;
		return;
	}
	ra_reg = dwarf_frame_info(frame, &rstart, &rend, NULL);
	/* Malformed CFI can move the location backwards: insist on progress. */
	if (ra_reg >= 0 && rstart <= addr && rend > addr) {
		*next = rend;
		frame_rules(frame, ra_reg, row);
	}
	free(frame);
	if (row->cfa_reg == CFA_NONE)
		b->t->unsupported++;
}

/* What a function compiled with frame pointers looks like in CFI: rsp + 8
 * at entry, rsp + 16 once rbp is pushed (saved at CFA - 16), then
 * rbp + 16 for the body, rsp + 8 again after the epilogue's pop. Also
 * kept: the outermost frame (_start), the lazy PLT's rules, code in .plt*
 * sections with rsp-based rules only (PLT0, a .plt.got jump), and
 * frameless functions of at most 16 bytes that never move rsp (GCC gives
 * a function that is only `ret`, or `lea; ret`, no frame even with
 * -fno-omit-frame-pointer): a sample in one of those few bytes loses its
 * caller, as with any frame-pointer walk. A larger frameless function
 * (-momit-leaf-frame-pointer's leaves) makes the file one without. */
#define FP_TINY_BYTES	16

static bool fde_keeps_fp(const struct raw_row *rows, size_t n, bool in_plt, uint64_t size)
{
	bool framed = false, odd_rsp = false, moves = false;
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].row.cfa_reg == CFA_END || rows[i].row.cfa_reg == CFA_PLT)
			return true;
	for (i = 0; i < n; i++) {
		const struct unwind_row *r = &rows[i].row;

		if (r->cfa_reg == CFA_RBP && r->cfa_offset == 16 && r->rbp_offset == -16)
			framed = true;
		else if (r->cfa_reg != CFA_RSP)
			return false;
		else if (r->cfa_offset > 16 || (r->cfa_offset == 16 && r->rbp_offset != -16))
			odd_rsp = true;
		moves |= r->cfa_reg != CFA_RSP || r->cfa_offset != 8;
	}
	if (!framed)	/* rsp-based rules only */
		return in_plt || (!moves && size <= FP_TINY_BYTES);
	return !odd_rsp;
}

static bool in_plt(const struct builder *b, uint64_t addr)
{
	for (size_t i = 0; i < b->nplt; i++)
		if (addr >= b->plt[i].start && addr < b->plt[i].end)
			return true;
	return false;
}

static int walk_fde(struct builder *b, uint64_t start, uint64_t end)
{
	struct unwind_row row, stop = { .pc = end, .cfa_reg = CFA_NONE };
	uint64_t addr = start, next;
	size_t first = b->nraw;
	int err;

	while (addr < end) {
		err = over_budget(b);
		if (err)
			return err;
		frame_row(b, addr, end, &row, &next);
		err = push_raw(b, &row, false);
		if (err)
			return err;
		addr = next;
	}
	if (!fde_keeps_fp(b->raw + first, b->nraw - first, in_plt(b, start), end - start))
		b->t->fdes_without_fp++;
	/* No rule past the end unless the next FDE starts right there. */
	return push_raw(b, &stop, true);
}

/* The rows of every FDE, once all were checked. */
static int walk_fdes(struct builder *b)
{
	const struct fde_info *f;
	size_t i;
	int err;

	for (i = 0; i < b->nfdes; i++) {
		f = &b->fdes[i];
		if (!f->placed) {
			b->t->unsupported++;	/* its range is unknown: no rows */
			continue;
		}
		if (f->start == f->end)
			continue;
		err = walk_fde(b, f->start, f->end);
		if (err)
			return err;
	}
	return 0;
}

/* ---- sorting and merging ------------------------------------------------- */

static int cmp_raw(const void *pa, const void *pb)
{
	const struct raw_row *a = pa, *b = pb;

	if (a->row.pc != b->row.pc)
		return a->row.pc < b->row.pc ? -1 : 1;
	if (a->fde_end != b->fde_end)
		return a->fde_end ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_reg == b->cfa_reg && a->cfa_offset == b->cfa_offset &&
	       a->rbp_offset == b->rbp_offset;
}

/* Sorted, one row per pc (the first), runs of one rule as their first row;
 * leading "no rule" rows dropped, as an address before them finds nothing
 * either way. */
static int merge_rows(struct builder *b)
{
	struct unwind_row *out, *shrunk;
	size_t i, n = 0;

	if (!b->nraw)
		return 0;
	qsort(b->raw, b->nraw, sizeof(*b->raw), cmp_raw);
	out = calloc(b->nraw, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (i = 0; i < b->nraw; i++) {
		const struct unwind_row *r = &b->raw[i].row;

		if (i && b->raw[i - 1].row.pc == r->pc)
			continue;
		if (n ? same_rule(&out[n - 1], r) : r->cfa_reg == CFA_NONE)
			continue;
		out[n++] = *r;
	}
	if (!n) {
		free(out);
		return 0;
	}
	/* Merging often halves the rows: give the rest back. */
	shrunk = reallocarray(out, n, sizeof(*out));
	b->t->rows = shrunk ? shrunk : out;
	b->t->nrows = n;
	return 0;
}

/* ---- opening ------------------------------------------------------------- */

/* Where the .plt, .plt.got, .plt.sec sections are (the first few). */
static void find_plts(struct builder *b)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *s;

	if (elf_getshdrstrndx(b->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(b->elf, scn)) && b->nplt < sizeof(b->plt) / sizeof(b->plt[0])) {
		if (!gelf_getshdr(scn, &sh))
			return;
		s = elf_strptr(b->elf, shstrndx, sh.sh_name);
		if (s && !strncmp(s, ".plt", 4) && sh.sh_addr + sh.sh_size >= sh.sh_addr) {
			b->plt[b->nplt].start = sh.sh_addr;
			b->plt[b->nplt].end = sh.sh_addr + sh.sh_size;
			b->nplt++;
		}
	}
}

/* The section called name, with its bytes in the file: 0, -ENOENT when
 * there is none (or it holds nothing), -EINVAL when the headers lie. */
static int find_section(Elf *elf, const char *name, uint64_t fsize, Elf_Scn **scnp)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		s = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!s || strcmp(s, name))
			continue;
		/* .eh_frame of a separate debuginfo file is NOBITS. */
		if (sh.sh_type == SHT_NOBITS || !sh.sh_size)
			return -ENOENT;
		if (!in_file(sh.sh_offset, sh.sh_size, fsize))
			return -EINVAL;
		*scnp = scn;
		return 0;
	}
	return -ENOENT;
}

/* The section's bytes as libdw reads them (a compressed .debug_frame was
 * inflated by dwarf_begin_elf()), and its address. */
static int section_data(struct builder *b, Elf_Scn *scn)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
		return -EINVAL;
	b->data = elf_getdata(scn, NULL);
	if (!b->data || !b->data->d_buf || !b->data->d_size)
		return -EINVAL;
	b->vaddr = sh.sh_addr;
	return 0;
}

static int open_eh_frame(struct builder *b, uint64_t fsize)
{
	Elf_Scn *scn;
	int err = find_section(b->elf, ".eh_frame", fsize, &scn);

	if (!err)
		err = section_data(b, scn);
	if (err)
		return err;
	b->cfi = dwarf_getcfi_elf(b->elf);
	if (!b->cfi)
		return -EINVAL;
	b->eh = true;
	return 0;
}

static int open_debug_frame(struct builder *b, uint64_t fsize)
{
	Elf_Scn *scn;
	int err = find_section(b->elf, ".debug_frame", fsize, &scn);

	if (err)
		return err;
	b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	if (!b->dw)
		return -EINVAL;
	/* Owned by b->dw, not to be given to dwarf_cfi_end(). */
	b->cfi = dwarf_getcfi(b->dw);
	if (!b->cfi)
		return -EINVAL;
	return section_data(b, scn);
}

/* .eh_frame, which is what runs (and what libdw reads through
 * .eh_frame_hdr), else .debug_frame. An unreadable .eh_frame is an error
 * only when there is no .debug_frame to use instead. */
static int open_cfi(struct builder *b, uint64_t fsize)
{
	int err = open_eh_frame(b, fsize), err2;

	if (!err)
		return 0;
	err2 = open_debug_frame(b, fsize);
	return err2 == -ENOENT ? err : err2;
}

/* Only x86-64 little-endian 64-bit files: the rows speak its registers.
 * libelf quietly drops a section header table the file cannot hold, which
 * would look like a file without CFI: compare with the ELF header. */
static int check_elf(Elf *elf, uint64_t fsize)
{
	size_t shnum;
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	if (!gelf_getehdr(elf, &eh))
		return -EINVAL;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64)
		return -ENOEXEC;
	if (elf_getshdrnum(elf, &shnum))
		return -EINVAL;
	if (eh.e_shnum ? eh.e_shnum != shnum : eh.e_shoff && !shnum)
		return -EINVAL;
	if (shnum && (eh.e_shentsize != gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT) ||
		      !in_file(eh.e_shoff, (uint64_t)shnum * eh.e_shentsize, fsize)))
		return -EINVAL;
	return 0;
}

static void builder_end(struct builder *b)
{
	/* dwarf_getcfi()'s CFI belongs to the Dwarf handle. */
	if (b->cfi && b->eh)
		dwarf_cfi_end(b->cfi);
	if (b->dw)
		dwarf_end(b->dw);
	if (b->elf)
		elf_end(b->elf);
	free(b->raw);
	free(b->fdes);
}

static int build(struct builder *b, int fd)
{
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return -errno;
	/* libelf sizes the file with fstat: only a regular file has a size. */
	if (!S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	/* mapped, not read: a sparse section costs only what is touched */
	b->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!b->elf)
		return -EINVAL;
	err = check_elf(b->elf, (uint64_t)st.st_size);
	if (!err)
		err = open_cfi(b, (uint64_t)st.st_size);
	if (err)
		return err;
	b->ident = (const unsigned char *)elf_getident(b->elf, NULL);
	if (!b->ident)
		return -EINVAL;
	find_plts(b);
	err = read_fdes(b);
	if (!err && b->eh)
		err = check_eh_frame_hdrs(b, (uint64_t)st.st_size);
	if (!err)
		err = walk_fdes(b);
	if (!err)
		err = merge_rows(b);
	return err;
}

int unwind_table__build(int fd, struct unwind_table *t)
{
	const struct unwind_limits none = { 0 };

	return unwind_table__build_limited(fd, t, &none);
}

int unwind_table__build_limited(int fd, struct unwind_table *t, const struct unwind_limits *lim)
{
	struct builder b = { .t = t, .lim = lim };
	int err;

	b.deadline = now_seconds() + (lim->max_seconds > 0 ? lim->max_seconds : UNWIND_MAX_SECONDS);

	memset(t, 0, sizeof(*t));
	err = build(&b, fd);
	builder_end(&b);
	if (err)
		unwind_table__free(t);
	return err;
}

const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nrows;

	/* The last row with row.pc <= pc: lo ends as the count of such rows. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

bool unwind_table__keeps_fp(const struct unwind_table *t)
{
	return t->nrows && !t->fdes_without_fp;
}

void unwind_table__free(struct unwind_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
