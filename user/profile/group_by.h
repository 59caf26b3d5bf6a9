/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* --group-by: the root frame a label's value makes of each stack
 * ("container:3f2a...", "unit:nginx.service"), for folded stacks and the
 * pages alike. */
#ifndef BPFPROF_GROUP_BY_H
#define BPFPROF_GROUP_BY_H

#include <stdint.h>

#include "profile/aggregate.h"

/* The root frame of the last sample asked about, kept for the next: the
 * samples of one process come together. */
struct group_root {
	const struct pcgroup *cgroup;
	pid_t tgid;
	char text[1100];	/* "cgroup:" and a path of up to 1 KiB */
};

/* s's root frame under p->group_by, or NULL when p groups by nothing. A
 * sample without the label is "KEY:none" (a cgroup not named:
 * "cgroup:unknown"). The text lives in *memo until its next call. */
const char *group_by__root(const struct profile *p, const struct psample *s,
			   struct group_root *memo);

#endif
