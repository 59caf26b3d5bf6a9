// SPDX-License-Identifier: MIT
/*
 * nofp_fleet: a member of the soak's fleet of short-lived programs. This
 * file is built twice, -O2 -fomit-frame-pointer (as most code is): the
 * program, and with -DFLEET_LIB its library libnofp_fleet.so, which the
 * program loads by DT_NEEDED through an rpath of $ORIGIN. The soak copies
 * both into a directory per member, so each copy is a file of its own (its
 * own inode, its own unwind table), and every sample needs both tables:
 *   main -> fleet_outer (program) -> fleet_lib_middle -> fleet_lib_hot (library)
 * Usage: nofp_fleet [seconds=1]
 */
#define _GNU_SOURCE
#include <stdint.h>

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

volatile uint64_t sink;

NOINLINE uint64_t fleet_outer(uint64_t deadline)
{
	uint64_t x = 1;

	while (now_ns() < deadline)
		x += fleet_lib_middle(x);
	return x + 1;
}

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 1.0);

	sink = fleet_outer(now_ns() + (uint64_t)(secs * 1e9));
	return 0;
}

#endif
