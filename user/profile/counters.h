/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The counters each subsystem keeps in struct profile_stats, registered
 * once with their names: the JSON stats (--stats FILE, the fleet's interval
 * log), the -v lines and profile__merge() are each one loop over this
 * table. A subsystem with counters of its own adds a group here (and the
 * collect step that fills them), a runtime in its row; the readers follow.
 */
#ifndef BPFPROF_COUNTERS_H
#define BPFPROF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile_stats;

enum counter_kind {
	COUNTER_U64,		/* uint64_t */
	COUNTER_SIZE,		/* size_t */
	COUNTER_SECONDS,	/* double */
	COUNTER_FLAG,		/* bool */
};

/* How two profiles' values become the merged one's (--control snapshot). */
enum counter_merge {
	MERGE_SUM,		/* counts of an interval: they add up */
	MERGE_NEWER,		/* totals since the start, gauges: the newer one */
	MERGE_ELSEWHERE,	/* kept by profile__merge() itself: bpf[] summed,
				 * the cgroups counted again as samples add */
};

/* A counter's offset: of a field of struct profile_stats, or of count k
 * of runtime id's own (profile_stats.runtime_counts, a runtime's row). */
#define COUNTER_AT(field)	offsetof(struct profile_stats, field)
#define COUNTER_OWN(id, k)	COUNTER_AT(runtime_counts[id][k])

struct counter {
	const char *key;	/* its JSON key, in its group's object */
	const char *text;	/* -v: "VALUE text" ("TEXT" alone for a flag set) */
	size_t offset;		/* in struct profile_stats */
	enum counter_kind kind;
	enum counter_merge merge;
};

struct counter_group {
	const char *key;	/* the JSON object */
	const char *label;	/* the -v line's */
	const struct counter *counters;
	size_t n;
	/* a bool in struct profile_stats that says the group applies
	 * (JSON and -v); 0: always in JSON, in -v when a value is not 0 */
	size_t applies;
};

/* The registered groups, i < counters__groups(): the run's own, then
 * each runtime's (its row's, base/runtime.h); NULL: a runtime without
 * counters. */
size_t counters__groups(void);
const struct counter_group *counters__group(size_t i);

/* A count's value (flags 0 or 1); a COUNTER_SECONDS' through
 * counter__seconds(). */
uint64_t counter__count(const struct profile_stats *st, const struct counter *c);
double counter__seconds(const struct profile_stats *st, const struct counter *c);

/* Whether the group is written: to JSON (json), or as a -v line. */
bool counter_group__shown(const struct profile_stats *st, const struct counter_group *g,
			  bool json);

/* dst's registered counters merged with src's, each by its rule. */
void counters__merge(struct profile_stats *dst, const struct profile_stats *src);

#endif
