// SPDX-License-Identifier: MIT
/*
 * nofp_qsort: the hot function is called back by libc: qsort calls the
 * comparator, so a stack passes through libc's own frames (built without
 * frame pointers on Debian). Built -O2 -fomit-frame-pointer.
 *   main -> sort_rounds -> qsort (libc) -> ... -> cmp_slow
 * Usage: nofp_qsort [seconds=5]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"


#define N 20000

volatile uint64_t sink;

/* deliberately slow: the comparator is where the time goes */
NOINLINE int cmp_slow(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	for (int i = 0; i < 60; i++) {
		x = x * 6364136223846793005u + 1;
		y = y * 6364136223846793005u + 1;
	}
	return (x > y) - (x < y);
}

NOINLINE uint64_t sort_rounds(uint64_t *v, uint64_t deadline)
{
	uint64_t rounds = 0;

	while (now_ns() < deadline) {
		for (int i = 0; i < N; i++)
			v[i] = (uint64_t)rand() << 16 ^ (uint64_t)i;
		qsort(v, N, sizeof(*v), cmp_slow);
		rounds++;
	}
	return rounds;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	uint64_t *v = malloc(N * sizeof(*v));

	if (secs <= 0 || !v) {
		fprintf(stderr, "usage: %s [seconds]\n", argv[0]);
		return 2;
	}
	sink = sort_rounds(v, now_ns() + (uint64_t)(secs * 1e9));
	free(v);
	return 0;
}
