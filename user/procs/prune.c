// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A running process's mappings that no lookup can reach any more, dropped
 * at each reap (procs__reap()), with their files' references: a process
 * mapping distinct files in a loop otherwise grew the agent 3-4 MiB a
 * second and kept every file in the registry.
 *
 * A mapping can go when every sample that could name it was drained
 * (`before`, the flip's time) and no fork's copy waits on it:
 *   - its image ended: an exec before `before` replaced it;
 *   - newer mappings of its image, all recorded before `before`, cover
 *     its whole range: procs__find() and the walks take the newest over an
 *     address, so it is never asked for again;
 *   - /proc no longer had it (unmapped.c: perf has no munmap record; read
 *     for a process only as often as it makes new mappings), and every
 *     sample up to that reading is drained.
 * The cap is the backstop: past PROCS_MAX_VMAS the oldest go, counted,
 * the process named (procs__forgotten()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/grow.h"
#include "procs/procs_priv.h"

/* The ranges newer mappings cover, merged, by start. */
struct cover {
	struct range {
		uint64_t start, end;
	} *r;
	size_t n, cap;
};

/* The first range that ends at or after addr. */
static size_t first_ending_from(const struct cover *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->r[mid].end < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool covered(const struct cover *c, uint64_t start, uint64_t end)
{
	size_t i = first_ending_from(c, end);

	return i < c->n && c->r[i].start <= start;
}

/* [start, end) joins the set, merged with the ranges it touches. */
static int cover_add(struct cover *c, uint64_t start, uint64_t end)
{
	size_t i = first_ending_from(c, start), j = i;

	while (j < c->n && c->r[j].start <= end) {
		if (c->r[j].start < start)
			start = c->r[j].start;
		if (c->r[j].end > end)
			end = c->r[j].end;
		j++;
	}
	if (j == i) {
		if (GROW(c->r, c->cap, c->n + 1))
			return -ENOMEM;
		memmove(&c->r[i + 1], &c->r[i], (c->n - i) * sizeof(c->r[0]));
		c->n++;
	} else if (j > i + 1) {
		memmove(&c->r[i + 1], &c->r[j], (c->n - j) * sizeof(c->r[0]));
		c->n -= j - i - 1;
	}
	c->r[i] = (struct range){ start, end };
	return 0;
}

/* The newest fork time of the children still waiting for their copy:
 * mappings up to it are theirs too (0: none waits). */
static uint64_t heirs_fork_time(const struct proc *pr)
{
	uint64_t t = 0;

	for (const struct proc *h = pr->heirs; h; h = h->next_heir)
		if (h->fork_time > t)
			t = h->fork_time;
	return t;
}

/* Marks in drop[] pr's mappings that can go (see above). */
static int mark_unreachable(const struct proc *pr, uint64_t before, bool *drop)
{
	uint64_t heirs = heirs_fork_time(pr), image_from = UINT64_MAX, from, until;
	struct cover c = { 0 };
	int err = 0;

	for (size_t i = pr->nvmas; !err && i-- > 0;) {
		const struct vma *v = &pr->vmas[i];

		proc__image_bounds(pr, v->time, &from, &until);
		if (from != image_from) {	/* an older image: its own ranges */
			c.n = 0;
			image_from = from;
		}
		if (pr->from || v->time <= heirs)
			continue;	/* a fork's copy may need it */
		if ((until != UINT64_MAX && until < before) || covered(&c, v->start, v->end)) {
			drop[i] = true;
			continue;
		}
		/* gone, it still hides what it mapped over */
		drop[i] = v->gone && v->gone < before;
		if (v->time < before)
			err = cover_add(&c, v->start, v->end);
	}
	free(c.r);
	return err;
}

/* The oldest beyond the cap, marked too; returns how many. */
static size_t mark_over_cap(const struct proc *pr, bool *drop)
{
	size_t kept = 0, over = 0;

	for (size_t i = 0; i < pr->nvmas; i++)
		kept += !drop[i];
	for (size_t i = 0; kept > PROCS_MAX_VMAS && i < pr->nvmas; i++) {
		if (drop[i])
			continue;
		drop[i] = true;
		kept--;
		over++;
	}
	return over;
}

/* The process that lost most to the cap, named while it runs. */
static void note_forgotten(struct procs *p, const struct proc *pr, size_t n)
{
	char path[40];
	FILE *f;

	p->forgotten.n += n;
	if (n <= p->forgotten.most)
		return;
	p->forgotten.most = n;
	p->forgotten.pid = pr->tgid;
	snprintf(p->forgotten.comm, sizeof(p->forgotten.comm), "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pr->tgid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(p->forgotten.comm, sizeof(p->forgotten.comm), f))
		p->forgotten.comm[strcspn(p->forgotten.comm, "\n")] = '\0';
	fclose(f);
}

/* The marked ones go, their files let go; the array shrinks with them. */
static size_t compact(struct procs *p, struct proc *pr, const bool *drop)
{
	size_t w = 0, n = pr->nvmas;

	for (size_t i = 0; i < n; i++) {
		if (!drop[i]) {
			pr->vmas[w++] = pr->vmas[i];
			continue;
		}
		if (pr->vmas[i].file)
			p->files.put(p->files.ctx, pr->vmas[i].file);
		free(pr->vmas[i].path);
	}
	pr->nvmas = w;
	if (pr->cap > 2 * w + 16) {
		struct vma *smaller = realloc(pr->vmas, (w + 16) * sizeof(*smaller));

		if (smaller) {
			pr->vmas = smaller;
			pr->cap = w + 16;
		}
	}
	return n - w;
}

size_t proc__prune(struct procs *p, struct proc *pr, uint64_t before)
{
	bool *drop;
	size_t over, n;

	if (pr->exited)
		return 0;	/* an exited one goes whole, at its reap */
	if (proc__unmapped_due(pr))
		proc__mark_unmapped(pr, procs__now());
	if (pr->nvmas < 1)
		return 0;
	drop = calloc(pr->nvmas, sizeof(*drop));
	if (!drop)
		return 0;	/* kept: tried again at the next reap */
	if (mark_unreachable(pr, before, drop))
		memset(drop, 0, pr->nvmas * sizeof(*drop));
	over = mark_over_cap(pr, drop);
	if (over)
		note_forgotten(p, pr, over);
	n = compact(p, pr, drop);
	free(drop);
	p->vmas_pruned += n - over;
	return n;
}
