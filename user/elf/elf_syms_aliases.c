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

/* Ties (aliases at one address) into sym_cmp's order: a few at most. */
static void order_ties(struct esym *s, size_t n, char *names)
{
	size_t i, j, run;
	struct esym v;

	for (i = 0; i < n; i = run) {
		for (run = i + 1; run < n && s[run].start == s[i].start; run++)
			;
		for (j = i + 1; j < run; j++) {	/* insertion: stable, as a merge sort */
			size_t k = j;

			v = s[j];
			while (k > i && sym_cmp(&s[k - 1], &v, names) > 0) {
				s[k] = s[k - 1];
				k--;
			}
			s[k] = v;
		}
	}
}

#define RADIX_BITS	11
#define RADIX		(1u << RADIX_BITS)

/* One stable counting pass of the digit at shift: from into to. */
static void radix_pass(const struct esym *from, struct esym *to, size_t n, unsigned int shift,
		       size_t *count)
{
	size_t sum = 0, c;

	memset(count, 0, RADIX * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[(from[i].start >> shift) & (RADIX - 1)]++;
	for (size_t d = 0; d < RADIX; d++) {
		c = count[d];
		count[d] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++)
		to[count[(from[i].start >> shift) & (RADIX - 1)]++] = from[i];
}

/* es->syms in sym_cmp's order: stably by address, a digit a pass, only
 * over the bits where addresses differ (a library's are within a few MiB),
 * then each address's aliases. qsort_r's merge sort of a big library's
 * table, its comparator called through a pointer n log n times, was a
 * tenth of an end of run. Returns -1 when out of memory (nothing moved). */
static int sort_syms(struct elf_syms *es)
{
	size_t n = es->nr_syms, *count = malloc(RADIX * sizeof(*count));
	struct esym *tmp = malloc(n * sizeof(*tmp)), *from = es->syms, *to = tmp, *swap;
	uint64_t differ = 0;

	if (!count || !tmp) {
		free(count);
		free(tmp);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		differ |= es->syms[i].start ^ es->syms[0].start;
	for (unsigned int shift = 0; shift < 64 && differ >> shift; shift += RADIX_BITS) {
		if (!((differ >> shift) & (RADIX - 1)))
			continue;	/* every address has the same digit here */
		radix_pass(from, to, n, shift, count);
		swap = from;
		from = to;
		to = swap;
	}
	if (from != es->syms)
		memcpy(es->syms, from, n * sizeof(*from));
	free(tmp);
	free(count);
	order_ties(es->syms, n, es->names);
	return 0;
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

	if (es->nr_syms > 1 && sort_syms(es))
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

