// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Which mapped file is a V8, and its layout from its v8dbg_ symbols. */
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_read.h"
#include "v8/v8_find.h"

#define V8DBG		"v8dbg_"
#define MAX_LOADS	16
#define MAX_FIELD	256	/* an object's field the walker reads lies below it */
#define MAX_FP_SLOT	128	/* a frame's slot lies this close below its frame pointer */
#define MAX_SCOPE_SLOT	8	/* a ScopeInfo's counts lie in its first slots */
#define BLOB		"v8_Default_embedded_blob_code_"
#define MAX_BLOB	(256u << 20)	/* the builtins are a few MiB */

/* How each symbol's value is checked and where it goes. */
enum check {
	FP_SLOT,	/* negative, 8-aligned, within MAX_FP_SLOT */
	FIELD,		/* below MAX_FIELD */
	TYPE,		/* an instance type: 16 bits */
	BITS,		/* a tag or mask of a string's type: 8 bits */
	MASK,		/* a mask of an instance type: not 0 */
	EXACT,		/* must be want (the layouts this reader knows) */
	SLOT,		/* an index of a ScopeInfo's slots: below MAX_SCOPE_SLOT */
};

struct want {
	const char *name;	/* after "v8dbg_" */
	enum check check;
	size_t at;		/* offset in struct v8_layout; SIZE_MAX: only checked */
	size_t size;		/* of the field there */
	int32_t want;		/* EXACT: the value */
};

#define AT(f)		offsetof(struct v8_layout, f), sizeof(((struct v8_layout *)0)->f)
#define ONLY		SIZE_MAX, 0

static const struct want wants[] = {
	{ "SystemPointerSize", EXACT, ONLY, 8 },
	{ "TaggedSize", EXACT, ONLY, 8 },	/* no pointer compression */
	{ "off_fp_function", FP_SLOT, AT(fp_function), 0 },
	{ "off_fp_context", FP_SLOT, AT(fp_context), 0 },
	{ "off_fp_bytecode_offset", FP_SLOT, AT(fp_bytecode_offset), 0 },
	{ "SmiTag", EXACT, AT(smi_tag), 0 },
	{ "SmiTagMask", EXACT, AT(smi_mask), 1 },
	{ "SmiShiftSize", EXACT, ONLY, 31 },	/* a Smi's value: the upper 32 bits */
	{ "SmiValueShift", EXACT, ONLY, 1 },
	{ "HeapObjectTag", EXACT, AT(heap_tag), 1 },
	{ "HeapObjectTagMask", EXACT, AT(heap_mask), 3 },
	{ "class_HeapObject__map__Map", FIELD, AT(obj_map), 0 },
	{ "class_Map__instance_type__uint16_t", FIELD, AT(map_type), 0 },
	{ "class_JSFunction__shared__SharedFunctionInfo", FIELD, AT(fn_shared), 0 },
	{ "class_SharedFunctionInfo__name_or_scope_info__Object", FIELD, AT(sfi_name), 0 },
	{ "class_SharedFunctionInfo__script_or_debug_info__HeapObject", FIELD, AT(sfi_script), 0 },
	{ "class_Script__name__Object", FIELD, AT(script_name), 0 },
	{ "class_String__length__int32_t", FIELD, AT(str_length), 0 },
	{ "class_SeqOneByteString__chars__char", FIELD, AT(seq_chars), 0 },
	{ "class_SeqTwoByteString__chars__char", FIELD, AT(seq2_chars), 0 },
	{ "class_ConsString__first__String", FIELD, AT(cons_first), 0 },
	{ "class_ConsString__second__String", FIELD, AT(cons_second), 0 },
	{ "class_ThinString__actual__String", FIELD, AT(thin_actual), 0 },
	{ "class_FixedArrayBase__length__SMI", FIELD, AT(fixed_length), 0 },
	{ "class_FixedArray__data__uintptr_t", FIELD, AT(fixed_data), 0 },
	{ "class_Script__line_ends__Object", FIELD, AT(script_line_ends), 0 },
	{ "scopeinfo_idx_ncontextlocals", SLOT, AT(scope_ncontextlocals), 0 },
	{ "scopeinfo_idx_first_vars", SLOT, AT(scope_first_vars), 0 },
	{ "type_JSFunction__JS_FUNCTION_TYPE", TYPE, AT(type_function), 0 },
	{ "type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", TYPE, AT(type_sfi), 0 },
	{ "type_Script__SCRIPT_TYPE", TYPE, AT(type_script), 0 },
	{ "type_ScopeInfo__SCOPE_INFO_TYPE", TYPE, AT(type_scope_info), 0 },
	{ "FirstNonstringType", TYPE, AT(first_nonstring), 0 },
	{ "IsNotStringMask", MASK, AT(not_string_mask), 0 },
	{ "StringEncodingMask", BITS, AT(encoding_mask), 0 },
	{ "OneByteStringTag", BITS, AT(one_byte_tag), 0 },
	{ "StringRepresentationMask", BITS, AT(repr_mask), 0 },
	{ "SeqStringTag", BITS, AT(seq_tag), 0 },
	{ "ConsStringTag", BITS, AT(cons_tag), 0 },
	{ "ThinStringTag", BITS, AT(thin_tag), 0 },
};
#define NWANTS	(sizeof(wants) / sizeof(wants[0]))

struct reading {
	int fd;
	uint64_t fsize;
	struct elf_load loads[MAX_LOADS];
	size_t nloads;
	uint64_t addr[NWANTS];	/* each wanted symbol's address; 0: not seen */
	bool any;		/* a v8dbg_ symbol was seen */
	uint64_t blob, blob_size;	/* the embedded builtins' symbol and its size's */
};

/* One symbol of .dynsym or .symtab: a wanted one's address noted. */
static void note_symbol(const char *name, const GElf_Sym *sym, void *arg)
{
	struct reading *r = arg;

	if (!strcmp(name, BLOB))
		r->blob = sym->st_value;
	else if (!strcmp(name, BLOB "size_"))	/* no size of its own: an int */
		r->blob_size = sym->st_value;
	if (strncmp(name, V8DBG, sizeof(V8DBG) - 1))
		return;
	r->any = true;
	if (sym->st_size != 4)	/* each is an int: anything else is not V8's */
		return;
	for (size_t i = 0; i < NWANTS; i++)
		if (!strcmp(name + sizeof(V8DBG) - 1, wants[i].name))
			r->addr[i] = sym->st_value;
}

/* The 32-bit value at virtual address addr: from the file where a segment
 * holds it there, 0 past its file part (.bss). Returns 0 or -EPROTO. */
static int read_value(const struct reading *r, uint64_t addr, int32_t *v)
{
	for (size_t i = 0; i < r->nloads; i++) {
		const struct elf_load *l = &r->loads[i];
		uint64_t at = addr - l->vaddr;

		if (addr < l->vaddr || at > l->memsz || l->memsz - at < sizeof(*v))
			continue;
		if (at >= l->filesz) {
			*v = 0;
			return 0;
		}
		if (l->filesz - at < sizeof(*v) || !elf_read__in_file(l->off + at, sizeof(*v), r->fsize))
			return -EPROTO;
		return pread(r->fd, v, sizeof(*v), (off_t)(l->off + at)) == sizeof(*v) ? 0 : -EPROTO;
	}
	return -EPROTO;
}

static bool in_bounds(const struct want *w, int32_t v)
{
	switch (w->check) {
	case FP_SLOT:
		return v < 0 && v >= -MAX_FP_SLOT && !(v & 7);
	case FIELD:
		return v >= 0 && v < MAX_FIELD;
	case TYPE:
		return v >= 0 && v <= UINT16_MAX;
	case BITS:
		return v >= 0 && v <= UINT8_MAX;
	case MASK:
		return v != 0;
	case EXACT:
		return v == w->want;
	case SLOT:
		return v >= 0 && v < MAX_SCOPE_SLOT;
	}
	return false;
}

static void store(struct v8_layout *out, const struct want *w, int32_t v)
{
	char *at = (char *)out + w->at;
	uint16_t v16 = (uint16_t)v;

	if (w->at == SIZE_MAX)
		return;
	if (w->size == sizeof(v16))
		memcpy(at, &v16, sizeof(v16));
	else
		memcpy(at, &v, sizeof(v));
}

/* The embedded builtins' range in the file, when its symbols say it (a
 * stripped file: none, and only JIT code is tested). */
static void find_builtins(const struct reading *r, struct v8_layout *out)
{
	int32_t size;

	if (!r->blob || !r->blob_size || read_value(r, r->blob_size, &size) || size <= 0 ||
	    (uint32_t)size > MAX_BLOB)
		return;
	for (size_t i = 0; i < r->nloads; i++) {
		const struct elf_load *l = &r->loads[i];

		if (r->blob >= l->vaddr && r->blob - l->vaddr <= l->filesz &&
		    l->filesz - (r->blob - l->vaddr) >= (uint32_t)size) {
			out->builtins_start = l->off + (r->blob - l->vaddr);
			out->builtins_end = out->builtins_start + (uint32_t)size;
			return;
		}
	}
}

/* Every wanted value read and in its bounds, and the types in the order
 * V8 gives them (strings first, then the rest). */
static int fill(const struct reading *r, struct v8_layout *out)
{
	int32_t v;

	for (size_t i = 0; i < NWANTS; i++) {
		if (!r->addr[i] || read_value(r, r->addr[i], &v) || !in_bounds(&wants[i], v))
			return -EPROTO;
		store(out, &wants[i], v);
	}
	out->smi_shift = 32;	/* SmiShiftSize + SmiValueShift, as checked */
	find_builtins(r, out);
	if (!(out->first_nonstring & out->not_string_mask) ||
	    ((out->first_nonstring - 1u) & out->not_string_mask) ||
	    out->type_function < out->first_nonstring || out->type_sfi < out->first_nonstring ||
	    out->type_script < out->first_nonstring || out->fp_function == out->fp_context)
		return -EPROTO;
	return 0;
}

bool v8_find__named(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "lib", 3))
		base += 3;
	return !strncmp(base, "node", 4);
}

int v8_find__elf(int fd, struct v8_layout *out)
{
	struct reading r = { .fd = fd };
	Elf *elf;
	int err;

	memset(out, 0, sizeof(*out));
	elf = elf_read__begin(fd, &r.fsize);
	if (!elf)
		return -EINVAL;
	r.nloads = elf_read__loads(elf, r.loads, MAX_LOADS);
	elf_read__each_symbol(elf, r.fsize, note_symbol, &r);
	err = !r.any ? -ENOENT : fill(&r, out);
	elf_end(elf);
	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}
