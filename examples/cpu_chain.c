// SPDX-License-Identifier: MIT
/*
 * cpu_chain: pure user-space CPU burn with a known call chain.
 *
 *   main -> outer_loop -> middle_step -> hot_leaf
 *
 * hot_leaf spins in an integer hash loop and should receive nearly all
 * samples (self).  Usage: cpu_chain [seconds]   (default 5, fractional ok)
 *
 * Frame-pointer notes (all functions are noinline/noclone so they keep their
 * own frames and names; every call is followed by more work so no call can
 * become a tail call):
 *   gcc 12 drops the frame pointer in leaf functions that need no stack
 *   frame, even with -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
 *   (and __attribute__((optimize("no-omit-frame-pointer"))) does not help).
 *   A frame-pointer unwinder sampling such a leaf would lose the leaf's
 *   caller (middle_step).  FORCE_FRAME() takes the address of the current
 *   frame, which makes gcc emit the usual push %rbp; mov %rsp,%rbp prologue
 *   while the function stays a true leaf.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"


/* One middle_step is ~1 ms of work: the deadline check is negligible. */
#define LEAF_ITERS 400000u

volatile uint64_t sink;

NOINLINE uint64_t hot_leaf(uint64_t x)
{
	FORCE_FRAME();
	for (unsigned i = 0; i < LEAF_ITERS; i++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		x += i;
	}
	return x;
}

NOINLINE uint64_t middle_step(uint64_t x)
{
	uint64_t r = hot_leaf(x);
	return r ^ (x << 1); /* work after the call: no tail call */
}

NOINLINE uint64_t outer_loop(uint64_t deadline_ns)
{
	uint64_t acc = 0x9e3779b97f4a7c15ull;
	while (now_ns() < deadline_ns)
		acc += middle_step(acc);
	return acc;
}

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 5.0);
	uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9);
	sink = outer_loop(deadline);
	return 0;
}
