/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Recognising a V8 (node) file by its postmortem metadata: the v8dbg_
 * symbols V8 exports for debuggers (node 20 has 531), each a 32-bit
 * constant in the file's data (in .bss: 0). Read from the file, never from
 * the process; each value is checked against the bounds a BPF walker may
 * trust, so a file that fakes them is refused, not followed.
 */
#ifndef BPFPROF_V8_FIND_H
#define BPFPROF_V8_FIND_H

#include <stdbool.h>
#include <stdint.h>

/* What the BPF walker and the namer need of a V8's layout (x86-64, no
 * pointer compression: node's builds). Offsets are in bytes. */
struct v8_layout {
	/* a JavaScript frame's slots, from its frame pointer (negative) */
	int32_t fp_function;		/* the JSFunction running */
	int32_t fp_context;		/* its context, or a frame type marker (a Smi) */
	int32_t fp_bytecode_offset;	/* an interpreted frame's offset (a Smi) */
	/* tagging: a Smi has (word & smi_mask) == smi_tag, its value in the
	 * bits from smi_shift; a heap object pointer has heap_tag in heap_mask */
	uint32_t smi_tag, smi_mask, smi_shift, heap_tag, heap_mask;
	/* fields of the objects a frame leads to */
	uint32_t obj_map;		/* HeapObject: its Map */
	uint32_t map_type;		/* Map: instance_type, 16 bits */
	uint32_t fn_shared;		/* JSFunction: its SharedFunctionInfo */
	uint32_t sfi_name;		/* SharedFunctionInfo: name_or_scope_info */
	uint32_t sfi_script;		/* SharedFunctionInfo: script_or_debug_info */
	uint32_t script_name;		/* Script: name */
	uint32_t str_length;		/* String: length, 32 bits */
	uint32_t seq_chars;		/* SeqOneByteString: the characters */
	uint32_t seq2_chars;		/* SeqTwoByteString: the characters */
	uint32_t cons_first, cons_second;	/* ConsString: its two halves */
	uint32_t thin_actual;		/* ThinString: the string it stands for */
	uint32_t fixed_length;		/* FixedArrayBase: length, a Smi */
	uint32_t fixed_data;		/* FixedArray: the first element */
	uint32_t script_line_ends;	/* Script: each line's end, a FixedArray of Smis */
	/* ScopeInfo: the slots after its Map (indices of 8-byte slots) */
	uint32_t scope_ncontextlocals;	/* the context locals' count, a Smi */
	uint32_t scope_first_vars;	/* the first of 2 per context local, then the name */
	/* instance types */
	uint16_t type_function;		/* JS_FUNCTION_TYPE, the first of JSFunction's */
	uint16_t type_sfi, type_script, type_scope_info;
	uint16_t first_nonstring;	/* below it: strings */
	/* a string's instance type bits */
	uint32_t not_string_mask;	/* (type & it) != 0: not a string */
	uint32_t encoding_mask, one_byte_tag, repr_mask, seq_tag, cons_tag,
		 thin_tag;
	/* the builtins embedded in the file (the interpreter's entry among
	 * them), offsets in the file; 0, 0: not known (then only JIT code is
	 * tested for JavaScript frames) */
	uint64_t builtins_start, builtins_end;
};

/* Whether the file at path may be a V8 by its name: node, node20,
 * libnode.so.108. Only such files are read for v8dbg_ symbols: reading
 * every file a machine maps would cost each new file of a mapping churn a
 * symbol table scan (python/ names its files the same way). */
bool v8_find__named(const char *path);

/* The v8dbg_ values of the ELF file fd into *out. Returns 0; -ENOENT when
 * it has no v8dbg_ symbols (not a V8); -EPROTO when some are missing or a
 * value is out of its bounds (a V8 this reader does not know, or a file
 * that fakes them: counted as unsupported); -EINVAL when fd is no ELF
 * file. */
int v8_find__elf(int fd, struct v8_layout *out);

#endif
