// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler's entry points: on every sample of a perf event, tracepoint
 * hit or uprobe hit, take the kernel and the user stack and count
 * {tgid, pid, event, start_time, exec_time, comm, kstack, ustack} in a hash
 * map. Off-CPU: at sched_switch, take the stacks of the thread going to
 * sleep and, when it runs again, store them and add the time it was away.
 * Nothing per sample leaves the kernel; user space reads the maps.
 *
 * The maps are in maps.bpf.h, the one user-stack path for every program
 * (fp, dwarf, auto) in stack.bpf.h, the layouts user space shares in
 * profile.h. User space flips `gen`, waits for an RCU grace period (every
 * program that read the old value has returned), then owns the old
 * generation alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "profile.h"
#include "maps.bpf.h"
#include "stage_timer.bpf.h"
#include "runtimes.bpf.h"
#include "stack.bpf.h"

static __always_inline bool comm_matches(const char *comm)
{
	for (int i = 0; i < TASK_COMM_LEN; i++) {
		if (comm[i] != comm_filter[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* id is in the filter map, as the task that started at start (ns). */
static __always_inline bool is_target(void *map, __u32 id, __u64 start)
{
	__u64 *ticks = bpf_map_lookup_elem(map, &id);

	return ticks && *ticks == start / tick_ns;
}

/* tgid's last exec (exec_times, 0: none since the run began). A per-CPU
 * memo of the last process's (exec_seen, 2026-11-28) did not pay: with it
 * and without, the entry stage was the same within noise (3 interleaved
 * rounds, `-p bench_fixed`, 802-1170 ns against 818-1116 at load 15-19),
 * as the map is small and a sample's process mostly has no entry. */
static __always_inline __u64 exec_time_of(__u32 tgid)
{
	__u64 *t = bpf_map_lookup_elem(&exec_times, &tgid);

	return t ? *t : 0;
}

/* The current task passes every filter that is on; fills the key's
 * identity (not the stacks). */
static __always_inline bool wanted(struct stack_key *key, __u32 event)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();

	if (disabled)
		return false;
	key->tgid = id >> 32;
	key->pid = (__u32)id;
	if (filter_tgids &&
	    !is_target(&tgids, key->tgid, task->group_leader->start_boottime))
		return false;
	if (filter_tids && !is_target(&tids, key->pid, task->start_boottime))
		return false;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup, 0) != 1)
		return false;
	bpf_get_current_comm(&key->comm, sizeof(key->comm));
	if (filter_comm && !comm_matches(key->comm))
		return false;
	key->event = event;
	key->cgroup = key_cgroup ? bpf_get_current_cgroup_id() : 0;
	key->start_time = task->group_leader->start_time;
	key->exec_time = exec_time_of(key->tgid);
	return true;
}

/* The scratch slot stacks are taken in (one per CPU). */
static __always_inline struct blocked *scratch_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/* One sample into one generation's maps, written in epoch (gen's value:
 * g = epoch & 1); called with constant map pointers so the verifier knows
 * each helper's map. in_user: it interrupted user mode. */
static __always_inline void record(void *ctx, struct stack_key *key, void *counts, __u32 g,
				   __u32 epoch, bool in_user)
{
	struct blocked *sc = scratch_slot();
	__u32 lost = STAT_LOST_STACK_ERROR;

	stat_inc(g, STAT_SAMPLES);
	if (sc)
		lost = take_stacks(ctx, key, g, &sc->s, in_user, true);
	if (lost == STAT_UNWIND_DEFERRED)	/* user space counts it */
		return;
	if (sc && !lost)
		lost = store_stacks(g, epoch, &sc->s, key);
	stage_mark(STAGE_STORE);
	if (!lost)
		lost = add_weight(counts, key, 1);
	if (lost)
		stat_inc(g, lost);
	stage_mark(STAGE_COUNTS);
}

static __always_inline int sample_event(void *ctx, __u32 event, bool in_user)
{
	struct stack_key key = {};
	__u32 epoch = gen;	/* read once: the generation and the epoch agree */

	stage_start();
	stage_mark(STAGE_CLOCK);
	if (!wanted(&key, event))
		return 0;
	add_total(TOTAL_SAMPLES, 1);
	stage_mark(STAGE_ENTRY);
	if (epoch & 1)
		record(ctx, &key, &counts1, 1, epoch, in_user);
	else
		record(ctx, &key, &counts0, 0, epoch, in_user);
	return 0;
}

/* regs are user mode's: the kernel's half of the stack is empty (the
 * kernel walks it only from kernel mode), and bpf_get_stack() takes ~70 ns
 * of a sample here to say so. */
static __always_inline bool user_mode(const struct pt_regs *regs)
{
#ifdef __TARGET_ARCH_x86
	/* 8 bytes, as the context is read: a narrower load is refused */
	__u64 cs = *(volatile const __u64 *)&regs->cs;

	return (cs & 3) == 3;
#else
	return false;	/* asked of bpf_get_stack() */
#endif
}

/* The attach cookie is the event's index in the run's list. */
SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	return sample_event(ctx, (__u32)bpf_get_attach_cookie(ctx), user_mode(&ctx->regs));
}

SEC("tracepoint")
int sample_tp(void *ctx)
{
	return sample_event(ctx, (__u32)bpf_get_attach_cookie(ctx), false);
}

SEC("uprobe")
int sample_uprobe(struct pt_regs *ctx)
{
	return sample_event(ctx, (__u32)bpf_get_attach_cookie(ctx), user_mode(ctx));
}

/* prev goes off CPU (it is still current here: its stacks are ours to
 * take): who it is and its frames are kept with its entry, built in the
 * scratch slot. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, __u32 g)
{
	struct blocked *sc = scratch_slot();
	__u32 lost, tid = prev->pid;

	if (!sc)
		return;
	stage_start();	/* its stacks' stages time off-CPU's too (the bench runs without) */
	__builtin_memset(&sc->key, 0, sizeof(sc->key));
	if (!wanted(&sc->key, offcpu_event))
		return;
	lost = take_stacks(ctx, &sc->key, g, &sc->s, false, false);
	sc->since = bpf_ktime_get_ns();
	if (lost || bpf_map_update_elem(&blocked, &tid, sc, BPF_ANY))
		stat_inc(g, STAT_OFFCPU_LOST);
}

/* next comes back: its stacks go into the generation being written now
 * and the time it was away onto them, so a block counts, whole, in the
 * interval it ends in. */
static __always_inline void switch_in(struct task_struct *next, void *counts, __u32 g,
				      __u32 epoch)
{
	__u32 tid = next->pid, lost;
	struct blocked *b = bpf_map_lookup_elem(&blocked, &tid);
	struct stack_key key;
	__u64 delta;

	if (!b)
		return;
	delta = bpf_ktime_get_ns() - b->since;
	if (delta < min_block_ns) {
		stat_inc(g, STAT_OFFCPU_SHORT);
	} else {
		key = b->key;
		lost = store_stacks(g, epoch, &b->s, &key);
		if (!lost)
			lost = add_weight(counts, &key, delta / 1000);
		if (lost) {
			stat_inc(g, STAT_OFFCPU_LOST);
		} else {
			stat_inc(g, STAT_OFFCPU_BLOCKS);
			add_total(TOTAL_OFFCPU_US, delta / 1000);
		}
	}
	bpf_map_delete_elem(&blocked, &tid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 epoch = gen;	/* read once, as in sample_event */

	if (epoch & 1) {
		switch_out(ctx, prev, 1);
		switch_in(next, &counts1, 1, epoch);
	} else {
		switch_out(ctx, prev, 0);
		switch_in(next, &counts0, 0, epoch);
	}
	return 0;
}

/* -- COMMAND: a child of a profiled process is profiled too. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u64 start = child->start_boottime / tick_ns;

	if (follow_forks && ptgid != ctgid &&
	    is_target(&tgids, ptgid, BPF_CORE_READ(parent, group_leader, start_boottime)))
		bpf_map_update_elem(&tgids, &ctgid, &start, BPF_ANY);
	return 0;
}

/* ... and forgotten when it ends: the map has room for MAX_FILTER_PIDS
 * processes at once, not for every child a long command forks (the soak's
 * churn forks 50 a second: from the 1025th on, none was profiled). So is
 * what the exec and runtimes' maps hold of an ending thread or process:
 * those maps are not preallocated, they hold only what lives. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(task_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid, tid = p->pid;

	runtimes_forget_thread(tid);
	/* its last thread: the signal struct counts the live ones */
	if (BPF_CORE_READ(p, signal, live.counter))
		return 0;
	bpf_map_delete_elem(&exec_times, &tgid);
	runtimes_forget_proc(tgid);
	bpf_map_delete_elem(&unwind_wanted, &tgid);
	bpf_map_delete_elem(&exec_ranges, &tgid);
	if (follow_forks)
		bpf_map_delete_elem(&tgids, &tgid);
	return 0;
}

/* Fires once the new image is mapped: samples from now on carry this time,
 * which user space places after the exec's own (earlier) perf record. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	__u64 now = bpf_ktime_get_ns();

	bpf_map_update_elem(&exec_times, &tgid, &now, BPF_ANY);
	/* the new image is not the runtime user space found, if it was one,
	 * nor the mappings its unwind entry describes: until user space
	 * writes the new image's, its samples are walked by frame pointers,
	 * counted, not through the old image's tables */
	runtimes_forget_proc(tgid);
	if (!bpf_map_delete_elem(&unwind_procs, &tgid))
		__sync_fetch_and_add(&unwind_procs_changes, 1);	/* after the change: copy_proc() */
	bpf_map_delete_elem(&exec_ranges, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
