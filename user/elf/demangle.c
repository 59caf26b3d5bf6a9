// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Demangling through libiberty (Debian's libiberty-dev, static), not
 * libstdc++'s __cxa_demangle: libiberty reads C++ and both Rust schemes
 * (legacy _ZN...17h<hash>E and v0 _R...) through one call, and it is the
 * demangler binutils, gdb and perf use, so names match theirs. Only names
 * that start like a mangled name are passed to it, so C programs pay one
 * prefix test per frame.
 *
 * The short form is libiberty's without DMGL_PARAMS, as perf asks for it
 * unless verbose: "std::__introsort_loop<...>" where the full form has
 * "void std::__introsort_loop<...>(..., long, ...) [clone .isra.0]" (148
 * characters against 382 for std::sort over doubles), so a function's
 * inlined and out-of-line copies, and its clones, read the same.
 */
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "elf/demangle.h"

/* Rust hashes (legacy "::h0123...") are left out in both, as perf does by
 * default (DMGL_VERBOSE would keep them). */
#define DEMANGLE_SHORT_OPTS	DMGL_AUTO
#define DEMANGLE_FULL_OPTS	(DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO)
#define PLT_SUFFIX		"@plt"

struct dm_entry {
	char *mangled;		/* first: the tree's key */
	char *readable;		/* NULL: not demangled, use mangled */
};

struct demangler {
	void *tree;		/* tsearch tree of struct dm_entry by mangled name */
	size_t n;
	int opts;		/* libiberty's DMGL_* */
};

struct demangler *demangler__new(enum demangle_form form)
{
	struct demangler *dm = calloc(1, sizeof(struct demangler));

	if (dm)
		dm->opts = form == DEMANGLE_FULL ? DEMANGLE_FULL_OPTS : DEMANGLE_SHORT_OPTS;
	return dm;
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

/* libiberty's reading of name, NULL when it has none; a PLT entry's
 * "NAME@plt" is NAME's reading and the suffix. */
static char *readable(const char *name, int opts)
{
	size_t len = strlen(name), sfx = strlen(PLT_SUFFIX);
	char *base, *plain, *out = NULL;

	if (len <= sfx || strcmp(name + len - sfx, PLT_SUFFIX))
		return cplus_demangle(name, opts);
	base = strndup(name, len - sfx);
	plain = base ? cplus_demangle(base, opts) : NULL;
	if (plain && asprintf(&out, "%s" PLT_SUFFIX, plain) < 0)
		out = NULL;
	free(plain);
	free(base);
	return out;
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
			e->readable = readable(name, dm->opts);	/* NULL: not mangled */
		if (!e->mangled || !tsearch(e, &dm->tree, cmp_entry)) {
			free_entry(e);
			return name;
		}
		dm->n++;
	}
	return e->readable ? e->readable : name;
}
