/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What is sane for each kind of size an ELF file declares. The files come
 * from any local user, and a sparse file of gigabytes costs its owner
 * nothing: every size is bounded by what real files need, not by the file
 * size, and a file beyond a bound is refused with E2BIG (skipped, counted).
 */
#ifndef BPFPROF_ELF_LIMITS_H
#define BPFPROF_ELF_LIMITS_H

#include <stddef.h>

/* Linked files have a few dozen sections and segments; libelf allocates a
 * descriptor per section at elf_begin(), before anything else is read. */
#define ELF_SECTIONS_MAX	(1u << 16)
#define ELF_SEGMENTS_MAX	(1u << 12)
/* Symbol table entries: the largest real binaries have around 2M. */
#define ELF_SYMS_MAX		(4u << 20)
/* String table bytes (mapped, never copied: only the names kept are read). */
#define ELF_STRTAB_MAX		(512u << 20)
/* One name's bytes; a longer one is cut (mangled C++ names stay far below). */
#define ELF_NAME_MAX		4096
/* Note bytes searched for the build-id, per section or segment. */
#define ELF_NOTES_MAX		(1u << 20)
/* What one file's symbols may hold in memory (index and names). */
#define ELF_SYMS_BYTES_MAX	(96u << 20)

/* Checks the counts of the ELF header of a file of size bytes (fd >= 0,
 * read with pread) or of an image in memory (fd < 0): sections, with the
 * extended count of section 0 (e_shnum 0), and segments. Returns 0 (also
 * for what is not an ELF, or a table past the end: libelf refuses those),
 * or -E2BIG. */
int elf_limits__check(int fd, const void *image, size_t size);

#endif
