// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of fde_index.c: function starts from .eh_frame, on a real -O2
 * binary (build/examples/inline_hot) against nm, and on crafted bytes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf/fde_index.h"
#include "leak_check.h"

TestSuite(fde_index, .fini = check_leaks);

#define INLINE_HOT	"build/examples/inline_hot"
#define VADDR		0x2000		/* where the crafted .eh_frame is loaded */

/* The address and size of a symbol, from nm. */
static uint64_t sym_addr(const char *file, const char *sym, uint64_t *size)
{
	unsigned long long a = 0, s = 0;
	char cmd[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"%s\" { print $1, $2 }'", file, sym);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%llx %llx", &a, &s), 2, "%s in %s", sym, file);
	pclose(p);
	*size = s;
	return a;
}

static struct fde_index *open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct fde_index *fi;

	cr_assert(fd >= 0, "%s (make examples first)", path);
	fi = fde_index__open_fd(fd);
	close(fd);
	return fi;
}

/* Every byte of a function the compiler described is in the FDE starting
 * at the function's symbol. */
Test(fde_index, real_functions_start_at_their_symbols)
{
	static const char *const fns[] = { "main", "mix_rounds", "_start" };
	struct fde_index *fi = open_path(INLINE_HOT);
	uint64_t start, size, got;

	cr_assert_not_null(fi);
	cr_expect_geq(fde_index__count(fi), 3);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		start = sym_addr(INLINE_HOT, fns[i], &size);
		for (uint64_t a = start; a < start + size; a++) {
			cr_assert_eq(fde_index__find(fi, a, &got), 0, "%s+%#lx", fns[i],
				     (unsigned long)(a - start));
			cr_assert_eq(got, start, "%s+%#lx: %#lx", fns[i], (unsigned long)(a - start),
				     (unsigned long)got);
		}
	}
	cr_expect_eq(fde_index__find(fi, 0, &got), -ENOENT);
	fde_index__free(fi);
}

Test(fde_index, not_elf_and_no_eh_frame)
{
	char dbg[] = "/tmp/fde_index_dbg.XXXXXX", cmd[256];
	int fd = mkstemp(dbg);

	cr_assert(fd >= 0);
	close(fd);
	errno = 0;
	cr_expect_null(open_path("/proc/self/cmdline"));
	cr_expect_eq(errno, ENOEXEC);
	/* a separate debug file's .eh_frame holds no bytes */
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug %s %s", INLINE_HOT, dbg);
	cr_assert_eq(system(cmd), 0);
	errno = 0;
	cr_expect_null(open_path(dbg));
	cr_expect_eq(errno, ENOENT);
	unlink(dbg);
}

/* ---- crafted .eh_frame --------------------------------------------------- */

struct eh {
	uint8_t b[256];
	size_t n;
};

static void put32(struct eh *e, uint32_t v)
{
	memcpy(e->b + e->n, &v, 4);
	e->n += 4;
}

static void put8(struct eh *e, uint8_t v)
{
	e->b[e->n++] = v;
}

/* A CIE "zR" whose FDEs' addresses are pcrel|sdata4, at offset 0. */
static void cie(struct eh *e)
{
	static const uint8_t body[] = {
		1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b,	/* version, "zR", aligns, RA, R */
		0x0c, 7, 8, 0, 0, 0, 0,			/* def_cfa rsp+8, nops */
	};

	put32(e, 4 + sizeof(body));
	put32(e, 0);
	memcpy(e->b + e->n, body, sizeof(body));
	e->n += sizeof(body);
}

/* An FDE of the CIE at 0 covering [start, start + len). */
static void fde(struct eh *e, uint64_t start, uint32_t len)
{
	put32(e, 16);
	put32(e, (uint32_t)e->n);			/* back to offset 0 */
	put32(e, (uint32_t)(start - (VADDR + e->n)));	/* pcrel */
	put32(e, len);
	put8(e, 0);					/* no augmentation data */
	put8(e, 0);
	put8(e, 0);
	put8(e, 0);
}

Test(fde_index, crafted_ranges_sorted_gaps_and_empty)
{
	struct eh e = { 0 };
	struct fde_index *fi;
	uint64_t got;

	cie(&e);
	fde(&e, 0x5000, 0x40);
	fde(&e, 0x1000, 0x10);
	fde(&e, 0x3000, 0);		/* no range: covers nothing */
	put32(&e, 0);			/* terminator */
	fi = fde_index__from_eh_frame(e.b, e.n, VADDR);
	cr_assert_not_null(fi);
	cr_expect_eq(fde_index__count(fi), 2);
	cr_expect_eq(fde_index__find(fi, 0x1000, &got), 0);
	cr_expect_eq(got, 0x1000);
	cr_expect_eq(fde_index__find(fi, 0x100f, &got), 0);
	cr_expect_eq(got, 0x1000);
	cr_expect_eq(fde_index__find(fi, 0x1010, &got), -ENOENT, "the gap after a function");
	cr_expect_eq(fde_index__find(fi, 0x3000, &got), -ENOENT);
	cr_expect_eq(fde_index__find(fi, 0x503f, &got), 0);
	cr_expect_eq(got, 0x5000);
	cr_expect_eq(fde_index__find(fi, 0x5040, &got), -ENOENT);
	fde_index__free(fi);
}

Test(fde_index, malformed_is_refused)
{
	struct eh e = { 0 };

	cie(&e);
	fde(&e, 0x1000, 0x10);
	/* the FDE names a CIE that is not there */
	e.b[28] = 0x7f;
	errno = 0;
	cr_expect_null(fde_index__from_eh_frame(e.b, e.n, VADDR));
	cr_expect_eq(errno, EINVAL);
	/* an entry longer than the section */
	memset(&e, 0, sizeof(e));
	cie(&e);
	fde(&e, 0x1000, 0x10);
	e.b[24] = 0xf0;
	cr_expect_null(fde_index__from_eh_frame(e.b, e.n, VADDR));
	/* an augmentation libdw reads otherwise */
	memset(&e, 0, sizeof(e));
	cie(&e);
	fde(&e, 0x1000, 0x10);
	e.b[10] = 'Q';
	cr_expect_null(fde_index__from_eh_frame(e.b, e.n, VADDR));
}
