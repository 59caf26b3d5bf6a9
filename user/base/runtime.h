/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A runtime whose frames bpfprof walks and names (CPython today): the one
 * interface each implements, as a row of user/runtimes/runtimes.c's table,
 * through which the driver (run/) and the naming stage (symbols/) reach it.
 * Its BPF walker is called from bpf/runtimes.bpf.h; its frames are two
 * slots of a user stack (bpf/runtimes.h) whose second word carries its id;
 * its frames' kind is a row of base/frame_kind.c.
 *
 * Everything the rest of bpfprof knows of a runtime is in its row: the
 * option that turns it off (cli/), its BPF maps by name (sampling/), why
 * its frames stay unnamed (the summary), its counters (profile/counters.c
 * registers each row's group), its frame kind (base/frame_kind.c). Rooms
 * below runtimes/ read the rows through runtime_rows.
 *
 * A new runtime: its folder (user/NAME/ with its row), its walker
 * (bpf/NAME.bpf.h, called from bpf/runtimes.bpf.h), an id (bpf/runtimes.h),
 * its row in runtimes.c's table and its kind's in frame_kind.c's;
 * tools/check_runtimes.sh (make layers) says no other file names it.
 */
#ifndef BPFPROF_RUNTIME_H
#define BPFPROF_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/frame_kind.h"
#include <linux/types.h>
#include "bpf/profile.h"	/* RUNTIME_MAX */

struct counter_group;
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

/* A BPF map of a runtime's walker: its entries when the runtime is on
 * (one when it is off: the map is kept, its memory not). */
struct runtime_map {
	const char *name;
	unsigned int entries;
};

struct runtime_ops {
	const char *name;		/* "python" */
	enum frame_kind kind;		/* its frames' row of base/frame_kind.c */
	/* the executable whose code without a file is its JIT's ("node"):
	 * frames a JIT map names are its kind's in OTLP too; NULL: none */
	const char *exe;
	/* the option that turns it off ("no-python") and its usage line;
	 * NULL: always on */
	const char *off_option, *off_usage;
	/* its walker needs the unwinder's tables (auto, dwarf: off with
	 * --call-graph fp) */
	bool needs_tables;
	const struct runtime_map *maps;	/* its walker's maps, NULL-ended; NULL: none */
	/* a frame it could not name, counted under unnamed[UNNAMED_RUNTIME +
	 * its id]: the summary's words and JSON key (NULL: it names them all) */
	const char *unnamed_text, *unnamed_key;
	/* its counters (profile/counters.h): the JSON object and -v line */
	const struct counter_group *counters;
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
	/* Its counts (processes found, what it could not read) into ps
	 * (ps->runtime_counts[its id], read by its counters). */
	void (*stats)(const void *rt, struct profile_stats *ps);
};

/* The rows, at their ids (bpf/runtimes.h): runtimes/runtimes.c's table. */
extern const struct runtime_ops *const runtime_rows[RUNTIME_MAX];

#endif
