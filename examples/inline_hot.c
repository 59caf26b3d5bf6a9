// SPDX-License-Identifier: MIT
/*
 * inline_hot: a hot function the compiler inlines (always_inline, -O2 -g)
 * into its caller. A profiler that reads only the symbol table sees
 * mix_rounds; with DWARF's inline information, mix_step is its own frame:
 *
 *   main -> mix_rounds -> mix_step (inlined)
 *
 * Usage: inline_hot [seconds]   (default 5)
 */
#include "workload.h"

volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t mix_step(uint64_t x, unsigned i)
{
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x += i;
	return x;
}

NOINLINE uint64_t mix_rounds(uint64_t x)
{
	FORCE_FRAME();
	for (unsigned i = 0; i < 400000u; i++)	/* ~1 ms */
		x = mix_step(x, i);
	return x;
}

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 5);
	uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9), x = 1;

	while (now_ns() < deadline)
		x = mix_rounds(x) + 1;	/* work after the call: no tail call */
	sink = x;
	return 0;
}
