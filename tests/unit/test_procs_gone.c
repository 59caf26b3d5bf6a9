// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of what procs.c lets go: mappings replaced or unmapped, images
 * ended, and the per-process cap, each once the samples before it are
 * drained. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/config.h"
#include "files/files.h"
#include "leak_check.h"
#include "procs/procs.h"
#include "procs_fixtures.h"

TestSuite(procs_gone, .fini = check_leaks);

static void map_in_turn(struct procs *p, uint64_t first, int n)
{
	char path[32];

	for (int i = 0; i < n; i++) {
		struct vma v = vma_at(0x10000, first + (uint64_t)i, path);

		v.ino = 1000 + first + (uint64_t)i;
		snprintf(path, sizeof(path), "/lib%d.so", (int)(first + (uint64_t)i));
		cr_assert_eq(procs__mmap(p, FAKE, &v), 0);
	}
}

/* Mappings replaced over their whole range go once every sample taken
 * before their replacement is drained (the reap's time), and their files
 * with them; one never mapped over stays, and what is mapped now. */
Test(procs_gone, replaced_mappings_go_once_drained_with_their_files)
{
	struct files *fs = files__new(&(struct files_opts){ .inlines = false });
	struct procs *p = procs__new();
	struct vma lone = vma_at(0x90000, 5, "/lone");
	struct files_stats st;

	cr_assert_not_null(fs);
	cr_assert_not_null(p);
	files__attach(fs, p);
	cr_assert_eq(procs__mmap(p, FAKE, &lone), 0);
	map_in_turn(p, 10, 100);	/* times 10 .. 109 */
	cr_expect_eq(procs__vmas(p), 101);
	cr_expect_eq(procs__reap(p, 50), 0);	/* no process went */
	/* 10 .. 48 were replaced before 50; 49's replacement (50) was not */
	cr_expect_eq(procs__vmas(p), 101 - 39);
	cr_expect_eq(procs__pruned(p), 39);
	cr_expect_str_eq(procs__find(p, FAKE, 0, EXEC_LATEST, 0x10800)->path, "/lib109.so");
	files__stats(fs, &st);
	cr_expect_eq(st.entries, 101 - 39, "the registry let their files go (%zu held)",
		     st.entries);
	procs__reap(p, 1000);
	cr_expect_eq(procs__vmas(p), 2);
	cr_expect_str_eq(procs__find(p, FAKE, 0, EXEC_LATEST, 0x90000)->path, "/lone");
	cr_expect_str_eq(procs__find(p, FAKE, 0, EXEC_LATEST, 0x10000)->path, "/lib109.so");
	files__stats(fs, &st);
	cr_expect_eq(st.entries, 2);
	cr_expect_eq(procs__forgotten(p).n, 0, "nothing counted as forgotten");
	procs__free(p);
	files__free(fs);
}

/* A mapping covered by several newer ones together goes; one they cover
 * only in part stays (its other part is still named by it). */
Test(procs_gone, a_mapping_goes_only_when_covered_whole)
{
	struct procs *p = procs__new();
	struct vma wide = { .start = 0x10000, .end = 0x14000, .time = 10, .path = "/wide" };
	struct vma lo = { .start = 0x10000, .end = 0x12000, .time = 20, .path = "/lo" };
	struct vma part = { .start = 0x20000, .end = 0x24000, .time = 11, .path = "/part" };
	struct vma hi = { .start = 0x12000, .end = 0x14000, .time = 30, .path = "/hi" };
	struct vma over = { .start = 0x20000, .end = 0x23000, .time = 31, .path = "/over" };

	cr_assert_eq(procs__mmap(p, FAKE, &wide), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &part), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &lo), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &hi), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &over), 0);
	procs__reap(p, 100);
	cr_expect_eq(procs__vmas(p), 4, "only /wide went");
	cr_expect_str_eq(procs__find(p, FAKE, 0, EXEC_LATEST, 0x23800)->path, "/part");
	cr_expect_str_eq(procs__find(p, FAKE, 0, EXEC_LATEST, 0x13800)->path, "/hi");
	procs__free(p);
}

/* The image an exec ended goes once samples before the exec are drained;
 * mappings a waiting fork's copy still needs stay until it is made. */
Test(procs_gone, ended_images_go_and_fork_copies_keep_theirs)
{
	struct procs *p = procs__new();
	struct vma a = vma_at(0x1000, 10, "/a"), b = vma_at(0x1000, 30, "/b");
	struct vma c = vma_at(0x5000, 50, "/c");

	cr_assert_eq(procs__mmap(p, FAKE, &a), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 20), 0);	/* its copy waits */
	cr_assert_eq(procs__mmap(p, FAKE, &b), 0);
	procs__reap(p, 40);
	cr_expect_eq(procs__vmas(p), 2, "/a stays for the child's copy");
	cr_expect_str_eq(procs__find(p, FAKE + 1, 20, EXEC_LATEST, 0x1000)->path, "/a");
	procs__reap(p, 41);	/* the copy is made: /a goes from the parent */
	cr_expect_eq(procs__vmas(p), 2, "/b, and the child's /a");
	cr_assert_eq(procs__exec(p, FAKE, 45), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &c), 0);
	procs__reap(p, 44);
	cr_expect_str_eq(procs__find(p, FAKE, 0, 0, 0x1000)->path, "/b", "not drained yet");
	procs__reap(p, 46);
	cr_expect_null(procs__find(p, FAKE, 0, 0, 0x1000), "the image before the exec went");
	cr_expect_str_eq(procs__find(p, FAKE, 0, EXEC_LATEST, 0x5000)->path, "/c");
	procs__free(p);
}

/* Past the cap the oldest go, counted, the process named ("?": no comm). */
Test(procs_gone, the_cap_forgets_the_oldest_counted)
{
	struct procs *p = procs__new();
	struct procs_forgotten f;

	for (int i = 0; i < PROCS_MAX_VMAS + 10; i++) {
		struct vma v = vma_at(0x100000 + (uint64_t)i * 0x1000, 10, "/many");

		cr_assert_eq(procs__mmap(p, FAKE, &v), 0);
	}
	procs__reap(p, 5);
	f = procs__forgotten(p);
	cr_expect_eq(procs__vmas(p), PROCS_MAX_VMAS);
	cr_expect_eq(f.n, 10);
	cr_expect_eq(f.pid, FAKE);
	cr_expect_str_eq(f.comm, "?");
	cr_expect_null(procs__find(p, FAKE, 0, EXEC_LATEST, 0x100000), "the oldest went");
	cr_expect_not_null(procs__find(p, FAKE, 0, EXEC_LATEST, 0x100000 + 10 * 0x1000));
	procs__free(p);
}

/* This process maps a page of its own executable, executable, n times,
 * each recorded as the tracker would (its inode, the time it was seen). */
static void map_own_pages(struct procs *p, void **at, int n)
{
	struct stat st;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0 && !fstat(fd, &st));
	for (int i = 0; i < n; i++) {
		at[i] = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		cr_assert_neq(at[i], MAP_FAILED);
		struct vma v = { .start = (uint64_t)(uintptr_t)at[i],
				 .end = (uint64_t)(uintptr_t)at[i] + 4096, .ino = st.st_ino,
				 .time = procs__now(), .path = "/self" };
		cr_assert_eq(procs__mmap(p, getpid(), &v), 0);
	}
	close(fd);
}

/* Unmapped and never mapped over (no munmap record exists): a process that
 * made 64 new mappings since /proc was last read for it is read again, and
 * what it no longer has goes once the samples up to that reading are
 * drained; what it still maps stays. */
Test(procs_gone, unmapped_mappings_go_once_read_gone_and_drained)
{
	enum { N = 70, KEEP = 4 };
	struct procs *p = procs__new();
	void *at[N];

	cr_assert_not_null(p);
	map_own_pages(p, at, N);
	for (int i = KEEP; i < N; i++)
		munmap(at[i], 4096);
	procs__reap(p, procs__now());	/* read now: gone, not drained yet */
	cr_expect_eq(procs__vmas(p), N, "samples before the reading may still name them");
	procs__reap(p, procs__now());
	cr_expect_eq(procs__vmas(p), KEEP, "%zu kept", procs__vmas(p));
	for (int i = 0; i < KEEP; i++)
		cr_expect_not_null(procs__find(p, getpid(), 0, EXEC_LATEST, (uint64_t)(uintptr_t)at[i]),
				   "mapped %d stays", i);
	cr_expect_null(procs__find(p, getpid(), 0, EXEC_LATEST, (uint64_t)(uintptr_t)at[KEEP]));
	cr_expect_eq(procs__forgotten(p).n, 0, "not the cap's");
	for (int i = 0; i < KEEP; i++)
		munmap(at[i], 4096);
	procs__free(p);
}

/* /proc is read for a process only as often as it makes new mappings: a
 * few unmapped are left to the next reading (the cap is the backstop). */
Test(procs_gone, unmapped_are_read_only_after_many_new_mappings)
{
	enum { N = 10 };
	struct procs *p = procs__new();
	void *at[N];

	cr_assert_not_null(p);
	map_own_pages(p, at, N);
	for (int i = 0; i < N; i++)
		munmap(at[i], 4096);
	procs__reap(p, procs__now());
	procs__reap(p, procs__now());
	cr_expect_eq(procs__vmas(p), N, "not read yet: %zu", procs__vmas(p));
	procs__free(p);
}

/* What may drop state kept for a process (its JIT map) until its samples
 * are named: drained once its exit was seen before the reap's time, or when
 * procs knows no process of that pid; never while it runs. Incarnations of
 * one pid apart: the old one drained, the new one not. */
Test(procs_gone, drained_once_its_exit_is_before_the_reap)
{
	struct procs *p = procs__new();

	cr_assert_not_null(p);
	cr_expect(procs__drained(p, FAKE + 7, 0, 100), "a pid procs never saw");
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 10), 0);
	cr_expect_not(procs__drained(p, FAKE + 1, 10, 100), "running");
	cr_assert_eq(procs__exit(p, FAKE + 1, 30), 0);
	cr_expect_not(procs__drained(p, FAKE + 1, 10, 30), "its exit not before the reap's time");
	cr_expect(procs__drained(p, FAKE + 1, 10, 31));
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 40), 0);	/* the pid again */
	cr_expect(procs__drained(p, FAKE + 1, 10, 50), "the old incarnation");
	cr_expect_not(procs__drained(p, FAKE + 1, 40, 50), "the new one runs");
	procs__reap(p, 50);
	cr_expect_not(procs__drained(p, FAKE + 1, 40, 50), "still runs after the reap");
	cr_assert_eq(procs__exit(p, FAKE + 1, 60), 0);
	procs__reap(p, 70);
	cr_expect(procs__drained(p, FAKE + 1, 40, 70), "reaped: procs knows it no more");
	procs__free(p);
}
