/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Files in a directory held open by fd: written whole or not at all,
 * listed in name order. Never through a symlink, never opening what is
 * not a regular file: we run as root. */
#ifndef BPFPROF_DIRFILES_H
#define BPFPROF_DIRFILES_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

struct dir_entry {
	char *name;
	off_t size;
};

/* An -errno value of ours: the name exists and is not a regular file. */
#define DIRFILES_ENOTREG	4096
/* The same: a directory another user owns or may write into. */
#define DIRFILES_ENOTOURS	4097
/* The same: a file of another user's in a shared (sticky) directory. */
#define DIRFILES_ETHEIRS	4098

/* A file written whole or not at all: a new temporary (O_EXCL, a random
 * name, mode) beside its final name, renamed over it by commit. The final
 * name, if it exists, must be a regular file (and, in a directory others
 * may write into, ours: -DIRFILES_ETHEIRS): it is never opened, so a FIFO
 * there cannot block us, and a run that fails leaves it as it was. */
struct atomic_file {
	FILE *f;			/* write here */
	int dirfd;
	bool own_dirfd;
	char name[NAME_MAX + 1];
	char tmp[NAME_MAX + 1];
};

/* path: a file name, relative or absolute. Returns 0 or -errno. */
int atomic_file__open(struct atomic_file *af, const char *path, mode_t mode);
/* name: in the directory held open by dirfd (which stays the caller's). */
int atomic_file__open_at(struct atomic_file *af, int dirfd, const char *name, mode_t mode);
/* Flushes, fsyncs, renames over the final name. Returns 0 or -errno; the
 * temporary is gone either way. */
int atomic_file__commit(struct atomic_file *af);
/* Removes the temporary: the final name stays as it was. */
void atomic_file__discard(struct atomic_file *af);

/* buf as dirfd/name through an atomic_file. Returns 0 or -errno. */
int dirfiles__write(int dirfd, const char *name, const void *buf, size_t len, mode_t mode);

/* Creates the directory (mode) if needed and opens it, never through a
 * symlink; refuses one not owned by us or writable by others unless it is
 * sticky (and ours). Returns the fd or -errno. */
int dirfiles__open_dir(const char *path, mode_t mode);

/* Removes the temporaries of name (NULL: of any name) that runs killed
 * before their commit or discard left in dirfd (SIGKILL, the OOM killer):
 * only temp_name()'s pattern, regular files of ours with one link, not locked by a writer,
 * their writer's pid gone. Returns how many. */
int dirfiles__clean_stale(int dirfd, const char *name);

/* 0 when dirfd/name is absent or a regular file, else -DIRFILES_ENOTREG. */
int dirfiles__check_regular(int dirfd, const char *name);

/* strerror() that knows DIRFILES_ENOTREG; err is -errno. */
const char *dirfiles__strerror(int err);

/* A file bpfprof made: regular, owned by the effective user, one link (not
 * its mode: a umask of 002 makes ours group-writable). In a shared (sticky)
 * directory another user can plant any name but not a file of ours, nor
 * rename or remove ours: what is not ours is never deleted, replaced or
 * appended to. */
bool dirfiles__is_ours(const struct stat *st);

/* The files of ours (dirfiles__is_ours) in the directory for which
 * want(name, ctx) is true, sorted by name: a new array of *n entries,
 * freed with dirfiles__free(). *others (NULL: not counted) gets how many
 * names want took are another's (or not regular files): left out. */
int dirfiles__list(int dirfd, bool (*want)(const char *name, void *ctx), void *ctx,
		   struct dir_entry **out, size_t *n, size_t *others);

void dirfiles__free(struct dir_entry *list, size_t n);

#endif
