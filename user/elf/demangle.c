// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Demangling through libiberty (Debian's libiberty-dev, static), not
 * libstdc++'s __cxa_demangle: libiberty reads C++ and both Rust schemes
 * (legacy _ZN...17h<hash>E and v0 _R...) through one call, and it is the
 * demangler binutils, gdb and perf use, so names match theirs. Only names
 * that start like a mangled name are passed to it, so C programs pay one
 * prefix test per frame.
 */
#include <search.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "elf/demangle.h"

/* Rust hashes (legacy "::h0123...") are left out, as perf does by default. */
#define DEMANGLE_OPTS	(DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO)

struct dm_entry {
	char *mangled;		/* first: the tree's key */
	char *readable;		/* NULL: not demangled, use mangled */
};

struct demangler {
	void *tree;		/* tsearch tree of struct dm_entry by mangled name */
	size_t n;
};

struct demangler *demangler__new(void)
{
	return calloc(1, sizeof(struct demangler));
}

static void free_entry(void *node)
{
	struct dm_entry *e = node;

	free(e->mangled);
	free(e->readable);
	free(e);
}

void demangler__clear(struct demangler *dm)
{
	tdestroy(dm->tree, free_entry);
	dm->tree = NULL;
	dm->n = 0;
}

void demangler__free(struct demangler *dm)
{
	if (!dm)
		return;
	demangler__clear(dm);
	free(dm);
}

size_t demangler__count(const struct demangler *dm)
{
	return dm->n;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct dm_entry *)a)->mangled, ((const struct dm_entry *)b)->mangled);
}

/* _Z (C++, and Rust legacy, which is C++-shaped) or _R (Rust v0); on some
 * platforms one more leading underscore. */
static bool looks_mangled(const char *name)
{
	if (name[0] == '_' && name[1] == '_')
		name++;
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

const char *demangler__name(struct demangler *dm, const char *name)
{
	struct dm_entry key = { .mangled = (char *)name }, *e;
	void *node;

	if (!name || !looks_mangled(name))
		return name;
	node = tfind(&key, &dm->tree, cmp_entry);
	if (node)
		e = *(struct dm_entry **)node;
	else {
		e = calloc(1, sizeof(*e));
		if (!e)
			return name;
		e->mangled = strdup(name);
		if (e->mangled)
			e->readable = cplus_demangle(name, DEMANGLE_OPTS);	/* NULL: not mangled */
		if (!e->mangled || !tsearch(e, &dm->tree, cmp_entry)) {
			free_entry(e);
			return name;
		}
		dm->n++;
	}
	return e->readable ? e->readable : name;
}
