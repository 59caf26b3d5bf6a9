// SPDX-License-Identifier: MIT
/*
 * faulter: touches fresh anonymous pages, one write per 4 KiB page, so
 * every touch is a minor page fault: main -> touch_pages (the hot path for
 * page-faults events). Usage: faulter [megabytes=64 [rounds=4]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "workload.h"


NOINLINE long touch_pages(volatile char *mem, size_t len)
{
	long pages = 0;

	FORCE_FRAME();
	for (size_t off = 0; off < len; off += 4096, pages++)
		mem[off] = 1;
	return pages;
}

int main(int argc, char **argv)
{
	size_t len = (size_t)(argc > 1 ? atol(argv[1]) : 64) << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 4;
	long pages = 0;

	if (!len || rounds <= 0) {
		fprintf(stderr, "usage: %s [megabytes [rounds]]\n", argv[0]);
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		pages += touch_pages(mem, len);
		munmap(mem, len);
	}
	return pages > 0 ? 0 : 1;
}
