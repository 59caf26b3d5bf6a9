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
#include <sys/syscall.h>

#include "mapped_file.h"
#include "procs.h"

static bool same_file(int fd, const struct vma *v)
{
	struct stat st;

	/* st_dev can differ from the mapping's device on overlayfs; the inode
	 * number is what both views agree on. */
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == v->ino;
}

/* path as the process sees it: resolved inside its root (a container's),
 * symlinks included, never escaping it (openat2's RESOLVE_IN_ROOT). */
static int open_in_root(pid_t tgid, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
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

/* The mapped file itself. While the process runs, map_files/ opens exactly
 * what is mapped, deleted or in another mount namespace; after it exited,
 * only the path is left, checked against the inode. */
int mapped_file__open(pid_t tgid, bool alive, const struct vma *v)
{
	char path[PATH_MAX + 64];
	int fd;

	if (alive) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 tgid, v->start, v->end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		fd = open_in_root(tgid, v->path);
		if (fd >= 0 && same_file(fd, v))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	fd = open(v->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && same_file(fd, v))
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
