/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* V8's (node's) facts shared by the BPF side (bpf/v8.bpf.h) and user space
 * (user/v8/); included through bpf/runtimes.h. */
#ifndef BPFPROF_BPF_V8_H
#define BPFPROF_BPF_V8_H

/*
 * A JavaScript frame takes the two slots of the native frame it is, and
 * replaces it: first V8_FRAME, the frame's code address (the return
 * address less one but for the innermost: what a JIT map is searched by)
 * and a 16-bit fingerprint of its SharedFunctionInfo (the addresses of its
 * name and script, which a moved or reused object does not keep); then
 * RUNTIME_WORD(RUNTIME_V8, the SharedFunctionInfo's tagged address).
 */
#define MAX_V8_PROCS		4096	/* V8 processes known at once */
#define MAX_V8_SFIS		16384	/* functions seen, not yet read by user space */
#define V8_PC_BITS		47	/* user addresses lie below 2^47 */
#define V8_PC(slot)		((slot) & ((1ULL << V8_PC_BITS) - 1))
#define V8_FINGER_MAX		0xffffULL
#define V8_FRAME(pc, fg)	(RUNTIME_FRAME_TAG | ((__u64)(fg) << V8_PC_BITS) | (pc))
#define V8_FINGER_OF(slot)	(((slot) >> V8_PC_BITS) & V8_FINGER_MAX)
/* from the addresses of a SharedFunctionInfo's name_or_scope_info and
 * script_or_debug_info fields' objects */
#define V8_FINGER(name, script)	((((name) ^ (script)) >> 3) & V8_FINGER_MAX)
/* JSFunction's instance types: JS_FUNCTION_TYPE, then its subclasses'
 * (the constructors: class, promise, array, typed arrays...), which V8
 * does not export */
#define V8_FN_TYPES		16	/* V8 11: JSFunction, 4 constructors, 11 typed arrays */

/* What the walker needs of a process's V8 (user/v8/ from v8_find). */
struct v8_proc {
	__u64 code_start, code_end;	/* builtins in the file (the interpreter's entry) */
	__u64 text_start, text_end;	/* the file's code mapping holding them; 0, 0: none */
	__s32 fp_function;		/* the frame's JSFunction, from its frame pointer */
	__s32 fp_context;		/* its context; a typed frame's marker (a Smi) */
	__u16 obj_map;			/* HeapObject: its Map */
	__u16 map_type;			/* Map: instance_type */
	__u16 fn_shared;		/* JSFunction: its SharedFunctionInfo */
	__u16 sfi_name, sfi_script;	/* SharedFunctionInfo: the fingerprint's fields */
	__u16 type_function;		/* JS_FUNCTION_TYPE */
	__u8 heap_mask, heap_tag;	/* a tagged heap object pointer */
	__u8 pad[2];
};

/* A function seen in a sample, for user space to read while the process
 * lives; deleted once read. */
struct v8_sfi_key {
	__u32 tgid;
	__u32 finger;			/* V8_FINGER_OF the frame's first slot */
	__u64 start_time;		/* the process's, as in struct stack_key */
	__u64 sfi;			/* the SharedFunctionInfo, tagged */
};

#endif
