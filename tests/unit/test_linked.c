// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of linked.c: an executable's libraries, found as the dynamic
 * loader finds them, on the examples the e2e tests run (make unit builds
 * them first). */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "procs/linked.h"

TestSuite(linked, .fini = check_leaks);

static bool has(char **paths, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(paths[i], want))
			return true;
	return false;
}

static bool has_base(char **paths, int n, const char *base)
{
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(paths[i], '/');

		if (slash && !strcmp(slash + 1, base))
			return true;
	}
	return false;
}

static void free_paths(char **paths, int n)
{
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* nofp_fleet links its library through DT_RUNPATH $ORIGIN and libc by the
 * system's directories: both, by their real paths, each once. */
Test(linked, runpath_origin_and_system_libraries)
{
	char want[PATH_MAX], **paths = NULL;
	int n;

	cr_assert_not_null(realpath("build/examples/libnofp_fleet.so", want),
			   "make unit builds the examples first");
	n = linked__libs("build/examples/nofp_fleet", &paths);
	cr_assert_gt(n, 0, "%d", n);
	cr_expect(has(paths, n, want), "libnofp_fleet.so by $ORIGIN");
	cr_expect(has_base(paths, n, "libc.so.6"), "libc by the system's directories");
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			cr_expect_str_neq(paths[i], paths[j]);
	free_paths(paths, n);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	size_t got;

	cr_assert(in && out);
	while ((got = fread(buf, 1, sizeof(buf), in)) > 0)
		cr_assert_eq(fwrite(buf, 1, got, out), got);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
}

/* LD_LIBRARY_PATH is searched before the object's DT_RUNPATH, as the
 * loader does: a libhot.so there is the one lib_caller gets. */
Test(linked, ld_library_path_before_runpath)
{
	char dir[] = "/tmp/bpfprof-linked-XXXXXX", lib[PATH_MAX], src[PATH_MAX], **paths = NULL;
	int n;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(lib, sizeof(lib), "%s/libhot.so", dir);
	cr_assert_not_null(realpath("build/examples/libhot.so", src));
	copy_file(src, lib);	/* a copy: a symlink would resolve to src */
	setenv("LD_LIBRARY_PATH", dir, 1);
	n = linked__libs("build/examples/lib_caller", &paths);
	unsetenv("LD_LIBRARY_PATH");
	cr_assert_gt(n, 0);
	cr_expect(has(paths, n, lib), "the copy in LD_LIBRARY_PATH");
	cr_expect_not(has(paths, n, src), "not the one by RUNPATH");
	free_paths(paths, n);
	unlink(lib);
	rmdir(dir);
}

/* What cannot be an executable gives an error and nothing to free. */
Test(linked, unreadable_or_not_elf)
{
	char **paths = NULL;

	cr_expect_eq(linked__libs("/nonexistent/app", &paths), -ENOENT);
	cr_expect_eq(linked__libs("README.md", &paths), -ENOEXEC);
	cr_expect_null(paths);
}

/* The directory search `-- cmd` uses for PATH too: the first directory
 * that has name with the access asked wins, $ORIGIN is expanded only when
 * an origin is given, an empty entry is the current directory. */
Test(linked, find_in_a_directory_list)
{
	char out[PATH_MAX];

	cr_assert(linked__find("/nonexistent:/usr/bin:/bin", NULL, "sh", X_OK, out));
	cr_expect_str_eq(out, "/usr/bin/sh");
	cr_expect_not(linked__find("/nonexistent:/also/not", NULL, "sh", X_OK, out));
	cr_expect_not(linked__find("$ORIGIN", NULL, "libhot.so", R_OK, out));
	cr_assert(linked__find("/x:$ORIGIN/examples", "build", "libhot.so", R_OK, out));
	cr_expect_str_eq(out, "build/examples/libhot.so");
	cr_assert(linked__find("/nonexistent::/x", NULL, "README.md", R_OK, out));
	cr_expect_str_eq(out, "README.md");
}
