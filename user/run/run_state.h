/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Everything one run owns, and what the run's files (run.c: the loop and
 * the end; setup.c; command.c: the `-- cmd`; collect.c: each interval's
 * profile; control_cmds.c) call of each other, none back into run.c. Only
 * user/run/ includes it. */
#ifndef BPFPROF_RUN_STATE_H
#define BPFPROF_RUN_STATE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "base/config.h"
#include "sampling/control.h"
#include "run/progress.h"
#include "procs/target.h"

struct profile;

struct run {
	const struct config *cfg;
	struct output *out;
	sigset_t old_mask;
	int sig_fd;
	struct command cmd;
	bool have_cmd;
	struct session *session;
	struct procs *procs;
	struct files *files;		/* the registry of mapped files */
	struct tracker *tracker;
	struct collector *collector;
	struct unwinder *unwinder;	/* --call-graph auto, dwarf */
	struct runtimes *rts;		/* runtimes' frames (auto, dwarf; --no-python...) */
	struct early_walks *early;	/* stacks copied before their tables (auto, dwarf) */
	uint64_t *pid_starts;		/* -p pids' start times (id_start_ticks()) */
	uint64_t pids_checked_ns;	/* when they were last read from /proc */
	uint64_t *tid_starts;		/* -t tids' */
	pid_t *roots;			/* whose tables to load: -p pids, the command */
	int nroots;
	uint64_t start_ns;		/* CLOCK_MONOTONIC, sampling began */
	uint64_t interval_ns;		/* the current interval began */
	uint64_t interval_wall_ns;	/* the same, CLOCK_REALTIME */
	uint64_t due_ns;		/* when it ends: start + k * the interval */
	uint64_t tracking_lost;		/* reported so far */
	uint64_t tracking_skipped;	/* ... past a process's budget */
	size_t vmas_pruned, vmas_forgotten;	/* procs' totals at the last collect */
	const char *stop_reason;
	struct progress progress;
	struct control *control;	/* --control's FIFO (if any), SIGUSR1 */
	struct profile *so_far;		/* drained before the end, after a snapshot */
	uint64_t cleared;		/* samples dropped by clear */
	unsigned long commands;		/* carried out (--control, SIGUSR1) */
	struct top_live *top;		/* bpfprof top */
	struct stopper *stopper;	/* stops sampling while the loop is busy */
	bool finishing;			/* the final profile is being written */
	bool kmem_said;			/* kernel bytes unreadable: said once */
};

static inline uint64_t run__wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* setup.c: -p/-t ids known by their start times; the BPF side loaded; the
 * processes tracked; sampling started. Each 0 or -errno. */
int run__check_pids(struct run *r);
int run__load(struct run *r);
int run__start_tracking(struct run *r);
int run__start(struct run *r);

/* command.c: the `-- cmd`, spawned held before its exec; its tables
 * preloaded; released; ended (SIGKILL after --kill-after, said). */
int run__spawn_command(struct run *r);
void run__preload_command(struct run *r);
int run__release_command(struct run *r);
void run__end_command(struct run *r);

/* collect.c: everything since the last one, drained and symbolized (a new
 * interval begins); and the same written (with what a snapshot drained). */
int run__collect(struct run *r, struct profile **out);
int run__write_profile(struct run *r, const char *why);

/* control_cmds.c: one turn of commands (--control's FIFO, SIGUSR1's
 * snapshots), each said with the BPF side's total. */
int run__control_input(struct run *r);

#endif
