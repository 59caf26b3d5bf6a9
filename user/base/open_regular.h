/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Opening a file by a path bpfprof did not choose, as root: only if it is a
 * regular file, checked before it is opened. */
#ifndef BPFPROF_OPEN_REGULAR_H
#define BPFPROF_OPEN_REGULAR_H

/* Opens path read-only if it is a regular file: never opens anything else
 * (a FIFO would block, a device node may act on open): the file is checked
 * on an O_PATH fd first, then opened through /proc/self/fd. Every open of
 * a file by a path bpfprof did not choose goes through it. Returns the fd
 * or -errno (-EINVAL: not a regular file). */
int file_open_regular(const char *path);

/* file_open_regular() with more open(2) flags (O_NOFOLLOW: a symbolic link
 * is -ELOOP), the file's fstat() in *st when st is not NULL. */
struct stat;
int file_open_regular_flags(const char *path, int flags, struct stat *st);

/* Its two halves, for a caller with checks of its own (owner, links) to
 * make before the file is opened: an O_PATH fd of path if it is a regular
 * file, its fstat() in *st, or -errno (-ELOOP: a symbolic link and
 * O_NOFOLLOW, -EINVAL: not a regular file); then that file opened
 * read-only (path_fd is closed), or -errno (-ESTALE: not the file st). */
int file_open_path(const char *path, int flags, struct stat *st);
int file_reopen(int path_fd, const struct stat *st);

#endif
