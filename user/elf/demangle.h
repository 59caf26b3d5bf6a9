/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* C++ (Itanium ABI) and Rust (legacy and v0) symbol names made readable,
 * through libiberty's cplus_demangle (binutils' and gdb's demangler). */
#ifndef BPFPROF_DEMANGLE_H
#define BPFPROF_DEMANGLE_H

#include <stddef.h>

struct demangler;

struct demangler *demangler__new(void);
void demangler__free(struct demangler *dm);

/* The readable form of name, or name itself when it is not a mangled name
 * (or libiberty cannot read it). Each distinct name is demangled once; the
 * result stays valid until demangler__free() or demangler__clear(). NULL
 * only when name is NULL. */
const char *demangler__name(struct demangler *dm, const char *name);

/* Forgets every cached name (to bound memory in long runs). */
void demangler__clear(struct demangler *dm);

/* Names cached. */
size_t demangler__count(const struct demangler *dm);

#endif
