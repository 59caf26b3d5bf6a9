/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The file behind a mapping, opened without being fooled: by the kernel's
 * own link while the process runs (deleted files, other mount namespaces
 * included), else by path inside its root, checked against the inode. */
#ifndef BPFPROF_MAPPED_FILE_H
#define BPFPROF_MAPPED_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vma;

/* A mapped file's identity as the kernel reports mappings: a path names a
 * file only until it is replaced, (device, inode) for as long as it lives. */
struct file_id {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
};

/* tsearch() order for structs that start with a struct file_id. */
int file_id__cmp(const void *a, const void *b);

/* The identity of the file behind v. */
struct file_id file_id__of(const struct vma *v);

/* Returns a read-only fd, or -errno (-ESTALE: the path names another file now). */
int mapped_file__open(pid_t tgid, bool alive, const struct vma *v);

#endif
