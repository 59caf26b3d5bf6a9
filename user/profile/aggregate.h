/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The in-memory profile every emitter reads: symbolized stacks with their
 * counts, and what the run lost on the way. Of the four "profile"s, this is
 * struct profile in user/profile/ (the model only); bpf/profile.h is the
 * layouts shared with the BPF side (bpf/profile.bpf.c), profile.proto
 * pprof's format (output/proto/), and render/vprof.h the views' copy. */
#ifndef BPFPROF_AGGREGATE_H
#define BPFPROF_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>
#include "bpf/profile.h"	/* bpf/: the BPF-shared layouts: TASK_COMM_LEN, enum stat_kind */
#include "base/frame_kind.h"	/* pframe.runtime */
#include "base/label_key.h"
#include "profile/stats.h"

struct pframe {
	const char *name;	/* function, or "lib.so+0x1f" / "[unknown]"; interned */
	const char *mapping;	/* file path, "[kernel.kallsyms]", "[vdso]" or ""; interned */
	const char *build_id;	/* hex, "" when unknown; interned */
	const char *file;	/* source file (DWARF), "" when unknown; interned */
	uint32_t line;		/* source line, 0 when unknown */
	uint32_t start_line;	/* its function's first line (Python: the code
				 * object's), 0 when unknown */
	uint64_t addr;		/* the address looked up (a caller's: its call) */
	uint64_t map_start;	/* the mapping holding it, as the process had it */
	uint64_t map_limit;	/* (kernel: the whole address space) */
	uint64_t map_off;	/* file offset of map_start */
	bool kernel;
	bool inlined;		/* inlined into the frame before it, at the same addr */
	uint8_t runtime;	/* enum frame_kind of the runtime whose walker named it
				 * (base/runtime.h: FK_PYTHON "function (file.py:line)"),
				 * FK_USER: none */
	bool jit;		/* code without a file (mapping "[jit]"): named by
				 * its JIT map, or "[JIT]" when the map has none */
};

/* A cgroup samples ran in: its v2 id (bpf/profile.h's stack_key.cgroup)
 * and, once run/ named it, its path under the cgroup v2 mount. */
struct pcgroup {
	uint64_t id;
	const char *path;	/* interned; NULL: not named yet, "": could not be */
	pid_t tgid;		/* a process seen in it: its /proc tells the path */
};

/* Distinct cgroups a profile labels samples with unless --max-cgroups says
 * otherwise; the samples of any further one carry none (counted:
 * profile_stats.cgroups_merged), so a churn of containers cannot grow a
 * profile's label sets without bound. */
#define PROFILE_MAX_CGROUPS	1024

struct psample {
	uint32_t event;		/* index into profile.events */
	char comm[TASK_COMM_LEN];
	pid_t tgid, pid;
	const struct pcgroup *cgroup;	/* NULL: none (id 0, or past the cap) */
	uint64_t count;		/* in the event's unit, scaled */
	uint64_t raw;		/* as counted by the BPF side */
	uint32_t nframes;
	/* root (outermost) first: the profile's frames (profile.frames),
	 * each distinct frame once however many stacks hold it */
	const struct pframe **frames;
};

/* What an event's samples measure: what pprof, OTLP and Pyroscope call
 * them (output/sample_kind.h). */
enum pevent_kind {
	PEVENT_COUNT,		/* hits of an event: page faults, a tracepoint... */
	PEVENT_CPU,		/* on-CPU time: samples of a clock event */
	PEVENT_OFFCPU,		/* time blocked: counts in microseconds */
};

/* What one event's counts are. */
struct pevent {
	char name[128];		/* the root frame when there are several */
	const char *unit;	/* "count" (samples) or "microseconds" */
	uint64_t scale;		/* each counted unit is worth this many units (0: 1) */
	enum pevent_kind kind;
	uint64_t period;	/* PEVENT_CPU: the nanoseconds a sample stands for;
				 * PEVENT_COUNT: the hits a sample stands for
				 * (-c N; 1: every hit); 0: not known (a
				 * counter at -F Hz, whose period the kernel
				 * varies) */
};

/* A set of pointers: open addressing, linear probing (aggregate.c). */
struct pset {
	void **slots;		/* NULL: free */
	size_t cap, n;		/* cap: a power of two, at most half full */
};

struct profile {
	struct pevent events[MAX_EVENTS];
	int nevents;
	struct psample *samples;
	size_t nsamples, cap;
	struct pset names;		/* the strings frames point to, once each */
	struct pset owned;		/* the same copies by address: a frame that
					 * points at one already (profile__intern())
					 * is not hashed again */
	struct pset frames;		/* the frames samples point to, once each */
	struct pset cgroups;		/* the cgroups samples point to, by id */
	size_t max_cgroups;		/* at most this many (0: PROFILE_MAX_CGROUPS) */
	unsigned int labels_off;	/* enum label_bit: the labels pprof leaves out */
	enum group_by group_by;		/* the root frame folded stacks and pages add */
	struct profile_stats stats;
};

struct profile *profile__new(void);
void profile__free(struct profile *p);

/* The profile's own copy of s (NULL: ""), made on first sight; it lives
 * as long as p. NULL when out of memory. */
const char *profile__intern(struct profile *p, const char *s);

/* Adds one stack of an event: frames root first, copied (interned, their
 * strings too), count scaled by the event's scale; cgroup_id: the cgroup it
 * ran in (0: none). Returns 0 or -ENOMEM. */
int profile__add(struct profile *p, uint32_t event, const char *comm, pid_t tgid, pid_t pid,
		 uint64_t cgroup_id, uint64_t count, const struct pframe *frames,
		 uint32_t nframes);

/* Calls fn for each cgroup the samples point to; the first non-zero it
 * returns stops the walk and is returned. */
int profile__each_cgroup(struct profile *p, int (*fn)(struct pcgroup *cg, void *arg), void *arg);

/* Adds src's samples and stats to dst, a profile of the same events: the
 * run's profile so far across drains (--control snapshot). dst keeps its
 * start time; durations add up. Returns 0 or -ENOMEM. */
int profile__merge(struct profile *dst, const struct profile *src);

/* Sum of all sample counts (as counted by the BPF side, before scaling). */
uint64_t profile__total(const struct profile *p);

/* The same for one event. */
uint64_t profile__event_total(const struct profile *p, uint32_t event);

/* Samples lost by the BPF side, all reasons together. */
uint64_t profile__lost(const struct profile *p);

#endif
