// SPDX-License-Identifier: MIT
/*
 * threads: N worker threads burning CPU with a known per-thread chain.
 *
 *   main -> pthread_create x N, then pthread_join (main sleeps)
 *   each thread: (libc start_thread) -> thread_main -> thread_work -> thread_spin
 *
 * thread_spin gets nearly all samples (self).
 * Usage: threads [seconds [nthreads]]   (defaults 5 and 2; 1..256 threads)
 *
 * FORCE_FRAME(): gcc 12 omits the frame pointer in leaf functions despite
 * -mno-omit-leaf-frame-pointer; taking the frame address forces the
 * push %rbp; mov %rsp,%rbp prologue so a frame-pointer unwinder does not
 * skip the leaf's caller (thread_work).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload.h"


#define MAX_THREADS 256
/* One thread_work is ~1 ms of work: the deadline check is negligible. */
#define SPIN_ITERS 400000u

uint64_t sink;
static uint64_t deadline_ns;

NOINLINE uint64_t thread_spin(uint64_t x)
{
	FORCE_FRAME();
	for (unsigned i = 0; i < SPIN_ITERS; i++) {
		x ^= x >> 27;
		x *= 0xff51afd7ed558ccdull;
		x += i;
	}
	return x;
}

NOINLINE uint64_t thread_work(uint64_t x)
{
	uint64_t r = thread_spin(x);
	return r ^ (x << 1); /* work after the call: no tail call */
}

NOINLINE void *thread_main(void *arg)
{
	uint64_t acc = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
	while (now_ns() < deadline_ns)
		acc += thread_work(acc);
	__atomic_fetch_xor(&sink, acc, __ATOMIC_RELAXED); /* keep acc alive */
	return NULL;
}

static void parse_num(const char *prog, const char *s, const char *what,
		      const char *unit, double lo, double hi, int integer, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo) || v > hi ||
	    (integer && v != (double)(long)v)) {
		fprintf(stderr, "%s: invalid %s '%s' (%s)\n", prog, what, s, unit);
		exit(2);
	}
	*out = v;
}

int main(int argc, char **argv)
{
	double secs = 5.0, nthr = 2;
	if (argc > 1)
		parse_num(argv[0], argv[1], "run time", "seconds", 1e-9, 86400, 0, &secs);
	if (argc > 2)
		parse_num(argv[0], argv[2], "thread count", "1..256", 1, MAX_THREADS, 1, &nthr);

	deadline_ns = now_ns() + (uint64_t)(secs * 1e9);
	run_threads(argv[0], (long)nthr, thread_main, 1);
	return 0;
}
