/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Samples whose user stack the BPF side copied out before their process's
 * tables were in, walked in user space (unwind/replay.h) as soon as their
 * process's entry is complete, and added to the profile of the interval
 * they were taken in: a process unwinds by its tables from its first
 * sample, not by frame pointers until its tables are built.
 */
#ifndef BPFPROF_EARLY_WALKS_H
#define BPFPROF_EARLY_WALKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct drained;
struct early_walks;
struct procs;
struct session;

/* For a session whose BPF side copies stacks (early_stacks()); procs
 * says who forked whom (a copy taken before a child's exec is walked by
 * its parent's entry). */
int early_walks__new(const struct session *s, enum unwind_mode mode, struct procs *procs,
		     struct early_walks **out);

/* Lazy tables: before a held stack is walked, want(arg, tgid, addrs, n)
 * is told the mappings (by an address in each) whose files its walk may
 * cross and no sample asked a table for yet (replay__unasked()); the
 * stack then waits for them (unwinder__want() writes the entry again). */
void early_walks__on_unasked(struct early_walks *w,
			     void (*want)(void *arg, pid_t tgid, const __u64 *addrs, size_t n),
			     void *arg);

/* Readable (poll) when the ring holds stacks. */
int early_walks__fd(const struct early_walks *w);

/* Moves the stacks the ring holds into the queue; returns how many. */
int early_walks__read(struct early_walks *w);

/* Walks the stacks held whose processes are ready. Two map lookups a
 * stack: worth it only when stacks came or entries were written. The
 * stacks that came since the last call are tried each time; all of them
 * (a build done makes its processes ready: resync.c) at most every
 * EARLY_RETRY_NS, or when `all` says so (the end). */
void early_walks__walk_ready(struct early_walks *w, bool all);

/* tgid was synced: its stacks held are walked now if it has its entry,
 * or none (one that waits for an exec's or a build's stays held). */
void early_walks__synced(struct early_walks *w, pid_t tgid);

/* Whether any stack waits to be walked. */
bool early_walks__waiting(const struct early_walks *w);

/* The unwind rows kept mapped between walks, unused for a while, let go;
 * called at each wake-up. */
void early_walks__tidy(struct early_walks *w);

/* Whether stacks of tgid wait to be walked (its entry must stay). */
bool early_walks__holds(void *w, pid_t tgid);

/* tgid's builds are done: its stacks held are walked now if it is ready
 * (unwinder__on_built()). */
void early_walks__built(void *w, pid_t tgid);

/* tgid exited and its entry is final: its stacks held are walked now, as
 * they are (nothing more will come for them), but for those walked by a
 * parent's entry whose tables are still being built. */
void early_walks__settle(void *w, pid_t tgid);

/* Generation gen's walked samples (every one held, walked now as things
 * are, at the last collect) as drained records, and their walks' stops
 * added to stats. Release out with drain__free(). Returns 0 or -ENOMEM. */
int early_walks__take(struct early_walks *w, int gen, bool last, struct drained *out,
		      uint64_t stats[STAT_MAX]);

void early_walks__free(struct early_walks *w);

#endif
