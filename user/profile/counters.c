// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The registered counters (see counters.h). */
#include <string.h>

#include "profile/counters.h"
#include "profile/stats.h"

#define AT(field)	offsetof(struct profile_stats, field)
#define N(arr)		(sizeof(arr) / sizeof((arr)[0]))

/* The CPython reader (python/) and the BPF side's Python walk. */
static const struct counter python[] = {
	{ "processes", "processes", AT(py_procs), COUNTER_U64, MERGE_NEWER },
	{ "unsupported", "of an unsupported version", AT(py_unsupported), COUNTER_U64,
	  MERGE_NEWER },
	{ "frames_read", "frames read in samples", AT(bpf[STAT_PY_FRAMES]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "frames_named", "named in the stacks", AT(runtime_named[RUNTIME_PYTHON]), COUNTER_U64,
	  MERGE_SUM },
	{ "frames_unnamed", "unnamed in the stacks", AT(runtime_unnamed[RUNTIME_PYTHON]),
	  COUNTER_U64, MERGE_SUM },
	{ "no_thread_state", "not read: no thread state", AT(bpf[STAT_PY_NO_THREAD]),
	  COUNTER_U64, MERGE_ELSEWHERE },
	{ "read_faults", "not read: read faults", AT(bpf[STAT_PY_READ_FAULT]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "past_max_depth", "not read: past max depth", AT(bpf[STAT_PY_TRUNCATED]),
	  COUNTER_U64, MERGE_ELSEWHERE },
	{ "codes_process_gone", "code objects not read: process gone", AT(py_codes_gone),
	  COUNTER_U64, MERGE_NEWER },
	{ "codes_unreadable", "code objects freed or unreadable", AT(py_codes_bad),
	  COUNTER_U64, MERGE_NEWER },
};

/* The V8 reader (v8/) and the BPF side's JavaScript frames. */
static const struct counter v8[] = {
	{ "processes", "processes", AT(v8_procs), COUNTER_U64, MERGE_NEWER },
	{ "unsupported", "refused (unknown or faked metadata)", AT(v8_unsupported), COUNTER_U64,
	  MERGE_NEWER },
	{ "frames_read", "frames read in samples", AT(bpf[STAT_V8_FRAMES]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "frames_named", "named in the stacks", AT(runtime_named[RUNTIME_V8]), COUNTER_U64,
	  MERGE_SUM },
	{ "frames_unnamed", "unnamed in the stacks", AT(runtime_unnamed[RUNTIME_V8]), COUNTER_U64,
	  MERGE_SUM },
	{ "read_faults", "not read: function unreadable", AT(bpf[STAT_V8_READ_FAULT]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "past_max_depth", "not read: past max depth", AT(bpf[STAT_V8_TRUNCATED]), COUNTER_U64,
	  MERGE_ELSEWHERE },
	{ "functions_process_gone", "functions not read: process gone", AT(v8_fns_gone),
	  COUNTER_U64, MERGE_NEWER },
	{ "functions_moved", "functions moved by the collector before read", AT(v8_fns_moved),
	  COUNTER_U64, MERGE_NEWER },
	{ "functions_unreadable", "functions unreadable or past bounds", AT(v8_fns_bad),
	  COUNTER_U64, MERGE_NEWER },
};

/* HotSpot's reader (hotspot/): its code cache named from the VM's
 * structures, per distinct address. */
static const struct counter hotspot[] = {
	{ "processes", "processes", AT(hs_procs), COUNTER_U64, MERGE_NEWER },
	{ "refused", "refused (their vmStructs out of bounds)", AT(hs_refused), COUNTER_U64,
	  MERGE_NEWER },
	{ "code_named", "code addresses named", AT(runtime_named[RUNTIME_HOTSPOT]), COUNTER_U64,
	  MERGE_SUM },
	{ "code_unnamed", "code addresses not read", AT(runtime_unnamed[RUNTIME_HOTSPOT]),
	  COUNTER_U64, MERGE_SUM },
	{ "code_process_gone", "not named: the process had exited", AT(hs_gone_unnamed),
	  COUNTER_U64, MERGE_NEWER },
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

const struct counter_group counter_groups[] = {
	{ "unwind_tables", "unwind tables", unwind_tables, N(unwind_tables), AT(tables.set) },
	{ "python", "python", python, N(python), 0 },
	{ "v8", "v8", v8, N(v8), 0 },
	{ "hotspot", "hotspot", hotspot, N(hotspot), 0 },
	{ "inputs", "inputs", inputs, N(inputs), 0 },
	{ "debuginfod", "debuginfod", debuginfod, N(debuginfod), AT(debuginfod) },
	{ "labels", "labels", labels, N(labels), 0 },
	{ "mappings", "mappings", mappings, N(mappings), 0 },
};
const size_t counter_groups_n = N(counter_groups);

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
	for (size_t g = 0; g < counter_groups_n; g++) {
		const struct counter_group *grp = &counter_groups[g];

		/* a group that did not apply to src has nothing newer */
		if (grp->applies && !*(const bool *)field(src, grp->applies))
			continue;
		if (grp->applies)
			*(bool *)field(dst, grp->applies) = true;
		for (size_t i = 0; i < grp->n; i++)
			merge_one(dst, src, &grp->counters[i]);
	}
}
