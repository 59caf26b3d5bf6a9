// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of dirfiles.c's atomic files when locking the temporary
 * fails: flock() is replaced here (the archive's dirfiles.o binds to this
 * executable's) to fail once as a file system without locks does (ENOLCK,
 * EOPNOTSUPP), as when a cleaner holds the lock (EWOULDBLOCK), or oddly. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "base/dirfiles.h"

static int flock_fails_with;	/* the next flock()'s errno, once; 0: the real one */

int flock(int fd, int op)
{
	static int (*real)(int, int);
	int err = flock_fails_with;

	if (err) {
		flock_fails_with = 0;
		errno = err;
		return -1;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "flock");
	return real(fd, op);
}

static char dir[64];

static int new_dir(void)
{
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/bpfprof-test-dirfiles.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0);
	return fd;
}

/* The names in dir, but "." and "..", joined by spaces. */
static void list(char *buf, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t len = 0;

	buf[0] = '\0';
	cr_assert_not_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
						de->d_name);
	closedir(d);
}

static void remove_dir(int fd)
{
	char cmd[96];

	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

Test(dirfiles, no_locks_here_is_written_unlocked)
{
	int errs[] = { ENOLCK, EOPNOTSUPP };
	char names[512];

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		int fd = new_dir();

		flock_fails_with = errs[i];
		cr_expect_eq(dirfiles__write(fd, "out", "x\n", 2, 0644), 0, "%s", strerror(errs[i]));
		list(names, sizeof(names));
		cr_expect_str_eq(names, "out", "%s", strerror(errs[i]));
		remove_dir(fd);
	}
}

Test(dirfiles, a_temporary_a_cleaner_took_is_not_left)
{
	int fd = new_dir();
	char names[512];

	flock_fails_with = EWOULDBLOCK;	/* a cleaner holds it: try another name */
	cr_expect_eq(dirfiles__write(fd, "out", "x\n", 2, 0644), 0);
	list(names, sizeof(names));
	cr_expect_str_eq(names, "out");
	remove_dir(fd);
}

Test(dirfiles, a_failed_lock_leaves_no_temporary)
{
	int fd = new_dir();
	char names[512];

	flock_fails_with = EINVAL;
	cr_expect_eq(dirfiles__write(fd, "out", "x\n", 2, 0644), -EINVAL);
	list(names, sizeof(names));
	cr_expect_str_eq(names, "");
	remove_dir(fd);
}

static bool any_name(const char *name, void *ctx)
{
	(void)ctx;
	return name[0] != '.';
}

/* dir/name made by "another user" (chown: root only), its content text. */
static void plant_theirs(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, true);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chown(path, 65534, 65534), 0);
}

static void expect_content(const char *name, const char *text)
{
	char path[128], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_expect_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_expect_str_eq(buf, text, "%s", name);
}

/* In a shared (sticky) directory another user's file is never listed as
 * ours nor replaced; in a directory of ours a name is ours to replace. */
Test(dirfiles, another_users_file_in_a_shared_directory_is_left_alone)
{
	int fd = new_dir();
	struct dir_entry *list;
	size_t n, others;

	if (geteuid() != 0) {	/* chown needs root */
		remove_dir(fd);
		return;
	}
	plant_theirs("a.folded", "theirs\n");
	cr_expect_eq(dirfiles__write(fd, "b.folded", "ours\n", 5, 0644), 0);
	cr_assert_eq(dirfiles__list(fd, any_name, NULL, &list, &n, &others), 0);
	cr_expect_eq(n, 1);
	cr_expect_str_eq(n ? list[0].name : "", "b.folded");
	cr_expect_eq(others, 1);
	dirfiles__free(list, n);
	/* 0700: ours alone, what is in it ours to replace */
	cr_expect_eq(dirfiles__write(fd, "a.folded", "ours\n", 5, 0644), 0);
	expect_content("a.folded", "ours\n");
	cr_assert_eq(fchmod(fd, 01777), 0);
	plant_theirs("c.folded", "theirs\n");
	cr_expect_eq(dirfiles__write(fd, "c.folded", "ours\n", 5, 0644), -DIRFILES_ETHEIRS);
	expect_content("c.folded", "theirs\n");
	cr_expect_eq(dirfiles__check_regular(fd, "c.folded"), 0);
	remove_dir(fd);
}
