// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of elf_syms on bad input: what is not ELF, truncated or
 * inconsistent headers, names out of range, mutated images. Each is refused
 * with its errno, or loads and stays usable; nothing crashes (ASan watches).
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_syms.h"
#include "elf_syms_fixture.h"

TestSuite(elf_syms_bad, .init = setup, .fini = teardown);

static void expect_fd_error(const char *path, int err1, int err2)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_syms *es;

	cr_assert(fd >= 0);
	errno = 0;
	es = elf_syms__open_fd(fd);
	cr_assert_null(es, "%s opened", path);
	cr_assert(errno == err1 || errno == err2, "%s: errno %d (%s)", path, errno,
		  strerror(errno));
	cr_assert_eq(close(fd), 0);
}

static void expect_mem_error(const void *p, size_t len, int err)
{
	struct elf_syms *es;

	errno = 0;
	es = elf_syms__open_mem(p, len);
	cr_assert_null(es);
	cr_assert_eq(errno, err, "errno %d (%s), want %d", errno, strerror(errno), err);
}

/* xorshift64: reproducible noise. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(elf_syms_bad, random_bytes_are_not_elf)
{
	struct path p = path_of("random");
	unsigned char bytes[4096];
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)rnd(&seed);
	bytes[0] = 'R';		/* never the ELF magic */
	write_file(p.s, bytes, sizeof(bytes));
	expect_fd_error(p.s, ENOEXEC, ENOEXEC);
	expect_mem_error(bytes, sizeof(bytes), ENOEXEC);
}

Test(elf_syms_bad, empty_file_is_not_elf)
{
	struct path p = path_of("empty");

	write_file(p.s, "", 0);
	expect_fd_error(p.s, ENOEXEC, ENOEXEC);
	expect_mem_error("", 0, ENOEXEC);
}

Test(elf_syms_bad, truncated_elf_is_invalid)
{
	struct path pie = build("pie", PIE_FLAGS), p = path_of("truncated");
	struct buf b = read_file(pie.s);

	cr_assert_gt(b.len, 100);
	write_file(p.s, b.p, 100);
	expect_fd_error(p.s, EINVAL, EINVAL);
	expect_mem_error(b.p, 100, EINVAL);
	free(b.p);
}

Test(elf_syms_bad, object_file_is_not_loadable)
{
	struct path o = build("src.o", "-c");

	expect_fd_error(o.s, ENOEXEC, ENOEXEC);
}

Test(elf_syms_bad, directory_is_not_elf)
{
	expect_fd_error(tmpdir, ENOEXEC, ENOEXEC);
}

/* Section header i of an ELF64 image. */
static Elf64_Shdr *shdr64(struct buf *b, size_t i)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;

	cr_assert_eq(eh->e_ident[EI_CLASS], ELFCLASS64);
	cr_assert_lt(i, eh->e_shnum);
	return (Elf64_Shdr *)(b->p + eh->e_shoff + i * eh->e_shentsize);
}

static size_t symtab_index(struct buf *b)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;

	for (size_t i = 0; i < eh->e_shnum; i++)
		if (shdr64(b, i)->sh_type == SHT_SYMTAB)
			return i;
	cr_assert_fail("no .symtab");
	return 0;
}

static Elf64_Phdr *first_phdr(struct buf *b, Elf64_Word type)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;

	for (size_t i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(b->p + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == type)
			return ph;
	}
	cr_assert_fail("no program header of type %u", type);
	return NULL;
}

enum corruption {
	SHOFF_PAST_END, PHOFF_PAST_END, PHENTSIZE, PHNUM_TOO_BIG, LOAD_PAST_END,
	SYMTAB_PAST_END, SYMTAB_TOO_BIG, SYMTAB_ENTSIZE, SYMTAB_LINK_RANGE,
	SYMTAB_LINK_TYPE, STRTAB_PAST_END, NOTE_PAST_END, NR_CORRUPTIONS,
};

static void corrupt(struct buf *b, enum corruption c)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;
	Elf64_Shdr *sym = shdr64(b, symtab_index(b));

	switch (c) {
	case SHOFF_PAST_END: eh->e_shoff = b->len - 8; break;
	case PHOFF_PAST_END: eh->e_phoff = b->len - 8; break;
	case PHENTSIZE: eh->e_phentsize = 40; break;
	case PHNUM_TOO_BIG: eh->e_phnum = 0xfff0; break;
	case LOAD_PAST_END:
		first_phdr(b, PT_LOAD)->p_filesz = b->len - first_phdr(b, PT_LOAD)->p_offset + 1;
		first_phdr(b, PT_LOAD)->p_memsz = first_phdr(b, PT_LOAD)->p_filesz;
		break;
	case SYMTAB_PAST_END: sym->sh_offset = b->len; break;
	case SYMTAB_TOO_BIG: sym->sh_size = b->len * 2 / 24 * 24; break;
	case SYMTAB_ENTSIZE: sym->sh_entsize = 7; break;
	case SYMTAB_LINK_RANGE: sym->sh_link = eh->e_shnum + 3; break;
	case SYMTAB_LINK_TYPE: sym->sh_link = (Elf64_Word)symtab_index(b); break;
	case STRTAB_PAST_END: shdr64(b, sym->sh_link)->sh_offset = b->len - 1; break;
	case NOTE_PAST_END: first_phdr(b, PT_NOTE)->p_offset = b->len - 4; break;
	default: cr_assert_fail();
	}
}

Test(elf_syms_bad, inconsistent_headers_are_einval)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf orig = read_file(pie.s);
	struct elf_syms *es;

	/* The unmodified image loads: each failure below is the corruption. */
	es = elf_syms__open_mem(orig.p, orig.len);
	cr_assert_not_null(es);
	elf_syms__free(es);
	for (int c = 0; c < NR_CORRUPTIONS; c++) {
		struct buf b = { malloc(orig.len), orig.len };
		struct path p = path_of("corrupt");

		cr_assert_not_null(b.p);
		memcpy(b.p, orig.p, b.len);
		corrupt(&b, (enum corruption)c);
		errno = 0;
		es = elf_syms__open_mem(b.p, b.len);
		cr_assert_null(es, "corruption %d loaded", c);
		cr_assert_eq(errno, EINVAL, "corruption %d: errno %d", c, errno);
		write_file(p.s, b.p, b.len);
		expect_fd_error(p.s, EINVAL, EINVAL);
		free(b.p);
	}
	free(orig.p);
}

Test(elf_syms_bad, wrong_type_or_magic_is_enoexec)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf b = read_file(pie.s);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b.p;

	eh->e_type = ET_REL;
	expect_mem_error(b.p, b.len, ENOEXEC);
	eh->e_type = ET_DYN;
	eh->e_ident[EI_CLASS] = 7;
	expect_mem_error(b.p, b.len, ENOEXEC);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_MAG1] = 'X';
	expect_mem_error(b.p, b.len, ENOEXEC);
	free(b.p);
}

/* Names out of the string table drop their symbols, not the file. */
Test(elf_syms_bad, bad_name_index_drops_symbol)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf b = read_file(pie.s);
	struct nm_sym s = nm_find(pie.s, false, "outer");
	Elf64_Shdr *sh = shdr64(&b, symtab_index(&b));
	Elf64_Sym *syms = (Elf64_Sym *)(b.p + sh->sh_offset);
	struct elf_syms *es;
	size_t patched = 0;

	cr_assert(s.found);
	for (size_t i = 0; i < sh->sh_size / sizeof(*syms); i++) {
		if (syms[i].st_value == s.addr) {
			syms[i].st_name = 0x7fffffff;
			patched++;
		}
	}
	cr_assert_eq(patched, 2, "outer and o");
	es = elf_syms__open_mem(b.p, b.len);
	cr_assert_not_null(es, "%s", strerror(errno));
	cr_assert_null(elf_syms__lookup_vaddr(es, s.addr, NULL));
	cr_assert_str_eq(elf_syms__lookup_vaddr(es, nm_find(pie.s, false, "middle").addr, NULL),
			 "middle");
	elf_syms__free(es);
	free(b.p);
}

/* Flipped bytes, mostly in the headers and the tables at the end: whatever
 * comes back must be usable, ASan watches the reads. */
Test(elf_syms_bad, mutated_images_do_not_crash)
{
	struct path pie = build("pie", PIE_FLAGS);
	struct buf orig = read_file(pie.s);
	uint64_t seed = 42;
	unsigned char *b = malloc(orig.len);
	size_t loaded = 0;

	cr_assert_not_null(b);
	for (int iter = 0; iter < 3000; iter++) {
		struct elf_syms *es;
		const unsigned char *id;

		memcpy(b, orig.p, orig.len);
		for (int k = 1 + (int)(rnd(&seed) % 8); k > 0; k--) {
			uint64_t r = rnd(&seed);
			size_t pos = r % 3 == 0 ? r % 1024 :
				     r % 3 == 1 ? orig.len - 1 - r % 4096 : r % orig.len;

			b[pos % orig.len] ^= (unsigned char)(1u << (r >> 32) % 8);
		}
		es = elf_syms__open_mem(b, orig.len);
		if (!es) {
			cr_assert(errno == EINVAL || errno == ENOEXEC || errno == E2BIG, "errno %d", errno);
			continue;
		}
		loaded++;
		for (uint64_t off = 0; off < orig.len; off += 61)
			elf_syms__lookup(es, off, NULL);
		cr_assert_leq(elf_syms__build_id(es, &id), BUILD_ID_MAX);
		elf_syms__free(es);
	}
	cr_assert_gt(loaded, 0);
	free(b);
	free(orig.p);
}

Test(elf_syms_bad, null_and_empty_handles)
{
	cr_assert_null(elf_syms__lookup(NULL, 0x1000, NULL));
	cr_assert_eq(elf_syms__count(NULL), 0);
	elf_syms__free(NULL);
	expect_mem_error(NULL, 16, EINVAL);
}
