/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The bytes of call frame information, read without trusting them:
 * encoded pointers (DW_EH_PE_*), LEB128 numbers, and the check that a CFA
 * program is safe for libdw to run. Used by unwind_table.c before libdw
 * interprets anything.
 */
#ifndef BPFPROF_CFI_BYTES_H
#define BPFPROF_CFI_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An unsigned or signed LEB128 number at *p, which it advances. */
int cfi__read_leb128(const uint8_t **p, const uint8_t *end, bool sign, uint64_t *val);

/* The value at *p in the format (low nibble) of a DW_EH_PE_* encoding,
 * before its application. */
int cfi__read_raw(uint8_t enc, const uint8_t **p, const uint8_t *end, uint64_t *val);

/* An encoded value's application: relative to the field's own address
 * (pcrel) or to a base (datarel); the others cannot be placed. */
int cfi__apply_enc(uint8_t enc, uint64_t raw, uint64_t field, uint64_t data, uint64_t *val);

/* A field at *p of a section whose bytes start at start, loaded at vaddr;
 * datarel values count from data. */
int cfi__read_field(uint8_t enc, const uint8_t **p, const uint8_t *start, const uint8_t *end,
		     uint64_t vaddr, uint64_t data, uint64_t *val);

/* The FDE pointer encoding a CIE's augmentation names: 'R' of a "z"
 * augmentation, absolute without one; *sized: FDEs carry augmentation data
 * ("z"). Only what libdw reads the same way is accepted: "" or "z" with L,
 * P, R, S. data: the augmentation data libdw bounded (size bytes). */
int cfi__fde_encoding(const char *augmentation, const uint8_t *data, size_t size, uint8_t *enc,
		      bool *sized);

/* How deep remember_state may nest in one CIE's or FDE's instructions
 * (cfi__insns_ok() refuses deeper): the bound of cfi_rows.c's stack too. */
#define CFI_MAX_DEPTH		64

/* False when libdw running [p, end) could allocate without bound, or the
 * instructions are cut short. enc: the FDE pointer encoding (set_loc). */
bool cfi__insns_ok(const uint8_t *p, const uint8_t *end, uint8_t enc);

#endif
