/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The BPF side of a profiling run: skeleton open/load/attach, the perf
 * events the program runs on, and the maps' file descriptors. */
#ifndef BPFPROF_SESSION_H
#define BPFPROF_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>
#include "bpf/profile.h"
#include "base/config.h"

struct session;

struct session_opts {
	const struct event *events;	/* what to sample: attach cookie = index */
	int nevents;
	unsigned int freq;
	unsigned long long period;	/* -c: every N events instead of freq */
	enum stack_sides sides;
	bool filter_tgids;	/* only the tgids added with session__add_tgid() */
	int npids;		/* how many will be added (the filter map's size) */
	bool follow_forks;	/* ... and their children from now on */
	const pid_t *tids;	/* only these threads */
	const uint64_t *tid_starts;	/* that started then (id_start_ticks()) */
	int ntids;
	const char *comm;	/* only tasks of this name */
	const char *cgroup;	/* only tasks in this cgroup v2 directory or below */
	unsigned long min_block_us;	/* off-CPU blocks shorter are not recorded */
	enum unwind_mode unwind_mode;	/* --call-graph: fp, dwarf, auto */
	/* the runtimes whose frames user stacks hold: bit 1 << id (bpf/runtimes.h);
	 * those whose row needs the unwinder's tables only in auto and dwarf */
	unsigned int runtimes_on;
	bool lazy_tables;	/* a sampled process without tables asks for them */
	const char *btf_path;	/* NULL: the running kernel's */
	unsigned int max_stacks;	/* entries of the stack and counts maps */
	bool no_cgroup_key;	/* no cgroup id in the key: nothing names cgroups */
};

/* Whether samples taken before their process's tables are copied out to
 * be walked later (auto and dwarf, with user stacks). */
static inline bool early_stacks(const struct session_opts *opts)
{
	return opts->unwind_mode != UNWIND_FP && opts->sides != SIDES_KERNEL_ONLY;
}

/* Opens and loads the BPF programs. On failure returns -errno and prints
 * one line saying why. */
int session__load(const struct session_opts *opts, struct session **out);

/* True when samples carry their process's last exec time (the exec
 * tracepoint program loaded and attached). */
bool session__tracks_exec(const struct session *s);

/* Adds the process that started at start_ticks (id_start_ticks()) to the
 * filter (opts.filter_tgids). */
int session__add_tgid(struct session *s, pid_t tgid, uint64_t start_ticks);

/* Opens the events (on every CPU where they are per CPU) and attaches the
 * programs; a failure names the event and why. */
int session__start(struct session *s);

/* Stops sampling: detaches and closes the events. Idempotent, and safe
 * from another thread than the one that drains (run/stopper.c). */
void session__stop(struct session *s);

/* Whether session__stop() ran: no sample comes any more. */
bool session__stopped(const struct session *s);

/* When session__stop() had stopped sampling (CLOCK_MONOTONIC and
 * CLOCK_REALTIME ns); false before. */
bool session__stop_time(const struct session *s, uint64_t *mono_ns, uint64_t *wall_ns);

/* Hands the generation samples went to so far over to the caller: new
 * samples go to the other one from now on, and by the time this returns
 * no BPF program is still writing to the old one. Returns the old
 * generation (0 or 1), or -errno. */
int session__flip(struct session *s);

/* --control enable/disable, --start-disabled: while disabled the BPF side
 * counts nothing (no sample, no loss, no total). When it returns, no
 * program still counts under the old setting. 0 or -errno. */
int session__set_enabled(struct session *s, bool on);

int session__counts_fd(const struct session *s, int gen);
/* generation gen's stack maps, one per depth class (see struct stack_trace) */
void session__stacks_fds(const struct session *s, int gen, int fds[STACK_CLASSES]);

/* --call-graph auto/dwarf: the maps the unwinder's tables go into. */
int session__unwind_files_fd(const struct session *s);
int session__unwind_procs_fd(const struct session *s);
/* ... and the count of changes to unwind_procs the unwinder moves after each */
volatile __u64 *session__unwind_procs_changes(const struct session *s);

/* The ring of stacks taken before their process's tables (struct
 * early_stack; early.h reads it); -1 when early_stacks() said none. */
int session__early_fd(const struct session *s);
/* What a walk of them reads besides the unwinder's maps: the JIT code
 * found executable, and each process's last exec. */
int session__exec_ranges_fd(const struct session *s);
int session__exec_times_fd(const struct session *s);
/* The BPF side's asks for tables (bpf/maps.bpf.h: unwind_wanted). */
struct unwind_asks {
	int wanted_fd;			/* tgid -> 0 asked, 1 served */
	int queue_fd;			/* the tgids asked, in order, to pop */
	const volatile uint64_t *asked;	/* asks so far (shared memory) */
	const volatile uint64_t *lost;	/* asks the full queue did not take */
};
void session__unwind_asks(const struct session *s, struct unwind_asks *out);

/* A runtime's own maps and words (base/runtime.h): the BPF map name's
 * fd (negative: none), and the .bss variable name's shared memory (NULL:
 * none), so a new runtime needs no accessor here. */
int session__map_fd(const struct session *s, const char *name);
volatile void *session__bss_var(const struct session *s, const char *name);

/* Sums generation gen's per-CPU stats into stats[STAT_MAX] and zeroes them
 * (call only for a generation obtained from session__flip()). */
int session__take_stats(const struct session *s, int gen, uint64_t stats[STAT_MAX]);

/* Since the start, from the never-drained BPF-side counters: every sample
 * (TOTAL_SAMPLES), or every off-CPU microsecond counted (TOTAL_OFFCPU_US). */
int session__total(const struct session *s, enum total_kind kind, uint64_t *total);

/* Samples lost so far in the generation being written, read without
 * draining: in a one-shot run, every loss since the start. */
int session__peek_lost(const struct session *s, uint64_t *lost);

void session__destroy(struct session *s);

#endif
