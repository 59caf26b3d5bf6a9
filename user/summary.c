// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Formatting the summary line of a profile. */
#include <inttypes.h>
#include <stdio.h>

#include "aggregate.h"
#include "summary.h"

void summary__format(const struct profile *p, const char *why, char *buf, size_t size)
{
	const uint64_t *b = p->stats.bpf;

	snprintf(buf, size,
		 "%" PRIu64 " samples, %zu stacks, %" PRIu64 " lost "
		 "(kstack-collision %" PRIu64 ", ustack-collision %" PRIu64 ", stackmap-full %" PRIu64
		 ", stack-error %" PRIu64 ", counts-full %" PRIu64 "), %" PRIu64 "/%" PRIu64
		 " frames unresolved, %" PRIu64 " tracking records lost, %.2f s (%s)",
		 b[STAT_SAMPLES], p->nsamples, profile__lost(p),
		 b[STAT_LOST_KSTACK_COLLISION], b[STAT_LOST_USTACK_COLLISION],
		 b[STAT_LOST_STACKMAP_FULL], b[STAT_LOST_STACK_ERROR], b[STAT_LOST_COUNTS_FULL],
		 p->stats.unresolved, p->stats.frames, p->stats.tracking_lost, p->stats.duration,
		 why);
}
