/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The runtimes' walkers, called from here only: the native unwinder
 * (stack.bpf.h) starts each sample's walks, asks before each native frame
 * whether a runtime's frames go first (each is recorded as two slots,
 * bpf/runtimes.h), and the process programs (profile.bpf.c) forget what a
 * runtime kept of a thread or process that ended or exec'd. A new
 * runtime's walker is included here and called from each function.
 *
 * Included by profile.bpf.c after hash_step() and the stats map.
 */
#ifndef BPFPROF_RUNTIMES_BPF_H
#define BPFPROF_RUNTIMES_BPF_H

/* The runtimes user space turned on: bit 1 << id (bpf/runtimes.h). */
const volatile __u32 runtimes_on = 0;

/* The native unwinder's registers, as a runtime's step reads and moves them. */
struct runtime_regs {
	__u64 ip, sp, bp;
};

#include "python.bpf.h"
#include "v8.bpf.h"
#include "hotspot.bpf.h"

/* A sample's walk begins: each runtime looks up the process's facts. */
static __always_inline void runtimes_begin(__u32 tgid, __u64 start_time)
{
	py_begin(tgid, start_time, runtimes_on & 1u << RUNTIME_PYTHON);
	v8_begin(tgid, start_time);
	hs_begin(tgid, start_time);
}

/* Python's step, verified once on its own (a global function) rather than
 * for every state the native step reaches it in: inlined, it made the
 * program 5x costlier to verify (257k instructions against 40k). */
__noinline int py_step_once(struct py_walk *w, struct stack_trace *st, __u64 *hash, __u32 g)
{
	if (!w || !st || !hash)
		return 0;
	return py_step(w, st, hash, g);
}

/* Before the native frame at pc is recorded: one frame of a runtime that
 * runs there, recorded into st; true: the unwinder calls again at its next
 * loop step (a runtime's frames one per step: a loop of their own would be
 * too much for the verifier), then records the native frame. */
static __always_inline bool runtimes_frame_before(struct py_walk *w, __u64 pc,
						  struct stack_trace *st, __u64 *hash, __u32 g)
{
	if (!w->done && py_in_eval(w, pc) && py_step_once(w, st, hash, g))
		return true;
	w->done = 0;
	return false;
}

/* The native frame at pc (its frame pointer fp) is a runtime's frame:
 * recorded into st as that runtime's two slots instead (true), and the
 * unwinder steps out of it as out of any frame. */
static __always_inline bool runtimes_frame_instead(__u64 pc, __u64 fp, struct stack_trace *st,
						   __u64 *hash, __u32 g)
{
	return v8_frame_instead(pc, fp, st, hash, g) || hs_frame_instead(pc, fp, st, hash);
}

/* The step out of the frame at pc in anonymous executable memory (JIT
 * code), when a runtime knows its frames there: 0 (r moved to the
 * caller's) or a STAT_UNWIND_* stop, true; false: the frame-pointer step. */
static __always_inline bool runtimes_step(struct runtime_regs *r, __u64 pc, __u32 *stop)
{
	int ret = hs_step(r, pc);

	if (ret == HS_NOT_MINE)
		return false;
	*stop = (__u32)ret;
	return true;
}

/* The sample's process is one a runtime walks: its frames are read now or
 * never, so no copy of its stack is kept for later (early.bpf.h). */
static __always_inline bool runtimes_walked(const struct py_walk *w)
{
	const struct v8_walk *v = v8_walk_get();
	const struct hs_walk *h = hs_walk_get();

	return (w && w->eval_start) || (v && v->on) || (h && h->on);
}

/* A thread ended. */
static __always_inline void runtimes_forget_thread(__u32 tid)
{
	bpf_map_delete_elem(&py_threads, &tid);
}

/* A process ended or exec'd: the new image is not the one user space
 * found a runtime in. */
static __always_inline void runtimes_forget_proc(__u32 tgid)
{
	bpf_map_delete_elem(&py_procs, &tgid);
	bpf_map_delete_elem(&v8_procs, &tgid);
	bpf_map_delete_elem(&hs_procs, &tgid);
}

#endif
