/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The labels a stack can be grouped by (--group-by), and their words: the
 * flag's and the root frame's ("container:ID"). */
#ifndef BPFPROF_LABEL_KEY_H
#define BPFPROF_LABEL_KEY_H

#include <string.h>

enum group_by {
	GROUP_NONE,
	GROUP_CONTAINER,
	GROUP_POD,
	GROUP_UNIT,
	GROUP_CGROUP,
	GROUP_PID,
	GROUP_MAX,
};

static inline const char *group_by__word(enum group_by by)
{
	static const char *const words[GROUP_MAX] = {
		[GROUP_NONE] = "none", [GROUP_CONTAINER] = "container", [GROUP_POD] = "pod",
		[GROUP_UNIT] = "unit", [GROUP_CGROUP] = "cgroup", [GROUP_PID] = "pid",
	};

	return by < GROUP_MAX ? words[by] : "none";
}

/* word as an enum group_by, or -1. */
static inline int group_by__parse(const char *word)
{
	for (int i = 0; i < GROUP_MAX; i++)
		if (!strcmp(word, group_by__word((enum group_by)i)))
			return i;
	return -1;
}

#endif
