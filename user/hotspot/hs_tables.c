// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading HotSpot's vmStructs tables from the process (hs_find.h). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "hotspot/hs_find.h"

#define CANONICAL_END	(1ULL << 47)	/* x86-64 user space */

/* One table's shape: where its entries are and where in an entry each
 * word is (its stride and its offsets, from libjvm's exported symbols). */
struct shape {
	uint64_t base, stride;
	uint64_t name, field, flag, value;	/* offsets; field/flag: structs only */
	uint64_t address;			/* structs only */
	bool is_structs, value32;
};

enum want_kind { W_FIELD, W_STATIC, W_SIZE, W_INT };

/* A fact the walker or the namer needs, and where it goes in hs_layout. */
struct want {
	enum want_kind kind;
	const char *type, *field;
	size_t at;
};

#define FIELD(t, f, m)	{ W_FIELD, t, f, offsetof(struct hs_layout, m) }
#define STATIC(t, f, m)	{ W_STATIC, t, f, offsetof(struct hs_layout, m) }
#define SIZE(t, m)	{ W_SIZE, t, NULL, offsetof(struct hs_layout, m) }
#define INT(n, m)	{ W_INT, n, NULL, offsetof(struct hs_layout, m) }

static const struct want wants[] = {
	STATIC("CodeCache", "_heaps", code_heaps),
	STATIC("CodeCache", "_low_bound", code_low),
	STATIC("CodeCache", "_high_bound", code_high),
	STATIC("AbstractInterpreter", "_code", interp_code),
	FIELD("GrowableArrayBase", "_len", array_len),
	FIELD("GrowableArray<int>", "_data", array_data),
	FIELD("CodeHeap", "_memory", heap_memory),
	FIELD("CodeHeap", "_segmap", heap_segmap),
	FIELD("CodeHeap", "_log2_segment_size", heap_log2_segment),
	FIELD("VirtualSpace", "_low_boundary", vspace_low),
	FIELD("VirtualSpace", "_high_boundary", vspace_high),
	FIELD("VirtualSpace", "_high", vspace_committed),
	SIZE("HeapBlock", heap_block_size),
	FIELD("HeapBlock::Header", "_length", block_length),
	FIELD("HeapBlock::Header", "_used", block_used),
	FIELD("CodeBlob", "_name", blob_name),
	FIELD("CodeBlob", "_size", blob_size),
	FIELD("CodeBlob", "_frame_size", blob_frame_size),
	FIELD("CodeBlob", "_frame_complete_offset", blob_frame_complete),
	FIELD("CodeBlob", "_code_begin", blob_code_begin),
	FIELD("CodeBlob", "_code_end", blob_code_end),
	FIELD("CompiledMethod", "_method", nmethod_method),
	FIELD("Method", "_constMethod", method_const),
	FIELD("ConstMethod", "_constants", const_constants),
	FIELD("ConstMethod", "_name_index", const_name_index),
	FIELD("ConstMethod", "_signature_index", const_signature_index),
	FIELD("ConstantPool", "_pool_holder", pool_holder),
	FIELD("ConstantPool", "_length", pool_length),
	SIZE("ConstantPool", pool_size),
	FIELD("Klass", "_name", klass_name),
	FIELD("Symbol", "_length", symbol_length),
	FIELD("Symbol", "_body", symbol_body),
	FIELD("StubQueue", "_stub_buffer", stubq_buffer),
	FIELD("StubQueue", "_buffer_limit", stubq_limit),
	INT("frame::interpreter_frame_sender_sp_offset", frame_sender_sp),
	INT("frame::interpreter_frame_last_sp_offset", frame_last_sp),
};

#define NWANTS	(sizeof(wants) / sizeof(wants[0]))
_Static_assert(NWANTS <= 64, "one bit each in a uint64_t");

struct walk {
	hs_read_fn rd;
	void *arg;
	struct hs_layout *out;
	uint64_t found;			/* a bit per wants[] */
	enum hs_refusal why;
};

static int refuse(struct walk *w, enum hs_refusal why)
{
	w->why = why;
	return -EPROTO;
}

/* A read's error: the process gone stays -ESRCH, anything else refuses. */
static int read_failed(struct walk *w, int err)
{
	return err == -ESRCH ? err : refuse(w, HS_REFUSED_UNREADABLE);
}

static int read_u64(struct walk *w, uint64_t addr, uint64_t *v)
{
	int err = w->rd(w->arg, addr, v, sizeof(*v));

	return err ? read_failed(w, err) : 0;
}

static int read_name(struct walk *w, uint64_t addr, char name[HS_NAME_MAX])
{
	int err = hs_find__read_cstr(w->rd, w->arg, addr, name);

	return err && err != -ENOENT && err != -ENAMETOOLONG ? read_failed(w, err) : err;
}

static uint64_t word_at(const unsigned char *e, uint64_t off, bool is32)
{
	uint64_t v = 0;
	int32_t v32;

	if (is32) {
		memcpy(&v32, e + off, sizeof(v32));
		return (uint64_t)(int64_t)v32;
	}
	memcpy(&v, e + off, sizeof(v));
	return v;
}

static bool type_wanted(const char *type)
{
	for (size_t i = 0; i < NWANTS; i++)
		if (!strcmp(wants[i].type, type))
			return true;
	return false;
}

/* Records value for wants[i]: false when it is out of its bounds. */
static bool record(struct walk *w, size_t i, uint64_t value)
{
	unsigned char *to = (unsigned char *)w->out + wants[i].at;
	uint32_t v32 = (uint32_t)value;
	int32_t i32 = (int32_t)value;

	if (w->found & 1ULL << i)	/* the first description stands */
		return true;
	w->found |= 1ULL << i;
	switch (wants[i].kind) {
	case W_STATIC:
		if (!value || value >= CANONICAL_END)
			return false;
		memcpy(to, &value, sizeof(value));
		return true;
	case W_INT:
		if ((int64_t)value < -(int64_t)HS_FIELD_MAX || (int64_t)value > HS_FIELD_MAX)
			return false;
		memcpy(to, &i32, sizeof(i32));
		return true;
	case W_SIZE:
		if (!value)
			return false;
		/* fall through */
	case W_FIELD:
		if (value >= HS_FIELD_MAX)
			return false;
		memcpy(to, &v32, sizeof(v32));
		return true;
	}
	return false;
}

/* The entry e of shape sh, named type (and field): what it gives. */
static int take(struct walk *w, const struct shape *sh, const unsigned char *e, const char *type)
{
	char field[HS_NAME_MAX];
	bool is_static = false;
	int err = 0;

	if (sh->is_structs) {
		err = read_name(w, word_at(e, sh->field, false), field);
		if (err == -EPROTO || err == -ESRCH)
			return err;
		if (err)
			return 0;	/* unnamed, or a name too long to be one wanted */
		is_static = word_at(e, sh->flag, true) != 0;
	}
	for (size_t i = 0; i < NWANTS; i++) {
		const struct want *wt = &wants[i];
		bool kind_ok = sh->is_structs ? wt->kind == (is_static ? W_STATIC : W_FIELD) :
			       sh->value32 ? wt->kind == W_INT : wt->kind == W_SIZE;
		uint64_t value;

		if (!kind_ok || strcmp(wt->type, type) || (wt->field && strcmp(wt->field, field)))
			continue;
		value = word_at(e, is_static ? sh->address : sh->value, sh->value32);
		if (!record(w, i, value))
			return refuse(w, HS_REFUSED_VALUE);
	}
	return 0;
}

/* Every entry of one table, to the one whose name is NULL (its end). */
static int walk_table(struct walk *w, const struct shape *sh)
{
	unsigned char e[HS_STRIDE_MAX];
	char type[HS_NAME_MAX];
	uint64_t last_type = 0;
	bool last_wanted = false;

	for (uint64_t i = 0; i < HS_TABLE_ENTRIES_MAX; i++) {
		uint64_t name_at;
		int err = w->rd(w->arg, sh->base + i * sh->stride, e, sh->stride);

		if (err)
			return read_failed(w, err);
		name_at = word_at(e, sh->name, false);
		if (!name_at)
			return 0;
		/* structs' entries come grouped by type, one string each */
		if (name_at != last_type) {
			err = read_name(w, name_at, type);
			if (err == -EPROTO || err == -ESRCH)
				return err;
			last_type = name_at;
			last_wanted = !err && type_wanted(type);
		}
		if (last_wanted && (err = take(w, sh, e, type)))
			return err;
	}
	return refuse(w, HS_REFUSED_UNENDED);
}

/* The shape's stride and offsets, read from the symbols' words: each word
 * of an entry must lie inside its stride. */
static int read_shape(struct walk *w, uint64_t table, uint64_t stride, const uint64_t *offs,
		      size_t noffs, struct shape *sh)
{
	uint64_t v[5] = { 0 };
	int err;

	if ((err = read_u64(w, table, &sh->base)) || (err = read_u64(w, stride, &sh->stride)))
		return err;
	for (size_t i = 0; i < noffs; i++)
		if (offs[i] && (err = read_u64(w, offs[i], &v[i])))
			return err;
	sh->name = v[0];
	sh->value = v[1];
	sh->field = v[2];
	sh->flag = v[3];
	sh->address = v[4];
	if (!sh->stride)
		return -EAGAIN;	/* libjvm's static initialisers not run yet */
	if (!sh->base || sh->base >= CANONICAL_END || sh->stride < 8 || sh->stride > HS_STRIDE_MAX ||
	    sh->base + (uint64_t)HS_TABLE_ENTRIES_MAX * sh->stride >= CANONICAL_END)
		return refuse(w, HS_REFUSED_SHAPE);
	for (size_t i = 0; i < noffs; i++)
		if (v[i] > sh->stride - 8)
			return refuse(w, HS_REFUSED_SHAPE);
	return 0;
}

static int walk_all(struct walk *w, const struct hs_syms *s)
{
	const uint64_t st[] = { s->struct_type, s->struct_offset, s->struct_field,
				s->struct_static, s->struct_address };
	const uint64_t ty[] = { s->type_name, s->type_size };
	const uint64_t in[] = { s->int_name, s->int_value };
	struct shape sh = { .is_structs = true };
	int err;

	if ((err = read_shape(w, s->structs, s->struct_stride, st, 5, &sh)) ||
	    (err = walk_table(w, &sh)))
		return err;
	sh = (struct shape){ 0 };
	if ((err = read_shape(w, s->types, s->type_stride, ty, 2, &sh)) ||
	    (err = walk_table(w, &sh)))
		return err;
	sh = (struct shape){ .value32 = true };
	if ((err = read_shape(w, s->ints, s->int_stride, in, 2, &sh)))
		return err;
	return walk_table(w, &sh);
}

/* What the walker relies on beyond each value's own bounds. */
static int check(struct walk *w)
{
	const struct hs_layout *l = w->out;

	if (w->found != (NWANTS == 64 ? ~0ULL : (1ULL << NWANTS) - 1))
		return refuse(w, HS_REFUSED_MISSING);
	/* x86-64's interpreter frame (frame_x86.hpp): the Method* is the
	 * word below the last sp's; another layout is not this walker's */
	if (l->frame_sender_sp != -1 || l->frame_last_sp != -2 ||
	    l->pool_holder + 8 > l->pool_size || l->block_used >= l->heap_block_size ||
	    l->heap_block_size > 256 || l->vspace_low == l->vspace_high)
		return refuse(w, HS_REFUSED_VALUE);
	return 0;
}

int hs_find__tables(hs_read_fn rd, void *arg, const struct hs_syms *s, struct hs_layout *out,
		    enum hs_refusal *why)
{
	struct walk w = { .rd = rd, .arg = arg, .out = out };
	int err;

	memset(out, 0, sizeof(*out));
	err = walk_all(&w, s);
	if (!err)
		err = check(&w);
	if (!err) {
		out->frame_method = out->frame_last_sp - 1;
		return 0;
	}
	if (err == -EPROTO)
		*why = w.why;
	return err;
}
