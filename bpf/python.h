/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CPython's layouts shared by the BPF side (bpf/python.bpf.h) and user
 * space (user/python/); included through bpf/runtimes.h. */
#ifndef BPFPROF_BPF_PYTHON_H
#define BPFPROF_BPF_PYTHON_H

/*
 * Python frames (bpf/python.bpf.h, user/python/). A Python frame takes two
 * slots of a user stack, innermost first: PY_FRAME_TAG, the instruction
 * offset in code units (capped) and the code object's address, which user
 * addresses leave room for (below 2^47; the kernel hands out higher ones
 * only when asked to); then the object's fingerprint, its co_linetable
 * pointer, which tells it from a code object that later took its address
 * (RUNTIME_WORD(RUNTIME_PYTHON, ...): a user address is below 2^47).
 */
#define MAX_PY_PROCS		4096	/* CPython processes known at once */
#define MAX_PY_CODES		16384	/* code objects seen, not yet read by user space */
#define MAX_PY_THREADS		16384	/* threads whose thread state is remembered (LRU) */
#define PY_FRAME_TAG		RUNTIME_FRAME_TAG
#define PY_ADDR_BITS		47
#define PY_OFFSET_MAX		0xffffULL	/* offsets at or past it: line unknown */
#define PY_FRAME(code, off)	(PY_FRAME_TAG | ((__u64)(off) << PY_ADDR_BITS) | (code))
#define PY_IS_FRAME(ip)		RUNTIME_IS_FRAME(ip)
#define PY_CODE(ip)		((ip) & ((1ULL << PY_ADDR_BITS) - 1))
#define PY_OFFSET(ip)		(((ip) >> PY_ADDR_BITS) & PY_OFFSET_MAX)
#define PY_NONE			0xffff	/* an offset that this version has no field for */

enum py_frame_kind {
	PY_FRAME_OBJECT = 1,	/* before 3.11: PyFrameObject, one per eval call, f_lasti */
	PY_FRAME_INTERP = 2,	/* 3.11+: _PyInterpreterFrame, several per eval call */
};

/* What the BPF side needs to find a thread's Python frames; offsets are
 * from user/python's table for the process's version. */
struct py_proc {
	__u64 eval_start, eval_end;	/* _PyEval_EvalFrameDefault, runtime addresses */
	__u64 interp_head;		/* &_PyRuntime.interpreters.head */
	__u16 interp_threads;		/* PyInterpreterState: first thread state */
	__u16 tstate_next;
	__u16 tstate_thread_id;		/* pthread_self(): the thread's fs base */
	__u16 tstate_frame;		/* frame, cframe or current_frame */
	__u16 cframe_frame;		/* _PyCFrame.current_frame, or PY_NONE */
	__u16 frame_previous;
	__u16 frame_code;
	__u16 frame_instr;		/* prev_instr/instr_ptr (INTERP), f_lasti (OBJECT) */
	__u16 frame_owner;		/* or PY_NONE */
	__u16 frame_is_entry;		/* 3.11, or PY_NONE */
	__u16 code_adaptive;		/* co_code_adaptive (INTERP) */
	__u16 code_linetable;		/* co_linetable: its address tells code objects apart */
	__u16 frame_bytes;		/* a frame's fields all lie in its first frame_bytes */
	__u8 kind;			/* enum py_frame_kind */
	__u8 owned_by_cstack;		/* owner of an eval call's entry frame (3.12+), or 0xff */
};

/* The most a frame's fields span (3.10's f_lasti ends at 100). */
#define PY_FRAME_WINDOW		128

/* A code object seen in a sample, for user space to read while the process
 * lives; deleted once read. */
struct py_code_key {
	__u32 tgid;
	__u32 pad;
	__u64 start_time;		/* the process's, as in struct stack_key */
	__u64 code;
	__u64 fp;			/* its fingerprint: co_linetable when sampled */
};

#endif
