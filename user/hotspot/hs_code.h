/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What runs at an address of a HotSpot's code cache, read from the
 * process by the layout hs_find read: the CodeBlob that holds it (found by
 * its code heap's segment map, as the VM finds it) and, for a compiled
 * method, the Java method's name, "package.Class.method". The process's
 * memory is its owner's: every walk is bounded and every pointer checked
 * against the heap it must lie in.
 */
#ifndef BPFPROF_HS_CODE_H
#define BPFPROF_HS_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "hotspot/hs_find.h"

#define HS_HEAPS_MAX		8	/* JDK 17: 3 (segmented) or 1 */
#define HS_SEGMAP_HOPS		4096	/* back from a segment to its block's first */
#define HS_JAVA_NAME_MAX	256	/* bytes of "package.Class.method", its NUL included */
#define HS_BLOBS_MAX		8192	/* blobs of a walk of the heaps */

/* A code heap: its memory's [low, high) (committed up to top), its
 * segment map and segment size. */
struct hs_heap_view {
	uint64_t low, high, top, segmap;
	int32_t log2_seg;
};

struct hs_blob {
	uint64_t begin, end;		/* its code: [CodeBlob::_code_begin, _code_end) */
	uint64_t method;		/* a compiled method's Method*; 0: another blob */
	int32_t frame_size;		/* words, return address included */
	char name[HS_JAVA_NAME_MAX];	/* the method's, or the blob's ("Interpreter") */
};

/* The blob whose code holds pc, named, into *out. Returns 0; -ENOENT
 * when pc is in no code heap's blob (free space, a header, outside);
 * -EPROTO when what the process holds is not what a VM writes (a segment
 * map that hops outside or past its bound, a name unreadable); -ESRCH
 * when the process is gone. */
int hs_code__blob(const struct hs_layout *l, hs_read_fn rd, void *arg, uint64_t pc,
		  struct hs_blob *out);

/* Calls fn for each used blob with code of every code heap, in address
 * order per heap, at most max of them: the heaps walked block by block
 * from their first segment (each block's header gives its length) to the
 * first never used or the end of what is committed. Returns the count, or
 * -EPROTO (a block out of its heap) or -ESRCH. */
int hs_code__each_blob(const struct hs_layout *l, hs_read_fn rd, void *arg, size_t max,
		       void (*fn)(const struct hs_blob *b, void *ctx), void *ctx);

/* "package.Class.method" of the Method* at method into name (size bytes;
 * control bytes shown as '?'). Returns 0, -EPROTO or -ESRCH. */
int hs_code__method_name(const struct hs_layout *l, hs_read_fn rd, void *arg, uint64_t method,
			 char *name, size_t size);

/* The code heaps, at most max, into out: their count; -ENOENT before the
 * VM made them; -EPROTO (more than max, a segment size out of bounds) or
 * -ESRCH. */
int hs_code__heaps(const struct hs_layout *l, hs_read_fn rd, void *arg, struct hs_heap_view *out,
		   int max);

/* The template interpreter's code, [*start, *end) (its StubQueue's
 * buffer): 0; -ENOENT before the VM made it; -EPROTO when outside the code
 * cache's bounds [low, high); -ESRCH. */
int hs_code__interpreter(const struct hs_layout *l, hs_read_fn rd, void *arg, uint64_t low,
			 uint64_t high, uint64_t *start, uint64_t *end);

#endif
