// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of cfi_rows.c, which runs each FDE's CFA program once: its
 * tables equal those of the reference path (libdw asked at every address,
 * unwind_limits.reference_libdw) row for row, on the system's big files,
 * on random CFA programs (.eh_frame and .debug_frame) and their mutations,
 * and on hand-written CFI whose rows are known.
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

#include "unwind_table_fixture.h"

TestSuite(cfi_rows, .fini = check_leaks);

/* ---- both ways ----------------------------------------------------------- */

static int build_fd(int fd, bool reference, struct unwind_table *t)
{
	struct unwind_limits lim = { .max_seconds = 120, .reference_libdw = reference };

	return unwind_table__build_limited(fd, t, &lim);
}

static void expect_same_row(const struct unwind_row *a, const struct unwind_row *b,
			    const char *what, size_t i, size_t na, size_t nb)
{
	cr_expect(a && b && !memcmp(a, b, sizeof(*a)),
		  "%s: %zu rows, libdw %zu; first difference, row %zu: pc 0x%llx reg %d off %d "
		  "rbp %d, libdw pc 0x%llx reg %d off %d rbp %d", what, na, nb, i,
		  a ? (unsigned long long)a->pc : 0, a ? a->cfa_reg : -1, a ? a->cfa_offset : 0,
		  a ? a->rbp_offset : 0, b ? (unsigned long long)b->pc : 0, b ? b->cfa_reg : -1,
		  b ? b->cfa_offset : 0, b ? b->rbp_offset : 0);
}

/* The same rows, the same counts. */
static void expect_same_tables(const struct unwind_table *ours, const struct unwind_table *ref,
			       const char *what)
{
	size_t i;

	for (i = 0; i < ours->nrows && i < ref->nrows; i++)
		if (memcmp(&ours->rows[i], &ref->rows[i], sizeof(ours->rows[i])))
			break;
	if (i < ours->nrows || i < ref->nrows)
		expect_same_row(i < ours->nrows ? &ours->rows[i] : NULL,
				i < ref->nrows ? &ref->rows[i] : NULL, what, i, ours->nrows,
				ref->nrows);
	cr_expect_eq(ours->unsupported, ref->unsupported, "%s: unsupported %zu, libdw %zu",
		     what, ours->unsupported, ref->unsupported);
	cr_expect_eq(ours->fdes, ref->fdes);
	cr_expect_eq(ours->fdes_without_fp, ref->fdes_without_fp);
}

/* libdw reads a LEB128 cut short by the end of its expression as
 * UINT64_MAX, e.g. DW_CFA_expression rbp, {DW_OP_plus_uconst 0x80}: rbp
 * "saved at CFA - 1". cfi_rows.c takes that as out of reach. */
static bool libdw_misread(const struct unwind_row *ours, const struct unwind_row *ref)
{
	return ours && ref && ours->cfa_reg == CFA_NONE && ref->rbp_offset == -1;
}

/* The rule at every row's pc of either table is the same, or one libdw
 * misread. Returns how many were. */
static size_t expect_same_rules(const struct unwind_table *ours, const struct unwind_table *ref,
				const char *what)
{
	const struct unwind_table *t[2] = { ours, ref };
	size_t misread = 0;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < t[k]->nrows; i++) {
			uint64_t pc = t[k]->rows[i].pc;
			const struct unwind_row *a = unwind_table__find(ours, pc);
			const struct unwind_row *b = unwind_table__find(ref, pc);

			if (libdw_misread(a, b)) {
				misread++;
				continue;
			}
			cr_assert(a && b && a->cfa_reg == b->cfa_reg && a->cfa_offset == b->cfa_offset &&
				  a->rbp_offset == b->rbp_offset,
				  "%s at 0x%llx: reg %d off %d rbp %d, libdw reg %d off %d rbp %d", what,
				  (unsigned long long)pc, a ? a->cfa_reg : -1, a ? a->cfa_offset : 0,
				  a ? a->rbp_offset : 0, b ? b->cfa_reg : -1, b ? b->cfa_offset : 0,
				  b ? b->rbp_offset : 0);
		}
	return misread;
}

/* The table built by cfi_rows.c equals libdw's: the same error, or the
 * same rows and counts (tolerant: the same rules, bar libdw's misreads).
 * Returns the rows. */
static size_t expect_same_fd(int fd, const char *what, bool tolerant)
{
	struct unwind_table ours, ref;
	int err = build_fd(fd, false, &ours), err_ref = build_fd(fd, true, &ref);
	size_t n = ours.nrows, misread;

	cr_assert_eq(err, err_ref, "%s: %d, libdw %d", what, err, err_ref);
	if (err)
		cr_log_info("%s: refused both ways: %s", what, strerror(-err));
	else
		check_invariants(&ours);
	misread = !err && tolerant ? expect_same_rules(&ours, &ref, what) : 0;
	if (misread)
		cr_log_info("%s: %zu rows libdw misread", what, misread);
	else if (!err)
		expect_same_tables(&ours, &ref, what);
	unwind_table__free(&ours);
	unwind_table__free(&ref);
	return n;
}

static size_t expect_same(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	n = expect_same_fd(fd, path, false);
	cr_assert_eq(close(fd), 0);
	return n;
}

static void expect_same_real(const char *path, size_t min_rows)
{
	size_t n;

	if (access(path, R_OK))
		cr_skip_test("no %s here", path);
	n = expect_same(path);
	cr_log_info("%s: %zu rows, as libdw's", path, n);
	cr_expect_geq(n, min_rows, "%s: %zu rows", path, n);
}

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

struct text {
	char *s;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		cr_assert_geq(n, 0);
		if ((size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + (size_t)n + 256;
		t->s = realloc(t->s, t->cap);
		cr_assert_not_null(t->s);
	}
	t->len += (size_t)n;
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

/* ---- hand-written CFI ---------------------------------------------------- */

/* A shared object of one function f of size nops whose CFI is src (the
 * directives between .cfi_startproc and .cfi_endproc, nops included). */
static struct path with_cfi(const char *name, const char *body)
{
	struct path s = path_of("hand.s"), so = path_of(name);
	struct text t = { 0 };

	put(&t, "	.text\n	.globl f\n	.type f, @function\n	.p2align 4\nf:\n"
		"	.cfi_startproc\n%s	.cfi_endproc\n	.size f, .-f\n", body);
	write_file(s.s, t.s, t.len);
	free(t.s);
	run("gcc -shared -nostdlib '%s' -o '%s'", s.s, so.s);
	return so;
}

/* A shared object whose .eh_frame is written by hand: a "zR" CIE (code
 * alignment caf, data alignment daf, pcrel sdata4 addresses) with
 * cie_insns, and f's FDE with fde_insns (assembler lines: .byte, and
 * ".long L - ." for set_loc's operand); f is size bytes of nops. */
static struct path raw_cfi(const char *name, int caf, int daf, const char *cie_insns,
			   const char *fde_insns, int size)
{
	struct path s = path_of("raw.s"), so = path_of(name);
	struct text t = { 0 };

	/* hidden: .eh_frame's pcrel fields may point at it in a shared object */
	put(&t, "	.text\n	.globl f\n	.hidden f\n	.type f, @function\n	.p2align 4\nf:\n"
		"	.skip %d, 0x90\n.Lf_end:\n	.size f, .-f\n", size);
	put(&t, "	.section .eh_frame,\"a\",@progbits\n	.p2align 3\n"
		".Lcie:\n	.long .Lcie_end - .Lcie_id\n.Lcie_id:\n	.long 0\n	.byte 1\n"
		"	.asciz \"zR\"\n	.uleb128 %d\n	.sleb128 %d\n	.byte 16\n"
		"	.uleb128 1\n	.byte 0x1b\n%s	.balign 8, 0\n.Lcie_end:\n", caf, daf, cie_insns);
	put(&t, "	.long .Lfde_end - .Lfde_id\n.Lfde_id:\n	.long .Lfde_id - .Lcie\n"
		"	.long f - .\n	.long .Lf_end - f\n	.uleb128 0\n%s	.balign 8, 0\n"
		".Lfde_end:\n", fde_insns);
	write_file(s.s, t.s, t.len);
	free(t.s);
	run("gcc -shared -nostdlib '%s' -o '%s'", s.s, so.s);
	return so;
}

/* The table of path, as libdw's, is exactly want (f's rows, from f). */
static void expect_rows(const char *path, const struct unwind_row *want, size_t n)
{
	struct unwind_table t;
	uint64_t f = sym_addr(path, "f");

	cr_assert_eq(expect_same(path), n, "%s", path);
	cr_assert_eq(build_table(path, &t), 0);
	for (size_t i = 0; i < n; i++)
		cr_expect(t.rows[i].pc == f + want[i].pc && t.rows[i].cfa_reg == want[i].cfa_reg &&
			  t.rows[i].cfa_offset == want[i].cfa_offset &&
			  t.rows[i].rbp_offset == want[i].rbp_offset,
			  "%s row %zu: f+%llu reg %d off %d rbp %d, want f+%llu reg %d off %d rbp %d",
			  path, i, (unsigned long long)(t.rows[i].pc - f), t.rows[i].cfa_reg,
			  t.rows[i].cfa_offset, t.rows[i].rbp_offset,
			  (unsigned long long)want[i].pc, want[i].cfa_reg, want[i].cfa_offset,
			  want[i].rbp_offset);
	unwind_table__free(&t);
}

#define ROW(at, reg, off, rbp) { .pc = (at), .cfa_reg = (reg), .cfa_offset = (off), .rbp_offset = (rbp) }
#define EXPECT_ROWS(path, ...) do {						\
		const struct unwind_row want_[] = { __VA_ARGS__ };		\
		expect_rows((path), want_, sizeof(want_) / sizeof(want_[0]));	\
	} while (0)

Test(cfi_rows, remember_restore_nesting, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("nest.so",
		"	nop\n	.cfi_def_cfa_offset 16\n	.cfi_offset %rbp, -16\n"
		"	.cfi_remember_state\n	nop\n	.cfi_def_cfa %rbp, 16\n"
		"	.cfi_remember_state\n	nop\n	.cfi_def_cfa_offset 32\n	.cfi_offset %rbp, -24\n"
		"	nop\n	.cfi_restore_state\n	nop\n	.cfi_restore_state\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(1, CFA_RSP, 16, -16),
		    ROW(2, CFA_RBP, 16, -16), ROW(3, CFA_RBP, 32, -24), ROW(4, CFA_RBP, 16, -16),
		    ROW(5, CFA_RSP, 16, -16), ROW(6, CFA_NONE, 0, 0));
}

/* DW_CFA_restore: back to the CIE's rule (the return address's too). */
Test(cfi_rows, restore_to_cie_rule, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("restore.so",
		"	nop\n	.cfi_offset %rbp, -16\n	.cfi_offset 16, -16\n	nop\n"
		"	.cfi_restore 16\n	nop\n	.cfi_restore %rbp\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(1, CFA_NONE, 0, 0),
		    ROW(2, CFA_RSP, 8, -16), ROW(3, CFA_RSP, 8, RBP_SAME), ROW(4, CFA_NONE, 0, 0));
}

/* advance_loc2 and advance_loc4 (gas picks them for the gaps). */
Test(cfi_rows, long_advances, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("far.so",
		"	.skip 300, 0x90\n	.cfi_def_cfa_offset 16\n"
		"	.skip 70000, 0x90\n	.cfi_def_cfa_offset 24\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(300, CFA_RSP, 16, RBP_SAME),
		    ROW(70300, CFA_RSP, 24, RBP_SAME), ROW(70301, CFA_NONE, 0, 0));
}

/* Expressions: the PLT's, one breg (rsp + 24), anything else out of reach;
 * an undefined return address ends the stack. */
Test(cfi_rows, expressions_and_the_end, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("expr.so",
		"	.cfi_escape 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22\n"
		"	nop\n	.cfi_escape 0x0f, 2, 0x77, 24\n"
		"	nop\n	.cfi_escape 0x0f, 3, 0x77, 8, 0x06\n"		/* deref */
		"	nop\n	.cfi_def_cfa %rsp, 8\n	.cfi_escape 0x10, 6, 2, 0x23, 24\n"	/* rbp at CFA+24 */
		"	nop\n	.cfi_escape 0x14, 16, 1\n"			/* val_offset ra */
		"	nop\n	.cfi_undefined 16\n	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_PLT, 8, RBP_SAME), ROW(1, CFA_RSP, 24, RBP_SAME),
		    ROW(2, CFA_NONE, 0, 0), ROW(3, CFA_RSP, 8, 24), ROW(4, CFA_NONE, 0, 0),
		    ROW(5, CFA_END, 0, 0), ROW(6, CFA_NONE, 0, 0));
}

/* The _sf forms scale by the data alignment (-8); GNU_negative_offset_extended
 * negates. */
Test(cfi_rows, factored_offsets, .init = setup, .fini = teardown)
{
	struct path so = with_cfi("sf.so",
		"	nop\n	.cfi_escape 0x12, 7, 0x7e\n"		/* def_cfa_sf rsp, -2: 16 */
		"	nop\n	.cfi_escape 0x13, 0x7c\n"		/* def_cfa_offset_sf -4: 32 */
		"	nop\n	.cfi_escape 0x11, 6, 3\n"		/* offset_extended_sf rbp, 3: -24 */
		"	nop\n	.cfi_escape 0x2f, 6, 2\n"		/* negative: rbp at +16 */
		"	nop\n");

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, RBP_SAME), ROW(1, CFA_RSP, 16, RBP_SAME),
		    ROW(2, CFA_RSP, 32, RBP_SAME), ROW(3, CFA_RSP, 32, -24), ROW(4, CFA_RSP, 32, 16),
		    ROW(5, CFA_NONE, 0, 0));
}

/* The CIE's rules of the hand-written .eh_frame: CFA = rsp + 8, return
 * address at CFA - 8, rbp at CFA - 16. */
#define CIE_RULES	"	.byte 0x0c, 7, 8\n	.byte 0x90, 1\n	.byte 0x86, 2\n"

/* DW_CFA_set_loc, forwards and back: a row starts where the location first
 * passes the last one; rules set meanwhile belong to that last row. */
Test(cfi_rows, set_loc, .init = setup, .fini = teardown)
{
	struct path so = raw_cfi("setloc.so", 1, -8, CIE_RULES,
		"	.byte 0x01\n	.long f + 4 - .\n	.byte 0x0e, 16\n"
		"	.byte 0x01\n	.long f + 8 - .\n	.byte 0x0e, 8\n"
		"	.byte 0x01\n	.long f + 6 - .\n	.byte 0x0e, 24\n"	/* back: f+8's */
		"	.byte 0x41\n	.byte 0x0e, 40\n"	/* f+7: still f+8's */
		"	.byte 0x43\n	.byte 0x08, 6\n", 16);	/* f+10, rbp same */

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, -16), ROW(4, CFA_RSP, 16, -16),
		    ROW(8, CFA_RSP, 40, -16), ROW(10, CFA_RSP, 40, RBP_SAME),
		    ROW(16, CFA_NONE, 0, 0));
}

/* The code alignment factor scales advance_loc; advance_loc4 and
 * MIPS_advance_loc8 by hand. */
Test(cfi_rows, code_alignment_and_wide_advances, .init = setup, .fini = teardown)
{
	struct path so = raw_cfi("caf.so", 4, -8, CIE_RULES,
		"	.byte 0x41\n	.byte 0x0e, 16\n"		/* f+4 */
		"	.byte 0x04\n	.long 2\n	.byte 0x0e, 24\n"	/* f+12 */
		"	.byte 0x1d\n	.quad 1\n	.byte 0x0e, 32\n", 32);	/* f+16 */

	EXPECT_ROWS(so.s, ROW(0, CFA_RSP, 8, -16), ROW(4, CFA_RSP, 16, -16),
		    ROW(12, CFA_RSP, 24, -16), ROW(16, CFA_RSP, 32, -16), ROW(32, CFA_NONE, 0, 0));
}

/* What a CIE's own instructions may not do (restore, move the location)
 * leaves its FDEs without rows; remembered states do not outlive it. */
Test(cfi_rows, cie_programs, .init = setup, .fini = teardown)
{
	struct path a = raw_cfi("cie_restore.so", 1, -8, CIE_RULES "	.byte 0xc6\n",
				"	.byte 0x41\n	.byte 0x0e, 16\n", 8);
	struct path b = raw_cfi("cie_advance.so", 1, -8, CIE_RULES "	.byte 0x41\n",
				"	.byte 0x41\n	.byte 0x0e, 16\n", 8);
	struct path c = raw_cfi("cie_remember.so", 1, -8, CIE_RULES "	.byte 0x0a, 0x0e, 32\n",
				"	.byte 0x41\n	.byte 0x0b\n", 8);
	struct path d = raw_cfi("cie_undefined.so", 1, -8, "	.byte 0x0c, 7, 8\n	.byte 0x07, 16\n",
				"	.byte 0x41\n	.byte 0x90, 1\n", 8);

	cr_expect_eq(expect_same(a.s), 0);
	cr_expect_eq(expect_same(b.s), 0);
	/* rsp + 32 from the CIE; the FDE's restore_state has nothing to pop */
	EXPECT_ROWS(c.s, ROW(0, CFA_RSP, 32, -16), ROW(1, CFA_NONE, 0, 0));
	EXPECT_ROWS(d.s, ROW(0, CFA_END, 0, 0), ROW(1, CFA_RSP, 8, RBP_SAME),
		    ROW(8, CFA_NONE, 0, 0));
}
