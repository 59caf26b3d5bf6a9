// SPDX-License-Identifier: MIT
/*
 * libhot.so: shared library holding the hot function of lib_caller.
 *
 *   lib_caller: main -> call_into_lib -> lib_hot_spin   (lib_hot_spin in here)
 *
 * lib_hot_spin is a leaf that burns CPU itself (it calls no helpers), so it
 * gets the self samples.  It is exported (in .dynsym as well as .symtab).
 * Every example program is linked against this library; only lib_caller
 * calls into it.
 *
 * FORCE_FRAME(): gcc 12 omits the frame pointer in leaf functions despite
 * -mno-omit-leaf-frame-pointer; taking the frame address forces the
 * push %rbp; mov %rsp,%rbp prologue so a frame-pointer unwinder does not
 * skip the caller (call_into_lib).
 */
#define _GNU_SOURCE
#include <stdint.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone)) /* no .constprop/.isra clones */
#endif
#define FORCE_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

NOINLINE __attribute__((visibility("default")))
uint64_t lib_hot_spin(uint64_t x, unsigned iters)
{
	FORCE_FRAME();
	for (unsigned i = 0; i < iters; i++) {
		x ^= x >> 31;
		x *= 0x94d049bb133111ebull;
		x += i;
	}
	return x;
}
