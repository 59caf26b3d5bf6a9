// SPDX-License-Identifier: MIT
/*
 * clocks: a leaf in the vDSO under a function of its own, for true stacks
 * by default: main -> clock_loop -> read_clocks -> clock_gettime (libc)
 * -> the vDSO's clock_gettime, which reads the clock without entering the
 * kernel. Neither libc nor the vDSO keeps a frame pointer: a frame-pointer
 * walk from inside the vDSO skips read_clocks; the vDSO's own CFI keeps it.
 * Usage: clocks [seconds=5]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"

NOINLINE uint64_t read_clocks(int n)
{
	struct timespec ts;
	uint64_t sum = 0;

	FORCE_FRAME();
	for (int i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (uint64_t)ts.tv_nsec;
	}
	return sum;
}

NOINLINE uint64_t clock_loop(double seconds)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9), sum = 0;

	FORCE_FRAME();
	while (now_ns() < end)
		sum += read_clocks(10000);
	return sum;
}

/* the sums land here so the calls cannot be left out */
static volatile uint64_t sink;

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;

	if (seconds <= 0) {
		fprintf(stderr, "usage: %s [seconds]\n", argv[0]);
		return 2;
	}
	sink = clock_loop(seconds);
	return 0;
}
