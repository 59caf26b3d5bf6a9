/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Text that came from outside (a comm, a file name, a symbol, a Python
 * name, a line written to the control FIFO), made safe to show: what other
 * users control must not drive root's terminal. One rule, here only:
 *
 *   printable UTF-8 (ASCII, "müller", CJK) is shown as itself; a newline is
 *   the two characters \n, a carriage return \r; every other byte of a
 *   control character (C0 0x00-0x1f, DEL 0x7f, C1 U+0080-U+009F), of a
 *   mark that reorders text or breaks a line (U+061C, U+200E-200F, U+2028-202E,
 *   U+2066-2069) or of invalid UTF-8 (a stray or overlong byte, a
 *   surrogate, past U+10FFFF, a cut sequence) is the four characters \xHH.
 *
 * A backslash stays itself, so escaping is idempotent: escaped text escapes
 * to itself. The folded writer applies the same rule (and ';' -> ':'), so a
 * name reads the same on the screen whether it came from memory or a file. */
#ifndef BPFPROF_TERM_SAFE_H
#define BPFPROF_TERM_SAFE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest form of one escaped byte, "\xHH", and its NUL. */
#define TERM_SAFE_ESC_MAX 5

/* The printable character at s (NUL-terminated): its length in bytes (1 to
 * 4) and, if cols is not NULL, the columns it takes (0 for a combining mark,
 * 2 for a wide East Asian one, else 1). 0 when the byte at s is one to
 * escape (or is the terminating NUL). */
size_t term_safe__char(const char *s, int *cols);

/* The well-formed UTF-8 character at s, printable or not: its length (1 to
 * 4), its code point in *cp; 0 for a byte of invalid UTF-8 (or the NUL). For
 * the writers whose escape of a refused character is its code point. */
size_t term_safe__utf8(const char *s, uint32_t *cp);

/* The escaped form of byte c ("\n", "\r" or "\xHH") into out; its length. */
size_t term_safe__escape_byte(unsigned char c, char out[TERM_SAFE_ESC_MAX]);

/* Escapes s into buf (size >= 1 bytes, always NUL-terminated), whole
 * characters and whole escapes only, at most max_cols columns. Returns how
 * many bytes of s it took: less than strlen(s) when it was cut. If cols is
 * not NULL, the columns written go there. */
size_t term_safe__escape(char *buf, size_t size, const char *s, size_t max_cols, size_t *cols);

/* The columns s takes once escaped. */
size_t term_safe__width(const char *s);

/* Writes s escaped to f, then spaces up to pad columns (0: none). */
void term_safe__fputs(const char *s, size_t pad, FILE *f);

#endif
