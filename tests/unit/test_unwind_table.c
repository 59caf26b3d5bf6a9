// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of unwind_table.c. Programs are built with gcc at run time;
 * the expected rules come from their disassembly (objdump: what each
 * prologue instruction does to rsp) and from readelf's own CFI
 * interpreter (--debug-dump=frames-interp), never from libdw.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "unwind_table_fixture.h"

TestSuite(unwind_table, .fini = check_leaks);

/* ---- disassembly --------------------------------------------------------- */

#define MAX_INSNS	256

struct insns {
	uint64_t addr[MAX_INSNS];
	char text[MAX_INSNS][96];	/* "sub $0xd0,%rsp": blanks collapsed */
	size_t n;
};

static void collapse_blanks(char *dst, size_t size, const char *src)
{
	size_t n = 0;

	src += strspn(src, " \t");
	for (; *src && *src != '\n' && n + 1 < size; src++) {
		if ((*src == ' ' || *src == '\t') && n && dst[n - 1] == ' ')
			continue;
		dst[n++] = *src == '\t' ? ' ' : *src;
	}
	while (n && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

/* The instructions objdump shows for one symbol, padding included. */
static void disassemble(const char *path, const char *func, struct insns *in)
{
	char cmd[512], line[512];
	uint64_t addr;
	FILE *p;
	int n;

	in->n = 0;
	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn --disassemble=%s '%s'",
		 func, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %" SCNx64 ":%n", &addr, &n) != 1 || line[0] != ' ')
			continue;
		cr_assert_lt(in->n, MAX_INSNS);
		in->addr[in->n] = addr;
		collapse_blanks(in->text[in->n], sizeof(in->text[0]), line + n);
		in->n++;
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	cr_assert_gt(in->n, 1, "no code for %s", func);
}

/* The index of the first instruction starting with prefix. */
static size_t find_insn(const struct insns *in, const char *prefix)
{
	for (size_t i = 0; i < in->n; i++)
		if (!strncmp(in->text[i], prefix, strlen(prefix)))
			return i;
	cr_assert_fail("no \"%s\" instruction", prefix);
	return 0;
}

/* The address right after the instruction: where its effect is in CFI. */
static uint64_t after(const struct insns *in, size_t i)
{
	cr_assert_lt(i + 1, in->n, "\"%s\" is the last instruction", in->text[i]);
	return in->addr[i + 1];
}

/* N of "sub $0xN,%rsp" / "add $0xN,%rsp". */
static int rsp_imm(const struct insns *in, size_t i)
{
	unsigned int n;
	char tail[16];

	cr_assert_eq(sscanf(in->text[i] + 4, "$0x%x,%15s", &n, tail), 2, "%s", in->text[i]);
	cr_assert_str_eq(tail, "%rsp");
	return (int)n;
}

static void check_leaf(const char *path, const struct unwind_table *t)
{
	struct insns in;
	size_t ret;

	disassemble(path, "leaf", &in);
	ret = find_insn(&in, "ret");
	expect_row(t, in.addr[0], CFA_RSP, 8, RBP_SAME);
	expect_row(t, in.addr[ret], CFA_RSP, 8, RBP_SAME);
	/* The FDE ends with the ret: the alignment padding has no rule. */
	if (ret + 1 < in.n)
		expect_row(t, in.addr[ret + 1], CFA_NONE, 0, 0);
}

static void check_framed(const char *path, const struct unwind_table *t)
{
	size_t push, sub, add, pop;
	struct insns in;
	int n;

	disassemble(path, "framed", &in);
	push = find_insn(&in, "push %rbx");
	sub = find_insn(&in, "sub $0x");
	add = find_insn(&in, "add $0x");
	pop = find_insn(&in, "pop %rbx");
	n = rsp_imm(&in, sub);
	cr_assert_eq(rsp_imm(&in, add), n);
	cr_assert(push == 0 && push < sub && sub < add && add < pop);

	expect_row(t, in.addr[0], CFA_RSP, 8, RBP_SAME);
	expect_row(t, after(&in, push), CFA_RSP, 16, RBP_SAME);
	expect_row(t, in.addr[sub], CFA_RSP, 16, RBP_SAME);
	expect_row(t, after(&in, sub), CFA_RSP, 16 + n, RBP_SAME);
	expect_row(t, in.addr[add], CFA_RSP, 16 + n, RBP_SAME);
	expect_row(t, after(&in, add), CFA_RSP, 16, RBP_SAME);
	expect_row(t, in.addr[pop], CFA_RSP, 16, RBP_SAME);
	expect_row(t, after(&in, pop), CFA_RSP, 8, RBP_SAME);
}

static void check_dynamic(const char *path, const struct unwind_table *t)
{
	size_t push, mov, call, leave;
	struct insns in;

	disassemble(path, "dynamic", &in);
	push = find_insn(&in, "push %rbp");
	mov = find_insn(&in, "mov %rsp,%rbp");
	call = find_insn(&in, "call");
	leave = find_insn(&in, "leave");
	cr_assert(push == 0 && push < mov && mov < call && call < leave);

	expect_row(t, in.addr[0], CFA_RSP, 8, RBP_SAME);
	expect_row(t, after(&in, push), CFA_RSP, 16, -16);
	expect_row(t, in.addr[mov], CFA_RSP, 16, -16);
	expect_row(t, after(&in, mov), CFA_RBP, 16, -16);
	expect_row(t, in.addr[call], CFA_RBP, 16, -16);
	expect_row(t, in.addr[leave], CFA_RBP, 16, -16);
	/* At the ret: back to rsp; rbp's slot is still where CFI says. */
	cr_assert_str_eq(in.text[leave + 1], "ret");
	expect_row(t, after(&in, leave), CFA_RSP, 8, -16);
}

static void check_prologues(const char *path, const struct unwind_table *t)
{
	check_leaf(path, t);
	check_framed(path, t);
	check_dynamic(path, t);
}

/* ---- readelf's view ------------------------------------------------------ */

struct re_row {
	uint64_t pc;
	struct unwind_row want;
	bool exp;		/* a DWARF expression, which readelf does not show */
};

struct re_fde {
	uint64_t start, end;
	unsigned int cie;
	bool has_rows;
};

struct re_cfi {
	struct re_row *rows;
	size_t nrows, rows_cap;
	struct re_fde *fdes;
	size_t nfdes, fdes_cap;
	struct re_row cie_rows[64];	/* each CIE's initial rules */
	unsigned int cie_off[64];
	size_t ncies;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 256;
	p = realloc(p, *cap * size);
	cr_assert_not_null(p);
	return p;
}

/* readelf's "rsp+16" / "c-16" / "u" cells, as the table's row. */
static struct re_row rule_of(uint64_t pc, const char *cfa, const char *rbp, const char *ra)
{
	struct re_row r = { .pc = pc, .want = { .pc = pc, .cfa_reg = CFA_NONE } };
	char reg[8];
	int off, rbp_off = RBP_SAME, n = 0;

	if (ra && !strcmp(ra, "u")) {		/* the outermost frame */
		r.want.cfa_reg = CFA_END;
		return r;
	}
	if (!strcmp(cfa, "exp")) {
		r.exp = true;
		return r;
	}
	if (sscanf(cfa, "%7[a-z0-9]%d%n", reg, &off, &n) != 2 || cfa[n] ||
	    (strcmp(reg, "rsp") && strcmp(reg, "rbp")))
		return r;
	if (!ra || strcmp(ra, "c-8"))
		return r;
	if (rbp && strcmp(rbp, "u") && strcmp(rbp, "s")) {
		n = 0;
		if (sscanf(rbp, "c%d%n", &rbp_off, &n) != 1 || rbp[n] || !rbp_off ||
		    rbp_off < INT16_MIN || rbp_off > INT16_MAX)
			return r;
	}
	r.want.cfa_reg = strcmp(reg, "rsp") ? CFA_RBP : CFA_RSP;
	r.want.cfa_offset = off;
	r.want.rbp_offset = (int16_t)rbp_off;
	return r;
}

/* One "LOC CFA reg... ra" line of the table under a CIE or an FDE. */
static void parse_row(struct re_cfi *c, char *line, char cols[][16], size_t ncols,
		      bool in_cie, unsigned int cie)
{
	const char *cfa = NULL, *rbp = NULL, *ra = NULL;
	char *tok, *save = NULL;
	uint64_t pc = 0;
	size_t col = 0;

	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (tok[0] == '(')	/* "r10 (r10)": the name of a register rule */
			continue;
		if (col == 0)
			pc = strtoull(tok, NULL, 16);
		else if (col == 1)
			cfa = tok;
		else if (col < ncols && !strcmp(cols[col], "rbp"))
			rbp = tok;
		else if (col < ncols && !strcmp(cols[col], "ra"))
			ra = tok;
		col++;
	}
	cr_assert_not_null(cfa);
	if (in_cie) {
		cr_assert_lt(c->ncies, 64);
		c->cie_off[c->ncies] = cie;
		c->cie_rows[c->ncies++] = rule_of(pc, cfa, rbp, ra);
		return;
	}
	c->rows = grow(c->rows, &c->rows_cap, c->nrows, sizeof(*c->rows));
	c->rows[c->nrows++] = rule_of(pc, cfa, rbp, ra);
	c->fdes[c->nfdes - 1].has_rows = true;
}

/* An FDE without instructions holds its CIE's initial rules. */
static void add_cie_rows(struct re_cfi *c)
{
	for (size_t i = 0; i < c->nfdes; i++) {
		struct re_fde *f = &c->fdes[i];
		size_t k;

		if (f->has_rows || f->start == f->end)
			continue;
		for (k = 0; k < c->ncies && c->cie_off[k] != f->cie; k++)
			;
		cr_assert_lt(k, c->ncies, "FDE at 0x%" PRIx64 ": no CIE %x", f->start, f->cie);
		c->rows = grow(c->rows, &c->rows_cap, c->nrows, sizeof(*c->rows));
		c->rows[c->nrows] = c->cie_rows[k];
		c->rows[c->nrows].pc = c->rows[c->nrows].want.pc = f->start;
		c->nrows++;
	}
}

static void read_readelf(const char *path, struct re_cfi *c)
{
	char cmd[512], line[1024], cols[32][16];
	unsigned int off, cie = 0;
	size_t ncols = 0;
	bool in_cie = false;
	FILE *p;

	memset(c, 0, sizeof(*c));
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct re_fde f = { 0 };
		char *tok, *save = NULL;

		if (sscanf(line, "%8x %*x %*x CIE", &off) == 1 && strstr(line, " CIE")) {
			in_cie = true;
			cie = off;
		} else if (sscanf(line, "%*8x %*x %*x FDE cie=%x pc=%" SCNx64 "..%" SCNx64,
				  &f.cie, &f.start, &f.end) == 3) {
			in_cie = false;
			c->fdes = grow(c->fdes, &c->fdes_cap, c->nfdes, sizeof(*c->fdes));
			c->fdes[c->nfdes++] = f;
		} else if (strstr(line, "   LOC ")) {
			ncols = 0;
			for (tok = strtok_r(line, " \t\n", &save); tok && ncols < 32;
			     tok = strtok_r(NULL, " \t\n", &save))
				snprintf(cols[ncols++], sizeof(cols[0]), "%s", tok);
		} else if (strlen(line) > 17 && line[16] == ' ' &&
			   strspn(line, "0123456789abcdef") == 16) {
			parse_row(c, line, cols, ncols, in_cie, cie);
		}
	}
	/* readelf exits 1 on libc.so.6 without a word (its separate debug
	 * info is not installed); what it printed is checked by the callers. */
	cr_assert_neq(pclose(p), -1);
	add_cie_rows(c);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool has_u64(const uint64_t *v, size_t n, uint64_t x)
{
	return bsearch(&x, v, n, sizeof(*v), cmp_u64) != NULL;
}

/* Every rule readelf prints holds in the table at its address; every FDE
 * end not followed by another FDE is "no rule"; and the table has no row
 * anywhere else. Returns the number of readelf rows checked. */
static size_t cross_check_readelf(const char *path, const struct unwind_table *t)
{
	uint64_t *locs, *starts, *ends;
	struct re_cfi c;
	size_t i;

	read_readelf(path, &c);
	cr_assert_gt(c.nrows, 0, "readelf shows no CFI in %s", path);
	locs = calloc(c.nrows, sizeof(*locs));
	starts = calloc(c.nfdes + 1, sizeof(*starts));
	ends = calloc(c.nfdes + 1, sizeof(*ends));
	cr_assert(locs && starts && ends);
	for (i = 0; i < c.nrows; i++) {
		const struct re_row *r = &c.rows[i];
		const struct unwind_row *got = unwind_table__find(t, r->pc);

		locs[i] = r->pc;
		cr_assert_not_null(got, "no row at 0x%" PRIx64, r->pc);
		/* readelf does not show expressions: synthetic_rules checks them. */
		if (!r->exp)
			cr_assert(got->cfa_reg == r->want.cfa_reg &&
				  got->cfa_offset == r->want.cfa_offset &&
				  got->rbp_offset == r->want.rbp_offset,
				  "0x%" PRIx64 ": reg %d off %d rbp %d, readelf: reg %d off %d rbp %d",
				  r->pc, got->cfa_reg, got->cfa_offset, got->rbp_offset,
				  r->want.cfa_reg, r->want.cfa_offset, r->want.rbp_offset);
	}
	for (i = 0; i < c.nfdes; i++) {
		starts[i] = c.fdes[i].start;
		ends[i] = c.fdes[i].end;
	}
	qsort(locs, c.nrows, sizeof(*locs), cmp_u64);
	qsort(starts, c.nfdes, sizeof(*starts), cmp_u64);
	qsort(ends, c.nfdes, sizeof(*ends), cmp_u64);
	for (i = 0; i < c.nfdes; i++) {
		const struct unwind_row *got = unwind_table__find(t, c.fdes[i].end);

		if (c.fdes[i].start == c.fdes[i].end || has_u64(starts, c.nfdes, c.fdes[i].end))
			continue;
		cr_assert(got && got->cfa_reg == CFA_NONE,
			  "0x%" PRIx64 ": a rule past the FDE's end", c.fdes[i].end);
	}
	for (i = 0; i < t->nrows; i++)
		cr_assert(has_u64(locs, c.nrows, t->rows[i].pc) ||
			  has_u64(ends, c.nfdes, t->rows[i].pc),
			  "row at 0x%llx: no CFI row or FDE end there",
			  (unsigned long long)t->rows[i].pc);
	free(locs);
	free(starts);
	free(ends);
	free(c.rows);
	free(c.fdes);
	return c.nrows;
}

/* ---- compiled programs --------------------------------------------------- */

Test(unwind_table, compiled_prologues_eh_frame, .init = setup, .fini = teardown)
{
	struct path prog = build_prog();
	struct unwind_table t;

	cr_assert_eq(build_table(prog.s, &t), 0);
	cr_assert_gt(t.fdes, 3);
	check_invariants(&t);
	check_prologues(prog.s, &t);
	/* crt1.o's CIE leaves the return address undefined: the stack ends. */
	expect_row(&t, sym_addr(prog.s, "_start"), CFA_END, 0, 0);
	cross_check_readelf(prog.s, &t);
	unwind_table__free(&t);
}

/* The lazy PLT (memset@plt): ld's expression becomes CFA_PLT. */
Test(unwind_table, plt_stub, .init = setup, .fini = teardown)
{
	struct path prog = build_prog();
	struct unwind_table t;
	char cmd[512], line[512];
	uint64_t plt = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s'", prog.s);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *at = strstr(line, " .plt ");

		if (at)
			cr_assert_eq(sscanf(at, " .plt PROGBITS %" SCNx64, &plt), 1);
	}
	cr_assert_eq(pclose(p), 0);
	cr_assert_neq(plt, 0, "no .plt");

	cr_assert_eq(build_table(prog.s, &t), 0);
	/* PLT0 pushes the link map: rsp + 16; the entries follow it. */
	expect_row(&t, plt, CFA_RSP, 16, RBP_SAME);
	expect_row(&t, plt + 16, CFA_PLT, 8, RBP_SAME);
	expect_row(&t, plt + 16 + 11, CFA_PLT, 8, RBP_SAME);
	unwind_table__free(&t);
}

/* No .eh_frame: the rules come from .debug_frame, compressed or not. */
Test(unwind_table, debug_frame_fallback, .init = setup, .fini = teardown)
{
	struct path so = path_of("prog_df.so"), z = path_of("prog_dfz.so");
	struct unwind_table t;
	size_t off;

	run("gcc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables "
	    "-g -fPIC -shared -nostdlib '%s/prog.c' -o '%s'", tmpdir, so.s);
	cr_assert_eq(section_range(so.s, ".eh_frame", &off), 0);
	cr_assert_gt(section_range(so.s, ".debug_frame", &off), 0);
	run("objcopy --compress-debug-sections=zlib-gabi '%s' '%s'", so.s, z.s);

	cr_assert_eq(build_table(so.s, &t), 0);
	check_invariants(&t);
	check_prologues(so.s, &t);
	cross_check_readelf(so.s, &t);
	unwind_table__free(&t);

	cr_assert_eq(build_table(z.s, &t), 0);
	check_prologues(z.s, &t);
	unwind_table__free(&t);
}

/* ---- hand-written CFI ---------------------------------------------------- */

Test(unwind_table, synthetic_rules, .init = setup, .fini = teardown)
{
	struct path so = path_of("synth.so");
	struct unwind_table t;
	uint64_t r, a, p, o;

	run("gcc -shared -nostdlib '%s/synth.s' -o '%s'", tmpdir, so.s);
	r = sym_addr(so.s, "f_rules");
	a = sym_addr(so.s, "f_adj1");
	p = sym_addr(so.s, "f_plt");
	o = sym_addr(so.s, "f_odd");
	cr_assert_eq(sym_addr(so.s, "f_adj2"), a + 2);

	const struct unwind_row want[] = {
		{ .pc = r, .cfa_reg = CFA_RSP, .cfa_offset = 8 },
		{ .pc = r + 1, .cfa_reg = CFA_RSP, .cfa_offset = 16 },
		{ .pc = r + 3, .cfa_reg = CFA_RSP, .cfa_offset = 16, .rbp_offset = -24 },
		{ .pc = r + 4, .cfa_reg = CFA_RBP, .cfa_offset = 16, .rbp_offset = -24 },
		{ .pc = r + 5, .cfa_reg = CFA_RSP, .cfa_offset = 8 },
		{ .pc = r + 6, .cfa_reg = CFA_NONE },
		{ .pc = a, .cfa_reg = CFA_RSP, .cfa_offset = 8 },
		{ .pc = a + 2, .cfa_reg = CFA_RSP, .cfa_offset = 16 },
		{ .pc = a + 3, .cfa_reg = CFA_NONE },
		{ .pc = p, .cfa_reg = CFA_PLT, .cfa_offset = 8 },
		{ .pc = p + 16, .cfa_reg = CFA_NONE },		/* lit10 */
		{ .pc = p + 32, .cfa_reg = CFA_RSP, .cfa_offset = 24 },
		{ .pc = p + 33, .cfa_reg = CFA_NONE },
		{ .pc = o, .cfa_reg = CFA_RSP, .cfa_offset = 8 },
		{ .pc = o + 1, .cfa_reg = CFA_NONE },		/* r10, then ra */
		{ .pc = o + 4, .cfa_reg = CFA_RSP, .cfa_offset = 8 },
		{ .pc = o + 5, .cfa_reg = CFA_NONE },		/* rbp at CFA + 0 */
		{ .pc = o + 6, .cfa_reg = CFA_RSP, .cfa_offset = 8 },
		{ .pc = o + 7, .cfa_reg = CFA_NONE },		/* -40000 */
		{ .pc = o + 8, .cfa_reg = CFA_END },		/* ra undefined */
		{ .pc = o + 9, .cfa_reg = CFA_NONE },
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);

	cr_assert_eq(build_table(so.s, &t), 0);
	check_invariants(&t);
	cr_expect_eq(t.fdes, 5);
	/* lit10, r10, ra at CFA - 16, rbp in r11, at CFA + 0, at -40000 */
	cr_expect_eq(t.unsupported, 6);
	cr_assert_eq(t.nrows, nwant, "%zu rows", t.nrows);
	for (size_t i = 0; i < nwant; i++)
		cr_expect(!memcmp(&t.rows[i], &want[i], sizeof(want[i])),
			  "row %zu: pc 0x%llx reg %d off %d rbp %d, want pc 0x%llx reg %d off %d rbp %d",
			  i, (unsigned long long)t.rows[i].pc, t.rows[i].cfa_reg,
			  t.rows[i].cfa_offset, t.rows[i].rbp_offset,
			  (unsigned long long)want[i].pc, want[i].cfa_reg, want[i].cfa_offset,
			  want[i].rbp_offset);
	/* Between rows: the one before. */
	cr_expect_eq(unwind_table__find(&t, r + 2), &t.rows[1]);
	cr_expect_eq(unwind_table__find(&t, a + 1), &t.rows[6]);
	cr_expect_eq(unwind_table__find(&t, p + 31), &t.rows[10]);
	cr_expect_eq(unwind_table__find(&t, UINT64_MAX), &t.rows[nwant - 1]);
	cr_expect_null(unwind_table__find(&t, r - 1));
	cross_check_readelf(so.s, &t);
	unwind_table__free(&t);
}

/* ---- the system's libc --------------------------------------------------- */

Test(unwind_table, libc)
{
	struct unwind_table t;
	struct timespec t0, t1;
	size_t checked, ends = 0;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(build_table(LIBC_PATH, &t), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	cr_log_info("libc.so.6: %zu rows, %zu unsupported, %zu FDEs, %.1f ms",
		    t.nrows, t.unsupported, t.fdes, ms);
	cr_expect_gt(t.fdes, 1000);
	cr_expect_gt(t.nrows, 10000);
	/* longjmp, vfork, setcontext, clone3, the signal trampoline: a handful. */
	cr_expect_lt(t.unsupported * 100, t.nrows, "%zu unsupported", t.unsupported);
	check_invariants(&t);
	/* clone()'s child starts a new stack: marked as its end. */
	for (size_t i = 0; i < t.nrows; i++)
		ends += t.rows[i].cfa_reg == CFA_END;
	cr_expect_geq(ends, 1);
	checked = cross_check_readelf(LIBC_PATH, &t);
	cr_expect_gt(checked, 10000, "%zu readelf rows", checked);
	unwind_table__free(&t);
}

/* ---- find() alone -------------------------------------------------------- */

Test(unwind_table, find_on_hand_made_tables)
{
	struct unwind_row rows[] = {
		{ .pc = 0x1000, .cfa_reg = CFA_RSP, .cfa_offset = 8 },
		{ .pc = 0x1001, .cfa_reg = CFA_RSP, .cfa_offset = 16 },
		{ .pc = 0x1010, .cfa_reg = CFA_NONE },
	};
	struct unwind_table t = { .rows = rows, .nrows = 3 };
	struct unwind_table empty = { 0 };

	cr_expect_null(unwind_table__find(&empty, 0x1000));
	cr_expect_null(unwind_table__find(&t, 0));
	cr_expect_null(unwind_table__find(&t, 0xfff));
	cr_expect_eq(unwind_table__find(&t, 0x1000), &rows[0]);
	cr_expect_eq(unwind_table__find(&t, 0x1001), &rows[1]);
	cr_expect_eq(unwind_table__find(&t, 0x100f), &rows[1]);
	cr_expect_eq(unwind_table__find(&t, 0x1010), &rows[2]);
	cr_expect_eq(unwind_table__find(&t, UINT64_MAX), &rows[2]);
	t.nrows = 1;
	cr_expect_eq(unwind_table__find(&t, 0x5000), &rows[0]);
	unwind_table__free(&empty);
	unwind_table__free(&empty);
	cr_expect_null(empty.rows);
}
