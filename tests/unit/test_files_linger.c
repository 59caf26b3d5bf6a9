// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the registry's linger (files_opts.linger_ns): an entry no
 * process maps stays a while, with its symbols, and is taken again when a
 * process maps the same, unchanged file; a file changed in place, or a
 * linger run out, makes a new entry. The files are this test binary, as
 * this process maps it, and a temp file it maps and then changes.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "files/files.h"
#include "files_fixtures.h"
#include "leak_check.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"

TestSuite(files_linger, .fini = check_leaks);

#define LINGER_NS	(60ull * 1000000000)	/* longer than any test */

static struct files *new_files(uint64_t linger_ns)
{
	struct files *fs = files__new(&(struct files_opts){ .linger_ns = linger_ns });

	cr_assert_not_null(fs);
	return fs;
}

Test(files_linger, unmapped_entry_taken_again_with_its_symbols)
{
	struct files *fs = new_files(LINGER_NS);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files_linger");
	struct file_entry *f = files__get(fs, getpid(), true, &v), *again;

	cr_assert_not_null(f);
	cr_assert(f->stamp.known, "the path names the mapped file: its stamp is known");
	cr_assert_not_null(files__symbols(fs, f, getpid(), true, &v));
	files__put(fs, f);
	cr_expect_eq(stats(fs).entries, 0);
	cr_expect_eq(stats(fs).lingering, 1);
	cr_expect_eq(stats(fs).released, 0);
	cr_expect_gt(stats(fs).bytes, 0);	/* its symbols stay */
	again = files__get(fs, getpid(), true, &v);
	cr_expect_eq(again, f);
	cr_expect_eq(stats(fs).revived, 1);
	cr_expect_eq(stats(fs).lingering, 0);
	cr_expect_eq(stats(fs).entries, 1);
	cr_expect_not_null(files__symbols(fs, again, getpid(), true, &v));
	cr_expect_eq(stats(fs).reads, 1);	/* not read again */
	files__put(fs, again);
	files__free(fs);
}

Test(files_linger, none_without_a_linger)
{
	struct files *fs = new_files(0);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files_linger");

	files__put(fs, files__get(fs, getpid(), true, &v));
	cr_expect_eq(stats(fs).lingering, 0);
	cr_expect_eq(stats(fs).released, 1);
	files__free(fs);
}

Test(files_linger, linger_runs_out)
{
	struct files *fs = new_files(1000000);	/* 1 ms */
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files_linger");

	files__put(fs, files__get(fs, getpid(), true, &v));
	cr_expect_eq(stats(fs).lingering, 1);
	usleep(20000);
	files__trim(fs);
	cr_expect_eq(stats(fs).lingering, 0);
	cr_expect_eq(stats(fs).released, 1);
	files__free(fs);
}

/* A temp file mapped here (read-only, its own mapping), as a vma. */
static void *map_temp(char *path, size_t len, struct vma *v)
{
	int fd = mkstemp(path);
	struct stat st;
	void *mem;

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, (off_t)len), 0);
	mem = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert_neq(mem, MAP_FAILED);
	cr_assert_eq(fstat(fd, &st), 0);
	close(fd);
	*v = (struct vma){ .start = (uint64_t)(uintptr_t)mem, .end = (uint64_t)(uintptr_t)mem + len,
			   .dev_major = major(st.st_dev), .dev_minor = minor(st.st_dev),
			   .ino = st.st_ino, .path = path };
	return mem;
}

Test(files_linger, file_changed_in_place_is_a_new_entry)
{
	struct files *fs = new_files(LINGER_NS);
	char path[] = "/tmp/bpfprof-linger-XXXXXX";
	size_t len = 8192;
	struct vma v;
	void *mem = map_temp(path, len, &v);
	struct file_entry *f = files__get(fs, getpid(), true, &v);
	int fd;

	cr_assert_not_null(f);
	cr_assert(f->stamp.known);
	files__put(fs, f);
	cr_expect_eq(stats(fs).lingering, 1);
	/* the same inode, another size: what the entry read is not this */
	fd = open(path, O_WRONLY | O_APPEND);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "x", 1), 1);
	close(fd);
	f = files__get(fs, getpid(), true, &v);
	cr_assert_not_null(f);
	cr_expect_eq(stats(fs).revived, 0);
	cr_expect_eq(stats(fs).released, 1);
	cr_expect_eq(stats(fs).entries, 1);
	cr_expect_eq(f->stamp.size, len + 1);
	files__put(fs, f);
	files__free(fs);
	munmap(mem, len);
	unlink(path);
}
