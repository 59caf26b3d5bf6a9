// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Per-process JIT maps (see jit_procs.h). */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/errors.h"
#include "symbols/jit_procs.h"
#include "symbols/perfmap.h"

struct jit_proc {
	pid_t tgid;		/* first two: the tree's key */
	uint64_t start_time;
	int fd;			/* -1: not found (yet) */
	uint64_t turn;		/* the turn it was last refreshed in */
	bool dead;		/* its process is gone: nothing more to read */
	bool refused;		/* its map is not its own: never read, said once */
	bool cut_said;		/* it was cut short (the budget spent): said once */
	struct proc_owner owner;	/* learnt while it ran (procs__owner()) */
	struct perfmap *pm;
};

struct jit_procs {
	void *tree;
	size_t n;
	uint64_t turn;		/* starts at 1: 0 means never refreshed */
	struct jit_skips skips;	/* since the start, all maps */
	struct perfmap_budget budget;	/* all maps' bytes (--jit-map-mem) */
};

struct jit_procs *jit_procs__new(size_t mem_cap)
{
	struct jit_procs *jp = calloc(1, sizeof(*jp));

	if (jp) {
		jp->turn = 1;
		jp->budget.cap = mem_cap;
		jp->budget.share = mem_cap / PERFMAP_SHARES;
	}
	return jp;
}

static void free_proc(void *node)
{
	struct jit_proc *p = node;

	if (p->fd >= 0)
		close(p->fd);
	perfmap__free(p->pm);
	free(p);
}

void jit_procs__free(struct jit_procs *jp)
{
	if (!jp)
		return;
	tdestroy(jp->tree, free_proc);
	free(jp);
}

size_t jit_procs__count(const struct jit_procs *jp)
{
	return jp->n;
}

void jit_procs__skipped(const struct jit_procs *jp, struct jit_skips *out)
{
	*out = jp->skips;
}


static int cmp_proc(const void *pa, const void *pb)
{
	const struct jit_proc *a = pa, *b = pb;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	return (a->start_time > b->start_time) - (a->start_time < b->start_time);
}

static struct jit_proc *get_proc(struct jit_procs *jp, pid_t tgid, uint64_t start_time)
{
	struct jit_proc key = { .tgid = tgid, .start_time = start_time }, *p;
	void *node = tfind(&key, &jp->tree, cmp_proc);

	if (node)
		return *(struct jit_proc **)node;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	*p = key;
	p->fd = -1;
	p->pm = perfmap__new(&jp->budget);
	if (!p->pm || !tsearch(p, &jp->tree, cmp_proc)) {
		free_proc(p);
		return NULL;
	}
	jp->n++;
	return p;
}

/* The map of p, opened once: a map that is not the process's own is
 * refused for good, said once. */
static void open_map(struct jit_procs *jp, struct jit_proc *p, bool alive)
{
	char path[64], why[96];

	p->fd = perfmap__open(p->tgid, p->start_time, alive, &p->owner, path, sizeof(path), why,
			      sizeof(why));
	if (p->fd != -EPERM)
		return;
	p->refused = true;
	jp->skips.refused++;
	p_warn("JIT map %s of process %d refused: %s; its JIT frames stay unnamed", path,
	       (int)p->tgid, why);
}

/* n more lines of p's map past its limit: counted under the limit that
 * cut it (its share, or all maps' cap), said once per map. */
static void count_cut(struct jit_procs *jp, struct jit_proc *p, size_t n)
{
	bool share = perfmap__cut_by_share(p->pm);
	uint64_t past = perfmap__over_cap(p->pm);

	if (!n)
		return;
	if (share) {
		jp->skips.over_share += n;
		if (past > jp->skips.share_spent_lines) {
			jp->skips.share_spent_lines = past;
			jp->skips.share_spent_by = p->tgid;
		}
	} else {
		jp->skips.over_cap += n;
	}
	if (p->cut_said)
		return;
	p->cut_said = true;
	if (share)
		p_warn("JIT map of process %d cut short after %zu entries: its share of "
		       "--jit-map-mem (%zu of %zu bytes) is spent; the lines after are counted, "
		       "not kept", (int)p->tgid, perfmap__count(p->pm), jp->budget.share,
		       jp->budget.cap);
	else
		p_warn("JIT map of process %d cut short after %zu entries: all JIT maps hold "
		       "--jit-map-mem (%zu bytes); the lines after are counted, not kept",
		       (int)p->tgid, perfmap__count(p->pm), jp->budget.cap);
}

static void refresh(struct jit_procs *jp, struct jit_proc *p, bool alive)
{
	size_t malformed, over_cap;

	if (p->turn == jp->turn || p->dead || p->refused)
		return;
	p->turn = jp->turn;
	if (p->fd < 0)
		open_map(jp, p, alive);
	/* after its exit, once: the last bytes it wrote */
	p->dead = !alive;
	if (p->fd < 0)
		return;
	malformed = perfmap__malformed(p->pm);
	over_cap = perfmap__over_cap(p->pm);
	if (perfmap__read_fd(p->pm, p->fd) < 0) {
		close(p->fd);
		p->fd = -1;
	}
	jp->skips.malformed += perfmap__malformed(p->pm) - malformed;
	count_cut(jp, p, perfmap__over_cap(p->pm) - over_cap);
}

const char *jit_procs__lookup(struct jit_procs *jp, pid_t tgid, uint64_t start_time, bool alive,
			      const struct proc_owner *owner, uint64_t addr)
{
	struct jit_proc *p = get_proc(jp, tgid, start_time);

	if (!p)
		return NULL;
	if (owner->known)	/* the latest learnt */
		p->owner = *owner;
	refresh(jp, p, alive);
	return perfmap__lookup(p->pm, addr);
}

struct sweep {
	struct jit_proc **gone;
	size_t n;
	bool (*is_drained)(void *ctx, pid_t tgid, uint64_t start_time);
	void *ctx;
};

/* Whether its process was alive at its last lookup or not, a map whose
 * process is drained names no later frame. (Dropped only once looked up
 * after the exit and asked while procs still knew the exit, a map held its
 * fd and lines for good when its process was looked up only while it ran,
 * or was reaped in the collect that named it: one fd a minute in the hour
 * soak.) */
static void collect_gone(const void *nodep, VISIT which, void *arg)
{
	struct jit_proc *p = *(struct jit_proc *const *)nodep;
	struct sweep *sw = arg;

	if ((which == postorder || which == leaf) && sw->is_drained(sw->ctx, p->tgid, p->start_time))
		sw->gone[sw->n++] = p;
}

void jit_procs__next_turn(struct jit_procs *jp, bool (*is_drained)(void *ctx, pid_t tgid,
								    uint64_t start_time),
			  void *ctx)
{
	struct sweep sw = { .is_drained = is_drained, .ctx = ctx };

	jp->turn++;
	sw.gone = calloc(jp->n ? jp->n : 1, sizeof(*sw.gone));
	if (!sw.gone)
		return;	/* dropped at a later turn */
	twalk_r(jp->tree, collect_gone, &sw);
	for (size_t i = 0; i < sw.n; i++) {
		tdelete(sw.gone[i], &jp->tree, cmp_proc);
		free_proc(sw.gone[i]);
		jp->n--;
	}
	free(sw.gone);
}
