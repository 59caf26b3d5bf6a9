// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Bounds-checked reading of an ELF file's parts with libelf: sections'
 * data, the GNU build-id note. */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_limits.h"
#include "elf/elf_read.h"

struct build_id {
	unsigned char *id;
	size_t len;
	char *go;		/* GO_BUILD_ID_MAX + 1 bytes */
};

#define NT_GO_BUILD_ID	4	/* cmd/internal/buildid: the note "Go\0\0", type 4 */

/* A Go build ID: base64-like parts joined by '/', nothing else (it is
 * the file's text: it goes into profiles as it is). */
static bool go_build_id_ok(const char *s, size_t len)
{
	if (!len || len > GO_BUILD_ID_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_=/-", s[i]))
			return false;
	return true;
}

static void note_go_build_id(struct build_id *b, const char *name, const char *desc,
			     const GElf_Nhdr *nh)
{
	if (nh->n_type == NT_GO_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "Go\0\0", 4) &&
	    !b->go[0] && go_build_id_ok(desc, nh->n_descsz)) {
		memcpy(b->go, desc, nh->n_descsz);
		b->go[nh->n_descsz] = '\0';
	}
}

/* [off, off + len) lies inside a file of fsize bytes, without overflow. */
bool elf_read__in_file(uint64_t off, uint64_t len, uint64_t fsize)
{
	return off <= fsize && len <= fsize - off;
}

int elf_read__next_named(Elf *elf, const char *name, Elf_Scn **scn, GElf_Shdr *sh)
{
	size_t shstrndx;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	while ((*scn = elf_nextscn(elf, *scn))) {
		if (!gelf_getshdr(*scn, sh))
			return -EINVAL;
		s = elf_strptr(elf, shstrndx, sh->sh_name);
		if (s && !strcmp(s, name))
			return 1;
	}
	return 0;
}

/*
 * libelf reports failures through elf_errno(), whose codes are private; an
 * allocation failing inside it leaves errno at ENOMEM (callers clear errno
 * first), anything else means libelf found the file malformed.
 */
int elf_read__fail(int dflt)
{
	return errno == ENOMEM ? -ENOMEM : -dflt;
}

/* The data of a section, which must lie inside the file. */
int elf_read__scn_data(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t fsize, Elf_Data **data)
{
	if (sh->sh_type == SHT_NOBITS || !elf_read__in_file(sh->sh_offset, sh->sh_size, fsize))
		return -EINVAL;
	*data = elf_getdata(scn, NULL);
	if (!*data)
		return elf_read__fail(EINVAL);
	if ((*data)->d_size > sh->sh_size || ((*data)->d_size && !(*data)->d_buf))
		return -EINVAL;
	return 0;
}

Elf *elf_read__begin(int fd, uint64_t *fsize)
{
	struct stat st;
	Elf *elf;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return NULL;
	}
	*fsize = (uint64_t)st.st_size;
	return elf;
}

size_t elf_read__loads(Elf *elf, struct elf_load *loads, size_t max)
{
	size_t phnum, n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum && n < max; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		loads[n++] = (struct elf_load){
			.off = ph.p_offset, .filesz = ph.p_filesz, .vaddr = ph.p_vaddr,
			.memsz = ph.p_memsz, .exec = ph.p_flags & PF_X,
		};
	}
	return n;
}

void elf_read__each_symbol(Elf *elf, uint64_t fsize,
			   void (*fn)(const char *name, const GElf_Sym *sym, void *ctx), void *ctx)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *name;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize || elf_read__scn_data(scn, &sh, fsize, &data))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name)
				fn(name, &sym, ctx);
		}
	}
}

/* Takes the first GNU build-id note of data; gelf_getnote() bounds-checks
 * every note against d_size. */
static bool note_build_id(struct build_id *b, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	const char *base = data->d_buf;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		note_go_build_id(b, base + name_off, base + desc_off, &nh);
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz > 0 &&
		    nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(base + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU))) {
			/* Longer ids (--build-id=0x...) are cut to what fits. */
			b->len = nh.n_descsz < BUILD_ID_MAX ? nh.n_descsz : BUILD_ID_MAX;
			memcpy(b->id, base + desc_off, b->len);
			return true;
		}
		off = next;
	}
	return false;
}

/* PT_NOTE first: it is what a loaded image (and the vDSO) always has. */
static int build_id_from_phdrs(struct build_id *b, Elf *elf, size_t phnum, uint64_t fsize)
{
	Elf_Data *data;
	GElf_Phdr ph;

	for (size_t i = 0; i < phnum && !b->len; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return elf_read__fail(EINVAL);
		if (ph.p_type != PT_NOTE || !ph.p_filesz || ph.p_filesz > ELF_NOTES_MAX)
			continue;
		if (!elf_read__in_file(ph.p_offset, ph.p_filesz, fsize))
			return -EINVAL;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (!data)
			return elf_read__fail(EINVAL);
		note_build_id(b, data);
	}
	return 0;
}

/* SHT_NOTE sections, for files whose notes are not in a PT_NOTE. */
static int build_id_from_sections(struct build_id *b, Elf *elf, uint64_t fsize)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	int err;

	while (!b->len && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return elf_read__fail(EINVAL);
		if (sh.sh_type != SHT_NOTE || sh.sh_size > ELF_NOTES_MAX)
			continue;
		err = elf_read__scn_data(scn, &sh, fsize, &data);
		if (err)
			return err;
		note_build_id(b, data);
	}
	return 0;
}

int elf_read__build_id(Elf *elf, size_t phnum, uint64_t fsize, unsigned char id[BUILD_ID_MAX],
		       size_t *len, char go[GO_BUILD_ID_MAX + 1])
{
	struct build_id b = { .id = id, .go = go };
	int err = build_id_from_phdrs(&b, elf, phnum, fsize);

	if (!err)
		err = build_id_from_sections(&b, elf, fsize);
	*len = b.len;
	return err;
}

int elf_load__map_vaddr(const struct elf_load *loads, size_t n, uint64_t pgoff,
			uint64_t *vaddr)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < n; i++) {
		const struct elf_load *l = &loads[i];
		uint64_t first = l->off & ~(page - 1);

		if (l->exec && pgoff >= first && pgoff < l->off + l->filesz) {
			*vaddr = l->vaddr + pgoff - l->off;	/* mod 2^64 */
			return 0;
		}
	}
	return -ENOENT;
}

int elf_load__exec_vaddr(const struct elf_load *loads, size_t n, uint64_t span, uint64_t *vaddr)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t nexec = 0, only = 0;

	for (size_t i = 0; i < n; i++) {
		const struct elf_load *l = &loads[i];
		uint64_t first = l->vaddr & ~(page - 1);
		uint64_t end = (l->vaddr + l->memsz + page - 1) & ~(page - 1);

		if (!l->exec)
			continue;
		nexec++;
		only = i;
		if (end - first == span) {
			*vaddr = first;
			return 0;
		}
	}
	if (nexec != 1)
		return -ENOENT;
	*vaddr = loads[only].vaddr & ~(page - 1);
	return 0;
}
