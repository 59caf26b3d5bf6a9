/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What a profile counted besides its samples: struct profile_stats, each
 * subsystem's counters (registered in counters.c) and the run's own. */
#ifndef BPFPROF_STATS_H
#define BPFPROF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>
#include "bpf/profile.h"	/* STAT_MAX: the BPF side's stats map */
#include "profile/unnamed.h"

/* Fleet mode: what the run holds when an interval is drained, for the
 * index line (the soak checks these come back down). Gauges and counters
 * since the start: a merge keeps the newer. */
struct footprint {
	bool set;
	size_t unwind_rows, unwind_files;	/* rows and files loaded now */
	size_t tables_loaded, tables_dropped;	/* files' rows loaded, freed, since the start */
	size_t registry_files;			/* files the processes map now */
	uint64_t registry_released;		/* registry entries released since the start */
	uint64_t kernel_bytes;			/* every BPF map's memlock, inner maps too */
	uint64_t row_bytes;			/* of which the unwind rows' inner maps */
};

/* The busiest sender of process tracking records, since the start (set
 * once records were lost or past a process's budget): its most records in
 * one second, its comm raw (escaped where it is shown). */
struct flooder {
	int32_t pid;		/* 0: none */
	uint32_t per_sec;
	char comm[16];
};

/* The unwinder's tables when the profile was drained (run/collect.c copies
 * them from unwind/unwind.h's stats), for the summary's JSON and -v. */
struct table_stats {
	bool set;
	size_t files, files_fp, files_without, files_over_budget;
	size_t files_refused;			/* did not fit --unwind-rows */
	size_t files_dropped, files_reused, files_evicted;
	size_t rows, rows_peak, rows_budget, procs, asked;
	double build_seconds;
	/* tables refused by a process's share (unwind/share.h): by limit, and
	 * the process refused most, with the limit it hit last */
	size_t over_share_tables, over_share_build, over_share_rows;
	pid_t share_pid;
	char share_comm[16];		/* as the process set it: escape to show */
	const char *share_limit;
	size_t share_refused;
	size_t chunks, chunks_made, graces;	/* the rows' chunks; grace periods waited */
};

/* The counts a runtime keeps of its own (profile_stats.runtime_counts). */
#define RUNTIME_COUNTS	8

struct profile_stats {
	uint64_t bpf[STAT_MAX];		/* the BPF side's stats map, summed */
	uint64_t frames;		/* frames symbolized */
	uint64_t unresolved;		/* frames left [unknown] or dso+0xoff */
	uint64_t unnamed[UNNAMED_MAX];	/* the same by reason */
	uint64_t user_stacks;		/* samples with a user stack (off-CPU's aside) */
	uint64_t user_stacks_complete;	/* ... whose outermost frame is a thread's or
					 * the process's entry (symbols/resolve.c) */
	uint64_t stacks_missing;	/* stack ids gone from the stack map */
	uint64_t tracking_lost;		/* process tracking records dropped */
	uint64_t tracking_over_budget;	/* ... of a process past its budget a
					 * second: not applied, it was re-read */
	struct flooder flooder;
	uint64_t files_over_limit;	/* ELF files skipped, beyond the sane sizes */
	uint64_t files_dwarf_over;	/* files whose DWARF is over --dwarf-mem */
	uint64_t jit_malformed;		/* JIT map lines skipped: malformed */
	uint64_t jit_over_cap;		/* ... well-formed, past --jit-map-mem */
	uint64_t jit_over_share;	/* ... past a process's share of it */
	uint64_t jit_share_spent_by;	/* since the start: the pid with most of
					 * those lines (0: none) */
	uint64_t jit_refused;		/* JIT maps refused: not the process's own */
	uint64_t debug_refused;		/* debug files refused (elf/debug_file.h) */
	bool debuginfod;		/* DEBUGINFOD_URLS set, servers asked */
	bool debuginfod_spent;		/* the run's wait budget ran out */
	uint64_t debuginfod_fetched;	/* debug files the servers gave */
	uint64_t debuginfod_failed;	/* lookups that got none */
	double duration;		/* seconds of sampling */
	uint64_t start_wall_ns;		/* when sampling began, CLOCK_REALTIME */
	unsigned int freq;		/* sampling frequency, Hz */
	size_t stack_ids;		/* stack map occupancy when drained */
	uint64_t runtime_named[RUNTIME_MAX];	/* a runtime's frames named (bpf/runtimes.h) */
	uint64_t runtime_unnamed[RUNTIME_MAX];	/* ... that it could not name */
	/* each runtime's own counts (processes found, what it could not
	 * read), as its row's counters name them (base/runtime.h) */
	uint64_t runtime_counts[RUNTIME_MAX][RUNTIME_COUNTS];
	uint64_t cgroups;		/* distinct cgroups the samples ran in */
	uint64_t cgroups_merged;	/* samples past max_cgroups: no cgroup */
	uint64_t cgroups_unnamed;	/* cgroups that cannot be named: gone, path too long */
	uint64_t cgroups_later;		/* not named yet: the drain's naming budget was spent */
	size_t vmas_held;		/* running processes' mappings procs holds now */
	size_t vmas_dropped;		/* ... dropped: no drained sample can name them */
	size_t vmas_forgotten;		/* ... dropped past a process's cap (procs.h) */
	uint64_t vmas_forgot_pid;	/* since the start: the process that lost
					 * most to it at once (0: none) */
	char vmas_forgot_comm[16];	/* its comm, raw: escape it to show it */
	struct footprint footprint;
	struct table_stats tables;
	pid_t main_pid;			/* the profiled program (-p's first, the
					 * command); 0: the whole machine (-a) */
};

/* An interval's length and end in nanoseconds: intervals tile, so one's
 * end is the next one's start_wall_ns, exactly (duration is a double of
 * a whole number of nanoseconds: rounding gives it back). */
static inline uint64_t profile_stats__duration_ns(const struct profile_stats *st)
{
	return st->duration > 0 ? (uint64_t)(st->duration * 1e9 + 0.5) : 0;
}

static inline uint64_t profile_stats__end_wall_ns(const struct profile_stats *st)
{
	return st->start_wall_ns + profile_stats__duration_ns(st);
}

#endif
