// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Formatting the summary line of a profile. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "profile/aggregate.h"
#include "output/summary.h"

/* Off-CPU time: its own line part, in its own unit. */
static int offcpu_part(const struct profile *p, char *buf, size_t size)
{
	const uint64_t *b = p->stats.bpf;

	for (int i = 0; i < p->nevents; i++) {
		if (strcmp(p->events[i].name, "offcpu"))
			continue;
		return snprintf(buf, size, ", off-CPU %" PRIu64 " us in %" PRIu64 " blocks (%" PRIu64
				" shorter than --min-block, %" PRIu64 " lost; its counts are microseconds)",
				profile__event_total(p, (uint32_t)i), b[STAT_OFFCPU_BLOCKS],
				b[STAT_OFFCPU_SHORT], b[STAT_OFFCPU_LOST]);
	}
	return 0;
}

/* --call-graph auto/dwarf: how the user stacks ended. */
static void unwind_part(const struct profile *p, char *buf, size_t size)
{
	const uint64_t *b = p->stats.bpf;
	uint64_t any = 0;

	for (int k = STAT_UNWIND_FP_FALLBACK; k <= STAT_UNWIND_PENDING; k++)
		any += b[k];
	if (!any)
		return;
	snprintf(buf, size, ", unwind: %" PRIu64 " complete, %" PRIu64 " stopped without a rule, %"
		 PRIu64 " outside known files, %" PRIu64 " read faults, %" PRIu64 " at max depth, %"
		 PRIu64 " at a non-user return address, %" PRIu64 " at an implausible frame, %"
		 PRIu64 " by frame pointers (no tables yet), %" PRIu64 " through files whose "
		 "tables did not fit, %" PRIu64 " through files whose tables were being built, %"
		 PRIu64 " with frame-pointer steps where no CFI covered, %" PRIu64 " walked from "
		 "a copy of the stack taken before their tables",
		 b[STAT_UNWIND_END], b[STAT_UNWIND_NO_RULE],
		 b[STAT_UNWIND_NO_MAPPING], b[STAT_UNWIND_READ_FAULT], b[STAT_UNWIND_DEPTH],
		 b[STAT_UNWIND_BAD_ADDRESS], b[STAT_UNWIND_IMPLAUSIBLE], b[STAT_UNWIND_FP_FALLBACK],
		 b[STAT_UNWIND_NOT_LOADED], b[STAT_UNWIND_PENDING], b[STAT_UNWIND_FP_STEPS],
		 b[STAT_UNWIND_DEFERRED]);
}

/* Inputs skipped whole or in part: files over the size limits, DWARF
 * over its budget, JIT map lines. */
static void skipped_part(const struct profile *p, char *buf, size_t size)
{
	const struct profile_stats *st = &p->stats;
	int n = 0;

	if (st->files_over_limit)
		n = snprintf(buf, size, ", %" PRIu64 " files skipped (over size limits)",
			     st->files_over_limit);
	if (st->files_dwarf_over && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n,
			      ", %" PRIu64 " files named without lines or inline frames"
			      " (DWARF over --dwarf-mem)", st->files_dwarf_over);
	if (st->jit_refused && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ", JIT maps refused: %" PRIu64
			      " (not the process's own)", st->jit_refused);
	if ((st->jit_malformed || st->jit_over_cap) && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 ", JIT map lines skipped: %" PRIu64 " malformed, %" PRIu64
			 " past --jit-map-mem", st->jit_malformed, st->jit_over_cap);
}

/* What stayed unnamed, by reason: " (no symbol 12, file unreadable 1)". */
static void unnamed_part(const struct profile *p, char *buf, size_t size)
{
	static const char *const reasons[UNNAMED_MAX] = {
		[UNNAMED_NO_MAPPING] = "no mapping",
		[UNNAMED_NO_JIT_MAP] = "anonymous, no JIT map entry",
		[UNNAMED_NO_FILE] = "no file",
		[UNNAMED_UNREADABLE] = "file unreadable",
		[UNNAMED_NOT_ELF] = "not ELF",
		[UNNAMED_OVER_LIMIT] = "file over size limits",
		[UNNAMED_NO_SYMBOL] = "no symbol",
		[UNNAMED_NO_KSYMS] = "no kallsyms",
		[UNNAMED_NO_KSYM] = "no kernel symbol",
		[UNNAMED_PY_CODE] = "Python code object not read",
	};
	size_t len = 0;

	for (int r = UNNAMED_NONE + 1; r < UNNAMED_MAX && len < size; r++) {
		if (!p->stats.unnamed[r])
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s %" PRIu64, len ? ", " : " (",
					reasons[r], p->stats.unnamed[r]);
	}
	if (len && len < size)
		snprintf(buf + len, size - len, ")");
}

/* Python frames: processes, frames read and the reasons some were not. */
static void python_part(const struct profile *p, char *buf, size_t size)
{
	const struct profile_stats *s = &p->stats;
	const uint64_t *b = s->bpf;

	if (!s->py_procs && !s->py_unsupported && !b[STAT_PY_FRAMES])
		return;
	snprintf(buf, size, ", python: %" PRIu64 " processes (%" PRIu64 " unsupported version), %"
		 PRIu64 " frames read in samples (in the stacks: %" PRIu64 " named, %" PRIu64 " unnamed), not read: %" PRIu64
		 " no thread state, %" PRIu64 " read faults, %" PRIu64 " past max depth; code objects: %"
		 PRIu64 " process gone, %" PRIu64 " freed or unreadable",
		 s->py_procs, s->py_unsupported, b[STAT_PY_FRAMES], s->py_frames, s->py_unnamed,
		 b[STAT_PY_NO_THREAD], b[STAT_PY_READ_FAULT], b[STAT_PY_TRUNCATED], s->py_codes_gone,
		 s->py_codes_bad);
}

/* Debug files from debuginfod servers (when DEBUGINFOD_URLS is set). */
static void debuginfod_part(const struct profile *p, char *buf, size_t size)
{
	const struct profile_stats *st = &p->stats;

	if (st->debuginfod)
		snprintf(buf, size, ", debuginfod: %" PRIu64 " debug files fetched, %" PRIu64
			 " failed%s", st->debuginfod_fetched, st->debuginfod_failed,
			 st->debuginfod_spent ? " (--debuginfod-timeout spent: lookups cut short)" : "");
}

void summary__format(const struct profile *p, const char *why, char *buf, size_t size)
{
	const uint64_t *b = p->stats.bpf;
	char offcpu[256] = "", unwind[512] = "", files[192] = "", unnamed[320] = "", python[512] = "";
	char dbgd[160] = "";

	unnamed_part(p, unnamed, sizeof(unnamed));
	debuginfod_part(p, dbgd, sizeof(dbgd));
	offcpu_part(p, offcpu, sizeof(offcpu));
	unwind_part(p, unwind, sizeof(unwind));
	python_part(p, python, sizeof(python));
	skipped_part(p, files, sizeof(files));
	snprintf(buf, size,
		 "%" PRIu64 " samples, %zu stacks, %" PRIu64 " lost "
		 "(stackmap-full %" PRIu64 ", stack-error %" PRIu64 ", counts-full %" PRIu64 "), %"
		 PRIu64 "/%" PRIu64
		 " frames unresolved%s%s%s, %" PRIu64 " stack halves missing, %" PRIu64
		 " tracking records lost%s%s%s, %.2f s (%s)",
		 b[STAT_SAMPLES], p->nsamples, profile__lost(p),
		 b[STAT_LOST_STACKMAP_FULL], b[STAT_LOST_STACK_ERROR], b[STAT_LOST_COUNTS_FULL],
		 p->stats.unresolved, p->stats.frames, unnamed, files, dbgd, p->stats.stacks_missing,
		 p->stats.tracking_lost,
		 offcpu, unwind, python,
		 p->stats.duration, why);
}
