// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A fork's mappings: the child starts with its parent's image as it was at
 * the fork. Copying it at every fork record cost the fleet sampler a third
 * of its CPU under 50 short processes a second, most of them never
 * sampled: the copy waits until the child's mappings are first needed
 * (a lookup, a sync, a read of /proc for it, its own first mmap before an
 * exec, a fork of its own, the parent's reap). A parent running code of
 * its own making is copied at once: the child's owner is read while it
 * runs (procs__fork()).
 */
#include <stddef.h>

#include "procs/procs_priv.h"

void proc__heir_link(struct proc *pp, struct proc *pc, uint64_t time)
{
	pc->from = pp;
	pc->fork_time = time;
	pc->next_heir = pp->heirs;
	if (pp->heirs)
		pp->heirs->heir_link = &pc->next_heir;
	pp->heirs = pc;
	pc->heir_link = &pp->heirs;
}

void proc__heir_unlink(struct proc *pc)
{
	if (!pc->from)
		return;
	*pc->heir_link = pc->next_heir;
	if (pc->next_heir)
		pc->next_heir->heir_link = pc->heir_link;
	pc->from = NULL;
	pc->next_heir = NULL;
	pc->heir_link = NULL;
}

/* The copy procs__fork() put off: the parent's image as it was at the
 * fork (its later mappings are stamped later, an exec starts a new one).
 * Made before the child's own mappings: the newest of two over one range
 * is the one that counts. */
int procs__inherit(struct procs *p, struct proc *pc)
{
	struct proc *pp = pc->from;
	uint64_t from, until;
	int err = 0;

	if (!pp)
		return 0;
	proc__heir_unlink(pc);
	proc__image_bounds(pp, pc->fork_time, &from, &until);
	for (size_t i = 0; !err && i < pp->nvmas; i++) {
		const struct vma *v = &pp->vmas[i];

		if (v->time > pc->fork_time || v->time < from)
			continue;
		proc__learn_owner(pc, v, pc->fork_time);
		err = procs__add_vma(p, pc, v);
	}
	return err;
}

int procs__inherit_current(struct procs *p, struct proc *pc)
{
	bool forked_image = !pc->nexecs || pc->execs[pc->nexecs - 1] < pc->fork_time;

	return pc->from && forked_image ? procs__inherit(p, pc) : 0;
}
