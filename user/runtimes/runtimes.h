/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The runtimes' table (one row each, base/runtime.h) and the loops the
 * driver and the naming stage call instead of any one runtime: started
 * with the session, told of each process whose mappings changed, polled,
 * trimmed and counted, and asked to name the runtime frames of a stack.
 */
#ifndef BPFPROF_RUNTIMES_H
#define BPFPROF_RUNTIMES_H

#include <stdint.h>
#include <sys/types.h>

#include "base/frame_kind.h"
#include "bpf/profile.h"	/* enum runtime_id */

struct procs;
struct profile_stats;
struct pframe;
struct session;
struct runtimes;

/* The runtimes whose bit (1u << RUNTIME_*) is in on, on the session's
 * maps; NULL when none is on (*err 0) or out of memory (*err -ENOMEM). */
struct runtimes *runtimes__new(struct session *s, unsigned int on, int *err);
void runtimes__free(struct runtimes *rts);

/* tgid's mappings changed: each runtime looks for itself in them. */
void runtimes__sync_proc(struct runtimes *rts, struct procs *procs, pid_t tgid);
void runtimes__poll(struct runtimes *rts);
void runtimes__trim(struct runtimes *rts, struct procs *procs);
void runtimes__stats(const struct runtimes *rts, struct profile_stats *ps);

/* The frame whose second slot is word is one whose tagged slot carries
 * its native code address (RUNTIME_PC): a JIT map's name for it wins. */
bool runtimes__pc_first(uint64_t word);

/* The runtime frame whose two slots are slot (RUNTIME_IS_FRAME) and word,
 * of the process (tgid, start_time), into *f: named by its runtime (name
 * written into buf), or named as not read; counted in st either way. */
void runtimes__frame(const struct runtimes *rts, pid_t tgid, uint64_t start_time, uint64_t slot,
		     uint64_t word, char *buf, size_t size, struct pframe *f,
		     struct profile_stats *st);

/* pc, in memory no file backs, of the process (tgid, start_time): named
 * into buf by the runtime whose code it is; returns that runtime's frame
 * kind, FK_USER when no runtime's. Counted in st per address. */
enum frame_kind runtimes__code(const struct runtimes *rts, pid_t tgid, uint64_t start_time,
			       uint64_t pc, char *buf, size_t size, struct profile_stats *st);

#endif
