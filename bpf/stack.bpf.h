/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Taking stacks: the kernel's by bpf_get_stack(), the user's through ONE
 * path for every program (perf events, tracepoints, uprobes, off-CPU), the
 * loader's constant unwind_mode choosing how:
 *
 *   fp     the kernel walks frame pointers (bpf_get_stack);
 *   dwarf  every frame from its file's CFI rows: find the rule for the
 *          address, compute the CFA, read the return address at CFA - 8
 *          and the caller's rbp where the rule says, step, repeat;
 *   auto   the same walk, but a frame in a file that keeps frame pointers
 *          everywhere (or has no CFI, or whose rows did not fit) takes a
 *          frame-pointer step instead: the choice is per frame, so a stack
 *          from an FP-built program through libc and back is whole.
 *
 * The walk starts from the task's user registers at kernel entry
 * (bpf_task_pt_regs), for a sample as for a thread going off CPU. A
 * process whose tables are not loaded yet is walked by frame pointers,
 * counted. Every user stack walked ends with exactly one STAT_UNWIND_*.
 * A runtime's frames (CPython's) are interleaved with the native ones
 * (runtimes.bpf.h, one call in the step).
 */
#ifndef BPFPROF_STACK_BPF_H
#define BPFPROF_STACK_BPF_H

/* A user address has bit 63 clear, which tells a native frame from a
 * runtime's (RUNTIME_FRAME_TAG) in a user stack: a return address read
 * from a corrupt frame may have it set. */
static __always_inline bool user_address(__u64 ip)
{
	return !RUNTIME_IS_FRAME(ip);
}

/* The hash of st's frames; user: a value that is no user address (read
 * from a corrupt or hand-made frame) ends the stack before it. A global
 * function, verified once on its own: inlined, its loop was verified
 * frame by frame at each of get_stack()'s calls (a quarter of the sample
 * program's instructions verified). */
__noinline __u64 hash_frames(struct stack_trace *st, int user)
{
	__u64 h = FNV_OFFSET;

	if (!st)
		return h;
	for (__u32 i = 0; i < MAX_STACK_DEPTH && i < st->nr; i++) {
		if (user && !user_address(st->ips[i])) {
			st->nr = i;
			break;
		}
		h = hash_step(h, st->ips[i]);
	}
	return h;
}

/* One half by bpf_get_stack() (flags: 0 for the kernel's, BPF_F_USER_STACK
 * for the kernel's frame-pointer walk of the user's), hashed. Returns 0
 * (nr 0: no such side here) or the reason the sample is lost. */
static __always_inline __u32 get_stack(void *ctx, struct stack_trace *st, __u64 *hash, __u64 flags)
{
	long bytes = bpf_get_stack(ctx, st->ips, sizeof(st->ips), flags);

	st->nr = 0;
	*hash = FNV_OFFSET;
	if (bytes == -EFAULT || bytes == 0)
		return 0;
	if (bytes < 0)
		return STAT_LOST_STACK_ERROR;
	st->nr = (__u64)bytes / sizeof(__u64);
	*hash = hash_frames(st, (flags & BPF_F_USER_STACK) != 0);
	return 0;
}

/* The walk's registers and hash. The frame count lives in the scratch
 * stack (st->nr) and the runtimes' flags in their per-CPU map: as values in
 * this context every count would be a verifier state of its own. */
struct unwind_ctx {
	__u64 ip, sp, bp;
	__u64 hash;
	struct unwind_map map;	/* the last frame's mapping: most callers share it */
	__u32 stop;		/* STAT_UNWIND_*, written only when the walk ends */
	__u32 g;		/* the generation this sample goes to (the runtimes' counters) */
};

/* The sampled process's entry, copied once per stack to a per-CPU slot:
 * every frame's lookups are then inlined array lookups, not hash ones. */
static __always_inline struct proc_copy *proc_copy_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&proc_scratch, &zero);
}

static __always_inline struct unwind_proc *proc_slot(void)
{
	struct proc_copy *pc = proc_copy_slot();

	return pc ? &pc->p : NULL;
}

#include "jit_vma.bpf.h"

/* The mapping covering pc: a binary search over the process's mappings
 * (sorted by start, none overlapping), a step per bpf_loop() call, so the
 * verifier checks one step, not every path through them. */
#define MAP_SEARCH_STEPS	8	/* 2^8 > MAX_UNWIND_MAPS */

struct map_search {
	__u64 pc;
	struct unwind_map m;
	__u32 lo, hi;
	bool found;
};

/* The mappings in the per-CPU slot (copy_proc bounds them). */
static __always_inline __u32 pr_nmaps(void)
{
	const struct unwind_proc *pr = proc_slot();

	return pr ? pr->nmaps : 0;
}

/* The walk's notes (WALK_*) live in map memory, which the verifier does
 * not track value by value: as values of the context each would be a
 * verifier state of its own. */
static __always_inline void walk_note(__u32 set, __u32 clear)
{
	struct unwind_proc *pr = proc_slot();

	if (pr)
		pr->walk_flags = (pr->walk_flags & ~clear) | set;
}

static __always_inline bool walk_noted(__u32 flag)
{
	struct unwind_proc *pr = proc_slot();

	return pr && (pr->walk_flags & flag);
}

static long map_search_step(__u32 i, struct map_search *ms)
{
	const struct unwind_proc *pr = proc_slot();
	__u32 mid;

	(void)i;
	if (!pr || ms->lo >= ms->hi)
		return 1;
	mid = ms->lo + (ms->hi - ms->lo) / 2;
	if (mid >= MAX_UNWIND_MAPS)
		return 1;
	if (ms->pc < pr->maps[mid].start) {
		ms->hi = mid;
	} else if (ms->pc >= pr->maps[mid].end) {
		ms->lo = mid + 1;
	} else {
		ms->m = pr->maps[mid];
		ms->found = true;
		return 1;
	}
	return 0;
}

#include "find_row.bpf.h"

static __always_inline struct stack_window *window_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stack_windows, &zero);
}

/* The window starting at addr: up to STACK_WINDOW bytes, not past addr's
 * page, which is mapped if addr is (a stack ends at a page boundary, and
 * one read that crosses it fails whole). Returns false if not read. */
static __always_inline bool window_fill(struct stack_window *w, __u64 addr)
{
	__u64 len = USER_PAGE - (addr & (USER_PAGE - 1));

	if (len > STACK_WINDOW)
		len = STACK_WINDOW;
	w->len = 0;
	if (bpf_probe_read_user(w->bytes, len, (void *)addr))
		return false;
	w->base = addr;
	w->len = len;
	return true;
}

/* The 8-byte word of the walked stack at addr when the window holds it,
 * else the window filled anew at addr. A global function, verified once
 * on its own: inlined at its four calls, its branches multiplied the
 * walk's states (1.0 s of verifier CPU at load against 0.25 s). */
__noinline long stack_word_miss(__u64 *dst, __u64 addr)
{
	struct stack_window *w = window_slot();

	if (!dst)
		return -1;
	/* a word across a page's end (a misaligned, corrupt frame): read
	 * as it is, both pages */
	if (!w || !window_fill(w, addr) || w->len < sizeof(*dst))
		return bpf_probe_read_user(dst, sizeof(*dst), (void *)addr);
	*dst = *(__u64 *)w->bytes;
	return 0;
}

/* The 8-byte word of the walked stack at addr. Returns 0 or the read's
 * error. */
static __always_inline long stack_word(__u64 *dst, __u64 addr)
{
	struct stack_window *w = window_slot();
	__u64 off;

	if (!w)
		return stack_word_miss(dst, addr);
	off = addr - w->base;	/* below the window: wraps, a miss */
	if (off > STACK_WINDOW - 8 || off + 8 > w->len)
		return stack_word_miss(dst, addr);
	*dst = *(__u64 *)(w->bytes + off);
	return 0;
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

/* One step by the frame's CFI row. Returns 0 to go on, else the stop. */
static __always_inline __u32 row_step(struct unwind_ctx *c, const struct unwind_row *row)
{
	__u64 cfa, ra;

	if (row->cfa_reg == CFA_END)
		return STAT_UNWIND_END;
	if (!compute_cfa(row, c, &cfa))
		return STAT_UNWIND_NO_RULE;
	if (stack_word(&ra, cfa - 8) ||
	    (row->rbp_offset != RBP_SAME && stack_word(&c->bp, cfa + row->rbp_offset)))
		return STAT_UNWIND_READ_FAULT;
	if (!ra)
		return STAT_UNWIND_END;
	c->sp = cfa;
	c->ip = ra;
	return 0;
}

/* One step by the frame pointer: the caller's rbp at rbp, the return
 * address above it, the caller's stack pointer above that. A frame
 * pointer of 0 is the outermost frame (_start and new threads clear it);
 * one below the stack pointer or misaligned is not a frame (callers sit
 * above their callees, so a chain of them only climbs). Its return
 * address is checked at the next step: it must lie in a mapping. */
static __always_inline __u32 fp_step(struct unwind_ctx *c)
{
	__u64 frame[2];		/* the caller's rbp, the return address */

	if (!c->bp)
		return STAT_UNWIND_END;
	if (c->bp < c->sp || (c->bp & 7))
		return STAT_UNWIND_IMPLAUSIBLE;
	if (stack_word(&frame[0], c->bp) || stack_word(&frame[1], c->bp + 8))
		return STAT_UNWIND_READ_FAULT;
	if (!frame[1])
		return STAT_UNWIND_END;
	c->sp = c->bp + 16;
	c->bp = frame[0];
	c->ip = frame[1];
	return 0;
}

/* c->map = the mapping covering pc: the last frame's when it covers pc
 * (most callers are in their callee's file), else the search's. Returns
 * 0 if none does. A global function, verified once on its own: inlined,
 * its two ways in doubled the walk's states (0.23 s more verifier CPU). */
__noinline int frame_mapping(struct unwind_ctx *c, __u64 pc)
{
	struct map_search ms = { .pc = pc };

	if (!c)
		return 0;
	if (pc >= c->map.start && pc < c->map.end)
		return 1;
	ms.hi = pr_nmaps();
	bpf_loop(MAP_SEARCH_STEPS, map_search_step, &ms, 0);
	if (!ms.found)
		return 0;
	c->map = ms.m;
	return 1;
}

/* The step out of a frame walked by frame pointers (JIT code, a file that
 * keeps them): a runtime's when the code is its (HotSpot's compiled
 * frames, by their sizes), else by the frame pointer, noted as notes say;
 * either way its return address is checked at the next step. */
static __always_inline __u32 fp_or_runtime_step(struct unwind_ctx *c, __u64 pc, __u32 notes)
{
	struct runtime_regs r = { c->ip, c->sp, c->bp };
	__u32 stop;

	if (runtimes_step(&r, pc, &stop)) {
		walk_note(WALK_GUESSED, 0);
		c->ip = r.ip;
		c->sp = r.sp;
		c->bp = r.bp;
		return stop;
	}
	walk_note(notes, 0);
	return fp_step(c);
}

/* The step out of the frame at pc, by the best rule there is: its CFI
 * row; else (auto, or a file walked by frame pointers) a checked
 * frame-pointer step, noted; else a clean stop. anon: pc lies in
 * anonymous executable memory no mapping of the entry describes (JIT
 * code). */
static __always_inline __u32 step_frame(struct unwind_ctx *c, __u64 pc, bool anon)
{
	const struct unwind_map *m = &c->map;
	const struct unwind_row *row = NULL;
	bool has_rows = UNWIND_FILE_HAS_ROWS(m->file);

	if (anon)
		return fp_or_runtime_step(c, pc, WALK_GUESSED | WALK_FP_STEPS);
	if (m->file == UNWIND_FILE_FP)	/* JIT code known at the table's time, too */
		return fp_or_runtime_step(c, pc, WALK_GUESSED);
	if (has_rows)
		row = find_row(m->file, m->first, m->nrows, pc - m->bias);
	stage_mark(STAGE_WALK_ROW);
	if (row && (row->cfa_reg != CFA_NONE || unwind_mode != UNWIND_AUTO)) {
		walk_note(0, WALK_GUESSED);
		return row_step(c, row);
	}
	if (has_rows && unwind_mode != UNWIND_AUTO)
		return STAT_UNWIND_NO_RULE;
	/* a file walked by frame pointers (keeping them, its rows not loaded
	 * or not built yet), or (auto) an address no CFI covers */
	walk_note(WALK_GUESSED | (m->file == UNWIND_FILE_NOT_LOADED ? WALK_NOT_LOADED :
				  m->file == UNWIND_FILE_PENDING ? WALK_PENDING :
				  m->file == UNWIND_FILE_FP ? 0 : WALK_FP_STEPS), 0);
	return fp_step(c);
}

static long unwind_step(__u32 i, struct unwind_ctx *c)
{
	struct py_walk *w = py_walk_get();
	struct stack_trace *st;
	struct blocked *sc;
	__u32 zero = 0, stop;
	__u64 pc, n;
	bool mapped, anon;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc || !w || sc->s.ust.nr >= MAX_STACK_DEPTH) {
		c->stop = STAT_UNWIND_DEPTH;
		return 1;
	}
	st = &sc->s.ust;
	stage_mark(STAGE_WALK_LOOP);
	/* a return address points after its call: the call is the byte before */
	pc = w->native ? c->ip - 1 : c->ip;
	/* a runtime's frames go before (inside) the native call running
	 * them, one per loop step (bpf/runtimes.bpf.h) */
	if (runtimes_frame_before(w, pc, st, &c->hash, c->g))
		return 0;
	w->native = 1;
	stage_mark(STAGE_WALK_PY);
	if (!user_address(c->ip)) {	/* read from a corrupt frame */
		c->stop = STAT_UNWIND_BAD_ADDRESS;
		return 1;
	}
	n = st->nr;
	if (n >= MAX_STACK_DEPTH) {	/* checked above; again for the verifier */
		c->stop = STAT_UNWIND_DEPTH;
		return 1;
	}
	mapped = frame_mapping(c, pc);
	stage_mark(STAGE_WALK_MAPPING);
	/* auto: code the entry does not know (JIT) is walked by frame
	 * pointers, as long as it is anonymous executable memory */
	anon = !mapped && unwind_mode == UNWIND_AUTO && in_exec_vma(pc);
	if (!mapped && !anon && walk_noted(WALK_GUESSED)) {
		/* a frame-pointer step's return address outside executable
		 * memory is no frame: not recorded */
		c->stop = STAT_UNWIND_IMPLAUSIBLE;
		return 1;
	}
	if (!runtimes_frame_instead(pc, c->bp, st, &c->hash, c->g)) {
		st->ips[n] = c->ip;
		st->nr = n + 1;
		c->hash = hash_step(c->hash, c->ip);
	}
	stage_mark(STAGE_WALK_JIT);
	stop = mapped || anon ? step_frame(c, pc, anon) : STAT_UNWIND_NO_MAPPING;
	stage_mark(STAGE_WALK_STEP);
	if (!stop)
		return 0;
	c->stop = stop;
	return 1;
}

/* The process's entry in the per-CPU slot: its nmaps mappings only.
 * None when it describes another image than the sample's (key). The copy
 * the slot holds already serves while it is of the same process and image
 * and unwind_procs has not changed since it was made (two lookups and
 * 0.5-2 KiB copied less a sample of a process running on). */
static __always_inline bool copy_proc(const struct stack_key *key)
{
	struct proc_copy *slot = proc_copy_slot();
	__u64 changes = unwind_procs_changes;	/* before the map: a change after is seen next time */
	const struct unwind_proc *pr;
	__u32 n, fill;

	if (!slot)
		return false;
	slot->p.walk_flags = 0;
	slot->p.exec_start = 0;
	slot->p.exec_end = 0;
	if (slot->valid && slot->tgid == key->tgid && slot->changes == changes &&
	    slot->p.exec_time == key->exec_time)
		return true;
	/* invalid while filled; an NMI that fills it in between (a hardware
	 * event's sample during sched_switch's) moves fills, and this copy,
	 * maybe overwritten, is not kept */
	slot->valid = 0;
	fill = ++slot->fills;
	pr = bpf_map_lookup_elem(&unwind_procs, &key->tgid);
	if (!pr || pr->exec_time != key->exec_time)
		return false;
	n = pr->nmaps;
	if (n > MAX_UNWIND_MAPS)
		n = MAX_UNWIND_MAPS;
	slot->p.nmaps = n;
	slot->p.exec_time = pr->exec_time;
	if (bpf_probe_read_kernel(slot->p.maps, n * sizeof(slot->p.maps[0]), pr->maps))
		return false;
	slot->tgid = key->tgid;
	slot->changes = changes;
	slot->valid = slot->fills == fill;
	return true;
}

/* The user half from the current task's saved user registers, by the
 * tables (and frame pointers where auto says), into s->ust. Returns how it
 * ended. A global function, verified once on its own: inlined, the walk's
 * loop was verified again for every state the sample's paths reached it
 * in, and what follows it once per way it can end. */
__noinline __u32 unwind_ustack(const struct stack_key *key, __u32 g, struct stacks *s)
{
	struct unwind_ctx c = { .hash = FNV_OFFSET, .stop = STAT_UNWIND_DEPTH, .g = g };
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct stack_window *w;

	if (!key || !s)
		return STAT_UNWIND_DEPTH;
	c.ip = regs->ip;	/* BTF pointers: plain loads, no helper calls */
	c.sp = regs->sp;
	c.bp = regs->bp;
	w = window_slot();
	if (w)
		w->len = 0;	/* the last walk's, maybe another process's */
	s->ust.nr = 0;
	runtimes_begin(key->tgid, key->start_time);
	stage_mark(STAGE_RUNTIME_BEGIN);
	/* a step records one frame, native or a runtime's: one more for the end */
	bpf_loop(MAX_STACK_DEPTH + 1, unwind_step, &c, 0);
	s->uhash = c.hash;
	stage_mark(STAGE_WALK);
	return c.stop;
}

/* A process without an entry asks for its tables, once (lazy_tables):
 * queued, then counted (user space pops after it sees the count move). */
static __always_inline void ask_tables(__u32 tgid)
{
	__u32 asked = 0;

	if (!lazy_tables || !insert_once(&unwind_wanted, &tgid, &asked))
		return;
	if (!ask_queue || bpf_map_push_elem(&unwind_asks, &tgid, 0))
		__sync_fetch_and_add(&unwind_asks_lost, 1);
	__sync_fetch_and_add(&unwind_asked, 1);
}

#include "early.bpf.h"

/* The user half of the current task's stack into s (nr 0: none, as in a
 * kernel thread). A process without an entry yet, or whose entry does not
 * cover even the sampled address (written between an exec and ld.so's
 * mmaps), is walked by frame pointers, counted; or, when it may (a
 * sample, not a switch-out) and the walk is worth it, copied for user
 * space to walk later (STAT_UNWIND_DEFERRED, returned). Returns 0, that,
 * or the reason the sample is lost. */
static __always_inline __u32 take_ustack(void *ctx, const struct stack_key *key, __u32 g,
					 struct stacks *s, bool may_defer)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 stop = STAT_UNWIND_FP_FALLBACK, lost;
	bool has_entry;

	s->ust.nr = 0;
	s->uhash = FNV_OFFSET;
	if (!task->mm)	/* a kernel thread: no user stack */
		return 0;
	if (unwind_mode == UNWIND_FP) {
		lost = get_stack(ctx, &s->ust, &s->uhash, BPF_F_USER_STACK);
		stage_mark(STAGE_FP_USTACK);
		return lost;
	}
	has_entry = copy_proc(key);
	if (!has_entry)
		ask_tables(key->tgid);
	stage_mark(STAGE_PROC);
	if (has_entry)
		stop = unwind_ustack(key, g, s);
	if (stop == STAT_UNWIND_NO_MAPPING && s->ust.nr == 1)
		stop = STAT_UNWIND_FP_FALLBACK;
	if (may_defer && worth_a_copy(key, stop) && copy_stack(task, key, g, s)) {
		stat_inc(g, STAT_UNWIND_DEFERRED);
		stage_mark(STAGE_EARLY);
		return STAT_UNWIND_DEFERRED;
	}
	stage_mark(STAGE_EARLY);
	stat_inc(g, stop);
	/* the walk's notes: the slot holds them when copy_proc() did */
	if (stop != STAT_UNWIND_FP_FALLBACK) {
		if (walk_noted(WALK_NOT_LOADED))
			stat_inc(g, STAT_UNWIND_NOT_LOADED);
		if (walk_noted(WALK_FP_STEPS))
			stat_inc(g, STAT_UNWIND_FP_STEPS);
		if (walk_noted(WALK_PENDING))
			stat_inc(g, STAT_UNWIND_PENDING);
	}
	stage_mark(STAGE_WALK_STATS);
	if (stop != STAT_UNWIND_FP_FALLBACK)
		return 0;
	lost = get_stack(ctx, &s->ust, &s->uhash, BPF_F_USER_STACK);
	stage_mark(STAGE_FP_USTACK);
	return lost;
}

/* Both halves, as asked (-U, -K), into the scratch slot's stacks; no
 * kernel half when the event interrupted user mode (in_user). may_defer:
 * a sample's user half (not a switch-out's) may go to user space to be
 * walked later. Returns 0, STAT_UNWIND_DEFERRED, or the reason the sample
 * is lost. */
static __always_inline __u32 take_stacks(void *ctx, const struct stack_key *key, __u32 g,
					 struct stacks *s, bool in_user, bool may_defer)
{
	__u32 lost = 0;

	s->kst.nr = 0;
	s->ust.nr = 0;
	s->khash = FNV_OFFSET;
	if (kernel_stacks && !in_user)
		lost = get_stack(ctx, &s->kst, &s->khash, 0);
	stage_mark(STAGE_KSTACK);
	if (!lost && user_stacks)
		lost = take_ustack(ctx, key, g, s, may_defer);
	return lost;
}

/* Both halves into generation g's stack maps, written in epoch (see
 * store_stack); their keys into key. */
static __always_inline __u32 store_stacks(__u32 g, __u32 epoch, const struct stacks *s,
					  struct stack_key *key)
{
	__u32 lost = store_stack(g, epoch, &s->kst, s->khash, &key->kstack);

	return lost ? lost : store_stack(g, epoch, &s->ust, s->uhash, &key->ustack);
}

#endif
