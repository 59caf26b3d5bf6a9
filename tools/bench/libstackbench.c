// SPDX-License-Identifier: MIT
/*
 * libstackbenchN.so: eight functions of bench_stacks' random walk (see
 * stackbench.h). Built several times with -DSB_LIBNO=N, so each library has
 * functions of its own names (libN_f0 .. libN_f7), and loaded by
 * examples/bench_stacks.c with dlopen().
 */
#define _GNU_SOURCE
#include "stackbench.h"

#ifndef SB_LIBNO
#error "build with -DSB_LIBNO=N"
#endif

#define SB_CAT3(a, b, c) a##b##_##c
#define SB_NAME3(a, b, c) SB_CAT3(a, b, c)
#define SB_NAME(f) SB_NAME3(lib, SB_LIBNO, f)
#define SB_SALT(k) (0x51ed270b27a1f3c5ull * (SB_LIBNO * 16 + (k) + 1))

#define SB_LIB_FUNC(f, k)							\
	SB_NOINLINE uint64_t SB_NAME(f)(uint64_t seed, unsigned depth,		\
					 const struct sb_ctx *c);		\
	SB_NOINLINE uint64_t SB_NAME(f)(uint64_t seed, unsigned depth,		\
					 const struct sb_ctx *c)		\
	{									\
		SB_BODY(SB_SALT(k));						\
	}

SB_LIB_FUNC(f0, 0)
SB_LIB_FUNC(f1, 1)
SB_LIB_FUNC(f2, 2)
SB_LIB_FUNC(f3, 3)
SB_LIB_FUNC(f4, 4)
SB_LIB_FUNC(f5, 5)
SB_LIB_FUNC(f6, 6)
SB_LIB_FUNC(f7, 7)

static const sb_fn fns[] = {
	SB_NAME(f0), SB_NAME(f1), SB_NAME(f2), SB_NAME(f3),
	SB_NAME(f4), SB_NAME(f5), SB_NAME(f6), SB_NAME(f7),
};

__attribute__((visibility("default")))
const struct sb_lib stackbench_lib = { sizeof(fns) / sizeof(fns[0]), fns };
