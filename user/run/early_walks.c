// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Early stacks: held, walked when their process is ready, handed to collect. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/early_walks.h"
#include "procs/procs.h"
#include "sampling/drain.h"
#include "sampling/early.h"
#include "sampling/session.h"
#include "unwind/replay.h"

/* One sample walked: its key, kernel frames, then user frames. */
struct walked {
	struct walked *next;
	struct stack_key key;
	__u32 knr, unr;
	__u64 ips[];
};

struct early_walks {
	struct early *q;
	struct replay_maps maps;
	struct walked *done[2];		/* per generation, newest first */
	size_t ndone[2];
	uint64_t stops[2][STAT_MAX];	/* the walks' ends, per generation */
	uint64_t retry_at;		/* CLOCK_MONOTONIC ns: every held stack tried again */
	uint64_t tidy_at;		/* ... the rows kept mapped, unused since, let go */
	void (*want)(void *arg, pid_t tgid, const __u64 *addrs, size_t n);
	void *want_arg;
};

static void walk(struct early_walks *w, const struct early_stack *e)
{
	__u64 uips[MAX_STACK_DEPTH];
	__u32 unr = 0, stop = replay__walk(&w->maps, e, uips, &unr), g = e->g & 1;
	struct walked *d = malloc(sizeof(*d) + (e->knr + unr) * sizeof(d->ips[0]));

	if (!d)
		return;	/* not counted: samples > counted + lost shows it */
	d->key = e->key;
	d->knr = e->knr;
	d->unr = unr;
	memcpy(d->ips, e->kips, e->knr * sizeof(d->ips[0]));
	memcpy(d->ips + e->knr, uips, unr * sizeof(d->ips[0]));
	d->next = w->done[g];
	w->done[g] = d;
	w->ndone[g]++;
	w->stops[g][stop]++;
}

static void walk_now(const struct early_stack *e, void *arg)
{
	walk(arg, e);
}

/* Lazy tables: the files e's walk may cross that no sample asked for yet
 * are asked for now; true when any was (e waits for them). */
static bool asks_tables(struct early_walks *w, const struct early_stack *e)
{
	__u64 at[MAX_UNWIND_MAPS];
	__u32 owner;
	size_t n = w->want ? replay__unasked(&w->maps, e, &owner, at, MAX_UNWIND_MAPS) : 0;

	if (n)
		w->want(w->want_arg, (pid_t)owner, at, n);
	return n > 0;
}

void early_walks__on_unasked(struct early_walks *w,
			     void (*want)(void *arg, pid_t tgid, const __u64 *addrs, size_t n),
			     void *arg)
{
	w->want = want;
	w->want_arg = arg;
}

static bool walk_if_ready(const struct early_stack *e, void *arg)
{
	struct early_walks *w = arg;

	if (asks_tables(w, e) || !replay__ready(&w->maps, e))
		return false;
	walk(w, e);
	return true;
}

/* Its process was just synced: an entry, or none at all (its files all
 * keep frame pointers, or none is known: the walk of a stack copied with
 * no entry, as at the interval's end). */
static bool walk_if_settled(const struct early_stack *e, void *arg)
{
	struct early_walks *w = arg;

	if (asks_tables(w, e) || (!replay__ready(&w->maps, e) && !replay__no_entry(&w->maps, e)))
		return false;
	walk(w, e);
	return true;
}

void early_walks__synced(struct early_walks *w, pid_t tgid)
{
	early__take(w->q, tgid, walk_if_settled, w);
}

static pid_t forked_by(void *procs, pid_t tgid, __u64 start_time)
{
	return procs__forked_by(procs, tgid, start_time);
}

int early_walks__new(const struct session *s, enum unwind_mode mode, struct procs *procs,
		     struct early_walks **out)
{
	struct early_walks *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->maps = (struct replay_maps){
		.procs_fd = session__unwind_procs_fd(s), .files_fd = session__unwind_files_fd(s),
		.ranges_fd = session__exec_ranges_fd(s), .exec_fd = session__exec_times_fd(s),
		.mode = mode, .forked_by = forked_by, .forked_by_arg = procs,
	};
	err = replay_rows__new(0, &w->maps.rows);
	if (!err)
		err = early__new(session__early_fd(s), walk_now, w, &w->q);
	if (err) {
		replay_rows__free(w->maps.rows);
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int early_walks__fd(const struct early_walks *w)
{
	return early__fd(w->q);
}

int early_walks__read(struct early_walks *w)
{
	int n = early__read(w->q);

	return n > 0 ? n : 0;	/* a read that failed leaves them in the ring */
}

/* Under churn stacks came or entries were written at almost every
 * wake-up, and each tried every held stack again: 600 entry reads a second
 * (1,500 lookups) beside pgbench and a mapping churner. A stack tried and
 * left waits for its process's sync or the end of the builds it waited
 * for (early_walks__synced(), __built() take it then); this retry catches
 * the rest (a copy from before an exec, walked by its parent's entry). */
#define EARLY_RETRY_NS	250000000ull

void early_walks__walk_ready(struct early_walks *w, bool all)
{
	uint64_t now = procs__now();

	if (!all && now < w->retry_at) {
		early__take_fresh(w->q, walk_if_ready, w);
		return;
	}
	w->retry_at = now + EARLY_RETRY_NS;
	early__take(w->q, 0, walk_if_ready, w);
}

/* Rows kept mapped for the next walks go when unused this long: a chunk
 * deleted meanwhile keeps its kernel memory while mapped. */
#define EARLY_ROWS_KEPT_NS	500000000ull

void early_walks__tidy(struct early_walks *w)
{
	uint64_t now = procs__now();

	if (now < w->tidy_at)
		return;
	w->tidy_at = now + EARLY_ROWS_KEPT_NS;
	replay_rows__tidy(w->maps.rows);
}

bool early_walks__waiting(const struct early_walks *w)
{
	return early__held(w->q) > 0;
}

void early_walks__built(void *arg, pid_t tgid)
{
	early_walks__synced(arg, tgid);
}

bool early_walks__holds(void *arg, pid_t tgid)
{
	struct early_walks *w = arg;

	return early__holds(w->q, tgid);
}

/* Its process's entry is final: nothing more will come for it, but a
 * copy from before an exec, walked by the parent's entry, waits for that
 * one's builds (early_walks__walk_ready() takes it then). */
static bool walk_if_final(const struct early_stack *e, void *arg)
{
	struct early_walks *w = arg;

	if (asks_tables(w, e) || replay__parent_pending(&w->maps, e))
		return false;
	walk(w, e);
	return true;
}

void early_walks__settle(void *arg, pid_t tgid)
{
	struct early_walks *w = arg;

	early__take(w->q, tgid, walk_if_final, w);
}

struct take_ctx {
	struct early_walks *w;
	int gen;
	bool last;
};

static bool take_held(const struct early_stack *e, void *arg)
{
	struct take_ctx *t = arg;

	if (!t->last && (e->g & 1) != (__u32)t->gen)
		return false;
	walk(t->w, e);
	return true;
}

/* Generation g's walked samples into out: one record each, its stacks and
 * frames in out's own arrays (drain__free() frees them). */
static int to_drained(struct walked *list, size_t n, struct drained *out)
{
	size_t nframes = 0, i = 0, f = 0;
	struct walked *d;

	for (d = list; d; d = d->next)
		nframes += d->knr + d->unr;
	out->recs = calloc(n ? n : 1, sizeof(*out->recs));
	out->stacks = calloc(n ? 2 * n : 1, sizeof(*out->stacks));
	out->frames = malloc((nframes ? nframes : 1) * sizeof(*out->frames));
	if (!out->recs || !out->stacks || !out->frames) {
		drain__free(out);
		return -ENOMEM;
	}
	for (d = list; d; d = d->next, i++) {
		struct raw_stack *k = &out->stacks[2 * i], *u = k + 1;

		memcpy(out->frames + f, d->ips, (d->knr + d->unr) * sizeof(d->ips[0]));
		*k = (struct raw_stack){ .nr = d->knr, .ips = out->frames + f };
		*u = (struct raw_stack){ .nr = d->unr, .ips = out->frames + f + d->knr };
		f += d->knr + d->unr;
		out->recs[i] = (struct raw_count){ .key = d->key, .count = 1,
			.kstack = d->knr ? k : NULL, .ustack = d->unr ? u : NULL };
	}
	out->n = n;
	out->nstacks = 2 * n;
	return 0;
}

static void free_list(struct walked *d)
{
	while (d) {
		struct walked *next = d->next;

		free(d);
		d = next;
	}
}

/* Generation from's walked samples and stops join to's. */
static void move_gen(struct early_walks *w, int from, int to)
{
	struct walked **tail = &w->done[to];

	while (*tail)
		tail = &(*tail)->next;
	*tail = w->done[from];
	w->done[from] = NULL;
	w->ndone[to] += w->ndone[from];
	w->ndone[from] = 0;
	for (int k = 0; k < STAT_MAX; k++)
		w->stops[to][k] += w->stops[from][k];
	memset(w->stops[from], 0, sizeof(w->stops[from]));
}

int early_walks__take(struct early_walks *w, int gen, bool last, struct drained *out,
		      uint64_t stats[STAT_MAX])
{
	struct take_ctx t = { .w = w, .gen = gen & 1, .last = last };
	int g = gen & 1, err;

	(void)early__read(w->q);
	early__take(w->q, 0, take_held, &t);
	if (last) {	/* the other generation's too: no collect follows */
		move_gen(w, !g, g);
		early__close_ring(w->q);	/* nothing more comes: before the write */
	}
	memset(out, 0, sizeof(*out));
	err = to_drained(w->done[g], w->ndone[g], out);
	for (int k = 0; k < STAT_MAX; k++)
		stats[k] += w->stops[g][k];
	memset(w->stops[g], 0, sizeof(w->stops[g]));
	free_list(w->done[g]);
	w->done[g] = NULL;
	w->ndone[g] = 0;
	return err;
}

void early_walks__free(struct early_walks *w)
{
	if (!w)
		return;
	early__free(w->q);
	replay_rows__free(w->maps.rows);
	free_list(w->done[0]);
	free_list(w->done[1]);
	free(w);
}
