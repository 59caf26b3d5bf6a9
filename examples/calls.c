// SPDX-License-Identifier: MIT
/*
 * calls: makes a known number of calls, for counting probes: main calls
 * counted_fn N times and call_malloc N times (one malloc(64) + free each).
 * Usage: calls [n=1000]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"


volatile uint64_t sink;

NOINLINE uint64_t counted_fn(uint64_t x)
{
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	return x * 3 + 1;
}

NOINLINE void call_malloc(void)
{
	char *p = malloc(64);

	if (p) {
		p[0] = 1;
		sink += (uint64_t)p[0];
	}
	free(p);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	if (n <= 0) {
		fprintf(stderr, "usage: %s [n]\n", argv[0]);
		return 2;
	}
	for (long i = 0; i < n; i++) {
		sink = counted_fn(sink);
		call_malloc();
	}
	return 0;
}
