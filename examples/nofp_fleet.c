// SPDX-License-Identifier: MIT
/*
 * nofp_fleet: a member of the soak's fleet of short-lived programs. This
 * file is built twice, -O2 -fomit-frame-pointer (as most code is): the
 * program, and with -DFLEET_LIB its library libnofp_fleet.so, which the
 * program loads by DT_NEEDED through an rpath of $ORIGIN. The soak copies
 * both into a directory per member, so each copy is a file of its own (its
 * own inode, its own unwind table), and every sample needs both tables:
 *   main -> fleet_outer (program) -> fleet_lib_middle -> fleet_lib_hot (library)
 * It spins busy_percent of every few ms and sleeps the rest: a fleet of
 * many at once then fits the machine, which the profiler shares.
 * It may idle idle_ms first (within its seconds), as a program that starts
 * and then works.
 * Usage: nofp_fleet [seconds=1 [busy_percent=100 [idle_ms=0]]]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <unistd.h>

#include "workload.h"

#ifdef FLEET_LIB

NOINLINE __attribute__((visibility("default"))) uint64_t fleet_lib_hot(uint64_t x)
{
	for (unsigned int i = 0; i < 200000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* work after the call: no tail call drops this frame */
NOINLINE __attribute__((visibility("default"))) uint64_t fleet_lib_middle(uint64_t x)
{
	uint64_t y = fleet_lib_hot(x);

	return y ^ (x >> 7);
}

#else

uint64_t fleet_lib_middle(uint64_t x);	/* in libnofp_fleet.so */

/* busy_percent of every period is spent spinning. The periods vary
 * (5-15 ms): a fixed 10 ms one kept step with the 99 Hz sampling timer,
 * so some members were never sampled while busy and others always. */
#define PERIOD_MIN_NS	5000000u
#define PERIOD_SPAN_NS	10000000u

volatile uint64_t sink;

NOINLINE uint64_t fleet_outer(uint64_t deadline, unsigned int busy_percent)
{
	uint64_t x = 1, t, rnd = (uint64_t)getpid() * 0x9e3779b97f4a7c15u;

	for (t = now_ns(); t < deadline; t = now_ns()) {
		uint64_t period, idle_from, wake;
		struct timespec next;

		rnd = rnd * 6364136223846793005u + 1442695040888963407u;
		period = PERIOD_MIN_NS + (rnd >> 33) % PERIOD_SPAN_NS;
		idle_from = t + period / 100 * busy_percent;
		wake = mono_ns() + period;	/* sleeps are wall time */
		next = (struct timespec){ .tv_sec = (time_t)(wake / 1000000000u),
					  .tv_nsec = (long)(wake % 1000000000u) };
		while (now_ns() < idle_from)
			x += fleet_lib_middle(x);
		if (busy_percent < 100)
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return x + 1;
}

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 1.0);
	int busy = argc > 2 ? atoi(argv[2]) : 100, idle_ms = argc > 3 ? atoi(argv[3]) : 0;
	uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9);
	struct timespec idle = { .tv_sec = idle_ms / 1000, .tv_nsec = idle_ms % 1000 * 1000000L };

	if (busy < 1 || busy > 100 || idle_ms < 0 || idle_ms > 60000) {
		fprintf(stderr, "usage: %s [seconds [busy_percent (1..100) [idle_ms]]]\n", argv[0]);
		return 2;
	}
	nanosleep(&idle, NULL);	/* as a program that starts, then works */
	sink = fleet_outer(deadline, (unsigned int)busy);
	return 0;
}

#endif
