/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Bounds-checked reading of an ELF file's parts with libelf. */
#ifndef BPFPROF_ELF_READ_H
#define BPFPROF_ELF_READ_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf_syms.h"

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

/* The first GNU build-id note, of PT_NOTE segments first, then of SHT_NOTE
 * sections (a note area beyond ELF_NOTES_MAX bytes is not searched); *len
 * 0 when there is none. Returns 0 or -errno for a malformed file. */
int elf_read__build_id(Elf *elf, size_t phnum, uint64_t fsize, unsigned char id[BUILD_ID_MAX],
		       size_t *len);

#endif
