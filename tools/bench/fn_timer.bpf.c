// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Wall time spent in a few functions of one process (`make bench`, part 3):
 * a uprobe at each function's entry and a uretprobe at its return, told
 * apart by the attach cookie (the function's index). Used to time the
 * phases of bpfprof's end of run (reading the maps, loading kernel symbols,
 * symbolizing, writing) without changing bpfprof.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define FN_TIMER_MAX_FUNCS 16

struct fn_total {
	__u64 ns;
	__u64 calls;
};

/* (thread id << 8 | function index) -> entry time */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} fn_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FN_TIMER_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct fn_total);
} fn_totals SEC(".maps");

static __always_inline __u64 start_key(struct pt_regs *ctx)
{
	return (bpf_get_current_pid_tgid() & 0xffffffffull) << 8 |
	       (bpf_get_attach_cookie(ctx) & 0xff);
}

SEC("uprobe")
int fn_enter(struct pt_regs *ctx)
{
	__u64 key = start_key(ctx), now = bpf_ktime_get_ns();

	bpf_map_update_elem(&fn_starts, &key, &now, BPF_ANY);
	return 0;
}

SEC("uretprobe")
int fn_exit(struct pt_regs *ctx)
{
	__u64 key = start_key(ctx), *start;
	__u32 idx = (__u32)(bpf_get_attach_cookie(ctx) & 0xff);
	struct fn_total *t;

	start = bpf_map_lookup_elem(&fn_starts, &key);
	if (!start)
		return 0;
	t = bpf_map_lookup_elem(&fn_totals, &idx);
	if (t) {
		__sync_fetch_and_add(&t->ns, bpf_ktime_get_ns() - *start);
		__sync_fetch_and_add(&t->calls, 1);
	}
	bpf_map_delete_elem(&fn_starts, &key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
