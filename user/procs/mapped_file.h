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

/* What else identifies a file, read from it while it was surely the mapped
 * one: a path's file with the same inode number is that file only if these
 * match too (another device's file may have the number; overlayfs shows
 * its own device for the file a mapping names by the underlying one). */
struct file_stamp {
	uint64_t dev;		/* st_dev, as its path shows it */
	uint64_t ino;
	uint64_t size;
	int64_t mtime_ns;
	bool known;
};

/* tsearch() order for structs that start with a struct file_id. */
int file_id__cmp(const void *a, const void *b);

/* The identity of the file behind v. */
struct file_id file_id__of(const struct vma *v);

/* The stamp of an open file. */
struct file_stamp file_stamp__of(int fd);
/* The stamp of the regular file path names now (not known: none). */
struct file_stamp file_stamp__of_path(const char *path);
/* Both known and equal. */
bool file_stamp__same(const struct file_stamp *a, const struct file_stamp *b);

/* The file v maps itself (/proc/TGID/map_files/), while tgid runs: a
 * read-only fd, or -errno. */
int mapped_file__open_mapped(pid_t tgid, const struct vma *v);

/* Returns a read-only fd, or -errno (-ESTALE: the path names another file
 * now). Opened by path, the file must be the one v maps: the same inode on
 * the same device, v's or, when stamp is known, the stamp's, with its
 * size and mtime. */
int mapped_file__open(pid_t tgid, bool alive, const struct vma *v, const struct file_stamp *stamp);

#endif
