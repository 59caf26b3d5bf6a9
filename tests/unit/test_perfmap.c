// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of perfmap.c: the JIT map format, malformed lines, growth. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "leak_check.h"
#include "perfmap.h"

TestSuite(perfmap, .fini = check_leaks);

static struct perfmap *parse(const char *text)
{
	struct perfmap *pm = perfmap__new();

	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__feed(pm, text, strlen(text)), 0);
	return pm;
}

static void expect_at(struct perfmap *pm, uint64_t addr, const char *want)
{
	const char *got = perfmap__lookup(pm, addr);

	if (!want) {
		cr_expect_null(got, "0x%lx: %s", (unsigned long)addr, got);
		return;
	}
	cr_assert_not_null(got, "0x%lx", (unsigned long)addr);
	cr_expect_str_eq(got, want, "0x%lx", (unsigned long)addr);
}

Test(perfmap, node_and_jdk_formats)
{
	struct perfmap *pm = parse(
		"3ef414c0398 2a LazyCompile:~foo /app/x.js:1:1\n"	/* node: spaces in names */
		"0x00007f5c4d000100 0x80 java.lang.String::hashCode\r\n"	/* JDK 17+, CRLF */
		"7F5C4D000200 10 Interpreter\n");
	cr_expect_eq(perfmap__count(pm), 3);
	cr_expect_eq(perfmap__malformed(pm), 0);
	expect_at(pm, 0x3ef414c0398, "LazyCompile:~foo /app/x.js:1:1");
	expect_at(pm, 0x3ef414c0398 + 0x29, "LazyCompile:~foo /app/x.js:1:1");
	expect_at(pm, 0x3ef414c0398 + 0x2a, NULL);
	expect_at(pm, 0x3ef414c0397, NULL);
	expect_at(pm, 0x7f5c4d000100, "java.lang.String::hashCode");
	expect_at(pm, 0x7f5c4d00017f, "java.lang.String::hashCode");
	expect_at(pm, 0x7f5c4d000205, "Interpreter");
	perfmap__free(pm);
}

Test(perfmap, malformed_lines_are_skipped_and_counted)
{
	struct perfmap *pm = parse(
		"\n"				/* blank: not an error */
		"1000 10 good_one\n"
		"zz00 10 not_hex\n"
		"2000 0 size_zero\n"
		"3000 10\n"			/* no name */
		"3000\n"			/* no size */
		"0x 10 empty_hex\n"
		"11112222333344445 10 seventeen_digits\n"
		"ffffffffffffff00 200 past_the_end\n"
		"5000 10 good_two\n");
	cr_expect_eq(perfmap__count(pm), 2);
	cr_expect_eq(perfmap__malformed(pm), 7);
	expect_at(pm, 0x1005, "good_one");
	expect_at(pm, 0x5005, "good_two");
	expect_at(pm, 0x2000, NULL);
	expect_at(pm, 0x3000, NULL);
	perfmap__free(pm);
}

Test(perfmap, embedded_nul_via_feed)
{
	static const char text[] = "4000 10 with\0nul\n6000 10 after\n";
	struct perfmap *pm = perfmap__new();

	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__feed(pm, text, sizeof(text) - 1), 0);
	cr_expect_eq(perfmap__count(pm), 1);
	cr_expect_eq(perfmap__malformed(pm), 1);
	expect_at(pm, 0x4000, NULL);
	expect_at(pm, 0x6000, "after");
	perfmap__free(pm);
}

Test(perfmap, later_lines_win_and_order_does_not_matter)
{
	struct perfmap *pm = parse(
		"9000 100 big\n"
		"1000 10 low\n"
		"9010 10 regenerated\n");	/* code replaced inside big's range */
	expect_at(pm, 0x9015, "regenerated");
	expect_at(pm, 0x9005, "big");
	expect_at(pm, 0x90f0, "big");
	expect_at(pm, 0x1000, "low");
	perfmap__free(pm);
}

Test(perfmap, lines_split_across_feeds_and_overlong_lines)
{
	struct perfmap *pm = perfmap__new();
	static char longline[PERFMAP_LINE_MAX + 64];

	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__feed(pm, "10", 2), 0);
	cr_assert_eq(perfmap__feed(pm, "00 10 spl", 9), 0);
	cr_expect_eq(perfmap__count(pm), 0, "an incomplete line waits");
	cr_assert_eq(perfmap__feed(pm, "it\n", 3), 0);
	expect_at(pm, 0x1000, "split");
	memset(longline, 'a', sizeof(longline) - 1);
	memcpy(longline, "2000 10 ", 8);
	longline[sizeof(longline) - 2] = '\n';
	cr_assert_eq(perfmap__feed(pm, longline, sizeof(longline) - 1), 0);
	cr_assert_eq(perfmap__feed(pm, "3000 10 fine\n", 13), 0);
	cr_expect_eq(perfmap__malformed(pm), 1);
	expect_at(pm, 0x2000, NULL);
	expect_at(pm, 0x3000, "fine");
	perfmap__free(pm);
}

Test(perfmap, a_growing_file_is_read_from_where_it_stopped)
{
	char path[] = "/tmp/test_perfmap.XXXXXX";
	int fd = mkstemp(path);
	struct perfmap *pm = perfmap__new();

	cr_assert(fd >= 0);
	cr_assert_not_null(pm);
	unlink(path);
	cr_assert_eq(write(fd, "1000 10 first\n2000 1", 20), 20);
	cr_assert_eq(perfmap__read_fd(pm, fd), 0);
	cr_expect_eq(perfmap__count(pm), 1);
	cr_assert_eq(write(fd, "0 second\n", 9), 9);
	cr_assert_eq(perfmap__read_fd(pm, fd), 0);
	cr_expect_eq(perfmap__count(pm), 2, "each line once");
	expect_at(pm, 0x1000, "first");
	expect_at(pm, 0x2010, NULL);
	expect_at(pm, 0x200f, "second");
	cr_assert_eq(perfmap__read_fd(pm, fd), 0);
	cr_expect_eq(perfmap__count(pm), 2);
	close(fd);
	perfmap__free(pm);
}

Test(perfmap, open_refuses_what_is_not_a_regular_file)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	cr_expect_lt(perfmap__open(getpid(), true), 0, "no map");
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_lt(perfmap__open(getpid(), true), 0, "a FIFO is refused, without blocking");
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	cr_assert(fd >= 0);
	close(fd);
	fd = perfmap__open(getpid(), true);
	cr_expect_geq(fd, 0, "through /proc/self/root and our own pid");
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* A JIT that never stops generating: past PERFMAP_MAX_BYTES of entries
 * and names held, lines are counted, not kept; the first ones still name. */
Test(perfmap, lines_past_the_byte_cap_are_counted_not_kept)
{
	struct perfmap *pm = perfmap__new();
	char name[PERFMAP_LINE_MAX - 64], line[PERFMAP_LINE_MAX];
	size_t lines = PERFMAP_MAX_BYTES / sizeof(name) + 100;

	cr_assert_not_null(pm);
	memset(name, 'f', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (size_t i = 0; i < lines; i++) {
		int n = snprintf(line, sizeof(line), "%zx 10 %s\n", 0x1000 + i * 0x10, name);

		cr_assert_eq(perfmap__feed(pm, line, (size_t)n), 0);
	}
	cr_expect_gt(perfmap__over_cap(pm), 99);
	cr_expect_eq(perfmap__count(pm) + perfmap__over_cap(pm), lines);
	cr_expect_eq(perfmap__malformed(pm), 0);
	cr_expect_lt(perfmap__count(pm) * sizeof(name), (size_t)PERFMAP_MAX_BYTES);
	expect_at(pm, 0x1000, name);
	expect_at(pm, 0x1000 + (lines - 1) * 0x10, NULL);
	perfmap__free(pm);
}

/* A huge (here sparse) file is read PERFMAP_READ_MAX bytes a call: a line
 * past that is there only after the next call. */
Test(perfmap, a_huge_file_is_read_in_bounded_steps)
{
	char path[] = "/tmp/bpfprof-perfmap-XXXXXX";
	const char tail[] = "\n1000 10 past_the_hole\n";
	int fd = mkstemp(path);
	struct perfmap *pm = perfmap__new();

	cr_assert(fd >= 0);
	cr_assert_not_null(pm);
	unlink(path);
	cr_assert_eq(pwrite(fd, tail, sizeof(tail) - 1, (off_t)PERFMAP_READ_MAX + 4096),
		     (ssize_t)sizeof(tail) - 1);
	cr_assert_eq(perfmap__read_fd(pm, fd), 0);
	expect_at(pm, 0x1000, NULL);
	cr_assert_eq(perfmap__read_fd(pm, fd), 0);
	expect_at(pm, 0x1000, "past_the_hole");
	cr_expect_eq(perfmap__malformed(pm), 1);	/* the hole: one line of NULs */
	close(fd);
	perfmap__free(pm);
}
