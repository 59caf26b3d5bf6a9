/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Process lifetimes and their executable mappings, kept while profiling so
 * that a process that exits before the end is still symbolized. Fed by the
 * tracker (fork/exec/mmap/exit records) and by /proc/PID/maps for the
 * processes that were already running.
 */
#ifndef BPFPROF_PROCS_H
#define BPFPROF_PROCS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vma {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint64_t time;		/* CLOCK_MONOTONIC ns when it was seen mapped */
	char *path;		/* "" for anonymous memory, "[vdso]"... */
};

struct procs;

struct procs *procs__new(void);
void procs__free(struct procs *p);

/* Records from the tracker; time is CLOCK_MONOTONIC in ns. Each returns 0
 * or -ENOMEM. */
int procs__mmap(struct procs *p, pid_t tgid, const struct vma *v);
int procs__exec(struct procs *p, pid_t tgid, uint64_t time);
int procs__fork(struct procs *p, pid_t parent, pid_t child, uint64_t time);
int procs__exit(struct procs *p, pid_t tgid, uint64_t time);

/* Reads the executable mappings of a running process from /proc/TGID/maps.
 * Returns 0, -ENOENT when it is gone, or -errno. */
int procs__synthesize(struct procs *p, pid_t tgid);

/* procs__synthesize() for every process in /proc. Returns how many were read. */
int procs__synthesize_all(struct procs *p);

/* The newest mapping of tgid covering addr, or NULL. A process never seen
 * starting nor read before is read from /proc first, while it runs. */
const struct vma *procs__find(struct procs *p, pid_t tgid, uint64_t addr);

/* False once the process's exit was seen: its /proc entry, if any, is
 * someone else's now. */
bool procs__alive(const struct procs *p, pid_t tgid);

/* CLOCK_MONOTONIC now, in ns: the tracker's clock. */
uint64_t procs__now(void);

#endif
