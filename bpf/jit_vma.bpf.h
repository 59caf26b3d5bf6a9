/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Anonymous executable memory no mapping of a process's unwind entry
 * describes (JIT code: V8's, HotSpot's), for the frame-pointer steps of
 * stack.bpf.h: is an address in it? bpf_find_vma() says, once per program
 * run (with interrupts off its mmap unlock waits for an irq_work); what it
 * found is kept for the walk (the per-CPU slot) and for the process
 * (exec_ranges).
 * Included by stack.bpf.h after proc_slot().
 */
#ifndef BPFPROF_JIT_VMA_BPF_H
#define BPFPROF_JIT_VMA_BPF_H

#define VM_EXEC_FLAG	0x4ull	/* VM_EXEC, include/linux/mm.h */

struct exec_vma {
	__u64 start, end;
};

static long vma_exec_cb(struct task_struct *task, struct vm_area_struct *vma,
			struct exec_vma *found)
{
	(void)task;
	/* a file's mapping is no JIT code: an entry written before ld.so's
	 * mmaps were read (the first frame then goes to user space to be
	 * walked when the entry has it), never frame pointers through a
	 * library built without them */
	if ((BPF_CORE_READ(vma, vm_flags) & VM_EXEC_FLAG) && !BPF_CORE_READ(vma, vm_file)) {
		found->start = BPF_CORE_READ(vma, vm_start);
		found->end = BPF_CORE_READ(vma, vm_end);
	}
	return 0;
}

/* pc lies in anonymous executable memory of the current task: code the
 * process entry does not list (JIT code, often made executable by
 * mprotect(), which no mmap record reports). The VMA found is kept for
 * the walk's next frames: with interrupts off only one bpf_find_vma() per
 * program run succeeds (its mmap unlock waits for an irq_work), and JIT
 * frames mostly share one region. */
static __always_inline bool in_known_range(const struct exec_ranges *r, __u64 pc,
					   struct unwind_proc *pr)
{
	for (int i = 0; i < EXEC_RANGES; i++)
		if (pc >= r->start[i] && pc < r->end[i]) {
			pr->exec_start = r->start[i];
			pr->exec_end = r->end[i];
			return true;
		}
	return false;
}

/* The slot a range found goes into: the one holding a range that starts
 * where it does (the same mapping, maybe grown), else a free one, else the
 * oldest taken. Not by address: HotSpot's code heap segments (interpreter
 * and stubs, C1's, C2's) can share any few bits of their start, and a walk
 * through all three needs all three kept. */
static __always_inline __u32 range_slot(struct exec_ranges *r, __u64 start)
{
	__u32 free = EXEC_RANGES;

	for (__u32 i = 0; i < EXEC_RANGES; i++) {
		if (r->start[i] == start && r->end[i])
			return i;
		if (!r->end[i] && free == EXEC_RANGES)
			free = i;
	}
	if (free < EXEC_RANGES)
		return free;
	return r->next++ & (EXEC_RANGES - 1);
}

/* A mapping found goes into the process's ranges. */
static __always_inline void keep_range(__u32 tgid, struct exec_ranges *r, const struct exec_vma *v)
{
	struct exec_ranges fresh = { 0 };
	__u32 i;

	if (!r) {
		bpf_map_update_elem(&exec_ranges, &tgid, &fresh, BPF_NOEXIST);
		r = bpf_map_lookup_elem(&exec_ranges, &tgid);
		if (!r)
			return;
	}
	i = range_slot(r, v->start) & (EXEC_RANGES - 1);
	r->start[i] = v->start;
	r->end[i] = v->end;
}

/* A global function, verified once on its own: inlined into the walk's
 * step, its unrolled loops over the ranges were verified in every state
 * the step reached them in (41k of the sample program's 126k
 * instructions verified, most of its 0.23 s at load). */
__noinline int in_exec_vma(__u64 pc)
{
	struct unwind_proc *pr = proc_slot();
	struct exec_vma found = { 0 };	/* a helper's context is on the stack */
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct exec_ranges *r;

	if (!pr)
		return false;
	if (pc >= pr->exec_start && pc < pr->exec_end)
		return true;
	r = bpf_map_lookup_elem(&exec_ranges, &tgid);
	if (r && in_known_range(r, pc, pr))
		return true;
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_exec_cb, &found, 0) ||
	    pc < found.start || pc >= found.end)
		return false;
	pr->exec_start = found.start;
	pr->exec_end = found.end;
	keep_range(tgid, r, &found);
	return true;
}

#endif
