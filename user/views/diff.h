/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* bpfprof diff: what changed between two profiles, normalised by totals. */
#ifndef BPFPROF_DIFF_H
#define BPFPROF_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "render/vprof.h"

/* Functions by change in self share (percentage points of each profile's
 * total), largest change first, at most limit rows. Returns 0 or -errno. */
int diff__write_table(const struct vprof *before, const struct vprof *after, size_t limit,
		      FILE *out);

#endif
