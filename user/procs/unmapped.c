// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A running process's mappings it unmapped without mapping anything over
 * them: perf has no munmap record, so the tracker never hears of it, and
 * prune.c's rules (an exec ended the image, newer mappings cover it) never
 * let such a mapping go: a process that maps a file, unmaps it and maps
 * the next elsewhere kept every one, its files in the registry, to the
 * per-process cap (PROCS_MAX_VMAS).
 *
 * So /proc/TGID/maps is read for the process, but only when it has made
 * as many new mappings since the last reading as that reading left it
 * (64 at least): a process whose mappings hold still is never read again,
 * and one that churns costs a reading per 64 of its records (each sync of
 * its entry read them all). A mapping recorded before the reading that no
 * executable mapping of the same inode overlaps in it is marked gone at the
 * reading's time; prune.c drops it once every sample up to then is drained.
 * A reading of another process that has the pid now (the exit not applied
 * yet) marks it gone just the same, which is right: the old one is gone.
 */
#include <stdlib.h>

#include "procs/procs_priv.h"
#include "procs/proc_maps.h"

/* New mappings between two readings: at least this many, or as many as
 * the last reading left. */
#define UNMAPPED_CHECK_MIN	64

struct mapped_now {
	struct proc *pr;
	uint64_t read_at;	/* only mappings recorded before it are judged */
	bool *seen;		/* per vma: overlapped by a line of the reading */
};

static bool overlaps(const struct vma *v, const struct maps_line *ml)
{
	return v->start < ml->end && ml->start < v->end && v->ino == ml->ino;
}

static int mark_seen(const struct maps_line *ml, void *arg)
{
	struct mapped_now *m = arg;

	for (size_t i = 0; i < m->pr->nvmas; i++)
		if (!m->seen[i] && overlaps(&m->pr->vmas[i], ml))
			m->seen[i] = true;
	return 0;
}

bool proc__unmapped_due(const struct proc *pr)
{
	size_t since = pr->vmas_checked > UNMAPPED_CHECK_MIN ? pr->vmas_checked : UNMAPPED_CHECK_MIN;

	return !pr->exited && pr->nvmas >= pr->vmas_checked + since;
}

size_t proc__mark_unmapped(struct proc *pr, uint64_t now)
{
	struct mapped_now m = { .pr = pr, .read_at = now };
	size_t marked = 0, gone = 0;

	m.seen = calloc(pr->nvmas ? pr->nvmas : 1, sizeof(*m.seen));
	if (!m.seen)
		return 0;	/* tried again at the next reap */
	if (maps_for_each_exec(pr->tgid, mark_seen, &m)) {
		/* unreadable (gone, or not ours to read): its exit says the rest */
		pr->vmas_checked = pr->nvmas;
		free(m.seen);
		return 0;
	}
	for (size_t i = 0; i < pr->nvmas; i++) {
		struct vma *v = &pr->vmas[i];

		if (m.seen[i] || v->time >= now)
			continue;
		if (!v->gone)
			v->gone = now;
		marked++;
	}
	for (size_t i = 0; i < pr->nvmas; i++)
		gone += pr->vmas[i].gone != 0;
	pr->vmas_checked = pr->nvmas - gone;
	free(m.seen);
	return marked;
}
