// SPDX-License-Identifier: MIT
/*
 * writer: a libc leaf under a function of its own, for true stacks by
 * default: main -> write_loop -> pump_writes -> write (libc, no frame
 * pointer) of 64 bytes to /dev/null, a block of them per iteration. A
 * frame-pointer walk from inside libc's write skips pump_writes and shows
 * write_loop;write; unwinding libc's CFI keeps it.
 * Usage: writer [seconds=5]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload.h"

NOINLINE long pump_writes(int fd, int n)
{
	static const char buf[64] = "bpfprof writer: 64 bytes to /dev/null, over and over .........\n";
	long done = 0;

	FORCE_FRAME();
	for (int i = 0; i < n; i++)
		done += write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf);
	return done;
}

NOINLINE long write_loop(int fd, double seconds)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	long done = 0;

	FORCE_FRAME();
	while (now_ns() < end)
		done += pump_writes(fd, 1000);
	return done;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	int fd;

	if (seconds <= 0) {
		fprintf(stderr, "usage: %s [seconds]\n", argv[0]);
		return 2;
	}
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("writer: /dev/null");
		return 1;
	}
	return write_loop(fd, seconds) > 0 ? 0 : 1;
}
