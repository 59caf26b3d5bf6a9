/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JavaScript frames of V8 (node), called from the native user-stack
 * unwinder for each frame of a process user/v8/ found a V8 in: a frame
 * whose code is JIT code (anonymous executable memory) or V8's builtins in
 * the file (the interpreter's entry runs interpreted functions) is a
 * JavaScript frame when the slot fp_function below its frame pointer
 * holds a heap object whose Map says JSFunction. V8's JavaScript frames
 * keep the frame pointer, so the native unwinder walks them; this only
 * records, instead of the frame's bare address, the function's
 * SharedFunctionInfo (bpf/v8.h), which user space names from the
 * process's memory.
 *
 * Included by runtimes.bpf.h (after hash_step() and the stats map).
 */
#ifndef BPFPROF_V8_BPF_H
#define BPFPROF_V8_BPF_H

/* tgid -> its V8's layout; written by user/v8, gone at the process's
 * exec or end (task_exit). Not preallocated: memory for what is there. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_V8_PROCS);
	__type(key, __u32);
	__type(value, struct v8_proc);
} v8_procs SEC(".maps");

/* Functions sampled and not yet read by user space, which deletes them
 * once read; a lookup first, so a known one costs no update. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_V8_SFIS);
	__type(key, struct v8_sfi_key);
	__type(value, __u8);
} v8_sfis SEC(".maps");

/* Functions noted since the start: user space walks v8_sfis only when
 * this moved. */
volatile __u64 v8_sfis_noted = 0;

/* The sample's process's entry, copied once per sample (per CPU): each
 * frame's test then reads an array slot, not a hash entry. */
struct v8_walk {
	__u32 on;		/* the sample's process has a V8 */
	__u32 tgid;
	__u64 start_time;
	__u64 pc, fp;		/* the frame v8_step() looks at (5 arguments at most) */
	struct v8_proc p;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct v8_walk);
} v8_walks SEC(".maps");

/* Set by user space when it first stores a v8_procs entry: until then a
 * sample looks nothing up there. */
volatile __u32 v8_procs_stored = 0;

static __always_inline struct v8_walk *v8_walk_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&v8_walks, &zero);
}

static __always_inline void v8_begin(__u32 tgid, __u64 start_time)
{
	struct v8_walk *w = v8_walk_get();
	const struct v8_proc *p = NULL;

	if (!w)
		return;
	if (v8_procs_stored)
		p = bpf_map_lookup_elem(&v8_procs, &tgid);
	w->on = p != NULL;
	w->tgid = tgid;
	w->start_time = start_time;
	if (p)
		w->p = *p;
}

static __always_inline bool v8_tagged(const struct v8_proc *p, __u64 v)
{
	return (v & p->heap_mask) == p->heap_tag;
}

/* The object at tagged address v's field off, 8 bytes; 0 when unreadable. */
static __always_inline __u64 v8_field(const struct v8_proc *p, __u64 v, __u32 off)
{
	__u64 out = 0;

	if (bpf_probe_read_user(&out, sizeof(out), (const void *)(v - p->heap_tag + off)))
		return 0;
	return out;
}

/* The frame at w->pc with frame pointer w->fp, when a JavaScript
 * function's: its two slots into st (bpf/v8.h). A global function,
 * verified once. */
__noinline int v8_step(const struct v8_walk *w, struct stack_trace *st, __u64 *hash, __u32 g)
{
	const struct v8_proc *p;
	struct v8_sfi_key k = { 0 };
	__u64 fn, ctx, map, sfi, slot, word, pc, fp, finger, n;
	__u16 type = 0;
	__u8 one = 1;

	if (!w || !st || !hash)
		return 0;
	pc = w->pc;
	fp = w->fp;
	if (pc >> V8_PC_BITS || fp >> V8_PC_BITS || !fp)
		return 0;
	p = &w->p;
	fn = 0;
	ctx = 0;
	/* a typed frame (entry, exit, stub, internal) has a Smi marker where
	 * a JavaScript frame has its context: not a function's */
	if (bpf_probe_read_user(&ctx, sizeof(ctx), (const void *)(fp + (__s64)p->fp_context)) ||
	    !v8_tagged(p, ctx) ||
	    bpf_probe_read_user(&fn, sizeof(fn), (const void *)(fp + (__s64)p->fp_function)) ||
	    !v8_tagged(p, fn))
		return 0;
	map = v8_field(p, fn, p->obj_map);
	if (!v8_tagged(p, map) ||
	    bpf_probe_read_user(&type, sizeof(type), (const void *)(map - p->heap_tag + p->map_type)) ||
	    type < p->type_function || type >= p->type_function + V8_FN_TYPES)
		return 0;
	sfi = v8_field(p, fn, p->fn_shared);
	if (!v8_tagged(p, sfi) || sfi >> V8_PC_BITS) {
		slot_inc(&stats, g * STAT_MAX + STAT_V8_READ_FAULT);
		return 0;
	}
	n = st->nr;
	if (n >= MAX_STACK_DEPTH - 1) {	/* room for both slots */
		slot_inc(&stats, g * STAT_MAX + STAT_V8_TRUNCATED);
		return 0;
	}
	finger = V8_FINGER(v8_field(p, sfi, p->sfi_name), v8_field(p, sfi, p->sfi_script));
	slot = V8_FRAME(pc, finger);
	word = RUNTIME_WORD(RUNTIME_V8, sfi);
	st->ips[n] = slot;
	st->ips[n + 1] = word;
	st->nr = n + 2;
	*hash = hash_step(hash_step(*hash, slot), word);
	k.tgid = w->tgid;
	k.finger = (__u32)finger;
	k.start_time = w->start_time;
	k.sfi = sfi;
	note_once(&v8_sfis, &k, &one, &v8_sfis_noted);
	slot_inc(&stats, g * STAT_MAX + STAT_V8_FRAMES);
	return 1;
}

/* The native frame at pc (frame pointer fp) of the sample's process,
 * recorded as a JavaScript frame when it is one: tested in V8's builtins
 * and outside V8's file (JIT code; the unwinder's own view of which code
 * is JIT's varies with the mappings it keeps), not in V8's C++. */
static __always_inline bool v8_frame_instead(__u64 pc, __u64 fp, struct stack_trace *st,
					     __u64 *hash, __u32 g)
{
	struct v8_walk *w = v8_walk_get();

	if (!w || !w->on ||
	    ((pc < w->p.code_start || pc >= w->p.code_end) &&
	     pc >= w->p.text_start && pc < w->p.text_end))
		return false;
	w->pc = pc;
	w->fp = fp;
	return v8_step(w, st, hash, g);
}

#endif
