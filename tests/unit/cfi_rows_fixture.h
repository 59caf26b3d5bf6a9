/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What test_cfi_rows.c and test_cfi_rows_hand.c share: a file's tables
 * built both ways (cfi_rows, and libdw asked at every address) and
 * compared row for row, and a growing text for the CFI they write. */
#ifndef BPFPROF_CFI_ROWS_FIXTURE_H
#define BPFPROF_CFI_ROWS_FIXTURE_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind_table_fixture.h"

/* ---- both ways ----------------------------------------------------------- */

static inline int build_fd(int fd, bool reference, struct unwind_table *t)
{
	struct unwind_limits lim = { .max_seconds = 120, .reference_libdw = reference };

	return unwind_table__build_limited(fd, t, &lim);
}

static inline void expect_same_row(const struct unwind_row *a, const struct unwind_row *b,
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
static inline void expect_same_tables(const struct unwind_table *ours, const struct unwind_table *ref,
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
static inline bool libdw_misread(const struct unwind_row *ours, const struct unwind_row *ref)
{
	return ours && ref && ours->cfa_reg == CFA_NONE && ref->rbp_offset == -1;
}

/* The rule at every row's pc of either table is the same, or one libdw
 * misread. Returns how many were. */
static inline size_t expect_same_rules(const struct unwind_table *ours, const struct unwind_table *ref,
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
static inline size_t expect_same_fd(int fd, const char *what, bool tolerant)
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

static inline size_t expect_same(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	n = expect_same_fd(fd, path, false);
	cr_assert_eq(close(fd), 0);
	return n;
}

static inline void expect_same_real(const char *path, size_t min_rows)
{
	size_t n;

	if (access(path, R_OK))
		cr_skip_test("no %s here", path);
	n = expect_same(path);
	cr_log_info("%s: %zu rows, as libdw's", path, n);
	cr_expect_geq(n, min_rows, "%s: %zu rows", path, n);
}

struct text {
	char *s;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static inline void put(struct text *t, const char *fmt, ...)
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

#endif
