// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of elf_syms: binaries are built with gcc at run time, and what
 * elf_syms answers is checked against nm, readelf and an independent
 * loader-style reading of the program headers. Bad input (not ELF,
 * truncated, inconsistent, mutated) is in test_elf_syms_bad.c; where the
 * file lies in memory (mappings, the vDSO, build-ids, layout, PLT) in
 * test_elf_syms_layout.c.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "elf/elf_syms.h"
#include "elf_syms_fixture.h"

TestSuite(elf_syms, .init = setup, .fini = teardown);

Test(elf_syms, pie)
{
	check_binary(build("pie", PIE_FLAGS).s, false);
}

Test(elf_syms, non_pie)
{
	check_binary(build("nopie", NOPIE_FLAGS).s, false);
}

Test(elf_syms, shared_lib)
{
	check_binary(build("lib.so", LIB_FLAGS).s, false);
}

Test(elf_syms, stripped_pie_uses_dynsym)
{
	check_binary(build_stripped("pie", PIE_FLAGS " -rdynamic").s, true);
}

Test(elf_syms, stripped_non_pie_uses_dynsym)
{
	check_binary(build_stripped("nopie", NOPIE_FLAGS " -rdynamic").s, true);
}

Test(elf_syms, stripped_shared_lib_uses_dynsym)
{
	check_binary(build_stripped("lib.so", LIB_FLAGS).s, true);
}

/* alias and canonical share an address (so the test means something), and
 * the canonical name is what lookups report. */
static void expect_alias(const struct elf_syms *es, const char *path, bool dynamic,
			 const char *alias, const char *canonical)
{
	struct nm_sym a = nm_find(path, dynamic, alias), c = nm_find(path, dynamic, canonical);

	cr_assert(a.found && c.found && a.addr == c.addr, "%s: %s is no alias of %s", path,
		  alias, canonical);
	cr_assert_str_eq(elf_syms__lookup_vaddr(es, a.addr, NULL), canonical);
}

Test(elf_syms, alias_rule)
{
	struct path full = build("pie", PIE_FLAGS " -rdynamic");
	struct path stripped = strip_copy(full.s, "pie.stripped");
	struct elf_syms *es = open_path(full.s);

	expect_alias(es, full.s, false, "o", "outer");			/* LOCAL */
	expect_alias(es, full.s, false, "mid", "middle");		/* WEAK */
	expect_alias(es, full.s, false, "__hot_leaf_alias", "hot_leaf");	/* underscores */
	elf_syms__free(es);
	es = open_path(stripped.s);
	expect_alias(es, stripped.s, true, "mid", "middle");
	expect_alias(es, stripped.s, true, "__hot_leaf_alias", "hot_leaf");
	elf_syms__free(es);
}
