// SPDX-License-Identifier: MIT
/*
 * churn: starts RATE short processes a second for SECONDS, each burning a
 * few milliseconds of CPU in child_work -> child_spin and exiting: the
 * process churn of a busy build or CI machine, for the soak test.
 * Usage: churn [seconds=10 [rate=50 [child_ms=4]]]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"


volatile uint64_t sink;

NOINLINE uint64_t child_spin(uint64_t x)
{
	FORCE_FRAME();
	for (unsigned int i = 0; i < 20000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

NOINLINE void child_work(uint64_t ms)
{
	uint64_t end = now_ns() + ms * 1000000u, x = 1;

	while (now_ns() < end)
		x ^= child_spin(x);
	sink = x;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	long rate = argc > 2 ? atol(argv[2]) : 50, child_ms = argc > 3 ? atol(argv[3]) : 4;
	struct sigaction sa = { .sa_handler = SIG_IGN, .sa_flags = SA_NOCLDWAIT };
	uint64_t end, next, step;

	if (secs <= 0 || rate <= 0 || rate > 10000 || child_ms < 0) {
		fprintf(stderr, "usage: %s [seconds [rate [child_ms]]]\n", argv[0]);
		return 2;
	}
	/* children are reaped by the kernel: no zombies, pids free at once */
	if (sigaction(SIGCHLD, &sa, NULL)) {
		fprintf(stderr, "%s: sigaction: %s\n", argv[0], strerror(errno));
		return 1;
	}
	step = 1000000000u / (uint64_t)rate;
	end = mono_ns() + (uint64_t)(secs * 1e9);	/* a rate: wall time */
	for (next = mono_ns(); next < end; next += step) {
		pid_t pid = fork();

		if (pid == 0) {
			child_work((uint64_t)child_ms);
			_exit(0);
		}
		if (pid < 0)
			fprintf(stderr, "%s: fork: %s\n", argv[0], strerror(errno));
		while (mono_ns() < next + step)
			usleep(1000);
	}
	return 0;
}
