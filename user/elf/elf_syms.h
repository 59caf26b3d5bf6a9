/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Function symbols of one ELF file (libelf), looked up by file offset. */
#ifndef BPFPROF_ELF_SYMS_H
#define BPFPROF_ELF_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX	20
/* A Go build ID (.note.go.buildid: "actionID/contentID", ~83 characters)
 * kept when it is at most this long and made of its alphabet alone. */
#define GO_BUILD_ID_MAX	127
/* The longest file id elf_syms__file_id() writes, without its NUL. */
#define FILE_ID_MAX	GO_BUILD_ID_MAX

struct elf_syms;

/* Reads the function symbols of an ELF file: .symtab, else .dynsym, and its
 * PT_LOAD program headers and GNU build-id. The fd is only read during the
 * call (the caller closes it). Returns NULL with errno set: ENOEXEC for a
 * file that is not a valid ELF, EINVAL for one whose headers are out of
 * bounds, E2BIG for one beyond a bound of elf_limits.h (sections, segments,
 * symbols, string bytes, the bytes its symbols would hold), ENOMEM. A valid
 * ELF without symbols loads (every lookup misses). The file is mapped, not
 * read: only the names of its functions are copied. */
struct elf_syms *elf_syms__open_fd(int fd);

/* The same without the symbols: segments and build-id, all a user of
 * elf_syms__vaddr() needs (the unwinder's tables), at a fraction of the
 * time and memory. */
struct elf_syms *elf_syms__open_layout_fd(int fd);

/* The same from an ELF image in memory (the vDSO). The bytes are copied. */
struct elf_syms *elf_syms__open_mem(const void *image, size_t size);

/* Resolves a file offset (address - mapping start + mapping pgoff) to the
 * function containing it, through the PT_LOAD segment that maps the offset.
 * Returns the symbol name (owned by es) and sets *sym_off to the offset
 * into the function, or NULL when no function covers it. */
const char *elf_syms__lookup(const struct elf_syms *es, uint64_t file_off, uint64_t *sym_off);

/* The virtual address, as the ELF's headers number it, that a file offset
 * is loaded at. Returns 0, or -ENOENT when no PT_LOAD maps the offset. */
int elf_syms__vaddr(const struct elf_syms *es, uint64_t file_off, uint64_t *vaddr);

/* Whether vaddr is the program's entry point (e_entry: its _start); never
 * in a library that asks for no loader (PT_INTERP). */
bool elf_syms__is_entry(const struct elf_syms *es, uint64_t vaddr);

/* The virtual address of the first byte of an executable mapping of the
 * file from offset pgoff (elf_load__map_vaddr()): mapping start - it is
 * the mapping's load bias. Returns 0 or -ENOENT. */
int elf_syms__map_vaddr(const struct elf_syms *es, uint64_t pgoff, uint64_t *vaddr);

/* elf_load__exec_vaddr() of the file's segments: a debug file's mapping
 * start, its PT_LOAD offsets gone. Returns 0 or -ENOENT. */
int elf_syms__exec_vaddr(const struct elf_syms *es, uint64_t span, uint64_t *vaddr);

/* True when the symbols came from .symtab; false when only .dynsym was
 * there (a stripped file: its local functions are missing). */
bool elf_syms__full_symtab(const struct elf_syms *es);

/* The same for a virtual address as the ELF's own headers number it. */
const char *elf_syms__lookup_vaddr(const struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off);

/* The GNU build-id (NT_GNU_BUILD_ID); returns its length, 0 when absent. */
size_t elf_syms__build_id(const struct elf_syms *es, const unsigned char **id);

/* The build-id in hex into out (2 * BUILD_ID_MAX + 1 bytes); "" when absent. */
void elf_syms__build_id_hex(const struct elf_syms *es, char *out);

/* The file's id as profiles name it (pprof's Mapping.build_id): its GNU
 * build-id in hex, or, for a Go binary without one, its Go build ID, the
 * string of .note.go.buildid; "" when it has neither. out holds
 * FILE_ID_MAX + 1 bytes. */
void elf_syms__file_id(const struct elf_syms *es, char *out);

size_t elf_syms__count(const struct elf_syms *es);

/* Frees the symbols and their names, keeping the segments and build-id:
 * all a user of elf_syms__vaddr() needs (the unwinder's tables). */
void elf_syms__drop_symbols(struct elf_syms *es);

/* The bytes of the file's DWARF (its .debug_* sections, compressed ones
 * as decompressed): what a libdwfl session on it holds; 0 for none. */
uint64_t elf_syms__dwarf_bytes(const struct elf_syms *es);

/* The memory es holds, in bytes (what a cache of them budgets). */
size_t elf_syms__bytes(const struct elf_syms *es);
void elf_syms__free(struct elf_syms *es);

#endif
