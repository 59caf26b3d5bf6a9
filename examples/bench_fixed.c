// SPDX-License-Identifier: MIT
/*
 * bench_fixed: a fixed amount of CPU work, for `make bench` (tools/bench/).
 *
 * Each of NTHREADS threads (default: one per online CPU) runs ITERATIONS
 * iterations of the same call chain, then the program exits 0:
 *
 *   (libc start_thread) -> bench_thread -> bench_outer -> bench_middle -> leaf_*
 *
 * bench_middle calls eight leaves per iteration, each for a known share of
 * the iteration's work, so a profile has a known top-10 to compare:
 *
 *   leaf_a 40%  leaf_b 20%  leaf_c 12%  leaf_d 10%
 *   leaf_e  8%  leaf_f  5%  leaf_g  3%  leaf_h  2%
 *
 * One iteration is about 1 ms of CPU.  The work is fixed (no clock is read
 * while working), so the wall time of the run measures how much CPU the
 * threads got: the benchmark times it alone and under each profiler.
 *
 * Usage: bench_fixed [-r] [iterations=1000 [nthreads=online CPUs]]  (1..256 threads)
 * Prints nothing on stdout, unless -r: then one line at the end,
 *   wall=SECONDS cpu=SECONDS
 * the wall time from the first thread's start to the last one's end, and the
 * CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID: with the kernel's
 * default accounting, interrupt time, a profiler's sampling included, is
 * charged to the task it interrupted).  A bad argument prints a message,
 * exits 2.
 *
 * FORCE_FRAME(): see examples/README.md (gcc 12 drops the frame pointer of
 * leaf functions; taking the frame address keeps it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"


#define MAX_THREADS 256
/* One share point of an iteration: 100 of them are about 1 ms. */
#define UNIT_ITERS 4000u

uint64_t sink;
static long iterations = 1000;

/* Eight leaves with different constants, so no two are folded into one. */
#define LEAF(name, share, k1, k2)					\
	NOINLINE uint64_t name(uint64_t x)				\
	{								\
		FORCE_FRAME();						\
		for (unsigned i = 0; i < (share) * UNIT_ITERS; i++) {	\
			x ^= x >> (k1);					\
			x *= (k2);					\
			x += i;						\
		}							\
		return x;						\
	}

LEAF(leaf_a, 40, 29, 0xbf58476d1ce4e5b9ull)
LEAF(leaf_b, 20, 27, 0x94d049bb133111ebull)
LEAF(leaf_c, 12, 31, 0xff51afd7ed558ccdull)
LEAF(leaf_d, 10, 33, 0xc4ceb9fe1a85ec53ull)
LEAF(leaf_e, 8, 30, 0x9e3779b97f4a7c15ull)
LEAF(leaf_f, 5, 28, 0xd6e8feb86659fd93ull)
LEAF(leaf_g, 3, 26, 0xa0761d6478bd642full)
LEAF(leaf_h, 2, 25, 0xe7037ed1a0b428dbull)

NOINLINE uint64_t bench_middle(uint64_t x)
{
	x = leaf_a(x) + 1;
	x = leaf_b(x) + 2;
	x = leaf_c(x) + 3;
	x = leaf_d(x) + 4;
	x = leaf_e(x) + 5;
	x = leaf_f(x) + 6;
	x = leaf_g(x) + 7;
	x = leaf_h(x) + 8;
	return x ^ (x >> 7); /* work after the calls: no tail call */
}

NOINLINE uint64_t bench_outer(uint64_t x, long n)
{
	for (long i = 0; i < n; i++)
		x += bench_middle(x);
	return x;
}

NOINLINE void *bench_thread(void *arg)
{
	uint64_t acc = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;

	acc = bench_outer(acc, iterations);
	__atomic_fetch_xor(&sink, acc, __ATOMIC_RELAXED); /* keep acc alive */
	return NULL;
}

static long parse_long(const char *prog, const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: invalid %s '%s' (%ld..%ld)\n", prog, what, s, lo, hi);
		exit(2);
	}
	return v;
}

static double clock_secs(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts)) {
		perror("bench_fixed: clock_gettime");
		exit(1);
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-r] [iterations [nthreads]]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int report = 0, opt;
	double t0;

	while ((opt = getopt(argc, argv, "r")) != -1) {
		if (opt != 'r')
			usage(argv[0]);
		report = 1;
	}
	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if (argc - optind > 2)
		usage(argv[0]);
	if (argc - optind > 0)
		iterations = parse_long(argv[0], argv[optind], "iteration count", 1, 100000000);
	if (argc - optind > 1)
		n = parse_long(argv[0], argv[optind + 1], "thread count", 1, MAX_THREADS);
	t0 = clock_secs(CLOCK_MONOTONIC);
	run_threads(argv[0], n, bench_thread, 1);
	if (report && printf("wall=%.6f cpu=%.6f\n", clock_secs(CLOCK_MONOTONIC) - t0,
			     clock_secs(CLOCK_PROCESS_CPUTIME_ID)) < 0)
		return 1;
	return 0;
}
