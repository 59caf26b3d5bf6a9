/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Map contents -> raw records: counted stack keys with their frames. */
#ifndef BPFPROF_DRAIN_H
#define BPFPROF_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct raw_stack {
	uint64_t key;			/* its hash, the stack map's key */
	uint32_t nr;
	const uint64_t *ips;		/* nr frames, innermost first */
};

struct raw_count {
	struct stack_key key;
	uint64_t count;
	const struct raw_stack *kstack;	/* NULL: no kernel frames */
	const struct raw_stack *ustack;	/* NULL: no user frames */
};

struct drained {
	struct raw_count *recs;
	size_t n;
	struct raw_stack *stacks;	/* every stack the map held, sorted by key */
	size_t nstacks;
	uint64_t *frames;		/* their frames, back to back */
	uint64_t stacks_missing;	/* references to stacks gone from the stack map */
	size_t stack_ids;		/* stacks the stack map held (its occupancy) */
};

/* Reads one drained generation (see session__flip()): takes every entry of
 * the counts map and of the stack maps (one per depth class), in batches, links each count to its
 * stacks, and leaves both maps empty; the last read of a stopped session
 * (last) leaves them as they are, which the kernel does faster, as the maps
 * are not read again. Returns 0 or -errno; release with drain__free(). */
int drain__collect(int counts_fd, const int stacks_fds[STACK_CLASSES], bool last,
		   struct drained *out);
void drain__free(struct drained *d);

#endif
