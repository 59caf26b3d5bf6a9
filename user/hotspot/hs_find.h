/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Recognising a HotSpot JVM and reading the VM's own description of its
 * structures: libjvm.so exports gHotSpotVMStructs, gHotSpotVMTypes and the
 * int and long constants' tables (the serviceability agent's source), with
 * the strides and field offsets of their entries in .bss, filled when the
 * VM starts. Everything is read from the process's memory, which its
 * owner controls: every table is bounded (entries, stride, name lengths),
 * every value checked against what a walker may trust; a table that lies
 * is refused (-EPROTO), never followed.
 */
#ifndef BPFPROF_HS_FIND_H
#define BPFPROF_HS_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HS_TABLE_ENTRIES_MAX	(1u << 14)	/* JDK 17: 801 fields, 769 types */
#define HS_STRIDE_MAX		256u		/* JDK 17: 48 bytes */
#define HS_NAME_MAX		96u		/* bytes of a name read, its NUL included */
#define HS_FIELD_MAX		(1u << 16)	/* an offset or size past it: a lie */

/* Reads len bytes at addr of the process: 0, or -errno (-ESRCH: gone). */
typedef int (*hs_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

/* The addresses, in the process, of libjvm's exported symbols. */
struct hs_syms {
	uint64_t structs, struct_stride, struct_type, struct_field, struct_static,
		 struct_offset, struct_address;
	uint64_t types, type_stride, type_name, type_size;
	uint64_t ints, int_stride, int_name, int_value;
	uint64_t longs, long_stride, long_name, long_value;
};

/* What the walker and the namer need: addresses of the VM's statics, and
 * the byte offsets of fields in its structures. */
struct hs_layout {
	/* statics (addresses in the process) */
	uint64_t code_heaps;		/* CodeCache::_heaps, a GrowableArray<CodeHeap*>* */
	uint64_t code_low, code_high;	/* CodeCache::_low_bound, _high_bound */
	uint64_t interp_code;		/* AbstractInterpreter::_code, a StubQueue* */
	/* GrowableArray<CodeHeap*> */
	uint32_t array_len, array_data;
	/* CodeHeap: its memory and segment map (VirtualSpaces) */
	uint32_t heap_memory, heap_segmap, heap_log2_segment;
	uint32_t vspace_low, vspace_high;	/* VirtualSpace: _low_boundary, _high_boundary */
	uint32_t vspace_committed;		/* ... _high: the end of what is committed */
	uint32_t heap_block_size;		/* sizeof(HeapBlock): a blob follows it */
	uint32_t block_length, block_used;	/* HeapBlock::Header: _length (segments), _used */
	/* CodeBlob */
	uint32_t blob_name, blob_size, blob_frame_size, blob_frame_complete,
		 blob_code_begin, blob_code_end;
	uint32_t nmethod_method;		/* CompiledMethod::_method */
	uint32_t method_const;			/* Method::_constMethod */
	uint32_t const_constants, const_name_index, const_signature_index;
	uint32_t pool_holder, pool_length, pool_size;	/* ConstantPool: _pool_holder, _length
							 * (entries, after it), sizeof */
	uint32_t klass_name;			/* Klass::_name */
	uint32_t symbol_length, symbol_body;	/* Symbol: _length (u2), _body */
	uint32_t stubq_buffer, stubq_limit;	/* StubQueue: _stub_buffer, _buffer_limit */
	/* an interpreted frame's slots, in words from its frame pointer */
	int32_t frame_sender_sp, frame_last_sp, frame_method;
};

/* Why a table was refused (the counts a runtime reports). */
enum hs_refusal {
	HS_REFUSED_SHAPE,	/* a stride or entry offset out of bounds */
	HS_REFUSED_UNENDED,	/* no end within HS_TABLE_ENTRIES_MAX entries */
	HS_REFUSED_UNREADABLE,	/* an entry or a name could not be read */
	HS_REFUSED_MISSING,	/* a field the walker needs is not described */
	HS_REFUSED_VALUE,	/* a value out of its bounds */
	HS_REFUSED_MAX,
};

/* Reads the tables through rd into *out. Returns 0; -EAGAIN when the
 * VM has not filled them yet (a stride still 0: libjvm being loaded);
 * -EPROTO when a table is refused (*why says why); -ESRCH when the
 * process is gone. */
int hs_find__tables(hs_read_fn rd, void *arg, const struct hs_syms *s, struct hs_layout *out,
		    enum hs_refusal *why);

/* The symbols' file virtual addresses of the ELF file fd, and the file
 * address that its mapping from file offset pgoff starts at (*vaddr):
 * 0; -ENOENT when the file has no gHotSpotVM symbols (not a JVM) or no
 * executable segment holds pgoff; -EINVAL when fd is no ELF file. */
int hs_find__elf(int fd, uint64_t pgoff, struct hs_syms *out, uint64_t *vaddr);

/* path names a libjvm.so. */
bool hs_find__is_jvm(const char *path);

/* The symbols of the libjvm.so that pid maps executable at [start, end)
 * from file offset pgoff, opened through the kernel's own link
 * (/proc/PID/map_files), relocated into *syms. Returns 0 or -errno. */
int hs_find__mapped(pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff, struct hs_syms *syms);

/* A HotSpot in the running process pid: its libjvm.so's executable
 * mapping found in /proc/PID/maps, the file opened through the kernel's
 * own link (/proc/PID/map_files), its symbols relocated into *syms.
 * Returns 0, -ENOENT (no libjvm), or -errno. */
int hs_find__proc(pid_t pid, struct hs_syms *syms);


/* The NUL-ended string at addr into name, read a page at a time (a string
 * may end just before an unmapped page): 0; -ENAMETOOLONG past
 * HS_NAME_MAX bytes; -ENOENT for addr 0; or rd's error. */
int hs_find__read_cstr(hs_read_fn rd, void *arg, uint64_t addr, char name[HS_NAME_MAX]);

#endif
