// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Opening the file behind a process's mapping, safely, as root. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>

#include "procs/mapped_file.h"
#include "base/open_regular.h"
#include "procs/procs.h"

static struct file_stamp stamp_of(const struct stat *st)
{
	return (struct file_stamp){
		.dev = st->st_dev, .ino = st->st_ino, .size = (uint64_t)st->st_size, .known = true,
		.mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
	};
}

struct file_stamp file_stamp__of_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return (struct file_stamp){ .known = false };
	return stamp_of(&st);
}

bool file_stamp__same(const struct file_stamp *a, const struct file_stamp *b)
{
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime_ns == b->mtime_ns;
}

struct file_stamp file_stamp__of(int fd)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return (struct file_stamp){ .known = false };
	return stamp_of(&st);
}

/* The inode number alone is no identity: another device (a container's
 * filesystem, a tmpfs) has files with the same number. st_dev can differ
 * from the mapping's device on overlayfs: then only a stamp taken when the
 * path was checked against the mapped file itself vouches for it. */
static bool same_file(int fd, const struct vma *v, const struct file_stamp *stamp)
{
	struct file_stamp now;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != v->ino)
		return false;
	if (!stamp || !stamp->known)
		return major(st.st_dev) == v->dev_major && minor(st.st_dev) == v->dev_minor;
	now = stamp_of(&st);
	return file_stamp__same(&now, stamp);
}

/* path as the process sees it: resolved inside its root (a container's),
 * symlinks included, never escaping it (openat2's RESOLVE_IN_ROOT). */
static int open_in_root(pid_t tgid, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root_path[64];
	int root, fd;

	snprintf(root_path, sizeof(root_path), "/proc/%d/root", tgid);
	root = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
	if (fd < 0)
		fd = -errno;
	close(root);
	return fd;
}

int mapped_file__open_mapped(pid_t tgid, const struct vma *v)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, tgid, v->start,
		 v->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/* The mapped file itself. While the process runs, map_files/ opens exactly
 * what is mapped, deleted or in another mount namespace; after it exited,
 * only the path is left, checked against the file's identity. */
int mapped_file__open(pid_t tgid, bool alive, const struct vma *v, const struct file_stamp *stamp)
{
	int fd;

	if (alive) {
		fd = mapped_file__open_mapped(tgid, v);
		if (fd >= 0)
			return fd;
		fd = open_in_root(tgid, v->path);
		if (fd >= 0 && same_file(fd, v, stamp))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	fd = file_open_regular(v->path);
	if (fd >= 0 && same_file(fd, v, stamp))
		return fd;
	if (fd >= 0)
		close(fd);
	return -ESTALE;
}

int file_id__cmp(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev_major != y->dev_major)
		return x->dev_major < y->dev_major ? -1 : 1;
	if (x->dev_minor != y->dev_minor)
		return x->dev_minor < y->dev_minor ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

struct file_id file_id__of(const struct vma *v)
{
	return (struct file_id){ .dev_major = v->dev_major, .dev_minor = v->dev_minor,
				 .ino = v->ino };
}
