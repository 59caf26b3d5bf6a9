/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The shared libraries an executable links (DT_NEEDED, recursively), found
 * where the dynamic loader would look, before the program runs: `-- cmd`
 * builds their unwind tables before releasing the command, so its first
 * samples unwind through them too. */
#ifndef BPFPROF_LINKED_H
#define BPFPROF_LINKED_H

#include <stddef.h>

#define LINKED_MAX	64	/* libraries followed at most */

/* The paths of the libraries exe links, each once, in the order the loader
 * would meet them (breadth first); one not found is left out. *paths and
 * each path are the caller's to free. Returns the count or -errno (exe
 * unreadable or not ELF: then nothing to preload). */
int linked__libs(const char *exe, char ***paths);

#endif
