// SPDX-License-Identifier: MIT
/*
 * jit_perfmap: generates machine code into anonymous executable memory, as
 * a JIT does, and names it in /tmp/perf-PID.map as Node's --perf-basic-prof
 * and perf-map-agent do. The map grows while the program runs: the second
 * function is generated, and its line appended, halfway through.
 *
 *   main -> run_jit -> jit_spin_first   (first half; "START SIZE name")
 *   main -> run_jit -> jit_spin_second  (second half; "0xSTART 0xSIZE name",
 *                                        as newer JDKs write)
 * The map starts with two lines no profiler can use (a size of 0, a
 * start that is not hex), as a buggy agent writes: skipped and counted.
 * Usage: jit_perfmap [seconds [nomap]]   (default 5; the map is left, as
 * JITs do; nomap: none written, as a JIT that writes none)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "workload.h"

#define FN_SLOT	64	/* bytes per generated function */

volatile int sink;

static void die(const char *prog, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

/* Generates function i into mem and appends its map line. */
static int (*generate(const char *prog, unsigned char *mem, int i, FILE *map))(void)
{
	unsigned char *fn = mem + i * FN_SLOT;

	if (mprotect(mem, 4096, PROT_READ | PROT_WRITE))
		die(prog, "mprotect");
	memcpy(fn, jit_spin_code, sizeof(jit_spin_code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		die(prog, "mprotect");
	if (i == 0)
		fprintf(map, "%lx %x jit_spin_first\n", (unsigned long)(uintptr_t)fn, FN_SLOT);
	else
		fprintf(map, "0x%lx 0x%x jit_spin_second\n", (unsigned long)(uintptr_t)fn, FN_SLOT);
	if (fflush(map))
		die(prog, "perf map");
	return (int (*)(void))(uintptr_t)fn;
}

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 5);
	uint64_t half = (uint64_t)(secs * 5e8);
	char path[64];
	unsigned char *mem;
	FILE *map;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (argc > 2 && !strcmp(argv[2], "nomap"))
		snprintf(path, sizeof(path), "/dev/null");
	map = fopen(path, "w");
	if (!map)
		die(argv[0], path);
	if (fputs("7f0000001000 0 empty_function\nzz00 40 not_hex\n", map) < 0)
		die(argv[0], "perf map");
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die(argv[0], "mmap");
	sink = run_jit(generate(argv[0], mem, 0, map), now_ns() + half);
	sink += run_jit(generate(argv[0], mem, 1, map), now_ns() + half);
	fclose(map);
	munmap(mem, 4096);
	return 0;
}
