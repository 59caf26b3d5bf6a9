/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A stack copied before its process's tables were in (struct early_stack),
 * walked in user space when they are: the BPF side's walk (bpf/stack.bpf.h)
 * step for step, over the same process entry and rows, read from the BPF
 * maps, and the copy of the stack instead of the live one.
 */
#ifndef BPFPROF_REPLAY_H
#define BPFPROF_REPLAY_H

#include <stdbool.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct replay_rows;

/* The BPF maps a walk reads, by fd. */
struct replay_maps {
	int procs_fd;		/* unwind_procs: tgid -> struct unwind_proc */
	int files_fd;		/* unwind_files: slot -> the file's rows (inner map) */
	int ranges_fd;		/* exec_ranges: tgid -> JIT code found executable */
	int exec_fd;		/* exec_times: tgid -> its last exec */
	enum unwind_mode mode;	/* auto or dwarf */
	/* who forked the process (tgid, start_time), when that was seen;
	 * 0: not seen, or no way to know (NULL) */
	pid_t (*forked_by)(void *arg, pid_t tgid, __u64 start_time);
	void *forked_by_arg;
	struct replay_rows *rows;	/* runs kept mapped; NULL: each walk maps its own */
};

/* Files' runs of rows kept mapped from one walk to the next, cap bytes at
 * most (0: the default, 4 MiB; their pages count in the RSS), until
 * tidied. A run larger than cap is searched by map lookups instead. */
int replay_rows__new(size_t cap, struct replay_rows **out);
/* Unmaps the runs no walk used since the last tidy (a chunk deleted
 * since stays mapped, its kernel memory held, until then). */
void replay_rows__tidy(struct replay_rows *rows);
void replay_rows__free(struct replay_rows *rows);

/* Whether e's process has an entry now that describes the image the
 * sample was taken in, with no file's table still being built (an unasked
 * one aside: replay__unasked()): the walk is as good as it will get. A
 * copy taken between a fork and the child's exec is walked by its
 * parent's entry, while the parent has not exec'd since the fork (the
 * child ran the parent's image then). */
bool replay__ready(const struct replay_maps *m, const struct early_stack *e);

/* Lazy tables: the mappings of the entry e is walked by (*owner's) whose
 * files no sample asked a table for yet (UNWIND_MAP_UNASKED) and that e's
 * walk may cross: the one holding its pc, and each one a word of the copy
 * points into (a superset of the return addresses the walk can reach).
 * Their starts into starts, at most max; returns how many (0: none, or no
 * entry). */
size_t replay__unasked(const struct replay_maps *m, const struct early_stack *e, __u32 *owner,
		       __u64 *starts, size_t max);

/* Whether e is walked by its parent's entry (as above) and that entry
 * still has a file whose table is being built: a copy its own process's
 * final entry does not settle. */
bool replay__parent_pending(const struct replay_maps *m, const struct early_stack *e);

/* Whether e's process has no entry at all (in the image the sample was
 * taken in): right after a sync, one it will not get. */
bool replay__no_entry(const struct replay_maps *m, const struct early_stack *e);

/* Walks e into ips (innermost first, *nr of them, at most MAX_STACK_DEPTH)
 * by the process's entry now; without one (it exited, or exec'd since), by
 * frame pointers, as the BPF side would have. Returns how the walk ended
 * (STAT_UNWIND_*). */
__u32 replay__walk(const struct replay_maps *m, const struct early_stack *e, __u64 *ips,
		   __u32 *nr);

/* What one walk reads, however it was found (replay__walk: the BPF maps;
 * a test: memory). */
struct replay_view {
	const struct unwind_proc *entry;	/* NULL: none, frame pointers */
	const struct exec_ranges *ranges;	/* JIT code found executable */
	enum unwind_mode mode;
	/* the last of m's rows with pc <= vaddr into out; false: none */
	bool (*find_row)(void *arg, const struct unwind_map *m, __u64 vaddr,
			 struct unwind_row *out);
	void *arg;
};

/* The walk itself, over v. */
__u32 replay__walk_view(const struct replay_view *v, const struct early_stack *e, __u64 *ips,
			__u32 *nr);

#endif
