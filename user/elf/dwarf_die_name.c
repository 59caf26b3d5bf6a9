// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The name a DWARF function's frame is printed with (see dwarf_die_name.h). */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>

#include "elf/dwarf_die_name.h"

#define MAX_DECL_HOPS		8	/* abstract origins and specifications followed */

static bool is_cxx(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
		return true;
	default:
		return false;
	}
}

/* The DIE that declares die's function: through DW_AT_abstract_origin (an
 * inlined or out-of-line copy) and DW_AT_specification (a definition
 * outside its class or namespace block). */
static Dwarf_Die declaration(Dwarf_Die *die)
{
	Dwarf_Die cur = *die, next;
	Dwarf_Attribute attr;

	for (int hops = 0; hops < MAX_DECL_HOPS; hops++) {
		if (!dwarf_attr(&cur, DW_AT_abstract_origin, &attr) &&
		    !dwarf_attr(&cur, DW_AT_specification, &attr))
			break;
		if (!dwarf_formref_die(&attr, &next))
			break;
		cur = next;
	}
	return cur;
}

/* name qualified by the namespaces and classes around die's declaration,
 * as the demangler prints a mangled name ("scoring::weigh"); name itself
 * when there are none or it does not fit. One walk of the unit's DIEs. */
static const char *qualified(Dwarf_Die *die, const char *name, char *buf, size_t size)
{
	Dwarf_Die decl = declaration(die), *scopes = NULL;
	int n = dwarf_getscopes_die(&decl, &scopes), tag, w;
	const char *part;
	size_t len = 0;

	for (int i = n - 1; i > 0 && len < size; i--) {
		tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			continue;
		part = dwarf_diename(&scopes[i]);
		w = snprintf(buf + len, size - len, "%s::", part ? part : "(anonymous namespace)");
		len = w < 0 ? size : len + (size_t)w;
	}
	free(scopes);
	if (!len || len >= size)
		return name;
	w = snprintf(buf + len, size - len, "%s", name);
	return w < 0 || (size_t)w >= size - len ? name : buf;
}

/* The name a frame is printed with: the linkage name (demangled later,
 * so C++ gets its qualified name), else the plain one, which in C++ (a
 * function of internal linkage: gcc gives it no linkage name) is qualified
 * here into buf, so its inlined copies read as its symbol does. */
const char *dwarf_die_name(Dwarf_Die *die, Dwarf_Die *cu, char *buf, size_t size)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (name)
		return name;
	name = dwarf_diename(die);
	return name && is_cxx(cu) ? qualified(die, name, buf, size) : name;
}
