/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One turn of the pipe: flip the BPF generation, drain it, symbolize it
 * into a profile. Owns the symbol caches that live across turns. */
#ifndef BPFPROF_COLLECT_H
#define BPFPROF_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/aggregate.h"	/* enum group_by */

struct collector;
struct files;
struct name_sources;
struct profile;
struct procs;
struct runtimes;
struct session;

struct pevent;

/* How kernel frames are named. */
enum ksyms_use {
	KSYMS_NONE,		/* no kernel frames */
	/* all of kallsyms, read on a thread from the start and kept: a run
	 * that collects every interval */
	KSYMS_KEPT,
	/* at each collect, only the symbols its samples need (5 MiB less at
	 * the peak): a run that collects once, at its end */
	KSYMS_PER_COLLECT,
};

/* events[n] describe the session's events, index for index: every profile
 * collected carries them. names: where user frames get their names; files:
 * the registry procs enters its files in. */
struct collector *collector__new(struct session *s, struct procs *procs, struct files *files,
				 enum ksyms_use ksyms,
				 const struct pevent *events, int nevents,
				 const struct name_sources *names);
void collector__free(struct collector *c);

/* From now on: the labels pprof samples carry (enum label_bit), the one
 * each stack's root frame names (--group-by), and the distinct cgroups a
 * profile labels samples with (0: the default). */
void collector__set_labels(struct collector *c, unsigned int labels, enum group_by by,
			  size_t max_cgroups);

/* The runtimes' frames are named through rts (not owned) from now on. */
void collector__set_runtimes(struct collector *c, struct runtimes *rts);

/* Samples walked in user space (early_walks.h) join each collect's. */
struct early_walks;
void collector__set_early(struct collector *c, struct early_walks *early);

/* fn(arg, d) sees each collect's drained samples before they are named
 * (lazy tables: the files their walks crossed, unwind.h). */
struct drained;
void collector__on_drained(struct collector *c, void (*fn)(void *arg, const struct drained *d),
			   void *arg);

/* When the BPF side's generation flipped: one interval's end, the next
 * one's start. */
struct flip_time {
	uint64_t mono_ns;	/* procs__now() */
	uint64_t wall_ns;	/* CLOCK_REALTIME */
};

/* Takes everything sampled since the last turn into a new profile (its
 * stats.bpf, frames, unresolved and stack_ids filled in), then forgets
 * processes whose samples are now all drained and bounds the caches;
 * *at is when the samples taken began to go to the next turn. Returns 0
 * or -errno with a message printed. */
int collector__collect(struct collector *c, struct profile **out, struct flip_time *at);

/* The length of an interval from start (both clocks) to end, such that
 * start_wall_ns + it == end->wall_ns: the wall clock's difference, so
 * that intervals tile in wall time; the monotonic one's when the wall
 * clock was stepped (backwards, or 0.1 s more than NTP slews). */
uint64_t collector__span_ns(uint64_t start_mono_ns, uint64_t start_wall_ns,
			    const struct flip_time *end);

#endif
