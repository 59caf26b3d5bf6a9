// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * map_flood SECONDS COMM FILE...: one process, named COMM (prctl: any
 * bytes, an escape sequence too), mapping the FILEs executable in a
 * loop, each mapping undone 64 mappings later (a plugin host, a test runner
 * loading and unloading modules): every mmap is a process tracking record
 * (PERF_RECORD_MMAP2) for a profiler, as fast as the kernel makes them.
 * Prints the mappings it made on exit.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define KEPT	64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	void *kept[KEPT] = { 0 };
	int nfiles = argc - 3, *fds;
	unsigned long made = 0;
	double end;

	if (argc < 4) {
		fprintf(stderr, "usage: map_flood SECONDS COMM FILE...\n");
		return 2;
	}
	prctl(PR_SET_NAME, argv[2]);
	end = now() + atof(argv[1]);
	fds = calloc((size_t)nfiles, sizeof(*fds));
	if (!fds)
		return 1;
	for (int i = 0; i < nfiles; i++) {
		fds[i] = open(argv[i + 3], O_RDONLY);
		if (fds[i] < 0) {
			perror(argv[i + 3]);
			return 1;
		}
	}
	while (now() < end) {
		for (int i = 0; i < 256; i++, made++) {
			void **slot = &kept[made % KEPT];

			if (*slot)
				munmap(*slot, 4096);
			*slot = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
				     fds[made % (unsigned long)nfiles], 0);
			if (*slot == MAP_FAILED)
				*slot = NULL;
		}
	}
	printf("%lu\n", made);
	free(fds);
	return 0;
}
