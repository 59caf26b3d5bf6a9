/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Text that leaves in a protobuf string field (pprof's string table,
 * OTLP's): proto3 requires well-formed UTF-8, and a strict receiver (Go's
 * protobuf, Python's) refuses the whole message for one bad byte, so one
 * process that names itself "\xff\xfe" with prctl would cost every other
 * process its profile. One rule, here only, for every format:
 *
 *   each byte that does not begin a well-formed UTF-8 character (a stray
 *   or overlong byte, a surrogate, past U+10FFFF, a cut sequence: the
 *   same test as term_safe.h's) becomes U+FFFD, the replacement character;
 *   well-formed text, control characters included, is unchanged.
 *
 * So "\xff\xfe" leaves as "\uFFFD\uFFFD" in pprof and in OTLP alike, and
 * text that is already valid costs a scan and no copy. */
#ifndef BPFPROF_UTF8_SAFE_H
#define BPFPROF_UTF8_SAFE_H

#include <stdbool.h>
#include <stddef.h>

/* U+FFFD in UTF-8: what an invalid byte becomes. */
#define UTF8_SAFE_REPLACEMENT	"\xef\xbf\xbd"

/* True when s (NUL-terminated) is well-formed UTF-8. */
bool utf8_safe__valid(const char *s);

/* A new copy of s with each invalid byte replaced (see above); free() it.
 * NULL when out of memory. */
char *utf8_safe__dup(const char *s);

#endif
