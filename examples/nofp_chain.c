// SPDX-License-Identifier: MIT
/*
 * nofp_chain: cpu_chain's call chain, built -O2 -fomit-frame-pointer (as
 * almost everything is): frame-pointer unwinding cannot walk it, DWARF
 * unwinding from .eh_frame can.
 *   main -> nofp_outer -> nofp_middle -> nofp_hot
 * Usage: nofp_chain [seconds=5]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"


volatile uint64_t sink;

NOINLINE uint64_t nofp_hot(uint64_t x)
{
	for (unsigned int i = 0; i < 400000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* each call is followed by more work: no tail call can drop a frame */
NOINLINE uint64_t nofp_middle(uint64_t x)
{
	uint64_t y = nofp_hot(x);

	sink = y;
	return y ^ (x >> 3);
}

NOINLINE uint64_t nofp_outer(uint64_t deadline)
{
	uint64_t x = 1;

	while (now_ns() < deadline)
		x += nofp_middle(x);
	return x + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;

	if (secs <= 0) {
		fprintf(stderr, "usage: %s [seconds]\n", argv[0]);
		return 2;
	}
	sink = nofp_outer(now_ns() + (uint64_t)(secs * 1e9));
	return 0;
}
