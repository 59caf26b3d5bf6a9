/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The name a DWARF function's frame (a DW_TAG_subprogram or an inlined
 * instance of one) is printed with. */
#ifndef BPFPROF_DWARF_DIE_NAME_H
#define BPFPROF_DWARF_DIE_NAME_H

#include <elfutils/libdw.h>
#include <stddef.h>

/* The room a name built from its scopes needs: longer ones go bare. */
#define DWARF_DIE_NAME_MAX	1024

/* The linkage name (demangled later, so C++ gets its qualified name), else
 * the plain one, which in C++ (a function of internal linkage: gcc gives it
 * no linkage name) is qualified by its namespaces and classes into buf
 * ("scoring::weigh"), so its inlined copies read as its symbol does. cu is
 * die's unit. NULL when DWARF names none. */
const char *dwarf_die_name(Dwarf_Die *die, Dwarf_Die *cu, char *buf, size_t size);

#endif
