/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the process table (procs.h): its records, shared by procs.c (the
 * table, fed by the tracker and /proc) and fork_copy.c (a fork's copy of
 * its parent's mappings, made when first needed). Nothing outside
 * user/procs/ includes this. */
#ifndef BPFPROF_PROCS_PRIV_H
#define BPFPROF_PROCS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procs/procs.h"

/* One process that had the pid. */
struct proc {
	pid_t tgid;
	bool exited;
	bool complete;		/* its whole address space is known */
	bool unreadable;	/* /proc/TGID/maps could not be read: don't retry */
	uint64_t exit_time;
	uint64_t *execs;	/* exec times, ascending: each starts a new image */
	size_t nexecs;
	struct vma *vmas;		/* of every image, each stamped with its time */
	size_t nvmas, cap;
	size_t vmas_checked;	/* mapped at the last reading of /proc (unmapped.c) */
	struct proc *older;	/* the previous process with this pid */
	pid_t parent;		/* who forked it, when that was seen (0: unknown) */
	bool changed;		/* listed in procs.changed */
	struct proc_owner owner;	/* learnt while it runs */
	bool owner_image;	/* learnt in its current image */
	/* forked from this one, its copy of the parent's mappings not made
	 * yet: made when first needed, which most short-lived children that
	 * are never sampled never are (see procs__inherit()) */
	struct proc *from;
	uint64_t fork_time;
	struct proc *heirs;	/* the children whose copy waits on this one */
	struct proc *next_heir, **heir_link;
};

struct procs {
	void *root;		/* tsearch tree of the newest struct proc, by tgid */
	size_t count;
	bool track_changes;	/* someone takes the changed list */
	pid_t *changed;		/* tgids whose mappings changed since the last take */
	size_t nchanged, cap_changed;
	struct procs_files files;	/* .get NULL: no registry */
	/* the last incarnation() answer: every frame of a stack asks it
	 * twice, and stacks come process by process; forgotten when a
	 * process is born, exits or is reaped */
	struct {
		pid_t tgid;
		uint64_t start_time;
		struct proc *pr;	/* NULL: nothing remembered */
	} last;
	uint64_t drained_before;	/* the last reap's: samples before it are drained */
	size_t vmas_pruned;		/* mappings dropped, unreachable (prune.c) */
	struct procs_forgotten forgotten;	/* ... past the cap */
};

/* procs.c */
int procs__add_vma(struct procs *p, struct proc *pr, const struct vma *v);
/* Whose pr is, read once an image of it runs code of its own making (what
 * its JIT map will name). born_by: a time it surely ran. */
void proc__learn_owner(struct proc *pr, const struct vma *v, uint64_t born_by);
/* The image a time falls in: [*from, *until) between two execs. */
void proc__image_bounds(const struct proc *pr, uint64_t time, uint64_t *from, uint64_t *until);

/* prune.c: pr's mappings no sample before `before` nor a fork's copy can
 * still need dropped, then the oldest past PROCS_MAX_VMAS (counted, the
 * process named). Returns how many went. */
size_t proc__prune(struct procs *p, struct proc *pr, uint64_t before);

/* unmapped.c: whether pr made enough new mappings since /proc was last read
 * for it to be read again; then its mappings recorded before now that
 * /proc no longer has marked gone (vma.gone = now). Returns how many. */
bool proc__unmapped_due(const struct proc *pr);
size_t proc__mark_unmapped(struct proc *pr, uint64_t now);

/* fork_copy.c: pc, forked by pp at time, copies pp's mappings when first
 * needed (procs__inherit(): 0, or -ENOMEM with none copied after). */
void proc__heir_link(struct proc *pp, struct proc *pc, uint64_t time);
void proc__heir_unlink(struct proc *pc);
int procs__inherit(struct procs *p, struct proc *pc);
/* The same, only while pc runs the image it forked with (no exec since):
 * what its current image reads, or its own mmap must come after. */
int procs__inherit_current(struct procs *p, struct proc *pc);

#endif
