/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The file behind a mapping, opened without being fooled: by the kernel's
 * own link while the process runs (deleted files, other mount namespaces
 * included), else by path inside its root, checked against the inode. */
#ifndef BPFPROF_MAPPED_FILE_H
#define BPFPROF_MAPPED_FILE_H

#include <stdbool.h>
#include <sys/types.h>

struct vma;

/* Returns a read-only fd, or -errno (-ESTALE: the path names another file now). */
int mapped_file__open(pid_t tgid, bool alive, const struct vma *v);

#endif
