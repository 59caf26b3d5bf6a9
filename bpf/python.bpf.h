/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Python frames, called from the native user-stack unwinder: each native
 * frame inside CPython's _PyEval_EvalFrameDefault is preceded (innermost
 * first, so in the folded stack: followed) by the Python frames that eval
 * call runs. The thread's frames come from its thread state, found in the
 * interpreter's list by pthread_self() (the fs base on x86-64), which needs
 * neither libc's TLS layout nor CPython's TSS key. Each Python frame is one
 * stack slot: its code object and instruction offset (PY_FRAME); user space
 * reads the code objects named in py_codes while the process lives.
 *
 * Included by profile.bpf.c after hash_step() and the stats map.
 */
#ifndef BPFPROF_PYTHON_BPF_H
#define BPFPROF_PYTHON_BPF_H

#define PY_MAX_THREADS		64	/* thread states searched for the sampled thread */


/* tgid -> what its interpreter looks like; written by user/python, gone
 * at the process's exec or end (task_exit). Python's maps are not
 * preallocated: kernel memory for what is there, MAX_* the ceiling. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_PY_PROCS);
	__type(key, __u32);
	__type(value, struct py_proc);
} py_procs SEC(".maps");

/* Code objects sampled and not yet read by user space, which deletes them
 * once read; a lookup first, so a known one costs no update. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_PY_CODES);
	__type(key, struct py_code_key);
	__type(value, __u8);
} py_codes SEC(".maps");

/* tid -> its thread state, checked against the thread id at every use;
 * gone when the thread ends (task_exit). Full: the thread states are
 * searched at each sample instead. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, MAX_PY_THREADS);
	__type(key, __u32);
	__type(value, __u64);
} py_threads SEC(".maps");

/* One sample's walk, carried by the native unwinder from frame to frame in
 * a per-CPU map rather than its loop context: the verifier would track
 * these flags' constants in the context step by step, a state for each
 * combination, and never see the loop converge. */
struct py_walk {
	__u32 native;			/* the unwinder's: a native frame is recorded */
	__u64 eval_start, eval_end;	/* 0, 0: not a Python process */
	__u64 frame;			/* the next Python frame to record; 0: none */
	__u64 start_time;
	__u32 tgid;
	__u32 looked;			/* the thread state was looked up */
	__u32 done;			/* the current native frame's Python frames are in */
	struct py_proc pp;		/* the process's, copied once per sample */
	__u8 win[PY_FRAME_WINDOW];	/* the frame being read, its first pp.frame_bytes */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_walk);
} py_walks SEC(".maps");

/* Set by user space when it first stores a py_procs entry: until then a
 * sample looks nothing up there. */
volatile __u32 py_procs_stored = 0;

static __always_inline struct py_walk *py_walk_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&py_walks, &zero);
}

static __always_inline int py_read(void *dst, __u32 size, __u64 addr)
{
	return bpf_probe_read_user(dst, size, (const void *)addr);
}

/* Starts a sample's walk: only a process user space found a CPython in
 * has an eval range, and only with Python frames on. */
static __always_inline void py_begin(__u32 tgid, __u64 start_time, bool on)
{
	struct py_walk *w = py_walk_get();
	const struct py_proc *pp = NULL;

	if (!w)
		return;
	/* no CPython found yet: no lookup (30 ns a sample) */
	if (on && py_procs_stored)
		pp = bpf_map_lookup_elem(&py_procs, &tgid);
	/* the header only: pp and win are read only in an eval range */
	w->native = 0;
	w->eval_start = w->eval_end = 0;
	w->frame = 0;
	w->looked = w->done = 0;
	w->tgid = tgid;
	w->start_time = start_time;
	if (pp) {
		w->eval_start = pp->eval_start;
		w->eval_end = pp->eval_end;
		w->pp = *pp;
	}
}

static __always_inline bool py_in_eval(const struct py_walk *w, __u64 pc)
{
	return pc >= w->eval_start && pc < w->eval_end;
}

/* The sampled thread's PyThreadState, or 0. */
static __always_inline __u64 py_tstate(const struct py_proc *pp, __u32 tid, __u64 self)
{
	__u64 *cached = bpf_map_lookup_elem(&py_threads, &tid), ts = 0, id = 0, interp = 0;

	if (cached && !py_read(&id, sizeof(id), *cached + pp->tstate_thread_id) && id == self)
		return *cached;
	if (py_read(&interp, sizeof(interp), pp->interp_head) || !interp ||
	    py_read(&ts, sizeof(ts), interp + pp->interp_threads))
		return 0;
	for (int i = 0; i < PY_MAX_THREADS && ts; i++) {
		if (py_read(&id, sizeof(id), ts + pp->tstate_thread_id))
			return 0;
		if (id == self) {
			bpf_map_update_elem(&py_threads, &tid, &ts, BPF_ANY);
			return ts;
		}
		if (py_read(&ts, sizeof(ts), ts + pp->tstate_next))
			return 0;
	}
	return 0;
}

/* The thread's innermost Python frame, or 0 with the reason counted. */
static __always_inline __u64 py_first_frame(const struct py_proc *pp, __u32 g)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 self = BPF_CORE_READ(task, thread.fsbase), ts, frame = 0;

	ts = py_tstate(pp, (__u32)bpf_get_current_pid_tgid(), self);
	if (!ts) {
		slot_inc(&stats, g * STAT_MAX + STAT_PY_NO_THREAD);
		return 0;
	}
	if (py_read(&frame, sizeof(frame), ts + pp->tstate_frame) ||
	    (frame && pp->cframe_frame != PY_NONE &&
	     py_read(&frame, sizeof(frame), frame + pp->cframe_frame))) {
		slot_inc(&stats, g * STAT_MAX + STAT_PY_READ_FAULT);
		return 0;
	}
	return frame;
}

/* A field of the frame read into w->win: 0 when outside it (the table's
 * frame_bytes covers every field; the bound is for the verifier). */
static __always_inline __u64 py_field(const struct py_walk *w, __u32 off, __u32 size)
{
	__u64 v = 0;

	if (off > PY_FRAME_WINDOW - 8)
		return 0;
	if (size == 8)
		__builtin_memcpy(&v, &w->win[off], 8);
	else if (size == 4)
		__builtin_memcpy(&v, &w->win[off], 4);
	else
		v = w->win[off];
	return v;
}

/* Where the frame in w->win is in its code, in code units, capped at
 * PY_OFFSET_MAX. */
static __always_inline __u64 py_offset(const struct py_walk *w, __u64 code)
{
	const struct py_proc *pp = &w->pp;
	__u64 instr, first = code + pp->code_adaptive;
	int lasti;

	if (pp->kind == PY_FRAME_OBJECT) {
		lasti = (int)py_field(w, pp->frame_instr, 4);
		if (lasti < 0)
			return 0;
		return (__u64)lasti < PY_OFFSET_MAX ? (__u64)lasti : PY_OFFSET_MAX;
	}
	/* before the first instruction: a frame that has not started yet */
	instr = py_field(w, pp->frame_instr, 8);
	if (instr < first)
		return 0;
	instr = (instr - first) / 2;
	return instr < PY_OFFSET_MAX ? instr : PY_OFFSET_MAX;
}

/* Code objects noted since the start: user space walks py_codes only
 * when this moved (a walk of an empty map is a scan of its 16k buckets,
 * 0.05 % of a core at five polls a second). */
volatile __u64 py_codes_noted = 0;

/* Once per code object and user-space poll (it deletes what it read). */
static __always_inline void py_note_code(const struct py_walk *w, __u64 code, __u64 fp)
{
	struct py_code_key k = { .tgid = w->tgid, .start_time = w->start_time, .code = code,
				 .fp = fp };
	__u8 one = 1;

	note_once(&py_codes, &k, &one, &py_codes_noted);
}

/*
 * One Python frame of the native eval frame being unwound into
 * st->ips[st->nr] and the next slot (PY_FRAME, then its fingerprint),
 * innermost first; the unwinder calls again (its next loop
 * step) while this returns true, then records the native frame. An eval
 * call runs one frame before 3.11; in 3.11 frames up to the one marked
 * is_entry; in 3.12+ up to a frame the C stack owns (the call's entry
 * frame, skipped). Leaves room for the native frame itself.
 */
static __always_inline bool py_step(struct py_walk *w, struct stack_trace *st, __u64 *hash,
				    __u32 g)
{
	const struct py_proc *pp = &w->pp;
	__u32 len = pp->frame_bytes;
	__u64 f, code, ip, n, fp;
	bool entry;

	if (!w->looked) {
		w->looked = 1;
		w->frame = py_first_frame(pp, g);
	}
	f = w->frame;
	if (!f)
		return false;
	/* the frame's fields in one read */
	if (len > PY_FRAME_WINDOW)
		len = PY_FRAME_WINDOW;
	if (!len || py_read(w->win, len, f)) {
		slot_inc(&stats, g * STAT_MAX + STAT_PY_READ_FAULT);
		w->frame = 0;
		return false;
	}
	w->frame = py_field(w, pp->frame_previous, 8);
	code = py_field(w, pp->frame_code, 8);
	entry = pp->frame_is_entry != PY_NONE && py_field(w, pp->frame_is_entry, 1);
	if (pp->frame_owner != PY_NONE && py_field(w, pp->frame_owner, 1) == pp->owned_by_cstack)
		return false;
	n = st->nr;
	if (n >= MAX_STACK_DEPTH - 2) {
		slot_inc(&stats, g * STAT_MAX + STAT_PY_TRUNCATED);
		w->frame = 0;
		return false;
	}
	code = PY_CODE(code);
	fp = 0;
	py_read(&fp, sizeof(fp), code + pp->code_linetable);
	fp = RUNTIME_WORD(RUNTIME_PYTHON, fp);	/* a user address: unchanged */
	ip = PY_FRAME(code, py_offset(w, code));
	st->ips[n] = ip;
	st->ips[n + 1] = fp;
	st->nr = n + 2;
	*hash = hash_step(hash_step(*hash, ip), fp);
	py_note_code(w, code, fp);
	slot_inc(&stats, g * STAT_MAX + STAT_PY_FRAMES);
	/* this eval call's last frame: the native frame comes next */
	w->done = pp->kind == PY_FRAME_OBJECT || entry;
	return true;
}

#endif
