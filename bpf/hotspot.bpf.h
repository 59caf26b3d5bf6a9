/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HotSpot's (OpenJDK 17's) frames stepped through, called from the native
 * user-stack unwinder for each frame in anonymous executable memory of a
 * process user/hotspot/ found a JVM in. Compiled code without
 * -XX:+PreserveFramePointer uses rbp as any register, so a frame-pointer
 * step out of it skips its callers or stops: here the code's CodeBlob is
 * found as the VM finds it (the code heap's segment map, hop by hop back to
 * its block's first segment), and its frame stepped by the size the blob
 * records (x86-64: CFA = sp + _frame_size words, the return address below
 * it, the caller's rbp below that). The innermost frame may be in its
 * prologue (before _frame_complete_offset) or epilogue (the bytes at the
 * pc: pop rbp, ret), where less of the frame is on the stack. Interpreted
 * frames keep rbp as their link and their sender's sp in a slot below it;
 * stubs without a frame size keep rbp frames (the call stub) or push
 * nothing (vtable chunks). An interpreted frame is recorded as its
 * method (the Method* in its slot below fp), which user space names.
 * Everything read is the process's: a frame size out of bounds or a
 * sender below its frame ends the walk, counted as implausible; a pc in
 * no blob goes back to the frame-pointer step.
 *
 * Included by runtimes.bpf.h.
 */
#ifndef BPFPROF_HOTSPOT_BPF_H
#define BPFPROF_HOTSPOT_BPF_H

/* hs_step(): the frame is not HotSpot's, the native step goes on */
#define HS_NOT_MINE	(-1)

/* tgid -> its HotSpot's layout; written by user/hotspot, gone at the
 * process's exec or end. Not preallocated: memory for what is there. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_HS_PROCS);
	__type(key, __u32);
	__type(value, struct hs_facts);
} hs_procs SEC(".maps");

/* Interpreted methods sampled and not yet named by user space, which
 * deletes them once read; a lookup first, so a known one costs no update. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_HS_METHODS);
	__type(key, struct hs_method_key);
	__type(value, __u8);
} hs_methods SEC(".maps");

/* Methods noted since the start: user space walks hs_methods only when
 * this moved. */
volatile __u64 hs_methods_noted = 0;

/* Set by user space when it first stores an hs_procs entry: until then a
 * sample looks nothing up there. */
volatile __u32 hs_procs_stored = 0;

/* The sample's process's entry, copied once per sample (per CPU). */
struct hs_walk {
	__u32 on;
	__u32 tgid;
	__u64 start_time;
	__u64 pc, fp;		/* the frame hs_record() looks at (5 arguments at most) */
	struct hs_facts p;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_walk);
} hs_walks SEC(".maps");

static __always_inline struct hs_walk *hs_walk_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&hs_walks, &zero);
}

static __always_inline void hs_begin(__u32 tgid, __u64 start_time)
{
	struct hs_walk *w = hs_walk_get();
	const struct hs_facts *p = NULL;

	if (!w)
		return;
	if (hs_procs_stored)
		p = bpf_map_lookup_elem(&hs_procs, &tgid);
	w->on = p != NULL;
	w->tgid = tgid;
	w->start_time = start_time;
	if (p)
		w->p = *p;
}

/* The interpreted frame at w->pc (frame pointer w->fp): its two slots
 * into st (bpf/hotspot.h), its Method* noted for user space to name. A
 * global function, verified once. */
__noinline int hs_record(const struct hs_walk *w, struct stack_trace *st, __u64 *hash)
{
	struct hs_method_key k = { 0 };
	__u64 method = 0, slot, word, n;
	__u8 one = 1;

	if (!w || !st || !hash || !w->fp || w->fp >> HS_PC_BITS ||
	    bpf_probe_read_user(&method, sizeof(method),
				(const void *)(w->fp + (__s64)w->p.frame_method * 8)) ||
	    !method || method >> HS_PC_BITS || (method & 7))
		return 0;
	n = st->nr;
	if (n >= MAX_STACK_DEPTH - 1)	/* room for both slots */
		return 0;
	slot = HS_FRAME(w->pc);
	word = RUNTIME_WORD(RUNTIME_HOTSPOT, method);
	st->ips[n] = slot;
	st->ips[n + 1] = word;
	st->nr = n + 2;
	*hash = hash_step(hash_step(*hash, slot), word);
	k.tgid = w->tgid;
	k.start_time = w->start_time;
	k.method = method;
	note_once(&hs_methods, &k, &one, &hs_methods_noted);
	return 1;
}

/* The native frame at pc (frame pointer fp) of the sample's process,
 * recorded as the interpreted Java method it runs when it is the
 * interpreter's code. */
static __always_inline bool hs_frame_instead(__u64 pc, __u64 fp, struct stack_trace *st,
					     __u64 *hash)
{
	struct hs_walk *w = hs_walk_get();

	if (!w || !w->on || pc < w->p.interp_start || pc >= w->p.interp_end)
		return false;
	w->pc = pc;
	w->fp = fp;
	return hs_record(w, st, hash);
}

/* Out of a frame of `words` words above sp: the return address the top
 * one, the caller's rbp the one below it (2 words or more). */
static __always_inline int hs_pop(struct runtime_regs *r, __u64 words)
{
	__u64 cfa = r->sp + words * 8, frame[2];

	if (bpf_probe_read_user(frame, sizeof(frame), (const void *)(cfa - 16)))
		return STAT_UNWIND_READ_FAULT;
	if (!frame[1])
		return STAT_UNWIND_END;
	if (words >= 2)
		r->bp = frame[0];
	r->sp = cfa;
	r->ip = frame[1];
	return 0;
}

/* Out of a frame whose rbp links it: the caller's sp is sender_slot's
 * word (an interpreted frame's sender sp, 0: none) or the word above the
 * return address. */
static __always_inline int hs_fp_pop(struct runtime_regs *r, __s64 sender_slot)
{
	__u64 fp = r->bp, frame[2], sender = fp + 16;

	if (fp < r->sp || fp - r->sp > HS_FRAME_FAR || (fp & 7))
		return STAT_UNWIND_IMPLAUSIBLE;
	if (bpf_probe_read_user(frame, sizeof(frame), (const void *)fp) ||
	    (sender_slot && bpf_probe_read_user(&sender, sizeof(sender),
						(const void *)(fp + sender_slot * 8))))
		return STAT_UNWIND_READ_FAULT;
	if (!frame[1])
		return STAT_UNWIND_END;
	if (sender <= fp || sender - fp > HS_FRAME_FAR)	/* a caller lies above */
		return STAT_UNWIND_IMPLAUSIBLE;
	r->sp = sender;
	r->bp = frame[0];
	r->ip = frame[1];
	return 0;
}

/* The block of heap h whose segments hold pc: its first segment's
 * address; 0 when free, unreadable or further than HS_BPF_HOPS hops. */
static __always_inline __u64 hs_block(const struct hs_heap *h, __u64 pc)
{
	__u32 shift = h->log2_seg & 31;
	__u64 seg = (pc - h->low) >> shift;
	__u8 back = 0xff;

	for (int i = 0; i < HS_BPF_HOPS; i++) {
		if (bpf_probe_read_user(&back, 1, (const void *)(h->segmap + seg)))
			return 0;
		if (!back || back == 0xff || back > seg)
			break;
		seg -= back;
	}
	return back ? 0 : h->low + (seg << shift);
}

/* The epilogue's words still on the stack at the innermost pc of a
 * compiled frame (x86-64: add rsp; pop rbp; [poll]; ret): 2 on pop rbp,
 * 1 on ret or just after pop rbp; 0: not an epilogue. */
static __always_inline __u64 hs_epilogue_words(__u64 pc)
{
	__u8 code[2];	/* the byte before pc, the byte at it */

	if (bpf_probe_read_user(code, sizeof(code), (const void *)(pc - 1)))
		return 0;
	if (code[1] == 0xc3)		/* ret */
		return 1;
	if (code[1] == 0x5d)		/* pop rbp */
		return 2;
	if (code[0] == 0x5d)		/* after pop rbp: its poll, then ret */
		return 1;
	return 0;
}

/* A blob with a frame size (nmethods, runtime stubs): words on the stack
 * at pc, from its size or, innermost, from where in its code pc is. */
static __always_inline __u64 hs_frame_words(__u64 pc, bool top, __u64 code_begin, __s32 size,
					    __s32 complete)
{
	__u64 epi;

	if (!top)
		return (__u64)size;
	if (complete > 0 && pc < code_begin + (__u64)complete)	/* its prologue */
		return pc + 4 >= code_begin + (__u64)complete ? 2 : 1;
	epi = hs_epilogue_words(pc);
	return epi ? epi : (__u64)size;
}

/* The blob holding pc in one of the process's code heaps: its code's
 * start, frame size and complete offset. false: in none. */
static __always_inline bool hs_blob(const struct hs_facts *p, __u64 pc, __u64 *code_begin,
				    __s32 *size, __s32 *complete)
{
	const struct hs_heap *h = NULL;
	__u64 block, blob;

	for (int i = 0; i < HS_BPF_HEAPS; i++)
		if (i < p->nheaps && pc >= p->heaps[i].low && pc < p->heaps[i].high)
			h = &p->heaps[i];
	if (!h)
		return false;
	block = hs_block(h, pc);
	if (!block)
		return false;
	blob = block + p->block_size;
	return !bpf_probe_read_user(code_begin, sizeof(*code_begin),
				    (const void *)(blob + p->blob_code_begin)) &&
	       !bpf_probe_read_user(size, sizeof(*size), (const void *)(blob + p->blob_frame_size)) &&
	       !bpf_probe_read_user(complete, sizeof(*complete),
				    (const void *)(blob + p->blob_frame_complete)) &&
	       pc >= *code_begin;
}

/* The step out of the frame at pc (the return address less one but for
 * the innermost) of a JVM's code: 0 and r the caller's, a STAT_UNWIND_*
 * stop, or HS_NOT_MINE. A global function, verified once on its own. */
__noinline int hs_step(struct runtime_regs *r, __u64 pc)
{
	struct hs_walk *w = hs_walk_get();
	const struct hs_facts *p;
	__u64 code_begin = 0;
	__s32 size = 0, complete = 0;
	bool top;

	if (!r || !w || !w->on)
		return HS_NOT_MINE;
	p = &w->p;
	top = pc == r->ip;
	if (pc >= p->interp_start && pc < p->interp_end)
		return hs_fp_pop(r, p->frame_sender_sp);
	if (!hs_blob(p, pc, &code_begin, &size, &complete))
		return HS_NOT_MINE;
	if (size < 0 || size > HS_FRAME_WORDS_MAX)
		return STAT_UNWIND_IMPLAUSIBLE;
	if (size > 0)
		return hs_pop(r, hs_frame_words(pc, top, code_begin, size, complete));
	/* a stub without a frame size: an rbp frame (the call stub), or,
	 * innermost with rbp not one, only its return address (vtable chunks) */
	if (top && (r->bp < r->sp || r->bp - r->sp > HS_FRAME_FAR))
		return hs_pop(r, 1);
	return hs_fp_pop(r, 0);
}

#endif
