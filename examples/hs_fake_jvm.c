// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A process that fakes HotSpot's vmStructs (tests/unit/test_hs_find.c),
 * built as build/examples/fakejvm/libjvm.so: it exports every gHotSpotVM
 * symbol a reader looks for, and its tables, filled at start as the VM's
 * are, describe what bpfprof needs with JDK 17's values, but for the lie
 * named by its argument:
 *   ok          no lie: the tables are accepted (so a refusal is the lie's)
 *   unended     the structs table never ends: entries repeat past any bound
 *   huge_name   the CodeCache entries' type name is 1 MiB without a NUL
 *   unreadable  a field name points to memory that is not mapped
 *   stride      the structs' stride is 1 GiB
 *   offset      CodeBlob::_name is 2^40 bytes into a blob
 *   frame       the interpreter's frame layout is another CPU's
 *   unfilled    no lie, but the strides still 0, as before libjvm's
 *               initialisers ran: not refused, to be read again
 * It prints "ready" once its tables are filled, then sleeps.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct field_entry {
	const char *type, *field, *type_string;
	int32_t is_static;
	uint64_t offset;
	void *address;
};

struct type_entry {
	const char *type, *super;
	int32_t is_oop, is_int, is_unsigned;
	uint64_t size;
};

struct int_entry {
	const char *name;
	int32_t value;
};

struct long_entry {
	const char *name;
	uint64_t value;
};

/* the symbols, as libjvm.so exports them (values set at start, as the VM does) */
struct field_entry *gHotSpotVMStructs;
uint64_t gHotSpotVMStructEntryArrayStride, gHotSpotVMStructEntryTypeNameOffset,
	gHotSpotVMStructEntryFieldNameOffset, gHotSpotVMStructEntryTypeStringOffset,
	gHotSpotVMStructEntryIsStaticOffset, gHotSpotVMStructEntryOffsetOffset,
	gHotSpotVMStructEntryAddressOffset;
struct type_entry *gHotSpotVMTypes;
uint64_t gHotSpotVMTypeEntryArrayStride, gHotSpotVMTypeEntryTypeNameOffset,
	gHotSpotVMTypeEntrySizeOffset;
struct int_entry *gHotSpotVMIntConstants;
uint64_t gHotSpotVMIntConstantEntryArrayStride, gHotSpotVMIntConstantEntryNameOffset,
	gHotSpotVMIntConstantEntryValueOffset;
struct long_entry *gHotSpotVMLongConstants;
uint64_t gHotSpotVMLongConstantEntryArrayStride, gHotSpotVMLongConstantEntryNameOffset,
	gHotSpotVMLongConstantEntryValueOffset;

static void *code_heaps, *code_low, *code_high, *interp_code;	/* the statics */

static struct field_entry fields[] = {
	{ "CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1, 0, &code_heaps },
	{ "CodeCache", "_low_bound", "address", 1, 0, &code_low },
	{ "CodeCache", "_high_bound", "address", 1, 0, &code_high },
	{ "AbstractInterpreter", "_code", "StubQueue*", 1, 0, &interp_code },
	{ "GrowableArrayBase", "_len", "int", 0, 0, NULL },
	{ "GrowableArray<int>", "_data", "int*", 0, 8, NULL },
	{ "CodeHeap", "_memory", "VirtualSpace", 0, 8, NULL },
	{ "CodeHeap", "_segmap", "VirtualSpace", 0, 120, NULL },
	{ "CodeHeap", "_log2_segment_size", "int", 0, 256, NULL },
	{ "VirtualSpace", "_low_boundary", "char*", 0, 0, NULL },
	{ "VirtualSpace", "_high_boundary", "char*", 0, 8, NULL },
	{ "VirtualSpace", "_high", "char*", 0, 24, NULL },
	{ "HeapBlock::Header", "_length", "size_t", 0, 0, NULL },
	{ "HeapBlock::Header", "_used", "bool", 0, 8, NULL },
	{ "CodeBlob", "_name", "const char*", 0, 96, NULL },
	{ "CodeBlob", "_size", "int", 0, 12, NULL },
	{ "CodeBlob", "_frame_complete_offset", "int", 0, 20, NULL },
	{ "CodeBlob", "_frame_size", "int", 0, 28, NULL },
	{ "CodeBlob", "_code_begin", "address", 0, 32, NULL },
	{ "CodeBlob", "_code_end", "address", 0, 40, NULL },
	{ "CompiledMethod", "_method", "Method*", 0, 112, NULL },
	{ "Method", "_constMethod", "ConstMethod*", 0, 8, NULL },
	{ "ConstMethod", "_constants", "ConstantPool*", 0, 8, NULL },
	{ "ConstMethod", "_name_index", "u2", 0, 34, NULL },
	{ "ConstMethod", "_signature_index", "u2", 0, 36, NULL },
	{ "ConstantPool", "_pool_holder", "InstanceKlass*", 0, 24, NULL },
	{ "ConstantPool", "_length", "int", 0, 60, NULL },
	{ "Klass", "_name", "Symbol*", 0, 24, NULL },
	{ "Symbol", "_length", "u2", 0, 4, NULL },
	{ "Symbol", "_body", NULL, 0, 6, NULL },
	{ "StubQueue", "_stub_buffer", "address", 0, 8, NULL },
	{ "StubQueue", "_buffer_limit", "int", 0, 20, NULL },
	{ NULL, NULL, NULL, 0, 0, NULL },
};

static struct type_entry types[] = {
	{ "HeapBlock", NULL, 0, 0, 0, 16 },
	{ "ConstantPool", "Metadata", 0, 0, 0, 72 },
	{ NULL, NULL, 0, 0, 0, 0 },
};

static struct int_entry ints[] = {
	{ "frame::interpreter_frame_sender_sp_offset", -1 },
	{ "frame::interpreter_frame_last_sp_offset", -2 },
	{ NULL, 0 },
};

static struct long_entry longs[] = { { NULL, 0 } };

#define UNENDED_ENTRIES	20000	/* past the reader's bound of 16384 */
#define HUGE_NAME	(1 << 20)

static struct field_entry *field(const char *type, const char *name)
{
	for (struct field_entry *f = fields; f->type; f++)
		if (!strcmp(f->type, type) && !strcmp(f->field, name))
			return f;
	abort();
}

/* The lie named by mode, into the tables; 0, or -1 for an unknown mode. */
static int lie(const char *mode)
{
	if (!strcmp(mode, "ok"))
		return 0;
	if (!strcmp(mode, "unended")) {
		struct field_entry *e = calloc(UNENDED_ENTRIES, sizeof(*e));

		if (!e)
			return -1;
		for (int i = 0; i < UNENDED_ENTRIES; i++)
			e[i] = fields[i % 3];
		gHotSpotVMStructs = e;
	} else if (!strcmp(mode, "huge_name")) {
		char *name = malloc(HUGE_NAME);

		if (!name)
			return -1;
		memset(name, 'C', HUGE_NAME);
		for (int i = 0; i < 3; i++)
			fields[i].type = name;
	} else if (!strcmp(mode, "unreadable")) {
		/* a page mapped, then unmapped: nothing is there */
		void *gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (gone == MAP_FAILED || munmap(gone, 4096))
			return -1;
		field("CodeBlob", "_name")->field = gone;
	} else if (!strcmp(mode, "stride")) {
		gHotSpotVMStructEntryArrayStride = 1ULL << 30;
	} else if (!strcmp(mode, "offset")) {
		field("CodeBlob", "_name")->offset = 1ULL << 40;
	} else if (!strcmp(mode, "frame")) {
		ints[1].value = -3;
	} else if (!strcmp(mode, "unfilled")) {
		gHotSpotVMStructEntryArrayStride = 0;
	} else {
		return -1;
	}
	return 0;
}

static void fill(void)
{
	static char heap_bytes[64];

	code_heaps = heap_bytes;
	code_low = heap_bytes;
	code_high = heap_bytes + sizeof(heap_bytes);
	interp_code = heap_bytes;
	gHotSpotVMStructs = fields;
	gHotSpotVMStructEntryArrayStride = sizeof(struct field_entry);
	gHotSpotVMStructEntryTypeNameOffset = offsetof(struct field_entry, type);
	gHotSpotVMStructEntryFieldNameOffset = offsetof(struct field_entry, field);
	gHotSpotVMStructEntryTypeStringOffset = offsetof(struct field_entry, type_string);
	gHotSpotVMStructEntryIsStaticOffset = offsetof(struct field_entry, is_static);
	gHotSpotVMStructEntryOffsetOffset = offsetof(struct field_entry, offset);
	gHotSpotVMStructEntryAddressOffset = offsetof(struct field_entry, address);
	gHotSpotVMTypes = types;
	gHotSpotVMTypeEntryArrayStride = sizeof(struct type_entry);
	gHotSpotVMTypeEntryTypeNameOffset = offsetof(struct type_entry, type);
	gHotSpotVMTypeEntrySizeOffset = offsetof(struct type_entry, size);
	gHotSpotVMIntConstants = ints;
	gHotSpotVMIntConstantEntryArrayStride = sizeof(struct int_entry);
	gHotSpotVMIntConstantEntryNameOffset = offsetof(struct int_entry, name);
	gHotSpotVMIntConstantEntryValueOffset = offsetof(struct int_entry, value);
	gHotSpotVMLongConstants = longs;
	gHotSpotVMLongConstantEntryArrayStride = sizeof(struct long_entry);
	gHotSpotVMLongConstantEntryNameOffset = offsetof(struct long_entry, name);
	gHotSpotVMLongConstantEntryValueOffset = offsetof(struct long_entry, value);
}

int main(int argc, char **argv)
{
	fill();
	if (argc != 2 || lie(argv[1])) {
		fprintf(stderr, "usage: libjvm.so ok|unended|huge_name|unreadable|stride|offset|frame|unfilled\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	sleep(60);
	return 0;
}
