// SPDX-License-Identifier: MIT
/*
 * bad_return: a frame whose return address is no user address.
 *
 *   main -> spin_rounds -> bad_return_spin   (return address 0xffff9...)
 *
 * bad_return_spin pushes a kernel-looking value where its caller's return
 * address would be, then a frame pointer over it, and says so in its CFI:
 * a frame-pointer walk and a CFI walk both read the value as the next
 * return address. Corrupt stacks, hand-written assembly and unwind data
 * that is wrong at one instruction do this in real programs. A profiler
 * must end the stack there, never show the value as a frame (bpfprof tags
 * its Python frames with bit 63: such a value once read as one).
 * Usage: bad_return [seconds]   (default 3)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

uint64_t bad_return_spin(uint64_t iters);
volatile uint64_t sink;

/* The CFI describes the value as the return address (CFA = rbp + 16, the
 * return address at CFA - 8, the caller's rbp at CFA - 16) from the push
 * on; the real one, above it, is never read. */
__asm__(".text\n"
	".globl bad_return_spin\n"
	".type bad_return_spin, @function\n"
	"bad_return_spin:\n"
	"	.cfi_startproc\n"
	"	movabs $0xffff912345678000, %rax\n"
	"	push %rax\n"
	"	push %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	mov %rdi, %rax\n"
	"	pop %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	.cfi_restore %rbp\n"
	"	add $8, %rsp\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size bad_return_spin, . - bad_return_spin\n");

NOINLINE uint64_t spin_rounds(uint64_t deadline)
{
	uint64_t sum = 0;

	while (now_ns() < deadline)
		sum += bad_return_spin(2000000);
	return sum + 1;	/* work after the call: no tail call */
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 3.0;

	if (secs <= 0) {
		fprintf(stderr, "usage: bad_return [seconds]\n");
		return 2;
	}
	sink = spin_rounds(now_ns() + (uint64_t)(secs * 1e9));
	return 0;
}
