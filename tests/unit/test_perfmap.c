// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of perfmap.c: the JIT map format, malformed lines, growth. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "leak_check.h"
#include "symbols/perfmap.h"

TestSuite(perfmap, .fini = check_leaks);

/* The budget of the maps of one test: 64 MiB, as by default. */
static struct perfmap_budget budget = { .cap = 64u << 20 };

static struct perfmap *parse(const char *text)
{
	struct perfmap *pm = perfmap__new(&budget);

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
	struct perfmap *pm = perfmap__new(&budget);

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
	struct perfmap *pm = perfmap__new(&budget);
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
	struct perfmap *pm = perfmap__new(&budget);

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

/* perfmap__open() of our own pid, the reason of a refusal in why. */
static int open_own(char *why, size_t size)
{
	struct proc_owner unknown = { .known = false };
	char path[64];

	return perfmap__open(getpid(), procs__now(), true, &unknown, path, sizeof(path), why,
			     size);
}

Test(perfmap, open_refuses_a_fifo_a_symlink_a_hard_link)
{
	char path[64], other[80], why[96];
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(other, sizeof(other), "/tmp/test_perfmap-%d.target", (int)getpid());
	unlink(path);
	cr_expect_eq(open_own(why, sizeof(why)), -ENOENT, "no map");
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(open_own(why, sizeof(why)), -EPERM, "a FIFO is refused, without blocking");
	cr_expect_str_eq(why, "not a regular file");
	unlink(path);
	fd = open(other, O_CREAT | O_WRONLY, 0600);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(symlink(other, path), 0);
	cr_expect_eq(open_own(why, sizeof(why)), -EPERM);
	cr_expect_str_eq(why, "a symbolic link");
	unlink(path);
	cr_assert_eq(link(other, path), 0);
	cr_expect_eq(open_own(why, sizeof(why)), -EPERM);
	cr_expect_str_eq(why, "2 links to it (a hard link)");
	unlink(path);
	/* a device node (as one bind-mounted there): checked, never opened */
	cr_assert_eq(mknod(path, S_IFCHR | 0600, makedev(1, 3)), 0);
	cr_expect_eq(open_own(why, sizeof(why)), -EPERM);
	cr_expect_str_eq(why, "not a regular file");
	unlink(path);
	cr_assert_eq(link(other, path), 0);
	unlink(other);
	fd = open_own(why, sizeof(why));
	cr_expect_geq(fd, 0, "our own file, through /proc/self/root and our own pid: %s", why);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* A gone process's map is checked against the owner learnt while it ran,
 * never read again from /proc; the pid's current holder is taken only if it
 * started by the process's start (else it is another process). */
Test(perfmap, open_checks_the_owner_learnt_and_the_start_time)
{
	struct proc_owner me, other;
	char path[64], why[96];
	int fd;

	cr_assert_eq(proc_owner__read(getpid(), procs__now(), &me, NULL), 0);
	cr_expect(me.known);
	cr_expect_eq(me.euid, geteuid());
	cr_expect_eq(proc_owner__read(getpid(), 0, &other, NULL), -ESRCH,
		     "a process that started after the time given is not the one meant");
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
	cr_assert(fd >= 0);
	cr_assert_eq(fchown(fd, 4242, 4242), 0);
	close(fd);
	other = (struct proc_owner){ .ruid = 4242, .euid = 4242, .known = true };
	cr_expect_geq(fd = perfmap__open(getpid(), procs__now(), false, &other, path, sizeof(path),
					 why, sizeof(why)), 0, "gone, learnt: %s", why);
	if (fd >= 0)
		close(fd);
	cr_expect_eq(perfmap__open(getpid(), procs__now(), false, &me, path, sizeof(path), why,
				   sizeof(why)), -EPERM);
	cr_expect_str_eq(why, "owned by uid 4242, not the process's 0");
	other.known = false;
	cr_expect_eq(perfmap__open(getpid(), procs__now(), false, &other, path, sizeof(path), why,
				   sizeof(why)), -EPERM);
	cr_expect_str_eq(why, "owner unknown");
	/* alive, its start time known but not ours: the pid is someone else's */
	other = me;
	other.ruid = other.euid = 4242;
	other.start_ticks++;
	cr_expect_geq(fd = perfmap__open(getpid(), procs__now(), true, &other, path, sizeof(path),
					 why, sizeof(why)), 0, "the owner learnt, not the pid's holder: %s",
		      why);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* The owner rule: the process's user's (real or effective uid), root's
 * only for a process of root's; a process gone: its user unknown. */
Test(perfmap, refusal_by_owner_and_links)
{
	struct stat st = { .st_mode = S_IFREG | 0644, .st_nlink = 1, .st_uid = 1000 };
	struct proc_owner user = { .ruid = 1000, .euid = 1000, .known = true };
	struct proc_owner setuid = { .ruid = 1000, .euid = 0, .known = true };
	struct proc_owner gone = { .known = false };
	char why[96];

	perfmap__refusal(&st, &user, why, sizeof(why));
	cr_expect_str_eq(why, "");
	st.st_uid = 0;
	perfmap__refusal(&st, &user, why, sizeof(why));
	cr_expect_str_eq(why, "owned by uid 0, not the process's 1000");
	perfmap__refusal(&st, &setuid, why, sizeof(why));
	cr_expect_str_eq(why, "", "root's file, a process whose euid is root's");
	perfmap__refusal(&st, &gone, why, sizeof(why));
	cr_expect_str_eq(why, "owner unknown", "a process gone whose user was never learnt");
	st.st_uid = 1001;
	perfmap__refusal(&st, &user, why, sizeof(why));
	cr_expect_str_eq(why, "owned by uid 1001, not the process's 1000");
	st.st_uid = 1000;
	st.st_nlink = 3;
	perfmap__refusal(&st, &user, why, sizeof(why));
	cr_expect_str_eq(why, "3 links to it (a hard link)");
	perfmap__refusal(&st, &gone, why, sizeof(why));
	cr_expect_str_eq(why, "owner unknown");
	st.st_mode = S_IFIFO | 0644;
	perfmap__refusal(&st, &user, why, sizeof(why));
	cr_expect_str_eq(why, "not a regular file");
}

/* A JIT that never stops generating: past the budget of all maps, lines
 * are counted, not kept (the map is cut short: none after); the first ones
 * still name. Two maps share one budget; freeing one gives its bytes back. */
Test(perfmap, lines_past_the_budget_are_counted_not_kept)
{
	struct perfmap_budget small = { .cap = 1u << 20 };
	struct perfmap *pm = perfmap__new(&small), *other = perfmap__new(&small), *late;
	char name[200], line[PERFMAP_LINE_MAX];
	size_t lines = small.cap / sizeof(name) + 100;
	int n;

	cr_assert(pm && other);
	memset(name, 'f', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	cr_assert_eq(perfmap__feed(other, "1000 10 first\n", 14), 0);
	for (size_t i = 0; i < lines; i++) {
		n = snprintf(line, sizeof(line), "%zx 10 %s\n", 0x1000 + i * 0x10, name);
		cr_assert_eq(perfmap__feed(pm, line, (size_t)n), 0);
	}
	cr_expect_gt(perfmap__over_cap(pm), 99);
	cr_expect_eq(perfmap__count(pm) + perfmap__over_cap(pm), lines);
	cr_expect_eq(perfmap__malformed(pm), 0);
	cr_expect_leq(small.held, small.cap);
	cr_expect_gt(small.held, small.cap - 2 * sizeof(name) - 4096, "the budget is used");
	expect_at(pm, 0x1000, name);
	expect_at(pm, 0x1000 + (lines - 1) * 0x10, NULL);
	late = perfmap__new(&small);
	cr_assert_not_null(late);
	n = snprintf(line, sizeof(line), "2000 10 %s\n", name);	/* as long as pm's */
	cr_assert_eq(perfmap__feed(late, line, (size_t)n), 0);
	cr_expect_eq(perfmap__over_cap(late), 1, "the budget is shared");
	perfmap__free(pm);
	cr_assert_eq(perfmap__feed(late, "3000 10 third\n", 14), 0);
	cr_expect_eq(perfmap__over_cap(late), 2, "a map cut short stays cut");
	expect_at(other, 0x1000, "first");
	pm = perfmap__new(&small);
	cr_assert_not_null(pm);
	cr_assert_eq(perfmap__feed(pm, "3000 10 third\n", 14), 0);
	cr_expect_eq(perfmap__count(pm), 1, "the bytes freed are there for the next map");
	perfmap__free(pm);
	perfmap__free(late);
	perfmap__free(other);
	cr_expect_eq(small.held, 0, "every byte given back");
}

/* issue 36: one process's endless map takes its share of the budget, not
 * the budget: a JIT started after it keeps every name, and the cut says
 * which limit it hit (the share, not all maps' cap). */
Test(perfmap, one_map_spends_only_its_share)
{
	struct perfmap_budget b = { .cap = 1u << 20, .share = (1u << 20) / PERFMAP_SHARES };
	struct perfmap *hog = perfmap__new(&b), *late = perfmap__new(&b), *others[3];
	char line[128];
	size_t lines = 200000;
	int n;

	cr_assert(hog && late);
	for (size_t i = 0; i < lines; i++) {
		n = snprintf(line, sizeof(line), "%zx 10 hog_fn_%zu\n", 0x100000 + i * 0x10, i);
		cr_assert_eq(perfmap__feed(hog, line, (size_t)n), 0);
	}
	cr_expect_gt(perfmap__over_cap(hog), 0);
	cr_expect(perfmap__cut_by_share(hog), "cut by its share");
	cr_expect_leq(b.held, b.share, "the hog holds at most its share (%zu of %zu)", b.held, b.share);
	for (int i = 0; i < 143; i++) {	/* the later JIT: 143 names */
		n = snprintf(line, sizeof(line), "%x 10 late_fn_%d\n", 0x1000 + i * 0x10, i);
		cr_assert_eq(perfmap__feed(late, line, (size_t)n), 0);
	}
	cr_expect_eq(perfmap__count(late), 143, "the later JIT keeps all its names");
	cr_expect_eq(perfmap__over_cap(late), 0);
	expect_at(late, 0x1000 + 142 * 0x10, "late_fn_142");
	/* three more hogs spend the rest: the one after them is cut by the cap */
	for (int k = 0; k < 3; k++) {
		others[k] = perfmap__new(&b);
		cr_assert_not_null(others[k]);
		for (size_t i = 0; i < lines / 4; i++) {
			n = snprintf(line, sizeof(line), "%zx 10 other_fn_%zu\n", 0x100000 + i * 0x10, i);
			cr_assert_eq(perfmap__feed(others[k], line, (size_t)n), 0);
		}
	}
	cr_expect_leq(b.held, b.cap);
	cr_expect(perfmap__cut_by_share(others[0]) && perfmap__cut_by_share(others[1]));
	cr_expect(perfmap__over_cap(others[2]) > 0 && !perfmap__cut_by_share(others[2]),
		  "the fourth hog is cut by the cap: the later JIT's bytes are in it too");
	cr_assert_eq(perfmap__feed(hog, "1 1 x\n", 6), 0);
	for (int k = 0; k < 3; k++)
		perfmap__free(others[k]);
	perfmap__free(hog);
	perfmap__free(late);
	cr_expect_eq(b.held, 0, "every byte given back");
}

/* Overlaps: the latest line covering an address names it, whatever the
 * order and nesting; a huge entry neither hides later ones nor is lost
 * around them. */
Test(perfmap, overlapping_and_huge_entries)
{
	struct perfmap *pm = parse(
		"0 7fff00000000 huge\n"
		"5000 1000 mid\n"
		"5400 100 inner\n"
		"4f00 200 straddle\n"		/* later than mid, over its start */
		"8000 10 low\n"
		"5400 100 inner_again\n");	/* the same range, rewritten */
	expect_at(pm, 0, "huge");
	expect_at(pm, 0x4eff, "huge");
	expect_at(pm, 0x4f00, "straddle");
	expect_at(pm, 0x50ff, "straddle");
	expect_at(pm, 0x5100, "mid");
	expect_at(pm, 0x5400, "inner_again");
	expect_at(pm, 0x54ff, "inner_again");
	expect_at(pm, 0x5500, "mid");
	expect_at(pm, 0x5fff, "mid");
	expect_at(pm, 0x6000, "huge");
	expect_at(pm, 0x8005, "low");
	expect_at(pm, 0x7ffeffffffff, "huge");
	expect_at(pm, 0x7fff00000000, NULL);
	cr_assert_eq(perfmap__feed(pm, "100 7fff00000000 later_huge\n", 28), 0);
	expect_at(pm, 0x5400, "later_huge");
	expect_at(pm, 0xff, "huge");
	expect_at(pm, 0x7fff000000ff, "later_huge");
	perfmap__free(pm);
}

/* Agrees with the rule it implements, scanned: random overlapping entries,
 * added in batches (lookups between: the index rebuilt each time). */
Test(perfmap, index_agrees_with_a_scan)
{
	struct { uint64_t start, end; char name[16]; } e[400];
	struct perfmap *pm = perfmap__new(&budget);
	uint64_t seed = 42;
	char line[64];

	cr_assert_not_null(pm);
	for (size_t i = 0; i < 400; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		e[i].start = (seed >> 33) % 4096;
		e[i].end = e[i].start + 1 + (seed >> 20) % (i % 50 == 0 ? 4096 : 64);
		snprintf(e[i].name, sizeof(e[i].name), "f%zu", i);
		snprintf(line, sizeof(line), "%lx %lx %s\n", (unsigned long)e[i].start,
			 (unsigned long)(e[i].end - e[i].start), e[i].name);
		cr_assert_eq(perfmap__feed(pm, line, strlen(line)), 0);
		if (i % 100 != 99)
			continue;
		for (uint64_t a = 0; a < 8300; a += 7) {
			const char *want = NULL;

			for (size_t j = 0; j <= i; j++)
				if (e[j].start <= a && a < e[j].end)
					want = e[j].name;
			expect_at(pm, a, want);
		}
	}
	perfmap__free(pm);
}

/* A huge (here sparse) file is read PERFMAP_READ_MAX bytes a call: a line
 * past that is there only after the next call. */
Test(perfmap, a_huge_file_is_read_in_bounded_steps)
{
	char path[] = "/tmp/bpfprof-perfmap-XXXXXX";
	const char tail[] = "\n1000 10 past_the_hole\n";
	int fd = mkstemp(path);
	struct perfmap *pm = perfmap__new(&budget);

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
