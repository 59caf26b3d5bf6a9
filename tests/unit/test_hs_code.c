// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of hs_code against a code heap laid out in a buffer as JDK
 * 17's is (the offsets its vmStructs give on x86-64), read through a
 * reader that faults outside it: a compiled method's blob found by the
 * segment map and named package.Class.method; free space and headers are
 * no code; what another user could plant (a segment map that hops past
 * its bound or before the heap, a thousand heaps, a blob whose code lies
 * outside its heap, unreadable names, a pool index past the pool, control
 * bytes in a name, a frame size the BPF walker would step by that no
 * frame has) is refused or made safe, never followed. The BPF walker's
 * facts (hs_facts) read from the same heap, and refused out of bounds.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include <linux/types.h>

#include "hotspot/hs_code.h"
#include "hotspot/hs_facts.h"

#define BASE		0x100000ULL	/* the buffer's address in the fake process */
#define ARENA		(64 << 10)

/* where each structure lies in the buffer */
#define A_HEAPS		0x0000	/* CodeCache::_heaps: the array's address */
#define A_ARRAY		0x0040	/* GrowableArray<CodeHeap*> */
#define A_DATA		0x0080	/* its elements */
#define A_HEAP		0x0100	/* CodeHeap */
#define A_NAMES		0x0400	/* C strings */
#define A_METHOD	0x0500
#define A_CONST		0x0580
#define A_POOL		0x0600	/* ConstantPool, then its entries */
#define A_KLASS		0x0700
#define A_SYM_K		0x0800
#define A_SYM_M		0x0880
#define A_STATICS	0x0900	/* CodeCache::_low_bound, _high_bound; AbstractInterpreter::_code */
#define A_QUEUE		0x0940	/* the interpreter's StubQueue */
#define A_SEGMAP	0x1000	/* 8192 segments' bytes */
#define A_MEM		0x4000	/* the heap's memory: 16-byte segments */
#define MEM_SIZE	(8192 * 16)	/* past the buffer: only its start is read */
#define CODE_BEGIN	0x100	/* the blob's code, from the block */
#define CODE_END	0x400

static unsigned char arena[ARENA];
static int gone;		/* the reader says the process exited */

static int rd(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (gone)
		return -ESRCH;
	if (addr < BASE || addr - BASE > ARENA || len > ARENA - (addr - BASE))
		return -EFAULT;
	memcpy(buf, arena + (addr - BASE), len);
	return 0;
}

static void put64(size_t at, uint64_t v) { memcpy(arena + at, &v, 8); }
static void put32(size_t at, int32_t v) { memcpy(arena + at, &v, 4); }
static void put16(size_t at, uint16_t v) { memcpy(arena + at, &v, 2); }

static void symbol(size_t at, const char *s)
{
	put16(at + 4, (uint16_t)strlen(s));
	memcpy(arena + at + 6, s, strlen(s));
}

/* JDK 17's offsets (x86-64), as its vmStructs give them */
static const struct hs_layout layout = {
	.code_heaps = BASE + A_HEAPS, .array_len = 0, .array_data = 8,
	.heap_memory = 8, .heap_segmap = 120, .heap_log2_segment = 256,
	.vspace_low = 0, .vspace_high = 8, .vspace_committed = 24, .heap_block_size = 16, .block_length = 0, .block_used = 8,
	.blob_name = 96, .blob_size = 12, .blob_frame_size = 28, .blob_frame_complete = 20,
	.blob_code_begin = 32, .blob_code_end = 40, .nmethod_method = 112, .method_const = 8,
	.const_constants = 8, .const_name_index = 34, .const_signature_index = 36,
	.pool_holder = 24, .pool_length = 60, .pool_size = 72, .klass_name = 24,
	.symbol_length = 4, .symbol_body = 6, .frame_method = -3,
	.code_low = BASE + A_STATICS, .code_high = BASE + A_STATICS + 8,
	.interp_code = BASE + A_STATICS + 16, .stubq_buffer = 8, .stubq_limit = 16,
	.frame_sender_sp = -1, .frame_last_sp = -2,
};

/* One heap of 8192 16-byte segments: one nmethod's block at its start
 * (segments 0-63, the map hopping back 0, 1, 2...), the rest free. */
static void build(void)
{
	uint64_t block = BASE + A_MEM, blob = block + 16;

	gone = 0;
	memset(arena, 0, sizeof(arena));
	put64(A_HEAPS, BASE + A_ARRAY);
	put32(A_ARRAY + 0, 1);
	put64(A_ARRAY + 8, BASE + A_DATA);
	put64(A_DATA, BASE + A_HEAP);
	put64(A_HEAP + 8, BASE + A_MEM);
	put64(A_HEAP + 16, BASE + A_MEM + MEM_SIZE);
	put64(A_HEAP + 32, BASE + A_MEM + MEM_SIZE);	/* all committed */
	put64(A_HEAP + 120, BASE + A_SEGMAP);
	put32(A_HEAP + 256, 4);
	memset(arena + A_SEGMAP, 0xff, 8192);
	for (int i = 0; i < 64; i++)
		arena[A_SEGMAP + i] = (unsigned char)i;
	arena[A_MEM + 8] = 1;	/* used */
	strcpy((char *)arena + A_NAMES, "nmethod");
	put64(blob - BASE + 96, BASE + A_NAMES);
	put32(blob - BASE + 28, 6);
	put64(blob - BASE + 32, block + CODE_BEGIN);
	put64(blob - BASE + 40, block + CODE_END);
	put64(blob - BASE + 112, BASE + A_METHOD);
	put64(A_METHOD + 8, BASE + A_CONST);
	put64(A_CONST + 8, BASE + A_POOL);
	put16(A_CONST + 34, 2);
	put64(A_POOL + 24, BASE + A_KLASS);
	put32(A_POOL + 60, 4);
	put64(A_POOL + 72 + 2 * 8, BASE + A_SYM_M);
	put64(A_KLASS + 24, BASE + A_SYM_K);
	symbol(A_SYM_K, "com/example/Chain");
	symbol(A_SYM_M, "leaf");
	/* the code cache's bounds: the heap; the interpreter's code at its
	 * 100th segment, 0x400 bytes */
	put64(A_STATICS, BASE + A_MEM);
	put64(A_STATICS + 8, BASE + A_MEM + MEM_SIZE);
	put64(A_STATICS + 16, BASE + A_QUEUE);
	put64(A_QUEUE + 8, BASE + A_MEM + 100 * 16);
	put32(A_QUEUE + 16, 0x400);
}

static int blob_at(uint64_t off, struct hs_blob *b)
{
	return hs_code__blob(&layout, rd, NULL, BASE + A_MEM + off, b);
}

Test(hs_code, compiled_method_named)
{
	struct hs_blob b;

	build();
	cr_assert_eq(blob_at(0x3ff, &b), 0);	/* segment 63: one hop of 63 back */
	cr_expect_str_eq(b.name, "com.example.Chain.leaf");
	cr_expect_eq(b.begin, BASE + A_MEM + CODE_BEGIN);
	cr_expect_eq(b.end, BASE + A_MEM + CODE_END);
	cr_expect_eq(b.frame_size, 6);
	cr_expect_eq(b.method, BASE + A_METHOD);
}

Test(hs_code, no_code_there)
{
	struct hs_blob b;

	build();
	cr_expect_eq(blob_at(0x500, &b), -ENOENT, "free space");
	cr_expect_eq(blob_at(0x20, &b), -ENOENT, "the blob's header");
	cr_expect_eq(hs_code__blob(&layout, rd, NULL, BASE + A_MEM + MEM_SIZE, &b), -ENOENT,
		     "past the heap");
	put64(A_HEAPS, 0);
	cr_expect_eq(blob_at(0x200, &b), -ENOENT, "the VM starting: no heaps yet");
}

Test(hs_code, segment_map_bounded)
{
	struct hs_blob b;

	build();
	/* 8192 segments each one hop back: past HS_SEGMAP_HOPS */
	memset(arena + A_SEGMAP + 1, 1, 8191);
	cr_expect_eq(blob_at(8191 * 16, &b), -EPROTO);
	/* a hop before the heap's first segment */
	build();
	arena[A_SEGMAP + 10] = 200;
	cr_expect_eq(blob_at(10 * 16, &b), -EPROTO);
}

Test(hs_code, planted_structures_refused)
{
	struct hs_blob b;

	build();
	put32(A_ARRAY, 1000);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "a thousand heaps");
	build();
	put64(A_MEM + 16 + 40, BASE + A_MEM + MEM_SIZE + 1);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "code past its heap");
	build();
	put64(A_MEM + 16 + 96, 0xdead0000);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "an unreadable blob name");
	build();
	put16(A_CONST + 34, 4);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "a name index past the pool");
	build();
	put64(A_KLASS + 24, BASE + ARENA - 8);	/* a Symbol whose bytes run off */
	put16(ARENA - 4, 60000);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "a class name past readable memory");
	build();
	arena[A_MEM + 8] = 0;
	cr_expect_eq(blob_at(0x200, &b), -ENOENT, "a block not used");
}

Test(hs_code, name_bytes_made_safe)
{
	struct hs_blob b;

	build();
	symbol(A_SYM_M, "le\033[2Jaf\n");
	cr_assert_eq(blob_at(0x200, &b), 0);
	cr_expect_str_eq(b.name, "com.example.Chain.le?[2Jaf?");
}

Test(hs_code, process_gone)
{
	struct hs_blob b;

	build();
	gone = 1;
	cr_expect_eq(blob_at(0x200, &b), -ESRCH);
}

static void count_blob(const struct hs_blob *b, void *arg)
{
	struct hs_blob *last = arg;

	*last = *b;
}

Test(hs_code, heaps_walked_block_by_block)
{
	struct hs_blob last = { 0 };

	build();
	/* the nmethod's block: 64 segments; then a free block of 16; then a
	 * stub's block; then nothing used */
	put64(A_MEM, 64);
	put64(A_MEM + 64 * 16, 16);
	put64(A_MEM + 80 * 16, 8);
	arena[A_MEM + 80 * 16 + 8] = 1;
	strcpy((char *)arena + A_NAMES + 16, "StubRoutines (1)");
	put64(A_MEM + 80 * 16 + 16 + 96, BASE + A_NAMES + 16);
	put64(A_MEM + 80 * 16 + 16 + 32, BASE + A_MEM + 80 * 16 + 64);
	put64(A_MEM + 80 * 16 + 16 + 40, BASE + A_MEM + 88 * 16);
	cr_assert_eq(hs_code__each_blob(&layout, rd, NULL, 100, count_blob, &last), 2);
	cr_expect_str_eq(last.name, "StubRoutines (1)");
	cr_expect_eq(last.method, 0);
	/* at most max */
	cr_expect_eq(hs_code__each_blob(&layout, rd, NULL, 1, count_blob, &last), 1);
	/* a block longer than its heap: refused */
	put64(A_MEM + 80 * 16, 1ULL << 40);
	cr_expect_eq(hs_code__each_blob(&layout, rd, NULL, 100, count_blob, &last), -EPROTO);
}

Test(hs_code, frame_size_out_of_bounds_refused)
{
	struct hs_blob b;

	build();
	put32(A_MEM + 16 + 28, HS_FRAME_WORDS_MAX);
	cr_expect_eq(blob_at(0x200, &b), 0, "the largest frame the walker steps by");
	put32(A_MEM + 16 + 28, HS_FRAME_WORDS_MAX + 1);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "a huge frame");
	put32(A_MEM + 16 + 28, -2);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "a negative frame");
	put32(A_MEM + 16 + 28, INT32_MIN);
	cr_expect_eq(blob_at(0x200, &b), -EPROTO, "the most negative frame");
}

Test(hs_facts, read_from_the_vm)
{
	struct hs_facts f;

	build();
	cr_assert_eq(hs_facts__read(&layout, rd, NULL, &f), 0);
	cr_expect_eq(f.nheaps, 1);
	cr_expect_eq(f.heaps[0].low, BASE + A_MEM);
	cr_expect_eq(f.heaps[0].high, BASE + A_MEM + MEM_SIZE);
	cr_expect_eq(f.heaps[0].segmap, BASE + A_SEGMAP);
	cr_expect_eq(f.heaps[0].log2_seg, 4);
	cr_expect_eq(f.interp_start, BASE + A_MEM + 100 * 16);
	cr_expect_eq(f.interp_end, BASE + A_MEM + 100 * 16 + 0x400);
	cr_expect_eq(f.block_size, 16);
	cr_expect_eq(f.blob_code_begin, 32);
	cr_expect_eq(f.blob_frame_size, 28);
	cr_expect_eq(f.blob_frame_complete, 20);
	cr_expect_eq(f.frame_sender_sp, -1);
	cr_expect_eq(f.frame_method, -3);
}

Test(hs_facts, not_made_yet)
{
	struct hs_facts f;

	build();
	put64(A_STATICS, 0);
	put64(A_STATICS + 8, 0);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -ENOENT, "no code cache yet");
	build();
	put64(A_HEAPS, 0);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -ENOENT, "no heaps yet");
	build();
	put64(A_STATICS + 16, 0);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -ENOENT, "no interpreter yet");
	build();
	gone = 1;
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -ESRCH);
}

Test(hs_facts, planted_values_refused)
{
	struct hs_layout l = layout;
	struct hs_facts f;

	build();
	put32(A_ARRAY, HS_BPF_HEAPS + 1);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -EPROTO, "more heaps than the walker's");
	build();
	put64(A_HEAP + 16, BASE + A_MEM + MEM_SIZE + 16);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -EPROTO, "a heap past the code cache");
	build();
	put32(A_HEAP + 256, 40);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -EPROTO, "2^40-byte segments");
	build();
	put32(A_QUEUE + 16, -1);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -EPROTO, "a negative interpreter");
	build();
	put64(A_QUEUE + 8, BASE + A_MEM + MEM_SIZE - 0x100);
	cr_expect_eq(hs_facts__read(&layout, rd, NULL, &f), -EPROTO,
		     "an interpreter past the code cache");
	build();
	l.blob_frame_size = HS_BLOB_FIELD_MAX + 1;
	cr_expect_eq(hs_facts__read(&l, rd, NULL, &f), -EPROTO, "a blob field far off");
	l = layout;
	l.frame_sender_sp = 1;
	cr_expect_eq(hs_facts__read(&l, rd, NULL, &f), -EPROTO, "a sender above the frame");
}
