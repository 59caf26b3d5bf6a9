/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Bounds-checked reading of an ELF file's parts with libelf. */
#ifndef BPFPROF_ELF_READ_H
#define BPFPROF_ELF_READ_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf_syms.h"

/* One PT_LOAD program header: what the loader maps where. */
struct elf_load {
	uint64_t off, filesz;		/* p_offset, p_filesz */
	uint64_t vaddr, memsz;		/* p_vaddr, p_memsz */
	bool exec;			/* PF_X */
};

/* The virtual address, as the file's headers number it, of the first byte
 * of an executable mapping of the file from file offset pgoff: that of the
 * executable PT_LOAD whose pages (its file range, its start rounded down to
 * a page, as the kernel and ld.so map it) hold pgoff. The page matters:
 * lld starts a segment mid-page (R at 0-0x79c, R E at 0x7a0 mapped from
 * pgoff 0), so the segment that merely contains pgoff is the wrong one.
 * Returns 0, or -ENOENT when no executable segment's pages hold pgoff. */
int elf_load__map_vaddr(const struct elf_load *loads, size_t n, uint64_t pgoff,
			uint64_t *vaddr);

/* The same for a debug file, whose PT_LOAD offsets objcopy
 * --only-keep-debug zeroed (the addresses stay): the first page of the
 * executable segment whose pages span span bytes (a mapping's length), or
 * of the only executable one. Returns 0, or -ENOENT. */
int elf_load__exec_vaddr(const struct elf_load *loads, size_t n, uint64_t span, uint64_t *vaddr);

/* [off, off + len) lies inside a file of fsize bytes, without overflow. */
bool elf_read__in_file(uint64_t off, uint64_t len, uint64_t fsize);

/* The next section after *scn (NULL: from the first) called name, its
 * header in *sh: 1 when found, 0 when there is no more, -EINVAL when the
 * section headers cannot be read (errno as libelf left it). */
int elf_read__next_named(Elf *elf, const char *name, Elf_Scn **scn, GElf_Shdr *sh);

/* -ENOMEM when libelf failed allocating (errno cleared before the call),
 * else -dflt: libelf found the file malformed. */
int elf_read__fail(int dflt);

/* The data of a section, which must lie inside the file. Returns 0 or -errno. */
int elf_read__scn_data(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t fsize, Elf_Data **data);

/* The ELF file fd (a regular file), read-only, its size in *fsize: NULL
 * when it is none. Closed by elf_end(). */
Elf *elf_read__begin(int fd, uint64_t *fsize);

/* The PT_LOAD headers of elf into loads (at most max); returns how many. */
size_t elf_read__loads(Elf *elf, struct elf_load *loads, size_t max);

/* Calls fn for every defined symbol (st_value != 0) of .dynsym and
 * .symtab whose section lies inside a file of fsize bytes. */
void elf_read__each_symbol(Elf *elf, uint64_t fsize,
			   void (*fn)(const char *name, const GElf_Sym *sym, void *ctx), void *ctx);

/* The first GNU build-id note, of PT_NOTE segments first, then of SHT_NOTE
 * sections (a note area beyond ELF_NOTES_MAX bytes is not searched); *len
 * 0 when there is none. And into go (GO_BUILD_ID_MAX + 1 bytes), the Go
 * build ID note's string ("Go" note of type 4, as cmd/internal/buildid
 * writes it) of the notes searched, if it is made of its alphabet
 * ([A-Za-z0-9_=/-]) alone; "" else. Returns 0 or -errno for a malformed
 * file. */
int elf_read__build_id(Elf *elf, size_t phnum, uint64_t fsize, unsigned char id[BUILD_ID_MAX],
		       size_t *len, char go[GO_BUILD_ID_MAX + 1]);

#endif
