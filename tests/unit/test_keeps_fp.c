// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of keeps_fp.c: which functions, and so which files, keep
 * frame pointers (--call-graph auto walks those by frame pointers): hand-made
 * rows, and programs built with gcc at run time.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/keeps_fp.h"
#include "unwind_table_fixture.h"

TestSuite(keeps_fp, .fini = check_leaks);

/* ---- hand-made rows ------------------------------------------------------ */

static bool keeps(const struct unwind_row *rows, size_t n, uint64_t start, uint64_t size,
		  const struct plt_ranges *plts)
{
	struct fp_shape shape = { 0 };

	for (size_t i = 0; i < n; i++)
		fp_shape__add(&shape, &rows[i]);
	return fp_shape__keeps(&shape, plts, start, size);
}

#define ROWS(...)	(const struct unwind_row[]){ __VA_ARGS__ }, \
			sizeof((const struct unwind_row[]){ __VA_ARGS__ }) / sizeof(struct unwind_row)

Test(keeps_fp, shapes_of_hand_made_rows)
{
	const struct unwind_row entry = { .cfa_reg = CFA_RSP, .cfa_offset = 8, .rbp_offset = RBP_SAME };
	const struct unwind_row pushed = { .cfa_reg = CFA_RSP, .cfa_offset = 16, .rbp_offset = -16 };
	const struct unwind_row body = { .cfa_reg = CFA_RBP, .cfa_offset = 16, .rbp_offset = -16 };
	const struct unwind_row sub = { .cfa_reg = CFA_RSP, .cfa_offset = 24, .rbp_offset = RBP_SAME };
	const struct unwind_row none = { .cfa_reg = CFA_NONE };
	const struct unwind_row end = { .cfa_reg = CFA_END };
	const struct plt_ranges no_plt = { 0 }, plt = { .r = { { 0x1000, 0x1100 } }, .n = 1 };

	cr_expect(keeps(ROWS(entry, pushed, body, entry), 0x2000, 64, &no_plt), "framed");
	cr_expect_not(keeps(ROWS(entry, pushed, body, sub), 0x2000, 64, &no_plt),
		      "framed, then rsp moved past the push");
	cr_expect_not(keeps(ROWS(entry, pushed, body, none), 0x2000, 64, &no_plt),
		      "a rule out of reach");
	cr_expect_not(keeps(ROWS(entry, sub, entry), 0x2000, 64, &no_plt), "frameless");
	cr_expect(keeps(ROWS(entry), 0x2000, 16, &no_plt), "16 bytes that never move rsp");
	cr_expect_not(keeps(ROWS(entry), 0x2000, 17, &no_plt), "17 bytes");
	cr_expect_not(keeps(ROWS(entry, sub), 0x2000, 8, &no_plt), "tiny, but moves rsp");
	cr_expect(keeps(ROWS(entry, sub), 0x1010, 32, &plt), "rsp-based in .plt");
	cr_expect_not(keeps(ROWS(entry, sub), 0x1100, 32, &plt), "just past .plt");
	cr_expect(keeps(ROWS(end, none), 0x2000, 64, &no_plt), "the outermost frame");
}

/* ---- built programs ------------------------------------------------------ */

static bool keeps_fp(const char *path)
{
	struct unwind_table t;
	bool fp;

	cr_assert_eq(build_table(path, &t), 0, "%s", path);
	fp = unwind_table__keeps_fp(&t);
	cr_log_info("%s: %zu FDEs, %zu without a frame pointer", path, t.fdes, t.fdes_without_fp);
	unwind_table__free(&t);
	return fp;
}

/* The same program built with frame pointers everywhere (leaves too) and
 * without: only the first may be walked by frame pointers. */
Test(keeps_fp, frame_pointer_builds_are_told_apart, .init = setup, .fini = teardown)
{
	struct path fp = path_of("prog_fp"), nofp = path_of("prog_nofp");

	run("gcc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer '%s/prog.c' -o '%s'",
	    tmpdir, fp.s);
	run("gcc -O2 -fomit-frame-pointer '%s/prog.c' -o '%s'", tmpdir, nofp.s);
	cr_expect(keeps_fp(fp.s), "-fno-omit-frame-pointer: keeps them");
	cr_expect_not(keeps_fp(nofp.s), "-fomit-frame-pointer: does not");
}

/* A frame-pointer build's leaf compiled without one (gcc 12 drops the
 * frame of a leaf that uses no stack, -mno-omit-leaf-frame-pointer or not)
 * is enough to refuse: a frame-pointer step from it skips its caller. */
Test(keeps_fp, one_frameless_function_is_enough, .init = setup, .fini = teardown)
{
	static const char leaf_src[] =
		"__attribute__((noipa)) unsigned long spin(unsigned long n)\n"
		"{\n"
		"	unsigned long x = 1;\n"
		"#ifdef FORCE_FRAME\n"	/* gcc 12 drops a leaf's frame otherwise */
		"	__asm__ volatile(\"\" : : \"r\"(__builtin_frame_address(0)));\n"
		"#endif\n"
		"	for (unsigned long i = 0; i < n; i++)\n"
		"		x = x * 6364136223846793005ul + i;\n"
		"	return x;\n"
		"}\n"
		"int main(int argc, char **argv)\n"
		"{\n"
		"	(void)argv;\n"
		"	return (int)spin((unsigned long)argc);\n"
		"}\n";
	struct path src = path_of("leaf.c"), fp = path_of("leaf_fp"), out = path_of("leaf_nofp");

	write_file(src.s, leaf_src, strlen(leaf_src));
	run("gcc -O2 -DFORCE_FRAME -fno-omit-frame-pointer '%s' -o '%s'", src.s, fp.s);
	run("gcc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer '%s' -o '%s'", src.s, out.s);
	cr_expect(keeps_fp(fp.s), "spin() with its frame");
	cr_expect_not(keeps_fp(out.s), "the frameless leaf spin()");
}

/* Debian builds without frame pointers. */
Test(keeps_fp, debian_files_are_not_frame_pointer_builds)
{
	cr_expect_not(keeps_fp(LIBC_PATH));
	cr_expect_not(keeps_fp("/usr/bin/python3.11"));
	cr_expect_not(keeps_fp("/usr/bin/gzip"));
}

