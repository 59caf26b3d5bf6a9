/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Files in a directory held open by fd: written whole or not at all,
 * listed in name order. Never through a symlink: we run as root. */
#ifndef BPFPROF_DIRFILES_H
#define BPFPROF_DIRFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct dir_entry {
	char *name;
	off_t size;
};

/* Writes buf as dirfd/name: into a new temporary file (O_EXCL, mode),
 * fsync'd, then renamed over name, so no reader ever sees half of it.
 * tmp_tag makes the temporary name unique among concurrent writers.
 * Returns 0 or -errno (the temporary is removed). */
int dirfiles__write(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		    unsigned int tmp_tag);

/* The regular files of the directory for which want(name, ctx) is true,
 * sorted by name: a new array of *n entries, freed with dirfiles__free(). */
int dirfiles__list(int dirfd, bool (*want)(const char *name, void *ctx), void *ctx,
		   struct dir_entry **out, size_t *n);

void dirfiles__free(struct dir_entry *list, size_t n);

#endif
