/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The hashes of the in-memory tables. Strings (the profile's names, the
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

/* Tables keyed by a 64-bit address or id (dwarf_lines' cache, frame_memo,
 * the flame graph tree's children; the profile's address and cgroup sets
 * hash with addr_hash): Fibonacci hashing,
 * whose high bits mix every bit of the key, then linear probing over a
 * power-of-two table from addr_slot(). */
static inline uint64_t addr_hash(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ULL;
}

static inline size_t addr_slot(uint64_t key, size_t mask)
{
	uint64_t h = addr_hash(key);

	return (size_t)(h ^ (h >> 32)) & mask;
}

static inline size_t addr_slot_next(size_t i, size_t mask)
{
	return (i + 1) & mask;
}

#endif
