/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pre-check of a file's call frame information, before libdw runs any
 * of it: libdw trusts what it runs (a crafted register number makes it
 * allocate gigabytes, and it follows .eh_frame_hdr's table wherever it
 * points). Every FDE and its CIE are read here and their instructions'
 * register numbers and nesting checked (cfi_bytes.h), and the search
 * table must name only those FDEs. cfi_rows.c then runs the checked
 * programs: each FDE says where its instructions and its CIE are.
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
	uint64_t cie;		/* its CIE's offset in the section */
	uint64_t insns, insns_end;	/* its CFA instructions' offsets in the section */
	uint64_t start, end;	/* the range it covers, if placed */
	bool placed;		/* false: an address encoding we cannot place */
};

/* What a CIE gives the CFA programs of its FDEs (cfi_rows.c runs them). */
struct cfi_cie {
	const uint8_t *insns, *insns_end;	/* the initial instructions */
	uint64_t code_align;		/* advance_loc's factor */
	int64_t data_align;		/* the factor of offsets (_sf, offset(N)) */
	uint64_t ra_reg;		/* the return address's register */
	uint8_t enc;			/* DW_EH_PE_* of addresses (set_loc) */
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

/* The CIE at off of a section whose FDEs cfi_check__read_fdes() read.
 * 0 or -EINVAL. */
int cfi_check__cie(const struct cfi_section *s, uint64_t off, struct cfi_cie *out);

void cfi_check__free(struct cfi_fdes *fdes);

#endif
