/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JIT symbol maps: /tmp/perf-PID.map, one "START SIZE NAME" line per
 * generated function (hex, with or without 0x, as Node's --perf-basic-prof,
 * perf-map-agent, newer JDKs, LuaJIT and .NET write them). The file grows
 * while the process runs: bytes are fed in as they appear, a line counts
 * once it is complete. The file is the process's user's to write: hostile
 * input, opened only if it is that user's, held within a byte budget.
 */
#ifndef BPFPROF_PERFMAP_H
#define BPFPROF_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "procs/procs.h"

struct perfmap;

/* What all JIT maps together may hold, in bytes (--jit-map-mem), shared by
 * the maps of a run, and what one map may hold of it (share): a map that
 * would go past either is cut short (its further lines counted, not kept),
 * so one process's map, however long, leaves the rest of the budget to the
 * others. held counts what each map has allocated or set aside for its
 * index; 0 cap: no bound; 0 share: a map may take all of cap. */
struct perfmap_budget {
	size_t cap;
	size_t share;
	size_t held;
};

/* A process's map may hold a quarter of --jit-map-mem (16 MiB of 64). */
#define PERFMAP_SHARES		4

/* A map drawing on budget (which must outlive it). */
struct perfmap *perfmap__new(struct perfmap_budget *budget);
void perfmap__free(struct perfmap *pm);

/* Feeds the next len bytes of the file: complete lines are added, a last
 * incomplete one is kept for the next call. Malformed lines (missing or
 * non-hex fields, size 0, a range past the address space, no name, longer
 * than PERFMAP_LINE_MAX) are skipped and counted, as are well-formed lines
 * the budget has no room for. Returns 0 or -ENOMEM. */
int perfmap__feed(struct perfmap *pm, const char *buf, size_t len);

#define PERFMAP_LINE_MAX	4096
#define PERFMAP_READ_MAX	(64 << 20)	/* bytes read per call */

/* Reads what fd holds past what was read from it before (by this perfmap:
 * the file only grows), at most PERFMAP_READ_MAX bytes a call: a huge or
 * sparse file takes bounded time per turn. Returns 0 or -errno. */
int perfmap__read_fd(struct perfmap *pm, int fd);

/* The function covering addr; when entries overlap (code regenerated at the
 * same place), the one written last. NULL when none. A binary search over
 * disjoint ranges (built when lines were added since the last lookup): no
 * entry, however long or overlapping, makes a lookup slower. */
const char *perfmap__lookup(struct perfmap *pm, uint64_t addr);

size_t perfmap__count(const struct perfmap *pm);
size_t perfmap__malformed(const struct perfmap *pm);
/* Well-formed lines skipped because the budget was spent: the map was cut
 * short after perfmap__count() entries. */
size_t perfmap__over_cap(const struct perfmap *pm);
/* ... and which limit cut it: its own share (true) or all maps' cap. */
bool perfmap__cut_by_share(const struct perfmap *pm);

/* Why an opened map (st: its fstat) is refused, into why (empty: taken).
 * A map must be a regular file with one link (a hard link could be any
 * file of its owner, or of root), owned by the process's user (its real or
 * effective uid, learnt while it ran: "owner unknown" if never); root's
 * file only for a process of root's. */
void perfmap__refusal(const struct stat *st, const struct proc_owner *owner, char *why,
		      size_t size);

/* Opens the map of process tgid that started at start_time (CLOCK_MONOTONIC
 * ns), whose owner as learnt while it ran is known (procs__owner()): while
 * it runs (alive) and its pid is still its own, through its own root and
 * its pid in its own namespace (/proc/TGID/root/tmp/perf-NSPID.map), its
 * user read again (it may have changed); else /tmp/perf-TGID.map against
 * the owner known. Never through a symbolic link, checked before it is
 * opened (a FIFO, a device node are never opened). Returns an fd, or
 * -errno: -EPERM when refused, the reason in why (see perfmap__refusal();
 * "a symbolic link", "not a regular file") and the path in the process's
 * root in path. */
int perfmap__open(pid_t tgid, uint64_t start_time, bool alive, const struct proc_owner *known,
		  char *path, size_t path_size, char *why, size_t why_size);

#endif
