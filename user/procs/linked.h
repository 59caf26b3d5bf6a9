/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The shared libraries an executable links (DT_NEEDED, recursively), found
 * where the dynamic loader would look, before the program runs: `-- cmd`
 * builds their unwind tables before releasing the command, so its first
 * samples unwind through them too. */
#ifndef BPFPROF_LINKED_H
#define BPFPROF_LINKED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define LINKED_MAX	64	/* libraries followed at most */

/* name in the ':'-separated directories of dirs, as the dynamic loader and
 * execvp() look (an empty one is the current directory; origin, when not
 * NULL, replaces $ORIGIN and ${ORIGIN}): true with its path in out when
 * access(mode) allows it there. */
bool linked__find(const char *dirs, const char *origin, const char *name, int mode,
		  char out[PATH_MAX]);

/* The paths of the libraries exe links, each once, in the order the loader
 * would meet them (breadth first); one not found is left out. *paths and
 * each path are the caller's to free. Returns the count or -errno (exe
 * unreadable or not ELF: then nothing to preload). */
int linked__libs(const char *exe, char ***paths);

#endif
