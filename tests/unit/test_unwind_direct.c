// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of the unwind table's rows merged as they are made (no raw
 * rows): the same table, row for row and counter for counter, as rows
 * sorted and merged after (unwind_limits.raw_rows), on the system's own
 * programs and on FDEs that overlap (built again through raw rows). */
#include "unwind_table_fixture.h"

TestSuite(unwind_direct, .fini = check_leaks);

static int build_with(const char *path, struct unwind_table *t, bool raw_rows)
{
	const struct unwind_limits lim = { .raw_rows = raw_rows };
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	err = unwind_table__build_limited(fd, t, &lim);
	close(fd);
	return err;
}

/* path's table both ways: the same; whether the direct one was retried. */
static bool expect_same_table(const char *path)
{
	struct unwind_table direct, raw;
	bool retried;

	cr_assert_eq(build_with(path, &direct, false), 0, "%s", path);
	cr_assert_eq(build_with(path, &raw, true), 0, "%s", path);
	cr_assert_gt(raw.nrows, 0, "%s: no rows", path);
	cr_expect_eq(direct.nrows, raw.nrows, "%s: %zu rows, %zu through raw rows", path,
		     direct.nrows, raw.nrows);
	for (size_t i = 0; i < direct.nrows && i < raw.nrows; i++)
		cr_assert(!memcmp(&direct.rows[i], &raw.rows[i], sizeof(raw.rows[i])),
			  "%s: row %zu at 0x%" PRIx64 " differs", path, i, raw.rows[i].pc);
	cr_expect_eq(direct.unsupported, raw.unsupported, "%s", path);
	cr_expect_eq(direct.fdes, raw.fdes, "%s", path);
	cr_expect_eq(direct.fdes_without_fp, raw.fdes_without_fp, "%s", path);
	cr_expect(!raw.direct_retried);
	retried = direct.direct_retried;
	cr_log_info("%s: %zu rows, %s", path, raw.nrows, retried ? "retried" : "direct");
	unwind_table__free(&direct);
	unwind_table__free(&raw);
	return retried;
}

/* The programs a one-shot run of a build and a Python script tables:
 * libc and ld.so (FDEs end where the next one starts), python3 and cc1
 * (tens of thousands of FDEs; cc1's 700,000 rows were the peak). */
Test(unwind_direct, system_programs_as_through_raw_rows)
{
	static const char *const files[] = {
		LIBC_PATH, "/lib64/ld-linux-x86-64.so.2", "/usr/bin/python3.11",
		"/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
	};
	size_t tried = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (access(files[i], R_OK))
			continue;
		tried++;
		/* none of these has FDEs that overlap: merged as they come */
		cr_expect(!expect_same_table(files[i]), "%s was retried", files[i]);
	}
	cr_assert_geq(tried, 2, "libc and ld.so at least");
}

/* Two FDEs over the same bytes, the second starting inside the first (a
 * hand-written .eh_frame: gas will not nest .cfi_startproc): out of order
 * for the direct merge, built again through raw rows, the same table. */
Test(unwind_direct, overlapping_fdes_built_through_raw_rows, .init = setup, .fini = teardown)
{
	struct path s = path_of("overlap.s"), so = path_of("overlap.so");
	static const char src[] =
		"	.text\n	.globl f\n	.type f, @function\nf:\n.Lf:\n"
		"	.fill 32, 1, 0x90\n	.size f, 32\n"
		"	.section .eh_frame,\"a\",@progbits\n"
		"cie:	.long cie_end - cie_id\n"
		"cie_id:	.long 0\n	.byte 1\n	.string \"zR\"\n"
		"	.uleb128 1\n	.sleb128 -8\n	.uleb128 16\n"
		"	.uleb128 1\n	.byte 0x1b\n"		/* pcrel, sdata4 */
		"	.byte 0x0c, 7, 8\n	.byte 0x90, 1\n"	/* cfa rsp+8, ra at cfa-8 */
		"	.balign 8, 0\ncie_end:\n"
		"fde1:	.long fde1_end - fde1_id\n"
		"fde1_id:	.long fde1_id - cie\n	.long .Lf - .\n	.long 24\n"
		"	.uleb128 0\n	.byte 0x44, 0x0e, 16\n"	/* at +4: cfa rsp+16 */
		"	.balign 8, 0\nfde1_end:\n"
		"fde2:	.long fde2_end - fde2_id\n"
		"fde2_id:	.long fde2_id - cie\n	.long .Lf + 8 - .\n	.long 24\n"
		"	.uleb128 0\n	.byte 0x42, 0x0e, 24\n"	/* at +2: cfa rsp+24 */
		"	.balign 8, 0\nfde2_end:\n"
		"	.long 0\n";

	write_file(s.s, src, sizeof(src) - 1);
	run("gcc -shared -nostdlib -Wl,--no-eh-frame-hdr '%s' -o '%s'", s.s, so.s);
	cr_expect(expect_same_table(so.s), "overlapping FDEs were merged as they came");
}
