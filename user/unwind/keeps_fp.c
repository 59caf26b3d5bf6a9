// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a function compiled with frame pointers looks like in CFI: rsp + 8
 * at entry, rsp + 16 once rbp is pushed (saved at CFA - 16), then
 * rbp + 16 for the body, rsp + 8 again after the epilogue's pop. Also
 * kept: the outermost frame (_start), the lazy PLT's rules, code in .plt*
 * sections with rsp-based rules only (PLT0, a .plt.got jump), and
 * frameless functions of at most 16 bytes that never move rsp (GCC gives
 * a function that is only `ret`, or `lea; ret`, no frame even with
 * -fno-omit-frame-pointer): a sample in one of those few bytes loses its
 * caller, as with any frame-pointer walk. A larger frameless function
 * (-momit-leaf-frame-pointer's leaves) makes the file one without.
 */
#include <gelf.h>
#include <string.h>

#include "unwind/keeps_fp.h"

#define FP_TINY_BYTES	16

void fp_shape__add(struct fp_shape *s, const struct unwind_row *r)
{
	if (r->cfa_reg == CFA_END || r->cfa_reg == CFA_PLT)
		s->ends = true;
	else if (r->cfa_reg == CFA_RBP && r->cfa_offset == 16 && r->rbp_offset == -16)
		s->framed = true;
	else if (r->cfa_reg != CFA_RSP)
		s->foreign = true;
	else if (r->cfa_offset > 16 || (r->cfa_offset == 16 && r->rbp_offset != -16))
		s->odd_rsp = true;
	s->moves |= r->cfa_reg != CFA_RSP || r->cfa_offset != 8;
}

static bool in_plt(const struct plt_ranges *plts, uint64_t addr)
{
	for (size_t i = 0; i < plts->n; i++)
		if (addr >= plts->r[i].start && addr < plts->r[i].end)
			return true;
	return false;
}

bool fp_shape__keeps(const struct fp_shape *s, const struct plt_ranges *plts, uint64_t start,
		     uint64_t size)
{
	if (s->ends)
		return true;
	if (s->foreign)
		return false;
	if (!s->framed)	/* rsp-based rules only */
		return in_plt(plts, start) || (!s->moves && size <= FP_TINY_BYTES);
	return !s->odd_rsp;
}

void plt_ranges__find(Elf *elf, struct plt_ranges *plts)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) && plts->n < sizeof(plts->r) / sizeof(plts->r[0])) {
		if (!gelf_getshdr(scn, &sh))
			return;
		s = elf_strptr(elf, shstrndx, sh.sh_name);
		if (s && !strncmp(s, ".plt", 4) && sh.sh_addr + sh.sh_size >= sh.sh_addr) {
			plts->r[plts->n].start = sh.sh_addr;
			plts->r[plts->n].end = sh.sh_addr + sh.sh_size;
			plts->n++;
		}
	}
}
