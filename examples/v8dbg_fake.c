// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A process that fakes V8's postmortem metadata (tests/unit/test_v8_find.c):
 * every v8dbg_ symbol bpfprof reads, with node 20's values but one, a frame
 * slot far off the frame (4096 bytes above its frame pointer), which a
 * walker trusting it would read anywhere. bpfprof must refuse the file.
 * Built again with -DFP_FUNCTION=-16 (v8dbg_fake_ok): then it is accepted,
 * so the refusal is the lie's.
 */
#include <unistd.h>

#ifndef FP_FUNCTION
#define FP_FUNCTION	4096
#endif

int v8dbg_SystemPointerSize = 8;
int v8dbg_TaggedSize = 8;
int v8dbg_off_fp_function = FP_FUNCTION;	/* the lie: node's is -16 */
int v8dbg_off_fp_context = -8;
int v8dbg_off_fp_bytecode_offset = -40;
int v8dbg_SmiTag = 0;
int v8dbg_SmiTagMask = 1;
int v8dbg_SmiShiftSize = 31;
int v8dbg_SmiValueShift = 1;
int v8dbg_HeapObjectTag = 1;
int v8dbg_HeapObjectTagMask = 3;
int v8dbg_class_HeapObject__map__Map = 0;
int v8dbg_class_Map__instance_type__uint16_t = 12;
int v8dbg_class_JSFunction__shared__SharedFunctionInfo = 24;
int v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object = 16;
int v8dbg_class_SeqTwoByteString__chars__char = 16;
int v8dbg_class_ConsString__first__String = 16;
int v8dbg_class_ConsString__second__String = 24;
int v8dbg_class_ThinString__actual__String = 16;
int v8dbg_class_FixedArrayBase__length__SMI = 8;
int v8dbg_class_FixedArray__data__uintptr_t = 16;
int v8dbg_class_Script__line_ends__Object = 56;
int v8dbg_scopeinfo_idx_ncontextlocals = 2;
int v8dbg_scopeinfo_idx_first_vars = 3;
int v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject = 32;
int v8dbg_class_Script__name__Object = 16;
int v8dbg_class_String__length__int32_t = 12;
int v8dbg_class_SeqOneByteString__chars__char = 16;
int v8dbg_type_JSFunction__JS_FUNCTION_TYPE = 2066;
int v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE = 262;
int v8dbg_type_Script__SCRIPT_TYPE = 167;
int v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE = 261;
int v8dbg_FirstNonstringType = 128;
int v8dbg_IsNotStringMask = -128;
int v8dbg_StringEncodingMask = 8;
int v8dbg_OneByteStringTag = 8;
int v8dbg_StringRepresentationMask = 7;
int v8dbg_SeqStringTag = 0;
int v8dbg_ConsStringTag = 1;
int v8dbg_ThinStringTag = 5;

int main(void)
{
	pause();
	return 0;
}
