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

/* One stable pass of a radix sort: src by the byte at shift into dst.
 * False when every symbol has the same byte there (nothing moved). */
static bool radix_pass(const struct esym *src, struct esym *dst, size_t n, unsigned int shift)
{
	size_t count[256] = { 0 }, at = 0;

	for (size_t i = 0; i < n; i++)
		count[(src[i].start >> shift) & 255]++;
	if (count[(src[0].start >> shift) & 255] == n)
		return false;
	for (int b = 0; b < 256; b++) {
		size_t c = count[b];

		count[b] = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[count[(src[i].start >> shift) & 255]++] = src[i];
	return true;
}

/* By address, then the preferred alias first (sym_cmp's order): a radix
 * sort by start, then each run of aliases by sym_cmp. qsort_r() over all
 * of them, sym_cmp called through a pointer n log n times, was a tenth of
 * a fleet agent's CPU on a busy machine (each read of libLLVM's or
 * libjvm's symbols, read again when the symbol budget let them go).
 * Without memory for the second array, qsort_r() as before. */
static void sort_syms(struct elf_syms *es)
{
	size_t n = es->nr_syms, i, run;
	struct esym *tmp = malloc(n * sizeof(*tmp)), *src = es->syms, *dst = tmp, *t;

	if (!tmp) {
		qsort_r(es->syms, n, sizeof(*es->syms), sym_cmp, es->names);
		return;
	}
	for (unsigned int shift = 0; shift < 64; shift += 8)
		if (radix_pass(src, dst, n, shift)) {
			t = src;
			src = dst;
			dst = t;
		}
	if (src != es->syms)
		memcpy(es->syms, src, n * sizeof(*tmp));
	free(tmp);
	for (i = 0; i < n; i += run) {
		for (run = 1; i + run < n && es->syms[i + run].start == es->syms[i].start; run++)
			;
		if (run > 1)
			qsort_r(es->syms + i, run, sizeof(*es->syms), sym_cmp, es->names);
	}
}

void elf_syms_aliases__finish(struct elf_syms *es)
{
	struct esym *shrunk;

	if (es->nr_syms > 1)
		sort_syms(es);
	dedupe(es);
	size_sizeless(es);
	/* Aliases and dropped names leave slack; a failed shrink keeps it. */
	if (es->nr_syms) {
		shrunk = realloc(es->syms, es->nr_syms * sizeof(*es->syms));
		if (shrunk)
			es->syms = shrunk;
	}
}

