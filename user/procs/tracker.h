/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Process tracking while sampling: the kernel's own fork/exec/exit and
 * executable-mmap records (as perf record keeps them), read from a dummy
 * perf event on every CPU and applied to the process table. Records per
 * mmap and per process, never per sample.
 */
#ifndef BPFPROF_TRACKER_H
#define BPFPROF_TRACKER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct procs;
struct tracker;

/* Starts tracking into procs. prompt: wake the reader at every record (a
 * new process's unwind tables are then loaded within milliseconds), not
 * when a buffer is a quarter full. Returns 0 or -errno, with a message
 * printed. */
int tracker__start(struct procs *procs, bool prompt, struct tracker **out);

/* An fd that polls readable when records are waiting. */
int tracker__fd(const struct tracker *t);

/* Reads every waiting record and applies them in time order. */
int tracker__consume(struct tracker *t);

/* Records the kernel dropped because a buffer was full. */
uint64_t tracker__lost(const struct tracker *t);

/* Since the start: records of a process past its budget a second
 * (track_budget.h), not applied (the process read again from /proc), and
 * the busiest sender, set once records were skipped or lost: its pid, its
 * most records in one second, its comm as it was then (raw: whoever runs
 * the process names it; escape it before it is shown). */
struct track_flood {
	uint64_t skipped;
	pid_t pid;
	uint32_t per_sec;
	char comm[16];
};

void tracker__flood(const struct tracker *t, struct track_flood *out);

void tracker__free(struct tracker *t);

#endif
