// SPDX-License-Identifier: MIT
/*
 * exec_chain: burns CPU, then execs another program in the same process.
 *
 *   main -> before_exec -> before_exec_spin      (for MS milliseconds)
 *   then execv(PROGRAM, PROGRAM ARGS...)
 *
 * A profiler must name the frames sampled before the exec with this
 * program's symbols, and those after with PROGRAM's, though both images
 * ran under one pid. Usage: exec_chain MS PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"


volatile uint64_t sink;

NOINLINE uint64_t before_exec_spin(uint64_t x)
{
	FORCE_FRAME();
	for (unsigned int i = 0; i < 200000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

NOINLINE uint64_t before_exec(uint64_t deadline)
{
	uint64_t x = 1;

	while (now_ns() < deadline)
		x ^= before_exec_spin(x);
	return x + 1;
}

int main(int argc, char **argv)
{
	char *end;
	long ms;

	if (argc < 3) {
		fprintf(stderr, "usage: %s MS PROGRAM [ARGS...]\n", argv[0]);
		return 2;
	}
	errno = 0;
	ms = strtol(argv[1], &end, 10);
	if (errno || *end || ms <= 0 || ms > 86400000) {
		fprintf(stderr, "%s: invalid milliseconds '%s'\n", argv[0], argv[1]);
		return 2;
	}
	sink = before_exec(now_ns() + (uint64_t)ms * 1000000u);
	execv(argv[2], &argv[2]);
	fprintf(stderr, "%s: cannot execute %s: %s\n", argv[0], argv[2], strerror(errno));
	return 127;
}
