/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-stage timers of a sample (`make bench`, part 2): compiled in only
 * when BPFPROF_STAGE_TIMERS is defined (tools/bench/bench.mk builds a
 * bpfprof of its own with them); otherwise every mark is nothing. A mark
 * adds the time since the last mark to its stage, then reads the clock
 * again, so the bookkeeping between two clock reads is not any stage's.
 * STAGE_CLOCK times two marks with nothing between them: what one mark
 * itself adds to the stage after it, for the bench to take off.
 */
#ifndef BPFPROF_STAGE_TIMER_BPF_H
#define BPFPROF_STAGE_TIMER_BPF_H

/* The order bench.sh prints them in (tools/bench/bench.sh, STAGE_NAMES). */
enum sample_stage {
	STAGE_CLOCK,		/* an empty stage: one mark's own cost */
	STAGE_ENTRY,		/* filters, identity, comm, cgroup, exec time, totals */
	STAGE_KSTACK,		/* the kernel stack (bpf_get_stack) and its hash */
	STAGE_PROC,		/* the process's entry: lookup, copy to the slot, ask */
	STAGE_RUNTIME_BEGIN,	/* the runtimes' per-sample start (runtimes_begin: Python's py_begin) */
	STAGE_WALK,		/* the user walk's start and end (bpf_loop's own, the last step's tail) */
	STAGE_WALK_LOOP,	/* a step: its call by bpf_loop, its slots, the last step's tail */
	STAGE_WALK_PY,		/* a step: Python's eval range check (and its frames) */
	STAGE_WALK_MAPPING,	/* a step: the mapping covering pc */
	STAGE_WALK_JIT,		/* a step: anonymous executable memory (JIT), the frame recorded */
	STAGE_WALK_ROW,		/* a step: the CFI row by its page index and a search in the page (the hint missed) */
	STAGE_WALK_STEP,	/* a step: the row's or frame pointer's step (stack reads) */
	STAGE_FP_USTACK,	/* the user stack by frame pointers (fp mode, or fallback) */
	STAGE_EARLY,		/* whether to copy early, and the copy */
	STAGE_WALK_STATS,	/* the walk's end and notes counted */
	STAGE_STORE,		/* both stacks into the stack maps */
	STAGE_COUNTS,		/* the counts map's update */
	STAGE_WALK_ROW_HINT,	/* a step: the CFI row by its hint */
	STAGE_MAX,
};

#ifdef BPFPROF_STAGE_TIMERS
struct stage_total {
	__u64 ns;
	__u64 calls;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAGE_MAX);
	__type(key, __u32);
	__type(value, struct stage_total);
} stage_ns SEC(".maps");

/* the last mark's clock, one per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} stage_clock SEC(".maps");

static __always_inline void stage_start(void)
{
	__u32 zero = 0;
	__u64 *last = bpf_map_lookup_elem(&stage_clock, &zero);

	if (last)
		*last = bpf_ktime_get_ns();
}

static __always_inline void stage_mark(__u32 stage)
{
	__u64 now = bpf_ktime_get_ns(), *last;
	__u32 zero = 0;
	struct stage_total *t;

	last = bpf_map_lookup_elem(&stage_clock, &zero);
	t = bpf_map_lookup_elem(&stage_ns, &stage);
	if (!last)
		return;
	if (t) {
		t->ns += now - *last;
		t->calls++;
	}
	*last = bpf_ktime_get_ns();
}
#else
static __always_inline void stage_start(void)
{
}

static __always_inline void stage_mark(__u32 stage)
{
	(void)stage;
}
#endif

#endif
