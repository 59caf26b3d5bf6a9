// SPDX-License-Identifier: MIT
/*
 * syscalls: a workload whose time is spent in the kernel.
 *
 *   main -> syscall_loop -> do_io -> read(2) of 1 MiB from /dev/zero
 *
 * The kernel zero-fills the user buffer (read_iter_zero -> iov_iter_zero ->
 * clear_user), so most samples are kernel frames on top of do_io.
 * Usage: syscalls [seconds]   (default 5, fractional ok)
 *
 * Unwinding notes: libc's read() wrapper has no frame pointer, so sampled
 * inside it a frame-pointer unwinder would skip do_io.  On x86-64 do_io
 * therefore issues the syscall instruction itself (inline asm), and
 * FORCE_FRAME() makes gcc 12 give this leaf a frame pointer.  The user part
 * of every kernel sample is then exactly do_io <- syscall_loop <- main.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"


#define BUF_SIZE (1u << 20)

static unsigned char buf[BUF_SIZE];
volatile uint64_t sink;

/* Returns bytes read or -errno. */
NOINLINE long do_io(int fd)
{
	FORCE_FRAME();
	long ret;
#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"((long)BUF_SIZE)
			 : "rcx", "r11", "memory");
#else
	ret = read(fd, buf, BUF_SIZE);
	if (ret < 0)
		ret = -errno;
#endif
	return ret;
}

NOINLINE uint64_t syscall_loop(int fd, uint64_t deadline_ns)
{
	uint64_t total = 0;
	while (now_ns() < deadline_ns) {
		long n = do_io(fd);
		if (n < 0) {
			fprintf(stderr, "syscalls: read /dev/zero: %s\n", strerror((int)-n));
			exit(1);
		}
		total += (uint64_t)n + buf[n / 2]; /* work after the call */
	}
	return total;
}

int main(int argc, char **argv)
{
	double secs = arg_seconds(argc, argv, 1, 5.0);
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: open /dev/zero: %s\n", argv[0], strerror(errno));
		return 1;
	}
	memset(buf, 1, sizeof(buf)); /* fault the buffer in up front */
	uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9);
	sink = syscall_loop(fd, deadline);
	close(fd);
	return 0;
}
