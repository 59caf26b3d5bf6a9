// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Which mapped file is a HotSpot's libjvm.so, and where its vmStructs
 * symbols are in the process (hs_find.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_read.h"
#include "hotspot/hs_find.h"
#include "procs/mapped_file.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"

#define MAX_LOADS	8
#define PAGE		4096u
#define JVM_FILE	"libjvm.so"

struct sym_want {
	const char *name;
	size_t at;		/* offsetof in struct hs_syms */
};

#define SYM(n, m)	{ "gHotSpotVM" n, offsetof(struct hs_syms, m) }

static const struct sym_want syms[] = {
	SYM("Structs", structs),
	SYM("StructEntryArrayStride", struct_stride),
	SYM("StructEntryTypeNameOffset", struct_type),
	SYM("StructEntryFieldNameOffset", struct_field),
	SYM("StructEntryIsStaticOffset", struct_static),
	SYM("StructEntryOffsetOffset", struct_offset),
	SYM("StructEntryAddressOffset", struct_address),
	SYM("Types", types),
	SYM("TypeEntryArrayStride", type_stride),
	SYM("TypeEntryTypeNameOffset", type_name),
	SYM("TypeEntrySizeOffset", type_size),
	SYM("IntConstants", ints),
	SYM("IntConstantEntryArrayStride", int_stride),
	SYM("IntConstantEntryNameOffset", int_name),
	SYM("IntConstantEntryValueOffset", int_value),
	SYM("LongConstants", longs),
	SYM("LongConstantEntryArrayStride", long_stride),
	SYM("LongConstantEntryNameOffset", long_name),
	SYM("LongConstantEntryValueOffset", long_value),
};
#define NSYMS	(sizeof(syms) / sizeof(syms[0]))

static uint64_t *sym_slot(struct hs_syms *s, size_t i)
{
	return (uint64_t *)((char *)s + syms[i].at);
}

static void note_symbol(const char *name, const GElf_Sym *sym, void *ctx)
{
	if (strncmp(name, "gHotSpotVM", 10))
		return;
	for (size_t i = 0; i < NSYMS; i++)
		if (!strcmp(name, syms[i].name))
			*sym_slot(ctx, i) = sym->st_value;
}

int hs_find__elf(int fd, uint64_t pgoff, struct hs_syms *out, uint64_t *vaddr)
{
	struct elf_load loads[MAX_LOADS];
	size_t nloads;
	uint64_t fsize;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	elf = elf_read__begin(fd, &fsize);
	if (!elf)
		return -EINVAL;
	elf_read__each_symbol(elf, fsize, note_symbol, out);
	nloads = elf_read__loads(elf, loads, MAX_LOADS);
	elf_end(elf);
	for (size_t i = 0; i < NSYMS; i++)
		if (!*sym_slot(out, i))
			return -ENOENT;
	return elf_load__map_vaddr(loads, nloads, pgoff, vaddr);
}

bool hs_find__is_jvm(const char *path)
{
	const char *base = strrchr(path, '/');

	return base && !strcmp(base + 1, JVM_FILE);
}

int hs_find__mapped(pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff, struct hs_syms *out)
{
	struct vma v = { .start = start, .end = end, .pgoff = pgoff };
	uint64_t vaddr;
	int fd = mapped_file__open_mapped(pid, &v), err;

	if (fd < 0)
		return fd;
	err = hs_find__elf(fd, pgoff, out, &vaddr);
	close(fd);
	for (size_t i = 0; !err && i < NSYMS; i++)
		*sym_slot(out, i) += start - vaddr;
	return err;
}

struct jvm_scan {
	pid_t pid;
	struct hs_syms *syms;
	int err;
};

/* The first executable mapping of a libjvm.so. */
static int scan_line(const struct maps_line *ml, void *ctx)
{
	struct jvm_scan *s = ctx;

	if (!hs_find__is_jvm(ml->path))
		return 0;
	s->err = hs_find__mapped(s->pid, ml->start, ml->end, ml->pgoff, s->syms);
	return 1;
}

int hs_find__proc(pid_t pid, struct hs_syms *out)
{
	struct jvm_scan s = { .pid = pid, .syms = out, .err = -ENOENT };
	int err = maps_for_each_exec(pid, scan_line, &s);

	return err < 0 ? err : s.err;
}

int hs_find__read_cstr(hs_read_fn rd, void *arg, uint64_t addr, char name[HS_NAME_MAX])
{
	size_t got = 0;

	if (!addr)
		return -ENOENT;
	while (got < HS_NAME_MAX) {
		size_t n = PAGE - (size_t)((addr + got) % PAGE);
		int err;

		if (n > HS_NAME_MAX - got)
			n = HS_NAME_MAX - got;
		err = rd(arg, addr + got, name + got, n);
		if (err)
			return err;
		if (memchr(name + got, '\0', n))
			return 0;
		got += n;
	}
	return -ENAMETOOLONG;
}
