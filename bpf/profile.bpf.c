// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler: on every sample of a perf event, tracepoint hit or uprobe
 * hit, take the kernel and the user stack ids and count
 * {tgid, pid, event, start_time, exec_time, comm, kstack, ustack} in a hash
 * map. Off-CPU: at sched_switch, remember the stack of the thread going to
 * sleep and, when it runs again, add the time it was away to that stack.
 * Nothing per sample leaves the kernel; user space reads the maps.
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

/* Set by the loader before load; constant for the verifier. */
const volatile bool filter_tgids = false;	/* -p, -- COMMAND */
const volatile bool filter_tids = false;	/* -t */
const volatile bool filter_cgroup = false;	/* --cgroup */
const volatile bool filter_comm = false;	/* --comm */
const volatile char comm_filter[TASK_COMM_LEN] = {};
const volatile bool follow_forks = false;	/* -- COMMAND: its children too */
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;
const volatile bool python = false;		/* Python frames (--no-python: off) */
const volatile __u32 offcpu_event = 0;		/* event index of off-CPU time */
const volatile __u64 min_block_ns = 1000;
const volatile __u64 tick_ns = 10000000;	/* the unit of /proc's start times (1 s / USER_HZ) */

/* The generation samples go to; written by user space only. */
volatile __u32 gen = 0;

/* --control disable, --start-disabled: while set, no sample is counted
 * anywhere (not even in `total`); written by user space only. */
volatile __u32 disabled = 0;

/* -p/-t targets: id -> its start time (CLOCK_BOOTTIME, in ticks, as
 * /proc/PID/stat shows it), so a later process reusing the id is not one.
 * Sized by user space to the list. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_FILTER_PIDS);
	__type(key, __u32);
	__type(value, __u64);
} tgids SEC(".maps"), tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup SEC(".maps");

/* tgid -> when it last exec'd (bpf_ktime_get_ns, CLOCK_MONOTONIC). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_EXEC_TIMES);
	__type(key, __u32);
	__type(value, __u64);
} exec_times SEC(".maps");

/* key (hash and class) -> the frames, one map per depth class (see
 * struct stack_trace). The counts and stack maps are not preallocated:
 * kernel memory grows with what is stored (max_entries is a ceiling), and
 * the drained generation holds nothing. */
#define STACK_MAP(name, cls)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__uint(max_entries, DEFAULT_MAX_STACKS);		\
		__type(key, __u64);					\
		__uint(value_size, STACK_VALUE_SIZE(cls));		\
	} name SEC(".maps")

STACK_MAP(stacks0_s, 0);
STACK_MAP(stacks0_m, 1);
STACK_MAP(stacks0_l, 2);
STACK_MAP(stacks1_s, 0);
STACK_MAP(stacks1_m, 1);
STACK_MAP(stacks1_l, 2);

/* where a sample's stacks are taken before they are hashed and stored:
 * slot 0 the kernel's, slot 1 the user's */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct stack_trace);
} scratch SEC(".maps");

/* stack -> weight: samples, or microseconds for off-CPU time */
struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
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

/* A thread that went off CPU: when, and the stack it blocked in. */
struct blocked {
	__u64 since;
	__u32 gen;
	__u32 pad;
	struct stack_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_OFFCPU_THREADS);
	__type(key, __u32);
	__type(value, struct blocked);
} blocked SEC(".maps");

/* --call-graph dwarf: every file's unwind rows, back to back; per process,
 * its executable mappings and where their files' rows are. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DEFAULT_UNWIND_ROWS);
	__type(key, __u32);
	__type(value, struct unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_UNWIND_PROCS);
	__type(key, __u32);
	__type(value, struct unwind_proc);
} unwind_procs SEC(".maps");

static __always_inline void slot_inc(void *map, __u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(map, &slot);

	if (v)
		(*v)++;	/* per-CPU: no other writer */
}

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

/* The current task passes every filter that is on; fills the key's
 * identity (not the stacks). */
static __always_inline bool wanted(struct stack_key *key, __u32 event)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid(), *exec_time;

	if (disabled)
		return false;
	key->tgid = id >> 32;
	key->pid = (__u32)id;
	if (filter_tgids &&
	    !is_target(&tgids, key->tgid, BPF_CORE_READ(task, group_leader, start_boottime)))
		return false;
	if (filter_tids && !is_target(&tids, key->pid, BPF_CORE_READ(task, start_boottime)))
		return false;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup, 0) != 1)
		return false;
	bpf_get_current_comm(&key->comm, sizeof(key->comm));
	if (filter_comm && !comm_matches(key->comm))
		return false;
	key->event = event;
	key->start_time = BPF_CORE_READ(task, group_leader, start_time);
	exec_time = bpf_map_lookup_elem(&exec_times, &key->tgid);
	key->exec_time = exec_time ? *exec_time : 0;
	return true;
}

#define FNV_OFFSET	0xcbf29ce484222325ull
#define FNV_PRIME	0x100000001b3ull
#define SLOT_KERNEL	0
#define SLOT_USER	1

static __always_inline __u64 hash_step(__u64 h, __u64 ip)
{
	return (h ^ ip) * FNV_PRIME;
}

static __always_inline void *stack_map(__u32 g, __u32 cls)
{
	if (g)
		return cls == 0 ? (void *)&stacks1_s : cls == 1 ? (void *)&stacks1_m : (void *)&stacks1_l;
	return cls == 0 ? (void *)&stacks0_s : cls == 1 ? (void *)&stacks0_m : (void *)&stacks0_l;
}

/* Stores the frames in the scratch slot under their key in generation g's
 * map of their depth class; *key = the key (never STACK_NONE). A stack
 * already there is found by a lookup, which takes no lock. Returns 0 or
 * the reason the sample is lost. */
static __always_inline __u32 store_stack(__u32 g, struct stack_trace *st, __u64 h, __u64 *key)
{
	__u32 cls = STACK_CLASS(st->nr);
	void *stacks = stack_map(g, cls);
	long err;

	*key = STACK_KEY(h, cls);
	if (bpf_map_lookup_elem(stacks, key))
		return 0;
	err = bpf_map_update_elem(stacks, key, st, BPF_NOEXIST);
	/* -EEXIST: another CPU stored the same frames in between */
	return err && err != -EEXIST ? STAT_LOST_STACKMAP_FULL : 0;
}

/* One half of the stack, by bpf_get_stack(), into the stack map. */
static __always_inline __u32 take_stack(void *ctx, __u32 g, __u32 slot, __u64 flags, __u64 *key)
{
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);
	__u64 h = FNV_OFFSET;
	long bytes;

	*key = STACK_NONE;
	if (!st)
		return STAT_LOST_STACK_ERROR;
	bytes = bpf_get_stack(ctx, st->ips, sizeof(st->ips), flags);
	if (bytes == -EFAULT || bytes == 0)	/* no such side here */
		return 0;
	if (bytes < 0)
		return STAT_LOST_STACK_ERROR;
	st->nr = (__u64)bytes / sizeof(__u64);
	for (__u32 i = 0; i < MAX_STACK_DEPTH && i < st->nr; i++)
		h = hash_step(h, st->ips[i]);
	return store_stack(g, st, h, key);
}

/* Both halves into key; 0, or the reason the sample is lost. */
static __always_inline __u32 take_stacks(void *ctx, struct stack_key *key, __u32 g)
{
	__u32 lost = 0;

	if (kernel_stacks)
		lost = take_stack(ctx, g, SLOT_KERNEL, 0, &key->kstack);
	if (!lost && user_stacks)
		lost = take_stack(ctx, g, SLOT_USER, BPF_F_USER_STACK, &key->ustack);
	return lost;
}

static __always_inline __u32 add_weight(void *counts, struct stack_key *key, __u64 weight)
{
	__u64 *v;
	long err;

	v = bpf_map_lookup_elem(counts, key);
	if (v) {
		__sync_fetch_and_add(v, weight);
		return 0;
	}
	err = bpf_map_update_elem(counts, key, &weight, BPF_NOEXIST);
	if (!err)
		return 0;
	if (err == -EEXIST) {
		/* another CPU inserted the same key in between */
		v = bpf_map_lookup_elem(counts, key);
		if (v) {
			__sync_fetch_and_add(v, weight);
			return 0;
		}
	}
	return STAT_LOST_COUNTS_FULL;
}

/* One sample into one generation's maps; called with constant map
 * pointers so the verifier knows each helper's map. */
static __always_inline void record(void *ctx, struct stack_key *key, void *counts, __u32 g)
{
	__u32 lost;

	slot_inc(&stats, g * STAT_MAX + STAT_SAMPLES);
	lost = take_stacks(ctx, key, g);
	if (!lost)
		lost = add_weight(counts, key, 1);
	if (lost)
		slot_inc(&stats, g * STAT_MAX + lost);
}

static __always_inline int sample_event(void *ctx, __u32 event)
{
	struct stack_key key = {};

	if (!wanted(&key, event))
		return 0;
	slot_inc(&total, 0);
	if (gen)
		record(ctx, &key, &counts1, 1);
	else
		record(ctx, &key, &counts0, 0);
	return 0;
}

#include "python.bpf.h"

/*
 * The DWARF unwinder: from the user registers at kernel entry, find the
 * rule for the address in its file's table, compute the CFA, read the
 * return address (CFA - 8) and the caller's rbp, step, repeat.
 */
#define ROW_SEARCH_STEPS	24	/* binary search over up to 16M rows */

struct unwind_ctx {
	__u64 ip, sp, bp;
	__u64 hash;
	__u32 tgid;
	__u32 stop;	/* STAT_UNWIND_* */
	__u32 g;	/* the generation this sample goes to */
};

static __always_inline const struct unwind_map *find_map(const struct unwind_proc *pr, __u64 pc)
{
	for (__u32 j = 0; j < MAX_UNWIND_MAPS; j++) {
		if (j >= pr->nmaps)
			break;
		if (pc >= pr->maps[j].start && pc < pr->maps[j].end)
			return &pr->maps[j];
	}
	return NULL;
}

/* The last row of [first, first + n) with pc <= vaddr. */
static __always_inline const struct unwind_row *find_row(__u32 first, __u32 n, __u64 vaddr)
{
	__u32 lo = first, hi = first + n, mid;
	const struct unwind_row *row;

	for (int k = 0; k < ROW_SEARCH_STEPS && lo < hi; k++) {
		mid = lo + (hi - lo) / 2;
		row = bpf_map_lookup_elem(&unwind_rows, &mid);
		if (!row)
			return NULL;
		if (row->pc <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first)
		return NULL;
	lo--;
	return bpf_map_lookup_elem(&unwind_rows, &lo);
}

static __always_inline bool compute_cfa(const struct unwind_row *row, struct unwind_ctx *c,
					__u64 *cfa)
{
	switch (row->cfa_reg) {
	case CFA_RSP:
		*cfa = c->sp + row->cfa_offset;
		return true;
	case CFA_RBP:
		*cfa = c->bp + row->cfa_offset;
		return true;
	case CFA_PLT:	/* the stub's second half has pushed one more word */
		*cfa = c->sp + 8 + ((c->ip & 15) >= 11 ? 8 : 0);
		return true;
	default:
		return false;
	}
}

static long unwind_step(__u32 i, struct unwind_ctx *c)
{
	const struct unwind_proc *pr = bpf_map_lookup_elem(&unwind_procs, &c->tgid);
	const struct unwind_map *m;
	const struct unwind_row *row;
	struct py_walk *w = py_walk_get();
	struct stack_trace *st;
	__u32 slot = SLOT_USER;
	__u64 pc, cfa, ra, n;

	st = bpf_map_lookup_elem(&scratch, &slot);
	/* frames so far: st->nr, in map memory, whose value the verifier does
	 * not track step by step as it would a counter in c (every count a
	 * state of its own: the loop would not converge) */
	if (!st || !pr || !w || st->nr >= MAX_STACK_DEPTH) {
		c->stop = STAT_UNWIND_DEPTH;
		return 1;
	}
	/* a return address points after its call: the call is the byte before */
	pc = w->native ? c->ip - 1 : c->ip;
	/* the interpreter's frames go before (inside) the eval call running
	 * them, one per loop step: a loop of its own would be too much for
	 * the verifier */
	if (!w->done && py_in_eval(w, pc) && py_step(w, st, &c->hash, c->g))
		return 0;
	w->done = 0;
	w->native = 1;
	n = st->nr;
	if (n >= MAX_STACK_DEPTH) {	/* checked above; again for the verifier */
		c->stop = STAT_UNWIND_DEPTH;
		return 1;
	}
	st->ips[n] = c->ip;
	st->nr = n + 1;
	c->hash = hash_step(c->hash, c->ip);
	m = find_map(pr, pc);
	row = m ? find_row(m->first_row, m->nrows, pc - m->bias) : NULL;
	if (row && row->cfa_reg == CFA_END) {
		c->stop = STAT_UNWIND_END;
		return 1;
	}
	if (!m || !row || !compute_cfa(row, c, &cfa)) {
		c->stop = !m ? STAT_UNWIND_NO_MAPPING : STAT_UNWIND_NO_RULE;
		return 1;
	}
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)) ||
	    (row->rbp_offset != RBP_SAME &&
	     bpf_probe_read_user(&c->bp, sizeof(c->bp), (void *)(cfa + row->rbp_offset)))) {
		c->stop = STAT_UNWIND_READ_FAULT;
		return 1;
	}
	if (!ra) {
		c->stop = STAT_UNWIND_END;
		return 1;
	}
	c->sp = cfa;
	c->ip = ra;
	return 0;
}

/* The user stack, unwound with the tables, into the stack map; without
 * tables for the process yet, by frame pointers. Returns 0 or the reason
 * the sample is lost. */
static __always_inline __u32 take_dwarf_ustack(void *ctx, struct stack_key *key, __u32 g)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct unwind_ctx c = { .tgid = key->tgid, .hash = FNV_OFFSET, .stop = STAT_UNWIND_DEPTH,
				.g = g };
	struct stack_trace *st;
	__u32 slot = SLOT_USER;
	struct pt_regs *regs;

	key->ustack = STACK_NONE;
	if (!task->mm)	/* a kernel thread: no user stack */
		return 0;
	if (!bpf_map_lookup_elem(&unwind_procs, &key->tgid)) {
		slot_inc(&stats, g * STAT_MAX + STAT_UNWIND_FP_FALLBACK);
		return take_stack(ctx, g, SLOT_USER, BPF_F_USER_STACK, &key->ustack);
	}
	st = bpf_map_lookup_elem(&scratch, &slot);
	if (!st)
		return STAT_LOST_STACK_ERROR;
	st->nr = 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	c.ip = BPF_CORE_READ(regs, ip);
	c.sp = BPF_CORE_READ(regs, sp);
	c.bp = BPF_CORE_READ(regs, bp);
	py_begin(key->tgid, key->start_time, python);
	/* a step records one frame, native or Python: one more for the end */
	bpf_loop(MAX_STACK_DEPTH + 1, unwind_step, &c, 0);
	slot_inc(&stats, g * STAT_MAX + c.stop);
	if (!st->nr)
		return 0;
	return store_stack(g, st, c.hash, &key->ustack);
}

static __always_inline void record_dwarf(void *ctx, struct stack_key *key, void *counts, __u32 g)
{
	__u32 lost = 0;

	slot_inc(&stats, g * STAT_MAX + STAT_SAMPLES);
	if (kernel_stacks)
		lost = take_stack(ctx, g, SLOT_KERNEL, 0, &key->kstack);
	if (!lost && user_stacks)
		lost = take_dwarf_ustack(ctx, key, g);
	if (!lost)
		lost = add_weight(counts, key, 1);
	if (lost)
		slot_inc(&stats, g * STAT_MAX + lost);
}

static __always_inline int sample_event_dwarf(void *ctx, __u32 event)
{
	struct stack_key key = {};

	if (!wanted(&key, event))
		return 0;
	slot_inc(&total, 0);
	if (gen)
		record_dwarf(ctx, &key, &counts1, 1);
	else
		record_dwarf(ctx, &key, &counts0, 0);
	return 0;
}

/* --call-graph dwarf's twins of sample and sample_uprobe. */
SEC("perf_event")
int sample_dwarf(struct bpf_perf_event_data *ctx)
{
	return sample_event_dwarf(ctx, (__u32)bpf_get_attach_cookie(ctx));
}

SEC("uprobe")
int sample_uprobe_dwarf(struct pt_regs *ctx)
{
	return sample_event_dwarf(ctx, (__u32)bpf_get_attach_cookie(ctx));
}

/* The attach cookie is the event's index in the run's list. */
SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	return sample_event(ctx, (__u32)bpf_get_attach_cookie(ctx));
}

SEC("tracepoint")
int sample_tp(void *ctx)
{
	return sample_event(ctx, (__u32)bpf_get_attach_cookie(ctx));
}

SEC("uprobe")
int sample_uprobe(struct pt_regs *ctx)
{
	return sample_event(ctx, (__u32)bpf_get_attach_cookie(ctx));
}

/* prev goes off CPU (it is still current here: its stacks are ours to
 * take); next comes back: the time since it left goes to its stack. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, __u32 g)
{
	struct blocked b = { .gen = g };
	__u32 lost, tid = prev->pid;

	if (!wanted(&b.key, offcpu_event))
		return;
	lost = take_stacks(ctx, &b.key, g);
	b.since = bpf_ktime_get_ns();
	if (lost || bpf_map_update_elem(&blocked, &tid, &b, BPF_ANY))
		slot_inc(&stats, g * STAT_MAX + STAT_OFFCPU_LOST);
}

static __always_inline void switch_in(struct task_struct *next, __u32 g)
{
	__u32 tid = next->pid;
	struct blocked *b = bpf_map_lookup_elem(&blocked, &tid);
	__u64 delta;

	if (!b)
		return;
	delta = bpf_ktime_get_ns() - b->since;
	if (b->gen != g) {
		/* its stack ids belong to a drained generation */
		slot_inc(&stats, g * STAT_MAX + STAT_OFFCPU_LOST);
	} else if (delta < min_block_ns) {
		slot_inc(&stats, g * STAT_MAX + STAT_OFFCPU_SHORT);
	} else if (add_weight(g ? (void *)&counts1 : (void *)&counts0, &b->key, delta / 1000)) {
		slot_inc(&stats, g * STAT_MAX + STAT_OFFCPU_LOST);
	} else {
		slot_inc(&stats, g * STAT_MAX + STAT_OFFCPU_BLOCKS);
	}
	bpf_map_delete_elem(&blocked, &tid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 g = gen;

	if (g)
		switch_out(ctx, prev, 1);
	else
		switch_out(ctx, prev, 0);
	switch_in(next, g);
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
