// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Well-formed UTF-8 for protobuf strings (see utf8_safe.h); the decoding
 * is term_safe.c's, so "invalid" means the same on a terminal and on the
 * wire. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/term_safe.h"
#include "base/utf8_safe.h"

bool utf8_safe__valid(const char *s)
{
	uint32_t cp;
	size_t n;

	for (; *s; s += n)
		if (!(n = term_safe__utf8(s, &cp)))
			return false;
	return true;
}

char *utf8_safe__dup(const char *s)
{
	size_t len = strlen(s), r = sizeof(UTF8_SAFE_REPLACEMENT) - 1, n, o = 0;
	char *out = len <= (SIZE_MAX - 1) / r ? malloc(len * r + 1) : NULL;
	uint32_t cp;

	if (!out)
		return NULL;
	for (; *s; s += n) {
		n = term_safe__utf8(s, &cp);
		if (n) {
			memcpy(out + o, s, n);
			o += n;
		} else {
			memcpy(out + o, UTF8_SAFE_REPLACEMENT, r);
			o += r;
			n = 1;
		}
	}
	out[o] = '\0';
	return out;
}
