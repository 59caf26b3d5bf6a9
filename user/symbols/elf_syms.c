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
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_syms.h"

/* Symbol table entries accepted, at most: bounds what a corrupt sh_size can
 * make us allocate; the largest real binaries have around 2M. */
#define ELF_SYMS_MAX	(4u << 20)

struct esym {
	uint64_t start;
	uint64_t end;		/* exclusive */
	const char *name;	/* into elf_syms.strs */
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
	char *strs;		/* copy of the string table, NUL-terminated */
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	bool full_symtab;	/* symbols from .symtab, not only .dynsym */
};

/* [off, off + len) lies inside a file of fsize bytes, without overflow. */
static bool in_file(uint64_t off, uint64_t len, uint64_t fsize)
{
	return off <= fsize && len <= fsize - off;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * libelf reports failures through elf_errno(), whose codes are private; an
 * allocation failing inside it leaves errno at ENOMEM (callers clear errno
 * first), anything else means libelf found the file malformed.
 */
static int elf_fail(int dflt)
{
	return errno == ENOMEM ? -ENOMEM : -dflt;
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
		return elf_fail(EINVAL);
	/* libelf quietly shrinks counts the file cannot hold (e_shnum 0 with
	 * e_shoff set: the count is in section 0, so must not come out 0). */
	if (eh->e_phnum != PN_XNUM && eh->e_phnum != *phnum)
		return -EINVAL;
	if (eh->e_shnum ? eh->e_shnum != shnum : eh->e_shoff && !shnum)
		return -EINVAL;
	if (*phnum > INT_MAX)	/* gelf_getphdr() takes an int */
		return -EINVAL;
	if (*phnum && (eh->e_phentsize != gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT) ||
		       !in_file(eh->e_phoff, (uint64_t)*phnum * eh->e_phentsize, fsize)))
		return -EINVAL;
	if (shnum && (eh->e_shentsize != gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT) ||
		      !in_file(eh->e_shoff, (uint64_t)shnum * eh->e_shentsize, fsize)))
		return -EINVAL;
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
			return elf_fail(EINVAL);
		if (ph.p_type != PT_LOAD)
			continue;
		if (!in_file(ph.p_offset, ph.p_filesz, fsize) || ph.p_filesz > ph.p_memsz ||
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

/* Takes the first GNU build-id note of data; gelf_getnote() bounds-checks
 * every note against d_size. */
static bool note_build_id(struct elf_syms *es, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	const char *base = data->d_buf;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz > 0 &&
		    nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(base + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU))) {
			/* Longer ids (--build-id=0x...) are cut to what fits. */
			es->build_id_len = nh.n_descsz < BUILD_ID_MAX ? nh.n_descsz : BUILD_ID_MAX;
			memcpy(es->build_id, base + desc_off, es->build_id_len);
			return true;
		}
		off = next;
	}
	return false;
}

/* The data of a section, which must lie inside the file. */
static int scn_data(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t fsize, Elf_Data **data)
{
	if (sh->sh_type == SHT_NOBITS || !in_file(sh->sh_offset, sh->sh_size, fsize))
		return -EINVAL;
	*data = elf_getdata(scn, NULL);
	if (!*data)
		return elf_fail(EINVAL);
	if ((*data)->d_size > sh->sh_size || ((*data)->d_size && !(*data)->d_buf))
		return -EINVAL;
	return 0;
}

/* PT_NOTE first: it is what a loaded image (and the vDSO) always has. */
static int build_id_from_phdrs(struct elf_syms *es, Elf *elf, size_t phnum, uint64_t fsize)
{
	Elf_Data *data;
	GElf_Phdr ph;

	for (size_t i = 0; i < phnum && !es->build_id_len; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_fail(EINVAL);
		if (ph.p_type != PT_NOTE || !ph.p_filesz)
			continue;
		if (!in_file(ph.p_offset, ph.p_filesz, fsize))
			return -EINVAL;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (!data)
			return elf_fail(EINVAL);
		note_build_id(es, data);
	}
	return 0;
}

/* SHT_NOTE sections, for files whose notes are not in a PT_NOTE. */
static int build_id_from_sections(struct elf_syms *es, Elf *elf, uint64_t fsize)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	int err;

	while (!es->build_id_len && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return elf_fail(EINVAL);
		if (sh.sh_type != SHT_NOTE)
			continue;
		err = scn_data(scn, &sh, fsize, &data);
		if (err)
			return err;
		note_build_id(es, data);
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
			return elf_fail(EINVAL);
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !*out)) {
			*out = scn;
			*out_sh = sh;
		}
		if (sh.sh_type == SHT_SYMTAB)
			break;
	}
	return 0;
}

/*
 * Copies the whole string table the symbols name into: one copy is bounded
 * by the file size, whereas copying each name is not (many symbols may
 * share one long name). The NUL added at the end terminates any offset.
 */
static int read_strtab(struct elf_syms *es, Elf *elf, size_t link, uint64_t fsize,
		       size_t *strsz)
{
	Elf_Data *data;
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t shnum;
	int err;

	if (elf_getshdrnum(elf, &shnum))
		return elf_fail(EINVAL);
	if (link == SHN_UNDEF || link >= shnum)
		return -EINVAL;
	scn = elf_getscn(elf, link);
	if (!scn || !gelf_getshdr(scn, &sh))
		return elf_fail(EINVAL);
	if (sh.sh_type != SHT_STRTAB || (sh.sh_flags & SHF_COMPRESSED))
		return -EINVAL;
	err = scn_data(scn, &sh, fsize, &data);
	if (err)
		return err;
	es->strs = malloc(data->d_size + 1);
	if (!es->strs)
		return -ENOMEM;
	if (data->d_size)
		memcpy(es->strs, data->d_buf, data->d_size);
	es->strs[data->d_size] = '\0';
	*strsz = data->d_size;
	return 0;
}

static bool keep_sym(const GElf_Sym *sym)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_value;
}

/* "memcpy@@GLIBC_2.14" -> "memcpy": the version is not part of the
 * function's name in a profile (perf and gdb print it without). Cuts the
 * private copy of the string table in place. */
static void strip_version(char *name)
{
	char *at = strchr(name, '@');

	if (at && at != name)
		*at = '\0';
}

/* Two passes, so only the functions are allocated for. */
static int collect_syms(struct elf_syms *es, Elf *elf, Elf_Data *data, size_t nr,
			size_t strndx, size_t strsz)
{
	const char *name;
	GElf_Sym sym;
	size_t n = 0;

	for (size_t i = 0; i < nr; i++)
		if (gelf_getsym(data, (int)i, &sym) && keep_sym(&sym))
			n++;
	es->syms = calloc(n ? n : 1, sizeof(*es->syms));
	if (!es->syms)
		return -ENOMEM;
	for (size_t i = 0; i < nr && es->nr_syms < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym) || !keep_sym(&sym))
			continue;
		/* A bad name index drops the symbol, not the file. */
		name = elf_strptr(elf, strndx, sym.st_name);
		if (!name || !*name || sym.st_name >= strsz)
			continue;
		strip_version(es->strs + sym.st_name);
		es->syms[es->nr_syms++] = (struct esym){
			.start = sym.st_value,
			.end = add_sat(sym.st_value, sym.st_size),
			.name = es->strs + sym.st_name,
			.bind = GELF_ST_BIND(sym.st_info),
		};
	}
	/* Names share the table's bytes: cutting "f@V" also empties a name
	 * that starts at its '@'. Drop those. */
	n = 0;
	for (size_t i = 0; i < es->nr_syms; i++)
		if (es->syms[i].name[0])
			es->syms[n++] = es->syms[i];
	es->nr_syms = n;
	return 0;
}

static int read_syms(struct elf_syms *es, Elf *elf, uint64_t fsize)
{
	size_t ent, nr, strsz;
	Elf_Data *data;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int err;

	err = find_symtab(elf, &scn, &sh);
	if (err || !scn)
		return err;	/* no symbols: a valid, empty result */
	es->full_symtab = sh.sh_type == SHT_SYMTAB;
	err = scn_data(scn, &sh, fsize, &data);
	if (err)
		return err;
	ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!ent || sh.sh_entsize != ent || data->d_type != ELF_T_SYM || data->d_size % ent)
		return -EINVAL;
	nr = data->d_size / ent;
	if (nr > ELF_SYMS_MAX)
		return -EINVAL;
	err = read_strtab(es, elf, sh.sh_link, fsize, &strsz);
	if (err)
		return err;
	return collect_syms(es, elf, data, nr, sh.sh_link, strsz);
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
static int sym_cmp(const void *pa, const void *pb)
{
	const struct esym *a = pa, *b = pb;
	size_t ua, ub, la, lb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	ua = underscores(a->name);
	ub = underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
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
		qsort(es->syms, es->nr_syms, sizeof(*es->syms), sym_cmp);
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
		err = build_id_from_phdrs(es, elf, phnum, fsize);
	if (!err)
		err = build_id_from_sections(es, elf, fsize);
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
	errno = 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
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
	return s->name;
}

size_t elf_syms__build_id(const struct elf_syms *es, const unsigned char **id)
{
	if (!es)
		return 0;
	if (id)
		*id = es->build_id;
	return es->build_id_len;
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
	free(es->strs);
	free(es);
}
