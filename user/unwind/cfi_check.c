// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CIEs, FDEs and .eh_frame_hdr of a file, checked before libdw runs
 * any of them (cfi_check.h says why). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "elf/cfi_bytes.h"
#include "unwind/cfi_check.h"
#include "elf/elf_read.h"

/* The last CIE read, as most FDEs share one. */
struct cie_info {
	Dwarf_Off off;
	uint8_t enc;		/* DW_EH_PE_* of the FDEs' addresses */
	bool sized;		/* "z": FDEs carry sized augmentation data */
	bool valid;
};

struct reader {
	const struct cfi_section *s;
	size_t max_fde_bytes;
	struct cie_info cie;
};

/* The FDE pointer encoding of a CIE (cfi_bytes.h). */
static int parse_augmentation(const Dwarf_CIE *cie, struct cie_info *ci)
{
	return cfi__fde_encoding(cie->augmentation, cie->augmentation_data,
				 cie->augmentation_data_size, &ci->enc, &ci->sized);
}

/* A version 4 CIE (.debug_frame) states the address size: the FDEs are
 * read as 8-byte addresses, which it must then say. */
static bool address_size_ok(const Dwarf_CIE *cie)
{
	const uint8_t *a = (const uint8_t *)cie->augmentation;
	const uint8_t *after = a + strlen(cie->augmentation) + 1;

	if (a[-1] != 4)		/* the version, just before */
		return true;
	return cie->initial_instructions - after >= 2 && after[0] == 8 && after[1] == 0;
}

/* The CIE at off, its augmentation and instructions checked. */
static int decode_cie(const struct cfi_section *s, Dwarf_Off off, Dwarf_CIE *cie,
		      struct cie_info *ci)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;

	if (dwarf_next_cfi(s->ident, s->data, s->eh, off, &next, &e) || !dwarf_cfi_cie_p(&e) ||
	    parse_augmentation(&e.cie, ci) || !address_size_ok(&e.cie) ||
	    !cfi__insns_ok(e.cie.initial_instructions, e.cie.initial_instructions_end, ci->enc))
		return -EINVAL;
	*cie = e.cie;
	return 0;
}

/* The CIE an FDE names (most FDEs share the last one), checked. */
static int read_cie(struct reader *r, Dwarf_Off off)
{
	Dwarf_CIE cie;

	if (r->cie.valid && r->cie.off == off)
		return 0;
	r->cie.valid = false;
	if (decode_cie(r->s, off, &cie, &r->cie))
		return -EINVAL;
	r->cie.off = off;
	r->cie.valid = true;
	return 0;
}

/* An FDE's range and checked instructions. Every FDE is checked, even one
 * whose range cannot be placed: libdw may still find and run it. */
static int read_fde(struct reader *r, const Dwarf_FDE *fde, Dwarf_Off off, struct fde_info *f)
{
	const uint8_t *base = r->s->data->d_buf, *p = fde->start, *end = fde->end;
	uint64_t field = r->s->vaddr + (uint64_t)(p - base), raw, len, skip = 0;
	int err = read_cie(r, fde->CIE_pointer);

	if (err)
		return err;
	if (end - p > (ptrdiff_t)r->max_fde_bytes)
		return -E2BIG;
	/* The range is a length: the same format, never relative. */
	if (cfi__read_raw(r->cie.enc, &p, end, &raw) || cfi__read_raw(r->cie.enc, &p, end, &len))
		return -EINVAL;
	if (r->cie.sized && (cfi__read_leb128(&p, end, false, &skip) || skip > (uint64_t)(end - p)))
		return -EINVAL;
	if (!cfi__insns_ok(p + skip, end, r->cie.enc))
		return -EINVAL;
	*f = (struct fde_info){
		.off = off,
		.cie = fde->CIE_pointer,
		.insns = (uint64_t)(p + skip - base),
		.insns_end = (uint64_t)(end - base),
	};
	/* datarel: from 0, as libdw reads .eh_frame FDEs. */
	f->placed = !cfi__apply_enc(r->cie.enc, raw, field, 0, &f->start) && f->start + len >= f->start;
	f->end = f->placed ? f->start + len : 0;
	return 0;
}

static int push_fde(struct cfi_fdes *fdes, const struct fde_info *f)
{
	if (GROW(fdes->v, fdes->cap, fdes->n + 1))
		return -ENOMEM;
	fdes->v[fdes->n++] = *f;
	return 0;
}

int cfi_check__read_fdes(const struct cfi_section *s, size_t max, size_t max_fde_bytes,
			 cfi_budget_fn budget, void *ctx, struct cfi_fdes *out)
{
	struct reader r = { .s = s, .max_fde_bytes = max_fde_bytes };
	Dwarf_Off off = 0, next;
	struct fde_info f;
	Dwarf_CFI_Entry e;
	int ret;

	for (;;) {
		ret = dwarf_next_cfi(s->ident, s->data, s->eh, off, &next, &e);
		if (ret > 0)
			return 0;
		if (ret < 0 || next <= off)
			return -EINVAL;
		ret = budget(ctx);
		if (!ret && out->n >= max)
			ret = -E2BIG;
		if (ret)
			return ret;
		if (!dwarf_cfi_cie_p(&e)) {
			ret = read_fde(&r, &e.fde, off, &f);
			if (!ret)
				ret = push_fde(out, &f);
			if (ret)
				return ret;
		}
		off = next;
	}
}

static int cmp_fde_off(const void *key, const void *elem)
{
	uint64_t off = *(const uint64_t *)key;
	const struct fde_info *f = elem;

	return off < f->off ? -1 : off > f->off;
}

/* One entry of .eh_frame_hdr's table: the FDE it names must be one of
 * ours (fdes are in section order, so sorted by offset). */
static bool hdr_entry_ok(const struct cfi_section *s, const struct cfi_fdes *fdes, uint8_t enc,
			 const uint8_t **p, const uint8_t *end, uint64_t hdr)
{
	uint64_t loc, fde;

	/* Never pc-relative (checked): the field's address does not matter. */
	if (cfi__read_raw(enc, p, end, &loc) || cfi__read_field(enc, p, *p, end, 0, hdr, &fde))
		return false;
	fde -= s->vaddr;
	return fdes->n && bsearch(&fde, fdes->v, fdes->n, sizeof(*fdes->v), cmp_fde_off);
}

/* One .eh_frame_hdr, read as libdw does. It trusts the table: an entry
 * pointing between entries would run unchecked bytes, a count beyond the
 * section would be read past it, and it reads only datarel or absolute
 * entries safely. */
static int check_hdr(const struct cfi_section *s, const struct cfi_fdes *fdes,
		     const uint8_t *p, size_t size, uint64_t hdr)
{
	const uint8_t *start = p, *end = p + size;
	uint64_t ptr, count;
	uint8_t enc_ptr, enc_count, enc;

	if (size < 4 || p[0] != 1)
		return -EINVAL;
	enc_ptr = p[1];
	enc_count = p[2];
	enc = p[3];
	p += 4;
	if (cfi__read_field(enc_ptr, &p, start, end, hdr, hdr, &ptr))
		return -EINVAL;
	/* libdw ignores a table of another .eh_frame, or without a count */
	if (ptr != s->vaddr || enc_count == DW_EH_PE_omit || enc == DW_EH_PE_omit ||
	    (enc & ~DW_EH_PE_signed) == DW_EH_PE_uleb128)
		return 0;
	if (cfi__read_field(enc_count, &p, start, end, hdr, hdr, &count))
		return -EINVAL;
	if (!count)
		return 0;
	if ((enc & 0x07) == DW_EH_PE_uleb128 ||
	    ((enc & 0xf0) != DW_EH_PE_datarel && (enc & 0xf0) != DW_EH_PE_absptr))
		return -EINVAL;
	/* Each entry is read within the section: a count beyond it fails. */
	for (; count; count--)
		if (!hdr_entry_ok(s, fdes, enc, &p, end, hdr))
			return -EINVAL;
	return 0;
}

/* libdw takes the last one before .eh_frame, which is not worth telling
 * apart: every one is checked. */
int cfi_check__eh_frame_hdrs(Elf *elf, uint64_t fsize, const struct cfi_section *s,
			     const struct cfi_fdes *fdes)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	int found, err;

	while ((found = elf_read__next_named(elf, ".eh_frame_hdr", &scn, &sh)) > 0) {
		if (sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		if (!elf_read__in_file(sh.sh_offset, sh.sh_size, fsize))
			return -EINVAL;
		data = elf_rawdata(scn, NULL);
		if (!data || !data->d_buf)
			return -EINVAL;
		err = check_hdr(s, fdes, data->d_buf, data->d_size, sh.sh_addr);
		if (err)
			return err;
	}
	return found;
}

int cfi_check__cie(const struct cfi_section *s, uint64_t off, struct cfi_cie *out)
{
	struct cie_info ci;
	Dwarf_CIE cie;

	if (decode_cie(s, off, &cie, &ci))
		return -EINVAL;
	*out = (struct cfi_cie){
		.insns = cie.initial_instructions,
		.insns_end = cie.initial_instructions_end,
		.code_align = cie.code_alignment_factor,
		.data_align = cie.data_alignment_factor,
		.ra_reg = cie.return_address_register,
		.enc = ci.enc,
	};
	return 0;
}

void cfi_check__free(struct cfi_fdes *fdes)
{
	free(fdes->v);
	*fdes = (struct cfi_fdes){ 0 };
}
