// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-CPU sampler: runs on every perf event sample, takes the kernel and the
 * user stack ids and counts {tgid, pid, start_time, comm, kstack, ustack} in
 * a hash map. Nothing per sample leaves the kernel; user space reads the maps.
 *
 * Maps come in two generations so user space can drain while sampling goes
 * on: a sample reads `gen` once and touches only that generation's maps.
 * User space flips `gen`, waits for an RCU grace period (every program that
 * read the old value has returned), then owns the old generation alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "profile.h"

#define EFAULT	14
#define EEXIST	17
#define ENOMEM	12

/* Set by the loader before load; constant for the verifier. */
const volatile bool filter_tgids = false;
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;

/* The generation samples go to; written by user space only. */
volatile __u32 gen = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_FILTER_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* tgid -> when it last exec'd (bpf_ktime_get_ns, CLOCK_MONOTONIC). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_EXEC_TIMES);
	__type(key, __u32);
	__type(value, __u64);
} exec_times SEC(".maps");

struct stack_map {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, DEFAULT_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));
} stacks0 SEC(".maps"), stacks1 SEC(".maps");

struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEFAULT_MAX_COUNTS);
	__type(key, struct stack_key);
	__type(value, __u64);
} counts0 SEC(".maps"), counts1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Every sample that passed the filters, never drained: the independent
 * count the drained generations must add up to. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} total SEC(".maps");

static __always_inline void slot_inc(void *map, __u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(map, &slot);

	if (v)
		(*v)++;	/* per-CPU: no other writer */
}

/* A stack id error that loses the sample, or 0 when the id is usable
 * (a real id, or an empty stack). */
static __always_inline __u32 stack_loss(long id, __u32 collision_kind)
{
	if (id >= 0 || id == -EFAULT)
		return 0;
	if (id == -EEXIST)
		return collision_kind;
	if (id == -ENOMEM)
		return STAT_LOST_STACKMAP_FULL;
	return STAT_LOST_STACK_ERROR;
}

static __always_inline __u32 count_stack(void *counts, struct stack_key *key)
{
	__u64 one = 1, *v;
	long err;

	v = bpf_map_lookup_elem(counts, key);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return 0;
	}
	err = bpf_map_update_elem(counts, key, &one, BPF_NOEXIST);
	if (!err)
		return 0;
	if (err == -EEXIST) {
		/* another CPU inserted the same key in between */
		v = bpf_map_lookup_elem(counts, key);
		if (v) {
			__sync_fetch_and_add(v, 1);
			return 0;
		}
	}
	return STAT_LOST_COUNTS_FULL;
}

/* One sample into one generation's maps; called with constant map
 * pointers so the verifier knows each helper's map. */
static __always_inline void record(struct bpf_perf_event_data *ctx, struct stack_key *key,
				   void *stacks, void *counts, __u32 g)
{
	__u32 lost;

	slot_inc(&stats, g * STAT_MAX + STAT_SAMPLES);
	key->kstack_id = kernel_stacks ? bpf_get_stackid(ctx, stacks, 0) : STACK_ID_NONE;
	key->ustack_id = user_stacks ? bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK)
				     : STACK_ID_NONE;
	lost = stack_loss(key->kstack_id, STAT_LOST_KSTACK_COLLISION);
	if (!lost)
		lost = stack_loss(key->ustack_id, STAT_LOST_USTACK_COLLISION);
	if (!lost)
		lost = count_stack(counts, key);
	if (lost)
		slot_inc(&stats, g * STAT_MAX + lost);
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid(), *exec_time;
	struct stack_key key = {};

	key.tgid = id >> 32;
	key.pid = (__u32)id;
	if (filter_tgids && !bpf_map_lookup_elem(&tgids, &key.tgid))
		return 0;
	slot_inc(&total, 0);
	key.start_time = BPF_CORE_READ(task, group_leader, start_time);
	exec_time = bpf_map_lookup_elem(&exec_times, &key.tgid);
	key.exec_time = exec_time ? *exec_time : 0;
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	if (gen)
		record(ctx, &key, &stacks1, &counts1, 1);
	else
		record(ctx, &key, &stacks0, &counts0, 0);
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
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
