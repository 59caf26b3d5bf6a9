// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/unwind/unwind_table.c, the unwind tables of --call-graph
 * dwarf, built from an ELF file's .eh_frame / .debug_frame with libdw. The
 * input is a whole file, handed over as a regular file (a memfd), as
 * bpfprof opens mapped files. A built table must be what the BPF side
 * expects: rows strictly sorted by pc, known CFA rules, and
 * unwind_table__find() returning the row that holds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind/unwind_table.h"
#include "fuzz_check.h"

#define MAX_CHECKED_ROWS	4096

static int memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = fuzz_memfd("fuzz_unwind_table");
	return 0;
}

static void check_table(const struct unwind_table *t, const uint8_t *data, size_t size)
{
	size_t step = t->nrows > MAX_CHECKED_ROWS ? t->nrows / MAX_CHECKED_ROWS : 1;
	uint64_t pc;

	CHECK(t->nrows == 0 || t->rows);
	CHECK(unwind_table__find(t, 0) == (t->nrows && t->rows[0].pc == 0 ? &t->rows[0] : NULL));
	for (size_t i = 0; i < t->nrows; i += step) {
		const struct unwind_row *r = &t->rows[i];

		CHECK(r->cfa_reg <= CFA_END);
		if (i + 1 < t->nrows)
			CHECK(r->pc < t->rows[i + 1].pc);
		CHECK(unwind_table__find(t, r->pc) == r);
		if (i + 1 < t->nrows)
			CHECK(unwind_table__find(t, t->rows[i + 1].pc - 1) == r);
		if (r->pc && (i == 0 || t->rows[i - 1].pc < r->pc - 1))
			CHECK(unwind_table__find(t, r->pc - 1) == (i ? &t->rows[i - 1] : NULL));
	}
	for (size_t i = 1; i < t->nrows && step > 1; i++)
		CHECK(t->rows[i - 1].pc < t->rows[i].pc);
	/* and a few addresses out of the input */
	for (size_t off = 0; off + 8 <= size && off < 8 * 32; off += 8) {
		const struct unwind_row *r;

		memcpy(&pc, data + size - 8 - off, sizeof(pc));
		r = unwind_table__find(t, pc);
		CHECK(!r || (r >= t->rows && r < t->rows + t->nrows && r->pc <= pc));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table t;
	int err;

	fuzz_fill_memfd(memfd, data, size);
	err = unwind_table__build(memfd, &t);
	CHECK(err == 0 || err == -ENOENT || err == -ENOEXEC || err == -EINVAL || err == -ENOMEM);
	if (err)
		CHECK(!t.rows && !t.nrows);	/* freed on failure */
	else
		check_table(&t, data, size);
	unwind_table__free(&t);
	return 0;
}
