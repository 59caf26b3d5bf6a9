/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The labels a sample carries in pprof (--labels), those a stack can be
 * grouped by (--group-by), and their words: the flags' and the root
 * frame's ("container:ID"). */
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

/* The labels of a pprof sample, as bits of --labels. */
enum label_bit {
	LABEL_PID = 1u << 0,
	LABEL_TID = 1u << 1,
	LABEL_COMM = 1u << 2,
	LABEL_CGROUP = 1u << 3,
	LABEL_CONTAINER = 1u << 4,
	LABEL_POD = 1u << 5,
	LABEL_UNIT = 1u << 6,
};
#define LABELS_ALL	0x7fu
/* the labels a sample's cgroup gives */
#define LABELS_OF_CGROUP	(LABEL_CGROUP | LABEL_CONTAINER | LABEL_POD | LABEL_UNIT)
/* fleet mode's: what a backend slices by, without a series per thread */
#define LABELS_FLEET	(LABEL_COMM | LABEL_CONTAINER | LABEL_POD | LABEL_UNIT)

/* bit's word ("pid", ...): the label's key in pprof. */
static inline const char *label__word(unsigned int bit)
{
	static const char *const words[] = { "pid", "tid", "comm", "cgroup", "container", "pod",
					     "unit" };

	for (unsigned int i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (bit == 1u << i)
			return words[i];
	return "";
}

/* A comma-separated list of label words, "all" or "none", as bits in
 * *out; -1 and *bad (the word not known) if one is not a label. */
static inline int labels__parse(const char *list, unsigned int *out, const char **bad)
{
	unsigned int bits = 0;
	const char *w = list;

	while (*w) {
		size_t len = strcspn(w, ",");
		unsigned int bit = 0;

		for (unsigned int b = 1; b & LABELS_ALL; b <<= 1)
			if (strlen(label__word(b)) == len && !strncmp(w, label__word(b), len))
				bit = b;
		if (len == 3 && !strncmp(w, "all", 3))
			bit = LABELS_ALL;
		else if (len == 4 && !strncmp(w, "none", 4))
			bit = 1u << 31;	/* nothing */
		if (!bit) {
			*bad = w;
			return -1;
		}
		bits |= bit;
		w += len + (w[len] == ',');
	}
	*out = bits & LABELS_ALL;
	return 0;
}

#endif
