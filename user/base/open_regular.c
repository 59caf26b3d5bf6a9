// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Opening a regular file by path, never anything else (see open_regular.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/open_regular.h"

int file_open_regular(const char *path)
{
	return file_open_regular_flags(path, 0, NULL);
}

int file_open_path(const char *path, int flags, struct stat *st)
{
	int fd = open(path, O_PATH | O_CLOEXEC | flags);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		close(fd);
		return -EIO;
	}
	/* O_PATH|O_NOFOLLOW opens the link itself */
	if (S_ISLNK(st->st_mode) || !S_ISREG(st->st_mode)) {
		close(fd);
		return S_ISLNK(st->st_mode) ? -ELOOP : -EINVAL;
	}
	return fd;
}

int file_reopen(int path_fd, const struct stat *st)
{
	char self[64];
	struct stat now;
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	/* O_NONBLOCK: should it not be the file checked, never wait on it */
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	close(path_fd);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    !S_ISREG(now.st_mode) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int file_open_regular_flags(const char *path, int flags, struct stat *st)
{
	struct stat own;
	int fd;

	if (!st)
		st = &own;
	fd = file_open_path(path, flags, st);
	return fd < 0 ? fd : file_reopen(fd, st);
}
