/* SPDX-License-Identifier: MIT */
/*
 * Shared by examples/bench_stacks.c and tools/bench/libstackbench.c: a
 * random walk through a table of functions spread over the executable and
 * several shared libraries, so that a profile holds tens of thousands of
 * distinct stacks (`make bench`, part 3).
 *
 * Every function does a little work of its own, then either calls a function
 * picked from the table (one level deeper) or, at the bottom, does the leaf
 * work: pure computation, or system calls that reach different kernel paths
 * (read of /dev/zero, write to /dev/null, getppid, an anonymous mmap that is
 * touched and unmapped: page faults). System calls are issued inline
 * (x86-64) so the calling function keeps its frame in the user stack.
 */
#ifndef BENCH_STACKBENCH_H
#define BENCH_STACKBENCH_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__clang__)
#define SB_NOINLINE __attribute__((noinline))
#else
#define SB_NOINLINE __attribute__((noinline, noclone))
#endif
#define SB_FORCE_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))
#define SB_BUF_SIZE 16384

struct sb_ctx;
typedef uint64_t (*sb_fn)(uint64_t seed, unsigned depth, const struct sb_ctx *c);

/* One per thread. */
struct sb_ctx {
	const sb_fn *table;	/* every function: executable's and libraries' */
	unsigned n;
	int zero_fd, null_fd;
	char *buf;		/* SB_BUF_SIZE bytes */
};

/* What each library exports, under the name "stackbench_lib". */
struct sb_lib {
	unsigned n;
	const sb_fn *fns;
};

static inline __attribute__((always_inline)) uint64_t sb_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return x;
}

static inline __attribute__((always_inline)) long sb_syscall3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(nr, a, b, c);
#endif
}

static inline __attribute__((always_inline)) long sb_syscall6(long nr, long a, long b, long c,
							      long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(nr, a, b, c, d, e, f);
#endif
}

/* The leaf work, inlined into the function at the bottom of the walk. */
static inline __attribute__((always_inline)) uint64_t sb_leaf(uint64_t s, const struct sb_ctx *c)
{
	unsigned i, n = 2000 + (unsigned)(s & 4095), kind = (unsigned)(s >> 40) & 7;

	switch (kind) {
	case 0: case 1: case 2: case 3:	/* computation */
		for (i = 0; i < n; i++)
			s = sb_mix(s + i);
		return s;
	case 4:				/* read(2): clear_user in read_zero */
		for (i = 0; i < 4; i++)
			s += (uint64_t)sb_syscall3(SYS_read, c->zero_fd, (long)c->buf, SB_BUF_SIZE);
		return s;
	case 5:				/* write(2) to /dev/null */
		for (i = 0; i < 32; i++)
			s += (uint64_t)sb_syscall3(SYS_write, c->null_fd, (long)c->buf, SB_BUF_SIZE);
		return s;
	case 6:				/* the shortest system call */
		for (i = 0; i < 64; i++)
			s += (uint64_t)sb_syscall3(SYS_getppid, 0, 0, 0);
		return s;
	default: {			/* mmap, page faults, munmap */
		long p = sb_syscall6(SYS_mmap, 0, 65536, 3 /* RW */, 0x22 /* PRIVATE|ANON */, -1, 0);

		if (p < 0 && p > -4096)
			return s;
		for (i = 0; i < 65536; i += 4096)
			((volatile char *)p)[i] = (char)s;
		s += (uint64_t)sb_syscall3(SYS_munmap, p, 65536, 0);
		return s;
	}
	}
}

/* The body of every table function; salt makes each one different. */
#define SB_BODY(salt)							\
	do {								\
		SB_FORCE_FRAME();					\
		uint64_t x_ = sb_mix(seed ^ (salt));			\
		for (unsigned i_ = 0; i_ < 100 + (x_ & 511); i_++)	\
			x_ = sb_mix(x_ + i_);				\
		if (depth == 0)						\
			return sb_leaf(x_, c) + 1;			\
		x_ += c->table[(x_ >> 16) % c->n](x_, depth - 1, c);	\
		return x_ ^ (salt); /* work after the call: no tail call */ \
	} while (0)

#endif
