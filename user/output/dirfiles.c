// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Atomic writes (a temporary, then a rename) and sorted listings. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "dirfiles.h"

/* .NAME.XXXXXXXX.tmp with a random part: a name planted in advance (a
 * shared directory) cannot be guessed, and concurrent writers differ. */
static int temp_name(const char *name, char *tmp, size_t size)
{
	uint32_t r;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint32_t)getpid() ^ (uint32_t)time(NULL) << 8;
	if (snprintf(tmp, size, ".%s.%08" PRIx32 ".tmp", name, r) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/* An existing name that is not a regular file (a FIFO, a device, a
 * directory, a symlink) is refused, never opened: opening a FIFO blocks. */
static int check_target(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(st.st_mode) ? 0 : -DIRFILES_ENOTREG;
}

static int open_in(struct atomic_file *af, int dirfd, const char *name, mode_t mode)
{
	int fd, err, tries;

	af->dirfd = dirfd;
	af->f = NULL;
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EISDIR;
	if (snprintf(af->name, sizeof(af->name), "%s", name) >= (int)sizeof(af->name))
		return -ENAMETOOLONG;
	err = check_target(dirfd, name);
	for (tries = 0; !err && tries < 8; tries++) {
		err = temp_name(name, af->tmp, sizeof(af->tmp));
		if (err)
			return err;
		fd = openat(dirfd, af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC, mode);
		if (fd < 0) {
			err = errno == EEXIST ? 0 : -errno;
			continue;
		}
		af->f = fdopen(fd, "w");
		if (af->f)
			return 0;
		err = -errno;
		close(fd);
		unlinkat(dirfd, af->tmp, 0);
		return err;
	}
	return err ? err : -EEXIST;
}

int atomic_file__open(struct atomic_file *af, const char *path, mode_t mode)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int dirfd, err;

	af->own_dirfd = true;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	err = open_in(af, dirfd, slash ? slash + 1 : path, mode);
	if (err) {
		close(dirfd);
		af->dirfd = -1;
	}
	return err;
}

int atomic_file__open_at(struct atomic_file *af, int dirfd, const char *name, mode_t mode)
{
	af->own_dirfd = false;
	return open_in(af, dirfd, name, mode);
}

static void release(struct atomic_file *af)
{
	if (af->own_dirfd)
		close(af->dirfd);
	af->dirfd = -1;
}

int atomic_file__commit(struct atomic_file *af)
{
	int err = fflush(af->f) ? -errno : 0;

	if (!err && fsync(fileno(af->f)))
		err = -errno;
	if (fclose(af->f) && !err)
		err = -errno;
	af->f = NULL;
	/* the target may have become a FIFO or a directory meanwhile */
	if (!err)
		err = check_target(af->dirfd, af->name);
	if (!err && renameat(af->dirfd, af->tmp, af->dirfd, af->name))
		err = -errno;
	if (err)
		unlinkat(af->dirfd, af->tmp, 0);
	release(af);
	return err;
}

void atomic_file__discard(struct atomic_file *af)
{
	if (af->dirfd < 0)
		return;
	if (af->f)
		fclose(af->f);
	af->f = NULL;
	unlinkat(af->dirfd, af->tmp, 0);
	release(af);
}

int dirfiles__write(int dirfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	struct atomic_file af;
	int err = atomic_file__open_at(&af, dirfd, name, mode);

	if (err)
		return err;
	if (len && fwrite(buf, 1, len, af.f) != len) {
		err = -(errno ? errno : EIO);
		atomic_file__discard(&af);
		return err;
	}
	return atomic_file__commit(&af);
}

int dirfiles__check_regular(int dirfd, const char *name)
{
	return check_target(dirfd, name);
}

/* Ours: owned by us and writable by nobody else, or sticky (like /tmp)
 * and still ours. Anything else lets another user plant or swap files. */
static int check_ours(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != geteuid())
		return -DIRFILES_ENOTOURS;
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return -DIRFILES_ENOTOURS;
	return 0;
}

int dirfiles__open_dir(const char *path, mode_t mode)
{
	int fd, err;

	if (mkdir(path, mode) && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = check_ours(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

const char *dirfiles__strerror(int err)
{
	if (err == -DIRFILES_ENOTREG)
		return "not a regular file: refusing to replace it";
	if (err == -DIRFILES_ENOTOURS)
		return "owned by another user or writable by others: refusing it";
	return strerror(-err);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct dir_entry *)a)->name, ((const struct dir_entry *)b)->name);
}

static int append(struct dir_entry **list, size_t *n, size_t *cap, const char *name, off_t size)
{
	struct dir_entry *grown;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;

		grown = realloc(*list, c * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		*list = grown;
		*cap = c;
	}
	(*list)[*n].name = strdup(name);
	if (!(*list)[*n].name)
		return -ENOMEM;
	(*list)[(*n)++].size = size;
	return 0;
}

int dirfiles__list(int dirfd, bool (*want)(const char *name, void *ctx), void *ctx,
		   struct dir_entry **out, size_t *n)
{
	int fd = dup(dirfd), err = 0;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	size_t cap = 0;
	struct dirent *de;
	struct stat st;

	*out = NULL;
	*n = 0;
	if (!dir) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	rewinddir(dir);	/* the dup shares its offset with earlier listings */
	while (!err && (de = readdir(dir))) {
		if (!want(de->d_name, ctx) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		err = append(out, n, &cap, de->d_name, st.st_size);
	}
	closedir(dir);
	if (err) {
		dirfiles__free(*out, *n);
		*out = NULL;
		*n = 0;
		return err;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_name);
	return 0;
}

void dirfiles__free(struct dir_entry *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i].name);
	free(list);
}
