// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading CFI bytes: encoded values, and what libdw would run. */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/cfi_bytes.h"

/* ---- encoded values ------------------------------------------------------ */

/* Reads a little-endian unsigned integer of n bytes (x86-64 only). */
static uint64_t read_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int cfi__read_leb128(const uint8_t **p, const uint8_t *end, bool sign, uint64_t *val)
{
	unsigned int shift = 0;
	uint64_t v = 0;
	uint8_t byte;

	do {
		if (*p >= end || shift >= 64)
			return -1;
		byte = *(*p)++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (sign && shift < 64 && (byte & 0x40))
		v |= ~(uint64_t)0 << shift;
	*val = v;
	return 0;
}

/* The value at *p in the format (low nibble) of a DW_EH_PE_* encoding,
 * before its application. */
int cfi__read_raw(uint8_t enc, const uint8_t **p, const uint8_t *end, uint64_t *val)
{
	static const uint8_t sizes[16] = {
		[DW_EH_PE_absptr] = 8, [DW_EH_PE_udata2] = 2, [DW_EH_PE_udata4] = 4,
		[DW_EH_PE_udata8] = 8, [DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4,
		[DW_EH_PE_sdata8] = 8,
	};
	uint8_t fmt = enc & 0x0f, size = sizes[fmt];

	if (fmt == DW_EH_PE_uleb128 || fmt == DW_EH_PE_sleb128)
		return cfi__read_leb128(p, end, fmt == DW_EH_PE_sleb128, val);
	if (!size || end - *p < size)
		return -1;
	*val = read_le(*p, size);
	if ((fmt & DW_EH_PE_signed) && size < 8 && (*val >> (size * 8 - 1)))
		*val |= ~(uint64_t)0 << (size * 8);
	*p += size;
	return 0;
}

/* An encoded value's application: relative to the field's own address
 * (pcrel) or to a base (datarel); the others cannot be placed. */
int cfi__apply_enc(uint8_t enc, uint64_t raw, uint64_t field, uint64_t data, uint64_t *val)
{
	switch (enc & (DW_EH_PE_indirect | 0x70)) {
	case DW_EH_PE_absptr:
		*val = raw;
		return 0;
	case DW_EH_PE_pcrel:
		*val = field + raw;
		return 0;
	case DW_EH_PE_datarel:
		*val = data + raw;
		return 0;
	default:
		return -1;
	}
}

/* A field at *p of a section whose bytes start at start, loaded at vaddr;
 * datarel values count from data. */
int cfi__read_field(uint8_t enc, const uint8_t **p, const uint8_t *start, const uint8_t *end,
		     uint64_t vaddr, uint64_t data, uint64_t *val)
{
	uint64_t field = vaddr + (uint64_t)(*p - start), raw;

	if (cfi__read_raw(enc, p, end, &raw))
		return -1;
	return cfi__apply_enc(enc, raw, field, data, val);
}

int cfi__fde_encoding(const char *augmentation, const uint8_t *data, size_t size, uint8_t *enc,
		      bool *sized)
{
	const uint8_t *p = data, *end = data ? data + size : NULL;
	const char *a = augmentation;
	uint64_t skip;

	*enc = DW_EH_PE_absptr;
	*sized = a[0] == 'z';
	if (!*sized)
		return a[0] == '\0' ? 0 : -1;
	for (a++; *a; a++) {
		if (*a == 'S')		/* a signal frame: no data */
			continue;
		if (!p || p >= end)
			return -1;
		if (*a == 'R') {
			*enc = *p++;
		} else if (*a == 'L') {
			p++;
		} else if (*a == 'P') {
			uint8_t penc = *p++;

			if (cfi__read_raw(penc, &p, end, &skip))
				return -1;
		} else {
			return -1;
		}
	}
	/* An aligned pointer would be read at another place than here. */
	return (*enc & 0x70) == DW_EH_PE_aligned ? -1 : 0;
}

/* ---- what libdw will run ------------------------------------------------- */

/* libdw sizes a frame by the highest register its CFI names (up to 2^27)
 * and copies it at every DW_CFA_remember_state: a crafted register number
 * made it take 3 GB and 22 s. So the instructions of every CIE and FDE it
 * may run are checked first. This is no interpreter: operands are skipped,
 * only register numbers and the remember depth are looked at. x86-64 names
 * registers below 130; real code nests remember_state once or twice
 * (CFI_MAX_DEPTH: cfi_bytes.h). */
#define CFI_MAX_REG		256

enum cfa_operand {
	OPD_UNKNOWN,		/* an opcode libdw refuses: it stops there */
	OPD_NONE, OPD_REG, OPD_ULEB, OPD_SLEB, OPD_BLOCK,
	OPD_1, OPD_2, OPD_4, OPD_8, OPD_ADDR,
};

/* The operands of the extended opcodes (DWARF 5 6.4.2, and GNU's). */
static const uint8_t cfa_operands[0x30][2] = {
	[DW_CFA_nop] = { OPD_NONE, OPD_NONE },
	[DW_CFA_set_loc] = { OPD_ADDR, OPD_NONE },
	[DW_CFA_advance_loc1] = { OPD_1, OPD_NONE },
	[DW_CFA_advance_loc2] = { OPD_2, OPD_NONE },
	[DW_CFA_advance_loc4] = { OPD_4, OPD_NONE },
	[DW_CFA_offset_extended] = { OPD_REG, OPD_ULEB },
	[DW_CFA_restore_extended] = { OPD_REG, OPD_NONE },
	[DW_CFA_undefined] = { OPD_REG, OPD_NONE },
	[DW_CFA_same_value] = { OPD_REG, OPD_NONE },
	[DW_CFA_register] = { OPD_REG, OPD_REG },
	[DW_CFA_remember_state] = { OPD_NONE, OPD_NONE },
	[DW_CFA_restore_state] = { OPD_NONE, OPD_NONE },
	[DW_CFA_def_cfa] = { OPD_REG, OPD_ULEB },
	[DW_CFA_def_cfa_register] = { OPD_REG, OPD_NONE },
	[DW_CFA_def_cfa_offset] = { OPD_ULEB, OPD_NONE },
	[DW_CFA_def_cfa_expression] = { OPD_BLOCK, OPD_NONE },
	[DW_CFA_expression] = { OPD_REG, OPD_BLOCK },
	[DW_CFA_offset_extended_sf] = { OPD_REG, OPD_SLEB },
	[DW_CFA_def_cfa_sf] = { OPD_REG, OPD_SLEB },
	[DW_CFA_def_cfa_offset_sf] = { OPD_SLEB, OPD_NONE },
	[DW_CFA_val_offset] = { OPD_REG, OPD_ULEB },
	[DW_CFA_val_offset_sf] = { OPD_REG, OPD_SLEB },
	[DW_CFA_val_expression] = { OPD_REG, OPD_BLOCK },
	[DW_CFA_MIPS_advance_loc8] = { OPD_8, OPD_NONE },
	[DW_CFA_GNU_window_save] = { OPD_NONE, OPD_NONE },
	[DW_CFA_GNU_args_size] = { OPD_ULEB, OPD_NONE },
	[DW_CFA_GNU_negative_offset_extended] = { OPD_REG, OPD_ULEB },
};

static bool skip_operand(uint8_t kind, const uint8_t **p, const uint8_t *end, uint8_t enc)
{
	static const uint8_t fixed[] = { [OPD_1] = 1, [OPD_2] = 2, [OPD_4] = 4, [OPD_8] = 8 };
	uint64_t v;

	switch (kind) {
	case OPD_NONE:
		return true;
	case OPD_REG:
		return !cfi__read_leb128(p, end, false, &v) && v < CFI_MAX_REG;
	case OPD_ULEB:
	case OPD_SLEB:
		return !cfi__read_leb128(p, end, kind == OPD_SLEB, &v);
	case OPD_BLOCK:
		if (cfi__read_leb128(p, end, false, &v) || v > (uint64_t)(end - *p))
			return false;
		*p += v;
		return true;
	case OPD_ADDR:
		return !cfi__read_raw(enc, p, end, &v);
	default:
		if (end - *p < fixed[kind])
			return false;
		*p += fixed[kind];
		return true;
	}
}

/* False when libdw running [p, end) could allocate without bound, or the
 * instructions are cut short. enc: the FDE pointer encoding (set_loc). */
bool cfi__insns_ok(const uint8_t *p, const uint8_t *end, uint8_t enc)
{
	const uint8_t *ops;
	unsigned int depth = 0;
	uint8_t op;

	while (p < end) {
		op = *p++;
		if (op & 0xc0) {	/* advance_loc, offset, restore: reg < 64 */
			if ((op & 0xc0) == DW_CFA_offset && !skip_operand(OPD_ULEB, &p, end, enc))
				return false;
			continue;
		}
		if (op >= sizeof(cfa_operands) / sizeof(cfa_operands[0]))
			return true;
		ops = cfa_operands[op];
		if (ops[0] == OPD_UNKNOWN)
			return true;
		if (!skip_operand(ops[0], &p, end, enc) || !skip_operand(ops[1], &p, end, enc))
			return false;
		if (op == DW_CFA_remember_state && ++depth > CFI_MAX_DEPTH)
			return false;
		if (op == DW_CFA_restore_state && depth)
			depth--;
	}
	return true;
}
