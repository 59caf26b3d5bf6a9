// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of vdso.c: the vDSO's unwind table from our own image. The
 * expected rule is the ABI's (at a function's first instruction the CFA
 * is rsp + 8: the return address was just pushed), the function's address
 * read from the image's dynamic symbols with libelf, not with libdw.
 */
#include <criterion/criterion.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/auxv.h>

#include "elf/elf_syms.h"
#include "leak_check.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"
#include "unwind/vdso.h"

TestSuite(vdso, .fini = check_leaks);

/* The value of the image's dynamic symbol name, or 0. */
static uint64_t dynsym(const void *base, size_t size, const char *name)
{
	Elf *e = elf_memory((char *)base, size);
	Elf_Scn *scn = NULL;
	uint64_t value = 0;
	GElf_Shdr sh;
	GElf_Sym sym;

	cr_assert_not_null(e, "the vDSO is not an ELF image");
	while ((scn = elf_nextscn(e, scn)) && !value) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getsym(d, (int)i, &sym) &&
			    strcmp(elf_strptr(e, sh.sh_link, sym.st_name), name) == 0)
				value = sym.st_value;
	}
	elf_end(e);
	return value;
}

Test(vdso, image_is_ours)
{
	const void *base;
	size_t size;

	cr_assert_eq(vdso_image(&base, &size), 0);
	cr_expect_eq((uintptr_t)base, getauxval(AT_SYSINFO_EHDR));
	cr_expect_eq(memcmp(base, ELFMAG, SELFMAG), 0);
	cr_expect(size >= 4096 && size % 4096 == 0, "size %zu", size);
}

Test(vdso, clock_gettime_has_its_entry_rule)
{
	struct unwind_table t = { 0 };
	struct elf_syms *es = NULL;
	const struct unwind_row *row;
	const void *base;
	size_t size = 0, isize;
	uint64_t fn;

	elf_version(EV_CURRENT);
	cr_assert_eq(vdso_table__build(&t, &es, &size), 0);
	cr_assert_eq(vdso_image(&base, &isize), 0);
	cr_expect_eq(size, isize);
	cr_expect_gt(t.nrows, 0);
	cr_expect_gt(t.fdes, 0);
	fn = dynsym(base, size, "__vdso_clock_gettime");
	cr_assert_neq(fn, 0, "no __vdso_clock_gettime in the vDSO");
	row = unwind_table__find(&t, fn);
	cr_assert_not_null(row, "no row at __vdso_clock_gettime (%#llx)", (unsigned long long)fn);
	cr_expect_eq(row->cfa_reg, CFA_RSP);
	cr_expect_eq(row->cfa_offset, 8);
	for (size_t i = 1; i < t.nrows; i++)
		cr_expect_lt(t.rows[i - 1].pc, t.rows[i].pc);
	unwind_table__free(&t);
	elf_syms__free(es);
}

Test(vdso, only_this_images_mapping_matches)
{
	struct vma v = { .start = 0x7000, .end = 0x9000, .path = "[vdso]" };

	cr_expect(vdso_table__matches(&v, 0x2000));
	cr_expect_not(vdso_table__matches(&v, 0x3000), "another ABI's image is another size");
	v.path = "[vvar]";
	cr_expect_not(vdso_table__matches(&v, 0x2000));
	v.path = "[vdso]";
	v.pgoff = 1;
	cr_expect_not(vdso_table__matches(&v, 0x2000));
}
