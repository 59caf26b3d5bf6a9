// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The offsets table. Every number is offsetof()/sizeof() printed by
 * tools/python_offsets.c compiled against that version's own headers
 * (Include/, Include/internal with Py_BUILD_CORE, x86-64, default build):
 *   3.10: pyenv 3.10.13        3.11: Debian 12's 3.11.2 (/usr/include/python3.11)
 *   3.12: pyenv 3.12.1               and pyenv 3.11.7 (identical)
 *   3.13: pyenv 3.13.0
 * tests/unit/test_python.c compiles it again against every version's
 * headers present and compares. Fields:
 *   runtime_interp_head  _PyRuntimeState.interpreters.head
 *   interp_threads       PyInterpreterState.threads.head (3.10: tstate_head)
 *   tstate_next          PyThreadState.next
 *   tstate_thread_id     PyThreadState.thread_id (pthread_self())
 *   tstate_frame         3.10 frame, 3.11/3.12 cframe, 3.13 current_frame
 *   cframe_frame         _PyCFrame.current_frame (3.11/3.12)
 *   frame_*              3.10 PyFrameObject f_back, f_code, f_lasti;
 *                        3.11+ _PyInterpreterFrame previous, f_code (3.13:
 *                        f_executable), prev_instr (3.13: instr_ptr),
 *                        owner (3.12+), is_entry (3.11)
 *   code_*               PyCodeObject co_qualname (3.10: co_name), co_filename,
 *                        co_firstlineno, co_linetable, co_code_adaptive
 *   str_*                PyASCIIObject state, length; sizeof(PyASCIIObject),
 *                        sizeof(PyCompactUnicodeObject)
 *   bytes_*, type_name   PyVarObject.ob_size, PyBytesObject.ob_sval,
 *                        PyTypeObject.tp_name
 * FRAME_OWNED_BY_CSTACK is 3 in 3.12 and 3.13 (pycore_frame.h).
 */
#include <stddef.h>

#include "python/py_versions.h"

#define NO_CSTACK	0xff

static const struct py_version versions[] = {
	{ .minor = 10, .runtime_interp_head = 32, .interp_threads = 8,
	  .tstate_next = 8, .tstate_thread_id = 176, .tstate_frame = 24, .cframe_frame = PY_NONE,
	  .frame_previous = 24, .frame_code = 32, .frame_instr = 96, .frame_owner = PY_NONE,
	  .frame_is_entry = PY_NONE, .code_adaptive = 0, .kind = PY_FRAME_OBJECT,
	  .owned_by_cstack = NO_CSTACK,
	  .code_qualname = 112, .code_filename = 104, .code_firstlineno = 40, .code_linetable = 120,
	  .str_state = 32, .str_ascii_size = 48, .str_compact_size = 72, .str_length = 16,
	  .bytes_size = 16, .bytes_data = 32, .type_name = 24, .lines = PY_LINES_310 },
	{ .minor = 11, .runtime_interp_head = 40, .interp_threads = 16,
	  .tstate_next = 8, .tstate_thread_id = 152, .tstate_frame = 56, .cframe_frame = 8,
	  .frame_previous = 48, .frame_code = 32, .frame_instr = 56, .frame_owner = PY_NONE,
	  .frame_is_entry = 68, .code_adaptive = 184, .kind = PY_FRAME_INTERP,
	  .owned_by_cstack = NO_CSTACK,
	  .code_qualname = 128, .code_filename = 112, .code_firstlineno = 72, .code_linetable = 136,
	  .str_state = 32, .str_ascii_size = 48, .str_compact_size = 72, .str_length = 16,
	  .bytes_size = 16, .bytes_data = 32, .type_name = 24, .lines = PY_LINES_311 },
	{ .minor = 12, .runtime_interp_head = 40, .interp_threads = 72,
	  .tstate_next = 8, .tstate_thread_id = 136, .tstate_frame = 56, .cframe_frame = 0,
	  .frame_previous = 8, .frame_code = 0, .frame_instr = 56, .frame_owner = 70,
	  .frame_is_entry = PY_NONE, .code_adaptive = 192, .kind = PY_FRAME_INTERP,
	  .owned_by_cstack = 3,
	  .code_qualname = 128, .code_filename = 112, .code_firstlineno = 68, .code_linetable = 136,
	  .str_state = 32, .str_ascii_size = 40, .str_compact_size = 56, .str_length = 16,
	  .bytes_size = 16, .bytes_data = 32, .type_name = 24, .lines = PY_LINES_311 },
	{ .minor = 13, .runtime_interp_head = 632, .interp_threads = 7344,
	  .tstate_next = 8, .tstate_thread_id = 152, .tstate_frame = 72, .cframe_frame = PY_NONE,
	  .frame_previous = 8, .frame_code = 0, .frame_instr = 56, .frame_owner = 70,
	  .frame_is_entry = PY_NONE, .code_adaptive = 200, .kind = PY_FRAME_INTERP,
	  .owned_by_cstack = 3,
	  .code_qualname = 128, .code_filename = 112, .code_firstlineno = 68, .code_linetable = 136,
	  .str_state = 32, .str_ascii_size = 40, .str_compact_size = 56, .str_length = 16,
	  .bytes_size = 16, .bytes_data = 32, .type_name = 24, .lines = PY_LINES_311 },
};

/* Where a frame's last field used ends: the BPF side reads that much of a
 * frame at once. */
static uint16_t frame_bytes(const struct py_version *v)
{
	const uint16_t ends[] = {
		v->frame_previous + 8, v->frame_code + 8,
		v->frame_instr + (v->kind == PY_FRAME_OBJECT ? 4 : 8),
		v->frame_owner == PY_NONE ? 0 : v->frame_owner + 1,
		v->frame_is_entry == PY_NONE ? 0 : v->frame_is_entry + 1,
	};
	uint16_t end = 0;

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (ends[i] > end)
			end = ends[i];
	return end;
}

const struct py_version *py_version__find(int minor)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].minor == minor)
			return &versions[i];
	return NULL;
}

void py_version__to_bpf(const struct py_version *v, struct py_proc *out)
{
	out->interp_threads = v->interp_threads;
	out->tstate_next = v->tstate_next;
	out->tstate_thread_id = v->tstate_thread_id;
	out->tstate_frame = v->tstate_frame;
	out->cframe_frame = v->cframe_frame;
	out->frame_previous = v->frame_previous;
	out->frame_code = v->frame_code;
	out->frame_instr = v->frame_instr;
	out->frame_owner = v->frame_owner;
	out->frame_is_entry = v->frame_is_entry;
	out->code_adaptive = v->code_adaptive;
	out->code_linetable = v->code_linetable;
	out->kind = v->kind;
	out->owned_by_cstack = v->owned_by_cstack;
	out->frame_bytes = frame_bytes(v);
}
