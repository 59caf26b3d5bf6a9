// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/elf/elf_syms.c, the ELF symbol reader. The input is a whole
 * file. It is read both ways bpfprof reads ELF files: from memory
 * (elf_syms__open_mem, the vDSO) and from a regular file
 * (elf_syms__open_fd, through a memfd), and the two must agree. Then
 * lookups at offsets taken from the input and at the value of every
 * symbol the file's symbol tables hold (read here with libelf), with their
 * invariants checked.
 */
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elf_syms.h"
#include "fuzz_check.h"

static int memfd = -1;

#define MAX_PROBED_SYMS	1024

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = fuzz_memfd("fuzz_elf_syms");
	return 0;
}

static uint64_t rd(const uint8_t *d, size_t size, size_t off, size_t len)
{
	uint64_t v = 0;

	if (off <= size && len <= size - off)
		memcpy(&v, d + off, len);	/* little-endian host */
	return v;
}

static const char *checked_name(const char *name)
{
	if (name)
		CHECK(strlen(name) > 0);	/* ASan: NUL-terminated in bounds */
	return name;
}

/* One file offset: lookup() == lookup_vaddr(vaddr()); a symbol's start
 * resolves to itself at offset 0. */
static void probe(const struct elf_syms *es, uint64_t off)
{
	uint64_t vaddr, so1 = 0, so2 = 0, so3 = 1;
	const char *n1, *n2, *n3;

	n1 = checked_name(elf_syms__lookup(es, off, &so1));
	if (elf_syms__vaddr(es, off, &vaddr) != 0) {
		CHECK(n1 == NULL);
	} else {
		n2 = checked_name(elf_syms__lookup_vaddr(es, vaddr, &so2));
		CHECK(n1 == n2);
		if (n2) {
			CHECK(so1 == so2 && so2 <= vaddr);
			n3 = elf_syms__lookup_vaddr(es, vaddr - so2, &so3);
			CHECK(n3 == n2 && so3 == 0);
		}
	}
	checked_name(elf_syms__lookup_vaddr(es, off, NULL));	/* as a vaddr */
}

/* Looks up the value of each symbol in the input's symbol tables, as far
 * as libelf reads them, so that every kept symbol's name is checked. Only
 * sections inside the input are read (elf_syms.c does the same before it
 * trusts libelf with one). */
static void probe_symbols(const struct elf_syms *es, const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	Elf_Scn *scn = NULL;
	size_t probed = 0;
	Elf *elf;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	while (elf && probed < MAX_PROBED_SYMS && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    sh.sh_offset > size || sh.sh_size > size - sh.sh_offset || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && probed < MAX_PROBED_SYMS && gelf_getsym(d, (int)i, &sym); i++) {
			probed++;
			checked_name(elf_syms__lookup_vaddr(es, sym.st_value, NULL));
			if (sym.st_size)
				checked_name(elf_syms__lookup_vaddr(es, sym.st_value + sym.st_size - 1, NULL));
		}
	}
	elf_end(elf);
	free(copy);
}

/* The two loads of the same bytes give the same answers. */
static void compare(const struct elf_syms *a, const struct elf_syms *b,
		    const uint64_t *offs, size_t noffs)
{
	const unsigned char *ida, *idb;
	size_t la = elf_syms__build_id(a, &ida), lb = elf_syms__build_id(b, &idb);

	CHECK(elf_syms__count(a) == elf_syms__count(b));
	CHECK(elf_syms__full_symtab(a) == elf_syms__full_symtab(b));
	CHECK(la == lb && !memcmp(ida, idb, la));
	for (size_t i = 0; i < noffs; i++) {
		uint64_t sa = 0, sb = 0;
		const char *na = elf_syms__lookup(a, offs[i], &sa);
		const char *nb = elf_syms__lookup(b, offs[i], &sb);

		CHECK(!na == !nb);
		CHECK(!na || (!strcmp(na, nb) && sa == sb));
	}
}

static void check_loaded(const struct elf_syms *es, const uint64_t *offs, size_t noffs,
			 uint64_t entry)
{
	const unsigned char *id = NULL;
	size_t len = elf_syms__build_id(es, &id);
	volatile unsigned char sink = 0;

	CHECK(len <= BUILD_ID_MAX && id);
	for (size_t i = 0; i < len; i++)
		sink ^= id[i];
	(void)sink;
	for (size_t i = 0; i < noffs; i++)
		probe(es, offs[i]);
	checked_name(elf_syms__lookup_vaddr(es, entry, NULL));
	checked_name(elf_syms__lookup_vaddr(es, entry + 1, NULL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_syms *mem, *fd;
	int err_mem, err_fd;
	bool is64 = size > 4 && data[4] == 2;
	uint64_t entry = rd(data, size, 24, is64 ? 8 : 4);
	uint64_t offs[] = {
		0, 1, size / 2, size ? size - 1 : 0, size,
		entry,				/* _start, in a non-PIE or PIE image */
		rd(data, size, size >= 8 ? size - 8 : 0, 8),	/* the input's last word */
		rd(data, size, size >= 16 ? size - 16 : 0, 4),
		rd(data, size, size >= 12 ? size - 12 : 0, 2) * 16,
		UINT64_MAX,
	};
	size_t noffs = sizeof(offs) / sizeof(offs[0]);

	errno = 0;
	mem = elf_syms__open_mem(data, size);
	err_mem = errno;
	fuzz_fill_memfd(memfd, data, size);
	errno = 0;
	fd = elf_syms__open_fd(memfd);
	err_fd = errno;

	/* The documented errors, and only those. */
	if (!mem)
		CHECK(err_mem == ENOEXEC || err_mem == EINVAL || err_mem == E2BIG || err_mem == ENOMEM);
	if (!fd)
		CHECK(err_fd == ENOEXEC || err_fd == EINVAL || err_fd == E2BIG || err_fd == ENOMEM);
	CHECK(!mem == !fd);

	if (mem) {
		check_loaded(mem, offs, noffs, entry);
		check_loaded(fd, offs, noffs, entry);
		compare(mem, fd, offs, noffs);
		probe_symbols(mem, data, size);
	}
	elf_syms__free(mem);
	elf_syms__free(fd);
	return 0;
}
