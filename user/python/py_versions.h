/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CPython's struct layouts, one entry per supported minor version. */
#ifndef BPFPROF_PY_VERSIONS_H
#define BPFPROF_PY_VERSIONS_H

#include <stdint.h>

#include <linux/types.h>
#include "bpf/profile.h"	/* bpf/: struct py_proc, PY_NONE */

/* The line table's format: 3.10's (lnotab v2, byte offsets) or 3.11's
 * location table (code units). */
enum py_lines_format {
	PY_LINES_310 = 1,
	PY_LINES_311 = 2,
};

struct py_version {
	int minor;			/* 3.minor */
	/* what the BPF side walks (copied into struct py_proc) */
	uint16_t runtime_interp_head;	/* _PyRuntimeState.interpreters.head */
	uint16_t interp_threads;	/* PyInterpreterState.threads.head (tstate_head before 3.11) */
	uint16_t tstate_next, tstate_thread_id, tstate_frame, cframe_frame;
	uint16_t frame_previous, frame_code, frame_instr, frame_owner, frame_is_entry;
	uint16_t code_adaptive;
	uint8_t kind;			/* enum py_frame_kind */
	uint8_t owned_by_cstack;	/* FRAME_OWNED_BY_CSTACK, 0xff: none */
	/* what user space reads from a code object */
	uint16_t code_qualname;		/* co_qualname (co_name before 3.11) */
	uint16_t code_filename, code_firstlineno, code_linetable;
	uint16_t str_state, str_ascii_size, str_compact_size, str_length;
	uint16_t bytes_size, bytes_data, type_name;
	uint8_t lines;			/* enum py_lines_format */
};

/* The table's entry for 3.minor, or NULL: an unsupported version. */
const struct py_version *py_version__find(int minor);

/* Fills what the BPF side needs (the addresses stay for the caller). */
void py_version__to_bpf(const struct py_version *v, struct py_proc *out);

#endif
