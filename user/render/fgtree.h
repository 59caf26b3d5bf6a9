/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The flame graph's tree, flat: nodes in pre-order (children by name),
 * each with its depth, so a page rebuilds it from three numbers a node. */
#ifndef BPFPROF_FGTREE_H
#define BPFPROF_FGTREE_H

#include <stdint.h>

#include "render/table.h"
#include "render/vprof.h"

struct fgtree {
	uint32_t *frame;	/* index into the vprof's frames; node 0 is "all" */
	uint32_t *depth;
	uint64_t *value;	/* inclusive count */
	uint64_t *before;	/* diff: BEFORE's count on the same path (else NULL) */
	size_t n, cap;
	uint32_t max_depth;
	uint64_t total, total_before;
	uint32_t all_frame;	/* the root's frame */
};

/* Merges v's stacks (those passing f) into a tree; with before, BEFORE's
 * stacks weigh the same paths of v's shape (paths only BEFORE has are
 * dropped) for a differential flame graph. Frames for the commands and
 * the root are added to v. Returns 0, -ENOMEM or -EOVERFLOW (a sum past
 * 2^64-1). */
int fgtree__build(struct vprof *v, const struct vprof *before, const struct vfilter *f,
		  struct fgtree *t);

void fgtree__free(struct fgtree *t);

#endif
