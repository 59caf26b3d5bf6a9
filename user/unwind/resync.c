// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Which processes are synced again, and when (unwind_priv.h): those whose
 * builds are done, those a share deferred, those whose samples wait (their
 * builds hurried), those kept past their exit, those whose copied stacks
 * want a file's table (lazy: unwinder__want()). Each picks processes on a
 * walk of the tree, then syncs them (uproc__sync), since a sync may change
 * the tree. */
#include <search.h>
#include <stdlib.h>

#include "base/grow.h"
#include "files/files.h"
#include "procs/procs.h"
#include "unwind/builder.h"
#include "unwind/unwind_priv.h"

/* The tgids of the processes pick() takes (it may change them), on a
 * walk of the tree; one that does not fit is taken at the next walk. */
struct picked {
	bool (*pick)(struct uproc *p);
	pid_t *tgids;
	size_t n, cap;
};

static void note_picked(const void *node, VISIT which, void *arg)
{
	struct uproc *p = *(struct uproc *const *)node;
	struct picked *w = arg;

	if ((which != postorder && which != leaf) || GROW(w->tgids, w->cap, w->n + 1))
		return;
	if (w->pick(p))
		w->tgids[w->n++] = p->tgid;
}

static bool pick_waiting(struct uproc *p)
{
	bool was = p->waiting;

	p->waiting = false;
	return was;
}

static bool pick_exited(struct uproc *p)
{
	return p->exited;
}

static bool pick_deferred(struct uproc *p)
{
	return p->deferred;
}

/* Processes a share refused a table or a sync are synced again four
 * times a second (their shares refilled meanwhile), not at every change:
 * a churner that maps a file a millisecond is synced a few times a
 * second. */
#define DEFERRED_EVERY_NS	250000000ull

void resync__deferred(struct unwinder *u, struct procs *procs)
{
	struct picked w = { .pick = pick_deferred };
	uint64_t now = procs__now();

	if (now < u->last_deferred + DEFERRED_EVERY_NS)
		return;
	u->last_deferred = now;
	twalk_r(u->procs, note_picked, &w);
	for (size_t i = 0; i < w.n; i++)
		uproc__sync(u, procs, w.tgids[i]);
	free(w.tgids);
}

static bool pick_to_hurry(struct uproc *p)
{
	return p->waiting && !p->hurried;
}

/* Tables are built in the order samples ask for them: a process whose
 * samples wait as copies (holds()) gets its builds moved ahead of the
 * others queued (a machine's worth at the start of -a, a churner's), once.
 * Looked at every HURRY_EVERY_NS while the builder is busy. */
#define HURRY_EVERY_NS	50000000ull

void resync__hurry(struct unwinder *u)
{
	struct picked w = { .pick = pick_to_hurry };
	uint64_t now = procs__now();

	if (!u->holds || !u->builder || now < u->last_hurry + HURRY_EVERY_NS ||
	    !builder__busy(u->builder))
		return;
	u->last_hurry = now;
	twalk_r(u->procs, note_picked, &w);
	for (size_t i = 0; i < w.n; i++) {
		struct uproc *p = uproc__find(u, w.tgids[i]);

		if (!p || !u->holds(u->holds_arg, p->tgid))
			continue;
		p->hurried = true;
		for (size_t f = 0; f < p->nfiles; f++)
			if (!p->files[f]->ready && !p->files[f]->unasked)
				builder__hurry(u->builder, p->files[f]);
	}
	free(w.tgids);
}

/* The builds done since the last call in place, and the processes that
 * waited for them synced again. */
void resync__built(struct unwinder *u, struct procs *procs)
{
	struct picked w = { .pick = pick_waiting };
	size_t i;

	if (!u->builder || !builder__collect(u->builder, ufile__built, u))
		return;
	twalk_r(u->procs, note_picked, &w);
	for (i = 0; i < w.n; i++) {
		uproc__sync(u, procs, w.tgids[i]);
		if (u->on_built)
			u->on_built(u->on_built_arg, w.tgids[i]);
	}
	free(w.tgids);
}

/* Processes kept past their exit that nothing holds any more go. One
 * whose entry waits for no build is final: what is held for it is walked
 * now, as at the interval's end, not kept (with its tables) to the run's
 * end for an entry that cannot come. */
void resync__exited(struct unwinder *u, struct procs *procs)
{
	struct picked w = { .pick = pick_exited };

	if (!u->any_exited)
		return;
	twalk_r(u->procs, note_picked, &w);
	u->any_exited = false;
	for (size_t i = 0; i < w.n; i++) {
		struct uproc *p = uproc__find(u, w.tgids[i]);

		if (p && !p->waiting)
			u->settle(u->holds_arg, w.tgids[i]);
		if (!u->holds(u->holds_arg, w.tgids[i]))
			uproc__sync(u, procs, w.tgids[i]);
		else
			u->any_exited = true;
	}
	free(w.tgids);
}


/* ---- wants: the files a sample's walk needs ------------------------------ */

struct want_ctx {
	const __u64 *addrs;
	bool done[MAX_UNWIND_MAPS];	/* its mapping found (the newest covering it) */
	size_t n, left;
	size_t asked;			/* files wanted now */
};

static int want_vma(const struct vma *v, bool alive, void *arg)
{
	struct want_ctx *w = arg;
	struct ufile *f = v->file ? v->file->unwind : NULL;

	(void)alive;
	for (size_t i = 0; i < w->n; i++) {
		if (w->done[i] || w->addrs[i] < v->start || w->addrs[i] >= v->end)
			continue;
		w->done[i] = true;
		w->left--;
		if (f && f->unasked && !f->wanted) {
			f->wanted = true;
			w->asked++;
		}
	}
	return w->left == 0;
}

/* The unasked files of tgid's mappings holding addrs marked wanted;
 * returns how many. */
static size_t mark_wanted(struct unwinder *u, struct procs *procs, pid_t tgid,
			  const __u64 *addrs, size_t n)
{
	struct want_ctx w = { .addrs = addrs, .n = n < MAX_UNWIND_MAPS ? n : MAX_UNWIND_MAPS };

	w.left = w.n;
	procs__for_each_vma_newest(procs, tgid, want_vma, &w);
	u->st.files_wanted += w.asked;
	return w.asked;
}

size_t unwinder__want(struct unwinder *u, struct procs *procs, pid_t tgid, const __u64 *addrs,
		      size_t n)
{
	size_t asked;

	if (!u->lazy || !uproc__find(u, tgid))
		return 0;
	asked = mark_wanted(u, procs, tgid, addrs, n);
	/* written again at once, whatever was asked: an entry written
	 * before another process's walk had the file built says "unasked"
	 * still, and the copy would ask again at every try */
	uproc__sync(u, procs, tgid);
	return asked;
}

size_t unwinder__sampled(struct unwinder *u, struct procs *procs, pid_t tgid,
			 const uint64_t *ips, size_t n)
{
	struct uproc *p = u->lazy ? uproc__find(u, tgid) : NULL;
	__u64 at[MAX_UNWIND_MAPS];
	size_t asked, i;

	if (!p || !p->unasked)
		return 0;
	/* a return address points after its call: the call is the byte before */
	for (i = 0; i < n && i < MAX_UNWIND_MAPS; i++)
		at[i] = i ? ips[i] - 1 : ips[i];
	asked = mark_wanted(u, procs, tgid, at, i);
	if (asked)
		uproc__sync(u, procs, tgid);
	return asked;
}
