// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of unwind_table.c (and cfi_check.c) on bad input: builds over
 * their limits, CFI libdw must never run, what is not ELF, truncated or
 * for another machine, mutated images. Each is refused with its errno, or
 * builds a well-formed table; nothing crashes (ASan watches).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "unwind_table_fixture.h"

TestSuite(unwind_table_bad, .fini = check_leaks);

/* ---- limits -------------------------------------------------------------- */

/* An FDE of 40000 rows: libdw (the reference path) replays its program
 * for each (minutes of work), and the time budget stops it; cfi_rows.c
 * runs it once. */
Test(unwind_table_bad, quadratic_fde_is_bounded, .init = setup, .fini = teardown)
{
	static const char big_src[] =
		"	.text\n"
		"	.globl f_big\n"
		"	.type f_big, @function\n"
		"f_big:\n"
		"	.cfi_startproc\n"
		"	.rept 20000\n"
		"	nop\n"
		"	.cfi_adjust_cfa_offset 8\n"
		"	nop\n"
		"	.cfi_adjust_cfa_offset -8\n"
		"	.endr\n"
		"	ret\n"
		"	.cfi_endproc\n"
		"	.size f_big, .-f_big\n";
	struct path s = path_of("big.s"), so = path_of("big.so");
	struct unwind_table t;
	struct timespec t0, t1;
	double secs;

	write_file(s.s, big_src, strlen(big_src));
	run("gcc -shared -nostdlib '%s' -o '%s'", s.s, so.s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_limited_error(so.s, &(struct unwind_limits){ .max_seconds = 1, .reference_libdw = true },
			     -ETIME);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_expect_lt(secs, 3.0, "%.2f s", secs);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(build_table(so.s, &t), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_expect_gt(t.nrows, 40000, "%zu rows", t.nrows);
	cr_expect_lt(secs, 1.0, "%.2f s", secs);
	unwind_table__free(&t);
}

/* Another thread's cancel stops a build at once, whatever it is doing. */
Test(unwind_table_bad, build_is_cancelled, .init = setup, .fini = teardown)
{
	atomic_bool cancel = true;

	expect_limited_error(LIBC_PATH, &(struct unwind_limits){ .cancel = &cancel }, -ECANCELED);
}

/* An FDE bigger than any real one (300 KB of DW_CFA_GNU_args_size; gas
 * drops nops) is refused before any of it runs. */
Test(unwind_table_bad, huge_fde_is_refused, .init = setup, .fini = teardown)
{
	static const char huge_src[] =
		"	.text\n	.globl f\n	.type f, @function\nf:\n	.cfi_startproc\n"
		"	nop\n	.rept 150000\n	.cfi_escape 0x2e, 0\n	.endr\n	ret\n"
		"	.cfi_endproc\n	.size f, .-f\n";
	struct path s = path_of("huge.s"), so = path_of("huge.so");

	write_file(s.s, huge_src, strlen(huge_src));
	run("gcc -shared -nostdlib '%s' -o '%s'", s.s, so.s);
	expect_build_error(so.s, -E2BIG);
}

/* ---- CFI that libdw must not run ----------------------------------------- */

/* Run by libdw, these would make it allocate gigabytes: a frame sized by
 * the highest register named, copied at each remember_state. */
static void expect_refused_cfi(const char *name, const char *body)
{
	struct path s = path_of("refused.s"), so = path_of("refused.so");
	char src[4096];
	int n;

	n = snprintf(src, sizeof(src),
		     "	.text\n	.globl f\n	.type f, @function\nf:\n"
		     "	.cfi_startproc\n	nop\n%s	nop\n	.cfi_endproc\n"
		     "	.size f, .-f\n", body);
	cr_assert(n > 0 && (size_t)n < sizeof(src));
	write_file(s.s, src, (size_t)n);
	run("gcc -shared -nostdlib '%s' -o '%s'", s.s, so.s);
	cr_log_info("%s", name);
	expect_build_error(so.s, -EINVAL);
}

Test(unwind_table_bad, cfi_that_would_exhaust_libdw_is_refused, .init = setup, .fini = teardown)
{
	char body[2048] = "";

	expect_refused_cfi("register 130000000", "	.cfi_offset 130000000, -16\n");
	expect_refused_cfi("register 256", "	.cfi_undefined 256\n");
	for (int i = 0; i < 65; i++)
		strcat(body, "	.cfi_remember_state\n");
	expect_refused_cfi("remember_state 65 deep", body);
}

/* .eh_frame_hdr's table is what libdw searches: an entry that does not
 * name one of the FDEs (whose instructions were checked) is refused. */
Test(unwind_table_bad, eh_frame_hdr_table_is_checked, .init = setup, .fini = teardown)
{
	struct path prog = build_prog(), bad = path_of("bad_hdr");
	size_t len, off, size;
	unsigned char *b;
	int32_t fde;

	b = read_file(prog.s, &len);
	size = section_range(prog.s, ".eh_frame_hdr", &off);
	/* version 1, pcrel sdata4 pointer, udata4 count, datarel sdata4 table */
	cr_assert_geq(size, 20);
	cr_assert(b[off] == 1 && b[off + 1] == 0x1b && b[off + 2] == 0x03 && b[off + 3] == 0x3b);

	/* The first entry's FDE pointer, 4 bytes into that FDE. */
	memcpy(&fde, b + off + 16, sizeof(fde));
	fde += 4;
	memcpy(b + off + 16, &fde, sizeof(fde));
	write_file(bad.s, b, len);
	expect_build_error(bad.s, -EINVAL);
	fde -= 4;
	memcpy(b + off + 16, &fde, sizeof(fde));

	/* A count beyond the section. */
	b[off + 11] = 0x7f;
	write_file(bad.s, b, len);
	expect_build_error(bad.s, -EINVAL);
	free(b);
}

/* ---- bad files ----------------------------------------------------------- */

Test(unwind_table_bad, not_elf, .init = setup, .fini = teardown)
{
	struct path txt = path_of("text"), empty = path_of("empty");

	write_file(txt.s, "hello, world\n", 13);
	write_file(empty.s, "", 0);
	expect_build_error(txt.s, -ENOEXEC);
	expect_build_error(empty.s, -ENOEXEC);
	expect_build_error(tmpdir, -ENOEXEC);
	expect_build_error(path_of("prog.c").s, -ENOEXEC);
}

Test(unwind_table_bad, elf_without_cfi, .init = setup, .fini = teardown)
{
	struct path o = path_of("prog.o");

	run("gcc -O2 -c -fno-asynchronous-unwind-tables -fno-unwind-tables '%s/prog.c' -o '%s'",
	    tmpdir, o.s);
	expect_build_error(o.s, -ENOENT);
}

/* The rows speak x86-64's registers: another machine's file is refused. */
Test(unwind_table_bad, other_machine, .init = setup, .fini = teardown)
{
	struct path prog = build_prog(), arm = path_of("arm");
	static const unsigned char em_aarch64[2] = { 183, 0 };
	unsigned char *b;
	size_t len;

	b = read_file(prog.s, &len);
	cr_assert_gt(len, 20);
	memcpy(b + 18, em_aarch64, sizeof(em_aarch64));	/* e_machine */
	write_file(arm.s, b, len);
	free(b);
	expect_build_error(arm.s, -ENOEXEC);
}

Test(unwind_table_bad, truncated_elf_is_invalid, .init = setup, .fini = teardown)
{
	struct path prog = build_prog(), cut = path_of("cut");
	unsigned char *b;
	size_t len;

	b = read_file(prog.s, &len);
	/* The ELF header only; then all but the section headers' last bytes. */
	write_file(cut.s, b, 100);
	expect_build_error(cut.s, -EINVAL);
	write_file(cut.s, b, len - 16);
	expect_build_error(cut.s, -EINVAL);
	free(b);
}

Test(unwind_table_bad, bad_fd)
{
	struct unwind_table t;

	cr_expect_eq(unwind_table__build(-1, &t), -EBADF);
	cr_expect_null(t.rows);
	cr_expect_eq(t.nrows, 0);
	unwind_table__free(&t);
}

/* xorshift64: reproducible noise. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Flipped bits in .eh_frame, .eh_frame_hdr and anywhere: whatever comes
 * back is a documented error or a well-formed table; ASan watches. */
Test(unwind_table_bad, mutated_cfi_does_not_crash, .init = setup, .fini = teardown)
{
	struct path prog = build_prog();
	size_t len, eh_off, eh_size, hdr_off, hdr_size, built = 0;
	unsigned char *orig, *b;
	uint64_t seed = 42;
	int fd;

	orig = read_file(prog.s, &len);
	eh_size = section_range(prog.s, ".eh_frame", &eh_off);
	hdr_size = section_range(prog.s, ".eh_frame_hdr", &hdr_off);
	cr_assert(eh_size && hdr_size);
	b = malloc(len);
	cr_assert_not_null(b);
	fd = memfd_create("mutated", MFD_CLOEXEC);
	cr_assert_geq(fd, 0);
	for (int iter = 0; iter < 3000; iter++) {
		struct unwind_table t;
		int err;

		memcpy(b, orig, len);
		for (int k = 1 + (int)(rnd(&seed) % 6); k > 0; k--) {
			uint64_t r = rnd(&seed);
			size_t pos = r % 4 == 0 ? hdr_off + r % hdr_size :
				     r % 4 == 3 ? r % len : eh_off + r % eh_size;

			b[pos] ^= (unsigned char)(1u << (r >> 32) % 8);
		}
		cr_assert_eq(pwrite(fd, b, len, 0), (ssize_t)len);
		err = unwind_table__build(fd, &t);
		cr_assert(err == 0 || err == -EINVAL || err == -ENOENT || err == -ENOEXEC ||
			  err == -ENOMEM, "iteration %d: %d", iter, err);
		if (!err) {
			built++;
			check_invariants(&t);
			for (uint64_t pc = 0; pc < 0x2000; pc += 7)
				unwind_table__find(&t, pc);
		}
		unwind_table__free(&t);
	}
	cr_assert_gt(built, 0);
	cr_assert_eq(close(fd), 0);
	free(b);
	free(orig);
}

