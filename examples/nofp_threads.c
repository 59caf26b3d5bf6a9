// SPDX-License-Identifier: MIT
/*
 * nofp_threads: threads spinning through a known chain, built -O2
 * -fomit-frame-pointer: thread_entry -> nofp_work -> nofp_spin (under
 * libc's start_thread and clone3).
 * Usage: nofp_threads [seconds=5 [threads=2]]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"


volatile uint64_t sink;
static uint64_t deadline;

NOINLINE uint64_t nofp_spin(uint64_t x)
{
	for (unsigned int i = 0; i < 300000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

NOINLINE uint64_t nofp_work(uint64_t x)
{
	while (now_ns() < deadline)
		x ^= nofp_spin(x) >> 1;
	return x + 1;
}

NOINLINE void *thread_entry(void *arg)
{
	sink = nofp_work((uint64_t)(uintptr_t)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	int n = argc > 2 ? atoi(argv[2]) : 2;

	if (secs <= 0 || n <= 0 || n > 64) {
		fprintf(stderr, "usage: %s [seconds [threads]]\n", argv[0]);
		return 2;
	}
	deadline = now_ns() + (uint64_t)(secs * 1e9);
	run_threads(argv[0], n, thread_entry, 1);
	return 0;
}
