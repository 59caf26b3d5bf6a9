/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pre-check of a file's call frame information, before libdw runs any
 * of it: libdw trusts what it runs (a crafted register number makes it
 * allocate gigabytes, and it follows .eh_frame_hdr's table wherever it
 * points). Every FDE and its CIE are read here and their instructions'
 * register numbers and nesting checked (cfi_bytes.h), and the search
 * table must name only those FDEs.
 */
#ifndef BPFPROF_CFI_CHECK_H
#define BPFPROF_CFI_CHECK_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The raw section the FDEs are read from. */
struct cfi_section {
	const unsigned char *ident;	/* the ELF's e_ident */
	Elf_Data *data;
	uint64_t vaddr;			/* its address: base of pc-relative pointers */
	bool eh;			/* .eh_frame, else .debug_frame */
};

/* One FDE, read and checked. */
struct fde_info {
	uint64_t off;		/* in the section */
	uint64_t start, end;	/* the range it covers, if placed */
	bool placed;		/* false: an address encoding we cannot place */
};

/* The FDEs of a section, in section order (so sorted by offset). */
struct cfi_fdes {
	struct fde_info *v;
	size_t n, cap;
};

/* Called before each entry: 0 to go on, else the error that stops. */
typedef int (*cfi_budget_fn)(void *ctx);

/* Every entry of the section, in order (as libdw reads them when it has no
 * search table): FDEs kept in *out (at most max), their CIEs and
 * instructions checked. 0, -EINVAL for bad CFI, -E2BIG for an FDE over
 * max_fde_bytes or more than max FDEs, -ENOMEM, or the budget's error.
 * out is freed with cfi_check__free() either way. */
int cfi_check__read_fdes(const struct cfi_section *s, size_t max, size_t max_fde_bytes,
			 cfi_budget_fn budget, void *ctx, struct cfi_fdes *out);

/* Every section called .eh_frame_hdr of elf (fsize bytes), read as libdw
 * reads it: each entry must name one of fdes. 0 or -EINVAL. */
int cfi_check__eh_frame_hdrs(Elf *elf, uint64_t fsize, const struct cfi_section *s,
			     const struct cfi_fdes *fdes);

void cfi_check__free(struct cfi_fdes *fdes);

#endif
