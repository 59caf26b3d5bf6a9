/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one place where the BPF side and user space agree on layouts.
 * Included by bpf/profile.bpf.c (with vmlinux.h types) and by user/ (with
 * <linux/types.h>); keep it free of anything else.
 */
#ifndef BPFPROF_PROFILE_H
#define BPFPROF_PROFILE_H

#define TASK_COMM_LEN		16
/* kernel.perf_event_max_stack defaults to 127; deeper stacks are truncated. */
#define MAX_STACK_DEPTH		127

#define DEFAULT_MAX_STACKS	16384
#define DEFAULT_MAX_COUNTS	16384
#define MAX_FILTER_PIDS		1024
#define MAX_EXEC_TIMES		16384	/* processes whose last exec is remembered (LRU) */
#define MAX_EVENTS		8	/* events recorded at once (-e a,b,... and --off-cpu) */
#define MAX_OFFCPU_THREADS	32768	/* threads blocked at once that off-CPU follows */
#define MAX_UNWIND_MAPS		48	/* executable mappings per process the unwinder knows */
#define MAX_UNWIND_PROCS	8192	/* processes with unwind info loaded (LRU) */
#define DEFAULT_UNWIND_ROWS	(1 << 21)	/* rows of all files' tables together */

/* A stack hash that holds no frames: the sample had no such side (a user
 * stack in a kernel thread, a kernel stack in user mode), or it was not
 * asked for. */
#define STACK_NONE		0

/* The counts and stack maps come in two generations: samples go to the one
 * the global `gen` names, user space flips it and drains the other. */
#define NR_GENS			2

/* One counted stack: who ran, and both halves of the stack, as keys of
 * the same generation's stack map (a 64-bit hash of the frames: a hash map
 * has no bucket collisions to lose samples to, unlike a stack trace map).
 * start_time (the process's, CLOCK_MONOTONIC ns) tells a process from a
 * later one that reuses its pid; exec_time (its last exec seen while
 * profiling, 0: none) tells the images of one process apart across an
 * exec. */
struct stack_key {
	__u32 tgid;
	__u32 pid;
	__u32 event;		/* index into the run's event list */
	__u32 pad;
	__u64 start_time;
	__u64 exec_time;
	__u64 kstack;		/* STACK_NONE or the kernel stack's key */
	__u64 ustack;		/* STACK_NONE or the user stack's key */
	char comm[TASK_COMM_LEN];
};

/* A stack, innermost frame first. The stack maps store it at its depth
 * class: one map per class and generation, whose values hold nr and the
 * class's number of ips (a prefix of this struct), so a 10-frame stack
 * takes 136 bytes rather than 1 KiB. */
struct stack_trace {
	__u64 nr;
	__u64 ips[MAX_STACK_DEPTH];
};

#define STACK_CLASSES		3
#define STACK_CLASS_SMALL	16
#define STACK_CLASS_MEDIUM	48
/* the class of a stack of nr frames, 0..STACK_CLASSES-1 */
#define STACK_CLASS(nr)		((nr) <= STACK_CLASS_SMALL ? 0 : (nr) <= STACK_CLASS_MEDIUM ? 1 : 2)
#define STACK_CLASS_DEPTH(c)	((c) == 0 ? STACK_CLASS_SMALL : (c) == 1 ? STACK_CLASS_MEDIUM : MAX_STACK_DEPTH)
#define STACK_VALUE_SIZE(c)	(8 * (1 + STACK_CLASS_DEPTH(c)))
/* A stack's key is its frames' hash with the class in the low two bits
 * (1 + class): never STACK_NONE, and it names the map to read. */
#define STACK_KEY(hash, c)	(((hash) & ~3ULL) | ((c) + 1))
#define STACK_KEY_CLASS(key)	((unsigned int)((key) & 3) - 1)

/* Per-CPU counters in the stats map. Every sample that passed the filters
 * is counted once in STAT_SAMPLES and then either in the counts map or in
 * exactly one STAT_LOST_* reason, so samples == counted + lost always.
 * Off-CPU time has counters of its own (its counts are microseconds). */
enum stat_kind {
	STAT_SAMPLES = 0,
	STAT_LOST_STACKMAP_FULL,	/* the stack map had no room for a new stack */
	STAT_LOST_STACK_ERROR,		/* taking a stack failed otherwise */
	STAT_LOST_COUNTS_FULL,		/* the counts map had no room */
	STAT_OFFCPU_BLOCKS,		/* off-CPU: blocks recorded (their time is in counts) */
	STAT_OFFCPU_SHORT,		/* off-CPU: blocks under --min-block, not recorded */
	STAT_OFFCPU_LOST,		/* off-CPU: switch-outs whose stack or slot failed */
	/* --call-graph dwarf: how user stacks ended (not losses: the frames
	 * before the stop are kept) */
	STAT_UNWIND_FP_FALLBACK,	/* process without tables yet: frame pointers used */
	STAT_UNWIND_END,		/* reached the outermost frame (return address 0) */
	STAT_UNWIND_NO_MAPPING,		/* an address outside every file with a table */
	STAT_UNWIND_NO_RULE,		/* no rule for the address (PLT, expression, gap) */
	STAT_UNWIND_READ_FAULT,		/* reading the stack failed */
	STAT_UNWIND_DEPTH,		/* MAX_STACK_DEPTH frames */
	STAT_MAX,
};

/* The stats map holds NR_GENS * STAT_MAX counters per CPU: gen * STAT_MAX + kind. */
#define STAT_SLOTS		(NR_GENS * STAT_MAX)

/*
 * --call-graph dwarf: one row of a file's unwind table, built in user space
 * from its CFI (.eh_frame / .debug_frame) and walked by the BPF side. Rows
 * are sorted by pc; a row holds from its pc up to the next row's.
 * On x86-64 the return address is always at CFA - 8.
 */
enum unwind_cfa_reg {
	CFA_NONE = 0,		/* no rule the BPF side can follow: stop here */
	CFA_RSP = 1,		/* CFA = rsp + cfa_offset */
	CFA_RBP = 2,		/* CFA = rbp + cfa_offset */
	CFA_PLT = 3,		/* a PLT stub: CFA = rsp + 8 (+ 8 past the push) */
	CFA_END = 4,		/* the outermost frame (return address undefined: _start, clone) */
};

#define RBP_SAME	0	/* rbp_offset: the caller's rbp is still in rbp */

struct unwind_row {
	__u64 pc;		/* file virtual address where this rule starts */
	__s32 cfa_offset;
	__s16 rbp_offset;	/* caller's rbp saved at CFA + rbp_offset, or RBP_SAME */
	__u8 cfa_reg;		/* enum unwind_cfa_reg */
	__u8 pad;
};

/* One executable mapping of a process, for the unwinder: addresses in
 * [start, end) are file virtual address + bias, and the file's rows are
 * unwind_rows[first_row, first_row + nrows). */
struct unwind_map {
	__u64 start, end;
	__u64 bias;
	__u32 first_row;
	__u32 nrows;
};

struct unwind_proc {
	__u32 nmaps;
	__u32 pad;
	struct unwind_map maps[MAX_UNWIND_MAPS];	/* sorted by start */
};

#endif /* BPFPROF_PROFILE_H */
