// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Which mapped file is a CPython, and where its two symbols are. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf/elf_read.h"
#include "python/py_find.h"

int py_find__version(const char *path, int *major)
{
	const char *base = strrchr(path, '/'), *p;
	char *end;
	long maj, min;

	base = base ? base + 1 : path;
	if (!strncmp(base, "lib", 3))
		base += 3;
	if (strncmp(base, "python", 6))
		return -1;
	p = base + 6;
	maj = strtol(p, &end, 10);
	if (end == p || *end != '.')
		return -1;
	p = end + 1;
	min = strtol(p, &end, 10);
	if (end == p || min < 0 || min > 99 || maj < 2 || maj > 3)
		return -1;
	/* python3.11, python3.11d, libpython3.7m.so, libpython3.12.so.1.0 */
	if (*end && *end != '.' && *end != 'd' && *end != 'm')
		return -1;
	*major = (int)maj;
	return (int)min;
}

/* The two symbols, from .dynsym or .symtab. */
static void find_symbols(Elf *elf, uint64_t fsize, struct py_elf *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *data;
	const char *name;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize || elf_read__scn_data(scn, &sh, fsize, &data))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name)
				continue;
			if (!strcmp(name, "_PyRuntime")) {
				out->runtime = sym.st_value;
			} else if (!strcmp(name, "_PyEval_EvalFrameDefault") && sym.st_size) {
				out->eval = sym.st_value;
				out->eval_size = sym.st_size;
			}
		}
		if (out->runtime && out->eval)
			return;
	}
}

/* The loadable segments, to turn a mapping's offset into a bias. */
static void find_loads(Elf *elf, struct py_elf *out)
{
	size_t phnum;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum))
		return;
	for (size_t i = 0; i < phnum && out->nloads < PY_ELF_LOADS; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		out->loads[out->nloads++] = (struct elf_load){
			.off = ph.p_offset, .filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.exec = ph.p_flags & PF_X,
		};
	}
}

int py_find__elf(int fd, struct py_elf *out)
{
	struct stat st;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	if (elf_kind(elf) == ELF_K_ELF) {
		find_symbols(elf, (uint64_t)st.st_size, out);
		find_loads(elf, out);
	}
	elf_end(elf);
	return out->runtime && out->eval && out->nloads ? 0 : -ENOENT;
}

int py_find__bias(const struct py_elf *e, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	uint64_t vaddr;

	if (elf_load__map_vaddr(e->loads, (size_t)e->nloads, pgoff, &vaddr))
		return -ENOENT;
	*bias = start - vaddr;
	return 0;
}
