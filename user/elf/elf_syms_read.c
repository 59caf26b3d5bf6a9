// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An ELF file's parts that elf_syms keeps, read with libelf: the files
 * come from arbitrary processes, so every header is checked against the
 * file size before libelf is asked for the bytes it describes, and a
 * malformed symbol is dropped rather than trusted. The symbol and string
 * tables are used in place; only the kept functions' names are copied
 * (see elf_limits.h for the bounds of every size).
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "elf/elf_limits.h"
#include "elf/elf_read.h"
#include "elf/elf_syms_layout.h"

/* Both header tables lie inside the file, with the entry size of the class. */
static int check_tables(Elf *elf, const GElf_Ehdr *eh, uint64_t fsize, size_t *phnum)
{
	size_t shnum;

	if (elf_getphdrnum(elf, phnum) || elf_getshdrnum(elf, &shnum))
		return elf_read__fail(EINVAL);
	/* libelf quietly shrinks counts the file cannot hold (e_shnum 0 with
	 * e_shoff set: the count is in section 0, so must not come out 0). */
	if (eh->e_phnum != PN_XNUM && eh->e_phnum != *phnum)
		return -EINVAL;
	if (eh->e_shnum ? eh->e_shnum != shnum : eh->e_shoff && !shnum)
		return -EINVAL;
	if (*phnum && (eh->e_phentsize != gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT) ||
		       !elf_read__in_file(eh->e_phoff, (uint64_t)*phnum * eh->e_phentsize, fsize)))
		return -EINVAL;
	if (shnum && (eh->e_shentsize != gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT) ||
		      !elf_read__in_file(eh->e_shoff, (uint64_t)shnum * eh->e_shentsize, fsize)))
		return -EINVAL;
	if (*phnum > ELF_SEGMENTS_MAX || shnum > ELF_SECTIONS_MAX)
		return -E2BIG;
	return 0;
}

/* Checks the ELF header; returns the program header count in *phnum. */
int elf_syms_read__check_ehdr(Elf *elf, uint64_t fsize, size_t *phnum)
{
	GElf_Ehdr eh;
	int class;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	class = gelf_getclass(elf);
	if ((class != ELFCLASS32 && class != ELFCLASS64) || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	/* Only what a process maps: objects and cores have no code to name. */
	if ((eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_machine == EM_NONE)
		return -ENOEXEC;
	return check_tables(elf, &eh, fsize, phnum);
}

int elf_syms_read__segs(struct elf_syms *es, Elf *elf, size_t phnum, uint64_t fsize)
{
	bool program = false;
	GElf_Ehdr eh;
	GElf_Phdr ph;

	if (!gelf_getehdr(elf, &eh))
		return elf_read__fail(EINVAL);
	es->segs = calloc(phnum ? phnum : 1, sizeof(*es->segs));
	if (!es->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_read__fail(EINVAL);
		/* a program: a fixed address, or asks for a loader (a PIE);
		 * a library's e_entry is 0 or a function of its own */
		program |= ph.p_type == PT_INTERP;
		if (ph.p_type != PT_LOAD)
			continue;
		if (!elf_read__in_file(ph.p_offset, ph.p_filesz, fsize) || ph.p_filesz > ph.p_memsz ||
		    add_sat(ph.p_vaddr, ph.p_memsz) == UINT64_MAX)
			return -EINVAL;
		es->segs[es->nr_segs++] = (struct elf_load){
			.off = ph.p_offset, .filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.exec = ph.p_flags & PF_X,
		};
	}
	if (program || eh.e_type == ET_EXEC)
		es->entry = eh.e_entry;
	return 0;
}

/* .symtab when present, else .dynsym (all a stripped file keeps). */
static int find_symtab(Elf *elf, Elf_Scn **out, GElf_Shdr *out_sh)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*out = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return elf_read__fail(EINVAL);
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !*out)) {
			*out = scn;
			*out_sh = sh;
		}
		if (sh.sh_type == SHT_SYMTAB)
			break;
	}
	return 0;
}

/* The string table the symbols name into, as libelf maps it (no copy). */
static int find_strtab(Elf *elf, size_t link, uint64_t fsize, Elf_Data **data)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t shnum;

	if (elf_getshdrnum(elf, &shnum))
		return elf_read__fail(EINVAL);
	if (link == SHN_UNDEF || link >= shnum)
		return -EINVAL;
	scn = elf_getscn(elf, link);
	if (!scn || !gelf_getshdr(scn, &sh))
		return elf_read__fail(EINVAL);
	if (sh.sh_type != SHT_STRTAB || (sh.sh_flags & SHF_COMPRESSED))
		return -EINVAL;
	if (sh.sh_size > ELF_STRTAB_MAX)
		return -E2BIG;
	return elf_read__scn_data(scn, &sh, fsize, data);
}

static bool keep_sym(const GElf_Sym *sym)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_value;
}

int64_t elf_syms_read__put_name(struct elf_syms *es, const char *name, size_t len,
				const char *suffix, size_t nsyms)
{
	size_t sfx = suffix ? strlen(suffix) : 0, need;

	if (!len)
		return 0;
	if (len + sfx > ELF_NAME_MAX)
		len = ELF_NAME_MAX - sfx;
	need = es->names_len + len + sfx + 1;
	if (held_bytes(nsyms, need) > ELF_SYMS_BYTES_MAX)
		return -E2BIG;
	if (GROW(es->names, es->names_cap, need))
		return -ENOMEM;
	memcpy(es->names + es->names_len, name, len);
	memcpy(es->names + es->names_len + len, suffix ? suffix : "", sfx + 1);
	es->names_len = need;
	return (int64_t)(need - len - sfx - 1);
}

/* Copies the name at strs + at into es->names without its version
 * ("memcpy@@GLIBC_2.14" -> "memcpy": perf and gdb print it without). */
static int64_t add_name(struct elf_syms *es, const char *strs, size_t strsz, size_t at,
			size_t nsyms)
{
	size_t len = strnlen(strs + at, strsz - at < ELF_NAME_MAX ? strsz - at : ELF_NAME_MAX);
	/* a leading '@' is part of the name */
	const char *ver = len > 1 ? memchr(strs + at + 1, '@', len - 1) : NULL;

	if (ver)
		len = (size_t)(ver - (strs + at));
	return elf_syms_read__put_name(es, strs + at, len, NULL, nsyms);
}

/* The end of the section a sizeless symbol is in: what it may be stretched
 * to (_init, sizeless in .init, must not take in .plt after it); its own
 * start when the section is not known. */
static uint64_t section_end(Elf *elf, const GElf_Sym *sym)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (sym->st_shndx >= SHN_LORESERVE)
		return sym->st_value;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || sym->st_value < sh.sh_addr ||
	    sym->st_value - sh.sh_addr >= sh.sh_size)
		return sym->st_value;
	return add_sat(sh.sh_addr, sh.sh_size);
}

/* The functions of a symbol table, with their names copied. */
static int collect_syms(struct elf_syms *es, Elf *elf, Elf_Data *data, size_t nr,
			Elf_Data *strtab)
{
	const char *strs = strtab->d_buf;
	size_t n = 0, strsz = strtab->d_size;
	int64_t name;
	GElf_Sym sym;

	for (size_t i = 0; i < nr; i++)
		if (gelf_getsym(data, (int)i, &sym) && keep_sym(&sym))
			n++;
	if (held_bytes(n, 1) > ELF_SYMS_BYTES_MAX)
		return -E2BIG;
	es->syms = calloc(n ? n : 1, sizeof(*es->syms));
	es->names = calloc(1, 1);	/* offset 0: "" */
	if (!es->syms || !es->names)
		return -ENOMEM;
	es->names_len = es->names_cap = 1;
	for (size_t i = 0; i < nr && es->nr_syms < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym) || !keep_sym(&sym))
			continue;
		/* A bad name index drops the symbol, not the file. */
		if (sym.st_name >= strsz)
			continue;
		name = add_name(es, strs, strsz, sym.st_name, n);
		if (name < 0)
			return (int)name;
		if (!name)
			continue;
		es->syms[es->nr_syms++] = (struct esym){
			.start = sym.st_value,
			.end = sym.st_size ? add_sat(sym.st_value, sym.st_size) : section_end(elf, &sym),
			.name = (uint32_t)name,
			.bind = GELF_ST_BIND(sym.st_info),
			.sizeless = !sym.st_size,
		};
	}
	return 0;
}

/* What libdw holds of sh's section once it reads it: a compressed one
 * (SHF_COMPRESSED) decompressed on the heap, its size from its header;
 * others mapped, as big as they are. */
static uint64_t dwarf_section_bytes(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t fsize)
{
	GElf_Chdr ch;

	if (!(sh->sh_flags & SHF_COMPRESSED))
		return sh->sh_size;
	if (sh->sh_offset > fsize || sh->sh_size > fsize - sh->sh_offset ||
	    sh->sh_size < sizeof(Elf64_Chdr) || !gelf_getchdr(scn, &ch))
		return 0;	/* libdw will not read it either */
	return ch.ch_size;
}

/* The bytes of the file's DWARF (every .debug_* section): what a libdwfl
 * session on it would hold, known before one is opened. */
static uint64_t dwarf_bytes(Elf *elf, uint64_t fsize)
{
	Elf_Scn *scn = NULL;
	uint64_t sum = 0;
	const char *name;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strncmp(name, ".debug_", 7))
			sum = add_sat(sum, dwarf_section_bytes(scn, &sh, fsize));
	}
	return sum;
}

int elf_syms_read__syms(struct elf_syms *es, Elf *elf, uint64_t fsize)
{
	Elf_Data *data, *strtab;
	size_t ent, nr;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int err;

	es->dwarf_bytes = dwarf_bytes(elf, fsize);
	err = find_symtab(elf, &scn, &sh);
	if (err || !scn)
		return err;	/* no symbols: a valid, empty result */
	es->full_symtab = sh.sh_type == SHT_SYMTAB;
	ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!ent || sh.sh_entsize != ent)
		return -EINVAL;
	if (sh.sh_size / ent > ELF_SYMS_MAX)	/* before libelf reads it */
		return -E2BIG;
	err = elf_read__scn_data(scn, &sh, fsize, &data);
	if (err)
		return err;
	if (data->d_type != ELF_T_SYM || data->d_size % ent)
		return -EINVAL;
	nr = data->d_size / ent;
	err = find_strtab(elf, sh.sh_link, fsize, &strtab);
	if (err)
		return err;
	return collect_syms(es, elf, data, nr, strtab);
}

