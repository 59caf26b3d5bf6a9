// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A code cache address's blob and Java method (hs_code.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

/* The code heap holding pc: its memory's [low, high), segment map, and
 * segment size; -ENOENT when no heap holds it. */
struct heap {
	uint64_t low, high, segmap;
	int32_t log2_seg;
};

static int find_heap(const struct hs_layout *l, const struct reader *r, uint64_t pc,
		     struct heap *h)
{
	uint64_t heaps, data, heap;
	int32_t n;
	int err;

	if ((err = get_u64(r, l->code_heaps, &heaps)))
		return err;
	if (!heaps)
		return -ENOENT;	/* the VM starting: no code cache yet */
	if ((err = get_i32(r, heaps + l->array_len, &n)) ||
	    (err = get_u64(r, heaps + l->array_data, &data)))
		return err;
	if (n < 0 || n > HS_HEAPS_MAX)
		return -EPROTO;
	for (int32_t i = 0; i < n; i++) {
		if ((err = get_u64(r, data + 8 * (uint64_t)i, &heap)) ||
		    (err = get_u64(r, heap + l->heap_memory + l->vspace_low, &h->low)) ||
		    (err = get_u64(r, heap + l->heap_memory + l->vspace_high, &h->high)))
			return err;
		if (pc < h->low || pc >= h->high)
			continue;
		if ((err = get_u64(r, heap + l->heap_segmap + l->vspace_low, &h->segmap)) ||
		    (err = get_i32(r, heap + l->heap_log2_segment, &h->log2_seg)))
			return err;
		return h->log2_seg < LOG2_SEG_MIN || h->log2_seg > LOG2_SEG_MAX ? -EPROTO : 0;
	}
	return -ENOENT;
}

/* The first segment of the block holding segment seg: the map holds, at
 * each segment of a block, how far back to hop (0: the first). */
static int block_start(const struct reader *r, const struct heap *h, uint64_t *seg)
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

/* The blob's own fields, checked against its heap. */
static int read_blob(const struct hs_layout *l, const struct reader *r, const struct heap *h,
		     uint64_t blob, uint64_t pc, struct hs_blob *out)
{
	uint64_t name;
	int err;

	if ((err = get_u64(r, blob + l->blob_code_begin, &out->begin)) ||
	    (err = get_u64(r, blob + l->blob_code_end, &out->end)) ||
	    (err = get_i32(r, blob + l->blob_frame_size, &out->frame_size)) ||
	    (err = get_u64(r, blob + l->blob_name, &name)))
		return err;
	if (out->begin < blob || out->end > h->high || out->begin > out->end)
		return -EPROTO;
	if (pc < out->begin || pc >= out->end)
		return -ENOENT;	/* its header or data: no code runs there */
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
	struct heap h;
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
	return read_blob(l, &r, &h, block + l->heap_block_size, pc, out);
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
