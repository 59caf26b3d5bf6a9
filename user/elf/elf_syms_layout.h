/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What elf_syms.c (opening, lookups), elf_syms_read.c (headers, segments,
 * symbol tables), elf_syms_plt.c (PLT entries' names) and
 * elf_syms_aliases.c (one name per address) share: the layout of a struct
 * elf_syms. Only those files include it. */
#ifndef BPFPROF_ELF_SYMS_LAYOUT_H
#define BPFPROF_ELF_SYMS_LAYOUT_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf_read.h"
#include "elf/elf_syms.h"

struct esym {
	uint64_t start;
	uint64_t end;		/* exclusive; sizeless: its section's end (start: unknown) */
	uint32_t name;		/* offset into elf_syms.names */
	unsigned char bind;	/* STB_*, to choose between aliases */
	bool sizeless;		/* st_size 0: sized by elf_syms_aliases__finish() */
};

struct elf_syms {
	struct esym *syms;	/* by start; one per address */
	size_t nr_syms;
	struct elf_load *segs;
	size_t nr_segs;
	char *names;		/* the kept symbols' names, each NUL-terminated */
	size_t names_len, names_cap;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	char go_build_id[GO_BUILD_ID_MAX + 1];	/* "" when none */
	bool full_symtab;	/* symbols from .symtab, not only .dynsym */
	uint64_t dwarf_bytes;	/* .debug_* sections, as libdw holds them */
	uint64_t entry;		/* a program's entry point (e_entry); 0: a library */
};

static inline uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The bytes of the symbols' index and names together. */
static inline size_t held_bytes(size_t nsyms, size_t names)
{
	return nsyms * sizeof(struct esym) + names;
}

/* elf_syms_read.c: the ELF header checked (only what a process maps: an
 * executable or a shared object); the PT_LOAD segments; the functions of
 * .symtab, else .dynsym, their names copied. Each 0 or -errno. */
int elf_syms_read__check_ehdr(Elf *elf, uint64_t fsize, size_t *phnum);
int elf_syms_read__segs(struct elf_syms *es, Elf *elf, size_t phnum, uint64_t fsize);
int elf_syms_read__syms(struct elf_syms *es, Elf *elf, uint64_t fsize);

/* Copies len bytes of name and then suffix (NULL: none) into es->names,
 * cut at ELF_NAME_MAX bytes. Returns the copy's offset, 0 for an empty
 * name, or -E2BIG when nsyms symbols and the names would exceed
 * ELF_SYMS_BYTES_MAX, -ENOMEM. */
int64_t elf_syms_read__put_name(struct elf_syms *es, const char *name, size_t len,
				const char *suffix, size_t nsyms);

/* elf_syms_plt.c: the PLT entries named "NAME@plt" after the function they
 * jump to, appended to es->syms (x86-64). 0 or -ENOMEM, -E2BIG; a file
 * whose PLT cannot be read gets no such names. */
int elf_syms_plt__add(struct elf_syms *es, Elf *elf, uint64_t fsize);

/* elf_syms_aliases.c: sorted by address, one symbol per address (the
 * preferred alias), sizeless symbols sized. */
void elf_syms_aliases__finish(struct elf_syms *es);

#endif
