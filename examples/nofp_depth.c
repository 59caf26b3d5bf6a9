// SPDX-License-Identifier: MIT
/*
 * nofp_depth: a C stack of a chosen depth, built -O2 -fomit-frame-pointer,
 * for make bench's Python row: the BPF program's time per sample on a
 * Python process against a C process whose stacks are as deep.
 *   main -> nofp_descend x DEPTH -> nofp_spin
 * Usage: nofp_depth [seconds=5 [depth=16]]  (depth 1..100)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

volatile uint64_t sink;

NOINLINE uint64_t nofp_spin(uint64_t deadline)
{
	uint64_t x = 1;

	while (now_ns() < deadline)
		for (unsigned int i = 0; i < 100000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* work after the call: no tail call can drop a frame */
NOINLINE uint64_t nofp_descend(unsigned int depth, uint64_t deadline)
{
	uint64_t y = depth > 1 ? nofp_descend(depth - 1, deadline) : nofp_spin(deadline);

	sink = y;
	return y ^ depth;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	long depth = argc > 2 ? strtol(argv[2], NULL, 10) : 16;

	if (secs <= 0 || depth < 1 || depth > 100) {
		fprintf(stderr, "usage: %s [seconds [depth=1..100]]\n", argv[0]);
		return 2;
	}
	sink = nofp_descend((unsigned int)depth, now_ns() + (uint64_t)(secs * 1e9));
	return 0;
}
