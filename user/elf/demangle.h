/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* C++ (Itanium ABI) and Rust (legacy and v0) symbol names made readable,
 * through libiberty's cplus_demangle (binutils' and gdb's demangler). */
#ifndef BPFPROF_DEMANGLE_H
#define BPFPROF_DEMANGLE_H

#include <stddef.h>

struct demangler;

/* How much of a C++ name is printed: perf's default (the qualified name,
 * template arguments included, without the parameters, return type or a
 * clone's " [clone .isra.0]": one name for every copy and overload of a
 * function), or all that the mangled name says (perf -v, c++filt). */
enum demangle_form {
	DEMANGLE_SHORT,
	DEMANGLE_FULL,
};

struct demangler *demangler__new(enum demangle_form form);
void demangler__free(struct demangler *dm);

/* The readable form of name, or name itself when it is not a mangled name
 * (or libiberty cannot read it). A PLT entry's "NAME@plt" is NAME's
 * readable form and "@plt", as perf prints it. Each distinct name is demangled once; the
 * result stays valid until demangler__free() or demangler__clear(). NULL
 * only when name is NULL. */
const char *demangler__name(struct demangler *dm, const char *name);

/* Forgets every cached name (to bound memory in long runs). */
void demangler__clear(struct demangler *dm);

/* Names cached. */
size_t demangler__count(const struct demangler *dm);

#endif
