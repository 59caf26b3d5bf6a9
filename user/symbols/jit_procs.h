/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The JIT maps of profiled processes, one per process incarnation: opened
 * while the process runs and kept open, so its functions are still named
 * after it exits (even from another mount namespace), re-read as they grow. */
#ifndef BPFPROF_JIT_PROCS_H
#define BPFPROF_JIT_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct jit_procs;

/* mem_cap: the bytes all maps together may hold (0: no bound); one
 * process's map holds at most a share of it (PERFMAP_SHARES). */
struct jit_procs *jit_procs__new(size_t mem_cap);
void jit_procs__free(struct jit_procs *jp);

struct proc_owner;

/* The JIT function covering addr in that process, or NULL. Its map is
 * opened if it was not yet, checked against owner (procs__owner(): whose
 * the process is, learnt while it ran), and read once per turn. Valid
 * until the next jit_procs__next_turn(). */
const char *jit_procs__lookup(struct jit_procs *jp, pid_t tgid, uint64_t start_time, bool alive,
			      const struct proc_owner *owner, uint64_t addr);

/* A new turn: every map may be re-read once more. The maps of processes
 * is_drained() says have no sample left to name (procs__drained()) are
 * dropped, their fds closed. */
void jit_procs__next_turn(struct jit_procs *jp, bool (*is_drained)(void *ctx, pid_t tgid,
								    uint64_t start_time),
			  void *ctx);

size_t jit_procs__count(const struct jit_procs *jp);

/* Since the start: lines of all maps skipped, malformed, and well-formed
 * but past a process's share or past all maps' byte cap (perfmap.h); maps
 * refused (not the process's own: each said once, with its reason). */
struct jit_skips {
	uint64_t malformed;
	uint64_t over_share;	/* past the process's share of the cap */
	uint64_t over_cap;	/* past the cap of all maps */
	uint64_t refused;
	pid_t share_spent_by;	/* the process with most lines past its share */
	uint64_t share_spent_lines;	/* ... how many */
};

void jit_procs__skipped(const struct jit_procs *jp, struct jit_skips *out);

#endif
