// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the registry of mapped files (files.c) and of a file's
 * identity (mapped_file.c): one entry per identity, references from the
 * processes that map it, release with the last one (the unwind slot's
 * callback too), symbols read on demand and dropped past the byte budget.
 * The files are this test binary and libc, as this process maps them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "files/files.h"
#include "files_fixtures.h"
#include "leak_check.h"
#include "procs/mapped_file.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"

TestSuite(files, .fini = check_leaks);

/* A tgid far above pid_max, so /proc never answers for it. */
#define FAKE	(1 << 30)

static struct files *new_files(size_t max_bytes)
{
	struct files *fs = files__new(&(struct files_opts){ .inlines = false,
							     .max_bytes = max_bytes });

	cr_assert_not_null(fs);
	return fs;
}

Test(files, one_entry_per_identity_released_with_the_last_reference)
{
	struct files *fs = new_files(0);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files");
	struct file_entry *a = files__get(fs, getpid(), true, &v), *b;

	cr_assert_not_null(a);
	b = files__get(fs, FAKE, false, &v);	/* another process, same file */
	cr_expect_eq(a, b);
	cr_expect_eq(stats(fs).entries, 1);
	files__put(fs, a);
	cr_expect_eq(stats(fs).entries, 1);
	cr_expect_eq(stats(fs).released, 0);
	files__put(fs, b);
	cr_expect_eq(stats(fs).entries, 0);
	cr_expect_eq(stats(fs).released, 1);
	files__free(fs);
}

Test(files, same_inode_on_another_device_is_another_file)
{
	struct files *fs = new_files(0);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files"), other = v;
	struct file_entry *a, *b;

	other.dev_minor ^= 0x7f;
	a = files__get(fs, getpid(), true, &v);
	b = files__get(fs, FAKE, false, &other);
	cr_assert(a && b);
	cr_expect_neq(a, b);
	cr_expect_eq(stats(fs).entries, 2);
	/* read by path, the file is not what the other device's mapping names */
	cr_expect_null(files__symbols(fs, b, FAKE, false, &other));
	cr_expect_not_null(files__symbols(fs, a, getpid(), true, &v));
	files__put(fs, a);
	files__put(fs, b);
	files__free(fs);
}

static void count_release(void *ctx, void *unwind)
{
	cr_expect_str_eq(unwind, "rows");
	(*(int *)ctx)++;
}

Test(files, unwind_slot_released_with_the_entry)
{
	struct files *fs = new_files(0);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files");
	struct file_entry *f = files__get(fs, getpid(), true, &v);
	int released = 0;

	files__on_release(fs, count_release, &released);
	f->unwind = "rows";
	cr_assert_not_null(files__get(fs, FAKE, false, &v));
	files__put(fs, f);
	cr_expect_eq(released, 0);
	files__put(fs, f);
	cr_expect_eq(released, 1);
	/* a registry freed with entries left releases them too */
	f = files__get(fs, getpid(), true, &v);
	f->unwind = "rows";
	files__free(fs);
	cr_expect_eq(released, 2);
}

Test(files, symbols_read_once_and_again_after_release)
{
	struct files *fs = new_files(0);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files");
	struct file_entry *f = files__get(fs, getpid(), true, &v);
	const struct elf_syms *es = files__symbols(fs, f, getpid(), true, &v);
	uint64_t off;

	cr_assert_not_null(es);
	cr_expect_str_eq(elf_syms__lookup(es, (uint64_t)(uintptr_t)files__new - v.start + v.pgoff,
					  &off) ?: "(none)", "files__new");
	cr_expect_eq(files__symbols(fs, f, getpid(), true, &v), es);
	cr_expect_eq(stats(fs).reads, 1);
	cr_expect_gt(stats(fs).bytes, 0);
	cr_expect_neq(f->build_id[0], '\0');
	files__put(fs, f);
	cr_expect_eq(stats(fs).bytes, 0);
	/* the space is reused: a new entry, read anew */
	f = files__get(fs, getpid(), true, &v);
	cr_expect_not_null(files__symbols(fs, f, getpid(), true, &v));
	cr_expect_eq(stats(fs).reads, 2);
	files__put(fs, f);
	files__free(fs);
}

Test(files, trim_drops_least_recently_used_symbols_past_the_budget)
{
	struct files *fs = new_files(1);	/* one byte: any file is over */
	struct found exe, libc;
	struct vma ve = mapping_of(&exe, "test_files"), vl = mapping_of(&libc, "libc.so");
	struct file_entry *e = files__get(fs, getpid(), true, &ve);
	struct file_entry *l = files__get(fs, getpid(), true, &vl);

	cr_assert_not_null(files__symbols(fs, e, getpid(), true, &ve));
	cr_assert_not_null(files__symbols(fs, l, getpid(), true, &vl));
	cr_expect_eq(stats(fs).loaded, 2);
	files__trim(fs);
	cr_expect_eq(stats(fs).loaded, 0);
	cr_expect_eq(stats(fs).bytes, 0);
	cr_expect_null(e->syms);
	cr_expect_eq(stats(fs).entries, 2);	/* the entries stay: only symbols go */
	cr_expect_not_null(files__symbols(fs, e, getpid(), true, &ve));
	cr_expect_eq(stats(fs).reads, 3);
	files__put(fs, e);
	files__put(fs, l);
	files__free(fs);
}

Test(files, budget_keeps_what_fits)
{
	struct files *fs = new_files(64u << 20);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files");
	struct file_entry *f = files__get(fs, getpid(), true, &v);

	cr_assert_not_null(files__symbols(fs, f, getpid(), true, &v));
	files__trim(fs);
	cr_expect_eq(stats(fs).loaded, 1);
	cr_expect_not_null(f->syms);
	files__put(fs, f);
	files__free(fs);
}

/* procs holds a reference per mapping until it forgets the process: the
 * entry outlives the exit (the drain still names its frames), not the reap. */
Test(files, processes_reference_their_files_until_reaped)
{
	struct procs *p = procs__new();
	struct files *fs = new_files(0);
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files");
	const struct vma *got;

	cr_assert_not_null(p);
	files__attach(fs, p);
	v.time = 10;
	cr_assert_eq(procs__exec(p, FAKE, 1), 0);
	cr_assert_eq(procs__mmap(p, FAKE, &v), 0);
	cr_assert_eq(procs__fork(p, FAKE, FAKE + 1, 20), 0);
	cr_expect_eq(stats(fs).entries, 1);
	got = procs__find(p, FAKE + 1, 0, EXEC_LATEST, v.start);
	cr_assert_not_null(got);
	cr_expect_not_null(got->file);
	cr_assert_eq(procs__exit(p, FAKE + 1, 30), 0);
	cr_assert_eq(procs__exit(p, FAKE, 40), 0);
	cr_expect_eq(procs__reap(p, 35), 1);	/* the child */
	cr_expect_eq(stats(fs).entries, 1);	/* the parent still maps it */
	cr_expect_eq(procs__reap(p, 50), 1);
	cr_expect_eq(stats(fs).entries, 0);
	cr_expect_eq(stats(fs).released, 1);
	procs__free(p);
	files__free(fs);
}

Test(files, procs_free_lets_go_of_every_file)
{
	struct procs *p = procs__new();
	struct files *fs = new_files(0);

	files__attach(fs, p);
	cr_assert_eq(procs__synthesize(p, getpid()), 0);
	cr_expect_gt(stats(fs).entries, 1);	/* this binary, libc, ld.so... */
	procs__free(p);
	cr_expect_eq(stats(fs).entries, 0);
	files__free(fs);
}

/* Opened by path (the process gone), a file with the mapping's inode
 * number is the mapped one only on the same device, or with the stamp
 * taken when the path was checked. */
Test(files, path_with_the_inode_number_of_another_device_is_refused)
{
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files"), other = v;
	struct file_stamp stamp;
	int fd = mapped_file__open(FAKE, false, &v, NULL);

	cr_assert_geq(fd, 0);
	stamp = file_stamp__of(fd);
	close(fd);
	cr_assert(stamp.known);
	other.dev_major ^= 0x7f;
	cr_expect_eq(mapped_file__open(FAKE, false, &other, NULL), -ESTALE);
	fd = mapped_file__open(FAKE, false, &other, &stamp);	/* overlayfs: vouched */
	cr_expect_geq(fd, 0);
	if (fd >= 0)
		close(fd);
	stamp.mtime_ns++;	/* the path's file was replaced since */
	cr_expect_eq(mapped_file__open(FAKE, false, &v, &stamp), -ESTALE);
}

/* The unwinder keeps a file's segments, not its names (the registry's). */
Test(files, dropped_symbols_keep_the_segments)
{
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files");
	int fd = mapped_file__open(FAKE, false, &v, NULL);
	struct elf_syms *es;
	uint64_t before, after, off;

	cr_assert_geq(fd, 0);
	es = elf_syms__open_fd(fd);
	close(fd);
	cr_assert_not_null(es);
	cr_assert_eq(elf_syms__vaddr(es, v.pgoff, &before), 0);
	cr_assert_gt(elf_syms__count(es), 0);
	elf_syms__drop_symbols(es);
	cr_expect_eq(elf_syms__count(es), 0);
	cr_expect_null(elf_syms__lookup(es, v.pgoff, &off));
	cr_assert_eq(elf_syms__vaddr(es, v.pgoff, &after), 0);
	cr_expect_eq(before, after);
	cr_expect_lt(elf_syms__bytes(es), 4096);
	elf_syms__free(es);
}

static struct files *new_dwarf_files(uint64_t dwarf_max)
{
	struct files *fs = files__new(&(struct files_opts){ .inlines = true,
							     .dwarf_max = dwarf_max });

	cr_assert_not_null(fs);
	return fs;
}

/* The file vaddr of this test's own code (new_dwarf_files). */
static uint64_t own_vaddr(struct file_entry *f, const struct vma *v)
{
	uint64_t vaddr, off = (uint64_t)(uintptr_t)new_dwarf_files - v->start + v->pgoff;

	cr_assert_eq(elf_syms__vaddr(f->syms, off, &vaddr), 0);
	return vaddr;
}

/* DWARF sessions are bounded in bytes: a file whose DWARF alone is over
 * the bound gets none (counted); under it, one opens and its bytes are
 * what the file's .debug_* sections hold. */
Test(files, dwarf_budget_refuses_a_file_over_it)
{
	struct found exe;
	struct vma v = mapping_of(&exe, "test_files");
	struct files *fs = new_dwarf_files(1);
	struct file_entry *f = files__get(fs, getpid(), true, &v);
	uint64_t need;

	cr_assert_not_null(files__symbols(fs, f, getpid(), true, &v));
	need = elf_syms__dwarf_bytes(f->syms);
	cr_assert_gt(need, 1, "this test is built with -g");
	cr_expect_null(files__src(fs, f, getpid(), true, &v, own_vaddr(f, &v)));
	cr_expect_eq(stats(fs).dwarf_over, 1);
	cr_expect_eq(stats(fs).line_opens, 0);
	files__put(fs, f);
	files__free(fs);

	fs = new_dwarf_files(need);
	f = files__get(fs, getpid(), true, &v);
	cr_assert_not_null(files__symbols(fs, f, getpid(), true, &v));
	cr_expect_not_null(files__src(fs, f, getpid(), true, &v, own_vaddr(f, &v)));
	cr_expect_eq(stats(fs).dwarf_over, 0);
	cr_expect_eq(stats(fs).line_opens, 1);
	cr_expect_eq(stats(fs).dwarf_open, need);
	cr_expect_eq(stats(fs).dwarf_peak, need);
	files__put(fs, f);
	files__free(fs);
}
