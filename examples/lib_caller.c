// SPDX-License-Identifier: MIT
/*
 * lib_caller: the hot function lives in a shared library (libhot.so).
 *
 *   main -> call_into_lib -> lib_hot_spin   (lib_hot_spin in libhot.so)
 *
 * The call goes through the PLT (a jmp, no frame), so the sampled stack is
 * lib_hot_spin (libhot.so) <- call_into_lib <- main (executable).
 * Usage: lib_caller [seconds]   (default 5, fractional ok)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone)) /* no .constprop/.isra clones */
#endif

/* Exported by libhot.so (examples/libhot.c). */
uint64_t lib_hot_spin(uint64_t x, unsigned iters);

/* One call_into_lib is ~1 ms of work: the deadline check is negligible. */
#define LIB_ITERS 400000u

volatile uint64_t sink;

static double parse_seconds(int argc, char **argv, double def)
{
	if (argc < 2)
		return def;
	char *end;
	errno = 0;
	double v = strtod(argv[1], &end);
	if (errno || end == argv[1] || *end || !(v > 0) || v > 86400) {
		fprintf(stderr, "%s: invalid run time '%s' (seconds)\n", argv[0], argv[1]);
		exit(2);
	}
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

NOINLINE uint64_t call_into_lib(uint64_t x)
{
	uint64_t r = lib_hot_spin(x, LIB_ITERS);
	return r ^ (x << 1); /* work after the call: no tail call */
}

int main(int argc, char **argv)
{
	double secs = parse_seconds(argc, argv, 5.0);
	uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9);
	uint64_t acc = 0x9e3779b97f4a7c15ull;
	while (now_ns() < deadline)
		acc += call_into_lib(acc);
	sink = acc;
	return 0;
}
