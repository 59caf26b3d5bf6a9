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
