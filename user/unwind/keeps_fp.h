/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whether a function keeps a frame pointer, read from its unwind rows:
 * the files whose functions all do are walked by frame pointers
 * (unwind_table__keeps_fp()), with no table loaded.
 */
#ifndef BPFPROF_KEEPS_FP_H
#define BPFPROF_KEEPS_FP_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/profile.h"

/* The shape of one function's rules so far, fed row by row. */
struct fp_shape {
	bool ends;		/* the outermost frame, or the lazy PLT's rules */
	bool framed;		/* CFA = rbp + 16, the caller's rbp at CFA - 16 */
	bool foreign;		/* a rule that is neither that nor rsp-based */
	bool odd_rsp;		/* rsp-based beyond a push of rbp */
	bool moves;		/* rsp moves (or the CFA is not rsp + 8) */
};

/* Where the .plt, .plt.got, .plt.sec sections are (the first few): code
 * there is stubs. */
struct plt_ranges {
	struct { uint64_t start, end; } r[4];
	size_t n;
};

void fp_shape__add(struct fp_shape *s, const struct unwind_row *row);

/* The function of the rows added, [start, start + size), keeps a frame
 * pointer (or needs none). */
bool fp_shape__keeps(const struct fp_shape *s, const struct plt_ranges *plts, uint64_t start,
		     uint64_t size);

void plt_ranges__find(Elf *elf, struct plt_ranges *plts);

#endif
