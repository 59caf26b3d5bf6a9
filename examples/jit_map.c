// SPDX-License-Identifier: MIT
/*
 * jit_map: runs machine code from a mapped file that is not an ELF file,
 * as a JIT or a packer does. A profiler finds the mapping but no symbols:
 * the frames must come out as "jitcode.bin+0xOFF", counted as unresolved,
 * and nothing may crash.
 *
 *   main -> run_jit -> [code in jitcode.bin]
 * Usage: jit_map DIR [seconds]   (writes DIR/jitcode.bin)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "workload.h"

volatile int sink;

int main(int argc, char **argv)
{
	char path[4096];
	double secs = argc > 2 ? atof(argv[2]) : 5;
	void *mem;
	int fd;

	if (argc < 2 || secs <= 0) {
		fprintf(stderr, "usage: %s DIR [seconds]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/jitcode.bin", argv[1]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, jit_spin_code, sizeof(jit_spin_code)) != (ssize_t)sizeof(jit_spin_code)
	    || ftruncate(fd, 4096)) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], path, strerror(errno));
		return 1;
	}
	mem = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "%s: mmap: %s\n", argv[0], strerror(errno));
		return 1;
	}
	sink = run_jit((int (*)(void))mem, now_ns() + (uint64_t)(secs * 1e9));
	munmap(mem, 4096);
	close(fd);
	return 0;
}
