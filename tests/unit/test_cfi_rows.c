// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cfi_rows.c, which runs each FDE's CFA program once: its
 * tables equal those of the reference path (libdw asked at every address,
 * unwind_limits.reference_libdw) row for row, on the system's big files,
 * on random CFA programs (.eh_frame and .debug_frame) and their mutations;
 * hand-written CFI whose rows are known: test_cfi_rows_hand.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cfi_rows_fixture.h"

TestSuite(cfi_rows, .fini = check_leaks);

/* ---- real files ---------------------------------------------------------- */

Test(cfi_rows, libc_as_libdw)
{
	expect_same_real(LIBC_PATH, 10000);
}

Test(cfi_rows, python_as_libdw)
{
	expect_same_real("/usr/bin/python3.11", 10000);
}

Test(cfi_rows, cc1_as_libdw)
{
	expect_same_real("/usr/lib/gcc/x86_64-linux-gnu/12/cc1", 300000);
}

Test(cfi_rows, node_as_libdw)
{
	expect_same_real("/usr/bin/node", 100000);
}

/* built by make examples before the units; the second by lld */
Test(cfi_rows, examples_as_libdw)
{
	expect_same_real("build/examples/nofp_chain", 10);
	expect_same_real("build/examples/nofp_chain_lld", 10);
}

/* .debug_frame: the same interpreter, FDEs with absolute addresses. */
Test(cfi_rows, debug_frame_as_libdw, .init = setup, .fini = teardown)
{
	struct path so = path_of("prog_df.so");
	size_t off;

	run("gcc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables "
	    "-g -fPIC -shared -nostdlib '%s/prog.c' -o '%s'", tmpdir, so.s);
	cr_assert_eq(section_range(so.s, ".eh_frame", &off), 0);
	cr_assert_gt(expect_same(so.s), 5);
}

/* ---- random CFA programs ------------------------------------------------- */

/* xorshift64: reproducible noise. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The registers and operands the programs draw from: rbp, rsp, the return
 * address, and two that no row looks at. Single-byte LEB128s. */
static uint8_t any_reg(uint64_t *s)
{
	static const uint8_t regs[] = { 6, 6, 7, 7, 16, 16, 3, 10 };

	return regs[rnd(s) % sizeof(regs)];
}

static uint8_t small_sleb(uint64_t *s)
{
	return (uint8_t)(((int)(rnd(s) % 9) - 4) & 0x7f);
}

/* One DW_CFA_def_cfa_expression or DW_CFA_(val_)expression block. */
static size_t any_block(uint64_t *s, uint8_t *b)
{
	static const uint8_t plt[] = { 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };

	switch (rnd(s) % 7) {
	case 0:
		memcpy(b, plt, sizeof(plt));
		return sizeof(plt);
	case 1:			/* breg7 N, breg6 N */
		return b[0] = 2, b[1] = rnd(s) % 2 ? 0x77 : 0x76, b[2] = (uint8_t)(rnd(s) % 40), 3;
	case 2:			/* bregx reg N */
		return b[0] = 3, b[1] = 0x92, b[2] = any_reg(s), b[3] = small_sleb(s), 4;
	case 3:			/* breg7 8; deref */
		return b[0] = 3, b[1] = 0x77, b[2] = 8, b[3] = 0x06, 4;
	case 4:			/* plus_uconst N */
		return b[0] = 2, b[1] = 0x23, b[2] = (uint8_t)(rnd(s) % 4 * 8), 3;
	case 5:			/* call_frame_cfa */
		return b[0] = 1, b[1] = 0x9c, 2;
	default:		/* empty */
		return b[0] = 0, 1;
	}
}

/* Instructions on registers and the CFA. */
static size_t any_rule(uint64_t *s, uint8_t *b)
{
	uint8_t reg = any_reg(s), n = (uint8_t)(rnd(s) % 4);

	switch (rnd(s) % 18) {
	case 0: return b[0] = 0x0c, b[1] = rnd(s) % 3 ? 7 : 6, b[2] = (uint8_t)(8 * n + 8), 3;
	case 1: return b[0] = 0x12, b[1] = reg, b[2] = small_sleb(s), 3;	/* def_cfa_sf */
	case 2: return b[0] = 0x0d, b[1] = reg, 2;				/* def_cfa_register */
	case 3: return b[0] = 0x0e, b[1] = (uint8_t)(8 * n + 8), 2;		/* def_cfa_offset */
	case 4: return b[0] = 0x13, b[1] = small_sleb(s), 2;			/* ..._sf */
	case 5: return b[0] = 0x0f, any_block(s, b + 1) + 1;			/* def_cfa_expression */
	case 6: return b[0] = 0x80 | reg, b[1] = n, 2;				/* offset */
	case 7: return b[0] = 0x05, b[1] = reg, b[2] = n, 3;			/* offset_extended */
	case 8: return b[0] = 0x11, b[1] = reg, b[2] = small_sleb(s), 3;	/* ..._sf */
	case 9: return b[0] = 0x2f, b[1] = reg, b[2] = n, 3;	/* GNU_negative_offset_extended */
	case 10: return b[0] = 0xc0 | reg, 1;					/* restore */
	case 11: return b[0] = 0x06, b[1] = reg, 2;				/* restore_extended */
	case 12: return b[0] = 0x07, b[1] = reg, 2;				/* undefined */
	case 13: return b[0] = 0x08, b[1] = reg, 2;				/* same_value */
	case 14: return b[0] = 0x09, b[1] = reg, b[2] = any_reg(s), 3;		/* register */
	case 15: return b[0] = rnd(s) % 2 ? 0x14 : 0x15, b[1] = reg, b[2] = n, 3; /* val_offset */
	case 16: return b[0] = 0x10, b[1] = reg, any_block(s, b + 2) + 2;	/* expression */
	default: return b[0] = 0x16, b[1] = reg, any_block(s, b + 2) + 2;	/* val_expression */
	}
}

/* Rules a row can say, so that rows do not stay CFA_NONE: rsp + N, the
 * return address back at CFA - 8, rbp saved. */
static size_t good_rule(uint64_t *s, uint8_t *b)
{
	switch (rnd(s) % 4) {
	case 0: return b[0] = 0x0c, b[1] = 7, b[2] = (uint8_t)(rnd(s) % 6 * 8 + 8), 3;
	case 1: return b[0] = 0x90, b[1] = 1, 2;
	case 2: return b[0] = 0xd0, 1;
	default: return b[0] = 0x86, b[1] = (uint8_t)(rnd(s) % 4 + 1), 2;
	}
}

/* Anything else: locations, states, what rows ignore, what libdw refuses. */
static size_t any_insn(uint64_t *s, uint8_t *b, unsigned int *depth)
{
	switch (rnd(s) % 30) {
	case 0: return b[0] = 0x40 | (uint8_t)(rnd(s) % 4), 1;		/* advance_loc */
	case 1: return b[0] = 0x02, b[1] = (uint8_t)(rnd(s) % 3), 2;	/* advance_loc1 */
	case 2: return b[0] = 0x03, b[1] = 1, b[2] = 0, 3;		/* advance_loc2 */
	case 3: return b[0] = 0x04, b[1] = 2, b[2] = b[3] = b[4] = 0, 5;	/* advance_loc4 */
	case 4:
	case 5:
		if (*depth >= 8)
			return b[0] = 0x00, 1;
		return ++*depth, b[0] = 0x0a, 1;			/* remember_state */
	case 6:
	case 7:
		if (!*depth && rnd(s) % 4)
			return b[0] = 0x00, 1;
		if (*depth)
			--*depth;
		return b[0] = 0x0b, 1;			/* restore_state, now and then too many */
	case 8: return b[0] = 0x2e, b[1] = (uint8_t)(rnd(s) % 32), 2;	/* GNU_args_size */
	case 9: return b[0] = 0x00, 1;					/* nop */
	case 10: return rnd(s) % 8 ? (b[0] = 0x00, 1) : (b[0] = 0x2d, 1); /* GNU_window_save */
	case 11: return rnd(s) % 8 ? (b[0] = 0x00, 1) : (b[0] = 0x3f, 1); /* unknown */
	case 12: case 13: case 14: case 15: case 16: case 17:
		return good_rule(s, b);
	default: return any_rule(s, b);
	}
}

/* One function: nops, and between them random instructions. (A signal
 * frame's CIE in .debug_frame has augmentation "S", which cfi_check.c
 * refuses.) */
static void random_function(struct text *t, uint64_t *s, int i, bool debug_frame)
{
	unsigned int depth = 0;
	uint8_t b[32];
	size_t n, k;
	int steps = (int)(rnd(s) % 24);

	put(t, "	.globl f%d\n	.type f%d, @function\nf%d:\n	.cfi_startproc\n", i, i, i);
	if (i % 7 == 3 && !debug_frame)
		put(t, "	.cfi_signal_frame\n");
	if (i % 11 == 5)
		put(t, "	.cfi_personality 0x1b, pers\n	.cfi_lsda 0x1b, pers\n");
	if (i % 29 == 13)
		put(t, "	.cfi_return_column 5\n");
	for (int j = 0; j < steps; j++) {
		if (rnd(s) % 3)
			put(t, "	.fill %d, 1, 0x90\n", (int)(rnd(s) % 3) + 1);
		n = any_insn(s, b, &depth);
		put(t, "	.cfi_escape 0x%02x", b[0]);
		for (k = 1; k < n; k++)
			put(t, ", 0x%02x", b[k]);
		put(t, "\n");
	}
	put(t, "	nop\n	.cfi_endproc\n	.size f%d, .-f%d\n", i, i);
}

/* A shared object of random CFA programs (.debug_frame only, or not). */
static struct path random_cfi(uint64_t seed, bool debug_frame)
{
	struct path src = path_of("random.s"), so = path_of(debug_frame ? "random_df.so" : "random.so");
	struct text t = { 0 };
	uint64_t s = seed;

	put(&t, "%s	.text\npers:\n	nop\n", debug_frame ? "	.cfi_sections .debug_frame\n" : "");
	for (int i = 0; i < 300; i++)
		random_function(&t, &s, i, debug_frame);
	write_file(src.s, t.s, t.len);
	free(t.s);
	run("gcc -shared -nostdlib '%s' -o '%s'", src.s, so.s);
	return so;
}

Test(cfi_rows, random_programs_as_libdw, .init = setup, .fini = teardown)
{
	size_t rows = 0;

	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct path so = random_cfi(seed * 0x9e3779b97f4a7c15ull, seed % 3 == 0);

		size_t n = expect_same(so.s);

		cr_log_info("seed %llu%s: %zu rows", (unsigned long long)seed,
			    seed % 3 == 0 ? " (.debug_frame)" : "", n);
		rows += n;
	}
	cr_log_info("random programs: %zu rows, as libdw's", rows);
	cr_expect_gt(rows, 5000);
}

/* The FDEs' instructions of a gas-made .eh_frame: bytes past each FDE's
 * header (length, CIE pointer, pcrel sdata4 range, augmentation data). */
static size_t fde_insn_bytes(const unsigned char *eh, size_t size, size_t *pos, size_t max)
{
	size_t off = 0, n = 0;
	uint32_t len, id;

	while (off + 8 <= size) {
		memcpy(&len, eh + off, 4);
		memcpy(&id, eh + off + 4, 4);
		if (!len || len > size - off - 4)
			break;
		if (id && len > 13)
			for (size_t p = off + 17 + eh[off + 16]; p < off + 4 + len && n < max; p++)
				pos[n++] = p;
		off += 4 + len;
	}
	return n;
}

/* Random programs with flipped bits in their FDEs' instructions (their
 * ranges kept: libdw finds an FDE by address, so overlapping ones would
 * not be compared): the same table, or the same error. */
Test(cfi_rows, mutated_programs_as_libdw, .init = setup, .fini = teardown)
{
	struct path so = random_cfi(77, false);
	size_t len, eh_off, eh_size, npos;
	unsigned char *orig, *b;
	static size_t pos[1 << 16];
	uint64_t s = 99;
	char what[64];
	int fd, built = 0;

	orig = read_file(so.s, &len);
	eh_size = section_range(so.s, ".eh_frame", &eh_off);
	cr_assert_gt(eh_size, 0);
	npos = fde_insn_bytes(orig + eh_off, eh_size, pos, sizeof(pos) / sizeof(pos[0]));
	cr_assert_gt(npos, 1000);
	b = malloc(len);
	cr_assert_not_null(b);
	fd = memfd_create("mutated", MFD_CLOEXEC);
	cr_assert_geq(fd, 0);
	for (int iter = 0; iter < 300; iter++) {
		memcpy(b, orig, len);
		for (int k = 1 + (int)(rnd(&s) % 8); k > 0; k--) {
			uint64_t r = rnd(&s);

			b[eh_off + pos[r % npos]] ^= (unsigned char)(1u << (r >> 32) % 8);
		}
		cr_assert_eq(pwrite(fd, b, len, 0), (ssize_t)len);
		snprintf(what, sizeof(what), "mutation %d", iter);
		built += expect_same_fd(fd, what, true) > 0;
	}
	cr_log_info("%d of 300 mutations built, as libdw's", built);
	cr_expect_gt(built, 100);
	cr_assert_eq(close(fd), 0);
	free(b);
	free(orig);
}

