// SPDX-License-Identifier: MIT
/*
 * short_lived: burns ~0.3 s of CPU and exits, typically before the profiler
 * stops; its frames must still be symbolized after the process is gone.
 *
 *   main -> short_work -> short_spin
 *
 * short_spin gets nearly all samples (self).
 * Usage: short_lived [milliseconds]   (default 300; wall clock, busy the whole time)
 *
 * FORCE_FRAME(): gcc 12 omits the frame pointer in leaf functions despite
 * -mno-omit-leaf-frame-pointer; taking the frame address forces the
 * push %rbp; mov %rsp,%rbp prologue so a frame-pointer unwinder does not
 * skip the leaf's caller (short_work).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"


/* One short_work is ~0.25 ms of work: fine-grained enough for a ms deadline. */
#define SPIN_ITERS 100000u

volatile uint64_t sink;

NOINLINE uint64_t short_spin(uint64_t x)
{
	FORCE_FRAME();
	for (unsigned i = 0; i < SPIN_ITERS; i++) {
		x ^= x >> 33;
		x *= 0xc4ceb9fe1a85ec53ull;
		x += i;
	}
	return x;
}

NOINLINE uint64_t short_work(uint64_t x)
{
	uint64_t r = short_spin(x);
	return r ^ (x << 1); /* work after the call: no tail call */
}

int main(int argc, char **argv)
{
	double ms = 300;
	if (argc > 1) {
		char *end;
		errno = 0;
		ms = strtod(argv[1], &end);
		if (errno || end == argv[1] || *end || !(ms > 0) || ms > 86400e3) {
			fprintf(stderr, "%s: invalid run time '%s' (milliseconds)\n", argv[0], argv[1]);
			return 2;
		}
	}
	uint64_t deadline = now_ns() + (uint64_t)(ms * 1e6);
	uint64_t acc = 0x9e3779b97f4a7c15ull;
	while (now_ns() < deadline)
		acc += short_work(acc);
	sink = acc;
	return 0;
}
