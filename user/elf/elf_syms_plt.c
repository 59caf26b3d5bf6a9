// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PLT entries named as perf names them: "memcmp@plt". No symbol table
 * covers the stubs a call to another file's function goes through, so
 * without them a sample there took the name of the sizeless symbol before
 * (_init, stretched over .plt: 3.6% of a C++ profile).
 *
 * On x86-64 every stub that callers reach starts with an indirect jump
 * through its GOT slot, "[endbr64] [bnd] jmp *disp32(%rip)":
 *   .plt      lazy binding: a 16-byte header, then one 16-byte entry per
 *             .rela.plt JUMP_SLOT (the jump, then push index, jmp header);
 *   .plt.sec  with IBT (-fcf-protection): the entries callers reach, one
 *             per JUMP_SLOT, while .plt keeps the lazy-binding halves
 *             (endbr64, push, jmp: no slot of their own, left unnamed);
 *   .plt.got  functions whose slot is bound at load (GLOB_DAT in
 *             .rela.dyn), 8 bytes an entry (16 with IBT).
 * Rather than count entries in relocation order as perf does (which needs
 * its rules for headers, IBT and IFUNC order), each entry's jump is
 * decoded: the slot it reads is the r_offset of the relocation that names
 * it, in .rela.plt or .rela.dyn alike. An entry whose jump or slot is not
 * found stays unnamed (the call frame information still groups it).
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "elf/elf_limits.h"
#include "elf/elf_read.h"
#include "elf/elf_syms_layout.h"

#define PLT_ENTRY	16	/* .plt and .plt.sec entries without sh_entsize */

static const char *const plt_sections[] = { ".plt", ".plt.sec", ".plt.got" };

/* A GOT slot and the name of the function its relocation binds there (in
 * the mapped string table: valid while the Elf is). */
struct slot {
	uint64_t got;
	const char *name;
	size_t len;
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static int cmp_slot(const void *a, const void *b)
{
	uint64_t x = ((const struct slot *)a)->got, y = ((const struct slot *)b)->got;

	return x < y ? -1 : x > y;
}

static int push_slot(struct slots *s, struct slot one)
{
	if (GROW(s->v, s->cap, s->n + 1))
		return -ENOMEM;
	s->v[s->n++] = one;
	return 0;
}

/* The symbol table a relocation section links to and its strings; 0, or
 * -EINVAL when they cannot be read (the section is skipped). */
static int linked_symbols(Elf *elf, const GElf_Shdr *rela, uint64_t fsize, Elf_Data **syms,
			  Elf_Data **strs)
{
	Elf_Scn *scn = elf_getscn(elf, rela->sh_link), *str;
	GElf_Shdr sh, ssh;

	if (!rela->sh_link || !scn || !gelf_getshdr(scn, &sh) ||
	    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
	    sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1) > ELF_SYMS_MAX)
		return -EINVAL;
	str = elf_getscn(elf, sh.sh_link);
	if (!sh.sh_link || !str || !gelf_getshdr(str, &ssh) || ssh.sh_type != SHT_STRTAB ||
	    (ssh.sh_flags & SHF_COMPRESSED) || ssh.sh_size > ELF_STRTAB_MAX)
		return -EINVAL;
	if (elf_read__scn_data(scn, &sh, fsize, syms) || elf_read__scn_data(str, &ssh, fsize, strs))
		return -EINVAL;
	return (*syms)->d_type == ELF_T_SYM ? 0 : -EINVAL;
}

/* The slot a JUMP_SLOT or GLOB_DAT relocation binds, with its symbol's
 * name; false for other relocations and unreadable symbols. */
static bool slot_of(const GElf_Rela *r, Elf_Data *syms, Elf_Data *strs, struct slot *out)
{
	size_t type = GELF_R_TYPE(r->r_info), at;
	GElf_Sym sym;

	if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || !GELF_R_SYM(r->r_info) ||
	    !gelf_getsym(syms, (int)GELF_R_SYM(r->r_info), &sym) || sym.st_name >= strs->d_size)
		return false;
	at = sym.st_name;
	out->got = r->r_offset;
	out->name = (const char *)strs->d_buf + at;
	out->len = strnlen(out->name, strs->d_size - at);
	return out->len > 0;
}

/* The named slots of one SHT_RELA section (an unreadable one adds none). */
static int add_slots(struct slots *s, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t fsize)
{
	size_t ent = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT), nr;
	Elf_Data *data, *syms, *strs;
	struct slot one;
	GElf_Rela r;
	int err;

	if (!ent || sh->sh_entsize != ent || sh->sh_size / ent > ELF_SYMS_MAX ||
	    linked_symbols(elf, sh, fsize, &syms, &strs) || elf_read__scn_data(scn, sh, fsize, &data))
		return 0;
	nr = data->d_size / ent;
	for (size_t i = 0; i < nr; i++) {
		if (!gelf_getrela(data, (int)i, &r) || !slot_of(&r, syms, strs, &one))
			continue;
		err = push_slot(s, one);
		if (err)
			return err;
	}
	return 0;
}

/* Every JUMP_SLOT and GLOB_DAT slot of the file, by address. */
static int read_slots(struct slots *s, Elf *elf, uint64_t fsize)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return 0;
		if (sh.sh_type != SHT_RELA)
			continue;
		err = add_slots(s, elf, scn, &sh, fsize);
		if (err)
			return err;
	}
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_slot);
	return 0;
}

/* The GOT slot the entry at p (avail bytes, at vaddr) jumps through:
 * "[endbr64] [bnd] jmp *disp32(%rip)"; 0 when it does not start so. */
static uint64_t entry_slot(const unsigned char *p, size_t avail, uint64_t vaddr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t n = 0;
	int32_t disp;

	if (avail >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		n += sizeof(endbr64);
	if (n < avail && p[n] == 0xf2)	/* bnd */
		n++;
	if (avail < n + 6 || p[n] != 0xff || p[n + 1] != 0x25)
		return 0;
	memcpy(&disp, p + n + 2, sizeof(disp));	/* x86-64: little-endian, as the host */
	return vaddr + n + 6 + (uint64_t)(int64_t)disp;
}

static const struct slot *find_slot(const struct slots *s, uint64_t got)
{
	struct slot key = { .got = got };

	return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_slot) : NULL;
}

/* Room in es->syms for more symbols. */
static int grow_syms(struct elf_syms *es, size_t more)
{
	struct esym *grown;

	if (held_bytes(es->nr_syms + more, es->names_len) > ELF_SYMS_BYTES_MAX)
		return -E2BIG;
	grown = realloc(es->syms, (es->nr_syms + more ? es->nr_syms + more : 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	es->syms = grown;
	return 0;
}

static int add_entry(struct elf_syms *es, const struct slot *sl, uint64_t start, uint64_t size)
{
	int64_t name = elf_syms_read__put_name(es, sl->name, sl->len, "@plt", es->nr_syms + 1);

	if (name <= 0)
		return (int)name;
	es->syms[es->nr_syms++] = (struct esym){
		.start = start, .end = add_sat(start, size), .name = (uint32_t)name,
		.bind = STB_GLOBAL,
	};
	return 0;
}

/* Names the entries of one PLT section whose jump reads a known slot. */
static int name_entries(struct elf_syms *es, const struct slots *s, Elf_Scn *scn,
			const GElf_Shdr *sh, uint64_t fsize)
{
	uint64_t ent = sh->sh_entsize ? sh->sh_entsize : PLT_ENTRY;
	const unsigned char *code;
	const struct slot *sl;
	Elf_Data *data;
	int err;

	if (!(sh->sh_flags & SHF_EXECINSTR) || elf_read__scn_data(scn, sh, fsize, &data))
		return 0;	/* a debug file's NOBITS copy: nothing to read */
	code = data->d_buf;
	err = grow_syms(es, data->d_size / ent);
	for (uint64_t at = 0; !err && at + ent <= data->d_size; at += ent) {
		sl = find_slot(s, entry_slot(code + at, ent, sh->sh_addr + at));
		if (sl)
			err = add_entry(es, sl, sh->sh_addr + at, ent);
	}
	return err;
}

/* es->names exists even when the file had no symbol table. */
static int ensure_names(struct elf_syms *es)
{
	if (es->names)
		return 0;
	es->names = calloc(1, 1);	/* offset 0: "" */
	if (!es->names)
		return -ENOMEM;
	es->names_len = es->names_cap = 1;
	return 0;
}

int elf_syms_plt__add(struct elf_syms *es, Elf *elf, uint64_t fsize)
{
	struct slots s = { 0 };
	Elf_Scn *scn;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int err;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	err = read_slots(&s, elf, fsize);
	if (!err && s.n)
		err = ensure_names(es);
	for (size_t i = 0; !err && s.n && i < sizeof(plt_sections) / sizeof(plt_sections[0]); i++) {
		scn = NULL;
		if (elf_read__next_named(elf, plt_sections[i], &scn, &sh) == 1)
			err = name_entries(es, &s, scn, &sh, fsize);
	}
	free(s.v);
	return err;
}
