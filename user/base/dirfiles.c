// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Atomic writes (a temporary, then a rename) and sorted listings. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "base/grow.h"
#include "base/dirfiles.h"

/* .NAME.PID.XXXXXXXX.tmp with a random part: a name planted in advance (a
 * shared directory) cannot be guessed, and concurrent writers differ. The
 * writer's pid and its lock (flock, held while the temporary is open) tell
 * a later run what a killed one left (dirfiles__clean_stale). */
static int temp_name(const char *name, char *tmp, size_t size)
{
	uint32_t r;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint32_t)getpid() ^ (uint32_t)time(NULL) << 8;
	if (snprintf(tmp, size, ".%s.%d.%08" PRIx32 ".tmp", name, (int)getpid(), r) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/* The new temporary, locked: 0, or -EAGAIN when a cleaner took it first
 * (it holds the lock, or has unlinked it). A file system without locks
 * (NFS without lockd: ENOLCK) leaves it unlocked: a cleaner cannot lock it
 * either, so never removes it. */
static int lock_temp(int fd)
{
	struct stat st;

	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == ENOLCK || errno == EOPNOTSUPP)
			return 0;
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
	if (fstat(fd, &st))
		return -errno;
	return st.st_nlink ? 0 : -EAGAIN;
}

/* Closes the temporary fd holds and removes dirfd/tmp if it is still that
 * file (a cleaner may have removed it, another writer taken the name). */
static void drop_temp(int dirfd, const char *tmp, int fd)
{
	struct stat mine, there;

	if (!fstat(fd, &mine) && !fstatat(dirfd, tmp, &there, AT_SYMLINK_NOFOLLOW) &&
	    mine.st_dev == there.st_dev && mine.st_ino == there.st_ino)
		unlinkat(dirfd, tmp, 0);
	close(fd);
}

/* A directory others may write into (a sticky one, like /tmp). */
static bool dir_is_shared(int dirfd)
{
	struct stat st;

	return fstat(dirfd, &st) || (st.st_mode & (S_IWGRP | S_IWOTH));
}

/* An existing name that is not a regular file (a FIFO, a device, a
 * directory, a symlink) is refused, never opened: opening a FIFO blocks.
 * *uid: its owner's (the caller's when absent). */
static int check_regular(int dirfd, const char *name, uid_t *uid)
{
	struct stat st;

	*uid = geteuid();
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	*uid = st.st_uid;
	return S_ISREG(st.st_mode) ? 0 : -DIRFILES_ENOTREG;
}

/* What may be replaced: a regular file, and in a shared directory only
 * ours: root may rename over another user's file where the sticky rule
 * lets nobody else. */
static int check_target(int dirfd, const char *name)
{
	uid_t uid;
	int err = check_regular(dirfd, name, &uid);

	if (!err && uid != geteuid() && dir_is_shared(dirfd))
		err = -DIRFILES_ETHEIRS;
	return err;
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
		err = lock_temp(fd);
		if (err) {
			drop_temp(dirfd, af->tmp, fd);
			err = err == -EAGAIN ? 0 : err;
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

/* A temporary as temp_name() makes it, of name (NULL: of any name): its
 * writer's pid, or 0. Read from the end: NAME may hold dots. */
static pid_t temp_writer(const char *entry, const char *name)
{
	size_t len = strlen(entry), digits = 0;
	const char *tail;
	long pid;

	if (len < 1 + 1 + 1 + 1 + 1 + 12 || entry[0] != '.' || strcmp(entry + len - 4, ".tmp"))
		return 0;
	tail = entry + len - 12;	/* XXXXXXXX.tmp */
	if (strspn(tail, "0123456789abcdef") != 8 || tail[-1] != '.')
		return 0;
	while (tail - 2 - digits > entry && isdigit((unsigned char)tail[-2 - (long)digits]))
		digits++;
	if (!digits || digits > 10 || tail[-2 - (long)digits] != '.')
		return 0;
	/* entry is "." NAME "." PID "." XXXXXXXX ".tmp" */
	if (name && (strlen(name) != (size_t)(tail - 2 - digits - entry - 1) ||
		     strncmp(entry + 1, name, strlen(name))))
		return 0;
	pid = strtol(tail - 1 - digits, NULL, 10);
	return pid > 0 && pid <= INT_MAX ? (pid_t)pid : 0;
}

/* Removes dirfd/entry if it is a temporary a dead writer left: a regular
 * file of ours (one link), no lock on it, its pid gone. Locked while
 * checked and unlinked, so a writer that just made it sees it went. */
static bool remove_stale(int dirfd, const char *entry, pid_t writer)
{
	struct stat st, now;
	bool removed = false;
	int fd;

	if (fstatat(dirfd, entry, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || st.st_nlink != 1)
		return false;
	fd = openat(dirfd, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (!fstat(fd, &now) && now.st_dev == st.st_dev && now.st_ino == st.st_ino &&
	    !flock(fd, LOCK_EX | LOCK_NB) && kill(writer, 0) && errno == ESRCH &&
	    !fstatat(dirfd, entry, &now, AT_SYMLINK_NOFOLLOW) && now.st_ino == st.st_ino)
		removed = !unlinkat(dirfd, entry, 0);
	close(fd);
	return removed;
}

int dirfiles__clean_stale(int dirfd, const char *name)
{
	int fd = dup(dirfd), removed = 0;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	pid_t writer;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(dir);
	while ((de = readdir(dir))) {
		writer = temp_writer(de->d_name, name);
		if (writer && writer != getpid() && remove_stale(dirfd, de->d_name, writer))
			removed++;
	}
	closedir(dir);
	return removed;
}

int dirfiles__check_regular(int dirfd, const char *name)
{
	uid_t uid;

	return check_regular(dirfd, name, &uid);
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
	if (err == -DIRFILES_ETHEIRS)
		return "another user's file in a shared directory: left alone";
	return strerror(-err);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct dir_entry *)a)->name, ((const struct dir_entry *)b)->name);
}

static int append(struct dir_entry **list, size_t *n, size_t *cap, const char *name, off_t size)
{
	if (GROW(*list, *cap, *n + 1))
		return -ENOMEM;
	(*list)[*n].name = strdup(name);
	if (!(*list)[*n].name)
		return -ENOMEM;
	(*list)[(*n)++].size = size;
	return 0;
}

bool dirfiles__is_ours(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == geteuid() && st->st_nlink == 1;
}

int dirfiles__list(int dirfd, bool (*want)(const char *name, void *ctx), void *ctx,
		   struct dir_entry **out, size_t *n, size_t *others)
{
	int fd = dup(dirfd), err = 0;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	size_t cap = 0;
	struct dirent *de;
	struct stat st;

	*out = NULL;
	*n = 0;
	if (others)
		*others = 0;
	if (!dir) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	rewinddir(dir);	/* the dup shares its offset with earlier listings */
	while (!err && (de = readdir(dir))) {
		if (!want(de->d_name, ctx) || fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!dirfiles__is_ours(&st)) {
			if (others)
				(*others)++;
			continue;
		}
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
