/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the files tests share: this process's own executable mapping of a
 * file (found in /proc/self/maps), and the registry's counters. */
#ifndef BPFPROF_TEST_FILES_FIXTURES_H
#define BPFPROF_TEST_FILES_FIXTURES_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "files/files.h"
#include "procs/proc_maps.h"
#include "procs/procs.h"

struct found {
	const char *want;	/* part of the path */
	struct vma v;
	char path[4096];
};

static inline int find_mapping(const struct maps_line *ml, void *ctx)
{
	struct found *f = ctx;

	if (f->v.path || !strstr(ml->path, f->want))
		return 0;
	snprintf(f->path, sizeof(f->path), "%s", ml->path);
	f->v = (struct vma){ .start = ml->start, .end = ml->end, .pgoff = ml->pgoff,
			     .dev_major = ml->dev_major, .dev_minor = ml->dev_minor,
			     .ino = ml->ino, .path = f->path };
	return 0;
}

/* This process's executable mapping of a file whose path contains want. */
static inline struct vma mapping_of(struct found *f, const char *want)
{
	memset(f, 0, sizeof(*f));
	f->want = want;
	cr_assert_eq(maps_for_each_exec(getpid(), find_mapping, f), 0);
	cr_assert_not_null(f->v.path, "no executable mapping of %s", want);
	return f->v;
}

static inline struct files_stats stats(const struct files *fs)
{
	struct files_stats st;

	files__stats(fs, &st);
	return st;
}

#endif
