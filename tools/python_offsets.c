// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Prints the struct offsets bpfprof's Python table (user/python/py_versions.c)
 * holds, as "field value" lines, from the CPython headers it is compiled
 * against:
 *   cc -DPy_BUILD_CORE -I$PREFIX/include/python3.X -I$PREFIX/include/python3.X/internal \
 *      tools/python_offsets.c -o offsets && ./offsets
 * tests/unit/test_python.c does this for every version present and compares.
 */
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif

#define P(name, value)	printf("%s %zu\n", name, (size_t)(value))

int main(void)
{
	P("minor", PY_MINOR_VERSION);
	P("runtime_interp_head", offsetof(_PyRuntimeState, interpreters.head));
#if PY_VERSION_HEX >= 0x030b0000
	P("interp_threads", offsetof(PyInterpreterState, threads.head));
#else
	P("interp_threads", offsetof(PyInterpreterState, tstate_head));
#endif
	P("tstate_next", offsetof(PyThreadState, next));
	P("tstate_thread_id", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030d0000
	P("tstate_frame", offsetof(PyThreadState, current_frame));
#elif PY_VERSION_HEX >= 0x030b0000
	P("tstate_frame", offsetof(PyThreadState, cframe));
	P("cframe_frame", offsetof(_PyCFrame, current_frame));
#else
	P("tstate_frame", offsetof(PyThreadState, frame));
#endif
#if PY_VERSION_HEX >= 0x030b0000
	P("frame_previous", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX >= 0x030d0000
	P("frame_code", offsetof(_PyInterpreterFrame, f_executable));
	P("frame_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
	P("frame_code", offsetof(_PyInterpreterFrame, f_code));
	P("frame_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
#if PY_VERSION_HEX >= 0x030c0000
	P("frame_owner", offsetof(_PyInterpreterFrame, owner));
	P("owned_by_cstack", FRAME_OWNED_BY_CSTACK);
#else
	P("frame_is_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
	P("code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
	P("code_qualname", offsetof(PyCodeObject, co_qualname));
#else
	P("frame_previous", offsetof(PyFrameObject, f_back));
	P("frame_code", offsetof(PyFrameObject, f_code));
	P("frame_instr", offsetof(PyFrameObject, f_lasti));
	P("code_qualname", offsetof(PyCodeObject, co_name));
#endif
	P("code_filename", offsetof(PyCodeObject, co_filename));
	P("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
	P("code_linetable", offsetof(PyCodeObject, co_linetable));
	P("str_state", offsetof(PyASCIIObject, state));
	P("str_ascii_size", sizeof(PyASCIIObject));
	P("str_compact_size", sizeof(PyCompactUnicodeObject));
	P("str_length", offsetof(PyASCIIObject, length));
	P("bytes_size", offsetof(PyVarObject, ob_size));
	P("bytes_data", offsetof(PyBytesObject, ob_sval));
	P("type_name", offsetof(PyTypeObject, tp_name));
	return 0;
}
