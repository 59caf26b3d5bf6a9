/* SPDX-License-Identifier: MIT */
/*
 * What the example workloads share: keeping functions as real frames
 * (noinline, no clones, a frame even in leaves) and a clock for "run this
 * long". Header-only: each workload stays one file to build.
 */
#ifndef BPFPROF_WORKLOAD_H
#define BPFPROF_WORKLOAD_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone)) /* no .constprop/.isra clones */
#endif

/* gcc 12 drops the frame pointer in leaf functions even with
 * -mno-omit-leaf-frame-pointer; taking the frame's address makes it emit
 * push %rbp; mov %rsp,%rbp while the function stays a leaf. */
#define FORCE_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall time: what sleeps and rates are counted in. */
static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The clock "run this long" counts: wall time, or with WORKLOAD_CLOCK=cpu
 * in the environment the calling thread's CPU time. Samples are taken per
 * CPU time, so a test that needs N samples asks for CPU time: a 2 s spin
 * given a tenth of a CPU on a loaded machine was 20 samples at 99 Hz, not
 * 200. The CPU clock is a system call (its samples would land in the
 * kernel's clock code): it is read once a ms of wall time at most and
 * carried forward by the monotonic clock in between (off by < 1 ms). */
static inline uint64_t now_ns(void)
{
	static __thread uint64_t cpu_at, mono_at;	/* the last CPU clock read */
	static int use_cpu = -1;			/* from the environment, once */
	const char *env;
	uint64_t mono = mono_ns();

	if (use_cpu < 0) {
		env = getenv("WORKLOAD_CLOCK");
		use_cpu = env && !strcmp(env, "cpu");
	}
	if (!use_cpu)
		return mono;
	if (!mono_at || mono - mono_at >= 1000000u) {
		cpu_at = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		mono_at = mono;
	}
	return cpu_at + (mono - mono_at);
}

/* What the JIT-like workloads (jit_map, jit_perfmap) run: x86-64 machine
 * code that counts down from 2000000 (mov ecx, 2000000; 1: dec ecx; jnz 1b;
 * mov eax, ecx; ret), called by run_jit until the deadline (a frame of its
 * own: noinline, so static and "unused" where a workload has no JIT). */
static const unsigned char jit_spin_code[] = {
	0xb9, 0x80, 0x84, 0x1e, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0x89, 0xc8, 0xc3,
};

static NOINLINE __attribute__((unused)) int run_jit(int (*fn)(void), uint64_t deadline)
{
	int x = 0;

	while (now_ns() < deadline)
		x += fn();
	return x + 1;
}

/* argv[i] as seconds (fractions allowed), def if absent; exits 2 on junk. */
static inline double arg_seconds(int argc, char **argv, int i, double def)
{
	char *end;
	double v;

	if (argc <= i)
		return def;
	errno = 0;
	v = strtod(argv[i], &end);
	if (errno || end == argv[i] || *end || !(v > 0) || v > 86400) {
		fprintf(stderr, "%s: invalid run time '%s' (seconds)\n", argv[0], argv[i]);
		exit(2);
	}
	return v;
}

/* Runs n threads of fn, the i-th with argument first + i, and waits for
 * them all; a thread that cannot start ends the program (exit 1). */
static inline void run_threads(const char *prog, long n, void *(*fn)(void *), uintptr_t first)
{
	pthread_t *tids = (pthread_t *)calloc((size_t)n, sizeof(*tids));	/* C++ too */
	int err = tids ? 0 : ENOMEM;

	for (long i = 0; !err && i < n; i++)
		err = pthread_create(&tids[i], NULL, fn, (void *)(first + (uintptr_t)i));
	if (err) {
		fprintf(stderr, "%s: pthread_create: %s\n", prog, strerror(err));
		exit(1);
	}
	for (long i = 0; i < n; i++) {
		err = pthread_join(tids[i], NULL);
		if (err) {
			fprintf(stderr, "%s: pthread_join: %s\n", prog, strerror(err));
			exit(1);
		}
	}
	free(tids);
}

#endif
