// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The registered counters (see counters.h). */
#include <string.h>

#include "base/runtime.h"
#include "profile/counters.h"
#include "profile/stats.h"

#define AT(field)	offsetof(struct profile_stats, field)
#define N(arr)		(sizeof(arr) / sizeof((arr)[0]))

/* How far user stacks reached (symbols/resolve.c): complete only at a
 * thread's or the process's entry; in samples, off-CPU's aside. */
static const struct counter stacks[] = {
	{ "samples", "samples", AT(user_stacks), COUNTER_U64, MERGE_SUM },
	{ "complete", "reached a thread's or the process's entry", AT(user_stacks_complete),
	  COUNTER_U64, MERGE_SUM },
};

/* What the symbolizer (symbols/, files/) skipped of what others control. */
static const struct counter inputs[] = {
	{ "files_over_size_limits", "files skipped (over size limits)", AT(files_over_limit),
	  COUNTER_U64, MERGE_SUM },
	{ "files_dwarf_over_mem",
	  "files named without lines or inline frames (DWARF over --dwarf-mem)",
	  AT(files_dwarf_over), COUNTER_U64, MERGE_SUM },
	{ "jit_maps_refused", "JIT maps refused (not the process's own)", AT(jit_refused),
	  COUNTER_U64, MERGE_SUM },
	{ "debug_files_refused",
	  "debug files refused (a link where none belongs, or a file who placed it could not read)",
	  AT(debug_refused), COUNTER_U64, MERGE_SUM },
	{ "jit_lines_malformed", "JIT map lines skipped: malformed", AT(jit_malformed),
	  COUNTER_U64, MERGE_SUM },
	{ "jit_lines_past_cap", "JIT map lines past --jit-map-mem", AT(jit_over_cap),
	  COUNTER_U64, MERGE_SUM },
	{ "jit_lines_past_share", "JIT map lines past a process's share of it",
	  AT(jit_over_share), COUNTER_U64, MERGE_SUM },
	{ "jit_share_spent_by", "the pid with most of them", AT(jit_share_spent_by),
	  COUNTER_U64, MERGE_NEWER },
};

/* debuginfod (elf/debuginfod.c), when DEBUGINFOD_URLS is set. */
static const struct counter debuginfod[] = {
	{ "fetched", "debug files fetched", AT(debuginfod_fetched), COUNTER_U64, MERGE_SUM },
	{ "failed", "failed", AT(debuginfod_failed), COUNTER_U64, MERGE_SUM },
	{ "timeout_spent", "--debuginfod-timeout spent: lookups cut short",
	  AT(debuginfod_spent), COUNTER_FLAG, MERGE_NEWER },
};

/* The cgroup labels (profile/aggregate.c, run/collect.c). */
static const struct counter labels[] = {
	{ "cgroups", "cgroups", AT(cgroups), COUNTER_U64, MERGE_ELSEWHERE },
	{ "cgroups_unnamed", "could not be named (gone before the drain, or a path too long)",
	  AT(cgroups_unnamed), COUNTER_U64, MERGE_SUM },
	{ "cgroups_named_later", "not named in this interval: the drain's naming budget was spent",
	  AT(cgroups_later), COUNTER_U64, MERGE_SUM },
	{ "samples_past_max_cgroups", "samples of further cgroups unlabelled (past --max-cgroups)",
	  AT(cgroups_merged), COUNTER_U64, MERGE_SUM },
};

/* The processes' mappings (procs/prune.c): held, and let go. */
static const struct counter mappings[] = {
	{ "held", "held", AT(vmas_held), COUNTER_SIZE, MERGE_NEWER },
	{ "dropped", "dropped, unreachable", AT(vmas_dropped), COUNTER_SIZE, MERGE_SUM },
	{ "forgotten_past_cap", "forgotten past a process's cap", AT(vmas_forgotten),
	  COUNTER_SIZE, MERGE_SUM },
	{ "forgotten_most_by", "the pid that lost most", AT(vmas_forgot_pid),
	  COUNTER_U64, MERGE_NEWER },
};

/* The unwinder's tables (unwind/) when the profile was drained. */
static const struct counter unwind_tables[] = {
	{ "files_loaded", "files loaded", AT(tables.files), COUNTER_SIZE, MERGE_NEWER },
	{ "rows", "rows", AT(tables.rows), COUNTER_SIZE, MERGE_NEWER },
	{ "rows_budget", "rows the budget holds", AT(tables.rows_budget), COUNTER_SIZE, MERGE_NEWER },
	{ "rows_peak", "rows at the peak", AT(tables.rows_peak), COUNTER_SIZE, MERGE_NEWER },
	{ "files_by_frame_pointers", "walked by frame pointers", AT(tables.files_fp),
	  COUNTER_SIZE, MERGE_NEWER },
	{ "files_without_cfi", "without usable CFI", AT(tables.files_without), COUNTER_SIZE,
	  MERGE_NEWER },
	{ "files_over_build_budget", "over the build's budget", AT(tables.files_over_budget),
	  COUNTER_SIZE, MERGE_NEWER },
	{ "files_did_not_fit", "did not fit", AT(tables.files_refused), COUNTER_SIZE,
	  MERGE_NEWER },
	{ "files_dropped", "dropped after their processes exited", AT(tables.files_dropped),
	  COUNTER_SIZE, MERGE_NEWER },
	{ "files_reused", "reused", AT(tables.files_reused), COUNTER_SIZE, MERGE_NEWER },
	{ "files_evicted", "dropped early to make room", AT(tables.files_evicted), COUNTER_SIZE,
	  MERGE_NEWER },
	{ "process_entries", "process entries", AT(tables.procs), COUNTER_SIZE, MERGE_NEWER },
	{ "asked_by_a_sample", "asked by a sample", AT(tables.asked), COUNTER_SIZE,
	  MERGE_NEWER },
	{ "build_s", "s building", AT(tables.build_seconds), COUNTER_SECONDS, MERGE_NEWER },
	{ "files_over_share_tables", "refused: a process's new tables a second",
	  AT(tables.over_share_tables), COUNTER_SIZE, MERGE_NEWER },
	{ "files_over_share_build_time", "refused: a process's build time a second",
	  AT(tables.over_share_build), COUNTER_SIZE, MERGE_NEWER },
	{ "files_over_share_rows", "refused: a process's rows", AT(tables.over_share_rows),
	  COUNTER_SIZE, MERGE_NEWER },
	{ "row_chunks", "chunks of rows", AT(tables.chunks), COUNTER_SIZE, MERGE_NEWER },
	{ "row_chunks_made", "chunks made", AT(tables.chunks_made), COUNTER_SIZE, MERGE_NEWER },
	{ "grace_periods", "grace periods waited to reuse rows", AT(tables.graces), COUNTER_SIZE,
	  MERGE_NEWER },
};

/* The run's own groups; then each runtime's row's (base/runtime.h). */
static const struct counter_group counter_groups[] = {
	{ "user_stacks", "user stacks", stacks, N(stacks), 0 },
	{ "unwind_tables", "unwind tables", unwind_tables, N(unwind_tables), AT(tables.set) },
	{ "inputs", "inputs", inputs, N(inputs), 0 },
	{ "debuginfod", "debuginfod", debuginfod, N(debuginfod), AT(debuginfod) },
	{ "labels", "labels", labels, N(labels), 0 },
	{ "mappings", "mappings", mappings, N(mappings), 0 },
};

size_t counters__groups(void)
{
	return N(counter_groups) + RUNTIME_MAX;
}

const struct counter_group *counters__group(size_t i)
{
	if (i < N(counter_groups))
		return &counter_groups[i];
	i -= N(counter_groups);
	return i < RUNTIME_MAX ? runtime_rows[i]->counters : NULL;
}

static void *field(const struct profile_stats *st, size_t offset)
{
	return (char *)st + offset;
}

uint64_t counter__count(const struct profile_stats *st, const struct counter *c)
{
	const void *v = field(st, c->offset);

	switch (c->kind) {
	case COUNTER_SIZE:
		return *(const size_t *)v;
	case COUNTER_FLAG:
		return *(const bool *)v;
	case COUNTER_U64:
		return *(const uint64_t *)v;
	default:
		return 0;
	}
}

double counter__seconds(const struct profile_stats *st, const struct counter *c)
{
	return c->kind == COUNTER_SECONDS ? *(const double *)field(st, c->offset) : 0;
}

bool counter_group__shown(const struct profile_stats *st, const struct counter_group *g,
			  bool json)
{
	if (g->applies)
		return *(const bool *)field(st, g->applies);
	for (size_t i = 0; i < g->n && !json; i++)
		if (counter__count(st, &g->counters[i]) || counter__seconds(st, &g->counters[i]))
			return true;
	return json;
}

static void merge_one(struct profile_stats *dst, const struct profile_stats *src,
		      const struct counter *c)
{
	void *d = field(dst, c->offset);
	const void *s = field(src, c->offset);

	if (c->merge == MERGE_ELSEWHERE)
		return;
	if (c->merge == MERGE_NEWER) {
		size_t size = c->kind == COUNTER_SIZE ? sizeof(size_t) :
			      c->kind == COUNTER_SECONDS ? sizeof(double) :
			      c->kind == COUNTER_FLAG ? sizeof(bool) : sizeof(uint64_t);

		memcpy(d, s, size);
	} else if (c->kind == COUNTER_SIZE) {
		*(size_t *)d += *(const size_t *)s;
	} else if (c->kind == COUNTER_SECONDS) {
		*(double *)d += *(const double *)s;
	} else if (c->kind == COUNTER_U64) {
		*(uint64_t *)d += *(const uint64_t *)s;
	}
}

void counters__merge(struct profile_stats *dst, const struct profile_stats *src)
{
	for (size_t g = 0; g < counters__groups(); g++) {
		const struct counter_group *grp = counters__group(g);

		if (!grp)
			continue;
		/* a group that did not apply to src has nothing newer */
		if (grp->applies && !*(const bool *)field(src, grp->applies))
			continue;
		if (grp->applies)
			*(bool *)field(dst, grp->applies) = true;
		for (size_t i = 0; i < grp->n; i++)
			merge_one(dst, src, &grp->counters[i]);
	}
}
