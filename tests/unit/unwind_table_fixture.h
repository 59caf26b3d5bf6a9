/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the unwind_table suites share (test_unwind_table.c,
 * test_unwind_table_bad.c, test_keeps_fp.c): the test programs' sources,
 * built with gcc at run time into a temporary directory, and the checks
 * every table must pass. */
#ifndef BPFPROF_UNWIND_TABLE_FIXTURE_H
#define BPFPROF_UNWIND_TABLE_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "leak_check.h"
#include "test_files.h"
#include "unwind/unwind_table.h"

#define LIBC_PATH	"/lib/x86_64-linux-gnu/libc.so.6"

static char tmpdir[] = "/tmp/test_unwind_table.XXXXXX";

struct path {
	char s[256];
};

/* The functions whose prologues the tests check (see check_prologues). */
static const char prog_src[] =
	"#include <alloca.h>\n"
	"#include <string.h>\n"
	"__attribute__((noipa)) void sink(void *p)\n"
	"{\n"
	"	__asm__ volatile(\"\" : : \"r\"(p) : \"memory\");\n"
	"}\n"
	"/* A leaf: no stack use. */\n"
	"__attribute__((noipa)) int leaf(int x)\n"
	"{\n"
	"	return x * 3 + 1;\n"
	"}\n"
	"/* n lives across the call (push %rbx), the buffer is a sub $N,%rsp. */\n"
	"__attribute__((noipa)) long framed(long n)\n"
	"{\n"
	"	char buf[200];\n"
	"	memset(buf, (int)n, sizeof(buf));\n"
	"	sink(buf);\n"
	"	return n + buf[3];\n"
	"}\n"
	"/* alloca: the frame size is dynamic, the CFA moves to rbp. */\n"
	"__attribute__((noipa)) long dynamic(long n)\n"
	"{\n"
	"	char *p = alloca((size_t)n);\n"
	"	memset(p, 1, (size_t)n);\n"
	"	sink(p);\n"
	"	return p[0];\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	return (int)(leaf(argc) + framed(argc) + dynamic(argc + 16));\n"
	"}\n";

/* Hand-written CFI, one case per rule the table must map (see
 * synthetic_rules for the expected rows). */
static const char synth_src[] =
	"	.text\n"
	"	.globl f_rules\n"
	"	.type f_rules, @function\n"
	"	.p2align 4\n"
	"f_rules:\n"
	"	.cfi_startproc\n"
	"	nop\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	nop\n"
	"	.cfi_offset %rbx, -16\n"	/* no change for the table */
	"	nop\n"
	"	.cfi_offset %rbp, -24\n"
	"	nop\n"
	"	.cfi_def_cfa %rbp, 16\n"
	"	nop\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	.cfi_restore %rbp\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size f_rules, .-f_rules\n"
	/* Two FDEs back to back: no gap row between them. */
	"	.globl f_adj1\n"
	"	.type f_adj1, @function\n"
	"	.p2align 4\n"
	"f_adj1:\n"
	"	.cfi_startproc\n"
	"	nop\n"
	"	nop\n"
	"	.cfi_endproc\n"
	"	.size f_adj1, .-f_adj1\n"
	"	.globl f_adj2\n"
	"	.type f_adj2, @function\n"
	"f_adj2:\n"
	"	.cfi_startproc\n"
	"	.cfi_def_cfa_offset 16\n"
	"	nop\n"
	"	.cfi_endproc\n"
	"	.size f_adj2, .-f_adj2\n"
	/* ld's lazy PLT expression, the same with lit10, a one-op expression. */
	"	.globl f_plt\n"
	"	.type f_plt, @function\n"
	"	.p2align 4\n"
	"f_plt:\n"
	"	.cfi_startproc\n"
	"	.cfi_escape 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22\n"
	"	.fill 16, 1, 0x90\n"
	"	.cfi_escape 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3a, 0x2a, 0x33, 0x24, 0x22\n"
	"	.fill 16, 1, 0x90\n"
	"	.cfi_escape 0x0f, 2, 0x77, 24\n"
	"	nop\n"
	"	.cfi_endproc\n"
	"	.size f_plt, .-f_plt\n"
	/* Rules out of the table's reach, each followed by one in reach. */
	"	.globl f_odd\n"
	"	.type f_odd, @function\n"
	"	.p2align 4\n"
	"f_odd:\n"
	"	.cfi_startproc\n"
	"	nop\n"
	"	.cfi_def_cfa %r10, 0\n"
	"	nop\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	.cfi_offset 16, -16\n"		/* return address not at CFA - 8 */
	"	nop\n"
	"	.cfi_offset 16, -8\n"
	"	.cfi_register %rbp, %r11\n"
	"	nop\n"
	"	.cfi_same_value %rbp\n"
	"	nop\n"
	"	.cfi_offset %rbp, 0\n"		/* RBP_SAME cannot say CFA + 0 */
	"	nop\n"
	"	.cfi_undefined %rbp\n"
	"	nop\n"
	"	.cfi_offset %rbp, -40000\n"	/* beyond rbp_offset */
	"	nop\n"
	"	.cfi_undefined 16\n"		/* the outermost frame: CFA_END */
	"	nop\n"
	"	.cfi_endproc\n"
	"	.size f_odd, .-f_odd\n";

/* ---- helpers ------------------------------------------------------------- */

static inline struct path path_of(const char *name)
{
	struct path p;
	int n = snprintf(p.s, sizeof(p.s), "%s/%s", tmpdir, name);

	cr_assert(n > 0 && (size_t)n < sizeof(p.s));
	return p;
}

static inline unsigned char *read_file(const char *path, size_t *len)
{
	unsigned char *p;
	struct stat st;
	FILE *f = fopen(path, "rb");

	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fileno(f), &st), 0);
	*len = (size_t)st.st_size;
	p = malloc(*len ? *len : 1);
	cr_assert_not_null(p);
	cr_assert_eq(fread(p, 1, *len, f), *len);
	cr_assert_eq(fclose(f), 0);
	return p;
}

static inline void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
	write_file(path_of("prog.c").s, prog_src, strlen(prog_src));
	write_file(path_of("synth.s").s, synth_src, strlen(synth_src));
}

static inline void teardown(void)
{
	run("rm -rf '%s'", tmpdir);
}

/* The -O2 program without frame pointers, CFI in .eh_frame. */
static inline struct path build_prog(void)
{
	struct path out = path_of("prog");

	run("gcc -O2 -fomit-frame-pointer '%s/prog.c' -o '%s'", tmpdir, out.s);
	return out;
}

static inline int build_table(const char *path, struct unwind_table *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	err = unwind_table__build(fd, t);
	cr_assert_eq(close(fd), 0);
	return err;
}

static inline void expect_build_error(const char *path, int want)
{
	struct unwind_table t;
	int err = build_table(path, &t);

	cr_expect_eq(err, want, "%s: %d (%s), want %d", path, err, strerror(-err), want);
	cr_expect_null(t.rows);
	cr_expect_eq(t.nrows, 0);
}

static inline void expect_limited_error(const char *path, const struct unwind_limits *lim, int want)
{
	struct unwind_table t;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	err = unwind_table__build_limited(fd, &t, lim);
	cr_assert_eq(close(fd), 0);
	cr_expect_eq(err, want, "%s: %d (%s), want %d", path, err, strerror(-err), want);
	cr_expect_null(t.rows);
}

static inline uint64_t sym_addr(const char *path, const char *name)
{
	char cmd[512], line[512], sym[256], type;
	uint64_t addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = addr;
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	cr_assert_neq(found, 0, "no symbol %s in %s", name, path);
	return found;
}

/* The size of a section (0: none) and its offset, read with libelf. */
static inline size_t section_range(const char *path, const char *name, size_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	size_t shstrndx, size = 0;
	const char *s;
	GElf_Shdr sh;
	Elf *elf;

	cr_assert_geq(fd, 0);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		cr_assert_not_null(gelf_getshdr(scn, &sh));
		s = elf_strptr(elf, shstrndx, sh.sh_name);
		if (s && !strcmp(s, name)) {
			*off = sh.sh_offset;
			size = sh.sh_size;
		}
	}
	cr_assert_eq(elf_end(elf), 0);
	cr_assert_eq(close(fd), 0);
	return size;
}

/* Every table: sorted, one row per pc, no two neighbours alike, and find()
 * lands on each row from its pc up to the byte before the next. */
static inline void check_invariants(const struct unwind_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct unwind_row *r = &t->rows[i];

		cr_assert_leq(r->cfa_reg, CFA_END, "row %zu", i);
		cr_assert_eq(r->pad, 0);
		if (r->cfa_reg == CFA_NONE || r->cfa_reg == CFA_END)
			cr_assert(r->cfa_offset == 0 && r->rbp_offset == 0, "row %zu", i);
		if (i == 0) {
			cr_assert_neq(r->cfa_reg, CFA_NONE, "a leading row without rule");
			if (r->pc)
				cr_assert_null(unwind_table__find(t, r->pc - 1));
		} else {
			const struct unwind_row *p = &t->rows[i - 1];

			cr_assert_gt(r->pc, p->pc, "row %zu", i);
			cr_assert(r->cfa_reg != p->cfa_reg || r->cfa_offset != p->cfa_offset ||
				  r->rbp_offset != p->rbp_offset, "rows %zu, %zu alike", i - 1, i);
			cr_assert_eq(unwind_table__find(t, r->pc - 1), p);
		}
		cr_assert_eq(unwind_table__find(t, r->pc), r);
	}
}

static inline void expect_row(const struct unwind_table *t, uint64_t pc, int reg, int off, int rbp)
{
	const struct unwind_row *r = unwind_table__find(t, pc);

	cr_assert_not_null(r, "no row for 0x%" PRIx64, pc);
	cr_expect(r->cfa_reg == reg && r->cfa_offset == off && r->rbp_offset == rbp,
		  "0x%" PRIx64 ": reg %d off %d rbp %d, want reg %d off %d rbp %d", pc,
		  r->cfa_reg, r->cfa_offset, r->rbp_offset, reg, off, rbp);
}

#endif
