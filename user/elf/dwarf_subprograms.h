/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The functions of a libdw session's compile units by address: each unit's
 * DW_TAG_subprogram DIEs (at its top level and in the namespaces, classes,
 * structures and unions around them, as dwarf_lines' walk descends) read
 * once into a table of their address ranges. A lookup is a binary search,
 * where walking the unit's DIEs from its start for every address was most
 * of an end of run (a big unit's DIEs skipped sibling by sibling).
 */
#ifndef BPFPROF_DWARF_SUBPROGRAMS_H
#define BPFPROF_DWARF_SUBPROGRAMS_H

#include <elfutils/libdw.h>
#include <stdbool.h>

struct dwarf_subprograms;

/* The tables of one libdw session: freed before the session ends (they
 * hold its DIEs). NULL when out of memory. */
struct dwarf_subprograms *dwarf_subprograms__new(void);
void dwarf_subprograms__free(struct dwarf_subprograms *ds);

enum subprogram_found {
	SUBPROGRAM_FOUND,	/* *out is the subprogram holding addr */
	SUBPROGRAM_NONE,	/* none of the unit's holds addr */
	SUBPROGRAM_UNKNOWN,	/* no table (out of memory): ask the DIEs */
};

/* The subprogram of unit cu whose ranges hold addr: when several do, the
 * first in the order of the unit's DIEs (what a walk of them finds). The
 * unit's table is read at its first lookup. */
enum subprogram_found dwarf_subprograms__find(struct dwarf_subprograms *ds, Dwarf_Die *cu,
					      Dwarf_Addr addr, Dwarf_Die *out);

#endif
