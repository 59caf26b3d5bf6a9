/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A runtime whose frames bpfprof walks and names (CPython today): the one
 * interface each implements, as a row of user/runtimes/runtimes.c's table,
 * through which the driver (run/) and the naming stage (symbols/) reach it.
 * Its BPF walker is called from bpf/runtimes.bpf.h; its frames are two
 * slots of a user stack (bpf/runtimes.h) whose second word carries its id;
 * its frames' kind is a row of base/frame_kind.c.
 *
 * A new runtime: its folder (user/NAME/ with its ops), its walker
 * (bpf/NAME.bpf.h, called from bpf/runtimes.bpf.h), an id (bpf/runtimes.h),
 * a row in runtimes.c and in frame_kind.c, and its counters group.
 */
#ifndef BPFPROF_RUNTIME_H
#define BPFPROF_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/frame_kind.h"

struct procs;
struct profile_stats;
struct session;

/* Where a runtime frame's code is: its source file ("" or NULL: not
 * known), the line running and its function's first line (0: not known). */
struct runtime_where {
	const char *file;
	uint32_t line, first_line;
};

/* What a runtime made of an address in memory no file backs (JIT code). */
enum runtime_code {
	RUNTIME_CODE_NOT_MINE,	/* not its code: the JIT map's, or [JIT] */
	RUNTIME_CODE_NAMED,
	RUNTIME_CODE_UNNAMED,	/* its code, which it could not read */
};

struct runtime_ops {
	const char *name;		/* "python" */
	enum frame_kind kind;		/* its frames' row of base/frame_kind.c */
	uint8_t unnamed_reason;		/* enum unnamed of a frame it could not name */
	/* its frames' tagged slot carries the native code address
	 * (RUNTIME_PC): a name a JIT's map gives that address wins, so the
	 * runtime's own map (node --perf-basic-prof) and its walker never
	 * disagree */
	bool pc_first;
	/* Its state, on the session's BPF maps (NULL: out of memory);
	 * freed by free (NULL: nothing). */
	void *(*start)(struct session *s);
	void (*free)(void *rt);
	/* Detects the runtime in tgid, whose mappings changed (by its
	 * mappings or symbols), and writes the facts its BPF walker needs. */
	void (*sync_proc)(void *rt, struct procs *procs, pid_t tgid);
	/* Reads what the samples since the last call need (code objects...)
	 * while their processes live. */
	void (*poll)(void *rt);
	/* Names the frame of the process (tgid, start_time) whose slots are
	 * slot (tagged) and word (RUNTIME_PAYLOAD of the second): false when
	 * it cannot (never read, or not this runtime's). */
	bool (*name_frame)(const void *rt, pid_t tgid, uint64_t start_time, uint64_t slot,
			   uint64_t word, char *name, size_t size, struct runtime_where *where);
	/* Names pc, an address of the process (tgid, start_time) in memory no
	 * file backs, when it is this runtime's code (a JIT's that keeps no
	 * map: HotSpot's code cache). NULL: a runtime without such code. */
	enum runtime_code (*name_code)(void *rt, pid_t tgid, uint64_t start_time, uint64_t pc,
				       char *name, size_t size);
	/* The name of a frame it could not name ("[python code 0x...]"). */
	void (*unnamed)(uint64_t slot, uint64_t word, char *name, size_t size);
	/* After a turn's frames are named, before procs__reap(): what it
	 * keeps of processes gone is let go. */
	void (*trim)(void *rt, struct procs *procs);
	/* Its counts (processes found, what it could not read) into ps. */
	void (*stats)(const void *rt, struct profile_stats *ps);
};

#endif
