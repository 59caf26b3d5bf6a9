// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Atomic writes and sorted listings in a directory fd. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "dirfiles.h"

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int dirfiles__write(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		    unsigned int tmp_tag)
{
	char tmp[NAME_MAX + 1];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), ".%s.%d.%u.tmp", name, getpid(), tmp_tag) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlinkat(dirfd, tmp, 0);	/* left by a writer that died with our pid */
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	err = write_all(fd, buf, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err;
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
