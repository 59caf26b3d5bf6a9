// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A code cache address's blob and Java method (hs_code.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "bpf/profile.h"
#include "hotspot/hs_code.h"

#define FREE_SEGMENT	0xff	/* the segment map's mark of free space */
#define LOG2_SEG_MIN	4	/* JDK 17: 6 or 7 (CodeCacheSegmentSize 64, 128) */
#define LOG2_SEG_MAX	16
#define NMETHOD_NAME	"nmethod"	/* the CodeBlob name every nmethod has */

struct reader {
	hs_read_fn rd;
	void *arg;
};

/* A read: the process gone stays -ESRCH; anything else is not what a VM
 * holds there. */
static int get(const struct reader *r, uint64_t addr, void *buf, size_t len)
{
	int err = r->rd(r->arg, addr, buf, len);

	return !err ? 0 : err == -ESRCH ? err : -EPROTO;
}

static int get_u64(const struct reader *r, uint64_t addr, uint64_t *v)
{
	return get(r, addr, v, sizeof(*v));
}

static int get_i32(const struct reader *r, uint64_t addr, int32_t *v)
{
	return get(r, addr, v, sizeof(*v));
}

/* The code heaps' array: *n of them at *data; -ENOENT before the VM made it. */
static int heaps_of(const struct hs_layout *l, const struct reader *r, uint64_t *data,
		    int32_t *n)
{
	uint64_t heaps;
	int err;

	if ((err = get_u64(r, l->code_heaps, &heaps)))
		return err;
	if (!heaps)
		return -ENOENT;	/* the VM starting: no code cache yet */
	if ((err = get_i32(r, heaps + l->array_len, n)) ||
	    (err = get_u64(r, heaps + l->array_data, data)))
		return err;
	return *n < 0 || *n > HS_HEAPS_MAX ? -EPROTO : 0;
}

static int read_heap(const struct hs_layout *l, const struct reader *r, uint64_t data, int32_t i,
		     struct hs_heap_view *h)
{
	uint64_t heap;
	int err;

	if ((err = get_u64(r, data + 8 * (uint64_t)i, &heap)) ||
	    (err = get_u64(r, heap + l->heap_memory + l->vspace_low, &h->low)) ||
	    (err = get_u64(r, heap + l->heap_memory + l->vspace_high, &h->high)) ||
	    (err = get_u64(r, heap + l->heap_memory + l->vspace_committed, &h->top)) ||
	    (err = get_u64(r, heap + l->heap_segmap + l->vspace_low, &h->segmap)) ||
	    (err = get_i32(r, heap + l->heap_log2_segment, &h->log2_seg)))
		return err;
	if (h->top > h->high)
		h->top = h->high;
	return h->log2_seg < LOG2_SEG_MIN || h->log2_seg > LOG2_SEG_MAX || h->low > h->high ?
	       -EPROTO : 0;
}

/* The code heap holding pc; -ENOENT when none does. */
static int find_heap(const struct hs_layout *l, const struct reader *r, uint64_t pc,
		     struct hs_heap_view *h)
{
	uint64_t data;
	int32_t n;
	int err = heaps_of(l, r, &data, &n);

	for (int32_t i = 0; !err && i < n; i++) {
		err = read_heap(l, r, data, i, h);
		if (!err && pc >= h->low && pc < h->high)
			return 0;
	}
	return err ? err : -ENOENT;
}

/* The first segment of the block holding segment seg: the map holds, at
 * each segment of a block, how far back to hop (0: the first). */
static int block_start(const struct reader *r, const struct hs_heap_view *h, uint64_t *seg)
{
	for (int hop = 0; hop < HS_SEGMAP_HOPS; hop++) {
		uint8_t back;
		int err = get(r, h->segmap + *seg, &back, 1);

		if (err)
			return err;
		if (back == FREE_SEGMENT)
			return -ENOENT;
		if (!back)
			return 0;
		if (back > *seg)
			return -EPROTO;
		*seg -= back;
	}
	return -EPROTO;
}

/* The blob's own fields, checked against its heap, and its name. */
static int read_blob(const struct hs_layout *l, const struct reader *r,
		     const struct hs_heap_view *h, uint64_t blob, struct hs_blob *out)
{
	uint64_t name;
	int err;

	if ((err = get_u64(r, blob + l->blob_code_begin, &out->begin)) ||
	    (err = get_u64(r, blob + l->blob_code_end, &out->end)) ||
	    (err = get_i32(r, blob + l->blob_frame_size, &out->frame_size)) ||
	    (err = get_u64(r, blob + l->blob_name, &name)))
		return err;
	/* a frame size the BPF side would step by: words, return address included */
	if (out->begin < blob || out->end > h->high || out->begin > out->end ||
	    out->frame_size < 0 || out->frame_size > HS_FRAME_WORDS_MAX)
		return -EPROTO;
	err = hs_find__read_cstr(r->rd, r->arg, name, out->name);
	if (err)
		return err == -ESRCH ? err : -EPROTO;
	out->method = 0;
	if (strcmp(out->name, NMETHOD_NAME))
		return 0;
	if ((err = get_u64(r, blob + l->nmethod_method, &out->method)))
		return err;
	return hs_code__method_name(l, r->rd, r->arg, out->method, out->name, sizeof(out->name));
}

int hs_code__blob(const struct hs_layout *l, hs_read_fn rd, void *arg, uint64_t pc,
		  struct hs_blob *out)
{
	const struct reader r = { rd, arg };
	struct hs_heap_view h;
	uint64_t seg, block;
	uint8_t used;
	int err = find_heap(l, &r, pc, &h);

	if (err)
		return err;
	seg = (pc - h.low) >> h.log2_seg;
	if ((err = block_start(&r, &h, &seg)))
		return err;
	block = h.low + (seg << h.log2_seg);
	if ((err = get(&r, block + l->block_used, &used, 1)))
		return err;
	if (!used)
		return -ENOENT;
	/* the bounds first: a blob's name is read only when pc is its code */
	if ((err = get_u64(&r, block + l->heap_block_size + l->blob_code_begin, &out->begin)) ||
	    (err = get_u64(&r, block + l->heap_block_size + l->blob_code_end, &out->end)))
		return err;
	if (pc < out->begin || pc >= out->end)
		return -ENOENT;	/* its header or data: no code runs there */
	return read_blob(l, &r, &h, block + l->heap_block_size, out);
}

/* One heap's used blobs, block after block; *left: how many more may be. */
static int heap_blobs(const struct hs_layout *l, const struct reader *r,
		      const struct hs_heap_view *h, size_t *left,
		      void (*fn)(const struct hs_blob *b, void *ctx), void *ctx)
{
	uint64_t block = h->low, length;
	size_t blocks = 0;
	struct hs_blob b;
	uint8_t used;
	int err;

	/* free blocks lie between used ones: as many of them, at most */
	while (*left && blocks++ < 2 * HS_BLOBS_MAX && block + l->heap_block_size < h->top) {
		if ((err = get_u64(r, block + l->block_length, &length)) ||
		    (err = get(r, block + l->block_used, &used, 1)))
			return err;
		if (!length)
			return 0;	/* never used from here on */
		if (length > (h->top - block) >> h->log2_seg)
			return -EPROTO;
		if (used) {
			err = read_blob(l, r, h, block + l->heap_block_size, &b);
			if (err == -ESRCH)
				return err;
			if (!err && b.begin < b.end) {
				fn(&b, ctx);
				(*left)--;
			}
		}
		block += length << h->log2_seg;
	}
	return 0;
}

int hs_code__each_blob(const struct hs_layout *l, hs_read_fn rd, void *arg, size_t max,
		       void (*fn)(const struct hs_blob *b, void *ctx), void *ctx)
{
	const struct reader r = { rd, arg };
	size_t left = max;
	struct hs_heap_view h;
	uint64_t data;
	int32_t n;
	int err = heaps_of(l, &r, &data, &n);

	if (err == -ENOENT)
		return 0;
	for (int32_t i = 0; !err && i < n; i++) {
		err = read_heap(l, &r, data, i, &h);
		if (!err)
			err = heap_blobs(l, &r, &h, &left, fn, ctx);
	}
	return err ? err : (int)(max - left);
}

/* A Symbol's bytes (Java's modified UTF-8, not NUL-ended), as much as fits
 * in size - 1 bytes and a NUL, '/' shown as '.' and control bytes as '?';
 * *len the bytes written. */
static int symbol(const struct hs_layout *l, const struct reader *r, uint64_t sym, char *out,
		  size_t size, size_t *len)
{
	uint16_t n;
	int err;

	*len = 0;
	if (size < 2)
		return 0;
	if ((err = get(r, sym + l->symbol_length, &n, sizeof(n))))
		return err;
	*len = n < size - 1 ? n : size - 1;
	if (*len && (err = get(r, sym + l->symbol_body, out, *len)))
		return err;
	for (size_t i = 0; i < *len; i++) {
		unsigned char c = (unsigned char)out[i];

		out[i] = c == '/' ? '.' : c < 0x20 || c == 0x7f ? '?' : out[i];
	}
	out[*len] = '\0';
	return 0;
}

int hs_code__method_name(const struct hs_layout *l, hs_read_fn rd, void *arg, uint64_t method,
			 char *name, size_t size)
{
	const struct reader r = { rd, arg };
	uint64_t cm, cp, holder, klass_sym, name_sym;
	uint16_t index;
	int32_t length;
	size_t n, m;
	int err;

	if ((err = get_u64(&r, method + l->method_const, &cm)) ||
	    (err = get_u64(&r, cm + l->const_constants, &cp)) ||
	    (err = get(&r, cm + l->const_name_index, &index, sizeof(index))) ||
	    (err = get_i32(&r, cp + l->pool_length, &length)) ||
	    (err = get_u64(&r, cp + l->pool_holder, &holder)) ||
	    (err = get_u64(&r, holder + l->klass_name, &klass_sym)))
		return err;
	/* the pool's entries follow it, one word each */
	if (!index || index >= length)
		return -EPROTO;
	if ((err = get_u64(&r, cp + l->pool_size + 8 * (uint64_t)index, &name_sym)) ||
	    (err = symbol(l, &r, klass_sym, name, size, &n)))
		return err;
	if (n + 2 >= size)
		return 0;
	name[n++] = '.';
	return symbol(l, &r, name_sym, name + n, size - n, &m);
}

int hs_code__heaps(const struct hs_layout *l, hs_read_fn rd, void *arg, struct hs_heap_view *out,
		   int max)
{
	const struct reader r = { rd, arg };
	uint64_t data;
	int32_t n;
	int err = heaps_of(l, &r, &data, &n);

	if (err)
		return err;
	if (n > max)
		return -EPROTO;
	for (int32_t i = 0; i < n; i++)
		if ((err = read_heap(l, &r, data, i, &out[i])))
			return err;
	return n;
}

int hs_code__interpreter(const struct hs_layout *l, hs_read_fn rd, void *arg, uint64_t low,
			 uint64_t high, uint64_t *start, uint64_t *end)
{
	const struct reader r = { rd, arg };
	uint64_t queue;
	int32_t limit;
	int err;

	if ((err = get_u64(&r, l->interp_code, &queue)))
		return err;
	if (!queue)
		return -ENOENT;	/* the VM starting: no interpreter yet */
	if ((err = get_u64(&r, queue + l->stubq_buffer, start)) ||
	    (err = get_i32(&r, queue + l->stubq_limit, &limit)))
		return err;
	if (limit <= 0 || *start < low || *start + (uint64_t)limit > high)
		return -EPROTO;
	*end = *start + (uint64_t)limit;
	return 0;
}
