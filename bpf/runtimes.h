/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The runtimes whose walkers record frames in a user stack (bpf/runtimes.bpf.h;
 * user space: user/base/runtime.h, user/runtimes/). A runtime's frame takes
 * two slots, innermost first: a word with RUNTIME_FRAME_TAG set (no user
 * address has bit 63 set, so the native unwinder never records one), then a
 * word whose top byte is the runtime's id and whose rest is the runtime's.
 * A new runtime: an id here, its layouts' header included below.
 */
#ifndef BPFPROF_BPF_RUNTIMES_H
#define BPFPROF_BPF_RUNTIMES_H

enum runtime_id {
	RUNTIME_PYTHON = 0,	/* CPython (bpf/python.h) */
	RUNTIME_V8,		/* V8, node's JavaScript (bpf/v8.h) */
	RUNTIME_HOTSPOT,	/* OpenJDK's HotSpot (bpf/hotspot.h) */
	RUNTIME_MAX,
};

#define RUNTIME_FRAME_TAG	(1ULL << 63)
#define RUNTIME_IS_FRAME(slot)	(((slot) & RUNTIME_FRAME_TAG) != 0)
#define RUNTIME_ID_SHIFT	56
#define RUNTIME_PAYLOAD(word)	((word) & ((1ULL << RUNTIME_ID_SHIFT) - 1))
/* the second slot: id in the top byte (a hostile payload cannot change it) */
#define RUNTIME_WORD(id, v)	((__u64)(id) << RUNTIME_ID_SHIFT | RUNTIME_PAYLOAD(v))
#define RUNTIME_OF(word)	((__u32)((word) >> RUNTIME_ID_SHIFT))
/* a frame whose runtime's row says pc_first (base/runtime.h): the native
 * code address in the tagged slot's low 47 bits */
#define RUNTIME_PC(slot)	((slot) & ((1ULL << 47) - 1))

#include "python.h"
#include "v8.h"
#include "hotspot.h"

#endif
