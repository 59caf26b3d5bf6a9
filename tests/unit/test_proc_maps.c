// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of proc_maps.c: line shapes, malformed lines, a live process. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leak_check.h"
#include "procs/proc_maps.h"
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

TestSuite(proc_maps, .fini = check_leaks);

/* Parses a copy of a string literal (the parser writes into its input). */
static int parse(const char *s, struct maps_line *ml, char *buf, size_t size)
{
	cr_assert_lt(strlen(s), size);
	strcpy(buf, s);
	return maps_parse_line(buf, ml);
}

Test(proc_maps, file_backed)
{
	struct maps_line ml;
	char buf[256];

	cr_assert_eq(parse("7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 1311234"
			   "                   /usr/lib/x86_64-linux-gnu/libc.so.6\n",
			   &ml, buf, sizeof(buf)), 0);
	cr_expect_eq(ml.start, 0x7f3c1a2b4000);
	cr_expect_eq(ml.end, 0x7f3c1a2d6000);
	cr_expect_eq(ml.pgoff, 0x22000);
	cr_expect_eq(ml.dev_major, 0xfe);
	cr_expect_eq(ml.dev_minor, 0x01);
	cr_expect_eq(ml.ino, 1311234);
	cr_expect(ml.exec);
	cr_expect_not(ml.deleted);
	cr_expect_str_eq(ml.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

Test(proc_maps, not_executable)
{
	struct maps_line ml;
	char buf[256];

	cr_assert_eq(parse("55d0c8a00000-55d0c8a02000 rw-s 00000000 00:05 42 /dev/shm/x",
			   &ml, buf, sizeof(buf)), 0);
	cr_expect_not(ml.exec);
	cr_expect_str_eq(ml.path, "/dev/shm/x");
}

Test(proc_maps, anonymous)
{
	struct maps_line ml;
	char buf[256];

	/* The kernel leaves a blank after the inode; accept it or not. */
	cr_assert_eq(parse("7fbff2d0b000-7fbff2dcf000 rw-p 00000000 00:00 0 \n",
			   &ml, buf, sizeof(buf)), 0);
	cr_expect_str_eq(ml.path, "");
	cr_expect_not(ml.exec);
	cr_expect_not(ml.deleted);
	cr_expect_eq(ml.ino, 0);

	cr_assert_eq(parse("7fbff2d0b000-7fbff2dcf000 rwxp 00000000 00:00 0",
			   &ml, buf, sizeof(buf)), 0);
	cr_expect_str_eq(ml.path, "");
	cr_expect(ml.exec);
}

Test(proc_maps, special)
{
	struct maps_line ml;
	char buf[256];

	cr_assert_eq(parse("7ffd5a5e6000-7ffd5a5e8000 r-xp 00000000 00:00 0"
			   "                          [vdso]\n", &ml, buf, sizeof(buf)), 0);
	cr_expect_str_eq(ml.path, "[vdso]");
	cr_expect(ml.exec);
	cr_expect_eq(ml.end - ml.start, 0x2000);

	cr_assert_eq(parse("7ffd5a4c5000-7ffd5a4e6000 rw-p 00000000 00:00 0"
			   "                          [stack]", &ml, buf, sizeof(buf)), 0);
	cr_expect_str_eq(ml.path, "[stack]");
	cr_expect_not(ml.exec);
}

Test(proc_maps, path_with_spaces)
{
	struct maps_line ml;
	char buf[256];

	cr_assert_eq(parse("400000-401000 r-xp 00001000 08:02 77 /opt/my app/lib x.so\n",
			   &ml, buf, sizeof(buf)), 0);
	cr_expect_str_eq(ml.path, "/opt/my app/lib x.so");
	cr_expect_not(ml.deleted);
	cr_expect_eq(ml.start, 0x400000);
	cr_expect_eq(ml.pgoff, 0x1000);
	cr_expect_eq(ml.dev_major, 8);
	cr_expect_eq(ml.dev_minor, 2);
}

Test(proc_maps, deleted)
{
	struct maps_line ml;
	char buf[256];

	cr_assert_eq(parse("7f0000000000-7f0000001000 r-xp 00000000 00:01 1033"
			   "   /memfd:jit (deleted)\n", &ml, buf, sizeof(buf)), 0);
	cr_expect(ml.deleted);
	cr_expect_str_eq(ml.path, "/memfd:jit");

	cr_assert_eq(parse("7f0000000000-7f0000001000 r-xp 00000000 fe:01 9"
			   " /tmp/a b/old lib.so (deleted)", &ml, buf, sizeof(buf)), 0);
	cr_expect(ml.deleted);
	cr_expect_str_eq(ml.path, "/tmp/a b/old lib.so");

	/* Only the exact suffix counts. */
	cr_assert_eq(parse("7f0000000000-7f0000001000 r-xp 00000000 fe:01 9"
			   " /tmp/x(deleted)", &ml, buf, sizeof(buf)), 0);
	cr_expect_not(ml.deleted);
	cr_expect_str_eq(ml.path, "/tmp/x(deleted)");
}

Test(proc_maps, large_values)
{
	struct maps_line ml;
	char buf[256];

	cr_assert_eq(parse("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
			   "  [vsyscall]", &ml, buf, sizeof(buf)), 0);
	cr_expect_eq(ml.start, 0xffffffffff600000);
	cr_expect_str_eq(ml.path, "[vsyscall]");

	cr_assert_eq(parse("1000-2000 r-xp ffffffffffffffff fff:fffff 18446744073709551615 /x",
			   &ml, buf, sizeof(buf)), 0);
	cr_expect_eq(ml.pgoff, UINT64_MAX);
	cr_expect_eq(ml.dev_major, 0xfff);
	cr_expect_eq(ml.dev_minor, 0xfffff);
	cr_expect_eq(ml.ino, UINT64_MAX);
}

Test(proc_maps, malformed)
{
	static const char *const bad[] = {
		"",
		"\n",
		"7f3c1a2b4000",
		"7f3c1a2b4000-",
		"7f3c1a2b4000-7f3c1a2d6000",
		"7f3c1a2b4000-7f3c1a2d6000 ",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 ",
		"7g3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 1 /x",	/* bad hex */
		"7f3c1a2b4000 7f3c1a2d6000 r-xp 00022000 fe:01 1 /x",	/* no '-' */
		"-7f3c1a2d6000 r-xp 00022000 fe:01 1 /x",
		"7f3c1a2d6000-7f3c1a2b4000 r-xp 00022000 fe:01 1 /x",	/* start > end */
		"17f3c1a2b40000000-27f3c1a2d6000000 r-xp 0 fe:01 1 /x",	/* 17 digits */
		"7f3c1a2b4000-7f3c1a2d6000 r-x 00022000 fe:01 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xq 00022000 fe:01 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 R-xp 00022000 fe:01 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xpp 00022000 fe:01 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp +0022000 fe:01 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe01 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe: 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 123456789:01 1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 -1 /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 12a /x",
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 18446744073709551616 /x",
		"7f3c1a2b4000-7f3c1a2d6000  r-xp 00022000 fe:01 1 /x",
		" 7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 1 /x",
	};
	struct maps_line ml;
	char buf[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ml, 0xa5, sizeof(ml));
		cr_expect_eq(parse(bad[i], &ml, buf, sizeof(buf)), -EINVAL, "accepted \"%s\"", bad[i]);
		/* A failed parse leaves the output alone. */
		cr_expect_eq(ml.start, 0xa5a5a5a5a5a5a5a5, "\"%s\" wrote out", bad[i]);
	}
	cr_expect_eq(maps_parse_line(NULL, &ml), -EINVAL);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A valid line with one random byte overwritten or the line cut short: no
 * crash, no overread (ASan), and what parses is coherent. */
Test(proc_maps, random_mutations)
{
	static const char good[] =
		"7f3c1a2b4000-7f3c1a2d6000 r-xp 00022000 fe:01 1311234   /usr/lib/a b.so (deleted)\n";
	uint64_t seed = 0x2545f4914f6cdd1d;
	int parsed = 0;
	struct maps_line ml;
	char buf[sizeof(good)];

	for (int iter = 0; iter < 50000; iter++) {
		size_t len = xorshift(&seed) % sizeof(good);

		memcpy(buf, good, sizeof(good));
		buf[xorshift(&seed) % (sizeof(good) - 1)] = (char)xorshift(&seed);
		buf[len] = '\0';
		if (maps_parse_line(buf, &ml))
			continue;
		parsed++;
		cr_assert_leq(ml.start, ml.end);
		cr_assert_not_null(ml.path);
		cr_assert_leq(strlen(ml.path), sizeof(good));
	}
	cr_expect_gt(parsed, 1000, "only %d lines parsed", parsed);
}

struct self_ctx {
	uint64_t code;		/* an address in this test's own text */
	int nr;
	uint64_t prev_start;
	bool sorted, all_exec;
	bool found_code, found_vdso;
	char code_path[PATH_MAX];
};

static int self_cb(const struct maps_line *ml, void *ctx)
{
	struct self_ctx *c = ctx;

	if (c->nr++ && ml->start < c->prev_start)
		c->sorted = false;
	c->prev_start = ml->start;
	if (!ml->exec)
		c->all_exec = false;
	if (ml->start <= c->code && c->code < ml->end) {
		c->found_code = true;
		snprintf(c->code_path, sizeof(c->code_path), "%s", ml->path);
	}
	if (!strcmp(ml->path, "[vdso]"))
		c->found_vdso = true;
	return 0;
}

Test(proc_maps, own_process)
{
	struct self_ctx c = { .sorted = true, .all_exec = true };
	char exe[PATH_MAX];
	ssize_t n;

	c.code = (uint64_t)(uintptr_t)&self_cb;
	cr_assert_eq(maps_for_each_exec(getpid(), self_cb, &c), 0);
	cr_expect_gt(c.nr, 1);
	cr_expect(c.sorted, "mappings out of address order");
	cr_expect(c.all_exec, "a non-executable mapping was passed");
	cr_expect(c.found_code, "no mapping contains self_cb at %#" PRIx64, c.code);
	cr_expect(c.found_vdso, "no [vdso] mapping");

	/* The mapping holding our code is this very executable. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	cr_expect_str_eq(c.code_path, exe);
}

static int stop_cb(const struct maps_line *ml, void *ctx)
{
	(void)ml;
	++*(int *)ctx;
	return 42;
}

Test(proc_maps, callback_stops_walk)
{
	int calls = 0;

	cr_expect_eq(maps_for_each_exec(getpid(), stop_cb, &calls), 42);
	cr_expect_eq(calls, 1);
}

Test(proc_maps, no_such_process)
{
	int calls = 0;

	/* PIDs never exceed 2^22 (PID_MAX_LIMIT). */
	cr_expect_eq(maps_for_each_exec(INT_MAX, stop_cb, &calls), -ENOENT);
	cr_expect_eq(maps_for_each_exec(-1, stop_cb, &calls), -ENOENT);
	cr_expect_eq(calls, 0);
}

/* One decoding for a name from maps (escaped) and from the side-band (raw). */
Test(proc_maps, names_decode_the_same_from_both_sources)
{
	char maps[] = "/tmp/a\\012b (deleted)", raw[] = "/tmp/a\nb (deleted)";

	cr_expect(vma_name__decode(maps, true, -1, 0, 0, 0));
	cr_expect(vma_name__decode(raw, false, -1, 0, 0, 0));
	cr_expect_str_eq(maps, "/tmp/a\nb");
	cr_expect_str_eq(raw, "/tmp/a\nb");
}

/* Files really called "x (deleted)" and "a\012b", looked at in our root. */
Test(proc_maps, a_name_that_looks_escaped_or_deleted_but_is_real)
{
	char dir[] = "/tmp/bpfprof-test-names.XXXXXX", path[128], name[128];
	const char *real[] = { "x (deleted)", "a\\012b" };
	struct stat st;

	cr_assert_not_null(mkdtemp(dir));
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, real[i]);
		f = fopen(path, "w");
		cr_assert_not_null(f);
		fclose(f);
		cr_assert_eq(stat(path, &st), 0);
		snprintf(name, sizeof(name), "%s", path);
		cr_expect_not(vma_name__decode(name, true, getpid(), major(st.st_dev),
					       minor(st.st_dev), st.st_ino));
		cr_expect_str_eq(name, path);
		/* another file (inode) at that name: the kernel's marks */
		cr_expect(vma_name__decode(name, true, getpid(), major(st.st_dev),
					   minor(st.st_dev), st.st_ino + 1) == (i == 0));
		unlink(path);
	}
	rmdir(dir);
}
