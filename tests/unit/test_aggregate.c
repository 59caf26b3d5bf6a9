// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of aggregate.c: a profile's strings, interned once. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "profile/aggregate.h"
#include "leak_check.h"

TestSuite(aggregate, .fini = check_leaks);

/* Past the set's first growths: every name is its own copy, equal names
 * one copy, whatever buffer the caller passed them in. */
Test(aggregate, equal_strings_are_one_copy_across_growth)
{
	struct profile *p = profile__new();
	char name[2][32], map[32] = "/usr/lib/libx.so";
	struct pframe f[2] = { 0 };
	const char *first = NULL;

	cr_assert_not_null(p);
	for (int i = 0; i < 5000; i++) {
		snprintf(name[0], sizeof(name[0]), "fn_%d", i);
		snprintf(name[1], sizeof(name[1]), "fn_%d", i % 7);
		f[0] = (struct pframe){ .name = name[0], .mapping = map };
		f[1] = (struct pframe){ .name = name[1], .mapping = map };
		cr_assert_eq(profile__add(p, 0, "app", 1, 1, 0, 1, f, 2), 0);
	}
	cr_assert_eq(p->nsamples, 5000);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		char want[32];

		snprintf(want, sizeof(want), "fn_%zu", i);
		cr_assert_str_eq(s->frames[0]->name, want);
		snprintf(want, sizeof(want), "fn_%zu", i % 7);
		cr_assert_str_eq(s->frames[1]->name, want);
		/* fn_0..fn_6 of the second frame are the first frames' copies */
		cr_assert_eq(s->frames[1]->name, p->samples[i % 7].frames[0]->name);
		cr_assert_eq(s->frames[0]->mapping, s->frames[1]->mapping);
		cr_assert_str_eq(s->frames[0]->mapping, map);
		cr_assert_str_eq(s->frames[0]->file, "");	/* none: "" */
		if (!first)
			first = s->frames[0]->mapping;
		cr_assert_eq(s->frames[0]->mapping, first, "one copy of the mapping");
	}
	cr_assert_eq(p->names.n, 5000 + 2);	/* the names, the mapping, "" */
	profile__free(p);
}

/* A frame is kept once however many stacks hold it: equal frames are one
 * copy, a frame that differs in any field (its address, line, mark,
 * mapping) is another; a merge copies src's frames into dst's own, which
 * outlive src. */
Test(aggregate, equal_frames_are_one_copy_and_merge_copies)
{
	struct profile *p = profile__new(), *dst = profile__new();
	char name[32] = "work";
	struct pframe base = { .name = name, .mapping = "/bin/app", .addr = 0x401000, .line = 7 };
	struct pframe f[6] = { base, base, base, base, base, base };

	cr_assert(p && dst);
	f[1].addr++;
	f[2].line++;
	f[3].inlined = true;
	f[4].mapping = "/bin/other";
	f[5].map_start = 0x400000;
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(profile__add(p, 0, "app", 1, 1, 0, 1, f, 6), 0);
	cr_assert_eq(p->frames.n, 6, "6 distinct frames, %zu kept", p->frames.n);
	for (size_t i = 1; i < p->nsamples; i++)
		for (int k = 0; k < 6; k++)
			cr_assert_eq(p->samples[i].frames[k], p->samples[0].frames[k]);
	cr_assert_eq(profile__merge(dst, p), 0);
	cr_assert_eq(profile__merge(dst, p), 0);
	profile__free(p);
	strcpy(name, "gone");	/* the caller's buffer: not what frames point to */
	cr_assert_eq(dst->nsamples, 2000);
	cr_assert_eq(dst->frames.n, 6);
	cr_assert_str_eq(dst->samples[1999].frames[0]->name, "work");
	cr_assert_eq(dst->samples[1999].frames[2]->line, 8);
	cr_assert(dst->samples[0].frames[3]->inlined);
	cr_assert_str_eq(dst->samples[0].frames[4]->mapping, "/bin/other");
	profile__free(dst);
}

static int name_each(struct pcgroup *cg, void *arg)
{
	char path[64];

	snprintf(path, sizeof(path), "/c%llu", (unsigned long long)cg->id);
	cg->path = profile__intern(arg, path);
	return 0;
}

/* Samples point at their cgroup's one entry; past max_cgroups they carry
 * none and say so; a merge keeps the names and the cap of its target. */
Test(aggregate, cgroups_one_entry_each_capped_and_merged)
{
	struct profile *p = profile__new(), *q = profile__new();
	struct pframe f = { .name = "work", .mapping = "" };

	cr_assert(p && q);
	p->max_cgroups = 3;
	for (uint64_t i = 0; i < 10; i++)	/* cgroups 1, 2, 3, 4, 5, 1, 2, ... */
		cr_assert_eq(profile__add(p, 0, "app", 7, 7, 1 + i % 5, 1, &f, 1), 0);
	cr_assert_eq(profile__add(p, 0, "app", 7, 7, 0, 1, &f, 1), 0);	/* none */
	cr_expect_eq(p->stats.cgroups, 3);
	cr_expect_eq(p->stats.cgroups_merged, 4, "samples of cgroups 4 and 5: %llu",
		     (unsigned long long)p->stats.cgroups_merged);
	cr_expect_eq(p->samples[0].cgroup, p->samples[5].cgroup);
	cr_expect_eq(p->samples[0].cgroup->id, 1);
	cr_expect_eq(p->samples[0].cgroup->tgid, 7);
	cr_expect_null(p->samples[3].cgroup);
	cr_expect_null(p->samples[10].cgroup);
	cr_assert_eq(profile__each_cgroup(p, name_each, p), 0);

	q->max_cgroups = 2;
	cr_assert_eq(profile__merge(q, p), 0);
	cr_expect_eq(q->stats.cgroups, 2);
	cr_expect_str_eq(q->samples[0].cgroup->path, "/c1");
	cr_expect_neq(q->samples[0].cgroup->path, p->samples[0].cgroup->path, "q's own copy");
	cr_expect_null(q->samples[2].cgroup, "cgroup 3: past q's cap");
	cr_expect_eq(q->stats.cgroups_merged, 4 + 2);
	profile__free(p);
	profile__free(q);
}
