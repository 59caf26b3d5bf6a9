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
#define MAX_EXEC_TIMES		16384	/* live processes whose last exec is remembered */
#define MAX_EVENTS		8	/* events recorded at once (-e a,b,... and --off-cpu) */
#define MAX_OFFCPU_THREADS	32768	/* threads blocked at once that off-CPU follows */
#define MAX_UNWIND_MAPS		48	/* executable mappings per process the unwinder knows */
#define MAX_UNWIND_PROCS	8192	/* processes with unwind info loaded */
#define UNWIND_ASK_QUEUE	1024	/* asks for tables not popped yet */
#define MAX_UNWIND_CHUNKS	1024	/* chunks of rows (each many files') at once */
#define DEFAULT_UNWIND_ROWS	(1 << 22)	/* budget: rows of all loaded files together */

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
 * exec. cgroup is the task's cgroup v2 id (its directory's inode number),
 * which user space names (container, pod, unit). */
struct stack_key {
	__u32 tgid;
	__u32 pid;
	__u32 event;		/* index into the run's event list */
	__u32 pad;
	__u64 start_time;
	__u64 exec_time;
	__u64 cgroup;
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
	/* the lost reasons, STAT_LOST_FIRST..STAT_LOST_LAST. A hash map's
	 * insert fails "full" only with -E2BIG (max_entries reached); the
	 * other errors pass with the moment (see insert_lost()) */
	STAT_LOST_STACKMAP_FULL,	/* the stack map had no room for a new stack */
	STAT_LOST_STACKMAP_TRANSIENT,	/* ... an insert failed, the map not full */
	STAT_LOST_STACK_ERROR,		/* taking a stack failed otherwise */
	STAT_LOST_COUNTS_FULL,		/* the counts map had no room */
	STAT_LOST_COUNTS_TRANSIENT,	/* ... an insert failed, the map not full */
	STAT_OFFCPU_BLOCKS,		/* off-CPU: blocks recorded (their time is in counts) */
	STAT_OFFCPU_SHORT,		/* off-CPU: blocks under --min-block, not recorded */
	STAT_OFFCPU_LOST,		/* off-CPU: switch-outs whose stack or slot failed */
	/* --call-graph auto and dwarf: how user stacks ended (not losses:
	 * the frames before the stop are kept); exactly one per user stack */
	STAT_UNWIND_FP_FALLBACK,	/* process without tables yet: frame pointers used */
	STAT_UNWIND_END,		/* reached the outermost frame (return address 0) */
	STAT_UNWIND_NO_MAPPING,		/* an address outside every file with a table */
	STAT_UNWIND_NO_RULE,		/* no rule for the address (PLT, expression, gap) */
	STAT_UNWIND_READ_FAULT,		/* reading the stack failed */
	STAT_UNWIND_DEPTH,		/* MAX_STACK_DEPTH frames */
	STAT_UNWIND_BAD_ADDRESS,	/* a return address that is no user address */
	STAT_UNWIND_IMPLAUSIBLE,	/* a frame-pointer step found no plausible caller */
	/* not a stop: stacks that crossed a file whose rows did not fit the
	 * budget (--unwind-rows, MAX_UNWIND_CHUNKS) and were walked there by
	 * frame pointers */
	STAT_UNWIND_NOT_LOADED,
	/* not a stop: stacks that took a checked frame-pointer step where no
	 * CFI covered the address (JIT code, hand-written assembly, gaps) */
	STAT_UNWIND_FP_STEPS,
	/* not a stop: stacks that crossed a file whose table was still being
	 * built, walked there by frame pointers */
	STAT_UNWIND_PENDING,
	/* not a stop: samples whose user stack was copied out (struct
	 * early_stack) to be walked in user space once the process's tables
	 * are in; counted in neither the counts map nor a lost reason here:
	 * user space adds each to the profile with its walk's stop */
	STAT_UNWIND_DEFERRED,
	/* Python frames (bpf/python.bpf.h): read, and native frames of the
	 * interpreter's eval loop whose Python frames could not be */
	STAT_PY_FRAMES,			/* Python frames recorded */
	STAT_PY_NO_THREAD,		/* no thread state of this thread found */
	STAT_PY_READ_FAULT,		/* reading a frame or the thread state failed */
	STAT_PY_TRUNCATED,		/* more Python frames than the stack had room for */
	/* JavaScript frames (bpf/v8.bpf.h) */
	STAT_V8_FRAMES,			/* JavaScript frames recorded */
	STAT_V8_READ_FAULT,		/* a JSFunction whose SharedFunctionInfo could not be read */
	STAT_V8_TRUNCATED,		/* no room left for a JavaScript frame's two slots */
	STAT_MAX,
};

#define STAT_LOST_FIRST		STAT_LOST_STACKMAP_FULL
#define STAT_LOST_LAST		STAT_LOST_COUNTS_TRANSIENT

/* Never-drained per-CPU totals, the independent count the drained
 * generations must add up to. */
enum total_kind {
	TOTAL_SAMPLES = 0,	/* samples that passed the filters */
	TOTAL_OFFCPU_US,	/* off-CPU microseconds added to counts */
	TOTAL_MAX,
};

/* The stats map holds NR_GENS * STAT_MAX counters per CPU: gen * STAT_MAX + kind. */
#define STAT_SLOTS		(NR_GENS * STAT_MAX)

/* --call-graph: how user stacks are taken (the loader's constant). */
enum unwind_mode {
	UNWIND_FP = 0,		/* the kernel walks frame pointers (bpf_get_stack) */
	UNWIND_DWARF = 1,	/* every frame from its file's CFI rows */
	UNWIND_AUTO = 2,	/* per frame: FP in files that keep them, else CFI rows */
};

/*
 * --call-graph auto and dwarf: one row of a file's unwind table, built in user space
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

/*
 * A file's page index, loaded before its rows in the same run of a chunk
 * (user/unwind/row_index.c builds it): the row that covers an address is
 * found in O(1) reads, the search then within the few rows that start in
 * the address's page, not a binary search over the whole file (~20 reads,
 * 1.9-2.6 us of a whole-machine sample). Row `first - 1` of the chunk is
 * the head; the nslots = (npages + 2) / 3 rows before it the slots: slot k
 * holds count[j] = how many of the file's rows have pc <= the start of
 * page 3k + j (j = 0..3: each slot holds the next slot's first count too,
 * so a page's two counts are one read). Page p of the file is the 2^shift
 * bytes from (base_page + p) << shift; pages cover the first row's pc to
 * the last one's. Both are the size of a row (asserted in row_index.c).
 */
#define ROW_INDEX_PER_SLOT	3
struct row_index_head {
	__u64 base_page;	/* the first row's pc >> shift */
	__u32 npages;
	__u8 shift;
	__u8 pad[3];
};

struct row_index_slot {
	__u32 count[ROW_INDEX_PER_SLOT + 1];
};

/* unwind_map.file when the mapping's frames are walked by frame pointers:
 * the file keeps them everywhere (auto), or has no usable CFI (auto) */
#define UNWIND_FILE_FP		0xffffffffu
/* ... or its rows did not fit the budget: frame pointers, counted */
#define UNWIND_FILE_NOT_LOADED	0xfffffffeu
/* ... or its table is still being built: frame pointers, counted */
#define UNWIND_FILE_PENDING	0xfffffffdu
/* a slot of unwind_files, not one of the above */
#define UNWIND_FILE_HAS_ROWS(f)	((f) < UNWIND_FILE_PENDING)

/* One executable mapping of a process, for the unwinder: addresses in
 * [start, end) are file virtual address + bias, and the file's rows are
 * nrows rows from row `first` of the chunk in slot `file` of unwind_files
 * (many files share a chunk: user/unwind/rowstore.h). */
struct unwind_map {
	__u64 start, end;
	__u64 bias;
	__u32 file;		/* slot in unwind_files, or UNWIND_FILE_* */
	__u32 nrows;
	__u32 first;		/* the file's first row in that chunk */
	__u32 flags;		/* UNWIND_MAP_*: user space's notes; the BPF side ignores them */
};

/* unwind_map.flags: the mapping's file (UNWIND_FILE_PENDING) has no table
 * because no sample has asked for one yet (lazy tables, fleet mode): not
 * being built, so a copied stack does not wait for it unless its walk
 * needs it (user/unwind/replay.h, replay__unasked) */
#define UNWIND_MAP_UNASKED	1u

/* unwind_proc.walk_flags, the walk's notes in the BPF side's per-CPU copy */
#define WALK_NOT_LOADED		1u	/* crossed a file whose rows did not fit */
#define WALK_FP_STEPS		2u	/* took a frame-pointer step where no CFI covered */
#define WALK_PENDING		8u	/* crossed a file whose table was being built */
#define WALK_GUESSED		4u	/* the last step was by frame pointer: its
					 * return address must lie in a mapping */

/* A process's executable mappings without a file (JIT code), as the BPF
 * side found them (bpf_find_vma), kept across its samples: one lookup per
 * sample is all the helper gives with interrupts off, and a JIT's code
 * spans several mappings (HotSpot's code heap) */
#define EXEC_RANGES		8	/* a power of 2 */
struct exec_ranges {
	__u64 start[EXEC_RANGES], end[EXEC_RANGES];
	__u32 next;		/* the slot a new range takes when none is free */
	__u32 pad;
};

/* A sample taken before its process's tables were in (no entry yet, or a
 * file's table still being built): its registers, kernel frames and the
 * top of its user stack, walked later by user space with the same rows
 * (user/unwind/replay.c), rather than by frame pointers now. The stack is
 * read by whole pages from the one holding sp, up to 7 (clang's stacks
 * are deeper than 3 pages: a quarter of its copies ended in a read fault),
 * as far as the stack goes: a read that crosses the stack's end fails
 * whole. A record is as long as what was read (len): a shallow stack's
 * copy is small in the ring and in user space. The whole record stays
 * under the 32 KiB a per-CPU map value may have (early_scratch). */
#define EARLY_STACK_PAGES	7
#define EARLY_PAGE		4096
#define EARLY_AGE_NS		5000000000ull	/* no entry: only this young a process */
#define EARLY_RING_BYTES	(1u << 20)	/* the ring of them (maps.bpf.h) */
struct early_stack {
	struct stack_key key;	/* kstack, ustack unused */
	__u32 g;		/* the generation the sample belongs to */
	__u32 knr;		/* kernel frames in kips */
	__u64 ip, sp, bp;	/* the user registers at the sample */
	__u64 base;		/* user address of stack[0]: sp's page */
	__u64 len;		/* bytes of stack read, whole pages: the record ends there */
	__u64 kips[MAX_STACK_DEPTH];
	__u8 stack[EARLY_STACK_PAGES * EARLY_PAGE];
};

struct unwind_proc {
	__u32 nmaps;
	__u32 walk_flags;	/* 0 from user space; WALK_* in the BPF side's copy */
	/* the BPF side's copy: the last executable VMA found outside the
	 * maps (JIT code), [start, end); 0 from user space */
	__u64 exec_start, exec_end;
	/* the exec whose mappings these are (exec_times, 0: none since the
	 * run began): an entry user space read before an exec and wrote
	 * after it describes the old image, and is not used */
	__u64 exec_time;
	struct unwind_map maps[MAX_UNWIND_MAPS];	/* sorted by start, none overlapping */
};

#include "runtimes.h"	/* the runtimes' frames in a user stack, their layouts */

#endif /* BPFPROF_PROFILE_H */
