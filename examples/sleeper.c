// SPDX-License-Identifier: MIT
/*
 * sleeper: blocks in a known function for a known time, for off-CPU
 * profiling: main -> sleep_loop -> nap (nanosleep), N naps of MS
 * milliseconds, plus a little CPU in burn between them.
 * Usage: sleeper [naps=20 [ms=50]]   (total sleep = naps x ms)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "workload.h"


volatile uint64_t sink;

NOINLINE int nap(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	FORCE_FRAME();
	/* libc's clock_nanosleep has no frame pointer: a frame-pointer walk
	 * from inside it skips nap and shows sleep_loop;clock_nanosleep */
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	return 1;
}

NOINLINE uint64_t burn(uint64_t x)
{
	FORCE_FRAME();
	for (int i = 0; i < 2000000; i++)
		x = x * 6364136223846793005u + 1;
	return x;
}

NOINLINE int sleep_loop(int naps, long ms)
{
	int done = 0;

	for (int i = 0; i < naps; i++) {
		done += nap(ms);
		sink = burn(sink);
	}
	return done;
}

int main(int argc, char **argv)
{
	int naps = argc > 1 ? atoi(argv[1]) : 20;
	long ms = argc > 2 ? atol(argv[2]) : 50;

	if (naps <= 0 || ms <= 0) {
		fprintf(stderr, "usage: %s [naps [ms]]\n", argv[0]);
		return 2;
	}
	return sleep_loop(naps, ms) == naps ? 0 : 1;
}
