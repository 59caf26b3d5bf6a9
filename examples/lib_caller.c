// SPDX-License-Identifier: MIT
/*
 * lib_caller: the hot function lives in a shared library (libhot.so).
 *
 *   main -> call_into_lib -> lib_hot_spin   (lib_hot_spin in libhot.so)
 *
 * The call goes through the PLT (a jmp, no frame), so the sampled stack is
 * lib_hot_spin (libhot.so) <- call_into_lib <- main (executable).
 * Usage: lib_caller [seconds]   (default 5, fractional ok)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"


/* Exported by libhot.so (examples/libhot.c). */
uint64_t lib_hot_spin(uint64_t x, unsigned iters);

/* One call_into_lib is ~1 ms of work: the deadline check is negligible. */
#define LIB_ITERS 400000u

volatile uint64_t sink;

NOINLINE uint64_t call_into_lib(uint64_t x)
{
	uint64_t r = lib_hot_spin(x, LIB_ITERS);
	return r ^ (x << 1); /* work after the call: no tail call */
}

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 5.0);
	uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9);
	uint64_t acc = 0x9e3779b97f4a7c15ull;
	while (now_ns() < deadline)
		acc += call_into_lib(acc);
	sink = acc;
	return 0;
}
