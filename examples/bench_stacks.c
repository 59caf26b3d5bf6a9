// SPDX-License-Identifier: MIT
/*
 * bench_stacks: tens of thousands of distinct stacks, for `make bench`
 * (tools/bench/, part 3: time to a flame graph, and symbolization).
 *
 * Each thread (default: one per online CPU) walks at random through a table
 * of functions: exe_f0 .. exe_f7 in this executable, and libN_f0 .. libN_f7
 * of every libstackbenchN.so found in LIBDIR (loaded with dlopen; built by
 * tools/bench/bench.mk). Each walk is 3 to 7 functions deep and ends in
 * computation or in system calls that reach different kernel paths (see
 * tools/bench/stackbench.h). With 8 + 8 * 4 functions, nearly every sample
 * has a stack of its own.
 *
 * Usage: bench_stacks [-L LIBDIR] [seconds=5 [nthreads=online CPUs]]
 *   -L LIBDIR  load LIBDIR/libstackbench1.so .. libstackbench8.so (those present)
 * Prints nothing on stdout. A bad argument prints a message, exits 2.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#include "../tools/bench/stackbench.h"

#define MAX_THREADS	256
#define MAX_LIBS	8
#define MAX_FNS		(8 + 8 * MAX_LIBS)

#define SB_EXE_FUNC(name, salt)							\
	SB_NOINLINE uint64_t name(uint64_t seed, unsigned depth, const struct sb_ctx *c); \
	SB_NOINLINE uint64_t name(uint64_t seed, unsigned depth, const struct sb_ctx *c) \
	{									\
		SB_BODY(salt);							\
	}

SB_EXE_FUNC(exe_f0, 0x243f6a8885a308d3ull)
SB_EXE_FUNC(exe_f1, 0x13198a2e03707344ull)
SB_EXE_FUNC(exe_f2, 0xa4093822299f31d0ull)
SB_EXE_FUNC(exe_f3, 0x082efa98ec4e6c89ull)
SB_EXE_FUNC(exe_f4, 0x452821e638d01377ull)
SB_EXE_FUNC(exe_f5, 0xbe5466cf34e90c6cull)
SB_EXE_FUNC(exe_f6, 0xc0ac29b7c97c50ddull)
SB_EXE_FUNC(exe_f7, 0x3f84d5b5b5470917ull)

static sb_fn table[MAX_FNS] = {
	exe_f0, exe_f1, exe_f2, exe_f3, exe_f4, exe_f5, exe_f6, exe_f7,
};
static unsigned ntable = 8;
static uint64_t deadline_ns;
uint64_t sink;

SB_NOINLINE uint64_t walk_loop(struct sb_ctx *c, uint64_t seed)
{
	uint64_t acc = 0;

	while (now_ns() < deadline_ns) {
		for (int k = 0; k < 16; k++) {
			seed = sb_mix(seed + 0x9e3779b97f4a7c15ull);
			acc += c->table[seed % c->n](seed, 2 + (unsigned)((seed >> 8) % 5), c);
		}
	}
	return acc;
}

SB_NOINLINE void *walk_thread(void *arg)
{
	static char bufs[MAX_THREADS][SB_BUF_SIZE];
	unsigned id = (unsigned)(uintptr_t)arg;
	struct sb_ctx c = {
		.table = table, .n = ntable, .buf = bufs[id],
		.zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC),
		.null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC),
	};

	if (c.zero_fd < 0 || c.null_fd < 0) {
		fprintf(stderr, "bench_stacks: open /dev/zero, /dev/null: %s\n", strerror(errno));
		exit(1);
	}
	__atomic_fetch_xor(&sink, walk_loop(&c, id * 0xd1b54a32d192ed03ull + 1), __ATOMIC_RELAXED);
	close(c.zero_fd);
	close(c.null_fd);
	return NULL;
}

static void load_libs(const char *dir)
{
	for (int i = 1; i <= MAX_LIBS; i++) {
		char path[4096];
		const struct sb_lib *lib;
		void *h;

		snprintf(path, sizeof(path), "%s/libstackbench%d.so", dir, i);
		if (access(path, R_OK))
			continue;
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "bench_stacks: %s\n", dlerror());
			exit(1);
		}
		lib = dlsym(h, "stackbench_lib");
		if (!lib || lib->n > 8) {
			fprintf(stderr, "bench_stacks: %s: no usable stackbench_lib\n", path);
			exit(1);
		}
		for (unsigned k = 0; k < lib->n; k++)
			table[ntable++] = lib->fns[k];
	}
}

static double parse_num(const char *prog, const char *s, const char *what, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo) || v > hi) {
		fprintf(stderr, "%s: invalid %s '%s'\n", prog, what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	double secs = 5;
	int opt;

	while ((opt = getopt(argc, argv, "L:")) != -1) {
		if (opt != 'L') {
			fprintf(stderr, "usage: %s [-L LIBDIR] [seconds [nthreads]]\n", argv[0]);
			return 2;
		}
		load_libs(optarg);
	}
	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if (argc - optind > 2) {
		fprintf(stderr, "usage: %s [-L LIBDIR] [seconds [nthreads]]\n", argv[0]);
		return 2;
	}
	if (argc - optind > 0)
		secs = parse_num(argv[0], argv[optind], "run time (seconds)", 1e-9, 86400);
	if (argc - optind > 1) {
		double v = parse_num(argv[0], argv[optind + 1], "thread count (1..256)", 1, MAX_THREADS);

		n = (long)v;
		if ((double)n != v) {
			fprintf(stderr, "%s: invalid thread count '%s'\n", argv[0], argv[optind + 1]);
			return 2;
		}
	}

	deadline_ns = now_ns() + (uint64_t)(secs * 1e9);
	run_threads(argv[0], n, walk_thread, 0);
	return 0;
}
