// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-CPU sampler: runs on every perf event sample, takes the kernel and the
 * user stack ids and counts {tgid, pid, comm, kstack, ustack} in a hash map.
 * Nothing per sample leaves the kernel; user space reads the maps.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "profile.h"

#define EFAULT	14
#define EEXIST	17
#define ENOMEM	12

/* Set by the loader before load; constant for the verifier. */
const volatile bool filter_tgids = false;
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_FILTER_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, DEFAULT_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEFAULT_MAX_COUNTS);
	__type(key, struct stack_key);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 kind)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &kind);

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

static __always_inline void count_stack(struct stack_key *key)
{
	__u64 one = 1, *v;
	long err;

	v = bpf_map_lookup_elem(&counts, key);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	err = bpf_map_update_elem(&counts, key, &one, BPF_NOEXIST);
	if (!err)
		return;
	if (err == -EEXIST) {
		/* another CPU inserted the same key in between */
		v = bpf_map_lookup_elem(&counts, key);
		if (v) {
			__sync_fetch_and_add(v, 1);
			return;
		}
	}
	stat_inc(STAT_LOST_COUNTS_FULL);
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct stack_key key = {};
	__u32 lost;

	key.tgid = id >> 32;
	key.pid = (__u32)id;
	if (filter_tgids && !bpf_map_lookup_elem(&tgids, &key.tgid))
		return 0;
	stat_inc(STAT_SAMPLES);

	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	key.kstack_id = kernel_stacks ? bpf_get_stackid(ctx, &stacks, 0) : STACK_ID_NONE;
	key.ustack_id = user_stacks ? bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK)
				    : STACK_ID_NONE;

	lost = stack_loss(key.kstack_id, STAT_LOST_KSTACK_COLLISION);
	if (!lost)
		lost = stack_loss(key.ustack_id, STAT_LOST_USTACK_COLLISION);
	if (lost) {
		stat_inc(lost);
		return 0;
	}
	count_stack(&key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
