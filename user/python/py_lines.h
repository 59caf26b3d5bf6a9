/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CPython line tables: instruction offset -> source line. */
#ifndef BPFPROF_PY_LINES_H
#define BPFPROF_PY_LINES_H

#include <stddef.h>
#include <stdint.h>

/* The line of the instruction at offset (in code units) of a code object
 * whose co_linetable is t[0..n) and co_firstlineno first, in 3.10's format
 * (Objects/lnotab_notes.txt: (byte delta, signed line delta) pairs, -128:
 * no line). Returns -1 when the table gives none. */
int py_lines__310(const uint8_t *t, size_t n, int first, uint32_t offset);

/* The same in 3.11's location table (Objects/locations.md): entries of a
 * first byte (bit 7 set, code in bits 3-6, length - 1 in bits 0-2) and
 * varints; code 15 no location, 14 long form, 13 no columns, 10-12 one
 * line (delta code - 10), 0-9 short form (same line). */
int py_lines__311(const uint8_t *t, size_t n, int first, uint32_t offset);

#endif
