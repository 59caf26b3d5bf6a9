// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The functions of a session's compile units by address (see
 * dwarf_subprograms.h). */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/grow.h"
#include "base/hash_bytes.h"
#include "elf/dwarf_subprograms.h"

/* Namespaces and classes nested deeper than this are not read (the DIEs
 * of a file another user wrote: recursion is bounded). */
#define MAX_NESTING	64

/* One address range of the subprogram numbered seq (DIE order). */
struct sub_range {
	Dwarf_Addr start, end;
	uint32_t seq;
};

/* One unit's table: ranges sorted by start; max_end[i] the largest end of
 * ranges 0..i, so a search walking down from an address stops where no
 * earlier range can reach it. */
struct unit_table {
	const void *unit;	/* the key: libdw's unit behind cu->cu */
	struct sub_range *r;
	Dwarf_Addr *max_end;
	size_t n, cap;
	Dwarf_Die *subs;	/* by seq */
	size_t nsubs, subs_cap;
	bool failed;		/* out of memory: lookups answer UNKNOWN */
};

struct dwarf_subprograms {
	struct unit_table **slots;	/* open addressing by unit */
	size_t n, cap;
};

struct dwarf_subprograms *dwarf_subprograms__new(void)
{
	return calloc(1, sizeof(struct dwarf_subprograms));
}

static void free_table(struct unit_table *t)
{
	free(t->r);
	free(t->max_end);
	free(t->subs);
	free(t);
}

void dwarf_subprograms__free(struct dwarf_subprograms *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; i < ds->cap; i++)
		if (ds->slots[i])
			free_table(ds->slots[i]);
	free(ds->slots);
	free(ds);
}

/* The subprogram's ranges (dwarf_haspc's: DW_AT_low_pc/high_pc or
 * DW_AT_ranges), the empty ones left out as dwarf_haspc never matches
 * them. Returns 0 or -1 (out of memory). */
static int add_subprogram(struct unit_table *t, Dwarf_Die *die)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	size_t before = t->n;

	if (t->nsubs >= UINT32_MAX)
		return -1;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (GROW(t->r, t->cap, t->n + 1))
			return -1;
		t->r[t->n++] = (struct sub_range){ start, end, (uint32_t)t->nsubs };
	}
	if (t->n == before)
		return 0;
	if (GROW(t->subs, t->subs_cap, t->nsubs + 1))
		return -1;
	t->subs[t->nsubs++] = *die;
	return 0;
}

static bool is_scope(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

/* The subprograms below parent, in DIE order, descending into the scopes
 * a subprogram may sit in (not into subprograms: their nested DIEs are
 * the inline walk's). Returns 0 or -1 (out of memory). */
static int read_dies(struct unit_table *t, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;
	int tag;

	if (dwarf_child(parent, &child))
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (is_scope(tag) && depth < MAX_NESTING) {
			if (read_dies(t, &child, depth + 1))
				return -1;
		} else if (tag == DW_TAG_subprogram && add_subprogram(t, &child)) {
			return -1;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct sub_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Reads unit cu's table; on failure, an empty one marked failed. */
static void build(struct unit_table *t, Dwarf_Die *cu)
{
	if (read_dies(t, cu, 0) || (t->n && !(t->max_end = malloc(t->n * sizeof(*t->max_end))))) {
		t->failed = true;
		t->n = 0;
		return;
	}
	if (t->n)
		qsort(t->r, t->n, sizeof(*t->r), cmp_range);
	for (size_t i = 0; i < t->n; i++)
		t->max_end[i] = i && t->max_end[i - 1] > t->r[i].end ? t->max_end[i - 1] : t->r[i].end;
}

static struct unit_table **slot_of(struct unit_table **slots, size_t cap, const void *unit)
{
	size_t mask = cap - 1, i = addr_slot((uint64_t)(uintptr_t)unit, mask);

	while (slots[i] && slots[i]->unit != unit)
		i = addr_slot_next(i, mask);
	return &slots[i];
}

static int grow_slots(struct dwarf_subprograms *ds)
{
	size_t cap = ds->cap ? ds->cap * 2 : 16;
	struct unit_table **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < ds->cap; i++)
		if (ds->slots[i])
			*slot_of(slots, cap, ds->slots[i]->unit) = ds->slots[i];
	free(ds->slots);
	ds->slots = slots;
	ds->cap = cap;
	return 0;
}

/* Unit cu's table, read on first sight; NULL when out of memory. */
static struct unit_table *table_of(struct dwarf_subprograms *ds, Dwarf_Die *cu)
{
	struct unit_table **slot, *t;

	if (ds->cap) {
		slot = slot_of(ds->slots, ds->cap, cu->cu);
		if (*slot)
			return *slot;
	}
	if (2 * (ds->n + 1) > ds->cap && grow_slots(ds))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->unit = cu->cu;
	build(t, cu);
	*slot_of(ds->slots, ds->cap, t->unit) = t;
	ds->n++;
	return t;
}

enum subprogram_found dwarf_subprograms__find(struct dwarf_subprograms *ds, Dwarf_Die *cu,
					      Dwarf_Addr addr, Dwarf_Die *out)
{
	struct unit_table *t = table_of(ds, cu);
	size_t lo = 0, hi, j;
	uint32_t best = UINT32_MAX;

	if (!t || t->failed)
		return SUBPROGRAM_UNKNOWN;
	hi = t->n;
	while (lo < hi) {	/* lo: the first range starting past addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo; j-- > 0 && t->max_end[j] > addr;)
		if (t->r[j].end > addr && t->r[j].seq < best)
			best = t->r[j].seq;
	if (best == UINT32_MAX)
		return SUBPROGRAM_NONE;
	*out = t->subs[best];
	return SUBPROGRAM_FOUND;
}
