// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fleet output directory. Everything is done relative to a directory
 * fd with O_NOFOLLOW: as root, never write through a planted symlink. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/dirfiles.h"
#include "base/errors.h"
#include "base/formats.h"
#include "output/fleet.h"

#define INDEX_LOG	"bpfprof-intervals.log"
#define INDEX_MAX	(1 << 20)	/* then it becomes .1, replacing the older one */

struct fleet {
	struct fleet_opts o;
	int dirfd;
	bool said_others;	/* that the directory holds another user's files */
};

static int open_dir(struct fleet *f)
{
	int fd = dirfiles__open_dir(f->o.dir, 0755), stale;

	if (fd >= 0 && dirfiles__check_regular(fd, INDEX_LOG)) {
		close(fd);	/* the directory is not used: its index is not a file */
		fd = -DIRFILES_ENOTREG;
	}
	if (fd < 0) {
		p_err("cannot use output directory %s: %s%s", f->o.dir,
			fd == -DIRFILES_ENOTREG ? INDEX_LOG ": " : "", dirfiles__strerror(fd));
		return fd;
	}
	if (f->dirfd >= 0)
		close(f->dirfd);
	f->dirfd = fd;
	stale = dirfiles__clean_stale(fd, NULL);
	if (stale)
		p_info("removed %d temporary file%s that killed runs left in %s", stale,
		       stale == 1 ? "" : "s", f->o.dir);
	return 0;
}

int fleet__open(const struct fleet_opts *o, struct fleet **out)
{
	struct fleet *f = calloc(1, sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	f->o = *o;
	f->dirfd = -1;
	err = open_dir(f);
	if (err) {
		free(f);
		return err;
	}
	*out = f;
	return 0;
}

int fleet__reopen(struct fleet *f)
{
	return open_dir(f);
}

/* HOST-20261122T034000.250Z: sortable, unique per interval start. */
static void file_stem(const struct fleet *f, uint64_t wall_ns, char *out, size_t size)
{
	time_t secs = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;
	char when[32];

	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	snprintf(out, size, "%s-%s.%03uZ", f->o.host, when,
		 (unsigned int)(wall_ns / 1000000ull % 1000));
}

int fleet__write(struct fleet *f, uint64_t start_wall_ns, const char *ext,
		 const void *buf, size_t len)
{
	char stem[NAME_MAX / 2], name[NAME_MAX / 2 + 16];
	int err;

	file_stem(f, start_wall_ns, stem, sizeof(stem));
	snprintf(name, sizeof(name), "%s.%s", stem, ext);
	err = dirfiles__write(f->dirfd, name, buf, len, 0644);
	/* the directory was deleted (or moved and replaced): make it anew */
	if ((err == -ENOENT || err == -ESTALE) && open_dir(f) == 0)
		err = dirfiles__write(f->dirfd, name, buf, len, 0644);
	return err;
}

/* The index grown past INDEX_MAX becomes .1 (replacing the older one),
 * if both are ours: another user's file is never moved or replaced. */
static void roll_log(struct fleet *f, const struct stat *log)
{
	struct stat old;

	if (log->st_size <= INDEX_MAX || !dirfiles__is_ours(log))
		return;
	if (fstatat(f->dirfd, INDEX_LOG ".1", &old, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !dirfiles__is_ours(&old))
		return;
	renameat(f->dirfd, INDEX_LOG, f->dirfd, INDEX_LOG ".1");
}

int fleet__log(struct fleet *f, const char *line)
{
	struct stat st;
	int fd, err;

	if (fstatat(f->dirfd, INDEX_LOG, &st, AT_SYMLINK_NOFOLLOW) == 0)
		roll_log(f, &st);
	/* O_NONBLOCK: a FIFO planted here must not block the run */
	fd = openat(f->dirfd, INDEX_LOG, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : 0;
	if (!err && !S_ISREG(st.st_mode))
		err = -DIRFILES_ENOTREG;
	/* planted by another user (or linked elsewhere): theirs to read, truncate or forge */
	else if (!err && !dirfiles__is_ours(&st))
		err = -DIRFILES_ETHEIRS;
	/* one write: appends from one line never interleave */
	if (!err && dprintf(fd, "%s\n", line) < 0)
		err = -EIO;
	close(fd);
	return err;
}

/* Ours: HOST-<time>.EXT, EXT a format fleet mode writes (.folded, .pb.gz,
 * .otlp); temporaries start with '.'. */
static bool is_profile(const char *name, void *arg)
{
	const struct fleet *f = arg;
	size_t hl = strlen(f->o.host), n = strlen(name);
	enum out_format fmt = formats__by_suffix(name);
	const char *ext = formats__extension(fmt);
	size_t el = strlen(ext);

	if (strncmp(name, f->o.host, hl) || name[hl] != '-')
		return false;
	return formats__carries(fmt, FORMAT_TO_FLEET) && n > el + 1 &&
	       name[n - el - 1] == '.' && !strcmp(name + n - el, ext);
}

/* Once a run: the directory (shared, as /tmp) holds files named as ours
 * that are not: rotation leaves them alone, and so they count for nothing. */
static void say_others(struct fleet *f, size_t others)
{
	if (!others || f->said_others)
		return;
	f->said_others = true;
	p_warn("%s holds %zu file%s named like its profiles that bpfprof did not write "
	       "(another user's, or not a lone regular file): left alone, not rotated", f->o.dir,
	       others, others == 1 ? "" : "s");
}

int fleet__rotate(struct fleet *f)
{
	struct dir_entry *list;
	unsigned long long bytes = 0;
	size_t n, i, first = 0, others;
	int deleted = 0, err;

	/* names sort by the interval's time: oldest first; only files of ours */
	err = dirfiles__list(f->dirfd, is_profile, f, &list, &n, &others);
	if (err)
		return err;
	say_others(f, others);
	for (i = 0; i < n; i++)
		bytes += (unsigned long long)list[i].size;
	for (; first < n && (n - first > f->o.max_files || bytes > f->o.max_bytes); first++) {
		if (unlinkat(f->dirfd, list[first].name, 0) == 0)
			deleted++;
		bytes -= (unsigned long long)list[first].size;
	}
	dirfiles__free(list, n);
	return deleted;
}

void fleet__free(struct fleet *f)
{
	if (!f)
		return;
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f);
}
