/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The process tracking budget: per process and per second (of the records'
 * own time), how many mmap and exec records are applied to the process
 * table. Past it, a process's records of that second are counted, not
 * applied, and the process is read again from /proc once the second is
 * over: one process mapping files in a loop costs at most the budget's
 * applies and one /proc read a second, its mappings whole all the same,
 * and the reader stays quick enough to keep up with the kernel's buffers,
 * which every process's records share. The busiest sender is kept, to be
 * named in the summary.
 */
#ifndef BPFPROF_TRACK_BUDGET_H
#define BPFPROF_TRACK_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/config.h"

/* TRACK_BUDGET_PER_SEC (base/config.h), 256: a process starting maps its
 * program and libraries (tens), a JVM or a browser a few hundred at most;
 * a loop that maps files makes thousands. */
#define TRACK_SLOTS		1024	/* processes counted in a second (a power of 2) */
#define TRACK_OVER_MAX		64	/* processes held to their budget in a second */

struct track_sender {
	pid_t pid;
	uint32_t n;	/* records in one second */
};

struct track_budget {
	uint32_t per_sec;
	uint64_t second;	/* of record time: the one being counted */
	struct track_sender slot[TRACK_SLOTS];
	pid_t over[TRACK_OVER_MAX];	/* past the budget in this second */
	size_t nover;
	pid_t due[2 * TRACK_OVER_MAX];	/* ... in seconds over: to read again */
	size_t ndue;
	bool due_all;		/* more than due holds: every process */
	uint64_t skipped;	/* records not applied, since the start */
	struct track_sender busiest;	/* the most records in one second */
};

void track_budget__init(struct track_budget *b, uint32_t per_sec);

/* Whether a record of process pid at time (CLOCK_MONOTONIC ns) is
 * applied: false past pid's budget for that second (counted in skipped;
 * pid is read again once the second is over). */
bool track_budget__take(struct track_budget *b, pid_t pid, uint64_t time);

/* Counts a record the budget does not hold back (a fork, an exit) toward
 * the busiest sender. */
void track_budget__count(struct track_budget *b, pid_t pid, uint64_t time);

/* The processes to read again now (now: CLOCK_MONOTONIC ns): those held
 * back in seconds that are over, into out (2 * TRACK_OVER_MAX); the
 * count, or -1 when they were too many to list: read every process. */
int track_budget__due(struct track_budget *b, uint64_t now, pid_t *out);

#endif
