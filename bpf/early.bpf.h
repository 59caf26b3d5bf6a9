/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Early copies: a sample taken before its process's tables are in is not
 * walked by frame pointers on the spot; its registers, kernel frames and
 * the top pages of its user stack go to the early ring, and user space
 * walks the copy by the same rules once the tables are loaded
 * (user/unwind/replay.c). Included by stack.bpf.h, whose walk notes and
 * runtimes' state these read.
 */
#ifndef BPFPROF_EARLY_BPF_H
#define BPFPROF_EARLY_BPF_H

/* Whether a walk that ended with stop is better done later from a copy:
 * its process had no entry yet (and is young: an entry comes soon after a
 * start or an exec, or never), or it crossed a file whose table was being
 * built. Not a runtime's process's walk: its frames are read now or never. */
static __always_inline bool worth_a_copy(const struct stack_key *key, __u32 stop)
{
	struct py_walk *w = py_walk_get();
	__u64 born = key->exec_time > key->start_time ? key->exec_time : key->start_time;

	if (!early_stacks || stop == STAT_UNWIND_END)
		return false;
	if (stop == STAT_UNWIND_FP_FALLBACK)
		return bpf_ktime_get_ns() - born < EARLY_AGE_NS;
	return walk_noted(WALK_PENDING) && w && !runtimes_walked(w);
}

/* The sample's registers, kernel frames and stack into the early ring for
 * user space to walk when the tables are in. Returns true if it went. */
static __always_inline bool copy_stack(struct task_struct *task, const struct stack_key *key,
				       __u32 g, const struct stacks *s)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 zero = 0, i;
	struct early_stack *e = bpf_map_lookup_elem(&early_scratch, &zero);
	__u64 base, size;

	if (!e)
		return false;
	e->key = *key;
	e->g = g;
	e->ip = regs->ip;
	e->sp = regs->sp;
	e->bp = regs->bp;
	base = e->sp & ~(__u64)(EARLY_PAGE - 1);
	e->base = base;
	e->len = 0;
	for (i = 0; i < EARLY_STACK_PAGES; i++) {
		if (bpf_probe_read_user(e->stack + i * EARLY_PAGE, EARLY_PAGE,
					(void *)(base + i * EARLY_PAGE)))
			break;
		e->len += EARLY_PAGE;
	}
	e->knr = s->kst.nr < MAX_STACK_DEPTH ? (__u32)s->kst.nr : MAX_STACK_DEPTH;
	if (!e->len || bpf_probe_read_kernel(e->kips, sizeof(e->kips), s->kst.ips))
		return false;
	size = offsetof(struct early_stack, stack) + e->len;
	if (size > sizeof(*e))	/* it is not: for the verifier */
		size = sizeof(*e);
	return bpf_ringbuf_output(&early, e, size, 0) == 0;
}

#endif
