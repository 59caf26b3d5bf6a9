// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One name per address. Aliases (several names at one address) collapse
 * to one name, chosen by:
 *   1. binding: GLOBAL (or GNU_UNIQUE) before WEAK before LOCAL,
 *   2. fewer leading underscores ("malloc" before "__libc_malloc"),
 *   3. shorter name,
 *   4. strcmp order, so the choice never depends on the symbol table order.
 * The merged symbol gets the largest size any of its aliases declares
 * (a sizeless alias counts only when none has a size).
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_syms_layout.h"

static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address, then the preferred alias first (see the top of the file). */
static int sym_cmp(const void *pa, const void *pb, void *names)
{
	const struct esym *a = pa, *b = pb;
	const char *na = (const char *)names + a->name, *nb = (const char *)names + b->name;
	size_t ua, ub, la, lb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	ua = underscores(na);
	ub = underscores(nb);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(na, nb);
}

/* An alias's extent into the kept symbol: a declared size wins over none
 * (a sizeless one's end is only its section's), then the larger. */
static void merge_alias(struct esym *kept, const struct esym *alias)
{
	if (kept->sizeless != alias->sizeless) {
		if (kept->sizeless) {
			kept->sizeless = false;
			kept->end = alias->end;
		}
		return;
	}
	if (alias->end > kept->end)
		kept->end = alias->end;
}

/* Keeps the first (preferred) alias of each address, with the largest end. */
static void dedupe(struct elf_syms *es)
{
	size_t out = 0;

	for (size_t i = 0; i < es->nr_syms; i++) {
		struct esym *last = out ? &es->syms[out - 1] : NULL;

		if (last && last->start == es->syms[i].start) {
			merge_alias(last, &es->syms[i]);
			continue;
		}
		es->syms[out++] = es->syms[i];
	}
	es->nr_syms = out;
}

static const struct elf_load *seg_of_vaddr(const struct elf_syms *es, uint64_t vaddr)
{
	for (size_t i = 0; i < es->nr_segs; i++)
		if (vaddr >= es->segs[i].vaddr && vaddr - es->segs[i].vaddr < es->segs[i].memsz)
			return &es->segs[i];
	return NULL;
}

/* A symbol without a size (hand-written assembly, _init) extends to the
 * next symbol, but not past the end of its section (_init's .init is
 * followed by .plt) nor of the segment it is in. */
static void size_sizeless(struct elf_syms *es)
{
	for (size_t i = 0; i < es->nr_syms; i++) {
		struct esym *s = &es->syms[i];
		const struct elf_load *seg;
		uint64_t end;

		if (!s->sizeless)
			continue;
		s->sizeless = false;
		seg = seg_of_vaddr(es, s->start);
		end = i + 1 < es->nr_syms ? es->syms[i + 1].start : UINT64_MAX;
		if (s->end > s->start && s->end < end)
			end = s->end;
		if (seg && seg->vaddr + seg->memsz < end)
			end = seg->vaddr + seg->memsz;
		/* Nothing bounds it: claim only its first byte. */
		s->end = end == UINT64_MAX ? add_sat(s->start, 1) : end;
	}
}

void elf_syms_aliases__finish(struct elf_syms *es)
{
	struct esym *shrunk;

	if (es->nr_syms > 1)
		qsort_r(es->syms, es->nr_syms, sizeof(*es->syms), sym_cmp, es->names);
	dedupe(es);
	size_sizeless(es);
	/* Aliases and dropped names leave slack; a failed shrink keeps it. */
	if (es->nr_syms) {
		shrunk = realloc(es->syms, es->nr_syms * sizeof(*es->syms));
		if (shrunk)
			es->syms = shrunk;
	}
}

