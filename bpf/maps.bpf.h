/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF side's configuration and maps, and the small helpers every path
 * uses to count and to store a stack. Included once, by profile.bpf.c,
 * before stack.bpf.h.
 *
 * Maps come in two generations so user space can drain while sampling goes
 * on: a sample reads `gen` once and touches only that generation's maps.
 */
#ifndef BPFPROF_MAPS_BPF_H
#define BPFPROF_MAPS_BPF_H

#define E2BIG	7
#define EFAULT	14
#define EEXIST	17

/* Set by the loader before load; constant for the verifier. */
const volatile bool filter_tgids = false;	/* -p, -- COMMAND */
const volatile bool filter_tids = false;	/* -t */
const volatile bool filter_cgroup = false;	/* --cgroup */
/* the cgroup id in the key: off when no label, grouping or output needs
 * it (--labels without cgroup, container, pod, unit), so samples of one
 * stack in many cgroups are one count */
const volatile bool key_cgroup = true;
const volatile bool filter_comm = false;	/* --comm */
const volatile char comm_filter[TASK_COMM_LEN] = {};
const volatile bool follow_forks = false;	/* -- COMMAND: its children too */
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;
const volatile __u32 unwind_mode = UNWIND_FP;	/* enum unwind_mode: --call-graph */
const volatile bool lazy_tables = false;	/* fleet mode -a: tables for sampled processes */
/* asks go onto unwind_asks: not when a hardware event samples, in an NMI,
 * where a queue push before kernel 6.6 takes the queue's lock without a
 * trylock (a deadlock against user space's pop on that CPU) */
const volatile bool ask_queue = false;
const volatile bool early_stacks = false;	/* auto, dwarf: copy stacks taken before tables */
const volatile __u32 offcpu_event = 0;		/* event index of off-CPU time */
const volatile __u64 min_block_ns = 1000;
const volatile __u64 tick_ns = 10000000;	/* the unit of /proc's start times (1 s / USER_HZ) */

/* The generation samples go to is gen & 1; user space adds 1 at each
 * flip, so gen's value tells one writing of a generation from the next
 * (the stored-stack hints' epoch). Written by user space only. */
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

/* Stacks taken before their process's tables, to be walked by user space
 * (struct early_stack): 1.1 KiB and the pages read, 5-29 KiB each, so 1 MiB
 * holds 35-200, 0.2-1 s of 99 Hz samples on two CPUs before user space
 * reads it (each record wakes its loop). Small, as user space maps it and
 * its pages count in bpfprof's RSS. When it is full, the sample is walked
 * now, as before, by frame pointers. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, EARLY_RING_BYTES);
} early SEC(".maps");

/* A record is made here, then sent as long as its stack read (copy_stack()). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct early_stack);
} early_scratch SEC(".maps");

/* tgid -> when it last exec'd (bpf_ktime_get_ns, CLOCK_MONOTONIC); the
 * entry goes when the process ends (task_exit). Not preallocated: kernel
 * memory for the processes that exec'd and live, not for MAX_EXEC_TIMES. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
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

/* enum total_kind: never drained */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TOTAL_MAX);
	__type(key, __u32);
	__type(value, __u64);
} total SEC(".maps");

/* Both halves of a stack as taken, before they are stored: their frames
 * and hashes. */
struct stacks {
	__u64 khash, uhash;
	struct stack_trace kst, ust;
};

/* A thread that went off CPU: when, who, and its stacks' frames. The
 * frames are kept here, not in a generation's stack map, so a block that
 * spans a drain is stored, whole, into the generation it ends in. */
struct blocked {
	__u64 since;
	struct stack_key key;
	struct stacks s;
};

/* Where every stack is taken: one per CPU, the size of a blocked entry so
 * that off-CPU builds its entry here before storing it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blocked);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_OFFCPU_THREADS);
	__type(key, __u32);
	__type(value, struct blocked);
} blocked SEC(".maps");

/* --call-graph auto/dwarf: each loaded file's rows in an array of their
 * own (sized to them by user space, BPF_F_INNER_MAP), one slot per file,
 * freed by emptying the slot; per process, its executable mappings and
 * which file slot each uses. */
struct unwind_rows_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	/* mmapable: user space writes the rows into the map's pages */
	__uint(map_flags, BPF_F_INNER_MAP | BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	/* a size, not a type: clang emits the row's BTF only as a forward
	 * declaration here, which libbpf cannot size */
	__uint(value_size, sizeof(struct unwind_row));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MAX_UNWIND_CHUNKS);
	__type(key, __u32);
	__array(values, struct unwind_rows_map);
} unwind_files SEC(".maps");

/* Not an LRU (always preallocated: 12 MiB): entries are deleted when their
 * process exits; when full, a new process is walked by frame pointers. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_UNWIND_PROCS);
	__type(key, __u32);
	__type(value, struct unwind_proc);
} unwind_procs SEC(".maps");

/* tgid -> the JIT mappings its walks found (struct exec_ranges); deleted
 * at its exec and exit. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_UNWIND_PROCS);
	__type(key, __u32);
	__type(value, struct exec_ranges);
} exec_ranges SEC(".maps");

/* Fleet mode over the whole machine builds a process's tables when it is
 * first sampled, not every running program's at start: a sample of a
 * process without an entry puts its tgid here (value 0: asked; user space
 * sets 1 once it has synced it) and counts unwind_asked, so user space
 * walks the map only when that moved. task_exit deletes the entry: a new
 * process given the pid asks again. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_UNWIND_PROCS);
	__type(key, __u32);
	__type(value, __u32);
} unwind_wanted SEC(".maps");

volatile __u64 unwind_asked = 0;

/* The asks in the order they came, each tgid once (unwind_wanted
 * dedupes): user space pops them, and serves a few processes without
 * reading every one that was ever served. An ask not queued (the queue
 * full or busy, or no queue: ask_queue) is counted in unwind_asks_lost
 * and user space walks unwind_wanted whole. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, UNWIND_ASK_QUEUE);
	__type(value, __u32);
} unwind_asks SEC(".maps");

volatile __u64 unwind_asks_lost = 0;

/* Row hints: per CPU, where the last search for an address of a file's
 * region of ROW_HINT_REGION bytes ended, in a direct-mapped table. A row
 * covers most of a function's body, so another address of the region is
 * mostly in the same row (the whole machine's samples missed hints keyed
 * by the exact address: 2.1-2.3 us of binary search a sample). A hint is
 * only a guess, checked against the rows themselves (find_row.bpf.h): a
 * file slot reused by another file, a colliding region or an address of
 * the region in another row costs a full search, never a wrong row. */
#define ROW_HINTS		2048	/* a power of 2 */
#define ROW_HINT_REGION_SHIFT	6	/* 64 bytes */

struct row_hint {
	__u32 file;
	__u32 row;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ROW_HINTS);
	__type(key, __u32);
	__type(value, struct row_hint);
} row_hints SEC(".maps");

/* The walked thread's stack, read a window at a time (stack.bpf.h): a
 * user read costs ~40 ns on this VM whatever its size up to 1 KiB, and a
 * walk reads one or two words a frame, most of them within a few hundred
 * bytes of each other. Per CPU; valid for one walk. */
#define STACK_WINDOW	1024	/* a power of 2 */
#define USER_PAGE	4096
struct stack_window {
	__u64 base;		/* user address of bytes[0] */
	__u64 len;		/* bytes held; 0: none */
	__u8 bytes[STACK_WINDOW];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_window);
} stack_windows SEC(".maps");

/* Every change to unwind_procs (user space's writes and deletes, an
 * exec's delete) adds 1, after the change: a CPU's copy of a process's
 * entry (proc_copy) is used again while the count has not moved. */
volatile __u64 unwind_procs_changes = 0;

/* The sampled process's entry, copied to the CPU (stack.bpf.h), and which
 * entry it is a copy of: the next sample of the same process on this CPU
 * walks it again without the hash lookup and the copy. */
struct proc_copy {
	struct unwind_proc p;
	__u64 changes;		/* unwind_procs_changes when copied */
	__u32 tgid;
	__u32 fills;		/* copies begun: one an NMI made in ours shows */
	__u32 valid;		/* p is tgid's entry as of changes */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct proc_copy);
} proc_scratch SEC(".maps");

/* Stacks stored lately, per CPU: a small direct-mapped table of (stack
 * key, epoch). A hit skips the stack map's lookup (its hash and bucket
 * walk: ~100 ns a sample here); the epoch, gen's value when it was
 * stored, says the stack is in the generation written now, not in one
 * drained since. A miss or a collision costs the lookup, never a stack. */
#define STORED_HINTS	256	/* a power of 2 */
struct stored_hint {
	__u64 key;
	__u32 epoch;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STORED_HINTS);
	__type(key, __u32);
	__type(value, struct stored_hint);
} stored_hints SEC(".maps");

/* key goes into map (with value) once: true the time it went in. A
 * lookup first: a key there already takes no lock. */
static __always_inline bool insert_once(void *map, const void *key, const void *value)
{
	return !bpf_map_lookup_elem(map, key) && !bpf_map_update_elem(map, key, value, BPF_NOEXIST);
}

/* ... and *noted counts it, so user space walks the map only when the
 * count moved. */
static __always_inline void note_once(void *map, const void *key, const void *value,
				      volatile __u64 *noted)
{
	if (insert_once(map, key, value))
		__sync_fetch_and_add(noted, 1);
}

static __always_inline void slot_inc(void *map, __u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(map, &slot);

	if (v)
		(*v)++;	/* per-CPU: no other writer */
}

static __always_inline void add_total(__u32 kind, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&total, &kind);

	if (v)
		*v += n;
}

static __always_inline void stat_inc(__u32 g, __u32 kind)
{
	slot_inc(&stats, g * STAT_MAX + kind);
}

#define FNV_OFFSET	0xcbf29ce484222325ull
#define FNV_PRIME	0x100000001b3ull

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

static __always_inline struct stored_hint *stored_hint_slot(__u64 key)
{
	__u32 slot = (__u32)(key ^ (key >> 32)) & (STORED_HINTS - 1);

	return bpf_map_lookup_elem(&stored_hints, &slot);
}

/* Why an insert into a hash map failed (not -EEXIST): -E2BIG is the one
 * error of a map at max_entries (full: --max-stacks helps). The others
 * pass with the moment, in a map far from full: -ENOMEM, the kernel's
 * per-CPU cache of elements of a BPF_F_NO_PREALLOC map empty until its
 * refill runs (a burst of new stacks); -EBUSY (before 6.15), -EDEADLK or
 * -ETIMEDOUT (since) when the bucket's lock is held by what this program
 * interrupted on its CPU. */
static __always_inline __u32 insert_lost(long err, __u32 full, __u32 transient)
{
	return err == -E2BIG ? full : transient;
}

/* Stores the frames under their key in generation g's map of their depth
 * class, written in epoch (gen's value, g = epoch & 1); *key = the key
 * (STACK_NONE for no frames). A stack already there is found by its hint
 * or a lookup, neither of which takes a lock. Returns 0 or the reason the
 * sample is lost. */
static __always_inline __u32 store_stack(__u32 g, __u32 epoch, const struct stack_trace *st, __u64 h,
					 __u64 *key)
{
	__u32 cls = STACK_CLASS(st->nr);
	void *stacks = stack_map(g, cls);
	struct stored_hint *hint;
	long err;

	*key = STACK_NONE;
	if (!st->nr)
		return 0;
	*key = STACK_KEY(h, cls);
	hint = stored_hint_slot(*key);
	if (hint && hint->key == *key && hint->epoch == epoch)
		return 0;
	if (!bpf_map_lookup_elem(stacks, key)) {
		err = bpf_map_update_elem(stacks, key, st, BPF_NOEXIST);
		/* -EEXIST: another CPU stored the same frames in between */
		if (err && err != -EEXIST)
			return insert_lost(err, STAT_LOST_STACKMAP_FULL,
					   STAT_LOST_STACKMAP_TRANSIENT);
	}
	if (hint) {
		hint->key = *key;
		hint->epoch = epoch;
	}
	return 0;
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
	return insert_lost(err, STAT_LOST_COUNTS_FULL, STAT_LOST_COUNTS_TRANSIENT);
}

#endif
