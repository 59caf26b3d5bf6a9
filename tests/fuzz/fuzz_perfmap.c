// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/symbols/perfmap.c, the JIT map (/tmp/perf-PID.map)
 * parser. The input is the file's bytes, fed whole and fed in two pieces
 * split at its first byte's value (a file read while it grows): both must
 * agree, and every lookup answer must cover the address asked. Both maps
 * share a budget small enough for inputs to reach (its second byte's
 * value in KiB): held within it, all given back when they are freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/perfmap.h"
#include "fuzz_check.h"

static uint64_t hex_at(const uint8_t *p, const uint8_t *end)
{
	uint64_t v = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (int n = 0; p < end && n < 16; p++, n++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' :
			*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap_budget budget = { .cap = size > 1 ? (size_t)data[1] << 10 : 0 };
	struct perfmap *whole = perfmap__new(&budget), *split = perfmap__new(&budget);
	size_t cut = size ? data[0] % (size + 1) : 0;
	const uint8_t *p = data, *end = data + size, *nl;

	CHECK(whole && split);
	CHECK(perfmap__feed(whole, (const char *)data, size) == 0);
	CHECK(perfmap__feed(split, (const char *)data, cut) == 0);
	CHECK(perfmap__feed(split, (const char *)data + cut, size - cut) == 0);
	CHECK(perfmap__malformed(whole) == perfmap__malformed(split));
	CHECK(perfmap__count(whole) + perfmap__over_cap(whole) ==
	      perfmap__count(split) + perfmap__over_cap(split));
	CHECK(!budget.cap || budget.held <= budget.cap);
	for (int lines = 0; p < end && lines < 64; lines++) {
		uint64_t addr = hex_at(p, end);
		const char *a, *b;

		for (uint64_t probe = addr - 1; probe != addr + 2; probe++) {
			a = perfmap__lookup(whole, probe);
			b = perfmap__lookup(split, probe);
			/* the budget may cut one map short before the other */
			CHECK(perfmap__over_cap(whole) || perfmap__over_cap(split) || !a == !b);
			CHECK(!a || (strlen(a) > 0 && !strchr(a, '\n')));
			CHECK(!a || !b || perfmap__over_cap(whole) || perfmap__over_cap(split) ||
			      !strcmp(a, b));
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	CHECK(!perfmap__lookup(whole, UINT64_MAX) || perfmap__count(whole));
	perfmap__free(whole);
	perfmap__free(split);
	CHECK(budget.held == 0);
	return 0;
}
