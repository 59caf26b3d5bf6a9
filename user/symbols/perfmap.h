/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JIT symbol maps: /tmp/perf-PID.map, one "START SIZE NAME" line per
 * generated function (hex, with or without 0x, as Node's --perf-basic-prof,
 * perf-map-agent, newer JDKs, LuaJIT and .NET write them). The file grows
 * while the process runs: bytes are fed in as they appear, a line counts
 * once it is complete.
 */
#ifndef BPFPROF_PERFMAP_H
#define BPFPROF_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perfmap;

struct perfmap *perfmap__new(void);
void perfmap__free(struct perfmap *pm);

/* Feeds the next len bytes of the file: complete lines are added, a last
 * incomplete one is kept for the next call. Malformed lines (missing or
 * non-hex fields, size 0, a range past the address space, no name, longer
 * than PERFMAP_LINE_MAX) are skipped and counted, as are lines past
 * PERFMAP_MAX_BYTES of entries held. Returns 0 or -ENOMEM. */
int perfmap__feed(struct perfmap *pm, const char *buf, size_t len);

#define PERFMAP_LINE_MAX	4096
#define PERFMAP_MAX_BYTES	(32u << 20)	/* entries and names kept per map */
#define PERFMAP_READ_MAX	(64 << 20)	/* bytes read per call */

/* Reads what fd holds past what was read from it before (by this perfmap:
 * the file only grows), at most PERFMAP_READ_MAX bytes a call: a huge or
 * sparse file takes bounded time per turn. Returns 0 or -errno. */
int perfmap__read_fd(struct perfmap *pm, int fd);

/* The function covering addr; when entries overlap (code regenerated at the
 * same place), the one written last. NULL when none. */
const char *perfmap__lookup(struct perfmap *pm, uint64_t addr);

size_t perfmap__count(const struct perfmap *pm);
size_t perfmap__malformed(const struct perfmap *pm);
/* Well-formed lines skipped because the map held PERFMAP_MAX_BYTES. */
size_t perfmap__over_cap(const struct perfmap *pm);

/* Opens the map of process tgid: through its own root and its pid in its
 * own namespace (/proc/TGID/root/tmp/perf-NSPID.map) while it runs (alive),
 * else /tmp/perf-TGID.map. Returns an fd or -errno. */
int perfmap__open(pid_t tgid, bool alive);

#endif
