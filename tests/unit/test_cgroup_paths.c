// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of procs/cgroup_paths.c on this machine's cgroup v2 tree
 * (root, as the profiler runs): a cgroup named by its id alone, one whose
 * path is too long said unnameable once, the pass's budget. Skipped
 * without a cgroup2 mount or the right to make cgroups. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procs/cgroup_paths.h"
#include "procs/procs.h"

static char top[256];	/* the test's cgroup, under the mount */

/* Makes MOUNT/bpfprof-unit-PID; false (the test skipped) when it cannot. */
static bool make_top(struct cgroup_paths *cp)
{
	if (!cgroup_paths__mount(cp)[0] || geteuid())
		return false;
	snprintf(top, sizeof(top), "%s/bpfprof-unit-%d", cgroup_paths__mount(cp), (int)getpid());
	return !mkdir(top, 0755);
}

static uint64_t id_of(const char *dir)
{
	struct stat st;

	cr_assert_eq(stat(dir, &st), 0, "%s", dir);
	return st.st_ino;
}

static const char *named(struct cgroup_paths *cp, uint64_t id)
{
	const char *path = NULL;

	cr_assert_eq(cgroup_paths__name(cp, id, 0, &path), CGROUP_NAMED);
	return path;
}

Test(cgroup_paths, named_by_id_alone_and_kept)
{
	struct cgroup_paths *cp = cgroup_paths__new();
	char dir[300], want[64];
	uint64_t id;

	cr_assert_not_null(cp);
	if (!make_top(cp)) {
		cgroup_paths__free(cp);
		cr_skip_test("no cgroup v2 tree to make cgroups in");
	}
	snprintf(dir, sizeof(dir), "%s/a", top);
	cr_assert_eq(mkdir(dir, 0755), 0);
	id = id_of(dir);
	snprintf(want, sizeof(want), "/bpfprof-unit-%d/a", (int)getpid());
	cgroup_paths__new_pass(cp, procs__now() + 1000000000ull);
	cr_expect_str_eq(named(cp, id), want, "no process in it: named by its handle");
	cr_expect_eq(cgroup_paths__lookups(cp), 1);
	rmdir(dir);
	cr_expect_str_eq(named(cp, id), want, "ids are not reused: the name stays");
	cr_expect_eq(cgroup_paths__lookups(cp), 1, "one lookup an id");
	rmdir(top);
	cgroup_paths__free(cp);
}

Test(cgroup_paths, too_long_said_once)
{
	struct cgroup_paths *cp = cgroup_paths__new();
	char name[201], *dir = malloc(4096);
	const char *path;
	struct stat st;
	int fd, next, i;

	cr_assert_not_null(cp);
	cr_assert_not_null(dir);
	if (!make_top(cp)) {
		cgroup_paths__free(cp);
		free(dir);
		cr_skip_test("no cgroup v2 tree to make cgroups in");
	}
	memset(name, 'x', 200);
	name[200] = '\0';
	/* 8 levels of 200 bytes: 1,600 bytes, past the 1,024 named */
	fd = open(top, O_RDONLY | O_DIRECTORY);
	for (i = 0; i < 8; i++) {
		cr_assert_eq(mkdirat(fd, name, 0755), 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
	}
	cr_assert_eq(fstat(fd, &st), 0);
	close(fd);
	cgroup_paths__new_pass(cp, procs__now() + 1000000000ull);
	cr_expect_eq(cgroup_paths__name(cp, st.st_ino, 0, &path), CGROUP_UNNAMEABLE);
	cr_expect_null(path);
	cgroup_paths__new_pass(cp, procs__now() + 1000000000ull);
	cr_expect_eq(cgroup_paths__name(cp, st.st_ino, 0, &path), CGROUP_UNNAMEABLE);
	cr_expect_eq(cgroup_paths__lookups(cp), 1, "not looked up again at the next pass");
	for (i = 8; i > 0; i--) {
		int len = snprintf(dir, 4096, "%s", top);

		for (int k = 0; k < i; k++)
			len += snprintf(dir + len, 4096 - len, "/%s", name);
		cr_expect_eq(rmdir(dir), 0, "level %d", i);
	}
	rmdir(top);
	free(dir);
	cgroup_paths__free(cp);
}

Test(cgroup_paths, budget_spent_later)
{
	struct cgroup_paths *cp = cgroup_paths__new();
	const char *path;
	uint64_t id;

	cr_assert_not_null(cp);
	if (!make_top(cp)) {
		cgroup_paths__free(cp);
		cr_skip_test("no cgroup v2 tree to make cgroups in");
	}
	id = id_of(top);
	cgroup_paths__new_pass(cp, procs__now());	/* the deadline passed */
	cr_expect_eq(cgroup_paths__name(cp, id, 0, &path), CGROUP_LATER);
	cr_expect_eq(cgroup_paths__lookups(cp), 0);
	cgroup_paths__new_pass(cp, procs__now() + 1000000000ull);
	cr_expect_eq(cgroup_paths__name(cp, id, 0, &path), CGROUP_NAMED, "the next pass names it");
	/* past the pass's count, a known id is still named, a new one later */
	for (int i = 0; i < CGROUP_NAMES_PER_PASS; i++)
		(void)cgroup_paths__name(cp, (1ull << 62) + i, 0, &path);
	cr_expect_eq(cgroup_paths__name(cp, id, 0, &path), CGROUP_NAMED);
	cr_expect_eq(cgroup_paths__name(cp, (1ull << 62) - 1, 0, &path), CGROUP_LATER);
	rmdir(top);
	cgroup_paths__free(cp);
}
