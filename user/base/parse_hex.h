/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The hex numbers of the text files bpfprof reads (/proc/kallsyms,
 * /proc/PID/maps, perf maps): one parse, bounded so it cannot overflow. */
#ifndef BPFPROF_PARSE_HEX_H
#define BPFPROF_PARSE_HEX_H

#include <stdbool.h>
#include <stdint.h>

/* A hex digit's value, -1 for any other character. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1 to max_digits (<= 16) hex digits at *pp, up to end (NULL: a
 * NUL-terminated string); *pp moves past them. False, *pp and *val
 * untouched, for no digit or too many. */
static inline bool parse_hex(const char **pp, const char *end, int max_digits, uint64_t *val)
{
	const char *p = *pp;
	uint64_t v = 0;
	int d, n = 0;

	for (; (!end || p < end) && (d = hex_digit(*p)) >= 0; p++) {
		if (++n > max_digits)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!n)
		return false;
	*pp = p;
	*val = v;
	return true;
}

#endif
