/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Map contents -> raw records: counted stack keys with their frames. */
#ifndef BPFPROF_DRAIN_H
#define BPFPROF_DRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "profile.h"

struct raw_stack {
	int32_t id;
	uint32_t nr;
	uint64_t ips[MAX_STACK_DEPTH];	/* innermost first */
};

struct raw_count {
	struct stack_key key;
	uint64_t count;
	const struct raw_stack *kstack;	/* NULL: no kernel frames */
	const struct raw_stack *ustack;	/* NULL: no user frames */
};

/* An unwound user stack (--call-graph dwarf), by its hash. */
struct dwarf_raw {
	uint64_t hash;
	struct raw_stack s;
};

struct drained {
	struct raw_count *recs;
	size_t n;
	void *stacks;			/* tsearch tree of struct raw_stack, by id */
	void *dwarf;			/* tsearch tree of struct dwarf_raw, by hash */
	uint64_t stacks_missing;	/* ids counted but gone from the stack map */
	size_t stack_ids;		/* ids the stack map held (its occupancy) */
};

/* Reads one drained generation (see session__flip()): takes every entry of
 * the counts map and every stack they refer to (each id once; unwound user
 * stacks from dstacks_fd), and leaves the maps empty. Returns 0 or
 * -errno; release with drain__free(). */
int drain__collect(int counts_fd, int stacks_fd, int dstacks_fd, struct drained *out);
void drain__free(struct drained *d);

#endif
