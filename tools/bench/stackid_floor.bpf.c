// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The physical floor of a stack sampler (`make bench`, part 2): the cost of
 * bpf_get_stackid() alone, measured with kernel.bpf_stats as bpfprof's own
 * program is. Four programs, each on its own cpu-clock events:
 *
 *   floor_empty   returns at once: the price of running any program
 *   floor_kstack  one bpf_get_stackid() of the kernel stack
 *   floor_ustack  one bpf_get_stackid() of the user stack
 *   floor_both    one of each: what bpfprof's sample() cannot go below
 *
 * The stack map has bpfprof's default size and flags (no
 * BPF_F_REUSE_STACKID), so hashing and collisions cost the same.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define FLOOR_MAX_STACKS	16384
#define FLOOR_STACK_DEPTH	127

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, FLOOR_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, FLOOR_STACK_DEPTH * sizeof(__u64));
} floor_stacks SEC(".maps");

/* Sum of the ids, so the calls cannot be optimized away. */
__u64 floor_sink = 0;

SEC("perf_event")
int floor_empty(struct bpf_perf_event_data *ctx)
{
	(void)ctx;
	return 0;
}

SEC("perf_event")
int floor_kstack(struct bpf_perf_event_data *ctx)
{
	floor_sink += bpf_get_stackid(ctx, &floor_stacks, 0);
	return 0;
}

SEC("perf_event")
int floor_ustack(struct bpf_perf_event_data *ctx)
{
	floor_sink += bpf_get_stackid(ctx, &floor_stacks, BPF_F_USER_STACK);
	return 0;
}

SEC("perf_event")
int floor_both(struct bpf_perf_event_data *ctx)
{
	long k = bpf_get_stackid(ctx, &floor_stacks, 0);
	long u = bpf_get_stackid(ctx, &floor_stacks, BPF_F_USER_STACK);

	floor_sink += k + u;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
