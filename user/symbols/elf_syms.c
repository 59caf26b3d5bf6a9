// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Function symbols of one ELF file, read with libelf and looked up by file
 * offset through the PT_LOAD program headers.
 *
 * The files come from arbitrary processes, so every header is checked
 * against the file size before libelf is asked for the bytes it describes,
 * and a malformed symbol is dropped rather than trusted.
 *
 * Aliases (several names at one address) collapse to one name, chosen by:
 *   1. binding: GLOBAL (or GNU_UNIQUE) before WEAK before LOCAL,
 *   2. fewer leading underscores ("malloc" before "__libc_malloc"),
 *   3. shorter name,
 *   4. strcmp order, so the choice never depends on the symbol table order.
 * The merged symbol gets the largest size any of its aliases declares.
 *
 * The file is read through libelf's mmap: the symbol and string tables are
 * not copied, only the kept functions' names are (see elf_limits.h for the
 * bounds of every size).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_limits.h"
#include "elf_read.h"
#include "elf_syms.h"

struct esym {
	uint64_t start;
	uint64_t end;		/* exclusive */
	uint32_t name;		/* offset into elf_syms.names */
	unsigned char bind;	/* STB_*, to choose between aliases */
};

struct eseg {			/* one PT_LOAD */
	uint64_t off, filesz;
	uint64_t vaddr, memsz;
	bool exec;
};

struct elf_syms {
	struct esym *syms;	/* by start; one per address */
	size_t nr_syms;
	struct eseg *segs;
	size_t nr_segs;
	char *names;		/* the kept symbols' names, each NUL-terminated */
	size_t names_len, names_cap;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	bool full_symtab;	/* symbols from .symtab, not only .dynsym */
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Which error a file libelf refused deserves: EINVAL if it claims to be an
 * ELF (its headers are then inconsistent), else ENOEXEC. */
static int begin_fail(const void *head, size_t len)
{
	if (errno == ENOMEM)
		return ENOMEM;
	if (len >= SELFMAG && !memcmp(head, ELFMAG, SELFMAG))
		return EINVAL;
	return ENOEXEC;
}

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
static int check_ehdr(Elf *elf, uint64_t fsize, size_t *phnum)
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

static int read_segs(struct elf_syms *es, Elf *elf, size_t phnum, uint64_t fsize)
{
	GElf_Phdr ph;

	es->segs = calloc(phnum ? phnum : 1, sizeof(*es->segs));
	if (!es->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_read__fail(EINVAL);
		if (ph.p_type != PT_LOAD)
			continue;
		if (!elf_read__in_file(ph.p_offset, ph.p_filesz, fsize) || ph.p_filesz > ph.p_memsz ||
		    add_sat(ph.p_vaddr, ph.p_memsz) == UINT64_MAX)
			return -EINVAL;
		es->segs[es->nr_segs++] = (struct eseg){
			.off = ph.p_offset, .filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.exec = ph.p_flags & PF_X,
		};
	}
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

/* The bytes of the symbols' index and names together. */
static size_t held_bytes(size_t nsyms, size_t names)
{
	return nsyms * sizeof(struct esym) + names;
}

/*
 * Copies a name into es->names, without its version ("memcpy@@GLIBC_2.14"
 * -> "memcpy": perf and gdb print it without), cut at ELF_NAME_MAX bytes.
 * Returns its offset, 0 for an empty name (names[0] is the empty string),
 * or -E2BIG when the file's symbols would exceed ELF_SYMS_BYTES_MAX.
 */
static int64_t add_name(struct elf_syms *es, const char *strs, size_t strsz, size_t at,
			size_t nsyms)
{
	size_t len = strnlen(strs + at, strsz - at < ELF_NAME_MAX ? strsz - at : ELF_NAME_MAX);
	/* a leading '@' is part of the name */
	const char *ver = len > 1 ? memchr(strs + at + 1, '@', len - 1) : NULL;
	size_t need, cap;
	char *grown;

	if (ver)
		len = (size_t)(ver - (strs + at));
	if (!len)
		return 0;
	need = es->names_len + len + 1;
	if (held_bytes(nsyms, need) > ELF_SYMS_BYTES_MAX)
		return -E2BIG;
	if (need > es->names_cap) {
		cap = es->names_cap * 2 > need ? es->names_cap * 2 : need + 4096;
		grown = realloc(es->names, cap);
		if (!grown)
			return -ENOMEM;
		es->names = grown;
		es->names_cap = cap;
	}
	memcpy(es->names + es->names_len, strs + at, len);
	es->names[es->names_len + len] = '\0';
	es->names_len = need;
	return (int64_t)(need - len - 1);
}

/* The functions of a symbol table, with their names copied. */
static int collect_syms(struct elf_syms *es, Elf_Data *data, size_t nr, Elf_Data *strtab)
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
			.end = add_sat(sym.st_value, sym.st_size),
			.name = (uint32_t)name,
			.bind = GELF_ST_BIND(sym.st_info),
		};
	}
	return 0;
}

static int read_syms(struct elf_syms *es, Elf *elf, uint64_t fsize)
{
	Elf_Data *data, *strtab;
	size_t ent, nr;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int err;

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
	return collect_syms(es, data, nr, strtab);
}

static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address, then the preferred alias first (see the top of the file). */
static int sym_cmp(const void *pa, const void *pb, void *names)
{
	const struct esym *a = pa, *b = pb;
	const char *na = (const char *)names + a->name, *nb = (const char *)names + b->name;
	size_t ua, ub, la, lb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	ua = underscores(na);
	ub = underscores(nb);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(na, nb);
}

/* Keeps the first (preferred) alias of each address, with the largest end. */
static void dedupe(struct elf_syms *es)
{
	size_t out = 0;

	for (size_t i = 0; i < es->nr_syms; i++) {
		struct esym *last = out ? &es->syms[out - 1] : NULL;

		if (last && last->start == es->syms[i].start) {
			if (es->syms[i].end > last->end)
				last->end = es->syms[i].end;
			continue;
		}
		es->syms[out++] = es->syms[i];
	}
	es->nr_syms = out;
}

static const struct eseg *seg_of_vaddr(const struct elf_syms *es, uint64_t vaddr)
{
	for (size_t i = 0; i < es->nr_segs; i++)
		if (vaddr >= es->segs[i].vaddr && vaddr - es->segs[i].vaddr < es->segs[i].memsz)
			return &es->segs[i];
	return NULL;
}

/* A symbol without a size (hand-written assembly) extends to the next
 * symbol, but not past the end of the segment it is in. */
static void size_sizeless(struct elf_syms *es)
{
	for (size_t i = 0; i < es->nr_syms; i++) {
		struct esym *s = &es->syms[i];
		const struct eseg *seg;
		uint64_t end;

		if (s->end != s->start)
			continue;
		seg = seg_of_vaddr(es, s->start);
		end = i + 1 < es->nr_syms ? es->syms[i + 1].start : UINT64_MAX;
		if (seg && seg->vaddr + seg->memsz < end)
			end = seg->vaddr + seg->memsz;
		/* Nothing bounds it: claim only its first byte. */
		s->end = end == UINT64_MAX ? add_sat(s->start, 1) : end;
	}
}

static void finish_syms(struct elf_syms *es)
{
	struct esym *shrunk;

	if (es->nr_syms > 1)
		qsort_r(es->syms, es->nr_syms, sizeof(*es->syms), sym_cmp, es->names);
	dedupe(es);
	size_sizeless(es);
	/* Aliases and dropped names leave slack; a failed shrink keeps it. */
	if (es->nr_syms) {
		shrunk = realloc(es->syms, es->nr_syms * sizeof(*es->syms));
		if (shrunk)
			es->syms = shrunk;
	}
}

/* Everything from an open Elf; NULL with errno set on failure. */
static struct elf_syms *load(Elf *elf, uint64_t fsize)
{
	struct elf_syms *es;
	size_t phnum;
	int err;

	err = check_ehdr(elf, fsize, &phnum);
	if (err) {
		errno = -err;
		return NULL;
	}
	es = calloc(1, sizeof(*es));
	if (!es) {
		errno = ENOMEM;
		return NULL;
	}
	err = read_segs(es, elf, phnum, fsize);
	if (!err)
		err = elf_read__build_id(elf, phnum, fsize, es->build_id, &es->build_id_len);
	if (!err)
		err = read_syms(es, elf, fsize);
	if (err) {
		elf_syms__free(es);
		errno = -err;
		return NULL;
	}
	finish_syms(es);
	return es;
}

/* Runs load() and releases the Elf, keeping load()'s errno. */
static struct elf_syms *load_and_end(Elf *elf, uint64_t fsize)
{
	struct elf_syms *es = load(elf, fsize);
	int err = errno;

	elf_end(elf);
	errno = err;
	return es;
}

struct elf_syms *elf_syms__open_fd(int fd)
{
	unsigned char magic[SELFMAG];
	struct stat st;
	ssize_t got;
	Elf *elf;

	if (fstat(fd, &st))
		return NULL;
	/* libelf sizes the file with fstat: only a regular file has a size. */
	if (!S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOEXEC;
		return NULL;
	}
	if (elf_limits__check(fd, NULL, (size_t)st.st_size)) {
		errno = E2BIG;
		return NULL;
	}
	errno = 0;
	/* mapped, not read: the tables are used in place, never copied */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		got = pread(fd, magic, sizeof(magic), 0);
		errno = begin_fail(magic, got > 0 ? (size_t)got : 0);
		return NULL;
	}
	return load_and_end(elf, (uint64_t)st.st_size);
}

struct elf_syms *elf_syms__open_mem(const void *image, size_t size)
{
	struct elf_syms *es;
	char *copy;
	Elf *elf;
	int err;

	if (!image && size) {
		errno = EINVAL;
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOEXEC;
		return NULL;
	}
	if (elf_limits__check(-1, image, size)) {
		errno = E2BIG;
		return NULL;
	}
	/* libelf may convert the image in place: give it a private copy. */
	copy = malloc(size ? size : 1);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	if (size)
		memcpy(copy, image, size);
	errno = 0;
	elf = elf_memory(copy, size);
	if (!elf) {
		errno = begin_fail(copy, size);
		free(copy);
		return NULL;
	}
	es = load_and_end(elf, size);
	err = errno;
	free(copy);
	errno = err;
	return es;
}

/* The executable segment wins should crafted segments overlap in the file:
 * that is where samples land. */
static const struct eseg *seg_of_off(const struct elf_syms *es, uint64_t off)
{
	const struct eseg *found = NULL;

	for (size_t i = 0; i < es->nr_segs; i++) {
		const struct eseg *seg = &es->segs[i];

		if (off < seg->off || off - seg->off >= seg->filesz)
			continue;
		if (seg->exec)
			return seg;
		if (!found)
			found = seg;
	}
	return found;
}

int elf_syms__vaddr(const struct elf_syms *es, uint64_t file_off, uint64_t *vaddr)
{
	const struct eseg *seg = es ? seg_of_off(es, file_off) : NULL;

	if (!seg)
		return -ENOENT;
	*vaddr = file_off - seg->off + seg->vaddr;
	return 0;
}

const char *elf_syms__lookup(const struct elf_syms *es, uint64_t file_off, uint64_t *sym_off)
{
	uint64_t vaddr;

	if (elf_syms__vaddr(es, file_off, &vaddr))
		return NULL;
	return elf_syms__lookup_vaddr(es, vaddr, sym_off);
}

bool elf_syms__full_symtab(const struct elf_syms *es)
{
	return es && es->full_symtab;
}

const char *elf_syms__lookup_vaddr(const struct elf_syms *es, uint64_t vaddr, uint64_t *sym_off)
{
	size_t lo = 0, hi;
	const struct esym *s;

	if (!es)
		return NULL;
	/* The last symbol starting at or below vaddr: syms[< lo] start at or
	 * below it, syms[>= hi] above. */
	hi = es->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &es->syms[lo - 1];
	if (vaddr >= s->end)
		return NULL;
	if (sym_off)
		*sym_off = vaddr - s->start;
	return es->names + s->name;
}

size_t elf_syms__build_id(const struct elf_syms *es, const unsigned char **id)
{
	if (!es)
		return 0;
	if (id)
		*id = es->build_id;
	return es->build_id_len;
}

void elf_syms__build_id_hex(const struct elf_syms *es, char *out)
{
	const unsigned char *id;
	size_t len = elf_syms__build_id(es, &id), i;

	for (i = 0; i < len; i++)
		sprintf(&out[2 * i], "%02x", id[i]);
	out[2 * len] = '\0';
}

size_t elf_syms__bytes(const struct elf_syms *es)
{
	return es ? sizeof(*es) + es->nr_segs * sizeof(*es->segs) +
		    held_bytes(es->nr_syms, es->names_cap) : 0;
}

void elf_syms__drop_symbols(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->names);
	es->syms = NULL;
	es->names = NULL;
	es->nr_syms = es->names_len = es->names_cap = 0;
}

size_t elf_syms__count(const struct elf_syms *es)
{
	return es ? es->nr_syms : 0;
}

void elf_syms__free(struct elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->segs);
	free(es->names);
	free(es);
}
