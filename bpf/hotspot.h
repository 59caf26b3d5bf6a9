/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* HotSpot's (OpenJDK's) facts shared by the BPF side (bpf/hotspot.bpf.h) and
 * user space (user/hotspot/); included through bpf/runtimes.h. */
#ifndef BPFPROF_BPF_HOTSPOT_H
#define BPFPROF_BPF_HOTSPOT_H

#define MAX_HS_PROCS		1024	/* JVMs known at once */
#define HS_BPF_HEAPS		3	/* JDK 17: non-nmethods, profiled, non-profiled */
#define HS_BPF_HOPS		16	/* segment map hops: a blob of 16 x 254 segments */
#define HS_FRAME_WORDS_MAX	8192	/* a compiled frame's words: a larger one is a lie */
#define HS_FRAME_FAR		(1ULL << 20)	/* an interpreted frame's fp above its sp, at most */
#define HS_BLOB_FIELD_MAX	1024	/* a CodeBlob field's offset, at most */
#define MAX_HS_METHODS		16384	/* interpreted methods seen, not yet read by user space */
#define HS_PC_BITS		47	/* user addresses lie below 2^47 */

/*
 * An interpreted frame takes the two slots of the native frame it is (the
 * interpreter's code), and replaces it: first RUNTIME_FRAME_TAG | the
 * frame's code address; then RUNTIME_WORD(RUNTIME_HOTSPOT, its Method*),
 * read from the frame (fp + frame_method words).
 */
#define HS_FRAME(pc)		(RUNTIME_FRAME_TAG | ((pc) & ((1ULL << HS_PC_BITS) - 1)))

/* A method seen in a sample, for user space to name while the process
 * lives; deleted once read. */
struct hs_method_key {
	__u32 tgid;
	__u32 pad;
	__u64 start_time;		/* the process's, as in struct stack_key */
	__u64 method;			/* its Method* */
};

/* A code heap: its reserved memory [low, high), its segment map (a byte
 * per segment: how many back to its block's first; 0xff free), and its
 * segments' size. */
struct hs_heap {
	__u64 low, high, segmap;
	__u32 log2_seg;
	__u32 pad;
};

/* What the walker needs of a process's HotSpot (user/hotspot/ from the
 * VM's own vmStructs). */
struct hs_facts {
	struct hs_heap heaps[HS_BPF_HEAPS];
	__u64 interp_start, interp_end;	/* the template interpreter's code */
	__u32 nheaps;
	__u16 block_size;		/* sizeof(HeapBlock): its CodeBlob follows */
	__u16 blob_code_begin;		/* CodeBlob::_code_begin */
	__u16 blob_frame_size;		/* CodeBlob::_frame_size (int, words) */
	__u16 blob_frame_complete;	/* CodeBlob::_frame_complete_offset (int) */
	__s16 frame_sender_sp;		/* an interpreted frame's slots, in words from fp */
	__s16 frame_method;
};

#endif
