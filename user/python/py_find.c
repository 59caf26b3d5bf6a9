// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Which mapped file is a CPython, and where its two symbols are. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

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
static void note_symbol(const char *name, const GElf_Sym *sym, void *ctx)
{
	struct py_elf *out = ctx;

	if (!strcmp(name, "_PyRuntime")) {
		out->runtime = sym->st_value;
	} else if (!strcmp(name, "_PyEval_EvalFrameDefault") && sym->st_size) {
		out->eval = sym->st_value;
		out->eval_size = sym->st_size;
	}
}

int py_find__elf(int fd, struct py_elf *out)
{
	uint64_t fsize;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	elf = elf_read__begin(fd, &fsize);
	if (!elf)
		return -EINVAL;
	elf_read__each_symbol(elf, fsize, note_symbol, out);
	out->nloads = (int)elf_read__loads(elf, out->loads, PY_ELF_LOADS);
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
