/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The hash of the in-memory string tables (the profile's names, the
 * views' strings): eight bytes a step, FxHash's rotate-xor-multiply, then
 * a final mix so the low bits a power-of-two table keeps depend on every
 * byte. FNV-1a's byte a step was 7 % of an end of run. */
#ifndef BPFPROF_HASH_BYTES_H
#define BPFPROF_HASH_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t hash_step(uint64_t h, uint64_t w)
{
	return ((h << 5 | h >> 59) ^ w) * 0x517cc1b727220a95ULL;
}

static inline uint64_t hash_bytes(const void *p, size_t len)
{
	const char *s = p;
	uint64_t h = len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = hash_step(h, w);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = hash_step(h, w);
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

#endif
