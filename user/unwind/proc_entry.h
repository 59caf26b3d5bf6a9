/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A process's entry for the BPF side (struct unwind_proc): its mappings as
 * they were added, oldest first, laid out as the BPF side searches them.
 */
#ifndef BPFPROF_PROC_ENTRY_H
#define BPFPROF_PROC_ENTRY_H

#include <stddef.h>
#include <linux/types.h>

#include "bpf/profile.h"	/* bpf/: struct unwind_map, struct unwind_proc */

struct proc_entry {
	struct unwind_map all[MAX_UNWIND_MAPS];	/* a ring: the newest MAX kept */
	size_t n;				/* added in all */
};

/* m, newer than every mapping added before it. */
void proc_entry__add(struct proc_entry *e, const struct unwind_map *m);

/* The newest mappings win where they overlap older ones (a later mmap over
 * a range replaces it); into out sorted by start, none overlapping: the BPF
 * side binary-searches them. */
void proc_entry__layout(const struct proc_entry *e, struct unwind_proc *out);

#endif
