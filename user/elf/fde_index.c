// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Function starts from .eh_frame's FDEs (see fde_index.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/grow.h"
#include "elf/cfi_bytes.h"
#include "elf/elf_limits.h"
#include "elf/elf_read.h"
#include "elf/fde_index.h"

/* Each FDE costs 16 bytes here: as many as a file may have symbols. */
#define FDE_MAX		ELF_SYMS_MAX

struct fde_range {
	uint64_t start, end;	/* [start, end) */
};

struct fde_index {
	struct fde_range *r;
	size_t n, cap;
};

/* What one pass over the section needs: the bytes, and the last CIE. */
struct reader {
	const unsigned char *ident;
	Elf_Data *data;
	uint64_t vaddr;
	Dwarf_Off cie_off;
	uint8_t enc;
	bool cie_valid;
};

static int read_cie(struct reader *rd, Dwarf_Off off)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	bool sized;

	if (rd->cie_valid && rd->cie_off == off)
		return 0;
	rd->cie_valid = false;
	if (dwarf_next_cfi(rd->ident, rd->data, true, off, &next, &e) || !dwarf_cfi_cie_p(&e) ||
	    cfi__fde_encoding(e.cie.augmentation, e.cie.augmentation_data,
			      e.cie.augmentation_data_size, &rd->enc, &sized))
		return -EINVAL;
	rd->cie_off = off;
	rd->cie_valid = true;
	return 0;
}

static int push(struct fde_index *fi, uint64_t start, uint64_t end)
{
	if (fi->n >= FDE_MAX)
		return -E2BIG;
	if (GROW(fi->r, fi->cap, fi->n + 1))
		return -ENOMEM;
	fi->r[fi->n++] = (struct fde_range){ start, end };
	return 0;
}

/* One FDE's range: its initial location in the CIE's encoding, then the
 * range, a length in the same format (never relative). An FDE whose range
 * cannot be placed (an encoding relative to text or a function) is left
 * out: its code stays unnamed. */
static int add_fde(struct fde_index *fi, struct reader *rd, const Dwarf_FDE *fde)
{
	const uint8_t *base = rd->data->d_buf, *p = fde->start, *end = fde->end;
	uint64_t field = rd->vaddr + (uint64_t)(p - base), raw, len, start;

	if (read_cie(rd, fde->CIE_pointer))
		return -EINVAL;
	if (cfi__read_raw(rd->enc, &p, end, &raw) || cfi__read_raw(rd->enc, &p, end, &len))
		return -EINVAL;
	/* datarel: from 0, as libdw reads .eh_frame FDEs */
	if (cfi__apply_enc(rd->enc, raw, field, 0, &start) || !len || start + len < start)
		return 0;
	return push(fi, start, start + len);
}

static int read_entries(struct fde_index *fi, struct reader *rd)
{
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int ret;

	for (;;) {
		ret = dwarf_next_cfi(rd->ident, rd->data, true, off, &next, &e);
		if (ret > 0)
			return 0;
		if (ret < 0 || next <= off)
			return -EINVAL;
		if (!dwarf_cfi_cie_p(&e)) {
			ret = add_fde(fi, rd, &e.fde);
			if (ret)
				return ret;
		}
		off = next;
	}
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct fde_range *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

static struct fde_index *build(const unsigned char *ident, Elf_Data *data, uint64_t vaddr)
{
	struct reader rd = { .ident = ident, .data = data, .vaddr = vaddr };
	struct fde_index *fi = calloc(1, sizeof(*fi));
	int err;

	if (!fi)
		return NULL;
	err = read_entries(fi, &rd);
	if (err) {
		fde_index__free(fi);
		errno = -err;
		return NULL;
	}
	if (fi->n)	/* qsort() wants an array, even of none */
		qsort(fi->r, fi->n, sizeof(*fi->r), cmp_range);
	/* crafted FDEs may overlap: each ends where the next begins, so the
	 * ranges are disjoint and a lookup exact */
	for (size_t i = 0; i + 1 < fi->n; i++)
		if (fi->r[i].end > fi->r[i + 1].start)
			fi->r[i].end = fi->r[i + 1].start;
	return fi;
}

struct fde_index *fde_index__from_eh_frame(const void *bytes, size_t size, uint64_t vaddr)
{
	static const unsigned char ident[EI_NIDENT] = {
		ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT,
	};
	Elf_Data data = { .d_buf = (void *)bytes, .d_size = size, .d_type = ELF_T_BYTE };

	return build(ident, &data, vaddr);
}

/* .eh_frame's section, with its bytes in the file. */
static int find_eh_frame(Elf *elf, uint64_t fsize, Elf_Data **data, uint64_t *vaddr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int found = elf_read__next_named(elf, ".eh_frame", &scn, &sh);

	if (found < 0)
		return elf_read__fail(EINVAL);
	/* a separate debug file's .eh_frame is NOBITS */
	if (!found || sh.sh_type == SHT_NOBITS || !sh.sh_size)
		return -ENOENT;
	*vaddr = sh.sh_addr;
	return elf_read__scn_data(scn, &sh, fsize, data);
}

struct fde_index *fde_index__open_fd(int fd)
{
	struct fde_index *fi = NULL;
	Elf_Data *data = NULL;
	uint64_t vaddr = 0;
	struct stat st;
	Elf *elf;
	int err;

	if (fstat(fd, &st))
		return NULL;
	err = elf_limits__check(fd, NULL, (size_t)st.st_size);
	if (err) {
		errno = -err;
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		errno = ENOEXEC;
		return NULL;
	}
	err = find_eh_frame(elf, (uint64_t)st.st_size, &data, &vaddr);
	if (!err)
		fi = build((const unsigned char *)elf_getident(elf, NULL), data, vaddr);
	else
		errno = -err;
	elf_end(elf);
	return fi;
}

/* An address against a range (disjoint: see build()). */
static int cmp_addr(const void *key, const void *elem)
{
	uint64_t addr = *(const uint64_t *)key;
	const struct fde_range *r = elem;

	return addr < r->start ? -1 : addr >= r->end;
}

int fde_index__find(const struct fde_index *fi, uint64_t vaddr, uint64_t *start)
{
	const struct fde_range *r = fi->n ? bsearch(&vaddr, fi->r, fi->n, sizeof(*fi->r), cmp_addr)
				      : NULL;

	if (!r)
		return -ENOENT;
	*start = r->start;
	return 0;
}

size_t fde_index__count(const struct fde_index *fi)
{
	return fi->n;
}

size_t fde_index__bytes(const struct fde_index *fi)
{
	return sizeof(*fi) + fi->cap * sizeof(*fi->r);
}

void fde_index__free(struct fde_index *fi)
{
	if (!fi)
		return;
	free(fi->r);
	free(fi);
}
