// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CPython's line tables, decoded as Objects/codeobject.c does. */
#include <stdbool.h>

#include "python/py_lines.h"

int py_lines__310(const uint8_t *t, size_t n, int first, uint32_t offset)
{
	uint64_t addr = (uint64_t)offset * 2, start, end = 0;
	int line = first;

	for (size_t i = 0; i + 1 < n; i += 2) {
		int8_t ldelta = (int8_t)t[i + 1];

		start = end;
		end += t[i];
		if (ldelta != -128)
			line += ldelta;
		if (addr >= start && addr < end)
			return ldelta == -128 ? -1 : line;
	}
	return -1;
}

/* A varint of 6-bit chunks, low first, bit 6 set when another follows;
 * one cut off by the table's end moves *i past it (n + 1). */
static uint32_t varint(const uint8_t *t, size_t n, size_t *i)
{
	uint32_t v = 0;
	unsigned int shift = 0;

	while (*i < n && shift < 32) {
		uint8_t b = t[(*i)++];

		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			return v;
	}
	*i = n + 1;
	return v;
}

static int svarint(const uint8_t *t, size_t n, size_t *i)
{
	uint32_t v = varint(t, n, i);

	return v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
}

int py_lines__311(const uint8_t *t, size_t n, int first, uint32_t offset)
{
	uint64_t end = 0, start;
	int line = first, delta;
	size_t i = 0;

	while (i < n) {
		uint8_t b = t[i++];
		unsigned int code = (b >> 3) & 15;
		bool none = false;

		if (!(b & 128))
			return -1;	/* not at an entry's first byte: a corrupt table */
		start = end;
		end += (b & 7) + 1;
		delta = 0;
		if (code == 15) {
			none = true;
		} else if (code == 14) {
			delta = svarint(t, n, &i);
			varint(t, n, &i);	/* end line */
			varint(t, n, &i);	/* column */
			varint(t, n, &i);	/* end column */
		} else if (code == 13) {
			delta = svarint(t, n, &i);
		} else if (code >= 10) {
			delta = (int)code - 10;
			i += 2;			/* columns */
		} else {
			i += 1;			/* column */
		}
		if (i > n)
			return -1;	/* the entry is cut off: a corrupt table */
		line += delta;
		if (offset >= start && offset < end)
			return none ? -1 : line;
	}
	return -1;
}
